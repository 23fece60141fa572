"""Weighted k-means on a few released cells (post-processing), in numpy.

DPKMeans clusters the cells of its noisy histograms (:mod:`skdp.cluster._eugkm`,
:mod:`skdp.cluster._tree`): a few hundred to ``2**18`` weighted points, clustered from
one public start and up to 20 k-means++ starts. scikit-learn's ``KMeans`` costs
milliseconds of validation and thread-pool set-up per start whatever the number of
points (most of a fit at 10^4 rows) and its OpenMP threads spin on a loaded machine;
the same algorithm in numpy takes microseconds per iteration on such inputs. It reads
only the released cells, their weights and public starts, so nothing here touches the
records.
"""

import math

import numpy as np

__all__ = ["MAX_ITER", "TOL", "kmeans_plusplus", "lloyd", "nearest", "weighted_kmeans"]

# as scikit-learn's KMeans: at most 300 iterations; converged once the centres move by
# at most TOL times the mean variance of the points (squared, summed over the centres)
MAX_ITER, TOL = 300, 1e-4
# entries of the (points x centres) distance matrix held at once
_BLOCK = 2**18
# up to this many centres, nearest by a running minimum instead of argmin
_FEW_CENTRES = 16
# up to this many columns, per-cluster sums by one bincount per column
_FEW_COLUMNS = 4


