"""DPOPTICS's public grid: its shape, rows to cells, and cells to clusters.

Everything here reads only public inputs (the bounds, the grid, the released
clustering of the cells) or maps rows one by one, so it runs block by block on dask.
"""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.cluster import cluster_optics_dbscan, cluster_optics_xi

from skdp.cluster._grid import cell_index
from skdp.cluster._grid import uniform_grid_shape as grid_rule
from skdp.cluster._optics_scales import grid_eom_labels
from skdp.utils._resources import check_allocation

__all__ = [
    "EOM_MIN_CELLS",
    "EOM_RECORDS_EPSILON",
    "MAX_OPTICS_CELLS",
    "MIN_CELLS_PER_SIDE",
    "MIN_OPTICS_CELLS",
    "GridMap",
    "count_budgets",
    "density_labels",
    "distance_grid",
    "given_grid",
    "grid_radius",
    "needs_n_samples",
    "no_clusters",
    "public_grid",
    "reachability_labels",
    "xi_clusters",
    "xi_labels",
]


# the grid rule's cap on cells (the cluster extractions' memory and time grow with it)
MAX_OPTICS_CELLS = 2**14
# the grid rule's public floor, max(MIN_OPTICS_CELLS, MIN_CELLS_PER_SIDE**d) cells: room
# for a few clusters of 2**d cells where the noisy count alone would give one cell
MIN_OPTICS_CELLS, MIN_CELLS_PER_SIDE = 64, 4
# "eom" smooths the counts itself (overlapping windows): its grid has at least
# min(EOM_MIN_CELLS, N epsilon_h / EOM_RECORDS_EPSILON) cells, finer than the rule's
EOM_MIN_CELLS, EOM_RECORDS_EPSILON = 1024, 0.5


def grid_radius(model):
    """The distance the grid must resolve: ``eps`` (dbscan) or a finite ``max_eps``."""
    if model.cluster_method == "dbscan" and model.eps is not None:
        return model.eps
    return model.max_eps if np.isfinite(model.max_eps) else None


def needs_n_samples(model):
    """Whether the grid rule reads the noisy record count (no grid and no radius given)."""
    return model.grid_size is None and grid_radius(model) is None


def public_grid(model, n_features, n_estimate, epsilon):
    """DPOPTICS's grid: ``grid_size``, cells resolving a radius, or the count rule.

    Reads only public parameters of ``model`` (and ``bounds_``), the noisy count's
    lower bound ``n_estimate`` and the histogram's ``epsilon``.
    """
    radius = grid_radius(model)
    if model.grid_size is None and radius is not None:
        return distance_grid(*model.bounds_, radius, MAX_OPTICS_CELLS)
    if model.grid_size is None:
        floor = max(MIN_OPTICS_CELLS, MIN_CELLS_PER_SIDE**n_features)
        if model.cluster_method == "eom":
            floor = max(floor, min(EOM_MIN_CELLS, n_estimate * epsilon / EOM_RECORDS_EPSILON))
        return grid_rule(
            n_estimate,
            epsilon,
            n_features,
            max_cells=MAX_OPTICS_CELLS,
            min_cells=min(floor, MAX_OPTICS_CELLS),
        )
    return given_grid(model.grid_size, n_features)


def distance_grid(lower, upper, radius, max_cells):
    """Cells per dimension whose diagonal is at most ``radius``, coarser if over ``max_cells``.

    A function of the public bounds and ``radius`` only.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._optics_grid import distance_grid
    >>> distance_grid(np.array([-1.0, -1.0]), np.array([1.0, 1.0]), 0.1, 2**14)
    (29, 29)
    """
    n_features = len(lower)
    sides = np.ceil((upper - lower) * math.sqrt(n_features) / radius)
    while np.prod(sides) > max_cells:
        shrink = (max_cells / np.prod(sides)) ** (1 / n_features)
        sides = np.maximum(1.0, np.floor(sides * min(shrink, 0.999)))
    return tuple(int(m) for m in sides)


def given_grid(grid_size, n_features):
    """The user's ``grid_size`` as one int per dimension, checked.

    Examples
    --------
    >>> from skdp.cluster._optics_grid import given_grid
    >>> given_grid(6, 2), given_grid((5, 8), 2)
    ((6, 6), (5, 8))
    """
    sizes = np.atleast_1d(np.asarray(grid_size))
    if sizes.ndim == 1 and sizes.size == 1:
        sizes = np.repeat(sizes, n_features) if np.isscalar(grid_size) else sizes
    if sizes.shape != (n_features,) or sizes.dtype.kind not in "iu" or np.any(sizes < 1):
        raise ValueError(
            f"grid_size must be a positive int or {n_features} positive ints, got {grid_size!r}"
        )
    cells = math.prod(int(s) for s in sizes)  # a Python int: no overflow
    check_allocation(
        8 * cells,
        parameter=f"grid_size={grid_size!r}",
        what=f"a histogram of {cells:.3g} cells (8 bytes each)",
        advice="pass a smaller grid_size, or grid_size=None (a rule of at most 16384 cells).",
    )
    return tuple(int(s) for s in sizes)


class GridMap:
    """The public grid on the box, and the cluster of every cell once there is one."""

    def __init__(self, lower, upper, shape, grid_labels=None):
        self.lower, self.upper, self.shape = lower, upper, shape
        self.grid_labels = grid_labels

    def cells(self, block):
        """The grid cell of every row (rows outside the box: the nearest face's cell)."""
        half = (self.upper - self.lower) / 2
        return cell_index(np.clip((block - self.lower - half) / half, -1.0, 1.0), self.shape)

    def counts(self, block):
        """Exact records per cell, and the number of values outside the box."""
        n_clipped = int(np.count_nonzero((block < self.lower) | (block > self.upper)))
        return np.bincount(self.cells(block), minlength=math.prod(self.shape)), n_clipped

    def labels(self, block):
        """The cluster of every row's cell (-1: noise)."""
        return self.grid_labels[self.cells(block)]

    def group_counts(self, block):
        """Exact records per cluster, the noise group last."""
        n_clusters = int(self.grid_labels.max(initial=-1)) + 1
        labels = self.labels(block)
        return np.bincount(np.where(labels < 0, n_clusters, labels), minlength=n_clusters + 1)


