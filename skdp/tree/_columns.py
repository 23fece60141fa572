"""From a user's table to public attribute domains and encoded columns.

Decides which columns are categorical, builds each one's public domain (a taxonomy, the
ranges of a declared category order, or an interval of a numeric column: its declared
bounds, or ``(-inf, inf)`` split on a public scale-free grid), and encodes rows. Nothing
here spends budget and only one fallback looks at the data: observed categories
(``PrivacyLeakWarning``, refused on a dask collection). The rows of a dask collection
are encoded block by block where they live (:func:`dask_records`).
"""

import warnings
from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import check_array
from sklearn.utils.validation import check_consistent_length, validate_data

from skdp.exceptions import PrivacyLeakWarning
from skdp.tree._attributes import (
    CategoricalAttribute,
    NumericAttribute,
    OrderedCategoricalAttribute,
)
from skdp.tree._counting import compact
from skdp.tree._records import EncodedColumns, numeric_column
from skdp.utils._stats import as_dask_array, is_dask_collection, require_public, sum_blocks
from skdp.utils.validation import resolve_bounds, resolve_classes, warn_clipped


def as_frame(X, estimator_name="DPDecisionTree"):
    """Validate the shape of ``X`` and return it as a DataFrame (columns as given)."""
    if sp.issparse(X):
        raise TypeError(
            f"{estimator_name} does not accept sparse input; pass a dense array or DataFrame"
        )
    checked = check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=1)
    # a view of the array (pandas 3 copies by default): nothing here writes to it
    return X if isinstance(X, pd.DataFrame) else pd.DataFrame(checked, copy=False)


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


def _observed_order(column):
    """The distinct values of a column as strings, in their natural order if they have
    one (numbers as numbers: 2 before 10), else as sorted strings."""
    try:
        ordered = sorted(set(column.dropna()))
    except TypeError:
        ordered = sorted({str(v) for v in column.dropna()})
    return list(dict.fromkeys(str(v) for v in ordered))


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


class Columns:
    """The attributes of one fit and how to encode rows for them.

    Attributes
    ----------
    names : list of str
    attributes : list
    """

    def __init__(self, names, attributes):
        self.names = names
        self.attributes = attributes

    def encode(self, frame, *, clip_warning=False):
        """Encoded values per attribute of a frame returned by :func:`as_frame`."""
        return list(self._encoded(frame, clip_warning))

    def encode_columns(self, frame, *, clip_warning=False):
        """:meth:`encode`'s columns as :class:`~skdp.tree._records.EncodedColumns`: a
        float64 numeric column with nothing clipped is the caller's own (no copy),
        categorical codes take one or two bytes a record."""
        encoded = [
            values if attribute.kind == "numeric" else compact(values)
            for attribute, values in zip(
                self.attributes, self._encoded(frame, clip_warning), strict=True
            )
        ]
        return EncodedColumns(encoded, len(frame))

    def _encoded(self, frame, clip_warning):
        if frame.shape[1] != len(self.names):
            raise ValueError(f"X has {frame.shape[1]} columns, expected {len(self.names)}")
        for j, attribute in enumerate(self.attributes):
            column = frame.iloc[:, j]
            if attribute.kind != "numeric":  # categories: a taxonomy or a declared order
                if column.isna().any():
                    raise ValueError(
                        f"Column {self.names[j]!r} has missing values; DPDecisionTree does "
                        "not accept them. Drop those rows or map them to a category."
                    )
                yield attribute.encode(column)
            else:
                low, high = attribute.intervals[0]
                yield attribute.encode(
                    numeric_column(column, low, high, self.names[j], clip_warning)
                )


def fit_input(estimator, X, y):
    """``fit``'s checks of ``X`` and ``y``: ``(X, frame, classes, y_codes)``.

    A dask ``X`` needs public ``classes`` (``y`` is read in its blocks; ``y_codes`` is
    then None); a numpy / pandas ``X`` sets ``n_features_in_`` and encodes ``y``.
    """
    if is_dask_collection(X):
        X, frame = dask_input(estimator, X, reset=True)
        require_public(estimator.classes, "classes", estimator)
        # the checks of the public labels (y is read in the blocks)
        classes, _ = resolve_classes(
            estimator.classes, estimator.classes, estimator_name=estimator._name
        )
        return X, frame, classes, None
    if is_dask_collection(y):
        raise TypeError("DPDecisionTree takes a dask y only with a dask X.")
    frame = as_frame(X)
    validate_data(estimator, X, reset=True, skip_check_array=True)
    classes, y_codes = resolve_classes(estimator.classes, y, estimator_name=estimator._name)
    check_consistent_length(frame, y_codes)
    return X, frame, classes, y_codes


