"""The joint exponential mechanism over increasing index sequences (JointExp on a grid).

Gillenwater, Joseph and Kulesza ("Differentially Private Quantiles", ICML 2021) release
several quantiles at once with one exponential mechanism whose score is a sum over
consecutive pairs of outputs. On a finite public candidate list the output is a
sequence ``o_1 <= ... <= o_m`` (or ``<``) of candidate indices, and each candidate
``i`` has an integer rank interval ``[lo_i, hi_i]`` (for quantiles: the values below
the candidate, and those at or below it). The score is

    ``u(o) = -sum_{j=0..m} dist(t_j, [lo[o_{j+1}] - hi[o_j], hi[o_{j+1}] - lo[o_j]])``

with both ends fixed at ``lo = hi = 0`` (before ``o_1``) and ``lo = hi = total``
(after ``o_m``), targets ``t_j`` and ``dist(t, [a, b]) = max(0, a - t, t - b)``; with
``lo = hi`` each term is ``|R[o_{j+1}] - R[o_j] - t_j|``, the paper's form. The weight
``exp(-r S(o))`` (``S = -u``, ``r = epsilon / (2 sensitivity)``) factorises over the
pairs, so a dynamic program over (position, candidate) gives every normaliser and the
sequence is drawn backwards, last index first. Summing over all pairs costs
``O(m K**2)``; with ranks non-decreasing in the candidates' order (always, for
quantiles) each score is linear in ``lo_i`` or ``hi_i`` on a prefix and a suffix of
the previous candidates and 0 between, so each step is three range sums read from
prefix tables, ``O(m K log K)`` (:func:`_forward_windowed`).

Exactness. The dynamic program runs in float64, but the release is drawn exactly from
the target law by rejection: the float program only builds a *proposal* ``Q`` whose
conditional weights are integers (``floor(2**b p) + 1``, never 0 where the target is
positive), drawn exactly; a proposed ``o`` is accepted with probability
``exp(-r S(o)) / (M Q(o))``, a real number that is compared exactly with a lazily drawn
uniform (correctly rounded :mod:`decimal` bounds refined until they decide). The
accepted ``o`` has exactly the target law whenever ``exp(-r S(o)) <= M Q(o)`` for every
``o``; ``M`` is the float normaliser times ``exp(margin)``, with a margin ``2**16``
times larger than the float64 round-off of the pair-matrix program (sums of at most
``K`` positive terms, ``exp``/``log`` within a few ulps) and ``2**9`` times larger than
that of the windowed one (running ``logaddexp`` sums of up to ``K / 2`` positive
terms, no subtraction), so the caveat is only that numpy's ``exp``, ``log``,
``logaddexp`` and sums keep that accuracy. The acceptance rate is ``1 - margin``.
"""

from decimal import MAX_EMAX, MIN_EMIN, ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import numpy as np

from skdp.accounting import record_spend
from skdp.mechanisms._exact import _rational_at_most
from skdp.mechanisms._rng import check_random_state
from skdp.utils.validation import check_epsilon, check_sensitivity

__all__ = ["joint_exponential"]

_MAX_CANDIDATES = 4097  # O(m K**2) time
_BLOCK = 2**21  # entries of the pair-score matrix held at once (16 MB)
_MAX_RANK = 2**50  # ranks, targets and their differences stay exact in float64
_MARGIN = 2.0**-36  # per step and per unit of magnitude; round-off is ~2**-52
# the same for the windowed program, whose running sums of up to K / 2 terms round off
# by at most ~2**12 * 1.5 * 2**-52 < 2**-39 per unit: still 2**9 times below
_WINDOWED_MARGIN = 2.0**-30
# above this total slack (magnitudes beyond ~10**5 / steps, e.g. epsilon 1e9) the
# windowed proposal would be rejected too often: the pair matrix's tighter margin is used
_WINDOWED_MAX_SLACK = 2.0**-8
_WINDOWED_FROM = 48  # candidates from which the O(K log K) program beats the pair matrix


