"""EUGkM (Su et al.): k-means centres from one noisy histogram on a public grid.

The histogram (:func:`skdp.cluster._grid.noisy_histogram`, sensitivity 1 under
add/remove) is the only release; the weighted k-means on its cells is post-processing.
"""

import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances_argmin_min

from skdp.cluster._grid import cell_centres, noisy_histogram, norm_sub
from skdp.cluster._kmeans_blocks import Partition
from skdp.utils._stats import sum_blocks

__all__ = ["GRID_RESTARTS", "grid_centres"]

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
    n_iter = 1
    if cells.size <= k:
        centres = np.vstack([points, init[cells.size :] * half])
    else:
        seed = int(rng.integers(2**31 - 1))
        fits = [
            KMeans(k, init=init * half, n_init=1),
            KMeans(k, n_init=GRID_RESTARTS, random_state=seed),
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # duplicate cells
            fits = [f.fit(points, sample_weight=weights) for f in fits]
        best = min(fits, key=lambda f: f.inertia_)
        centres, n_iter = best.cluster_centers_, best.n_iter_
    labels = pairwise_distances_argmin_min(points, centres)[0] if cells.size else cells
    sizes = np.rint(np.bincount(labels, weights=weights, minlength=k)).astype(np.int64)
    return np.clip(centres / half, -1.0, 1.0), sizes, n_iter
