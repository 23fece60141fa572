"""Exact sufficient statistics of the records, on numpy arrays or dask collections.

Every skdp estimator reads its training records only through a few exact aggregates
(counts per cell, per-cluster sums, ``X^T X``, ...). This module computes them with one
code path for both kinds of input: a *block function* maps a block of rows to a small
array (or a tuple of arrays), and :func:`sum_blocks` adds its results over the blocks.
On numpy input the block function runs once on the whole array; on a dask array it runs
on every row block where the block lives, and only the small per-block results travel to
the driver, where they are summed exactly (integers) or in block order (floats). Noise is
then added once, on the driver, through :mod:`skdp.mechanisms`: nothing here is private
by itself, and nothing here draws randomness.

Per-row contribution bounding (clipping to the public box, to a norm) happens inside
the block functions, so a record's influence is bounded before anything is summed.

The lazy validation of dask input (``as_dask_array``, ``as_dask_xy``, the public
inputs a dask fit requires) lives in :mod:`skdp.utils._dask_input` and is re-exported
here. dask is optional: nothing imports it unless the input is a dask collection.
"""

import numbers

import numpy as np

from skdp.utils._dask_input import (
    ClassCodes,
    as_dask_array,
    as_dask_xy,
    public_classes,
    require_public,
)

__all__ = [
    "ClassCodes",
    "as_dask_array",
    "as_dask_xy",
    "count_rows",
    "is_dask_collection",
    "map_rows",
    "persist",
    "public_classes",
    "require_public",
    "sum_blocks",
]


def is_dask_collection(obj):
    """Whether ``obj`` is a dask collection (array, DataFrame, Series), without importing
    dask for any other input.

    Parameters
    ----------
    obj : object

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._stats import is_dask_collection
    >>> is_dask_collection(np.ones(3))
    False
    """
    if not type(obj).__module__.startswith("dask"):
        return False
    import dask

    return dask.is_dask_collection(obj)


def _row_blocks(arrays):
    import dask.array as da

    first = arrays[0]
    blocks = []
    for array in arrays:
        if not isinstance(array, da.Array):
            array = da.from_array(np.asarray(array), chunks=(first.chunks[0], *array.shape[1:]))
        elif array.chunks[0] != first.chunks[0]:
            array = array.rechunk({0: first.chunks[0]})
        if array.ndim == 2:
            array = array.rechunk({1: -1})
        blocks.append(array.to_delayed().ravel())
    return list(zip(*blocks, strict=True))


def _add(total, part):
    if isinstance(total, tuple):
        return tuple(_add(t, p) for t, p in zip(total, part, strict=True))
    return total + part


def sum_blocks(function, *arrays):
    """``function(*blocks)`` summed over the row blocks of ``arrays``.

    Parameters
    ----------
    function : callable
        Maps aligned row blocks of ``arrays`` to an ndarray, a number, or a tuple of
        them; must bound each row's contribution itself.
    *arrays : ndarray or dask.array.Array
        Same number of rows. With no dask array among them, ``function`` runs once on
        the whole arrays.

    Returns
    -------
    ndarray, number or tuple
        The sum of ``function``'s results: exact for integers, block order for floats.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from skdp.utils._stats import sum_blocks
    >>> cells = np.array([0, 2, 2, 1, 2])
    >>> count = lambda c: np.bincount(c, minlength=3)
    >>> sum_blocks(count, cells)
    array([1, 1, 3])
    >>> sum_blocks(count, da.from_array(cells, chunks=2))
    array([1, 1, 3])
    """
    if not any(is_dask_collection(a) for a in arrays):
        return function(*arrays)
    import dask

    arrays = [a if is_dask_collection(a) else np.asarray(a) for a in arrays]
    if not is_dask_collection(arrays[0]):
        raise ValueError("sum_blocks: the first array must be the dask one.")
    parts = dask.compute(*[dask.delayed(function)(*blocks) for blocks in _row_blocks(arrays)])
    total = parts[0]
    for part in parts[1:]:
        total = _add(total, part)
    return total


def map_rows(function, X, *, dtype, columns=None):
    """``function`` applied row block by row block: numpy in, numpy out; dask, dask.

    Parameters
    ----------
    function : callable
        Maps a block of rows to one value per row (``columns=None``) or to ``columns``
        values per row.
    X : ndarray or dask.array.Array
    dtype : numpy dtype
        Of the result.
    columns : int or None, default=None

    Returns
    -------
    ndarray or dask.array.Array

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._stats import map_rows
    >>> map_rows(lambda b: b.sum(axis=1), np.ones((3, 2)), dtype=float)
    array([2., 2., 2.])
    """
    if not is_dask_collection(X):
        return function(X)
    if columns is None:
        return X.map_blocks(function, dtype=dtype, drop_axis=1)
    return X.map_blocks(function, dtype=dtype, chunks=(X.chunks[0], (columns,)))


def count_rows(X):
    """The number of rows (exact; a private quantity, to be noised before release).

    Parameters
    ----------
    X : ndarray or dask.array.Array

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._stats import count_rows
    >>> count_rows(np.ones((4, 2)))
    4
    """
    if is_dask_collection(X):
        n = X.shape[0]
        return int(n) if isinstance(n, numbers.Integral) else int(sum_blocks(len, X))
    return len(X)


def persist(X):
    """Keep a dask array in the workers' memory for iterative estimators (numpy: as is).

    Parameters
    ----------
    X : ndarray or dask.array.Array

    Returns
    -------
    ndarray or dask.array.Array

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._stats import persist
    >>> persist(np.ones(2))
    array([1., 1.])
    """
    return X.persist() if is_dask_collection(X) else X
