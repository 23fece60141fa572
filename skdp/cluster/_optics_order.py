"""The OPTICS ordering of points with known core distances, without the quadratic scan.

Pure post-processing (DPOPTICS runs it on the released cells). The textbook loop (and
scikit-learn's ``OPTICS`` with ``max_eps=inf``) takes, at every step, the unprocessed
point of smallest reachability (first index on ties) and lowers the reachability of
every unprocessed point within ``max_eps`` of it: ``O(n^2)`` pairs. Here the same
result comes from local work:

- a processed core point ``p`` *offers* ``max(core_p, d(p, q))`` to each unprocessed
  ``q``; the reachability of ``q`` is its smallest offer, its predecessor the earliest
  processed point that made it (the loop lowers only on a strict improvement);
- ``p`` delivers its offers to its ``NEIGHBOURS`` nearest points when it is processed.
  Its other offers are at least ``max(core_p, r)``, ``r`` the distance it has
  delivered to, and wait in a heap under that bound;
- the next point is the top of a heap of delivered reachabilities, once no waiting
  point's bound is at or below that value; until then the waiting points with the
  smallest bounds deliver farther (twice the radius, or the candidate's value: a
  radius query on a tree of the unprocessed points, rebuilt when half of it is
  processed). Every offer that can reach or tie the chosen value has then been
  delivered, so the choice, its reachability and its predecessor are the loop's.

Distances are computed as the loop computes them (the same numpy expression, row by
row), so the output is identical to the bit. The trees only select candidates, with
a relative margin of ``1e-9`` on the radii (their rounding is ~1e-15).

Cost: inside a dense region a step touches ``NEIGHBOURS`` points; the farther
deliveries happen at the jumps between regions, a tree query per waiting point whose
bound the jump reaches. On DPOPTICS's blobs (``benchmarks.speed``, 10^6 rows, 10^4
occupied cells) the ordering reads 14 rows per cell where the scan read 5000; with
scattered points where every step is a jump it is no better than the scan. Many
duplicate points (not cells, which are distinct) make every step a jump.
"""

import heapq

import numpy as np
from sklearn.neighbors import KDTree, NearestNeighbors

__all__ = ["NEIGHBOURS", "optics_order"]

# offers a processed point delivers at once: its nearest points (a 5 x 5 block on a
# 2-D grid), enough that inside a dense region no farther offer is ever needed
NEIGHBOURS = 24
# relative margin of the tree radii over the rounding of their distances
_MARGIN = 1e-9
# tree neighbours probed for the nearest unprocessed point
_PROBE = 8


def optics_order(points, core, max_eps=np.inf):
    """The OPTICS ordering of ``points`` whose core distances are ``core``.

    Parameters
    ----------
    points : ndarray of shape (n, d)
        Distinct points (duplicates are handled, more slowly).
    core : ndarray of shape (n,)
        Core distance of every point (``inf``: not a core point).
    max_eps : float, default=inf
        Offers only reach points within this distance.

    Returns
    -------
    ordering, reachability, predecessor : ndarray of shape (n,)
        As scikit-learn's ``OPTICS`` attributes ``ordering_``, ``reachability_`` and
        ``predecessor_``, equal to the bit to the textbook scan's.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._optics_order import optics_order
    >>> ordering, reach, pred = optics_order(np.array([[0.0], [1.0], [5.0]]), np.zeros(3))
    >>> ordering.tolist(), reach.tolist(), pred.tolist()
    ([0, 1, 2], [inf, 1.0, 4.0], [-1, 0, 1])
    """
    return _Expansion(points, core, max_eps).run()


