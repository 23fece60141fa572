"""Public encodings for the linear models: numeric columns to [-1/2, 1/2] by their
public bounds (money amounts through log1p first), categorical columns one-hot over
their public categories.

Nothing here is fitted on the data in a way that matters for privacy: the scaling uses the
task's public bounds and the one-hot encoder its public category lists, so the encoded
design, its bounds and its norm bound are public functions of public inputs.

Centring the numeric columns matters for the norm-bounded models: on [0, 1] every row
sits in one orthant of the ball and the (regularised) intercept has to undo the offset.
At epsilon = 1, ObjectivePerturbationLogistic (multinomial, C = 0.3, 30 seeds) scores
0.62 on Iris centred against 0.46 on [0, 1]; on Adult 0.838 against 0.836.
"""

import math

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder


def _scale_to_centred_unit(X, lower, upper, log_scaled):
    X = np.array(X, dtype=float)
    X[:, log_scaled] = np.log1p(X[:, log_scaled])
    return (X - lower) / (upper - lower) - 0.5


def numeric_columns(task, X=None):
    X = task.X_train if X is None else X
    categorical = set(task.public.get("categorical_features") or [])
    return [c for c in X.columns if c not in categorical]


def has_public_bounds(task, X=None):
    """True when every numeric column of the task has public bounds."""
    bounds = task.public.get("bounds") or {}
    return all(c in bounds for c in numeric_columns(task, X))


def public_encoder(task, X=None):
    """A ColumnTransformer: numeric columns scaled into [-1/2, 1/2], categoricals one-hot.

    The columns in ``task.public["log_scaled"]`` (money: mostly 0, a long tail) go
    through ``log1p`` first and are scaled by the ``log1p`` of their public bounds.
    Values outside the public bounds are scaled outside [-1/2, 1/2]; the estimator's own
    bounds or norm clipping then applies (and warns).
    """
    columns = numeric_columns(task, X)
    bounds = task.public.get("bounds") or {}
    log_scaled = np.isin(columns, task.public.get("log_scaled") or [])
    lower = np.array([bounds[c][0] for c in columns], dtype=float)
    upper = np.array([bounds[c][1] for c in columns], dtype=float)
    lower[log_scaled], upper[log_scaled] = np.log1p(lower[log_scaled]), np.log1p(upper[log_scaled])
    scale = FunctionTransformer(
        _scale_to_centred_unit,
        kw_args={"lower": lower, "upper": upper, "log_scaled": log_scaled},
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
    """Public L2 bound of an encoded row: sqrt(#numeric / 4 + #categorical)."""
    n_categorical = len(task.public.get("categorical_features") or [])
    return math.sqrt(len(numeric_columns(task, X)) / 4 + n_categorical)


def encoded_bounds(task, X=None):
    """Public per-column ``(lower, upper)`` of the encoding: +-1/2, then [0, 1] one-hot."""
    n_numeric = len(numeric_columns(task, X))
    categories = task.public.get("categories") or {}
    n_one_hot = sum(len(categories[c]) for c in task.public.get("categorical_features") or [])
    lower = np.concatenate([np.full(n_numeric, -0.5), np.zeros(n_one_hot)])
    upper = np.concatenate([np.full(n_numeric, 0.5), np.ones(n_one_hot)])
    return lower, upper


def encoded(task, model, X=None):
    """``public_encoder`` followed by ``model``, as a Pipeline whose model step is 'model'.

    Sweep the model's parameters with ``--param model__C=0.1,1``.
    """
    return Pipeline([("encode", public_encoder(task, X)), ("model", model)])
