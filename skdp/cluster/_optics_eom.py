"""DPOPTICS's default extraction: the most stable clusters of the noisy grid density.

Pure post-processing of the released histogram and public values. The cells above a
density floor form, level by level, the cluster tree of the histogram density
(Hartigan 1975; on a grid, the superlevel sets' connected components, cells touching
by a face, an edge or a corner); the clusters are the tree's nodes of largest excess of
mass, HDBSCAN's ``"eom"`` selection (Campello, Moulavi and Sander, PAKDD 2013), with
each cell of noisy count ``h`` standing for ``h`` records of density level ``h``.

Why not ``xi`` on the cells' reachability: a cell usually holds more than
``min_samples`` records, so its core distance is 0 and the reachability between cells
takes only the grid's few quantised distances (a side, a diagonal); the ``xi``
steepness then reads noise-level cells, and whether two shapes one or two cells apart
come out as one cluster or two flips with the noise. The cluster tree reads the
counts themselves, and the stability integrates over every level, so a bridge of a
few noisy cells between two shapes costs the split almost nothing.
"""

import math

import numpy as np
from sklearn.neighbors import KDTree

__all__ = ["coarsen", "eom_labels", "noise_floor", "noise_variance"]

# stability ties go to the parent (one cluster), as in HDBSCAN's selection
_PARENT = 1.0
# standard deviations by which a cluster's peak must exceed the level it is born at
SIGNIFICANCE = 2.0


# above this many dimensions cells touch by a face only: a cell has 3^d - 1 corner
# neighbours, and on a grid two cells wide every cell touches every other (the default
# DPOPTICS() took 37 s on breast_cancer's 30 features, 0.3 s by faces)
CORNER_ADJACENCY_MAX_DIMENSIONS = 4


def _neighbours(positions):
    """Pairs ``(i, j)``, ``i != j``, of cells touching by a face, an edge or a corner
    (by a face only above :data:`CORNER_ADJACENCY_MAX_DIMENSIONS` dimensions)."""
    if positions.shape[0] < 2:
        return [np.empty(0, dtype=np.intp) for _ in range(positions.shape[0])]
    corners = positions.shape[1] <= CORNER_ADJACENCY_MAX_DIMENSIONS
    tree = KDTree(positions.astype(float), metric="chebyshev" if corners else "manhattan")
    return tree.query_radius(positions.astype(float), r=1.0)


def eom_labels(levels, positions, *, floor, min_cluster_mass, noise_var=0.0, mass=None):
    """Labels of the cells: the most stable clusters of their cluster tree.

    Parameters
    ----------
    levels : ndarray of shape (n_cells,)
        Noisy count (density level, and mass) of every candidate cell.
    positions : ndarray of shape (n_cells, d), int
        The cells' grid coordinates.
    floor : float
        Cells below it are not in the tree (see :func:`density_floor`).
    min_cluster_mass : float
        A component is a cluster once its cells hold at least this noisy mass;
        smaller ones that break off a cluster are records leaving it (HDBSCAN's
        ``min_cluster_size``).
    noise_var : float, default=0.0
        Variance of the privacy noise of one level. A component also becomes a cluster
        only once its peak stands ``SIGNIFICANCE`` standard deviations above the
        current level, counting the records' sampling (Poisson: the variance of a
        count is about the count) and the noise of both: ``peak - level >= 2 *
        sqrt(peak + level + 2 * noise_var)``; shallower bumps are noise of either
        kind (the pruning of spurious branches of an estimated cluster tree,
        Stuetzle and Nugent 2010; Chaudhuri and Dasgupta 2010).
    mass : ndarray of shape (n_cells,) or None, default=None
        Records each cell stands for (None: its level); a smoothed level (a window sum)
        counts each record once through the window's mean.

    Returns
    -------
    ndarray of shape (n_cells,), int
        Cluster of every cell, -1 below the floor or in no selected cluster;
        afterwards every such cell that touches clustered cells joins the cluster of
        its densest clustered neighbour (DBSCAN's border points).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._optics_eom import eom_labels
    >>> levels = np.array([50, 60, 2, 40, 45, 0])
    >>> positions = np.array([[0], [1], [2], [3], [4], [5]])
    >>> eom_labels(levels, positions, floor=5, min_cluster_mass=20).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    levels = np.asarray(levels, dtype=float)
    n = levels.size
    neighbours = _neighbours(np.asarray(positions))
    parent = np.arange(n)
    mass = levels.copy() if mass is None else np.asarray(mass, dtype=float).copy()
    node_of, peak = np.full(n, -1), levels.copy()
    members = [[i] for i in range(n)]
    owner = np.full(n, -1)
    # per node: sum of mass * level at which it leaves the node, sum of mass, birth
    # level (None: the floor), children
    sum_wl, sum_w, birth, children = [], [], [], []

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    added = np.zeros(n, dtype=bool)
    for i in np.argsort(-levels, kind="stable"):
        level = levels[i]
        if level < floor:
            break
        added[i] = True
        roots = {find(j) for j in neighbours[i] if added[j] and j != i}
        big = [r for r in roots if node_of[r] >= 0]
        small = [r for r in roots if node_of[r] < 0] + [i]
        leaving = [m for r in small for m in members[r]]
        left = float(sum(mass[r] for r in small))
        total = left + float(sum(mass[r] for r in big))
        if len(big) >= 2:  # clusters meet at this level: a split, seen from above
            node = len(sum_w)
            sum_wl.append(level * total), sum_w.append(total), birth.append(None)
            children.append([int(node_of[r]) for r in big])
            for r in big:
                birth[node_of[r]] = level
        elif big:  # small fragments and the cell join: their records leave here
            node = int(node_of[big[0]])
            sum_wl[node] += level * left
            sum_w[node] += left
        elif total >= min_cluster_mass and _significant(
            max(peak[r] for r in small), level, noise_var
        ):  # a new cluster, a leaf of the tree
            node = len(sum_w)
            sum_wl.append(level * total), sum_w.append(total), birth.append(None)
            children.append([])
        else:
            node = -1
        if node >= 0:
            owner[leaving] = node
        joined = [*sorted(roots), i]
        root = max(joined, key=lambda r: len(members[r]))
        for r in joined:
            if r != root:
                parent[r] = root
                members[root] += members[r]
                members[r] = []
                mass[root] += mass[r]
                peak[root] = max(peak[root], peak[r])
        node_of[root] = node
    for root in sorted({find(i) for i in np.flatnonzero(added)}):  # what reaches the floor
        if node_of[root] < 0 and mass[root] >= min_cluster_mass:
            if _significant(peak[root], floor, noise_var):
                owner[members[root]] = len(sum_w)
                sum_wl.append(floor * mass[root]), sum_w.append(mass[root])
                birth.append(None), children.append([])
    selected = _select(sum_wl, sum_w, birth, children, floor)
    return _assign(levels, neighbours, owner, selected, children)


def _significant(peak, level, noise_var):
    return peak - level >= SIGNIFICANCE * math.sqrt(max(peak + level, 0) + 2 * noise_var)


def _select(sum_wl, sum_w, birth, children, floor):
    """HDBSCAN's excess-of-mass selection; nodes are numbered children first."""
    n_nodes = len(sum_w)
    best = np.zeros(n_nodes)
    selected = np.zeros(n_nodes, dtype=bool)
    for node in range(n_nodes):
        start = floor if birth[node] is None else birth[node]
        stability = sum_wl[node] - start * sum_w[node]
        below = sum(best[c] for c in children[node])
        if children[node] and below > _PARENT * stability:
            best[node] = below
        else:
            best[node], selected[node] = stability, True
            stack = list(children[node])
            while stack:
                c = stack.pop()
                selected[c] = False
                stack += children[c]
    return selected


