"""The float64 forward programs behind :func:`skdp.mechanisms._joint.joint_exponential`.

They build the proposal of the exact rejection sampler (its module notes): the log
messages ``ell[j, i]`` (mass of ``o_1..o_{j+1}`` ending at candidate ``i``), the last
step's log weights, ``log Z`` and the round-off slack per step. Every function here
works on a stack of independent problems, one per row of ``(lo, hi)`` (the ``d``
features of a scaler in one call): the windowed program runs all its rows in the
same numpy calls, and each row's floats are those of a call on that row alone (the
operations are element by element or reduce within the row, in the same order), so
a batched draw is bit for bit a sequence of single ones.
"""

import numpy as np

from skdp.mechanisms._range_sums import _RangeLogSums

__all__ = ["block_scores", "forward", "forward_quadratic", "forward_windowed"]

_BLOCK = 2**21  # entries of the pair-score matrix held at once (16 MB)
_MARGIN = 2.0**-36  # per step and per unit of magnitude; round-off is ~2**-52
# the same for the windowed program, whose running sums of up to K / 2 terms round off
# by at most ~2**12 * 1.5 * 2**-52 < 2**-39 per unit: still 2**9 times below
_WINDOWED_MARGIN = 2.0**-30
# above this total slack (magnitudes beyond ~10**5 / steps, e.g. epsilon 1e9) the
# windowed proposal would be rejected too often: the pair matrix's tighter margin is used
_WINDOWED_MAX_SLACK = 2.0**-8
_WINDOWED_FROM = 48  # candidates from which the O(K log K) program beats the pair matrix
_TABLE_ENTRIES = 5 * 2**14  # range-sum table entries of one batch of rows (640 kB: the 10
# features of a 257-candidate scaler in one batch)


def _log_column_sums(X):
    """``log sum_i exp(X[i, ...])`` over the first axis (-inf for an empty column)."""
    top = X.max(axis=0)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return top + np.log(np.exp(X - top).sum(axis=0))


def block_scores(previous, following, target):
    """``dist(t, [lo' - hi, hi' - lo])``: ``previous`` (rows) and ``following`` (columns)
    are ``(lo, hi)`` pairs of arrays."""
    (lo, hi), (lo_next, hi_next) = previous, following
    below = lo_next[np.newaxis, :] - hi[:, np.newaxis] - target
    above = target - hi_next[np.newaxis, :] + lo[:, np.newaxis]
    return np.maximum(np.maximum(below, above), 0).astype(float)


def _end_scores(lo, hi, target, total):
    """:func:`block_scores` of every candidate against a fixed end ``lo = hi = total``
    (``total`` None: from the start ``lo = hi = 0``), row by row."""
    t = target[:, np.newaxis]
    if total is None:
        below, above = lo - t, t - hi
    else:
        below, above = total[:, np.newaxis] - hi - t, t - total[:, np.newaxis] + lo
    return np.maximum(np.maximum(below, above), 0).astype(float)


def _finite_magnitude(*arrays):
    """The largest finite ``|a|`` of each row (axis 0 of ``a.reshape(rows, -1)``)."""
    rows = arrays[0].shape[0]
    return np.max(
        [np.where(np.isfinite(a), np.abs(a), 0.0).reshape(rows, -1).max(axis=1) for a in arrays],
        axis=0,
    )