def count_budgets(cell_labels, cell_weights, epsilon, sparse_ratio):
    """The epsilon of each cluster's noisy record count, then of the noise group's.

    Clusters whose released mass (the Norm-Sub weights of their cells, post-processing)
    is below the median get ``epsilon * sparse_ratio``; the others and the noise group
    ``epsilon``. Parallel composition: each record lies in one group.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._optics_grid import count_budgets
    >>> count_budgets(np.array([0, 1, -1]), np.array([5.0, 1.0, 2.0]), 1.0, 0.5).tolist()
    [1.0, 0.5, 1.0]
    """
    n_clusters = int(cell_labels.max(initial=-1)) + 1
    mass = np.bincount(
        np.where(cell_labels < 0, n_clusters, cell_labels),
        weights=cell_weights,
        minlength=n_clusters + 1,
    )[:n_clusters]
    sparse = mass < np.median(mass) if n_clusters else mass.astype(bool)
    return np.append(np.where(sparse, epsilon * sparse_ratio, epsilon), epsilon)


def xi_clusters(
    reachability, predecessor, ordering, weights, *, min_samples, min_cluster_size, xi, min_cells
):
    """scikit-learn's xi clusters of the weighted cells, filtered by noisy weight.

    Clusters span at least ``min_cells`` cells (in the xi extraction) and hold at least
    ``min_cluster_size`` of weight (a float in (0, 1]: that fraction of the total).
    Post-processing of the ordering of the released histogram.

    Returns
    -------
    ndarray of shape (n_clusters, 2)
        Start and end positions in ``ordering``, inner clusters first.
    """
    n_cells = ordering.size
    if n_cells < 2:  # a xi cluster has at least two cells
        return no_clusters()
    _, hierarchy = cluster_optics_xi(
        reachability=reachability,
        predecessor=predecessor,
        ordering=ordering,
        min_samples=min(max(min_samples, 2), n_cells),
        min_cluster_size=min(min_cells, n_cells),
        xi=xi,
    )
    # scikit-learn's size filter counts cells; filter on the clusters' noisy weight
    mass = np.concatenate([[0.0], np.cumsum(weights[ordering])])
    if isinstance(min_cluster_size, Real) and not isinstance(min_cluster_size, Integral):
        min_cluster_size = min_cluster_size * mass[-1]
    hierarchy = np.asarray(hierarchy, dtype=np.intp).reshape(-1, 2)  # none: shape (0,)
    kept = hierarchy[mass[hierarchy[:, 1] + 1] - mass[hierarchy[:, 0]] >= min_cluster_size]
    return kept if kept.size else no_clusters()


def no_clusters():
    """An empty ``(0, 2)`` hierarchy with the strides it has after pickling.

    (``np.empty((0, 2))`` has zero strides, and a fitted state should hash alike before
    and after a pickle round trip.)
    """
    return np.zeros(0, dtype=np.intp).reshape(0, 2)


def xi_labels(ordering, clusters):
    """Labels from xi clusters listed inner first, as scikit-learn's OPTICS assigns them:
    a cluster takes its cells unless a cluster inside it already has."""
    labels = np.full(ordering.size, -1, dtype=np.intp)
    for start, end in clusters:
        if np.all(labels[start : end + 1] == -1):
            labels[start : end + 1] = labels.max() + 1
    out = np.empty_like(labels)
    out[ordering] = labels
    return out


def density_labels(model):
    """``"eom"``: the cluster of every grid cell, the most stable clusters of the noisy
    grid density (:func:`skdp.cluster._optics_scales.grid_eom_labels`); sets the model's
    ``density_floor_`` and ``block_width_``."""
    lower, upper = model.bounds_
    labels, model.density_floor_, model.block_width_ = grid_eom_labels(
        model.histogram_,
        model.epsilon_split_["histogram"],
        grid_shape=model.grid_shape_,
        cell_sides=(upper - lower) / np.asarray(model.grid_shape_),
        min_samples=model.min_samples,
        max_eps=model.max_eps,
        min_cluster_size=model.min_cluster_size,
    )
    return labels


def reachability_labels(model):
    """``"xi"`` or ``"dbscan"``: the cluster of every occupied cell, from the model's
    reachability plot; ``"xi"`` sets its ``cluster_hierarchy_``."""
    if model.cluster_method == "dbscan":
        eps = model.max_eps if model.eps is None else model.eps
        lower, upper = model.bounds_
        # touching cells (diagonals too) must connect: the cut is at least a diagonal
        sides = (upper - lower) / np.asarray(model.grid_shape_)
        eps = max(eps, float(np.sqrt(np.sum(sides**2))) * (1 + 1e-9))
        return cluster_optics_dbscan(
            reachability=model.reachability_,
            core_distances=model.core_distances_,
            ordering=model.ordering_,
            eps=eps,
        )
    size = model.min_samples if model.min_cluster_size is None else model.min_cluster_size
    model.cluster_hierarchy_ = xi_clusters(
        model.reachability_,
        model.predecessor_,
        model.ordering_,
        model.cell_weights_,
        min_samples=model.min_samples,
        min_cluster_size=size,
        xi=model.xi,
        min_cells=2 ** len(model.grid_shape_),
    )
    return xi_labels(model.ordering_, model.cluster_hierarchy_)
