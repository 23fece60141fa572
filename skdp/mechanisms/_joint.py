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
prefix tables, ``O(m K log K)``
(:func:`skdp.mechanisms._joint_forward.forward_windowed`, which also runs the
programs of many independent draws at once: :func:`joint_exponential_batch`).

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

import functools
from decimal import MAX_EMAX, MIN_EMIN, ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import numpy as np

from skdp.accounting import record_spend
from skdp.mechanisms._exact import _rational_at_most
from skdp.mechanisms._joint_forward import block_scores, forward
from skdp.mechanisms._rng import check_random_state
from skdp.utils.validation import check_epsilon, check_sensitivity

__all__ = ["joint_exponential", "joint_exponential_batch"]

_MAX_CANDIDATES = 4097  # O(m K**2) time
_MAX_RANK = 2**50  # ranks, targets and their differences stay exact in float64


def _as_integers(values, name):
    array = np.asarray(values)
    if np.issubdtype(array.dtype, np.signedinteger):  # integers already: only the range
        if not np.all((array > -_MAX_RANK) & (array < _MAX_RANK)):
            raise ValueError(f"{name} must stay below {_MAX_RANK:.3g} in absolute value")
        return array.astype(np.int64)
    array = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
        raise ValueError(f"{name} must be finite integers")
    if np.any(np.abs(array) >= _MAX_RANK):
        raise ValueError(f"{name} must stay below {_MAX_RANK:.3g} in absolute value")
    return array.astype(np.int64)


def _integer_weights(x, bits):
    """``floor(2**bits exp(x - max x)) + 1`` (0 where ``x`` is -inf): never 0 elsewhere;
    along the last axis (row by row, the floats of each row alone)."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    weights = np.floor(np.ldexp(e, bits)).astype(np.int64) + 1
    weights[x == -np.inf] = 0
    return weights


def _draw(cumulative, rng):
    """An index drawn with probability exactly ``weights / weights.sum()`` from the
    weights' running sums, and that sum."""
    total = int(cumulative[-1])
    return int(np.searchsorted(cumulative, rng.integers(0, total), side="right")), total


def _bracket(y_num, y_den, digits):
    """Integer pairs ``(a, b)`` and ``(c, e)`` with ``a / b <= exp(-y) <= c / e``.

    ``y = y_num / y_den`` (a rational, in any terms) is bracketed by directed
    roundings ``y_low <= y <= y_high``, at
    most one unit of the last digit apart: ``y_high - y_low <= t = 10**(k + 2 -
    digits)`` with ``k`` the decimal exponent of ``y_low`` (ten times that unit). One
    correctly rounded ``E = exp(-y_low)`` (:meth:`decimal.Decimal.exp` rounds half
    even: within half a unit of its last digit, a relative ``s = 10**(1 - digits)`` at
    most) then gives ``exp(-y) <= exp(-y_low) <= E (1 + s)`` and ``exp(-y) >=
    exp(-y_high) >= exp(-y_low) (1 - t) >= E (1 - s) (1 - t)`` (0 when ``t >= 1``;
    ``t = 0`` when ``y_low = 0``, which only ``y = 0`` rounds to).
    """
    down = _rounding_down(digits)
    y_low = down.divide(Decimal(y_num), Decimal(y_den))  # correctly rounded: any terms
    e_num, e_den = down.exp(-y_low).as_integer_ratio()
    scale = 10 ** (digits - 1)
    high = (e_num * (scale + 1), e_den * scale)
    if not y_low:  # y = 0 exactly: t = 0
        return (e_num * (scale - 1), e_den * scale), high
    shift = digits - 2 - y_low.adjusted()  # t = 10**-shift
    if shift <= 0:
        return (0, 1), high
    return (e_num * (scale - 1) * (10**shift - 1), e_den * scale * 10**shift), high


@functools.lru_cache(maxsize=8)
def _rounding_down(digits):
    """The decimal context of ``digits`` digits rounding down (shared: its flags do not
    change any result, and no trap is enabled that the bracket can raise)."""
    return Context(prec=digits, rounding=ROUND_FLOOR, Emin=MIN_EMIN, Emax=MAX_EMAX)