def forward_quadratic(bounds, targets, total, rate, strict):
    """:func:`forward` of one row by the full pair matrix, ``O(m K**2)``: any rank
    order (the reference of the windowed program, and its fallback)."""
    K, m = bounds[0].size, targets.size - 1
    start = (np.zeros(1, np.int64),) * 2
    ell = np.empty((m, K))
    ell[0] = -rate * block_scores(start, bounds, targets[0])[0]
    magnitude = np.abs(ell[0]).max()
    width = max(1, _BLOCK // K)  # columns per block: bounded memory
    rows = np.arange(K)[:, np.newaxis]
    for j in range(1, m):
        for first in range(0, K, width):
            columns = np.arange(first, min(first + width, K))
            following = (bounds[0][columns], bounds[1][columns])
            X = ell[j - 1][:, np.newaxis] - rate * block_scores(bounds, following, targets[j])
            X[rows >= columns if strict else rows > columns] = -np.inf
            finite = X[np.isfinite(X)]
            magnitude = max(magnitude, np.abs(finite).max() if finite.size else 0.0)
            ell[j, columns] = _log_column_sums(X)
    (out,) = _finish(
        (bounds[0][np.newaxis], bounds[1][np.newaxis]), targets[np.newaxis],
        np.array([total]), np.array([rate]), ell[np.newaxis], np.array([magnitude]), _MARGIN,
    )  # fmt: skip
    return out


def _finish(bounds, targets, totals, rates, ell, magnitudes, unit):
    """The last step of every row; the slack per step is ``unit`` per unit of the
    largest magnitude. Returns one ``(ell, last, log Z, slack)`` per row."""
    lo, hi = bounds
    last = ell[:, -1] - rates[:, np.newaxis] * _end_scores(lo, hi, targets[:, -1], totals)
    magnitudes = np.maximum(magnitudes, _finite_magnitude(last))
    log_z = _log_row_sums(last)
    slack = unit * (1 + np.maximum(magnitudes, np.abs(log_z)))
    return [(ell[r], last[r], float(log_z[r]), float(slack[r])) for r in range(lo.shape[0])]


def _log_row_sums(X):
    """``log sum_i exp(X[r, i])`` of each row (-inf for an empty one): row by row the
    floats of :func:`_log_column_sums` on the row as a column (a contiguous sum of
    ``K`` terms either way)."""
    top = X.max(axis=1)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return top + np.log(np.exp(X - top[:, np.newaxis]).sum(axis=1))


def forward(bounds, targets, totals, rates, strict):
    """One ``(ell, last, log Z, slack)`` per row of ``bounds = (lo, hi)``.

    By :func:`forward_windowed` for a row with non-decreasing ranks and at least
    ``_WINDOWED_FROM`` candidates (all such rows at once, in batches whose range-sum
    tables hold at most ``_TABLE_ENTRIES`` values: 640 kB), unless its slack would make
    the acceptance rate fall below ``1 - 2**-8``; else by the pair matrix (cheaper
    on a few candidates).
    """
    lo, hi = bounds
    R, K = lo.shape
    out = [None] * R
    windowed = np.all(np.diff(lo, axis=1) >= 0, axis=1) & np.all(np.diff(hi, axis=1) >= 0, axis=1)
    rows = np.flatnonzero(windowed) if K >= _WINDOWED_FROM else np.empty(0, dtype=np.intp)
    per = max(1, _TABLE_ENTRIES // (3 * K * max(1, (K - 1).bit_length())))
    for first in range(0, rows.size, per):  # tables of at most _TABLE_ENTRIES values
        chunk = rows[first : first + per]
        fast = forward_windowed(
            (lo[chunk], hi[chunk]), targets[chunk], totals[chunk], rates[chunk], strict
        )
        for r, result in zip(chunk, fast, strict=True):
            if result[3] * targets.shape[1] <= _WINDOWED_MAX_SLACK:
                out[r] = result  # else huge rate x ranks: rare acceptances
    for r in range(R):
        if out[r] is None:
            out[r] = forward_quadratic((lo[r], hi[r]), targets[r], totals[r], rates[r], strict)
    return out


def _table_max_magnitude(sums, covered):
    """``|max|`` of the complete table of ``sums`` (a lazy :class:`_RangeLogSums` of
    ``3 R`` rows, the row groups of :func:`forward_windowed`) per group row, or 0
    where it cannot exceed ``covered``: then the complete table is not built (the
    bounds of :meth:`_RangeLogSums.max_bounds`; its ``|max|`` is at most the larger
    ``|.|`` of the two), and the largest magnitude is the same either way."""
    R = covered.size
    low, high = (bound.reshape(3, R).max(axis=0) for bound in sums.max_bounds())
    with np.errstate(invalid="ignore"):  # -inf: an empty row, its |max| counts 0
        reach = np.maximum(np.abs(low), np.abs(high))
    if np.all(~np.isfinite(low) | (reach <= covered)):
        return np.zeros(R)
    table_max = _RangeLogSums(sums.v).max().reshape(3, R).max(axis=0)
    return np.abs(table_max, where=np.isfinite(table_max), out=np.zeros(R))


def _row_searchsorted(sorted_rows, values, side):
    """``np.searchsorted(sorted_rows[r], values[r], side)`` of every row ``r`` (integer
    arrays of shape ``(R, K)``, rows non-decreasing), in one call: row ``r`` shifted
    by ``r`` times a gap wider than all the values' spread lies above every earlier
    row and below every later one, so each search stays in its row (one call per
    row if the shifts could overflow)."""
    R, K = sorted_rows.shape
    low = min(int(sorted_rows.min()), int(values.min()))
    gap = max(int(sorted_rows.max()), int(values.max())) - low + 1
    if gap * R >= 2**62:
        rows = zip(sorted_rows, values, strict=True)
        return np.array([np.searchsorted(a, v, side=side) for a, v in rows])
    shift = np.arange(R, dtype=np.int64)[:, np.newaxis] * gap
    found = np.searchsorted((sorted_rows + shift).ravel(), (values + shift).ravel(), side=side)
    return found.reshape(R, K) - np.arange(0, R * K, K)[:, np.newaxis]


def forward_windowed(bounds, targets, totals, rates, strict):
    """:func:`forward` for rows of non-decreasing ``lo`` and ``hi``, all at once.

    With ``lo`` and ``hi`` non-decreasing (the ranks of increasing candidates) each
    step is ``O(K log K)`` instead of ``O(K**2)``: for a following candidate ``c`` the
    score ``max(0, lo_c - hi_i - t, t - hi_c + lo_i)`` of ``i`` is
    ``lo_c - t - hi_i`` on the prefix ``hi_i < lo_c - t``, ``lo_i - (hi_c - t)`` on
    the suffix ``lo_i > hi_c - t`` (the two never meet, as ``lo <= hi``) and 0
    between, so the sum over ``i <= c`` (``< c`` if ``strict``) splits into three
    range sums of ``ell + r hi``, ``ell`` and ``ell - r lo`` times constants of
    ``c``. The ranges are read from :class:`_RangeLogSums` (sums of positive terms
    only, no cancellation); the slack is ``_WINDOWED_MARGIN`` per unit of the largest
    operand or running sum, ``2**9`` times their round-off.
    """
    lo, hi = bounds
    (R, K), m = lo.shape, targets.shape[1] - 1
    rate = rates[:, np.newaxis]
    ell = np.empty((R, m, K))
    zero = np.zeros((R, K), dtype=np.int64)
    ell[:, 0] = -rate * _end_scores(lo, hi, targets[:, 0], None)
    magnitude = _finite_magnitude(ell[:, 0])
    stops = np.broadcast_to(np.arange(K) + (0 if strict else 1), (R, K))  # i < stops[c]
    for j in range(1, m):
        t = targets[:, j, np.newaxis]
        below = _row_searchsorted(hi, lo - t, "left")
        above = _row_searchsorted(lo, hi - t, "right")
        np.minimum(below, stops, out=below)
        np.minimum(above, stops, out=above)
        rising, falling = ell[:, j - 1] + rate * hi, ell[:, j - 1] - rate * lo
        shift_low, shift_high = rate * (lo - t), rate * (hi - t)
        v = np.concatenate([rising, ell[:, j - 1], falling])
        queries = (np.concatenate([zero, below, above]), np.concatenate([below, above, stops]))
        sums = _RangeLogSums(v, queries)
        parts = sums.answers().reshape(3, R, K)
        parts[0] -= shift_low
        parts[2] += shift_high
        # the tables hold rising, ell and falling at level 0: their finite extremes
        table_min = sums.min().reshape(3, R).min(axis=0)
        magnitude = np.max(
            [magnitude, np.abs(table_min, where=np.isfinite(table_min), out=np.zeros(R)),
             _finite_magnitude(shift_low, shift_high, parts.transpose(1, 0, 2))],
            axis=0,
        )  # fmt: skip
        magnitude = np.maximum(magnitude, _table_max_magnitude(sums, magnitude))
        del sums, queries, v  # not alive beside the next step's table
        ell[:, j] = _log_column_sums(parts)
    return _finish(bounds, targets, totals, rates, ell, magnitude, _WINDOWED_MARGIN)
