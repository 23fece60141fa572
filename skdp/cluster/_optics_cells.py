"""DPOPTICS's post-processing: OPTICS over the occupied cells of the noisy histogram.

Reads only the released histogram and public parameters: the cells' Norm-Sub weights,
the OPTICS ordering of the occupied cells (:mod:`skdp.cluster._weighted_optics`) and
the cluster extraction (:mod:`skdp.cluster._optics_grid`).
"""

import math

import numpy as np

from skdp.cluster._grid import cell_centres, norm_sub
from skdp.cluster._optics_grid import density_labels, no_clusters, reachability_labels
from skdp.cluster._weighted_optics import weighted_optics

__all__ = ["cluster_cells"]


def _as_grid(histogram, shape):
    """``histogram`` in the grid's shape; flat (C order) past numpy's dimension limit
    (32 on numpy 1, 64 on numpy 2: one dimension per feature)."""
    flat = np.asarray(histogram).reshape(-1)
    if flat.size != math.prod(shape):
        raise ValueError(
            f"histogram has {flat.size} cells, but the grid {tuple(shape)} has "
            f"{math.prod(shape)}: pass the histogram_ of a model with this grid_shape_."
        )
    try:
        return flat.reshape(shape)
    except ValueError:  # more dimensions than numpy arrays can have
        return flat


def cluster_cells(model, histogram):
    """Set ``model``'s clustering attributes from a noisy ``histogram`` (post-processing).

    See :meth:`skdp.cluster.DPOPTICS.cluster_from_histogram`: a deterministic function
    of ``histogram``, the public parameters and ``bounds_``, ``grid_shape_``.
    """
    lower, upper = model.bounds_
    model.histogram_ = _as_grid(histogram, model.grid_shape_)
    weights = norm_sub(model.histogram_.ravel())
    occupied = np.flatnonzero(weights)
    half = (upper - lower) / 2
    centres = (lower + upper) / 2 + cell_centres(model.grid_shape_, occupied) * half
    model.cell_centers_, model.cell_weights_ = centres, weights[occupied]
    model.cluster_hierarchy_ = no_clusters()
    model.density_floor_, model.block_width_ = None, None
    model._grid_labels = np.full(math.prod(model.grid_shape_), -1, dtype=np.intp)
    empty = np.empty(0, dtype=np.intp)
    model.ordering_, model.reachability_, model.core_distances_, model.predecessor_ = (
        weighted_optics(centres, model.cell_weights_, model.min_samples, model.max_eps)
        if occupied.size
        else (empty, np.empty(0), np.empty(0), empty)
    )
    if occupied.size and model.cluster_method == "eom":
        model._grid_labels[:] = density_labels(model)
    elif occupied.size:
        model._grid_labels[occupied] = reachability_labels(model)
    model.cell_labels_ = model._grid_labels[occupied]
