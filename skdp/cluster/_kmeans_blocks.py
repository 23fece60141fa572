"""DPKMeans's exact statistics, as block functions on small picklable objects.

Each method below maps a block of rows to what ``fit``, ``predict``, ``transform`` or
``score`` needs; :func:`skdp.utils._stats.sum_blocks` runs it on a numpy array at once
or on every block of a dask array, where the block lives.
"""

import numpy as np
from sklearn.metrics import euclidean_distances, pairwise_distances_argmin_min
from sklearn.utils.validation import _check_sample_weight

from skdp.cluster._grid import count_cells
from skdp.cluster._lloyd import (
    clipped_lloyd_step,
    clipping_radii,
    cluster_displacements,
    cluster_sums,
    noisy_lloyd_step,
)
from skdp.cluster._lloyd_stats import nearest_labels
from skdp.utils._stats import is_dask_collection, map_rows, sum_blocks
from skdp.utils.validation import split_budget


def clip_and_centre(X, lower, upper):
    """Rows clipped to the public box, minus its midpoint, and the number of values clipped.

    Parameters
    ----------
    X : ndarray or dask.array.Array of shape (n_samples, n_features)
    lower, upper : ndarray of shape (n_features,)

    Returns
    -------
    centred : ndarray or dask.array.Array of shape (n_samples, n_features)
        For dask, persisted (kept in the workers' memory) for the passes that follow.
    n_clipped : int
        Values that lay outside the box: counted in the same pass over ``X`` as the
        clipping (on dask, one number per block travels to the driver).
    """
    box = _Box(lower, upper)
    if not is_dask_collection(X):
        return box.centred(X), box.n_clipped(X)
    import dask

    centred = map_rows(box.centred, X, dtype=np.float64, columns=X.shape[1])
    clipped = X.map_blocks(
        box.block_clipped, dtype=np.int64, drop_axis=1, chunks=((1,) * X.numblocks[0],)
    )
    centred, clipped = dask.persist(centred, clipped)  # one read of the source for both
    return centred, int(sum_blocks(np.sum, clipped))


class _Box:
    """The public box: what ``fit`` does to each row first (small, for dask's workers)."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def centred(self, block):
        """The rows clipped to the box, minus its midpoint (units of ``X``; one copy)."""
        centred = np.clip(block, self.lower, self.upper)
        centred -= (self.lower + self.upper) / 2
        return centred

    def n_clipped(self, block):
        """The number of values outside the box (below, then above: no value is both)."""
        below = np.count_nonzero(block < self.lower)
        return int(below + np.count_nonzero(block > self.upper))

    def block_clipped(self, block):
        """:meth:`n_clipped` as a one-element array (one per dask block)."""
        return np.array([self.n_clipped(block)], dtype=np.int64)


class Partition:
    """A public partition of the clipped, centred rows: the Lloyd clusters of ``centres``
    (units of ``X``, relative to the midpoint) or the cells of the grid ``grid_shape``.
    Its methods are the exact statistics ``fit`` noises, as block functions."""

    def __init__(self, half, *, centres=None, grid_shape=None, radii=None):
        self.half, self.centres, self.grid_shape, self.radii = half, centres, grid_shape, radii

    def sums(self, block):
        """Exact per-cluster counts and sums (:func:`~skdp.cluster._lloyd_stats.cluster_sums`)."""
        return cluster_sums(block, self.centres)

    def displacements(self, block):
        """Exact per-cluster counts and clipped displacement sums
        (:func:`~skdp.cluster._lloyd_stats.cluster_displacements`, radii ``radii``)."""
        return cluster_displacements(block, self.centres, self.half, self.radii)

    def cell_counts(self, block):
        """Exact records per grid cell (flat, C order)."""
        return count_cells(block, self.grid_shape, self.half)


class Nearest:
    """The released centres, for ``predict``, ``transform`` and ``score`` block by block."""

    def __init__(self, centres):
        self.centres = centres

    def labels(self, block):
        """The index of each row's nearest centre (:func:`nearest_labels`)."""
        return nearest_labels(block, self.centres)

    def distances(self, block):
        """The Euclidean distance from each row to each centre."""
        return euclidean_distances(block, self.centres)

    def inertia(self, block, weight=None):
        """``sum_i w_i min_j ||x_i - c_j||^2`` over the block (``w = 1`` without weights)."""
        squared = pairwise_distances_argmin_min(block, self.centres)[1] ** 2
        return squared.sum() if weight is None else weight @ squared


def inertia(centres, X, sample_weight=None):
    """``sum_i w_i min_j ||x_i - c_j||^2`` of numpy or dask rows, block by block for dask."""
    inertia = Nearest(centres).inertia
    if not is_dask_collection(X):
        return float(inertia(X, _check_sample_weight(sample_weight, X)))
    if sample_weight is None:
        return float(sum_blocks(inertia, X))
    return float(sum_blocks(inertia, X, dask_sample_weight(sample_weight, X)))


def dask_sample_weight(sample_weight, X):
    """``sample_weight`` for a dask ``X``: a lazy 1-D float array (numpy input as is)."""
    if not is_dask_collection(sample_weight):
        return _check_sample_weight(sample_weight, X)
    import dask.dataframe as dd

    if isinstance(sample_weight, dd.Series):
        sample_weight = sample_weight.to_dask_array(lengths=True)
    if sample_weight.ndim != 1 or sample_weight.shape[0] != X.shape[0]:
        raise ValueError(
            f"sample_weight.shape == {sample_weight.shape}, expected ({X.shape[0]},)!"
        )
    return sample_weight.astype(np.float64)


def lloyd_iterations(centred, half, centres, n_iter, *, epsilon, clipped, rng):
    """``n_iter`` DP Lloyd iterations from ``centres`` sharing ``epsilon`` equally.

    Each is one pass over the rows (exact per-cluster statistics of the public
    partition, block by block) and one noisy release on the driver:
    :func:`~skdp.cluster._lloyd.clipped_lloyd_step` (displacements clipped to the
    nearest-centre distance) when ``clipped``, else
    :func:`~skdp.cluster._lloyd.noisy_lloyd_step`.

    Returns
    -------
    centres : ndarray of shape (k, d)
        Scaled to ``[-1, 1]^d``.
    noisy_counts : ndarray of shape (k,), int64
        The last iteration's noisy counts.
    """
    for epsilon_t in split_budget(epsilon, [1.0] * n_iter):
        if clipped:
            radii = clipping_radii(centres)
            part = Partition(half, centres=centres * half, radii=radii)
            counts, sums = sum_blocks(part.displacements, centred)
            centres, noisy_counts = clipped_lloyd_step(
                counts, sums, centres, radii, epsilon=epsilon_t, rng=rng
            )
        else:
            part = Partition(half, centres=centres * half)
            counts, sums = sum_blocks(part.sums, centred)
            centres, noisy_counts = noisy_lloyd_step(
                counts, sums / half, centres, epsilon=epsilon_t, rng=rng
            )
    return centres, noisy_counts