def _labels(points, centres):
    """Index of each point's nearest centre: the argmin of ``||c||^2 - 2 x.c``, by blocks.

    With few centres a running minimum over them (numpy's argmin along rows of a few
    entries costs more than the distances); the first of tied centres wins either way.
    """
    k, n = centres.shape[0], points.shape[0]
    centre_norms = np.einsum("ij,ij->i", centres, centres)
    labels = np.empty(n, dtype=np.int64)
    rows = max(1, _BLOCK // max(1, k))
    for start in range(0, n, rows):
        block = points[start : start + rows]
        if k > _FEW_CENTRES:
            scores = block @ (-2.0 * centres.T)
            scores += centre_norms
            labels[start : start + rows] = np.argmin(scores, axis=1)
            continue
        scores = (-2.0 * centres) @ block.T
        scores += centre_norms[:, np.newaxis]
        best, found = scores[0].copy(), np.zeros(block.shape[0], dtype=np.int64)
        for j in range(1, k):
            closer = scores[j] < best
            np.minimum(best, scores[j], out=best)
            found[closer] = j
        labels[start : start + rows] = found
    return labels


def nearest(points, centres):
    """Index of each point's nearest centre and the squared distance to it.

    Squared distances through ``||x||^2 - 2 x.c + ||c||^2`` (one matrix product per
    block of rows) for the choice, and recomputed directly for the chosen centre.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._weighted_kmeans import nearest
    >>> labels, d2 = nearest(np.array([[0.0], [4.0]]), np.array([[1.0], [5.0]]))
    >>> labels.tolist(), d2.tolist()
    ([0, 1], [1.0, 1.0])
    """
    labels = _labels(points, centres)
    return labels, np.einsum("ij,ij->i", points - centres[labels], points - centres[labels])


def _closest_potential(points, squared_norms, weights, candidates, closest):
    """For each candidate centre, the weighted potential if it were added."""
    cand_norms = np.einsum("ij,ij->i", candidates, candidates)
    d2 = squared_norms[:, np.newaxis] - 2.0 * points @ candidates.T + cand_norms
    np.maximum(d2, 0.0, out=d2)
    np.minimum(d2, closest[:, np.newaxis], out=d2)
    return d2, weights @ d2


def _weighted_draw(mass, rng, size):
    """``size`` indices drawn with probability proportional to ``mass`` (non-negative)."""
    cumulative = np.cumsum(mass)
    picks = np.searchsorted(cumulative, rng.random(size) * cumulative[-1], side="right")
    return np.minimum(picks, mass.size - 1)


def kmeans_plusplus(points, weights, n_clusters, rng, squared_norms=None):
    """Greedy weighted k-means++ seeding (Arthur and Vassilvitskii 2007).

    The first centre is a point drawn with probability proportional to its weight;
    each next one is the best, by weighted potential, of ``2 + floor(ln k)`` points
    drawn proportionally to weight times squared distance to the nearest chosen centre.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._weighted_kmeans import kmeans_plusplus
    >>> points = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> centres = kmeans_plusplus(points, np.ones(4), 2, np.random.default_rng(0))
    >>> sorted(np.round(centres.ravel()).tolist())
    [0.0, 5.0]
    """
    if squared_norms is None:
        squared_norms = np.einsum("ij,ij->i", points, points)
    trials = 2 + int(math.log(n_clusters))
    centres = np.empty((n_clusters, points.shape[1]))
    first = _weighted_draw(weights, rng, 1)[0]
    centres[0] = points[first]
    closest = np.maximum(squared_norms - 2.0 * points @ points[first] + squared_norms[first], 0)
    potential = weights @ closest
    for c in range(1, n_clusters):
        if potential > 0:
            picks = _weighted_draw(weights * closest, rng, trials)
        else:  # every point sits on a centre: any point will do
            picks = _weighted_draw(weights, rng, trials)
        d2, potentials = _closest_potential(points, squared_norms, weights, points[picks], closest)
        best = int(np.argmin(potentials))
        centres[c], closest, potential = points[picks[best]], d2[:, best], potentials[best]
    return centres


def _weighted_means(weighted, weights, labels, previous):
    """Weighted mean of each cluster's points (``weighted``: the points times their
    weights); an empty cluster keeps its centre.

    One ``bincount`` per column for a few columns, else one sort of the labels and a
    segmented sum (``reduceat``): ``O(n d)`` either way, whatever the number of clusters.
    """
    k, d = previous.shape
    mass = np.bincount(labels, weights=weights, minlength=k)
    filled = np.flatnonzero(mass > 0)
    if d <= _FEW_COLUMNS:
        sums = np.column_stack(
            [np.bincount(labels, weights=weighted[:, j], minlength=k) for j in range(d)]
        )[filled]
    else:
        order = np.argsort(labels, kind="stable")
        sizes = np.bincount(labels, minlength=k)[filled]
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        sums = np.add.reduceat(weighted[order], starts, axis=0)
    out = previous.copy()
    out[filled] = sums / mass[filled, np.newaxis]
    return out


def lloyd(points, weights, centres, *, tol, max_iter=MAX_ITER):
    """Weighted Lloyd iterations from ``centres`` until the labels or the centres settle.

    Stops when no label changes, when the centres' total squared shift is at most
    ``tol``, or after ``max_iter`` iterations; empty clusters keep their centre.

    Returns
    -------
    centres : ndarray of shape (k, d)
    inertia : float
        ``sum_i w_i min_j ||x_i - c_j||^2`` for the returned centres.
    n_iter : int
    """
    labels = _labels(points, centres)
    weighted = points * weights[:, np.newaxis]
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        moved = _weighted_means(weighted, weights, labels, centres)
        shift = float(np.sum((moved - centres) ** 2))
        centres = moved
        new_labels = _labels(points, centres)
        settled = shift <= tol or np.array_equal(new_labels, labels)
        labels = new_labels
        if settled:
            break
    distances = np.einsum("ij,ij->i", points - centres[labels], points - centres[labels])
    return centres, float(weights @ distances), n_iter


def weighted_kmeans(points, weights, init, seed, restarts):
    """Best, by weighted inertia, of a Lloyd run from ``init`` and ``restarts`` k-means++ runs.

    Parameters
    ----------
    points : ndarray of shape (n_points, d)
        More points than clusters.
    weights : ndarray of shape (n_points,)
        Positive.
    init : ndarray of shape (k, d)
        The public start of the first run.
    seed : int
        Seeds the k-means++ starts (drawn by the caller from the fit's generator).
    restarts : int

    Returns
    -------
    centres : ndarray of shape (k, d)
    n_iter : int
        Iterations of the kept run.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._weighted_kmeans import weighted_kmeans
    >>> points = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> centres, _ = weighted_kmeans(points, np.ones(4), np.array([[1.0], [2.0]]), 0, 2)
    >>> sorted(centres.ravel().round(2).tolist())
    [0.05, 5.05]
    """
    points = np.ascontiguousarray(points, dtype=float)
    weights = np.asarray(weights, dtype=float)
    squared_norms = np.einsum("ij,ij->i", points, points)
    tol = TOL * float(np.mean(np.var(points, axis=0)))
    rng = np.random.default_rng(seed)
    best = None
    for r in range(restarts + 1):
        start = init if r == 0 else kmeans_plusplus(points, weights, len(init), rng, squared_norms)
        run = lloyd(points, weights, np.array(start, dtype=float), tol=tol)
        if best is None or run[1] < best[1]:
            best = run
    return best[0], best[2]