def _bernoulli_scaled_exp(rho, y, rng):
    """Exact Bernoulli(``rho exp(-y)``) for rationals ``rho > 0`` and ``y`` (capped at 1)."""
    return _scaled_exp_coin(rho.numerator, rho.denominator, y.numerator, y.denominator, rng)


def _scaled_exp_coin(p, q, y_num, y_den, rng):
    """Exact Bernoulli(``(p / q) exp(-y_num / y_den)``), capped at 1, from integers
    (``p, q, y_den > 0``, in any terms: only the rationals' values count).

    Compares a uniform, drawn 32 bits at a time, with brackets of the probability that
    tighten until one side is certain (after one round unless the two nearly meet:
    with 20 digits, a chance of about ``10**-19 / 2**-32``), in integers:
    ``(u + 1) / 2**bits <= rho a / b`` and ``u / 2**bits >= rho c / e``.
    """
    u, bits, digits = 0, 0, 20
    while True:
        u, bits = (u << 32) | int(rng.integers(0, 2**32)), bits + 32
        (a, b), (c, e) = _bracket(y_num, y_den, digits)
        if (u + 1) * q * b <= (p * a) << bits:
            return True
        if u * q * e >= (p * c) << bits:
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
    (out,) = joint_exponential_batch(
        _as_integers(ranks, "ranks").reshape(1, -1), targets, totals=total,
        sensitivities=sensitivity, epsilons=epsilon,
        upper_ranks=None if upper_ranks is None else np.reshape(upper_ranks, (1, -1)),
        strict=strict, random_state=random_state,
    )  # fmt: skip
    return out


def joint_exponential_batch(
    ranks,
    targets,
    *,
    totals,
    sensitivities,
    epsilons,
    upper_ranks=None,
    strict=False,
    random_state=None,
):
    """:func:`joint_exponential` on each row of ``ranks``: one release per row.

    Row ``r``'s output is drawn exactly as ``joint_exponential(ranks[r], targets[r],
    total=totals[r], sensitivity=sensitivities[r], epsilon=epsilons[r], ...)`` would
    draw it, and the rows are drawn in order from the one generator: the same law
    per row and the same draws, bit for bit, as a loop of single calls. The float
    programs of all rows run in the same numpy calls
    (:func:`skdp.mechanisms._joint_forward.forward`), and each row's floats are
    those of a call on that row alone. Each row charges its own ``epsilons[r]`` to
    the ledger (one record per row, before its draw), as the loop would:
    ``epsilons[r]``-DP per row when row ``r``'s score has sensitivity
    ``sensitivities[r]``; the rows compose as the caller's proof says (a record that
    touches every row: sequentially).

    Parameters
    ----------
    ranks : array-like of int, shape (n_rows, n_candidates)
        Each row: the (lower) ranks of its candidates (at most 4097).
    targets : array-like of int, shape (m + 1,) or (n_rows, m + 1)
        The target of each gap, for every row or per row (``m >= 1``).
    totals, sensitivities, epsilons : float or array-like of shape (n_rows,)
        Per row (a scalar for all): the rank of the upper end, the score's
        sensitivity (> 0) and the privacy budget spent (> 0).
    upper_ranks : array-like of int, shape (n_rows, n_candidates), optional
        The upper ends of the rank intervals; ``ranks`` if None.
    strict : bool, default=False
        Only strictly increasing sequences.
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`~skdp.mechanisms.check_random_state`; ``None`` for real releases.

    Returns
    -------
    ndarray of int64, shape (n_rows, m)
        Each row's selected indices, non-decreasing (increasing if ``strict``).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.mechanisms._joint import joint_exponential_batch
    >>> ranks = np.array([[0, 5, 10, 15, 20, 25, 30, 35, 40], [0, 0, 0, 10, 20, 30, 40, 40, 40]])
    >>> joint_exponential_batch(ranks, [10, 20, 10], totals=40, sensitivities=2,
    ...                         epsilons=5.0, random_state=0)
    array([[2, 6],
           [3, 5]])
    """
    lo = np.atleast_2d(_as_integers(ranks, "ranks"))
    hi = lo if upper_ranks is None else np.atleast_2d(_as_integers(upper_ranks, "upper_ranks"))
    R, K = lo.shape[0], lo.shape[-1]
    if lo.ndim != 2 or not 1 <= K <= _MAX_CANDIDATES or hi.shape != lo.shape:
        raise ValueError(
            f"ranks and upper_ranks must hold the same 1 to {_MAX_CANDIDATES} candidates "
            f"per row, got shapes {lo.shape} and {hi.shape}"
        )
    targets = _as_integers(targets, "targets")
    if targets.ndim == 1:
        targets = np.broadcast_to(targets, (R, targets.size))
    if targets.ndim != 2 or targets.shape[0] != R or targets.shape[1] < 2:
        raise ValueError(f"targets must hold m + 1 >= 2 gaps per row, got {targets.shape}")
    m = targets.shape[1] - 1
    if strict and m > K:
        raise ValueError(f"{m} strictly increasing indices need as many candidates, got {K}")
    totals = np.broadcast_to(_as_integers(totals, "total"), (R,))
    sensitivities = [check_sensitivity(s) for s in np.broadcast_to(sensitivities, (R,))]
    epsilons = [check_epsilon(e) for e in np.broadcast_to(epsilons, (R,))]
    rng = check_random_state(random_state)
    exact = {
        (e, s): Fraction(*_rational_at_most(Fraction(e) / (2 * Fraction(s))))  # float64-exact
        for e, s in set(zip(epsilons, sensitivities, strict=True))
    }
    rates = [exact[e, s] for e, s in zip(epsilons, sensitivities, strict=True)]
    programs = forward((lo, hi), targets, totals, np.array([float(r) for r in rates]), strict)
    # the last step's proposal of every row at once (each row's floats as alone)
    bits = 61 - K.bit_length()  # K (2**bits + 1) < 2**62: exact int64 sums
    last = np.cumsum(_integer_weights(np.stack([p[1] for p in programs]), bits), axis=1)
    out = np.empty((R, m), dtype=np.int64)
    for r in range(R):
        record_spend(epsilons[r], mechanism="joint_exponential")
        out[r] = _sample(
            programs[r], last[r], (lo[r], hi[r]), targets[r], int(totals[r]), rates[r],
            bool(strict), rng,
        )  # fmt: skip
    return out


