"""The random number of runs of private selection: a truncated negative binomial draw."""

import math
from numbers import Real

import numpy as np

from skdp.mechanisms._rng import check_random_state

__all__ = ["truncated_negative_binomial"]

_FIRST_BLOCK, _LAST_BLOCK = 16, 2**20  # cdf walk: blocks double up to 2^20 probabilities


def truncated_negative_binomial(eta, gamma, *, random_state=None):
    """Draw the number of runs ``K >= 1`` of a private selection (reads no data).

    Papernot and Steinke's (ICLR 2022) truncated negative binomial law ``D(eta,
    gamma)`` on ``{1, 2, ...}``, for a shape ``eta > -1``::

        P[K = k] = (1 - gamma)^k / (gamma^-eta - 1) * prod_{l=0}^{k-1} (l + eta) / (l + 1)

    ``eta = 1`` is the geometric law of Liu and Talwar's random stopping (STOC 2019),
    ``E[K] = 1 / gamma``; ``eta = 0`` is its limit, the logarithmic law
    ``(1 - gamma)^k / (k ln(1 / gamma))``; any other ``eta > 0`` is a negative
    binomial conditioned on ``K >= 1``. For ``-1 < eta < 0`` both the factor ``l = 0``
    of the product (``eta``) and ``gamma^-eta - 1`` are negative, so every term is
    positive; the generating function is ``((1 - (1 - gamma) x)^-eta - 1) / (gamma^-eta
    - 1)`` (Newton's binomial series), so the terms sum to 1. Such laws put much mass on
    ``K = 1`` and have a heavy tail (cut off near ``1 / gamma``): at ``eta = -0.5`` and
    ``E[K] = 24``, ``P[K = 1] = 0.51`` and the 99th percentile is about 480. They are
    drawn by walking the cdf, in doubling blocks of probabilities computed from the ratio
    ``P[K = k + 1] / P[K = k] = (1 - gamma)(k + eta) / (k + 1)``.

    Privacy: the draw depends on ``eta``, ``gamma`` and the generator only, never on
    the data, so it spends nothing and records nothing in the ledger. The selection it
    drives is ``(2 + eta) epsilon``-DP when every run is ``epsilon``-DP (Papernot and
    Steinke, Corollary 3, for every ``eta > -1``), provided ``K`` itself is never
    released. Because ``K`` is data-independent, numpy's floating-point samplers are
    safe here (no input value can be read back from a rounding pattern).

    Parameters
    ----------
    eta : float
        The shape, ``> -1`` (finite).
    gamma : float
        The stop probability, in ``(0, 1)``.
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`check_random_state`; ``None`` for real releases.

    Returns
    -------
    int
        ``K >= 1``.

    Examples
    --------
    >>> from skdp.mechanisms import truncated_negative_binomial
    >>> k = truncated_negative_binomial(1.0, 0.25, random_state=0)
    >>> isinstance(k, int) and k >= 1
    True
    """
    if not (isinstance(eta, Real) and math.isfinite(eta) and eta > -1):
        raise ValueError(f"eta must be a finite number > -1, got {eta!r}")
    if not (isinstance(gamma, Real) and 0 < gamma < 1):
        raise ValueError(f"gamma must be in (0, 1), got {gamma!r}")
    rng = check_random_state(random_state)
    if eta == 1:
        return int(rng.geometric(gamma))
    if eta == 0:
        return int(rng.logseries(1.0 - gamma))
    if eta < 0:
        return _negative_shape(float(eta), float(gamma), rng)
    while True:  # failures before eta successes, conditioned on K >= 1
        k = int(rng.negative_binomial(eta, gamma))
        if k >= 1:
            return k


def _negative_shape(eta, gamma, rng):
    """Inverse-cdf draw for ``-1 < eta < 0`` (no numpy sampler takes a negative shape)."""
    u = rng.random()
    log_first = math.log1p(-gamma) + math.log(eta / (gamma**-eta - 1.0))  # P[K = 1]
    if u < math.exp(log_first):  # the most likely draw, without the block arithmetic
        return 1
    start, below, size = 1, 0.0, _FIRST_BLOCK
    while True:
        k = np.arange(start, start + size, dtype=float)
        steps = math.log1p(-gamma) + np.log(k + eta) - np.log(k + 1.0)  # P[k + 1] / P[k]
        log_p = log_first + np.concatenate(([0.0], np.cumsum(steps[:-1])))
        p = np.exp(log_p)
        cdf = below + np.cumsum(p)
        hit = int(np.searchsorted(cdf, u, side="right"))
        if hit < size:
            return int(k[hit])
        if p[-1] == 0.0 or cdf[-1] == below:  # the rest of the tail is below rounding
            return int(k[-1])
        start, below, log_first = start + size, float(cdf[-1]), float(log_p[-1] + steps[-1])
        size = min(2 * size, _LAST_BLOCK)
