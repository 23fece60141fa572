"""From a user's table to public attribute domains and encoded columns.

Decides which columns are categorical, builds each one's public domain (a taxonomy, a
declared value list, or an interval from public or privately estimated bounds), and
encodes rows. Only the fallbacks warned about below ever look at the data: observed
categories (``PrivacyLeakWarning``) and ``bounds=None`` (a budgeted DP estimate).
"""

import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import check_array

from skdp.exceptions import PrivacyLeakWarning
from skdp.tree._attributes import CategoricalAttribute, NumericAttribute
from skdp.utils._bounds import BOUNDS_SHARE, estimate_bounds
from skdp.utils.validation import clip_to_bounds, resolve_bounds


def as_frame(X, estimator_name="DPDecisionTree"):
    """Validate the shape of ``X`` and return it as a DataFrame (columns as given)."""
    if sp.issparse(X):
        raise TypeError(
            f"{estimator_name} does not accept sparse input; pass a dense array or DataFrame"
        )
    checked = check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=1)
    return X if isinstance(X, pd.DataFrame) else pd.DataFrame(checked)


def _is_categorical(series, declared, from_frame):
    """Declared, or a DataFrame column of category, bool, string or object dtype.

    Columns of arrays are numeric unless declared (as scikit-learn treats arrays).
    """
    dtype = series.dtype
    if declared:
        return True
    if not from_frame:
        return False
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or not pd.api.types.is_numeric_dtype(dtype)
        or (pd.api.types.is_bool_dtype(dtype))
    )


def _declared(categorical_features, names):
    if categorical_features is None:
        return set()
    chosen = set()
    for item in categorical_features:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= item < len(names):
                raise ValueError(f"categorical_features index {item} is out of range")
            chosen.add(names[item])
        elif str(item) in names:
            chosen.add(str(item))
        else:
            raise ValueError(f"categorical_features names an unknown column {item!r}")
    return chosen


def _flat_tree(values):
    root = "Any" if "Any" not in values else "Any (root)"
    return {root: list(values)}


class Columns:
    """The attributes of one fit and how to encode rows for them.

    Attributes
    ----------
    names : list of str
    attributes : list
    bounds_epsilon : float
        Epsilon spent estimating numeric bounds (0 with public bounds).
    """

    def __init__(self, names, attributes, bounds_epsilon):
        self.names = names
        self.attributes = attributes
        self.bounds_epsilon = bounds_epsilon

    def encode(self, frame, *, clip_warning=False):
        """Encoded values per attribute of a frame returned by :func:`as_frame`."""
        if frame.shape[1] != len(self.names):
            raise ValueError(f"X has {frame.shape[1]} columns, expected {len(self.names)}")
        encoded = []
        for j, attribute in enumerate(self.attributes):
            column = frame.iloc[:, j]
            if attribute.kind == "categorical":
                if column.isna().any():
                    raise ValueError(
                        f"Column {self.names[j]!r} has missing values; DPDecisionTree does "
                        "not accept them. Drop those rows or map them to a category."
                    )
                encoded.append(attribute.encode([str(v) for v in column]))
            else:
                values = _numbers(column, self.names[j])
                low, high = attribute.intervals[0]
                if clip_warning:
                    values = clip_to_bounds(values, low, high, name=f"column {self.names[j]!r}")
                encoded.append(attribute.encode(values))
        return encoded


def _numbers(column, name):
    values = np.asarray(column, dtype=float)
    if not np.isfinite(values).all():
        raise ValueError(f"Input X contains NaN or infinity in column {name!r}")
    return values


def split_columns(estimator, frame, *, from_frame, rng):
    """Build the :class:`Columns` of a fit, spending bounds budget if needed.

    ``frame`` comes from :func:`as_frame`; ``from_frame`` says whether the user passed a
    DataFrame (only then are object/string columns taken as categorical).
    """
    names = [str(c) if isinstance(c, str) else f"x{j}" for j, c in enumerate(frame.columns)]
    declared = _declared(estimator.categorical_features, names)
    categories = dict(estimator.categories or {})
    taxonomies = dict(estimator.taxonomies or {})
    unknown = sorted((set(map(str, categories)) | set(map(str, taxonomies))) - set(names))
    if unknown:
        raise ValueError(f"categories/taxonomies name unknown columns: {unknown}")
    attributes, numeric = [], []
    for j, name in enumerate(names):
        column = frame.iloc[:, j]
        if name in taxonomies:
            attributes.append(CategoricalAttribute(name, taxonomies[name]))
        elif name in categories or _is_categorical(column, name in declared, from_frame):
            if name in categories:
                values = [str(v) for v in categories[name]]
            elif isinstance(column.dtype, pd.CategoricalDtype):
                values = [str(v) for v in column.cat.categories]
            else:
                values = sorted({str(v) for v in column.dropna()})
                warnings.warn(
                    f"Column {name!r} is categorical without declared categories: its "
                    "observed values are used, which reveals them. Pass categories= or "
                    "taxonomies=, or use a pandas categorical dtype.",
                    PrivacyLeakWarning,
                    stacklevel=3,
                )
            attributes.append(CategoricalAttribute(name, _flat_tree(values)))
        else:
            attributes.append(None)
            numeric.append(j)
    bounds_epsilon = 0.0
    if numeric:
        numeric_names = [names[j] for j in numeric]
        values = np.column_stack([_numbers(frame.iloc[:, j], names[j]) for j in numeric])
        resolved = resolve_bounds(
            _only_numeric(estimator.bounds, names, numeric_names),
            len(numeric),
            feature_names=numeric_names,
        )
        if resolved is None:
            bounds_epsilon = estimator.epsilon * BOUNDS_SHARE
            resolved = estimate_bounds(values, epsilon=bounds_epsilon, random_state=rng)
        for j, low, high in zip(numeric, *resolved, strict=True):
            attributes[j] = NumericAttribute(names[j], low, high, estimator.n_split_points)
    return Columns(names, attributes, bounds_epsilon)


def _only_numeric(bounds, names, numeric_names):
    """A dict of bounds may also name categorical columns; those entries are unused."""
    if isinstance(bounds, dict):
        categorical = set(names) - set(numeric_names)
        return {k: v for k, v in bounds.items() if str(k) not in categorical}
    return bounds
