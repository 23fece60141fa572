"""The random number of runs of private selection: a truncated negative binomial draw."""

import math
from numbers import Real

from skdp.mechanisms._rng import check_random_state

__all__ = ["truncated_negative_binomial"]


def truncated_negative_binomial(eta, gamma, *, random_state=None):
    """Draw the number of runs ``K >= 1`` of a private selection (reads no data).

    Papernot and Steinke's (ICLR 2022) truncated negative binomial law ``D(eta,
    gamma)`` on ``{1, 2, ...}``::

        P[K = k] = (1 - gamma)^k / (gamma^-eta - 1) * prod_{l < k} (l + eta) / (l + 1)

    ``eta = 1`` is the geometric law of Liu and Talwar's random stopping (STOC 2019),
    ``E[K] = 1 / gamma``; ``eta = 0`` is the logarithmic law; any other ``eta > 0`` is
    a negative binomial conditioned on ``K >= 1``.

    Privacy: the draw depends on ``eta``, ``gamma`` and the generator only, never on
    the data, so it spends nothing and records nothing in the ledger. The selection it
    drives is ``(2 + eta) epsilon``-DP when every run is ``epsilon``-DP (Papernot and
    Steinke, Corollary 3), provided ``K`` itself is never released. Because ``K`` is
    data-independent, numpy's floating-point samplers are safe here (no input value
    can be read back from a rounding pattern).

    Parameters
    ----------
    eta : float
        The shape, ``>= 0`` (finite).
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
    if not (isinstance(eta, Real) and math.isfinite(eta) and eta >= 0):
        raise ValueError(f"eta must be a finite number >= 0, got {eta!r}")
    if not (isinstance(gamma, Real) and 0 < gamma < 1):
        raise ValueError(f"gamma must be in (0, 1), got {gamma!r}")
    rng = check_random_state(random_state)
    if eta == 1:
        return int(rng.geometric(gamma))
    if eta == 0:
        return int(rng.logseries(1.0 - gamma))
    while True:  # failures before eta successes, conditioned on K >= 1
        k = int(rng.negative_binomial(eta, gamma))
        if k >= 1:
            return k
