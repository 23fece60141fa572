"""DPKMeans's clustering stage: the grid, the tree and the Lloyd steps of each ``method``.

``fit`` (:mod:`skdp.cluster._kmeans`) validates, releases what the user did not declare
(:mod:`skdp.cluster._preamble`) and clips the rows; :func:`cluster_stage` then spends
the rest of the budget on the chosen method's releases.
"""

from dataclasses import dataclass

import numpy as np

from skdp.cluster._eugkm import grid_centres
from skdp.cluster._grid import uniform_grid_shape
from skdp.cluster._kmeans_blocks import lloyd_iterations
from skdp.cluster._lloyd import su_iterations
from skdp.cluster._tree import GRID_FLOOR_CELLS, tree_centres

__all__ = ["HYBRID_GRID_SHARE", "HYBRID_ITERATIONS", "Clustering", "cluster_stage", "method_parts"]

# method="hybrid": share of the clustering budget for the tree, the rest for Lloyd
HYBRID_GRID_SHARE = 0.65
# method="hybrid", max_iter=None: Lloyd iterations after the grid
HYBRID_ITERATIONS = 1


@dataclass
class Clustering:
    """What the clustering stage released: scaled centres and the fitted attributes."""

    centres: np.ndarray
    counts: np.ndarray
    grid_shape: tuple | None
    n_iter: int


def method_parts(method):
    """Relative shares of the grid and the Lloyd steps in what the preamble left.

    Examples
    --------
    >>> from skdp.cluster._kmeans_methods import method_parts
    >>> method_parts("hybrid")
    {'grid': 0.65, 'lloyd': 0.35}
    """
    grid = {"lloyd": 0.0, "grid": 1.0, "hybrid": HYBRID_GRID_SHARE}[method]
    return {"grid": grid, "lloyd": 1.0 - grid}


def n_lloyd_iterations(method, max_iter, n_low, epsilon, n_clusters, d):
    """Lloyd iterations: ``max_iter``, else the hybrid's one or Su et al.'s rule."""
    if max_iter is not None or method == "hybrid":
        return max_iter or HYBRID_ITERATIONS
    return su_iterations(epsilon, n_low, n_clusters, d)


def cluster_stage(estimator, centred, half, centres, split, n_low, rng):
    """Run ``estimator.method`` on the clipped, centred rows from public ``centres``.

    Parameters
    ----------
    estimator : DPKMeans
        Reads ``method``, ``max_iter`` and ``n_clusters``.
    centred : ndarray or dask array of shape (n_samples, d)
        Rows clipped to the public box, minus its midpoint.
    half : ndarray of shape (d,)
    centres : ndarray of shape (k, d)
        Public initial centres in the scaled box.
    split : dict
        The budget of each part (``"grid"``, ``"lloyd"``).
    n_low : float or None
        The noisy count's lower bound (capacity rules).
    rng : numpy.random.Generator

    Returns
    -------
    Clustering
    """
    d, method = centred.shape[1], estimator.method
    grid_shape, n_iter, counts = None, 1, None
    if method == "grid":
        grid_shape = uniform_grid_shape(
            n_low, split["grid"], d, min_cells=min(2**d, GRID_FLOOR_CELLS)
        )
        centres, counts, n_iter = grid_centres(
            centred, half, grid_shape, centres, epsilon=split["grid"], rng=rng
        )
    elif method == "hybrid":  # starting centres among the records
        centres, grid_shape = tree_centres(
            centred, half, n_low, centres, epsilon=split["grid"], rng=rng
        )
    if split["lloyd"]:
        n_iter = n_lloyd_iterations(
            method, estimator.max_iter, n_low, split["lloyd"], estimator.n_clusters, d
        )
        centres, counts = lloyd_iterations(
            centred, half, centres, n_iter, epsilon=split["lloyd"],
            clipped=method == "hybrid", rng=rng,
        )  # fmt: skip
    return Clustering(centres, counts, grid_shape, n_iter)