def _assign(levels, neighbours, owner, selected, children):
    n_nodes = selected.size
    if n_nodes == 0:
        return np.full(levels.size, -1)
    label_of = np.full(n_nodes, -1)
    for node in range(n_nodes - 1, -1, -1):  # parents before children
        if selected[node]:
            label_of[node] = node
        for c in children[node]:
            if label_of[node] >= 0:
                label_of[c] = label_of[node]
    relabel = np.full(n_nodes + 1, -1)  # the last entry: no cluster
    relabel[np.flatnonzero(selected)] = np.arange(np.count_nonzero(selected))
    cell = relabel[np.where(owner >= 0, label_of[owner], -1)]
    border = cell.copy()
    for i in np.flatnonzero(cell < 0):
        near = [j for j in neighbours[i] if cell[j] >= 0]
        if near:
            border[i] = cell[max(near, key=lambda j: levels[j])]
    return border


def noise_floor(epsilon, n_levels, n_summed=1):
    """The level that pure noise exceeds in about one of ``n_levels`` released levels.

    A level here is the sum of ``n_summed`` cells' discrete-Laplace noises
    (:func:`~skdp.mechanisms.geometric`, ``alpha = exp(-epsilon)``); Chernoff's bound
    ``P(S >= t) <= min_s exp(-s t) E[exp(s Z)]^m`` over ``0 < s < epsilon`` with the
    moment generating function ``(1 - alpha)^2 / ((1 - alpha e^s)(1 - alpha e^-s))``,
    set to ``1 / n_levels`` (a union over the levels). Public values only.

    Examples
    --------
    >>> from skdp.cluster._optics_eom import noise_floor
    >>> round(noise_floor(1.0, 1000), 1), round(noise_floor(1.0, 250, 4), 1)
    (9.4, 11.5)
    """
    alpha = math.exp(-epsilon)
    s = epsilon * np.linspace(0.002, 0.998, 499)
    log_mgf = (
        2 * math.log1p(-alpha) - np.log1p(-np.exp(s - epsilon)) - np.log1p(-np.exp(-s - epsilon))
    )
    return float(np.min((math.log(max(n_levels, 1)) + n_summed * log_mgf) / s))


def noise_variance(epsilon):
    """Variance of one discrete-Laplace noise of scale ``1 / epsilon``."""
    alpha = math.exp(-epsilon)
    return 2 * alpha / (1 - alpha) ** 2


def coarsen(histogram, block):
    """Sums of ``block``-wide cubes of cells (post-processing; the last cube of an axis
    may be narrower)."""
    shape = histogram.shape
    padded = np.zeros(tuple(-(-m // block) * block for m in shape))
    padded[tuple(slice(0, m) for m in shape)] = histogram
    split = [x for m in padded.shape for x in (m // block, block)]
    return padded.reshape(split).sum(axis=tuple(range(1, 2 * len(shape), 2)))
