"""DPOPTICS's ``"eom"`` extraction across smoothing scales of the noisy histogram.

Post-processing of the released histogram and public values. The noisy counts are
summed over overlapping cubes of ``(2r + 1)^d`` cells centred on every cell (a box
kernel): the noise averages as in wider cells while the grid keeps its resolution, so
a gap of a few cells between two shapes stays a gap. The cluster tree
(:func:`skdp.cluster._optics_eom.eom_labels`) runs at each scale ``r`` from 0 up to
the first that brings most of the noisy total above its noise floor; the scale with
the most clusters wins (ties: the coarser, less noisy one). Its clusters then grow,
densest cells first, through the cells whose window sum clears twice the window's
noise standard deviation (a lower floor: hysteresis thresholding); two growing
clusters stop where they meet, so growth labels border cells but never merges.
"""

import heapq
import math
from numbers import Integral, Real

import numpy as np

from skdp.cluster._grid import grid_positions
from skdp.cluster._optics_eom import _neighbours, eom_labels, noise_floor, noise_variance

__all__ = ["box_sum", "grid_eom_labels", "grow_labels"]

# share of the noisy total above the noise floor at which the coarsest scale is reached
CAPTURED = 0.8
# the widest window tried, in cells per side (2 * MAX_RADIUS + 1)
MAX_RADIUS = 8
# the growth floor, in standard deviations of a window's summed noise
GROW_SD = 2.0


def box_sum(histogram, radius):
    """Sum of every cell's cube of ``(2 radius + 1)^d`` cells (zeros outside the grid).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._optics_scales import box_sum
    >>> box_sum(np.array([0.0, 1, 2, 3, 4]), 1).tolist()
    [1.0, 3.0, 6.0, 9.0, 7.0]
    """
    out = np.asarray(histogram, dtype=float)
    for axis, m in enumerate(out.shape):
        if radius == 0 or m == 1:
            continue
        pad = [(0, 0)] * out.ndim
        pad[axis] = (radius + 1, radius)
        c = np.cumsum(np.pad(out, pad), axis=axis)
        hi = np.take(c, np.arange(2 * radius + 1, 2 * radius + 1 + m), axis=axis)
        out = hi - np.take(c, np.arange(m), axis=axis)
    return out


def grow_labels(labels, levels, low, *, shape=None):
    """Extend labelled cells to unlabelled neighbours with ``levels >= low``, densest
    first (a priority flood); a cell takes the label of the cell it is reached from.
    ``shape`` (default ``levels.shape``) is the grid's, whose dimensions set the
    neighbours (:func:`skdp.cluster._optics_eom.eom_labels`).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._optics_scales import grow_labels
    >>> grow_labels(np.array([-1, 0, -1, -1, 1, -1]), np.array([5.0, 9, 4, 4, 9, 1]), 3).tolist()
    [0, 0, 0, 1, 1, -1]
    """
    labels = np.asarray(labels).copy()
    flat = np.asarray(levels, dtype=float).ravel()
    candidates = np.flatnonzero((labels >= 0) | (flat >= low))
    if candidates.size == 0:
        return labels
    positions = grid_positions(candidates, np.shape(levels) if shape is None else shape)
    neighbours = _neighbours(positions)
    local = np.full(flat.size, -1)
    local[candidates] = np.arange(candidates.size)
    heap = [(-flat[i], int(local[i])) for i in candidates if labels[i] >= 0]
    heapq.heapify(heap)
    while heap:
        _, a = heapq.heappop(heap)
        for b in neighbours[a]:
            j = candidates[b]
            if labels[j] < 0:
                labels[j] = labels[candidates[a]]
                heapq.heappush(heap, (-flat[j], int(b)))
    return labels


def _scale(histogram, epsilon, radius, density):
    """The window sums at one scale, their floor and the share of the total above it."""
    d = sum(m > 1 for m in histogram.shape)
    width = (2 * radius + 1) ** d
    levels = box_sum(histogram, radius)
    floor = max(noise_floor(epsilon, histogram.size, width), density * width)
    captured = levels[levels >= floor].sum() / width / max(histogram.sum(), 1.0)
    return levels, floor, width, captured


def grid_eom_labels(
    histogram,
    epsilon,
    *,
    grid_shape=None,
    cell_sides=None,
    min_samples=5,
    max_eps=np.inf,
    min_cluster_size=None,
):
    """Cluster of every cell of a noisy histogram: :func:`eom_labels` at the scale with
    the most clusters, grown through the cells above a lower floor.

    Scales ``r = 0, 1, ...`` (windows of ``(2r + 1)^d`` cells, at most ``2 MAX_RADIUS +
    1`` and the grid's side) up to the first at which ``CAPTURED`` of the noisy total
    lies in windows above their floor: the level the summed discrete-Laplace noise of a
    window exceeds in about one cell of the grid (:func:`noise_floor`, a union over the
    cells), raised to the density of ``min_samples`` records in a ball of radius a
    finite ``max_eps``. Noisy counts and public values only. ``grid_shape`` (default
    ``histogram.shape``) is the grid's shape when ``histogram`` is given flat: past
    numpy's dimension limit, the sums run over the dimensions more than one cell wide
    (the others change no window) and the cells' positions keep every dimension.

    Returns
    -------
    labels : ndarray of shape (histogram.size,)
    floor : float
        The chosen scale's floor, in records per window.
    width : int
        The chosen scale's window, in cells per side.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._optics_scales import grid_eom_labels
    >>> h = np.zeros((12, 12)); h[1:4, 1:4] = h[8:11, 8:11] = 50
    >>> labels, floor, width = grid_eom_labels(h, 1.0, min_samples=20)
    >>> int(labels.max()) + 1, width
    (2, 1)
    """
    shape = np.shape(histogram) if grid_shape is None else tuple(grid_shape)
    histogram = np.asarray(histogram, dtype=float).reshape([m for m in shape if m > 1] or [1])
    density = 0.0
    if np.isfinite(max_eps) and cell_sides is not None:
        d = len(shape)
        ball = math.pi ** (d / 2) / math.gamma(d / 2 + 1) * max_eps**d
        density = min_samples * float(np.prod(cell_sides)) / ball
    size = min_samples if min_cluster_size is None else min_cluster_size
    if isinstance(size, Real) and not isinstance(size, Integral):
        size = size * max(histogram.sum(), 0.0)
    best = None
    for radius in range(min(MAX_RADIUS, (max(histogram.shape) - 1) // 2) + 1):
        levels, floor, width, captured = _scale(histogram, epsilon, radius, density)
        positive = np.flatnonzero(levels.ravel() > 0)
        labels = np.full(levels.size, -1)
        if positive.size:
            labels[positive] = eom_labels(
                levels.ravel()[positive],
                grid_positions(positive, shape),
                floor=floor,
                min_cluster_mass=max(
                    float(size), 2 * noise_floor(epsilon, histogram.size / width, width) / width
                ),
                noise_var=width * noise_variance(epsilon),
                mass=levels.ravel()[positive] / width,
            )
        if best is None or labels.max() >= best[0].max():  # ties: the coarser scale
            best = (labels, levels, floor, width, radius)
        if captured >= CAPTURED:
            break
    labels, levels, floor, width, radius = best
    low = GROW_SD * math.sqrt(width * noise_variance(epsilon))
    return grow_labels(labels, levels, low, shape=shape), floor, 2 * radius + 1