def _sample(program, first, bounds, targets, total, rate, strict, rng):
    """One exact draw by rejection from the proposal of ``program`` (:func:`forward`);
    ``first``: the running sums of its last step's integer weights."""
    (lo, hi), K, m = bounds, bounds[0].size, targets.size - 1
    ell, _, log_z, slack = program
    bits = 61 - K.bit_length()
    margin = slack * (m + 1) + m * K * 2.0**-bits
    # M = exp(log_z + margin) >= exp(-r S) / Q everywhere; log M as an exact ratio
    bound_num, bound_den = float(log_z + margin).as_integer_ratio()
    rate_num, rate_den, step_rate = rate.numerator, rate.denominator, float(rate)
    while True:
        p, q, out = 1, 1, np.empty(m, dtype=np.int64)  # 1 / Q(out) = p / q
        cumulative = first
        for j in range(m - 1, -1, -1):
            out[j], weight_sum = _draw(cumulative, rng)
            chosen = cumulative[out[j]] - (cumulative[out[j] - 1] if out[j] else 0)
            p, q = p * weight_sum, q * int(chosen)
            if j:  # every candidate against out[j]
                following = (lo[out[j], None], hi[out[j], None])
                x = ell[j - 1] - step_rate * block_scores(bounds, following, targets[j])[:, 0]
                x[out[j] if strict else out[j] + 1 :] = -np.inf
                cumulative = np.cumsum(_integer_weights(x, bits))
        score = sequence_score(bounds, targets, total, out)
        y_num = rate_num * score * bound_den + bound_num * rate_den  # r S + log M
        if _scaled_exp_coin(p, q, y_num, rate_den * bound_den, rng):
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