def _as_integers(values, name):
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
        raise ValueError(f"{name} must be finite integers")
    if np.any(np.abs(array) >= _MAX_RANK):
        raise ValueError(f"{name} must stay below {_MAX_RANK:.3g} in absolute value")
    return array.astype(np.int64)


def _log_column_sums(X):
    """``log sum_i exp(X[i, :])`` column by column (-inf for an empty column)."""
    top = X.max(axis=0)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return top + np.log(np.exp(X - top).sum(axis=0))


def _block_scores(previous, following, target):
    """``dist(t, [lo' - hi, hi' - lo])``: ``previous`` (rows) and ``following`` (columns)
    are ``(lo, hi)`` pairs of arrays."""
    (lo, hi), (lo_next, hi_next) = previous, following
    below = lo_next[np.newaxis, :] - hi[:, np.newaxis] - target
    above = target - hi_next[np.newaxis, :] + lo[:, np.newaxis]
    return np.maximum(np.maximum(below, above), 0).astype(float)


def _forward_quadratic(bounds, targets, total, rate, strict):
    """:func:`_forward` by the full pair matrix, ``O(m K**2)``: any rank order (the
    reference of the windowed program, and its fallback for unsorted ranks)."""
    K, m = bounds[0].size, targets.size - 1
    start = (np.zeros(1, np.int64),) * 2
    ell = np.empty((m, K))
    ell[0] = -rate * _block_scores(start, bounds, targets[0])[0]
    magnitude = np.abs(ell[0]).max()
    width = max(1, _BLOCK // K)  # columns per block: bounded memory
    rows = np.arange(K)[:, np.newaxis]
    for j in range(1, m):
        for first in range(0, K, width):
            columns = np.arange(first, min(first + width, K))
            following = (bounds[0][columns], bounds[1][columns])
            X = ell[j - 1][:, np.newaxis] - rate * _block_scores(bounds, following, targets[j])
            X[rows >= columns if strict else rows > columns] = -np.inf
            finite = X[np.isfinite(X)]
            magnitude = max(magnitude, np.abs(finite).max() if finite.size else 0.0)
            ell[j, columns] = _log_column_sums(X)
    return _finish(bounds, targets, total, rate, ell, magnitude, _MARGIN)


def _finish(bounds, targets, total, rate, ell, magnitude, unit):
    """The last step; the slack per step is ``unit`` per unit of the largest magnitude."""
    end = (np.full(1, total, np.int64),) * 2
    last = ell[-1] - rate * _block_scores(bounds, end, targets[-1])[:, 0]
    magnitude = max(magnitude, np.abs(last[np.isfinite(last)]).max())
    log_z = float(_log_column_sums(last[:, np.newaxis])[0])
    return ell, last, log_z, unit * (1 + max(magnitude, abs(log_z)))


def _finite_magnitude(*arrays):
    return max((np.abs(a[np.isfinite(a)]).max(initial=0.0) for a in arrays), default=0.0)


class _RangeLogSums:
    """``log sum_{a <= i < b} exp(v[i])`` for many ranges ``[a, b)``: a disjoint sparse
    table, ``O(K log K)`` to build and ``O(1)`` a query. Every answer is the
    ``logaddexp`` of at most two running sums of one half-block (positive terms, no
    cancellation), so its round-off is that of a sum of at most ``K`` terms."""

    def __init__(self, v):
        size = max(2, 1 << (v.size - 1).bit_length())
        self.v = np.full(size, -np.inf)
        self.v[: v.size] = v
        self.table = np.empty((size.bit_length() - 1, size))
        for level in range(self.table.shape[0]):
            blocks = self.v.reshape(-1, 2, 1 << level)
            out = self.table[level].reshape(blocks.shape)
            np.logaddexp.accumulate(blocks[:, 0, ::-1], axis=1, out=out[:, 0, ::-1])
            np.logaddexp.accumulate(blocks[:, 1, :], axis=1, out=out[:, 1, :])

    def __call__(self, starts, stops):
        out = np.full(starts.shape, -np.inf)
        some = stops > starts
        a, b = starts[some], stops[some] - 1
        level = np.zeros(a.shape, dtype=np.int64)
        split = a != b
        level[split] = np.floor(np.log2((a ^ b)[split])).astype(np.int64)
        value = self.v[a]
        level, a, b = level[split], a[split], b[split]
        value[split] = np.logaddexp(self.table[level, a], self.table[level, b])
        out[some] = value
        return out


def _forward(bounds, targets, total, rate, strict):
    """Float log messages ``ell[j, i]`` (mass of ``o_1..o_{j+1}`` ending at ``i``), the
    last step's log weights, ``log Z`` and the round-off slack per step: by
    :func:`_forward_windowed` for non-decreasing ranks and at least ``_WINDOWED_FROM``
    candidates unless its slack would make the acceptance rate fall below ``1 -
    2**-8``, else by the pair matrix (cheaper on a few candidates)."""
    lo, hi = bounds
    if lo.size < _WINDOWED_FROM or np.any(np.diff(lo) < 0) or np.any(np.diff(hi) < 0):
        return _forward_quadratic(bounds, targets, total, rate, strict)
    out = _forward_windowed(bounds, targets, total, rate, strict)
    if out[3] * targets.size > _WINDOWED_MAX_SLACK:  # huge rate x ranks: rare acceptances
        return _forward_quadratic(bounds, targets, total, rate, strict)
    return out


def _forward_windowed(bounds, targets, total, rate, strict):
    """:func:`_forward` for non-decreasing ``lo`` and ``hi``.

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
    K, m = lo.size, targets.size - 1
    start = (np.zeros(1, np.int64),) * 2
    ell = np.empty((m, K))
    ell[0] = -rate * _block_scores(start, bounds, targets[0])[0]
    magnitude = np.abs(ell[0]).max()
    stops = np.arange(K) + (0 if strict else 1)  # i < stops[c]
    for j in range(1, m):
        t = targets[j]
        below = np.minimum(np.searchsorted(hi, lo - t, side="left"), stops)
        above = np.minimum(np.searchsorted(lo, hi - t, side="right"), stops)
        rising, flat, falling = ell[j - 1] + rate * hi, ell[j - 1], ell[j - 1] - rate * lo
        shift_low, shift_high = rate * (lo - t), rate * (hi - t)
        zero = np.zeros(K, dtype=np.int64)
        sums = [_RangeLogSums(v) for v in (rising, flat, falling)]
        parts = np.stack([
            sums[0](zero, below) - shift_low,
            sums[1](below, above),
            sums[2](above, stops) + shift_high,
        ])  # fmt: skip
        magnitude = max(
            magnitude, _finite_magnitude(rising, falling, shift_low, shift_high, parts,
                                         *(s.table for s in sums)),
        )  # fmt: skip
        ell[j] = _log_column_sums(parts)
    return _finish(bounds, targets, total, rate, ell, magnitude, _WINDOWED_MARGIN)


def _integer_weights(x, bits):
    """``floor(2**bits exp(x - max x)) + 1`` (0 where ``x`` is -inf): never 0 elsewhere."""
    e = np.exp(x - x.max())
    weights = np.floor(np.ldexp(e, bits)).astype(np.int64) + 1
    weights[np.isneginf(x)] = 0
    return weights


def _draw(weights, rng):
    """An index drawn with probability exactly ``weights / weights.sum()``."""
    cumulative = np.cumsum(weights)
    return int(np.searchsorted(cumulative, rng.integers(0, cumulative[-1]), side="right"))


def _bracket(rho, y, digits):
    """``(lower, upper)`` rationals around ``rho exp(-y)`` from correctly rounded decimals."""
    down = Context(prec=digits, rounding=ROUND_FLOOR, Emin=MIN_EMIN, Emax=MAX_EMAX)
    up = Context(prec=digits, rounding=ROUND_CEILING, Emin=MIN_EMIN, Emax=MAX_EMAX)
    numerator, denominator = Decimal(y.numerator), Decimal(y.denominator)
    y_low, y_high = down.divide(numerator, denominator), up.divide(numerator, denominator)
    # Decimal.exp is correctly rounded (half even): within half a unit of the last digit
    slack = Fraction(1, 10 ** (digits - 1))
    low = Fraction(down.exp(-y_high)) * (1 - slack)
    high = Fraction(up.exp(-y_low)) * (1 + slack)
    return rho * low, rho * high


def _bernoulli_scaled_exp(rho, y, rng):
    """Exact Bernoulli(``rho exp(-y)``) for rationals ``rho > 0`` and ``y`` (capped at 1).

    Compares a uniform, drawn 32 bits at a time, with brackets of the probability that
    tighten until one side is certain (after one round unless the two nearly meet).
    """
    u, bits, digits = 0, 0, 40
    while True:
        u, bits = (u << 32) | int(rng.integers(0, 2**32)), bits + 32
        low, high = _bracket(rho, y, digits)
        if Fraction(u + 1, 2**bits) <= low:
            return True
        if Fraction(u, 2**bits) >= high:
            return False
        digits *= 2


def joint_exponential(
    ranks,
    targets,
    *,
    total,
    sensitivity,
    epsilon,
    upper_ranks=None,
    strict=False,
    random_state=None,
):
    """Exponential mechanism over increasing index sequences scored pair by pair.

    Selects ``o_1 <= ... <= o_m`` (``<`` if ``strict``) in ``range(len(ranks))``,
    ``m = len(targets) - 1``, with probability proportional to
    ``exp(epsilon u(o) / (2 sensitivity))`` where

    ``u(o) = -sum_{j=0..m} dist(targets[j], [lo[o_{j+1}] - hi[o_j], hi[o_{j+1}] - lo[o_j]])``,

    ``lo = ranks``, ``hi = upper_ranks`` (``ranks`` if None), the two ends fixed at
    ``lo = hi = 0`` and ``lo = hi = total``, and ``dist(t, [a, b]) = max(0, a - t, t - b)``
    (``|hi[o_{j+1}] - hi[o_j] - t_j|`` when ``lo = hi``). For quantiles (JointExp of
    Gillenwater, Joseph and Kulesza, ICML 2021, on public candidates) ``ranks[i]`` counts
    the values below candidate ``i``, ``upper_ranks[i]`` those at or below it, and
    ``targets[j]`` is the count each gap between consecutive quantiles should hold.

    Privacy: ``epsilon``-DP (McSherry and Talwar 2007) when ``u`` changes by at most
    ``sensitivity`` between neighbouring datasets (the caller's proof). ``epsilon`` is
    rounded down to a rational before use, so the effective epsilon never exceeds the
    one charged; the ledger records ``epsilon`` once.

    Sampling is exact by rejection from a proposal built by a float64 dynamic program
    (module notes): the one caveat, as for :func:`~skdp.mechanisms.l2_laplace_noise`
    but much weaker, is that the proof assumes numpy's ``exp``, ``log`` and sums stay
    within ``2**-36`` (``2**-30`` for sorted ranks; per unit of magnitude and per step)
    of the exact values, where float64 round-off is about ``2**-52`` (``2**-39`` for
    the running sums of sorted ranks). Cost ``O(m K log K)`` time for ranks and upper
    ranks non-decreasing in the candidates' order (quantiles), else ``O(m K**2)``, and
    ``O(m K)`` memory for ``K`` candidates.

    Parameters
    ----------
    ranks : array-like of int, shape (n_candidates,)
        The (lower) rank of each candidate, in the public order of the candidates (at
        most 4097 of them).
    targets : array-like of int, shape (m + 1,)
        The target of each gap (``m >= 1``).
    total : int
        The rank of the upper end.
    sensitivity : float
        The most ``u`` can change between neighbouring datasets (> 0).
    epsilon : float
        Privacy budget spent (> 0).
    upper_ranks : array-like of int, shape (n_candidates,), optional
        The upper end of each candidate's rank interval; ``ranks`` if None.
    strict : bool, default=False
        Only strictly increasing sequences (then ``m <= n_candidates``).
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`~skdp.mechanisms.check_random_state`; ``None`` for real releases.

    Returns
    -------
    ndarray of int64, shape (m,)
        The selected indices, non-decreasing (increasing if ``strict``).

    Examples
    --------
    Two quartiles of 40 values on 9 candidates: the ranks are the counts below each
    candidate, each of the three gaps should hold 10, 20 and 10 values.

    >>> import numpy as np
    >>> from skdp.mechanisms._joint import joint_exponential
    >>> ranks = np.array([0, 5, 10, 15, 20, 25, 30, 35, 40])
    >>> joint_exponential(ranks, [10, 20, 10], total=40, sensitivity=2, epsilon=5.0,
    ...                   random_state=0)
    array([2, 6])
    """
    lo = _as_integers(ranks, "ranks").reshape(-1)
    hi = lo if upper_ranks is None else _as_integers(upper_ranks, "upper_ranks").reshape(-1)
    targets = _as_integers(targets, "targets").reshape(-1)
    total = int(_as_integers(total, "total"))
    if not 1 <= lo.size <= _MAX_CANDIDATES or hi.shape != lo.shape:
        raise ValueError(
            f"ranks and upper_ranks must hold the same 1 to {_MAX_CANDIDATES} candidates, "
            f"got {lo.size} and {hi.size}"
        )
    if targets.size < 2:
        raise ValueError(f"targets must hold m + 1 >= 2 gaps, got {targets.size}")
    if strict and targets.size - 1 > lo.size:
        raise ValueError(
            f"{targets.size - 1} strictly increasing indices need as many candidates, "
            f"got {lo.size}"
        )
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    rng = check_random_state(random_state)
    numerator, denominator = _rational_at_most(Fraction(epsilon) / (2 * Fraction(sensitivity)))
    rate = Fraction(numerator, denominator)  # exactly representable in float64
    record_spend(epsilon, mechanism="joint_exponential")
    return _sample((lo, hi), targets, total, rate, bool(strict), rng)


def _sample(bounds, targets, total, rate, strict, rng):
    K, m = bounds[0].size, targets.size - 1
    ell, last, log_z, slack = _forward(bounds, targets, total, float(rate), strict)
    bits = 61 - K.bit_length()  # K (2**bits + 1) < 2**62: exact int64 sums
    margin = slack * (m + 1) + m * K * 2.0**-bits
    log_bound = Fraction(log_z + margin)  # M = exp(log_bound) >= exp(-r S) / Q everywhere
    while True:
        ratio, out = Fraction(1), np.empty(m, dtype=np.int64)
        x = last
        for j in range(m - 1, -1, -1):
            weights = _integer_weights(x, bits)
            out[j] = _draw(weights, rng)
            ratio *= Fraction(int(weights.sum()), int(weights[out[j]]))  # 1 / Q step
            if j:
                following = (bounds[0][out[j], None], bounds[1][out[j], None])
                scores = _block_scores(bounds, following, targets[j])[:, 0]
                x = ell[j - 1] - float(rate) * scores
                x[out[j] if strict else out[j] + 1 :] = -np.inf
        score = sequence_score(bounds, targets, total, out)
        if _bernoulli_scaled_exp(ratio, rate * score + log_bound, rng):
            return out


def sequence_score(bounds, targets, total, out):
    """``S(o) = -u(o)`` of the sequence ``out``, exactly (Python integers).

    ``bounds`` is the pair ``(ranks, upper_ranks)``.
    """
    lo = [0, *(int(bounds[0][i]) for i in out), int(total)]
    hi = [0, *(int(bounds[1][i]) for i in out), int(total)]
    return sum(
        max(0, lo[k + 1] - hi[k] - int(t), int(t) - hi[k + 1] + lo[k])
        for k, t in enumerate(targets)
    )
