"""Lazy validation of dask input, for the estimators' dask branch before ``validate_data``.

What is known without reading the data is checked at once (dimensions, dtypes, feature
names, declared public inputs); finiteness and the labels are checked block by block
when the blocks are computed. dask is imported only here and only when used.
"""

import numpy as np
import pandas as pd

__all__ = ["ClassCodes", "as_dask_array", "as_dask_xy", "public_classes", "require_public"]


def _check_block(block, name):
    if not np.isfinite(block).all():
        raise ValueError(f"Input {name} contains NaN or infinity.")
    return block


def as_dask_array(estimator, X, *, reset, name="X", dtype=np.float64):
    """Validate a dask array or DataFrame lazily, as ``validate_data`` does for numpy.

    Checks what is known without reading the data: two dimensions, numeric (or bool)
    dtypes, the number of features (set as ``n_features_in_`` when ``reset``, else
    compared with it) and, for DataFrames, the column names (``feature_names_in_``).
    Finiteness is checked block by block when the blocks are computed: a NaN or an
    infinity raises ``ValueError`` from the computation that meets it.

    Parameters
    ----------
    estimator : estimator
    X : dask.array.Array or dask.dataframe.DataFrame
    reset : bool
        True in ``fit``, False in ``predict`` / ``transform``.
    name : str, default="X"
    dtype : numpy dtype, default=numpy.float64

    Returns
    -------
    dask.array.Array
        Of shape ``(n_samples, n_features)``, one chunk across the columns, row chunk
        sizes known.

    Examples
    --------
    >>> import dask.array as da
    >>> from sklearn.base import BaseEstimator
    >>> from skdp.utils._stats import as_dask_array
    >>> est = BaseEstimator()
    >>> X = as_dask_array(est, da.ones((10, 3), chunks=4), reset=True)
    >>> X.chunks, est.n_features_in_
    (((4, 4, 2), (3,)), 3)
    """
    import dask.array as da
    import dask.dataframe as dd

    names = None
    if isinstance(X, dd.DataFrame):
        names = np.asarray(X.columns, dtype=object)
        bad = [c for c, t in X.dtypes.items() if not pd.api.types.is_numeric_dtype(t)]
        if bad:
            raise ValueError(
                f"{type(estimator).__name__} takes numeric dask DataFrames; columns "
                f"{[str(c) for c in bad][:10]} are not numeric."
            )
        X = X.to_dask_array(lengths=True)
    elif isinstance(X, dd.Series):
        raise ValueError(f"Expected a 2-D {name}, got a dask Series; use a DataFrame.")
    if not isinstance(X, da.Array):
        raise TypeError(f"Expected a dask array or DataFrame, got {type(X).__name__}.")
    if X.ndim != 2:
        raise ValueError(f"Expected a 2-D {name}, got an array with {X.ndim} dimension(s).")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise ValueError(f"{name} must be numeric, got dtype {X.dtype}.")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    n_features = X.shape[1]
    if reset:
        estimator.n_features_in_ = n_features
        if names is not None and all(isinstance(c, str) for c in names):
            estimator.feature_names_in_ = names
        elif hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    elif n_features != estimator.n_features_in_:
        raise ValueError(
            f"{name} has {n_features} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    X = X.astype(dtype).rechunk({1: -1})
    return X.map_blocks(_check_block, name, dtype=X.dtype)


def require_public(value, what, estimator):
    """Refuse a data-derived default on dask input: ``value`` must be declared.

    Parameters
    ----------
    value : object
        The resolved public input, or None when it would be read from the data.
    what : str
        The parameter, for the message.
    estimator : estimator

    Examples
    --------
    >>> from skdp.utils._stats import require_public
    >>> require_public((0.0, 1.0), "bounds", object())
    """
    if value is None:
        raise ValueError(
            f"{type(estimator).__name__} on a dask collection needs public {what}: "
            f"estimating them privately is only implemented for in-memory arrays. "
            f"Declare {what}."
        )


def public_classes(classes, estimator):
    """The declared class labels as an array: a dask fit never reads them from ``y``.

    Parameters
    ----------
    classes : array-like or None
    estimator : estimator

    Returns
    -------
    ndarray of shape (n_classes,)

    Examples
    --------
    >>> from skdp.utils._stats import public_classes
    >>> public_classes(["no", "yes"], object())
    array(['no', 'yes'], dtype='<U3')
    """
    name = type(estimator).__name__
    if classes is None:
        raise ValueError(
            f"{name} on a dask collection needs public classes: with classes=None the "
            "labels would be read from y, which reveals which labels occur, and is only "
            "done (with a PrivacyLeakWarning) for in-memory arrays. Pass classes=[...]."
        )
    classes = np.asarray(classes)
    if len(np.unique(classes)) != len(classes):
        raise ValueError("classes contains duplicates")
    if len(classes) < 2:
        raise ValueError(f"{name} needs at least 2 classes; got {len(classes)} class")
    return classes


class ClassCodes:
    """Labels to their index among the public classes, block by block (unknown: raise).

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._stats import ClassCodes
    >>> ClassCodes(np.array(["no", "yes"]))(np.array(["yes", "no", "yes"]))
    array([1, 0, 1])
    """

    def __init__(self, classes):
        self.index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}

    def __call__(self, labels):
        distinct, inverse = np.unique(np.asarray(labels).reshape(-1), return_inverse=True)
        codes = np.array([self.index.get(v, -1) for v in distinct.tolist()], dtype=np.int64)
        if (codes < 0).any():
            unknown = sorted(str(v) for v in distinct[codes < 0].tolist())
            raise ValueError(f"y has labels not in classes: {unknown[:10]}")
        return codes[inverse.reshape(-1)]


