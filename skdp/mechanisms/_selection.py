"""Private selection: exponential mechanism, permute-and-flip, report-noisy-max.

All three work exactly on integers. Scores are first rounded to a power-of-two grid
``g`` (``2**-20`` of the sensitivity unless epsilon is below 1e-6); rounding moves
each score by at most ``g / 2``, so the rounded scores have sensitivity
``sensitivity / g + 1`` grid units and every mechanism is calibrated to that.
Rounding is monotone, so monotone scores stay monotone. Selection probabilities are
then drawn with exact Bernoulli(exp(-x)) samplers on rationals, rounding epsilon
*down*, so the effective epsilon never exceeds the one charged.
"""

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from skdp.accounting import record_spend
from skdp.mechanisms._exact import (
    _rational_at_most,
    bernoulli_exp_neg,
    check_noise_scale,
    discrete_laplace,
    power_of_two_at_most,
)
from skdp.mechanisms._rng import check_random_state
from skdp.utils.validation import check_epsilon, check_sensitivity

__all__ = ["exponential", "permute_and_flip", "report_noisy_max"]

_SCORE_PRECISION = 2.0**-20
# For tiny epsilon the grid is coarsened so that one grid unit of score moves the
# log-probability by about 2**-40 at least: the rational exponents then keep 15 bits
# or more in int64. The rounding costs a fraction of about 2**-40 / epsilon of
# epsilon: more than 2**-20 only for epsilon below 2**-20 (1e-6), 1% at 1e-10.
_MIN_RATE = 2.0**-40
_MAX_SCORE_INDEX = 2.0**62
# A candidate whose selection weight is below exp(-64) relative to the best one is
# treated as exactly exp(-64) below it: max(u_r, u_max - C) has the same sensitivity
# and monotonicity as u_r, so this is a valid score, and it keeps integers small.
_MAX_EXPONENT = 64


def _grid_scores(scores, sensitivity, epsilon):
    """Scores on the integer grid and their sensitivity in grid units (a Fraction)."""
    try:
        scores = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"scores must be numeric, got {scores!r}") from exc
    if scores.ndim != 1 or scores.size == 0:
        raise ValueError(f"scores must be a non-empty 1-d array, got shape {scores.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores must be finite (no nan or inf)")
    step = max(sensitivity * _SCORE_PRECISION, sensitivity * _MIN_RATE / epsilon)
    step = power_of_two_at_most(step)
    with np.errstate(over="ignore"):
        index = np.rint(scores / step)
    if np.any(np.abs(index) >= _MAX_SCORE_INDEX):
        raise ValueError("scores are too large for their sensitivity")
    return index.astype(np.int64), _grid_sensitivity(sensitivity, step)


# The rationals below depend on public floats only and repeat from call to call (a
# selection loop spends the same epsilon each round); Fraction arithmetic costs more
# than the draws, so they are cached. The values are those computed without the cache.
@lru_cache(maxsize=256)
def _grid_sensitivity(sensitivity, step):
    return Fraction(sensitivity) / Fraction(step) + 1


@lru_cache(maxsize=256)
def _rate(grid_sensitivity, epsilon, monotonic):
    """``(max_gap, a, d)``: the cap on gaps and the exponent per grid unit rounded down."""
    factor = grid_sensitivity if monotonic else 2 * grid_sensitivity
    rate = Fraction(epsilon) / factor  # exact exponent per grid unit
    max_gap = min(math.ceil(_MAX_EXPONENT / rate), 2**62)
    return (max_gap, *_rational_at_most(rate))


@lru_cache(maxsize=256)
def _check_scale(grid_sensitivity, epsilon):
    check_noise_scale(_noisy_max_laplace_scale(grid_sensitivity, epsilon, monotonic=False))


def _weights_exponent(index, grid_sensitivity, epsilon, monotonic):
    """Integers ``n_r`` and a rational ``a / d`` with P[r] proportional to exp(-n_r a / d)."""
    max_gap, numerator, denominator = _rate(grid_sensitivity, epsilon, monotonic)
    gaps = np.minimum(index.max() - index, max_gap)
    return gaps * numerator, denominator


def _prepare(scores, sensitivity, epsilon, random_state):
    """Validate every argument before any budget is charged; grid the scores."""
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    index, grid_sensitivity = _grid_scores(scores, sensitivity, epsilon)
    _check_scale(grid_sensitivity, epsilon)
    return index, grid_sensitivity, epsilon, check_random_state(random_state)


def _exponential(index, grid_sensitivity, epsilon, monotonic, rng):
    exponent, denominator = _weights_exponent(index, grid_sensitivity, epsilon, monotonic)
    # the best candidate is accepted surely, so a pass of 4 n proposals accepts one
    # with chance >= 1 - exp(-4): one pass, nearly always
    batch = max(16, 4 * exponent.size)
    while True:  # uniform proposal, accepted with probability exp(-exponent): exact
        proposal = rng.integers(0, exponent.size, size=batch)
        accepted = np.flatnonzero(bernoulli_exp_neg(exponent[proposal], denominator, rng))
        if accepted.size:
            return int(proposal[accepted[0]])


def _permute_and_flip(index, grid_sensitivity, epsilon, monotonic, rng):
    exponent, denominator = _weights_exponent(index, grid_sensitivity, epsilon, monotonic)
    order = rng.permutation(exponent.size)
    flips = bernoulli_exp_neg(exponent[order], denominator, rng)
    return int(order[np.argmax(flips)])  # the best candidate always flips heads


def _noisy_max_laplace_scale(grid_sensitivity, epsilon, monotonic):
    # ties are broken uniformly; a tie costs one more grid unit of sensitivity
    factor = grid_sensitivity + 1 if monotonic else 2 * grid_sensitivity + 1
    return factor / Fraction(epsilon)


