"""JointExp quantiles (Gillenwater, Joseph and Kulesza, ICML 2021) on a public grid.

The shared core of :func:`skdp.tools.quantile` (``method="joint"``) and of the estimators
that need several quantiles of a feature at once (``skdp.preprocessing.MinMaxScaler``):
the joint score's integer ingredients, its add/remove sensitivity, and the draw through
:func:`skdp.mechanisms._joint.joint_exponential_batch`.
"""

import itertools
import math

import numpy as np

from skdp.mechanisms._joint import joint_exponential_batch
from skdp.utils._grid_index import add_counts

__all__ = [
    "MAX_DENOMINATOR",
    "common_denominator",
    "grid_ranks",
    "joint_draw",
    "joint_draws",
    "joint_inputs",
    "joint_quantiles",
    "joint_sensitivity",
    "level_gaps",
]

# the joint method puts every q on one denominator: their lcm, or this one if larger
MAX_DENOMINATOR = 10_000
_CELLS = 2**15  # values per block of grid_ranks (a few hundred kB of temporaries)
_TWO_52_BITS = int(np.float64(2.0**52).view(np.int64))
_SORTED_BELOW = 4096  # rows under which sorting each column costs less than the tables
# a box whose guesses may round by more (far from 0 for its width) checks every value
_MAX_SLACK = 2.0**-10


def joint_sensitivity(gaps, denominator):
    """The joint score's add/remove sensitivity, in units of ``1 / denominator`` values.

    ``gaps`` are the numerators of ``w_j = q_j - q_{j-1}`` (``j = 1..m+1``). A value
    added strictly between two outputs moves one block: ``2 (1 - min_j w_j)``. A value
    added at an output's candidate widens the two blocks on either side and can only
    lower their distances, by at most ``max(w, 1 - w)`` each: ``3 - 2 (w_k + w_{k+1})``
    for ``w_k, w_{k+1} <= 1/2``, else ``2 - 2 min(w_k, w_{k+1})``.
    """
    gaps = [int(g) for g in gaps]
    worst = 2 * (denominator - min(gaps))
    for a, b in itertools.pairwise(gaps):
        if 2 * max(a, b) <= denominator:
            worst = max(worst, 3 * denominator - 2 * (a + b))
        else:
            worst = max(worst, 2 * denominator - 2 * min(a, b))
    return worst


def common_denominator(fractions):
    """``(V, numerators)``: the distinct levels as ``a / V``, ``0 < a < V``, increasing."""
    denominator = min(math.lcm(*(f.denominator for f in fractions)), MAX_DENOMINATOR)
    numerators = [min(max(round(f * denominator), 1), denominator - 1) for f in fractions]
    return denominator, numerators


def joint_inputs(values, numerators, denominator, candidates):
    """The joint score's ingredients on ``candidates``, scaled to integers.

    Returns ``(ranks, upper_ranks, targets, total, sensitivity)`` for
    :func:`~skdp.mechanisms._joint.joint_exponential` (strict order): candidate ``c``
    has the rank interval ``V [#{x < c}, #{x <= c}]``, gap ``j`` the target
    ``(a_j - a_{j-1}) n`` (``a_0 = 0``, ``a_{m+1} = V``), the end ``V n``.
    """
    ordered = np.sort(values)
    below = np.searchsorted(ordered, candidates, side="left")
    at_or_below = np.searchsorted(ordered, candidates, side="right")
    return _scaled(below, at_or_below, values.size, numerators, denominator)


def level_gaps(numerators, denominator):
    """The numerators of ``w_j = q_j - q_{j-1}`` (``q_0 = 0``, ``q_{m+1} = 1``) of the
    distinct levels ``a / denominator`` (:func:`common_denominator`)."""
    return np.diff([0, *sorted(set(numerators)), denominator])


