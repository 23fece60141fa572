"""The random number of runs of a private search and the pure-DP factor it costs.

Papernot and Steinke (ICLR 2022) draw the number of runs ``K`` from a truncated
negative binomial law ``D(eta, gamma)`` on ``{1, 2, ...}``:

    P[K = k] = (1 - gamma)^k / (gamma^-eta - 1) * prod_{l < k} (l + eta) / (l + 1),

with ``eta = 1`` the geometric law of Liu and Talwar (STOC 2019) and ``eta = 0`` the
logarithmic law. Their Corollary 3: if every run is ``epsilon``-DP, releasing the best
of ``K`` runs is ``(2 + eta) epsilon``-DP, for every ``gamma`` and every grid size.
The law is fixed before the data are seen; ``K`` itself is never released.

Shapes ``-1 < eta < 0`` (factor below 2) are accepted: the theorem is stated for
``eta > -1``, and the pure-DP constant is re-derived here. Break ties with a
continuous key so that the run's output ``o`` has a continuous cdf ``F(o) = P[Q(D) <
o]``; the winner of ``K`` runs then has density ``q(o) f'(F(o))``, with ``q`` the
run's density and ``f(x) = E[x^K] = ((1 - (1 - gamma) x)^-eta - 1) / (gamma^-eta -
1)``, so ``f'(x) = c (1 - (1 - gamma) x)^-(1 + eta)`` with ``c > 0`` for every ``eta >
-1``. For a neighbour ``D'``, ``q'(o) <= e^eps q(o)``, and ``1 - (1 - gamma) F'(o) =
P[Q(D') >= o] + gamma P[Q(D') < o] >= e^-eps (1 - (1 - gamma) F(o))``, so
``f'(F'(o)) <= e^((1 + eta) eps) f'(F(o))`` (the exponent ``1 + eta > 0``): the ratio
of the winner's densities is at most ``e^((2 + eta) eps)``. As ``eta -> -1`` the factor
tends to 1 because ``K`` tends to the constant 1: the price is coverage (at ``eta =
-0.5`` half of the searches run a single candidate).
"""

import math

import numpy as np
from scipy.optimize import brentq

from skdp.mechanisms import truncated_negative_binomial

__all__ = ["RunLaw", "run_law"]

_NAMES = {"geometric": 1.0, "logarithmic": 0.0}


class RunLaw:
    """The law of the number of runs: its shape ``eta``, mean ``mu`` and stop ``gamma``."""

    def __init__(self, name, eta, mean):
        self.name, self.eta, self.mean = name, float(eta), float(mean)
        self.gamma = _stop_probability(self.eta, self.mean)

    @property
    def factor(self):
        """The pure-DP factor ``2 + eta`` (Papernot and Steinke, Corollary 3)."""
        return 2.0 + self.eta

    def expected_runs(self):
        """``E[K]`` for the solved ``gamma`` (equal to ``mean`` up to the root finder)."""
        return _mean(self.eta, self.gamma)

    def sample(self, rng):
        """Draw ``K >= 1`` (data-independent, through :mod:`skdp.mechanisms`)."""
        return truncated_negative_binomial(self.eta, self.gamma, random_state=rng)

    def as_dict(self):
        """The public description kept in ``repetitions_``."""
        return {"law": self.name, "eta": self.eta, "mean": self.mean, "gamma": self.gamma}


def _mean(eta, gamma):
    if eta == 0.0:
        return (1.0 - gamma) / (gamma * math.log(1.0 / gamma))
    return eta * (1.0 - gamma) / (gamma * (1.0 - gamma**eta))


def _stop_probability(eta, mean):
    """The ``gamma`` in ``(0, 1)`` with ``E[K] = mean`` (``E[K]`` decreases in gamma)."""
    if eta == 1.0:
        return 1.0 / mean
    low, high = 1e-300, 1.0 - 1e-12
    if _mean(eta, high) >= mean:
        return high
    if _mean(eta, low) < mean:  # eta near -1: K is almost always 1, whatever gamma
        raise ValueError(
            f"the negative binomial shape eta={eta:g} cannot reach {mean:g} expected runs "
            "(its mean stays near 1 for every stop probability): choose a larger eta"
        )
    return float(brentq(lambda g: _mean(eta, g) - mean, low, high, xtol=1e-300, rtol=1e-14))


def run_law(repetitions, mean):
    """Parse ``repetitions`` into a :class:`RunLaw` of the given mean.

    ``"geometric"`` (eta 1, factor 3), ``"logarithmic"`` (eta 0, factor 2) or
    ``("negative_binomial", eta)`` with ``eta > -1`` (factor ``2 + eta``). A Poisson
    law has no pure-DP statement and is refused.
    """
    if isinstance(repetitions, str) and repetitions in _NAMES:
        name, eta = repetitions, _NAMES[repetitions]
    elif (
        isinstance(repetitions, tuple)
        and len(repetitions) == 2
        and repetitions[0] == "negative_binomial"
    ):
        name, eta = "negative_binomial", float(repetitions[1])
        if not (math.isfinite(eta) and eta > -1):
            raise ValueError(f"the negative binomial shape eta must be > -1, got {eta}")
    else:
        poisson = "poisson" in str(repetitions).lower()
        raise ValueError(
            "repetitions must be 'geometric', 'logarithmic' or ('negative_binomial', eta) "
            f"with eta > -1, got {repetitions!r}"
            + (
                "; a Poisson number of runs has no pure-DP guarantee (Papernot and "
                "Steinke's Theorem 6 is an RDP statement)"
                if poisson
                else ""
            )
        )
    mean = float(mean)
    if not (np.isfinite(mean) and mean > 1):
        raise ValueError(f"the expected number of runs n_iter must be > 1, got {mean}")
    return RunLaw(name, eta, mean)
