"""OPTICS on weighted points: the cells of a noisy histogram, weighted by their counts.

Pure post-processing (no noise, no data): a cell of weight ``w`` stands for ``w``
records at its centre. The core distance of a cell is the smallest radius whose ball
(the cell itself included) holds ``min_samples`` of weight; reachability and the
ordering follow Ankerst et al. (1999) exactly as scikit-learn's ``OPTICS`` computes them
(next point: the unprocessed one of smallest reachability, first index on ties), so the
cluster extraction is scikit-learn's own (:func:`sklearn.cluster.cluster_optics_xi`,
:func:`sklearn.cluster.cluster_optics_dbscan`).
"""

import numpy as np
from sklearn.neighbors import NearestNeighbors

from skdp.cluster._optics_order import optics_order

__all__ = ["weighted_core_distances", "weighted_optics"]


def weighted_core_distances(points, weights, min_samples, max_eps=np.inf):
    """Smallest radius around each point holding ``min_samples`` of weight.

    Parameters
    ----------
    points : ndarray of shape (n, d)
    weights : ndarray of shape (n,), positive
    min_samples : float
    max_eps : float, default=inf
        Radii above it count as ``inf`` (not a core point), as in scikit-learn.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._weighted_optics import weighted_core_distances
    >>> weighted_core_distances(np.array([[0.0], [1.0], [3.0]]), np.array([5, 1, 1]), 6)
    array([1., 1., 3.])
    """
    n = points.shape[0]
    core = np.full(n, np.inf)
    pending = np.arange(n)
    k = min(n, 16)
    search = NearestNeighbors().fit(points)
    while pending.size:
        distances, neighbours = search.kneighbors(points[pending], n_neighbors=k)
        reached = np.cumsum(weights[neighbours], axis=1) >= min_samples
        found = reached[:, -1]
        first = reached[found].argmax(axis=1)
        core[pending[found]] = distances[found, first]
        if k == n:
            break
        pending, k = pending[~found], min(n, 4 * k)
    core[core > max_eps] = np.inf
    return core


def weighted_optics(points, weights, min_samples, max_eps=np.inf):
    """The OPTICS ordering of weighted points.

    The same ordering, reachability and predecessors, to the bit, as the textbook
    loop that scans every unprocessed point at every step (``O(n^2 d)``), from local
    neighbour lists and heaps (:func:`skdp.cluster._optics_order.optics_order`): a
    processed core point offers its reachability to its nearest points at once and
    to the farther ones only when the next point of the ordering could be among
    them, so a fit touches each point's neighbourhood, not every pair. ``O(n d)``
    memory for ``n`` points (the occupied cells, not the records).

    Returns
    -------
    ordering, reachability, core_distances, predecessor : ndarray of shape (n,)
        As scikit-learn's ``OPTICS`` attributes ``ordering_``, ``reachability_``,
        ``core_distances_`` and ``predecessor_``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._weighted_optics import weighted_optics
    >>> ordering, reach, core, pred = weighted_optics(
    ...     np.array([[0.0], [1.0], [5.0]]), np.array([3, 3, 6]), min_samples=6)
    >>> ordering.tolist(), reach.tolist()
    ([0, 1, 2], [inf, 1.0, 4.0])
    """
    core = weighted_core_distances(points, weights, min_samples, max_eps)
    ordering, reachability, predecessor = optics_order(points, core, max_eps)
    return ordering, reachability, core, predecessor
