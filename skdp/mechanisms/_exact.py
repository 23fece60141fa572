"""Exact samplers on integers and rationals.

These follow Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential
Privacy" (NeurIPS 2020), section 5: every random choice is a uniform integer drawn
by ``Generator.integers`` (exact rejection sampling on random bits) and every
probability is a ratio of integers, so no floating-point rounding enters the output
distribution. The loops are vectorised over arrays: each pass works on the entries
that are still undecided.
"""

import math
from fractions import Fraction

import numpy as np

# Integers handed to the samplers stay below this, so products with the small loop
# counters below never overflow int64.
_MAX_INT = 2**56


def power_of_two_at_most(x):
    """The largest power of two ``<= x`` (exact, for finite ``x > 0``)."""
    return math.ldexp(0.5, math.frexp(x)[1])


def _largest_shift(value, bits, max_shift):
    """The largest ``k`` in ``[0, max_shift]`` with ``value * 2**k <= 2**bits`` (else 0)."""
    n, d = value.numerator, value.denominator
    k = min(max(bits - (n.bit_length() - d.bit_length()), 0), max_shift)  # off by <= 1
    while k > 0 and n << k > d << bits:
        k -= 1
    while k < max_shift and n << (k + 1) <= d << bits:
        k += 1
    return k


def _rational_at_least(value, *, bits=48):
    """``(t, s)`` with ``s`` a power of two, ``t / s >= value`` and ``t`` about ``2**bits``.

    Rounding up keeps the noise scale at least as large as asked for; the relative
    excess is below ``2**-bits`` unless the value is tiny (then ``t`` is small and the
    noise negligible anyway).
    """
    value = Fraction(value)
    k = _largest_shift(value, bits, 62)
    t = -((-value.numerator * 2**k) // value.denominator)  # ceil(value * 2**k)
    if t > _MAX_INT:
        raise ValueError(
            f"noise scale {float(value):.3g} is too large to sample exactly; "
            "the ratio of sensitivity to epsilon is out of range"
        )
    return max(int(t), 1), 2**k


def check_noise_scale(scale):
    """Raise ``ValueError`` if :func:`discrete_laplace` cannot sample ``scale`` exactly.

    Mechanisms call it before they charge the budget.
    """
    _rational_at_least(scale)


def _rational_at_most(value, *, bits=24):
    """``(a, s)`` with ``s <= 2**56`` a power of two and ``a / s <= value``, ``a ~ 2**bits``."""
    value = Fraction(value)
    k = _largest_shift(value, bits, 56)
    return int(value.numerator * 2**k // value.denominator), 2**k


def _bernoulli_exp_neg_unit(numerator, denominator, rng):
    """Bernoulli(exp(-numerator / denominator)) for ``0 <= numerator <= denominator``.

    Uses exp(-g) = P[the first k with Bernoulli(g / k) = 0 is odd]. All undecided
    entries share the same ``k`` in each pass.
    """
    numerator = np.asarray(numerator, dtype=np.int64)
    values = numerator.reshape(-1)  # those of the undecided entries, kept aligned
    odd = np.zeros(values.size, dtype=bool)
    undecided = np.arange(values.size)
    k = 1
    while undecided.size:
        failed = rng.integers(0, denominator * k, size=undecided.size) >= values
        if k % 2:
            odd[undecided[failed]] = True
        running = ~failed
        undecided, values = undecided[running], values[running]
        k += 1
    return odd.reshape(numerator.shape)


def _exp_neg_one_coins(size, rng):
    """``_bernoulli_exp_neg_unit(np.ones(size), 1, rng)``, the same draws with fewer calls.

    Its step ``k = 1`` compares a uniform integer below 1 (always 0, drawn from no
    bits: ``Generator.integers`` consumes nothing for a range of one value) with 1 and
    never fails, so the passes start at ``k = 2``, where a draw fails when nonzero.
    """
    odd = np.zeros(size, dtype=bool)
    undecided = np.arange(size)
    k = 2
    while undecided.size:
        failed = rng.integers(0, k, size=undecided.size).astype(bool)
        if k % 2:
            odd[undecided[failed]] = True
        undecided = undecided[~failed]
        k += 1
    return odd


# A uniform V in [0, 20!) is below 20!/j! with chance exactly 1/j! (20!/j! is an
# integer): the chance that Bernoulli(1/k) succeeds for every k <= j. One draw of V
# therefore gives the first k <= 20 at which a run of Bernoulli(1/k) coins fails.
_RUN_DEPTH = 20
_RUN_RANGE = math.factorial(_RUN_DEPTH)  # < 2**63
_RUN_LIMITS = np.array(
    [_RUN_RANGE // math.factorial(j) for j in range(_RUN_DEPTH, 0, -1)], dtype=np.int64
)  # 20!/20!, 20!/19!, ..., 20!/1!: increasing
_BLOCK_COINS = 3
# Above this many entries a pass draws the fewest coins (the draws cost more than
# the passes); below, more coins per pass save passes.
_MANY = 1024


def _passes(entries, few, many):
    """Coins per entry and pass: ``few`` for up to ``_MANY`` entries, else ``many``."""
    return few if entries <= _MANY else many


def _first_failures(fraction, denominator, rng, *, depth=_RUN_DEPTH):
    """The first ``k`` at which Bernoulli(g / k) fails, ``g = fraction / denominator``.

    ``fraction`` holds integers in ``[0, denominator]``, or is an int (the number of
    draws) for ``g = 1``. The coin of step ``k`` is the AND of two independent coins,
    Bernoulli(1 / k) and Bernoulli(g) (a uniform integer below ``denominator k`` is
    below ``fraction`` iff its quotient by ``denominator`` is 0 and its remainder is
    below ``fraction``), so the first failure is the smaller of the first failures
    of the two runs: that of the 1 / k coins up to ``depth`` from one uniform below
    ``depth!`` (``_RUN_LIMITS``), that of the g coins from ``_BLOCK_COINS`` uniforms
    below ``denominator`` per pass. Entries still running after ``depth`` steps (chance
    ``1 / depth!``) go on one step at a time with fresh coins: the run's draw says
    nothing about the steps after ``depth``. With more than ``_MANY`` entries (and
    ``g < 1``) every step is one pass over the entries still running, as in Canonne
    et al.: fewer draws per entry. Every choice is a uniform integer: exact.
    """
    one = np.ndim(fraction) == 0
    if one:
        size, fraction, denominator = int(fraction), 1, 1  # g = 1
    else:
        size = fraction.size
        if size > _MANY:
            failures = np.zeros(size, dtype=np.int64)
            return _step_by_step(fraction, denominator, rng, failures, np.arange(size), 1)
    limits = _RUN_LIMITS if depth == _RUN_DEPTH else _run_limits(depth)
    run = rng.integers(0, limits[-1], size=size)  # limits[-1] = depth!
    # the first failing 1/k coin: 1 + #{k <= depth: V < depth!/k!}; depth + 1 if none
    failures = 1 + depth - np.searchsorted(limits, run, side="right")
    if one:
        undecided = np.flatnonzero(failures > depth)
    else:
        first, failures = failures, np.zeros(size, dtype=np.int64)
        undecided, k = np.arange(size), 1
        while undecided.size and k <= depth:
            coins = rng.integers(0, denominator, size=(undecided.size, _BLOCK_COINS))
            failed = coins >= fraction[undecided, np.newaxis]
            other = np.where(failed.any(axis=1), k + np.argmax(failed, axis=1), depth + 2)
            step = np.minimum(first[undecided], other)
            decided = step <= min(k + _BLOCK_COINS - 1, depth)  # first > depth: unknown
            failures[undecided[decided]] = step[decided]
            undecided = undecided[~decided]
            k += _BLOCK_COINS
    if not undecided.size:
        return failures
    # left: every step up to depth succeeded
    return _step_by_step(fraction, denominator, rng, failures, undecided, depth + 1)


def _step_by_step(fraction, denominator, rng, failures, undecided, k):
    """Go on from step ``k``: one pass per step, Bernoulli(g / k) as a uniform below
    ``denominator k`` compared with ``fraction``; writes into ``failures``."""
    while undecided.size:
        mark = fraction if np.ndim(fraction) == 0 else fraction[undecided]
        failed = rng.integers(0, denominator * k, size=undecided.size) >= mark
        failures[undecided[failed]] = k
        undecided = undecided[~failed]
        k += 1
    return failures


def _coins(entries):
    """Coins per pass such that ``entries`` runs of exp(-1) coins all end within it
    about half the time: ``ceil(log(2 entries))``."""
    return max(1, math.ceil(math.log(2 * entries)))


def _run_limits(depth):
    """``_RUN_LIMITS`` for another depth (tests run the long-run path with a small one)."""
    total = math.factorial(depth)
    return np.array([total // math.factorial(j) for j in range(depth, 0, -1)], dtype=np.int64)


def _exp_neg_one_heads(shape, rng, *, depth=_RUN_DEPTH):
    """Independent Bernoulli(exp(-1)) coins: exp(-1) = P[the first failure is odd]."""
    return (_first_failures(math.prod(shape), 1, rng, depth=depth) % 2 == 1).reshape(shape)


def _all_heads(counts, rng, *, depth=_RUN_DEPTH):
    """Bernoulli(exp(-w)) for integers ``w >= 0``: whether ``w`` exp(-1) coins all land heads.

    Each pass tosses ``b`` coins for every entry still undecided (``b`` from the
    number of entries and the largest ``w`` left, so that another pass is needed about
    half the time); an entry fails at its first tail among the coins it needs, and
    coins past that are ignored. Each entry's result is a function of its own i.i.d.
    coins, so how many are tossed per pass changes the draws, not the law.
    """
    result = np.ones(counts.size, dtype=bool)
    left = counts.astype(np.int64, copy=True)
    pending = np.flatnonzero(left > 0)
    while pending.size:
        needed = left[pending]
        coins = int(min(needed.max(), _passes(pending.size, _coins(pending.size), 1)))
        heads = _exp_neg_one_heads((pending.size, coins), rng, depth=depth)
        # the first tail of each row, or ``coins`` if none: a tail appended to every row
        run = np.argmin(np.column_stack((heads, np.zeros(pending.size, dtype=bool))), axis=1)
        failed = run < np.minimum(needed, coins)
        result[pending[failed]] = False
        left[pending] = needed - coins
        pending = pending[~failed & (needed > coins)]
    return result


def bernoulli_exp_neg(numerator, denominator, rng, *, depth=_RUN_DEPTH):
    """Exact Bernoulli(exp(-numerator / denominator)), elementwise.

    ``exp(-x) = exp(-w) exp(-f)`` with ``w`` the integer part: the result is the AND of
    ``w`` independent Bernoulli(exp(-1)) coins (:func:`_all_heads`, tossed first: they
    reject most entries of a selection) and of one Bernoulli(exp(-f)), drawn as
    "the first ``k`` with Bernoulli(f / k) = 0 is odd" (Canonne, Kamath and Steinke,
    :func:`_first_failures`) for the entries still standing. Every coin is
    independent, so the order of the two parts does not change the law.

    Parameters
    ----------
    numerator : array-like of int
        Non-negative integers.
    denominator : int
        A positive integer below ``2**56``.
    rng : numpy.random.Generator
    depth : int, default=20
        How many steps of a run one uniform draw decides (a test parameter).

    Returns
    -------
    numpy.ndarray of bool
    """
    numerator = np.asarray(numerator, dtype=np.int64)
    whole, fraction = np.divmod(numerator.reshape(-1), denominator)
    result = _all_heads(whole, rng, depth=depth)
    standing = np.flatnonzero(result & (fraction > 0))  # exp(-0) = 1: nothing to draw
    if standing.size:
        failures = _first_failures(fraction[standing], denominator, rng, depth=depth)
        result[standing] = failures % 2 == 1
    return result.reshape(numerator.shape)


def _geometric_exp_neg_one(size, rng, batch=2):
    """Number of successes of Bernoulli(exp(-1)) before the first failure.

    Draws ``batch`` coins per pass; only runs of ``batch`` heads (chance exp(-batch))
    need another pass.
    """
    count = np.zeros(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        heads = _exp_neg_one_coins(pending.size * batch, rng).reshape(pending.size, batch)
        if batch == 2:  # heads before the first tail: h0 + h0 h1 (two columns: no reductions)
            first = heads[:, 0]
            all_heads = first & heads[:, 1]
            count[pending] += first.astype(np.int64) + all_heads
        else:
            all_heads = heads.all(axis=1)
            count[pending] += np.where(all_heads, batch, np.argmin(heads, axis=1))
        pending = pending[all_heads]
    return count


def discrete_laplace(shape, scale, rng):
    """Exact discrete Laplace noise: ``P[Z = z]`` proportional to ``exp(-|z| / b)``.

    The scale ``b`` is rounded *up* to a rational ``t / s`` (``s`` a power of two,
    relative excess below ``2**-48``), which only adds privacy.

    Parameters
    ----------
    shape : int or tuple of int
    scale : float or fractions.Fraction
        ``b > 0``.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of int64
    """
    t, s = _rational_at_least(scale)
    size = int(np.prod(shape))
    parts, missing = [], size
    while missing:
        # candidates are i.i.d.; an accepted one has exactly the target law, so the
        # first `missing` accepted ones are kept (about 60% are accepted)
        n = 2 * missing + 8
        u = rng.integers(0, t, size=n)
        accept = _bernoulli_exp_neg_unit(u, t, rng)
        v = np.zeros(n, dtype=np.int64)
        v[accept] = _geometric_exp_neg_one(int(accept.sum()), rng)
        magnitude = (u + t * v) // s
        negative = rng.integers(0, 2, size=n).astype(bool)
        accept &= ~(negative & (magnitude == 0))  # so that 0 is not counted twice
        kept = np.where(negative, -magnitude, magnitude)[accept][:missing]
        parts.append(kept)
        missing -= kept.size
    return np.concatenate(parts).reshape(shape) if parts else np.zeros(shape, np.int64)
