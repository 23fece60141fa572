"""The exact per-cluster statistics a DP Lloyd iteration noises, in one pass over the rows.

Each row joins its nearest public centre; the counts and the sums (of the rows, or of
their clipped displacements from the centre) are added up block by block. The
nearest centre minimises ``||c||^2 / 2 - x.c``: one matrix product per block, then a
running minimum over the centres (numpy's argmin along rows of a few entries costs more
than the product) or an argmin when there are many. Per-cluster sums are one
``bincount`` per column: ``O(n d)`` whatever the number of clusters, and no
``(n, k)`` one-hot matrix.
"""

import math

import numpy as np

__all__ = [
    "clipping_radii",
    "cluster_displacements",
    "cluster_sums",
    "nearest_centres",
    "nearest_labels",
]

# rows per block (fewer with many centres: a block's scores are rows x centres)
CHUNK_ROWS = 2**15
BLOCK_SCORES = 2**21
# up to this many centres, the nearest by a running minimum instead of argmin
FEW_CENTRES = 16


def nearest_centres(block, centres, half_norms):
    """Index of each row's nearest centre: the smallest ``half_norms - x.c`` (first on ties).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._lloyd_stats import nearest_centres
    >>> centres = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> nearest_centres(np.array([[0.1, 0.2], [0.9, 0.7]]), centres, [0.0, 1.0]).tolist()
    [0, 1]
    """
    k = centres.shape[0]
    if k > FEW_CENTRES:
        return np.argmin(half_norms - block @ centres.T, axis=1)
    scores = centres @ block.T  # (k, rows): each centre's row is contiguous
    np.subtract(np.asarray(half_norms)[:, np.newaxis], scores, out=scores)
    best, labels = scores[0].copy(), np.zeros(block.shape[0], dtype=np.int64)
    for j in range(1, k):
        closer = scores[j] < best
        np.minimum(best, scores[j], out=best)
        labels[closer] = j
    return labels


def nearest_labels(values, centres, *, chunk_rows=CHUNK_ROWS):
    """Index of each row's nearest centre (Euclidean; first on ties), block by block.

    :func:`nearest_centres` on the rows and centres shifted by the centres' mean (the
    scores ``||c||^2 / 2 - x.c`` then do not cancel far from the origin): one small
    matrix product per block, single-threaded. ``DPKMeans`` computes ``labels_`` and
    ``predict`` with it: scikit-learn's threaded ``pairwise_distances_argmin_min`` took
    66 ms of CPU for 10^5 rows and 3 centres, this 2.8 ms (2-core machine, load 9).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._lloyd_stats import nearest_labels
    >>> centres = np.array([[1000.0, 0.0], [1001.0, 1.0]])
    >>> nearest_labels(np.array([[1000.1, 0.2], [1000.9, 0.7]]), centres).tolist()
    [0, 1]
    """
    origin = centres.mean(axis=0)
    shifted = centres - origin
    half_norms = 0.5 * np.einsum("ij,ij->i", shifted, shifted)
    labels = np.empty(values.shape[0], dtype=np.int64)
    for rows in _blocks(values.shape[0], centres.shape[0], chunk_rows):
        labels[rows] = nearest_centres(values[rows] - origin, shifted, half_norms)
    return labels


