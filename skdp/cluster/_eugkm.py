"""EUGkM (Su et al.): k-means centres from one noisy histogram on a public grid.

The histogram (:func:`skdp.cluster._grid.noisy_histogram`, sensitivity 1 under
add/remove) is the only release; the weighted k-means on its cells is post-processing.
"""

import numpy as np

from skdp.cluster._grid import cell_centres, noisy_histogram, norm_sub
from skdp.cluster._kmeans_blocks import Partition
from skdp.cluster._weighted_kmeans import nearest, weighted_kmeans
from skdp.utils._stats import sum_blocks

__all__ = ["GRID_RESTARTS", "grid_centres", "weighted_centres"]

# k-means++ restarts of the weighted k-means on the noisy grid (post-processing)
GRID_RESTARTS = 5


def grid_centres(centred, half, shape, init, *, epsilon, rng):
    """Release the grid histogram of the centred rows and cluster its cells.

    Parameters
    ----------
    centred : ndarray or dask array of shape (n_samples, d)
        Rows clipped to the public box, minus its midpoint.
    half : ndarray of shape (d,)
        Half the box's width per dimension.
    shape : tuple of int
        The public grid.
    init : ndarray of shape (k, d)
        Public initial centres in the scaled box ``[-1, 1]^d``.
    epsilon : float
        The histogram's budget.
    rng : numpy.random.Generator

    Returns
    -------
    centres : ndarray of shape (k, d)
        Scaled to ``[-1, 1]^d``: the better (lower weighted inertia on the noisy
        histogram) of a weighted k-means from ``init`` and ``GRID_RESTARTS`` k-means++
        restarts, on the cells' Norm-Sub weights; with no more weighted cells than
        clusters, the cells themselves and the rest of ``init``.
    sizes : ndarray of shape (k,), int64
        The cells' weights summed per cluster, rounded.
    n_iter : int
        Iterations of the weighted k-means (1 when the cells are the centres).
    """
    k = init.shape[0]
    counts = sum_blocks(Partition(half, grid_shape=shape).cell_counts, centred)
    noisy = noisy_histogram(counts, epsilon=epsilon, rng=rng)
    # everything below is post-processing of the noisy histogram
    weights = norm_sub(noisy)
    cells = np.flatnonzero(weights)
    points, weights = cell_centres(shape, cells) * half, weights[cells]
    centres, n_iter = weighted_centres(points, weights, init * half, rng)
    labels = nearest(points, centres)[0] if cells.size else cells
    sizes = np.rint(np.bincount(labels, weights=weights, minlength=k)).astype(np.int64)
    return np.clip(centres / half, -1.0, 1.0), sizes, n_iter


def weighted_centres(points, weights, init, rng, restarts=GRID_RESTARTS):
    """Weighted k-means on released cells (post-processing of their noisy counts).

    Parameters
    ----------
    points : ndarray of shape (n_cells, d)
        Public cell centres with positive weight.
    weights : ndarray of shape (n_cells,)
    init : ndarray of shape (k, d)
        Public initial centres, in the units of ``points``.
    rng : numpy.random.Generator
        Seeds the k-means++ restarts.
    restarts : int, default=GRID_RESTARTS

    Returns
    -------
    centres : ndarray of shape (k, d)
        The best (lowest weighted inertia) of a run from ``init`` and ``restarts``
        k-means++ runs (:func:`skdp.cluster._weighted_kmeans.weighted_kmeans`); with no
        more cells than clusters, the cells themselves and the rest of ``init``.
    n_iter : int
        Iterations of the kept run (1 when the cells are the centres).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._eugkm import weighted_centres
    >>> points = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> centres, _ = weighted_centres(points, np.ones(4), np.array([[1.0], [2.0]]),
    ...                               np.random.default_rng(0))
    >>> sorted(centres.ravel().round(2).tolist())
    [0.05, 5.05]
    """
    k = init.shape[0]
    if len(points) <= k:
        return np.vstack([points, init[len(points) :]]), 1
    seed = int(rng.integers(2**31 - 1))  # one draw of the fit's stream, as before
    return weighted_kmeans(points, weights, init, seed, restarts)
