"""An empirical privacy auditor: a statistical lower bound on a mechanism's epsilon.

Given a randomised function and two neighbouring inputs, the auditor

1. runs it ``n_search`` times on each input and searches a family of output events
   (thresholds ``s <= t`` / ``s > t`` at the pooled quantiles of a scalar statistic
   ``s`` of the output, and ``s == v`` for its frequent values) for the one whose
   probability differs most between the inputs, judged by the Clopper-Pearson bound
   itself so that rare events are not favoured by chance;
2. runs it ``n_samples`` fresh times on each input, counts that one event, and
   reports ``log(p_first_lower / p_second_upper)`` with one-sided Clopper-Pearson
   bounds at ``(1 - confidence) / 2`` each.

Because the event is chosen on separate runs, the reported value is a valid lower
bound on the true epsilon with probability at least ``confidence``: a correct
``epsilon``-DP mechanism fails (``epsilon_lower_bound > epsilon``) with probability at
most ``1 - confidence``. This follows StatDP (Ding et al., CCS 2018) and DP-Sniper
(Bichsel et al., S&P 2021) in spirit, with a fixed, simple event family.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta

from skdp.mechanisms import check_random_state

__all__ = ["AuditCase", "AuditResult", "audit", "mechanism_audit_cases"]


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit` found.

    Attributes
    ----------
    epsilon : float
        The epsilon claimed for the mechanism.
    epsilon_lower_bound : float
        A lower bound on the true epsilon, valid with probability ``confidence``.
    event : str
        The output event used, e.g. ``"s > 1.25"``, and which input it favours.
    counts : tuple of int
        How often the event occurred on the favoured and the other input.
    n_samples : int
        Runs per input in the detection phase.
    confidence : float
    """

    epsilon: float
    epsilon_lower_bound: float
    event: str
    counts: tuple
    n_samples: int
    confidence: float

    @property
    def passed(self):
        """True unless the data are strong evidence that the claim is violated."""
        return self.epsilon_lower_bound <= self.epsilon

    def __str__(self):
        verdict = "ok" if self.passed else "VIOLATION"
        return (
            f"claimed epsilon={self.epsilon:g}, lower bound={self.epsilon_lower_bound:.3f} "
            f"({verdict}; event {self.event}, counts {self.counts} of {self.n_samples})"
        )


def _clopper_pearson(count, n, alpha):
    """One-sided (lower, upper) Clopper-Pearson bounds, each at level ``alpha``."""
    lower = 0.0 if count == 0 else float(beta.ppf(alpha, count, n - count + 1))
    upper = 1.0 if count == n else float(beta.ppf(1 - alpha, count + 1, n - count))
    return lower, upper


def _log_ratio_bound(count_high, count_low, n, alpha):
    high_lower, _ = _clopper_pearson(count_high, n, alpha)
    _, low_upper = _clopper_pearson(count_low, n, alpha)
    return max(0.0, math.log(high_lower / low_upper)) if high_lower > 0 else 0.0


def _run(mechanism, data, n, statistic, rng):
    values = np.empty(n)
    for i in range(n):
        values[i] = statistic(mechanism(data, rng))
    return values


def _default_statistic(output):
    output = np.asarray(output, dtype=float)
    if output.size != 1:
        raise ValueError("the output is not a scalar: pass statistic= to reduce it to one")
    return float(output.reshape(()))


def _candidate_events(pooled, n_thresholds, n_values):
    thresholds = np.unique(np.quantile(pooled, np.linspace(0, 1, n_thresholds + 2)[1:-1]))
    events = [(f"s <= {t:.6g}", lambda s, t=t: s <= t) for t in thresholds]
    events += [(f"s > {t:.6g}", lambda s, t=t: s > t) for t in thresholds]
    values, frequency = np.unique(pooled, return_counts=True)
    for v in values[np.argsort(frequency)[::-1][:n_values]]:
        if frequency.max() > 1:  # only for outputs that repeat (discrete)
            events.append((f"s == {v:.6g}", lambda s, v=v: s == v))
    return events


def audit(
    mechanism,
    first,
    second,
    *,
    epsilon,
    statistic=None,
    n_search=2000,
    n_samples=10000,
    confidence=0.999,
    n_thresholds=49,
    n_values=20,
    random_state=None,
):
    """Empirically audit an ``epsilon``-DP claim on one pair of neighbouring inputs.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng) -> output``; must draw all its randomness from the
        ``numpy.random.Generator`` ``rng`` (e.g. pass ``random_state=rng``). To audit
        an estimator, fit it inside and return a released statistic.
    first, second : object
        Neighbouring inputs (for skdp: differing by adding or removing one record).
    epsilon : float
        The claimed epsilon.
    statistic : callable, optional
        Reduces an output to a float; required when outputs are not scalars.
    n_search, n_samples : int, default=2000, 10000
        Runs per input for the event search and for the detection.
    confidence : float, default=0.999
        Probability that the reported bound is valid.
    n_thresholds, n_values : int, default=49, 20
        Size of the event family: threshold events at that many quantiles, and
        equality events for that many of the most frequent values.
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> from skdp.mechanisms import laplace
    >>> from skdp.utils._audit import audit
    >>> def release(count, rng):
    ...     return laplace(count, sensitivity=1, epsilon=1.0, random_state=rng)
    >>> result = audit(release, 0.0, 1.0, epsilon=1.0, n_search=500, n_samples=2000,
    ...                random_state=0)
    >>> result.passed
    True
    """
    statistic = _default_statistic if statistic is None else statistic
    rng = check_random_state(random_state)
    alpha = (1 - confidence) / 2
    inputs = {"first": first, "second": second}
    search = {k: _run(mechanism, d, n_search, statistic, rng) for k, d in inputs.items()}
    best = (-math.inf, None)
    for name, indicator in _candidate_events(
        np.concatenate(list(search.values())), n_thresholds, n_values
    ):
        hits = {k: int(indicator(v).sum()) for k, v in search.items()}
        for high, low in (("first", "second"), ("second", "first")):
            bound = _log_ratio_bound(hits[high], hits[low], n_search, alpha)
            if bound > best[0]:
                best = (bound, (name, indicator, high, low))
    name, indicator, high, low = best[1]
    detect = {
        k: int(indicator(_run(mechanism, inputs[k], n_samples, statistic, rng)).sum())
        for k in (high, low)
    }
    return AuditResult(
        epsilon=float(epsilon),
        epsilon_lower_bound=_log_ratio_bound(detect[high], detect[low], n_samples, alpha),
        event=f"{name} (more likely on {high})",
        counts=(detect[high], detect[low]),
        n_samples=n_samples,
        confidence=confidence,
    )