def _scaled(below, at_or_below, n, numerators, denominator):
    gaps = level_gaps(numerators, denominator)
    return (
        denominator * below,
        denominator * at_or_below,
        n * gaps,
        n * denominator,
        joint_sensitivity(gaps, denominator),
    )


def _sorted_ranks(column, candidates):
    ordered = np.sort(np.clip(column, candidates[0], candidates[-1]))
    return (
        np.searchsorted(ordered, candidates, side="left"),
        np.searchsorted(ordered, candidates, side="right"),
    )


def grid_ranks(X, lower, upper, n_candidates):
    """``#{x < c}`` and ``#{x <= c}`` of every column's values clipped to its box.

    Column ``j``'s candidates are ``np.linspace(lower[j], upper[j], n_candidates)``
    and its values are clipped to ``[lower[j], upper[j]]``, as in
    :func:`joint_quantiles`; the counts are equal to those of a sort of each clipped
    column, from one pass over the rows instead: per block of rows, each value's
    number ``a`` of candidates at or below it is guessed from its position in the box
    and checked exactly against the candidates ``c_{a-1} <= x < c_a`` (a value
    failing the check, from float rounding at a candidate, is located by a binary
    search), then one histogram of ``(feature, a)`` gives the counts. A column whose
    candidates are not strictly increasing (a box narrower than the floats can
    split in ``n_candidates``), and every column of fewer than 4096 rows (where the
    pass's fixed cost exceeds a sort's), is sorted instead.

    Only the values whose guess may be wrong are checked. The guess ``g = fl(fl(x s)
    + t)``, ``s = fl((K - 1) / (u - l))``, ``t = fl(1 - fl(l s))`` for the box ``[l,
    u]`` and ``K`` candidates, is within a few units of ``2**-53 (|x| s + |l| s + g)
    <= 2**-53 (2 M s + K + 1)`` of ``p = (x - l) (K - 1) / (u - l) + 1`` (``M =
    max(|l|, |u|)``; values outside the box are clipped to ``g`` in ``{0, K}`` and
    checked), and ``np.linspace`` puts each candidate within a few units of
    ``2**-53 (M + K (u - l) / (K - 1))`` of ``l + k (u - l) / (K - 1)``, which moves
    the breakpoints of ``p`` by as much times ``s``. Exact candidates at or below
    ``x`` number ``floor(p)``; so with ``delta = 2**-48 (2 M s + K + 2)`` (32 units,
    room for every term) the guess is taken ``delta`` high (the shift ``fl(t +
    delta)``, one more rounding of ``2**-53 (M s + 2)``), within ``delta`` of ``p +
    delta``: a value whose guess has a fraction of at least ``2 delta`` has
    ``floor(g)`` candidates at or below it (``p`` lies in ``(g - 2 delta, g)``),
    and only the others (a fraction ``2 delta`` of spread data, plus those outside
    the box or at a candidate) are checked, one comparison per value. A column
    whose ``delta`` exceeds ``2**-10`` (a box far from 0 for its width) has every
    value checked.

    Returns
    -------
    below, at_or_below : ndarray of int64, shape (n_features, n_candidates)

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._joint_quantiles import grid_ranks
    >>> X = np.array([[-2.0, 0.1], [0.5, 0.5], [1.0, 0.9], [3.0, 0.5]])
    >>> below, at_or_below = grid_ranks(X, [0.0, 0.0], [1.0, 1.0], 3)
    >>> below.tolist(), at_or_below.tolist()
    ([[0, 1, 2], [0, 1, 4]], [[1, 2, 4], [0, 3, 4]])
    """
    X = np.asarray(X, dtype=float)
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    (n, d), K = X.shape, int(n_candidates)
    candidates = _feature_grids(lower, upper, K)
    if n < _SORTED_BELOW:
        ranks = [_sorted_ranks(X[:, j], candidates[j]) for j in range(d)]
        return tuple(np.array(r, dtype=np.int64).reshape(d, K) for r in zip(*ranks, strict=True))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = (K - 1) / (upper - lower)
        # rounding of the guess and of the candidates, in candidate steps (above)
        slack = 2.0**-48 * (2 * np.maximum(np.abs(lower), np.abs(upper)) * scale + K + 2)
    regular = np.all(np.diff(candidates, axis=1) > 0, axis=1) & np.isfinite(scale)
    below = np.zeros((d, K), dtype=np.int64)
    at_or_below = np.zeros((d, K), dtype=np.int64)
    for j in np.flatnonzero(~regular):
        below[j], at_or_below[j] = _sorted_ranks(X[:, j], candidates[j])
    quick = regular & (slack <= _MAX_SLACK)
    for group, checked in ((quick, False), (regular & ~quick, True)):
        if not group.any():
            continue
        columns = np.flatnonzero(group)
        part = X if group.all() else X[:, columns]
        cut = None if checked else float(slack[columns].max())
        counts = _guessed_ranks(part, candidates[columns], lower[columns], scale[columns], cut)
        below[columns], at_or_below[columns] = counts
        below[columns, 0] = 0  # nothing clipped is below the box
        at_or_below[columns, -1] = n  # everything clipped is at or below its top
    return below, at_or_below