class _Expansion:
    """One OPTICS ordering: ``run()`` returns ``ordering, reachability, predecessor``."""

    def __init__(self, points, core, max_eps):
        n = points.shape[0]
        self.points, self.core, self.max_eps = points, core, max_eps
        self.reach = np.full(n, np.inf)
        self.pred = np.full(n, -1, dtype=np.intp)
        self.position = np.full(n + 1, n, dtype=np.intp)  # [pred -1] reads n
        self.done = np.zeros(n, dtype=bool)
        self.heap = []  # (reachability, index): delivered, stale entries skipped
        self.waiting = []  # (bound of undelivered offers, index, radius delivered)
        k = min(n, NEIGHBOURS)
        distances, self.near = NearestNeighbors(n_neighbors=k).fit(points).kneighbors(points)
        # points beyond the k nearest are at least this far
        self.radius = distances[:, -1] * (1 - _MARGIN) if k < n else np.full(n, np.inf)
        # the smallest step of a farther delivery: the least positive neighbour distance
        self.unit = float(np.min(distances[distances > 0], initial=np.inf))
        self.unit = self.unit if np.isfinite(self.unit) else 1.0
        self.tree, self.tree_ids, self.stale = None, None, 0

    def run(self):
        n = self.points.shape[0]
        ordering = np.empty(n, dtype=np.intp)
        first_left = 0
        for step in range(n):
            point = self._next()
            if point < 0:  # nothing reachable: the first unprocessed index
                while self.done[first_left]:
                    first_left += 1
                point = first_left
            ordering[step] = point
            self.done[point] = True
            self.position[point] = step
            self.stale += 1
            if np.isfinite(self.core[point]):
                self._process(point)
        return ordering, self.reach, self.pred

    def _next(self):
        """The unprocessed point of smallest reachability, first index on ties (-1:
        none reachable), after every offer that could reach its value is delivered."""
        heap, waiting = self.heap, self.waiting
        while True:
            while heap and (self.done[heap[0][1]] or heap[0][0] != self.reach[heap[0][1]]):
                heapq.heappop(heap)
            value = heap[0][0] if heap else np.inf
            if not waiting or waiting[0][0] > value:
                return heapq.heappop(heap)[1] if heap else -1
            self._deliver_farther(value)

    def _process(self, point):
        """Offers of a new core point to its nearest points; the rest wait."""
        targets = self.near[point]
        targets = targets[~self.done[targets]]
        if targets.size:
            distances = self._distances(point, targets)
            keep = distances <= self.max_eps
            targets, offers = targets[keep], np.maximum(distances[keep], self.core[point])
            # the newest point: it improves a reachability only by lowering it
            lowered = offers < self.reach[targets]
            self._lower(
                np.full(np.count_nonzero(lowered), point), targets[lowered], offers[lowered]
            )
        radius = self.radius[point]
        if radius <= self.max_eps and np.isfinite(radius):
            heapq.heappush(self.waiting, (max(self.core[point], radius), point, radius))

    def _deliver_farther(self, value):
        """Waiting points whose bound is at most ``value`` deliver farther."""
        popped = []
        while self.waiting and self.waiting[0][0] <= value:
            _, point, radius = heapq.heappop(self.waiting)
            popped.append((point, radius))
        sources = np.array([p for p, _ in popped], dtype=np.intp)
        radii = np.array([r for _, r in popped])
        tree = self._tree()
        if tree is None:  # nothing left to reach
            return
        nearest = self._nearest_left(tree, sources)
        idle = np.maximum(self.core[sources], nearest) > value
        for point, radius, bound in zip(
            sources[idle], radii[idle], nearest[idle], strict=True
        ):  # nothing to deliver yet: wait under the better bound
            if bound <= self.max_eps:
                heapq.heappush(self.waiting, (max(self.core[point], bound, radius), point, radius))
        sources, radii, nearest = sources[~idle], radii[~idle], nearest[~idle]
        if not sources.size:
            return
        wider = np.maximum(np.maximum(2 * radii, nearest), self.unit)
        wider = np.minimum(wider if np.isinf(value) else np.maximum(wider, value), self.max_eps)
        found = tree.query_radius(self.points[sources], r=wider * (1 + _MARGIN))
        counts = np.array([f.size for f in found])
        targets = self.tree_ids[np.concatenate(found)] if counts.sum() else np.empty(0, np.intp)
        repeated = np.repeat(sources, counts)
        left = ~self.done[targets]
        if left.any():
            self._offer(repeated[left], targets[left])
        # every point within ``wider`` has its offer: the rest are farther
        bounds = wider * (1 + _MARGIN / 2)
        for point, radius, bound in zip(sources, wider, bounds, strict=True):
            if radius < self.max_eps:
                heapq.heappush(self.waiting, (max(self.core[point], bound), point, bound))

    def _nearest_left(self, tree, sources):
        """A lower bound of each source's distance to the unprocessed points: the
        nearest unprocessed among its ``_PROBE`` nearest in the tree, or the farthest
        of them when all are processed (the tree holds every unprocessed point)."""
        distances, found = tree.query(self.points[sources], k=min(_PROBE, self.tree_ids.size))
        left = ~self.done[self.tree_ids[found]]
        first = np.where(left.any(axis=1), left.argmax(axis=1), found.shape[1] - 1)
        return distances[np.arange(sources.size), first] * (1 - _MARGIN)

    def _tree(self):
        """A tree of the unprocessed points (and some processed since it was built)."""
        if self.tree is None or 2 * self.stale > self.tree_ids.size:
            self.tree_ids = np.flatnonzero(~self.done)
            self.tree = KDTree(self.points[self.tree_ids]) if self.tree_ids.size else None
            self.stale = 0
        return self.tree

    def _distances(self, sources, targets):
        """The loop's expression, row by row: the same rounding to the bit."""
        return np.sqrt(((self.points[targets] - self.points[sources]) ** 2).sum(axis=1))

    def _offer(self, sources, targets):
        """Lower the reachability of unprocessed ``targets`` by the offers of
        ``sources``: the smallest, then the earliest processed source's."""
        distances = self._distances(sources, targets)
        keep = distances <= self.max_eps
        sources, targets = sources[keep], targets[keep]
        offers = np.maximum(distances[keep], self.core[sources])
        order = np.lexsort((self.position[sources], offers, targets))
        first = np.r_[True, targets[order][1:] != targets[order][:-1]]
        sources, targets, offers = (a[order][first] for a in (sources, targets, offers))
        current = self.reach[targets]
        better = (offers < current) | (
            (offers == current) & (self.position[sources] < self.position[self.pred[targets]])
        )
        self._lower(sources[better], targets[better], offers[better])

    def _lower(self, sources, targets, offers):
        """Set the reachabilities and predecessors; heap entries for the lowered."""
        lowered = offers < self.reach[targets]
        self.reach[targets] = offers
        self.pred[targets] = sources
        for item in zip(offers[lowered].tolist(), targets[lowered].tolist(), strict=True):
            heapq.heappush(self.heap, item)
