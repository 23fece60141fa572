"""Noisy histograms on a public uniform grid over the scaled domain ``[-1, 1]^d``.

The grid depends only on public inputs (the bounds, its shape); every cell is noised,
empty ones included, so the histogram is a single discrete-Laplace release of
sensitivity 1 under add/remove one record (each record lies in exactly one cell).
"""

import math

import numpy as np

from skdp.mechanisms import geometric
from skdp.utils._grid_index import flat_index, grid_positions

__all__ = [
    "MAX_CELLS",
    "cell_centres",
    "cell_index",
    "count_cells",
    "flat_index",
    "grid_positions",
    "noisy_histogram",
    "norm_sub",
    "uniform_grid_shape",
]

# a memory cap on the number of cells (the noisy histogram is dense)
MAX_CELLS = 2**18
# rows indexed at once when counting cells (temporaries of a few MB)
CHUNK_ROWS = 2**16
# Qardaji et al.'s / Su et al.'s constant: about N epsilon / 10 cells in two dimensions
RECORDS_EPSILON_PER_CELL = 10.0


def uniform_grid_shape(n_samples, epsilon, n_features, max_cells=MAX_CELLS, min_cells=1):
    """Cells per dimension for Su et al.'s EUGkM grid.

    ``M = (N epsilon / 10)^(2d / (2 + d))`` cells in total (``sqrt(N epsilon / 10)``
    per side in two dimensions, Qardaji et al.'s rule), kept within
    ``[min_cells, max_cells]``; the leading dimensions take the ceiling of the
    remaining ``M^(1/d')`` until the product reaches ``M``, as in the authors' code
    (``N = 5000``, ``epsilon = 1``: ``23 x 22``).

    Parameters
    ----------
    n_samples : float
        Public or noisy number of records.
    epsilon : float
        The histogram's budget.
    n_features : int
    max_cells : int, default=MAX_CELLS
    min_cells : int, default=1
        A public floor on ``M`` (it does not depend on ``N``).

    Returns
    -------
    tuple of int
        At least one cell per dimension; the product stays below ``2 * max_cells``.

    Examples
    --------
    >>> from skdp.cluster._grid import uniform_grid_shape
    >>> uniform_grid_shape(5000, 1.0, 2), uniform_grid_shape(1, 1.0, 2, min_cells=64)
    ((23, 22), (8, 8))
    """
    d = n_features
    per_side_squared = max(n_samples * epsilon / RECORDS_EPSILON_PER_CELL, 1.0)
    remaining = min(max(per_side_squared ** (2 * d / (2 + d)), min_cells), max_cells)
    shape = []
    for i in range(d):
        cells = max(1, math.ceil(remaining ** (1 / (d - i)) - 1e-9))
        shape.append(cells)
        remaining /= cells
    return tuple(shape)


def cell_index(Z, shape, scale=None):
    """The flat index of the grid cell holding each row of ``Z`` (in ``[-1, 1]^d``).

    ``scale`` (shape ``(d,)``) divides ``Z`` first, column by column (the same values
    as ``cell_index(Z / scale, shape)`` without the scaled copy). One column at a
    time, the index built up Horner-style: no ``(n, d)`` temporaries.
    """
    flat = np.zeros(Z.shape[0], dtype=np.int64)
    for j, side in enumerate(shape):
        column = (Z[:, j] if scale is None else Z[:, j] / scale[j]) + 1.0
        column /= 2.0
        column *= side
        position = np.floor(column, out=column).astype(np.int64)
        np.clip(position, 0, side - 1, out=position)  # the upper face: the last cell
        flat *= side
        flat += position
    return flat