def _feature_grids(lower, upper, K):
    """Row ``j``: ``np.linspace(lower[j], upper[j], K)``, the floats of one call per
    feature; in one call unless a step is 0 (then numpy's array call computes every
    row another way)."""
    with np.errstate(over="ignore", invalid="ignore"):
        steps = (upper - lower) / max(K - 1, 1)
    if K > 1 and np.all(steps != 0):
        return np.linspace(lower, upper, K, axis=1)
    return np.array([np.linspace(lo, hi, K) for lo, hi in zip(lower, upper, strict=True)])


def _guessed_ranks(X, candidates, lower, scale, cut):
    """:func:`grid_ranks` of ``X`` (unclipped) on strictly increasing ``candidates``.

    ``cut``: the ``delta`` of :func:`grid_ranks` (the largest of the columns'); the
    guesses are taken ``cut`` high and those with a fraction below ``2 cut`` are
    checked against the candidates (None: every value is).
    """
    (n, d), K = X.shape, candidates.shape[1]
    # per feature: -inf, the candidates, +inf; a value with a candidates at or below
    # it has c_{a-1} = extended[base + a] <= x < extended[base + a + 1] = c_a
    extended = np.full((d, K + 2), np.inf)
    extended[:, 0] = -np.inf
    extended[:, 1:-1] = candidates
    extended = extended.reshape(-1)
    following = np.append(extended[1:], np.inf)
    base = np.arange(d, dtype=np.intp) * (K + 2)
    step = max(1, _CELLS // d)
    tile = min(step, n)
    shift = 1 - lower * scale + (0.0 if cut is None else cut)
    scales, shifts = np.tile(scale, tile), np.tile(shift, tile)
    # an integer w in [0, K] plus 2**52 + base is exact, its bits 0x433 << 52 plus w +
    # base: the cell index without a float-to-int conversion
    bases = np.tile(base + 2.0**52, tile)
    guess, whole = np.empty(tile * d), np.empty(tile * d)
    cells = np.empty(tile * d, dtype=np.intp)
    histogram = np.zeros(d * (K + 2), dtype=np.int64)
    equal = np.zeros_like(histogram)
    for start in range(0, n, step):
        x = X[start : start + step].reshape(-1)
        m = x.size
        g, w, a = guess[:m], whole[:m], cells[:m]
        np.multiply(x, scales[:m], out=g)
        g += shifts[:m]
        np.clip(g, 0, K, out=g)
        np.floor(g, out=w)
        if cut is None:
            at = np.arange(m)
        else:
            g -= w  # the fraction, exactly
            at = np.flatnonzero(g < 2 * cut)
        w += bases[:m]
        np.subtract(w.view(np.int64), _TWO_52_BITS, out=a)
        if at.size:
            _check_cells(x, a, at, extended, following, candidates, base, equal)
        add_counts(histogram, a)
    histogram, equal = histogram.reshape(d, K + 2), equal.reshape(d, K + 2)
    below = np.cumsum(histogram, axis=1)[:, :K]
    return below, below + equal[:, 1 : K + 1]


def _check_cells(x, a, at, extended, following, candidates, base, equal):
    """Check the cells ``a[at]`` of the values ``x[at]`` against the candidates, fix
    the wrong ones by a binary search and count the values equal to a candidate in
    ``equal`` (both in place)."""
    d = base.size
    values, cells = x[at], a[at]
    low = extended.take(cells)
    wrong = (low > values) | (values >= following.take(cells))
    if wrong.any():
        fix = np.flatnonzero(wrong)
        features = at[fix] % d
        for j in np.unique(features):
            which = fix[features == j]
            position = np.searchsorted(candidates[j], values[which], side="right")
            cells[which] = base[j] + position
        a[at] = cells
        low = extended.take(cells)
    ties = values == low
    if ties.any():
        add_counts(equal, cells[ties])


def joint_quantiles(values, fractions, bounds, n_candidates, epsilon, rng):
    """JointExp on the public grid: one joint draw of the distinct levels.

    ``fractions`` are the distinct levels as :class:`fractions.Fraction`, increasing;
    ``n_candidates`` evenly spaced public candidates span ``bounds``; ``values`` are
    clipped to ``bounds``. Returns one estimate per level, ``epsilon``-DP under
    add/remove of one value (:func:`joint_sensitivity`).
    """
    values = np.asarray(values, dtype=float).reshape(-1)
    candidates = np.linspace(*bounds, n_candidates)
    if values.size < _SORTED_BELOW:
        below, at_or_below = _sorted_ranks(values, candidates)
    else:
        below, at_or_below = (
            ranks[0] for ranks in grid_ranks(values[:, np.newaxis], *zip(bounds), n_candidates)
        )
    return joint_draw(below, at_or_below, values.size, fractions, candidates, epsilon, rng)


def joint_draw(below, at_or_below, n, fractions, candidates, epsilon, rng):
    """:func:`joint_quantiles` from the counts of :func:`grid_ranks` (one feature's).

    ``below[i]`` and ``at_or_below[i]`` count the ``n`` clipped values below and at
    or below ``candidates[i]``; the same JointExp draw, ``epsilon``-DP.
    """
    (row,) = joint_draws(
        below[np.newaxis], at_or_below[np.newaxis], n, fractions, candidates[np.newaxis],
        [epsilon], rng,
    )  # fmt: skip
    return list(row)


def joint_draws(below, at_or_below, n, fractions, candidates, epsilons, rng):
    """:func:`joint_draw` of every feature, in one batched JointExp call.

    Row ``j`` of ``below``, ``at_or_below`` and ``candidates`` (shape ``(d, K)``)
    is feature ``j``'s; feature ``j`` spends ``epsilons[j]`` (one ledger record
    each). The draws are bit for bit those of ``joint_draw`` called on the features
    in order with the same ``rng``
    (:func:`skdp.mechanisms._joint.joint_exponential_batch`). Returns an array of
    shape ``(d, len(fractions))``.
    """
    denominator, numerators = common_denominator(fractions)
    ranks, upper, targets, total, sensitivity = _scaled(
        below, at_or_below, n, numerators, denominator
    )
    index = joint_exponential_batch(
        ranks, targets, totals=total, sensitivities=sensitivity, epsilons=epsilons,
        upper_ranks=upper, strict=True, random_state=rng,
    )  # fmt: skip
    levels = sorted(set(numerators))
    found = np.take_along_axis(np.asarray(candidates, dtype=float), index, axis=1)
    return found[:, [levels.index(a) for a in numerators]]