@dataclass(frozen=True)
class AuditCase:
    """A mechanism, a pair of neighbouring inputs and the epsilon it claims.

    ``runs`` scales the ``n_search`` and ``n_samples`` given to :meth:`run` (at least
    100 each), for mechanisms whose runs are slow.
    """

    name: str
    mechanism: object
    first: object
    second: object
    epsilon: float
    statistic: object = None
    runs: float = 1.0

    def run(self, **kwargs):
        """Audit this case; keyword arguments go to :func:`audit`."""
        for key in ("n_search", "n_samples"):
            if key in kwargs:
                kwargs[key] = max(100, round(kwargs[key] * self.runs))
        return audit(
            self.mechanism,
            self.first,
            self.second,
            epsilon=self.epsilon,
            statistic=self.statistic,
            **kwargs,
        )


def _selection_case(name, select, first, second, epsilon, **options):
    def mechanism(scores, rng):
        return select(scores, sensitivity=1.0, epsilon=epsilon, random_state=rng, **options)

    return AuditCase(name, mechanism, first, second, epsilon)


def mechanism_audit_cases(epsilon=1.0):
    """Audit cases for every mechanism of :mod:`skdp.mechanisms`, on tight neighbours.

    Each pair is chosen where the mechanism's privacy loss is (close to) its worst:
    counts one apart; vectors one apart in L2, projected on their difference; one
    score up by the sensitivity while the 49 others go down (non-monotone); one score
    up among 50 equal ones (monotone).

    Returns
    -------
    list of AuditCase
    """
    from skdp.mechanisms import (
        exponential,
        geometric,
        l2_laplace,
        l2_laplace_noise,
        laplace,
        permute_and_flip,
        report_noisy_max,
    )
    from skdp.utils._audit_quantiles import quantile_audit_cases

    # the non-monotone worst case: one score up, all others down (many candidates)
    swap = (np.r_[0.0, np.ones(49)], np.r_[1.0, np.zeros(49)])
    flat, one_up = np.zeros(50), np.r_[1.0, np.zeros(49)]
    unit = np.array([0.6, 0.8])  # neighbours one apart in L2; the loss peaks along it
    cases = [
        AuditCase(
            "laplace (scalar)",
            lambda v, rng: laplace(v, sensitivity=1.0, epsilon=epsilon, random_state=rng),
            0.0,
            1.0,
            epsilon,
        ),
        AuditCase(
            "laplace (vector, L1)",
            lambda v, rng: laplace(v, sensitivity=1.0, epsilon=epsilon, random_state=rng),
            np.zeros(3),
            np.r_[1.0, 0.0, 0.0],
            epsilon,
            statistic=lambda out: out[0],
        ),
        AuditCase(
            "l2_laplace (2-d vector, L2)",
            lambda v, rng: l2_laplace(v, sensitivity=1.0, epsilon=epsilon, random_state=rng),
            np.zeros(2),
            unit,
            epsilon,
            statistic=lambda out: out @ unit,
        ),
        AuditCase(
            "l2_laplace_noise (added to a 2-d vector, L2)",
            lambda v, rng: (
                v + l2_laplace_noise(v.size, sensitivity=1.0, epsilon=epsilon, random_state=rng)
            ),
            np.zeros(2),
            unit,
            epsilon,
            statistic=lambda out: out @ unit,
        ),
        AuditCase(
            "geometric (count)",
            lambda v, rng: geometric(v, epsilon=epsilon, random_state=rng),
            0,
            1,
            epsilon,
        ),
        AuditCase(
            "geometric (sensitivity 3)",
            lambda v, rng: geometric(v, sensitivity=3, epsilon=epsilon, random_state=rng),
            0,
            3,
            epsilon,
        ),
        _selection_case("exponential", exponential, *swap, epsilon),
        _selection_case(
            "exponential (monotone)", exponential, flat, one_up, epsilon, monotonic=True
        ),
        _selection_case("permute_and_flip", permute_and_flip, *swap, epsilon),
        _selection_case(
            "permute_and_flip (monotone)", permute_and_flip, flat, one_up, epsilon, monotonic=True
        ),
        _selection_case(
            "report_noisy_max laplace",
            report_noisy_max,
            [0.0, 2.0],
            [-1.0, 3.0],
            epsilon,
            noise="laplace",
        ),
        _selection_case(
            "report_noisy_max laplace (monotone)",
            report_noisy_max,
            flat,
            one_up,
            epsilon,
            noise="laplace",
            monotonic=True,
        ),
        _selection_case(
            "report_noisy_max gumbel", report_noisy_max, *swap, epsilon, noise="gumbel"
        ),
        _selection_case(
            "report_noisy_max exponential", report_noisy_max, *swap, epsilon, noise="exponential"
        ),
    ]
    return cases + quantile_audit_cases(epsilon)