def split_columns(estimator, frame, *, from_frame, lazy=False):
    """Build the :class:`Columns` of a fit from the declared and default domains.

    ``frame`` comes from :func:`as_frame`; ``from_frame`` says whether the user passed a
    DataFrame (only then are object/string columns taken as categorical). A categorical
    column without a taxonomy is split into ranges of its declared category order
    (:class:`~skdp.tree._attributes.OrderedCategoricalAttribute`); a numeric column
    without declared bounds gets the root ``(-inf, inf)`` and the public scale-free grid
    of split points (:class:`~skdp.tree._attributes.NumericAttribute`). Nothing here
    spends budget. ``lazy``: ``frame`` is the empty frame of a dask collection
    (:func:`dask_input`), so categories must be declared.

    Returns
    -------
    columns : Columns
    bounds : dict
        ``{column: (lower, upper)}`` of every numeric column: declared, or
        ``(-inf, inf)``.
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
                if lazy:
                    raise ValueError(
                        f"{type(estimator).__name__} on a dask collection needs the public "
                        f"categories of column {name!r}: pass categories= or taxonomies=, or "
                        "give it a pandas categorical dtype with known categories."
                    )
                values = _observed_order(column)
                warnings.warn(
                    f"Column {name!r} is categorical without declared categories: its "
                    "observed values are used, which reveals them. Pass categories= or "
                    "taxonomies=, or use a pandas categorical dtype.",
                    PrivacyLeakWarning,
                    stacklevel=3,
                )
            attributes.append(OrderedCategoricalAttribute(name, values))
        else:
            attributes.append(None)
            numeric.append(j)
    numeric_names = [names[j] for j in numeric]
    lower, upper = declared_bounds(estimator.bounds, names, numeric_names)
    for j, low, high in zip(numeric, lower, upper, strict=True):
        attributes[j] = NumericAttribute(names[j], low, high, estimator.n_split_points)
    bounds = {name: (float(low), float(high))
              for name, low, high in zip(numeric_names, lower, upper, strict=True)}  # fmt: skip
    return Columns(names, attributes), bounds


def declared_bounds(bounds, names, numeric_names):
    """The declared ``(lower, upper)`` of every numeric column, ``(-inf, inf)`` where
    undeclared.

    A dict names some columns (the others are undeclared; entries naming categorical
    columns are unused); a tuple or arrays cover every numeric column, in order
    (:func:`skdp.utils.validation.resolve_bounds`).
    """
    n = len(numeric_names)
    if bounds is None:
        return np.full(n, -np.inf), np.full(n, np.inf)
    if not isinstance(bounds, Mapping):
        return resolve_bounds(bounds, n, feature_names=numeric_names)
    given = {str(k): v for k, v in bounds.items()}
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise ValueError(
            f"bounds names columns that X does not have: {unknown}; the columns are {names}"
        )
    lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    chosen = [f for f in numeric_names if f in given]
    if chosen:
        at = [numeric_names.index(f) for f in chosen]
        pairs = {f: given[f] for f in chosen}
        lower[at], upper[at] = resolve_bounds(pairs, len(chosen), feature_names=chosen)
    return lower, upper


# --- dask collections ------------------------------------------------------------------


def dask_input(estimator, X, *, reset):
    """Validate a dask DataFrame or array lazily; return it and its empty pandas frame.

    Sets (``reset``) or checks ``n_features_in_`` and ``feature_names_in_``. The empty
    frame has the columns' dtypes; a categorical column whose categories dask does not
    know becomes an object column (so that it needs declared categories).
    """
    import dask.array as da
    import dask.dataframe as dd

    name = type(estimator).__name__
    if isinstance(X, dd.DataFrame):
        names = np.asarray(X.columns, dtype=object)
        if reset:
            estimator.n_features_in_ = len(names)
            if len(names) and all(isinstance(c, str) for c in names):
                estimator.feature_names_in_ = names
            elif hasattr(estimator, "feature_names_in_"):
                del estimator.feature_names_in_
        else:
            if len(names) != estimator.n_features_in_:
                raise ValueError(
                    f"X has {len(names)} features, but {name} is expecting "
                    f"{estimator.n_features_in_} features as input."
                )
            fitted = getattr(estimator, "feature_names_in_", None)
            if fitted is not None and not np.array_equal(names, fitted):
                raise ValueError(
                    "The feature names should match those that were passed during fit."
                )
        meta = X._meta
        unknown = [
            c for c, t in meta.dtypes.items()
            if isinstance(t, pd.CategoricalDtype) and not X[c].cat.known
        ]  # fmt: skip
        return X, meta.astype(dict.fromkeys(unknown, object)) if unknown else meta
    if isinstance(X, da.Array):
        X = as_dask_array(estimator, X, reset=reset, dtype=X.dtype)
        return X, pd.DataFrame(np.empty((0, X.shape[1]), dtype=X.dtype))
    raise TypeError(f"{name} takes a dask DataFrame or a 2-D dask array, got {type(X).__name__}.")


def _block_frame(block):
    return block if isinstance(block, pd.DataFrame) else pd.DataFrame(block)


def _encode_block(columns, block):
    """One float column per attribute: leaf indices, or numbers (not clipped)."""
    encoded = columns.encode(_block_frame(block))
    return np.column_stack(encoded).astype(float) if len(block) else np.empty((0, len(encoded)))


def _encode_partition(columns, partition):
    return pd.DataFrame(_encode_block(columns, partition))


def _class_codes(classes, labels):
    labels = np.asarray(labels).reshape(-1)
    if not labels.size:
        return np.empty(0, dtype=np.int64)
    return resolve_classes(classes, labels, estimator_name="DPDecisionTree")[1]


def _class_code_series(classes, labels):
    return pd.Series(_class_codes(classes, labels))


def _outside(lower, upper, block):
    return np.count_nonzero((block < lower) | (block > upper), axis=0)


def _clip(lower, upper, block):
    return np.clip(block, lower, upper)


def dask_records(columns, X, y, classes):
    """Encode a dask ``X`` and its targets block by block, and keep them in the workers.

    Reads the sources once (the two are persisted together), counts the values outside
    the public bounds (a :class:`~skdp.exceptions.ClippingWarning` per column, as for
    numpy) and clips them, on the persisted blocks.

    Returns
    -------
    encoded : dask.array.Array of shape (n_samples, n_attributes)
        Leaf indices (as floats) and clipped numbers, row chunk sizes known.
    y : dask.array.Array of shape (n_samples,), int64
        The index in ``classes`` of each target.
    """
    import dask
    import dask.array as da
    import dask.dataframe as dd

    d = len(columns.names)
    if isinstance(X, dd.DataFrame):
        meta = pd.DataFrame({j: pd.Series(dtype=float) for j in range(d)})
        encoded = X.map_partitions(partial(_encode_partition, columns), meta=meta)
    else:
        encoded = X.map_blocks(
            partial(_encode_block, columns), dtype=float, chunks=(X.chunks[0], (d,))
        )
    if isinstance(y, (dd.Series, dd.DataFrame)):
        meta = pd.Series(dtype=np.int64)
        codes = y.map_partitions(partial(_class_code_series, classes), meta=meta)
    elif isinstance(y, da.Array):
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1:
            raise ValueError(f"y should be a 1d array, got an array of shape {y.shape}.")
        codes = y.map_blocks(partial(_class_codes, classes), dtype=np.int64)
    else:
        codes = _class_codes(classes, y)
    encoded, codes = dask.persist(encoded, codes)  # one read of the sources for both
    if isinstance(encoded, dd.DataFrame):
        encoded = encoded.to_dask_array(lengths=True)
    if isinstance(codes, dd.Series):
        codes = codes.to_dask_array(lengths=True)
    elif is_dask_collection(codes) and any(np.isnan(c) for c in codes.chunks[0]):
        codes = codes.compute_chunk_sizes()
    n_samples, n_targets = encoded.shape[0], codes.shape[0]
    if n_samples != n_targets:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{n_samples}, {n_targets}]"
        )
    lower = np.array([a.intervals[0][0] if a.kind == "numeric" else -np.inf
                      for a in columns.attributes])  # fmt: skip
    upper = np.array([a.intervals[0][1] if a.kind == "numeric" else np.inf
                      for a in columns.attributes])  # fmt: skip
    outside = sum_blocks(partial(_outside, lower, upper), encoded)  # also runs the checks
    for name, n_clipped in zip(columns.names, outside, strict=True):
        warn_clipped(int(n_clipped), n_samples, name=f"column {name!r}", stacklevel=4)
    if outside.any():
        encoded = encoded.map_blocks(partial(_clip, lower, upper), dtype=float).persist()
    return encoded, codes
