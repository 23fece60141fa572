"""Public encodings for the linear models: numeric columns to [0, 1] by their public
bounds, categorical columns one-hot over their public categories.

Nothing here is fitted on the data in a way that matters for privacy: the scaling uses the
task's public bounds and the one-hot encoder its public category lists, so the encoded
design and its norm bound are public functions of public inputs.
"""

import math

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder


def _scale_to_unit(X, lower, upper):
    return (np.asarray(X, dtype=float) - lower) / (upper - lower)


def numeric_columns(task, X=None):
    X = task.X_train if X is None else X
    categorical = set(task.public.get("categorical_features") or [])
    return [c for c in X.columns if c not in categorical]


def has_public_bounds(task, X=None):
    """True when every numeric column of the task has public bounds."""
    bounds = task.public.get("bounds") or {}
    return all(c in bounds for c in numeric_columns(task, X))


def public_encoder(task, X=None):
    """A ColumnTransformer: numeric columns scaled into [0, 1], categoricals one-hot.

    Values outside the public bounds are scaled outside [0, 1]; the estimator's own
    bounds or norm clipping then applies (and warns).
    """
    columns = numeric_columns(task, X)
    bounds = task.public.get("bounds") or {}
    lower = np.array([bounds[c][0] for c in columns], dtype=float)
    upper = np.array([bounds[c][1] for c in columns], dtype=float)
    scale = FunctionTransformer(
        _scale_to_unit,
        kw_args={"lower": lower, "upper": upper},
        feature_names_out="one-to-one",
    )
    transformers = [("numeric", scale, columns)]
    categorical = task.public.get("categorical_features") or []
    if categorical:
        categories = [list(task.public["categories"][c]) for c in categorical]
        one_hot = OneHotEncoder(
            categories=categories, handle_unknown="ignore", sparse_output=False
        )
        transformers.append(("categorical", one_hot, categorical))
    return ColumnTransformer(transformers, remainder="drop")


def encoded_norm_bound(task, X=None):
    """Public L2 bound of an encoded row: sqrt(#numeric + #categorical)."""
    n_categorical = len(task.public.get("categorical_features") or [])
    return math.sqrt(len(numeric_columns(task, X)) + n_categorical)


def encoded(task, model, X=None):
    """``public_encoder`` followed by ``model``, as a Pipeline whose model step is 'model'.

    Sweep the model's parameters with ``--param model__C=0.1,1``.
    """
    return Pipeline([("encode", public_encoder(task, X)), ("model", model)])