def _finite_target(block):
    if not np.isfinite(block).all():
        raise ValueError("Input y contains NaN or infinity.")
    return block


def _dask_target(y, *, numeric):
    """``y`` as a 1-D dask array with known row blocks (in-memory ``y``: as an array)."""
    import warnings

    import dask.array as da
    import dask.dataframe as dd
    from sklearn.utils.validation import check_array, column_or_1d

    if isinstance(y, dd.DataFrame):
        if len(y.columns) != 1:
            raise ValueError(f"y must be 1-D; got a dask DataFrame of {len(y.columns)} columns.")
        y = y[y.columns[0]]
    if isinstance(y, dd.Series):
        with warnings.catch_warnings():  # labels become an object array: what is wanted
            warnings.filterwarnings("ignore", "Dask currently has limited support for conv")
            y = y.to_dask_array(lengths=True)
    if not isinstance(y, da.Array):
        y = column_or_1d(y, warn=True)
        if numeric:
            y = check_array(y, ensure_2d=False, dtype=np.float64, input_name="y")
        return y
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D; got an array of shape {y.shape}.")
    if any(np.isnan(c) for c in y.chunks[0]):
        y = y.compute_chunk_sizes()
    if numeric:
        if not (np.issubdtype(y.dtype, np.number) or y.dtype == bool):
            raise ValueError(f"y must be numeric, got dtype {y.dtype}.")
        y = y.astype(np.float64).map_blocks(_finite_target, dtype=np.float64)
    return y


def as_dask_xy(estimator, X, y, *, numeric=False, classes=None):
    """``(X, y)`` as row-aligned dask arrays, validated lazily, for a supervised ``fit``.

    Parameters
    ----------
    estimator : estimator
        Gets ``n_features_in_`` (and ``feature_names_in_``), as in ``validate_data``.
    X : dask or in-memory array / DataFrame of shape (n_samples, n_features)
    y : dask array, Series, one-column DataFrame or array-like of shape (n_samples,)
        One of ``X`` and ``y`` may be in memory: it is cut into the other's row blocks.
    numeric : bool, default=False
        ``y`` as float64, finite (checked block by block).
    classes : ndarray or None, default=None
        The public labels: ``y`` is returned as their indices (int64); a label outside
        them raises ``ValueError`` when its block is computed.

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features), float64
    y : dask.array.Array of shape (n_samples,)

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from skdp.utils._stats import as_dask_xy
    >>> X, codes = as_dask_xy(BaseEstimator(), da.ones((4, 2), chunks=2),
    ...                       np.array(["b", "a", "b", "b"]), classes=np.array(["a", "b"]))
    >>> codes.compute()
    array([1, 0, 1, 1])
    """
    import dask.array as da
    from sklearn.utils.validation import validate_data

    y = _dask_target(y, numeric=numeric)
    if type(X).__module__.startswith("dask"):
        X = as_dask_array(estimator, X, reset=True)
    else:
        X = validate_data(estimator, X, dtype=np.float64)
    n = X.shape[0]
    if y.shape[0] != n:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: [{n}, {y.shape[0]}]"
        )
    if n == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required."
        )
    if not isinstance(y, da.Array):
        y = da.from_array(y, chunks=(X.chunks[0],))
    elif not isinstance(X, da.Array):
        X = da.from_array(X, chunks=(y.chunks[0], -1))
    else:
        y = y.rechunk({0: X.chunks[0]})
    if classes is not None:
        y = y.map_blocks(ClassCodes(classes), dtype=np.int64)
    return X, y
