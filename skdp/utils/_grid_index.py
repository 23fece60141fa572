"""Flat cell indices and grid positions for any number of dimensions.

numpy's ``ravel_multi_index`` and ``unravel_index`` build one array per dimension and
stop at numpy's dimension limit (32 on numpy 1, 64 on numpy 2); the grids of the
clusterers and the cell tables of the trees have one dimension per feature, so a data
set with more features would fail. These two work on the ``(n, d)`` position matrix.
"""

import numpy as np

__all__ = ["add_counts", "flat_index", "grid_positions"]

# np.add.at on intp indices is a fast loop from numpy 1.25 (about 1.4 times faster than
# np.bincount on 10^6 cells of a few thousand); older versions keep bincount
_ADD_AT = np.lib.NumpyVersion(np.__version__) >= "1.25.0"


def flat_index(position, shape):
    """``np.ravel_multi_index(position.T, shape)`` for any number of dimensions.

    numpy's stops at 32 dimensions (64 on numpy 2); this has no limit.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._grid_index import flat_index, grid_positions
    >>> flat_index(np.array([[1, 2], [0, 1]]), (2, 3)).tolist()
    [5, 1]
    >>> grid_positions(np.array([5, 1]), (2, 3)).tolist()
    [[1, 2], [0, 1]]
    """
    strides = np.ones(len(shape), dtype=np.int64)
    for j in range(len(shape) - 2, -1, -1):
        strides[j] = strides[j + 1] * shape[j + 1]
    return np.asarray(position, dtype=np.int64) @ strides


def grid_positions(flat, shape):
    """``np.column_stack(np.unravel_index(flat, shape))`` for any number of dimensions."""
    remaining = np.array(flat, dtype=np.int64, copy=True).ravel()
    position = np.empty((remaining.size, len(shape)), dtype=np.int64)
    for j in range(len(shape) - 1, -1, -1):
        position[:, j] = remaining % shape[j]
        remaining //= shape[j]
    return position


def add_counts(histogram, cells):
    """``histogram += np.bincount(cells, minlength=histogram.size)``, in place.

    ``cells`` are intp indices into the 1-d int64 ``histogram``; by ``np.add.at`` where
    numpy makes it the faster loop (1.25 on), the same counts either way.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._grid_index import add_counts
    >>> histogram = np.zeros(4, dtype=np.int64)
    >>> add_counts(histogram, np.array([0, 3, 3, 1]))
    >>> histogram.tolist()
    [1, 1, 0, 2]
    """
    if _ADD_AT:
        np.add.at(histogram, cells, 1)
    else:
        histogram += np.bincount(cells, minlength=histogram.size)