def _noisy_max_laplace(index, grid_sensitivity, epsilon, monotonic, rng):
    scale = _noisy_max_laplace_scale(grid_sensitivity, epsilon, monotonic)
    noisy = index + discrete_laplace(index.shape, scale, rng)
    order = rng.permutation(index.size)
    return int(order[np.argmax(noisy[order])])


_PARAMETERS_DOC = """scores : array-like of shape (n_candidates,)
        Finite quality scores; higher is better.
    sensitivity : float
        The most any one score can change between neighbouring datasets (> 0).
    epsilon : float
        Privacy budget spent (> 0).
    monotonic : bool, default=False
        True only if, between any two neighbouring datasets, all scores move in the
        same direction (e.g. counts under add/remove of one record). Halves the noise."""

_RANDOM_STATE_DOC = """random_state : None, int or numpy.random.Generator, default=None
        See :func:`check_random_state`; ``None`` for real releases."""

_RETURNS_DOC = """Returns
    -------
    int
        The index of the selected candidate."""


def exponential(scores, *, sensitivity, epsilon, monotonic=False, random_state=None):
    """Exponential mechanism: pick ``r`` with probability ∝ exp(ε u_r / (2 Δ)).

    With ``monotonic=True`` the weights are exp(ε u_r / Δ). Sampled exactly by
    rejection: propose a uniform candidate and accept it with probability
    exp(-ε (u_max - u_r) / (2 Δ)), drawn by an exact Bernoulli sampler. Privacy:
    ``epsilon``-DP (McSherry and Talwar 2007), on the grid-rounded scores described
    in the module notes. Equivalent to report-noisy-max with Gumbel noise.

    Parameters
    ----------
    {parameters}
    {random_state}

    {returns}

    Examples
    --------
    >>> from skdp.mechanisms import exponential
    >>> exponential([1.0, 50.0, 2.0], sensitivity=1.0, epsilon=1.0, random_state=0)
    1
    """
    index, grid_sensitivity, epsilon, rng = _prepare(scores, sensitivity, epsilon, random_state)
    record_spend(epsilon, mechanism="exponential")
    return _exponential(index, grid_sensitivity, epsilon, monotonic, rng)


def permute_and_flip(scores, *, sensitivity, epsilon, monotonic=False, random_state=None):
    """Permute-and-flip (McKenna and Sheldon, NeurIPS 2020).

    Visits the candidates in a uniformly random order and stops at the first ``r``
    whose coin, with heads probability exp(-ε (u_max - u_r) / (2 Δ)), lands heads
    (``Δ`` instead of ``2 Δ`` when ``monotonic``). ``epsilon``-DP, and its expected
    score is never worse than the exponential mechanism's; identical in distribution
    to report-noisy-max with exponential noise (Ding et al. 2021). skdp's default
    selection.

    Parameters
    ----------
    {parameters}
    {random_state}

    {returns}

    Examples
    --------
    >>> from skdp.mechanisms import permute_and_flip
    >>> permute_and_flip([1.0, 50.0, 2.0], sensitivity=1.0, epsilon=1.0, random_state=0)
    1
    """
    index, grid_sensitivity, epsilon, rng = _prepare(scores, sensitivity, epsilon, random_state)
    record_spend(epsilon, mechanism="permute_and_flip")
    return _permute_and_flip(index, grid_sensitivity, epsilon, monotonic, rng)


_NOISY_MAX = {
    "laplace": _noisy_max_laplace,
    "exponential": _permute_and_flip,
    "gumbel": _exponential,
}


def report_noisy_max(
    scores, *, sensitivity, epsilon, monotonic=False, noise="exponential", random_state=None
):
    """Report-noisy-max: the index of the largest noisy score.

    ``noise="laplace"`` adds discrete Laplace noise of scale ``2 Δ / ε`` (``Δ / ε``
    when ``monotonic``) on the score grid, plus one grid unit (``1 + 2**-20`` of
    ``Δ``) that pays for breaking ties uniformly; ``"exponential"`` is permute-and-flip
    and ``"gumbel"`` the exponential mechanism, sampled exactly. Each is
    ``epsilon``-DP; ``monotonic=True`` is only valid for scores that move in one
    direction together.

    Privacy of the Laplace variant: fix the noise of every other candidate; ``i``
    wins outright when its noise exceeds a threshold ``T`` and may win a tie at
    ``T``; on a neighbouring dataset ``T`` moves by at most ``2 Δ`` (``Δ`` if
    monotonic) grid units, so the win probability changes by at most the factor of
    a discrete-Laplace tail shifted by ``2 Δ + 1`` (``Δ + 1``), i.e. exp(ε).

    Parameters
    ----------
    {parameters}
    noise : {{"exponential", "laplace", "gumbel"}}, default="exponential"
        The noise added to the scores.
    {random_state}

    {returns}

    Examples
    --------
    >>> from skdp.mechanisms import report_noisy_max
    >>> report_noisy_max([3, 90, 4], sensitivity=1, epsilon=1.0, monotonic=True,
    ...                  noise="laplace", random_state=0)
    1
    """
    if noise not in _NOISY_MAX:
        raise ValueError(f"noise must be one of {sorted(_NOISY_MAX)}, got {noise!r}")
    index, grid_sensitivity, epsilon, rng = _prepare(scores, sensitivity, epsilon, random_state)
    record_spend(epsilon, mechanism="report_noisy_max")
    return _NOISY_MAX[noise](index, grid_sensitivity, epsilon, monotonic, rng)


for _function in (exponential, permute_and_flip, report_noisy_max):
    _function.__doc__ = _function.__doc__.format(
        parameters=_PARAMETERS_DOC, random_state=_RANDOM_STATE_DOC, returns=_RETURNS_DOC
    )