def _blocks(n_rows, n_centres, chunk_rows):
    """Row slices of at most ``chunk_rows`` rows and ``BLOCK_SCORES`` scores."""
    rows = max(1, min(chunk_rows, BLOCK_SCORES // max(1, n_centres)))
    return (slice(start, start + rows) for start in range(0, n_rows, rows))


def _column_sums(values, labels, k):
    """``(k, d)`` sums of the rows of ``values`` per label."""
    return np.stack(
        [np.bincount(labels, weights=values[:, j], minlength=k) for j in range(values.shape[1])],
        axis=1,
    ).reshape(k, values.shape[1])


def cluster_sums(values, centres, *, chunk_rows=CHUNK_ROWS):
    """Assign each row to its nearest centre; per-cluster row counts and column sums.

    One pass over ``values`` in blocks: the nearest centre minimises
    ``||c||^2 / 2 - x.c``, then the block's counts and sums are added up. A row's
    cluster depends only on that row and the (public) centres.

    Parameters
    ----------
    values : ndarray of shape (n_samples, d)
    centres : ndarray of shape (k, d)
        In the units of ``values``.
    chunk_rows : int, default=2**15

    Returns
    -------
    counts : ndarray of shape (k,), int64
    sums : ndarray of shape (k, d)
    """
    k = centres.shape[0]
    counts, sums = np.zeros(k, dtype=np.int64), np.zeros((k, values.shape[1]))
    for block, labels in _assigned_blocks(values, centres, chunk_rows):
        counts += np.bincount(labels, minlength=k)
        sums += _column_sums(block, labels, k)
    return counts, sums


def _assigned_blocks(values, centres, chunk_rows):
    """``(block, labels)`` per block of rows: each row's nearest centre."""
    half_norms = 0.5 * np.einsum("ij,ij->i", centres, centres)
    for rows in _blocks(values.shape[0], centres.shape[0], chunk_rows):
        block = values[rows]
        yield block, nearest_centres(block, centres, half_norms)


def clipping_radii(centres):
    """Per-cluster clipping radius of a displacement step: the nearest other centre's distance.

    Read only from the public (scaled) centres: ``R_j = min_{i != j} ||c_i - c_j||``,
    kept within ``[2 sqrt(d) / 64, 2 sqrt(d)]`` (``2 sqrt(d)`` is the diameter of the box
    ``[-1, 1]^d``, so a lone centre clips nothing; the floor keeps coinciding centres
    movable).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._lloyd import clipping_radii
    >>> clipping_radii(np.array([[0.0, 0.0], [0.3, 0.4], [1.0, 1.0]])).round(3).tolist()
    [0.5, 0.5, 0.922]
    """
    d = centres.shape[1]
    gaps = np.sqrt(((centres[:, np.newaxis] - centres[np.newaxis]) ** 2).sum(axis=-1))
    np.fill_diagonal(gaps, np.inf)
    diameter = 2 * math.sqrt(d)
    return np.clip(gaps.min(axis=1), diameter / 64, diameter)


def cluster_displacements(values, centres, scale, radii, *, chunk_rows=CHUNK_ROWS):
    """Per-cluster counts and sums of the rows' clipped displacements from their centre.

    Each row joins its nearest centre ``c_j`` (Euclidean, units of ``values``); its
    displacement ``(x - c_j) / scale / radii[j]`` (scaled domain, in units of the
    cluster's radius) is shrunk to L2 norm at most 1, then summed per cluster.

    Parameters
    ----------
    values : ndarray of shape (n_samples, d)
    centres : ndarray of shape (k, d)
        In the units of ``values``.
    scale : ndarray of shape (d,)
        Half the box's width: units of ``values`` per unit of the scaled domain.
    radii : ndarray of shape (k,)
        Public clipping radii in the scaled domain (:func:`clipping_radii`).
    chunk_rows : int, default=2**15

    Returns
    -------
    counts : ndarray of shape (k,), int64
    sums : ndarray of shape (k, d)
        Each row adds a vector of L2 norm at most 1 to one cluster.
    """
    k = centres.shape[0]
    counts, sums = np.zeros(k, dtype=np.int64), np.zeros((k, values.shape[1]))
    for block, labels in _assigned_blocks(values, centres, chunk_rows):
        moves = block - centres[labels]
        moves /= scale
        moves /= radii[labels, np.newaxis]
        moves /= np.maximum(np.sqrt(np.einsum("ij,ij->i", moves, moves)), 1.0)[:, np.newaxis]
        counts += np.bincount(labels, minlength=k)
        sums += _column_sums(moves, labels, k)
    return counts, sums
