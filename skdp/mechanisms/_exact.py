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
    flat = numerator.reshape(-1)
    first_failure = np.zeros(flat.size, dtype=np.int64)
    undecided = np.arange(flat.size)
    k = 1
    while undecided.size:
        failed = rng.integers(0, denominator * k, size=undecided.size) >= flat[undecided]
        first_failure[undecided[failed]] = k
        undecided = undecided[~failed]
        k += 1
    return (first_failure % 2 == 1).reshape(numerator.shape)


def bernoulli_exp_neg(numerator, denominator, rng):
    """Exact Bernoulli(exp(-numerator / denominator)), elementwise.

    Parameters
    ----------
    numerator : array-like of int
        Non-negative integers.
    denominator : int
        A positive integer below ``2**56``.
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of bool
    """
    numerator = np.asarray(numerator, dtype=np.int64)
    whole, fraction = np.divmod(numerator, denominator)
    result = _bernoulli_exp_neg_unit(fraction, denominator, rng).reshape(-1)
    whole = whole.reshape(-1)
    # exp(-whole) is the chance that `whole` independent Bernoulli(exp(-1)) all succeed
    done = 0
    pending = np.flatnonzero(result & (whole > done))
    while pending.size:
        result[pending] = _bernoulli_exp_neg_unit(np.ones(pending.size), 1, rng)
        done += 1
        pending = pending[result[pending] & (whole[pending] > done)]
    return result.reshape(numerator.shape)


def _geometric_exp_neg_one(size, rng, batch=2):
    """Number of successes of Bernoulli(exp(-1)) before the first failure.

    Draws ``batch`` coins per pass; only runs of ``batch`` heads (chance exp(-batch))
    need another pass.
    """
    count = np.zeros(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        heads = _bernoulli_exp_neg_unit(np.ones((pending.size, batch)), 1, rng)
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