def count_cells(values, shape, scale, cells=None, *, chunk_rows=CHUNK_ROWS):
    """Exact records per cell, for all cells or only the listed ones (others not counted).

    Parameters
    ----------
    values : ndarray of shape (n_samples, d)
        Rows in ``[-scale, scale]`` (clipped, centred on the box's midpoint).
    shape : tuple of int
    scale : ndarray of shape (d,)
        Half the box's width.
    cells : ndarray of int64, sorted, default=None
        Flat (C order) indices of the cells to count; None counts every cell.
    chunk_rows : int
        Rows indexed at once (bounds the temporaries).

    Returns
    -------
    ndarray of int64, shape ``(len(cells),)`` (or ``(prod(shape),)``)

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._grid import count_cells
    >>> X = np.array([[-0.9, -0.9], [0.9, 0.9], [0.8, 0.1]])
    >>> count_cells(X, (2, 2), np.ones(2)).tolist()
    [1, 0, 0, 2]
    >>> count_cells(X, (2, 2), np.ones(2), cells=np.array([1, 3])).tolist()
    [0, 2]
    """
    size = math.prod(shape)
    if cells is not None and cells.size == size:  # sorted and distinct: every cell
        cells = None
    listed = size if cells is None else cells.size
    table = None
    if cells is not None and size <= max(values.shape[0], 2**16):
        table = np.full(size, -1, dtype=np.int64)  # no larger than the rows
        table[cells] = np.arange(cells.size)
    total = np.zeros(listed, dtype=np.int64)
    for start in range(0, values.shape[0], chunk_rows):
        flat = cell_index(values[start : start + chunk_rows], shape, scale)
        if table is not None:
            flat = table[flat]
            flat = flat[flat >= 0]
        elif cells is not None:
            where = np.minimum(np.searchsorted(cells, flat), cells.size - 1)
            flat = where[cells[where] == flat]
        total += np.bincount(flat, minlength=listed)
    return total


def noisy_histogram(counts, *, epsilon, rng):
    """Discrete-Laplace noisy count of every cell of the grid (flat, C order).

    Privacy: ``epsilon``-DP for add/remove one record: the record adds 1 to exactly
    one cell, so the count vector has L1 sensitivity 1; all cells, empty ones included,
    are released by one :func:`~skdp.mechanisms.geometric` call.

    Parameters
    ----------
    counts : ndarray of shape (prod(shape),)
        The exact number of records in every cell (``np.bincount`` of the records'
        :func:`cell_index` with ``minlength=prod(shape)``).
    epsilon : float
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (prod(shape),), int64
    """
    return geometric(counts, sensitivity=1, epsilon=epsilon, random_state=rng)


def cell_centres(shape, cells):
    """Centres, in ``[-1, 1]^d``, of the cells with the given flat indices."""
    position = grid_positions(cells, shape).astype(float)
    return (position + 0.5) / np.asarray(shape) * 2.0 - 1.0


def norm_sub(noisy):
    """Non-negative cell weights with the noisy histogram's total (post-processing).

    Clipping noisy counts at zero turns the noise of the many empty cells into a
    positive mass that can outweigh the data (a fine grid in five dimensions has more
    cells than records). Instead subtract the threshold ``tau`` for which
    ``sum(max(noisy - tau, 0))`` equals the noisy total ``max(sum(noisy), 0)``: the
    Euclidean projection of the noisy counts onto the non-negative vectors with that
    total ("Norm-Sub", Wang et al., USENIX Security 2020). Mostly-empty grids get a
    high threshold, well-filled ones a low one.

    Parameters
    ----------
    noisy : ndarray of shape (n_cells,)

    Returns
    -------
    ndarray of shape (n_cells,), float
        All zeros when the noisy total is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._grid import norm_sub
    >>> norm_sub(np.array([10, -2, 3, 1, -1])).tolist()
    [9.0, 0.0, 2.0, 0.0, 0.0]
    """
    noisy = np.asarray(noisy, dtype=float)
    total = noisy.sum()
    if total <= 0:
        return np.zeros_like(noisy)
    ordered = np.sort(noisy)[::-1]
    # tau_j: the threshold if exactly the j + 1 largest cells stay positive
    taus = (np.cumsum(ordered) - total) / np.arange(1, ordered.size + 1)
    kept = np.flatnonzero(ordered > taus)[-1]
    return np.maximum(noisy - taus[kept], 0.0)
