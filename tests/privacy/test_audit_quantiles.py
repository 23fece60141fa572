"""Mutation tests of the private quantiles: broken variants must be flagged.

Each mutant is audited on the tight neighbours of :mod:`skdp.utils._audit_quantiles`,
the pairs on which the correct mechanisms pass in ``test_audit_mechanisms.py`` (their
twins; the cheap ones are audited again here with the mutant's settings):

* a scan without noise (the exact first crossing), and the exact quantile itself;
* AboveThreshold with half the noise it needs (scale ``sensitivity / epsilon``);
* a scan whose candidate list ends one step past the largest value (a data-dependent
  cap, as in a port of Durfee's algorithm that stops at "largest occupied bin + k"):
  the output then never exceeds the data's range, which gives the range away;
* JointExp drawn for twice the epsilon it claims.
"""

import numpy as np
import pytest

import skdp.utils._quantiles as quantiles_module
from skdp.mechanisms import above_threshold
from skdp.mechanisms._joint import joint_exponential
from skdp.utils._audit import audit
from skdp.utils._audit_quantiles import (
    JOINT_CANDIDATES,
    JOINT_LEVELS,
    JOINT_SENSITIVITY,
    JOINT_VALUES,
    SCAN_CANDIDATES,
    SCAN_LEVEL,
    SCAN_PAIR,
    THRESHOLD_PAIR,
    joint_rank_inputs,
)
from skdp.utils._joint_quantiles import joint_inputs, joint_sensitivity
from skdp.utils._quantiles import scan_quantile

EPSILON = 1.0
SETTINGS = {"n_search": 1000, "n_samples": 5000, "random_state": 0}
SMALL = {"n_search": 200, "n_samples": 1000, "random_state": 0}


def scan(values, rng):
    return scan_quantile(
        values, SCAN_LEVEL, epsilon=EPSILON, candidates=SCAN_CANDIDATES, random_state=rng
    )


def noiseless_above_threshold(queries, threshold=0, **kwargs):
    """The first query at or above the threshold, exactly."""
    crossed = np.flatnonzero(np.asarray(queries) >= threshold)
    return int(crossed[0]) if crossed.size else len(queries)


def test_the_pairs_are_what_the_audit_cases_say():
    """The audit's JointExp inputs are those of skdp.tools.quantile's joint method."""
    for values in JOINT_VALUES:
        expected = joint_inputs(values, list(JOINT_LEVELS), 4, JOINT_CANDIDATES)
        for mine, theirs in zip(joint_rank_inputs(values), expected[:4], strict=True):
            assert np.array_equal(mine, theirs)
        assert expected[4] == JOINT_SENSITIVITY == joint_sensitivity([1, 2, 1], 4)
    # the scan pair: one more value, at 1.5, above forty zeros
    first, second = SCAN_PAIR
    assert second.size == first.size + 1 and np.array_equal(second[:-1], first)


def test_a_scan_without_noise_is_flagged(monkeypatch):
    monkeypatch.setattr(quantiles_module, "above_threshold", noiseless_above_threshold)
    result = audit(scan, *SCAN_PAIR, epsilon=EPSILON, **SMALL)
    assert not result.passed, str(result)


def test_the_exact_quantile_is_flagged_and_the_scan_is_not():
    def exact(values, rng):
        return float(np.quantile(values, SCAN_LEVEL))

    result = audit(exact, *SCAN_PAIR, epsilon=EPSILON, **SMALL)
    assert not result.passed, str(result)
    result = audit(scan, *SCAN_PAIR, epsilon=EPSILON, **SMALL)
    assert result.passed, str(result)


def threshold_with_noise(fraction):
    """AboveThreshold whose noise is ``fraction`` of the scale epsilon needs."""

    def release(queries, rng):
        return above_threshold(queries, 0, sensitivity=fraction, epsilon=EPSILON, random_state=rng)

    return release


@pytest.mark.slow
def test_above_threshold_with_half_the_noise_is_flagged():
    """The correct twin is the "above_threshold" case of test_audit_mechanisms.py: same
    pair, same settings. Slow (about 10 s): the fast quarter-noise mutant of
    tests/mechanisms/test_threshold.py flags the same mechanism by default."""
    result = audit(threshold_with_noise(0.5), *THRESHOLD_PAIR, epsilon=EPSILON, **SETTINGS)
    assert not result.passed, str(result)


def capped_scan(values, rng):
    """The scan over the candidates up to one step past the largest value (a leak)."""
    last = np.searchsorted(SCAN_CANDIDATES, np.max(values), side="right")
    candidates = SCAN_CANDIDATES[: last + 1]
    return scan_quantile(
        values, SCAN_LEVEL, epsilon=EPSILON, candidates=candidates, random_state=rng
    )


def test_a_data_dependent_scan_cap_is_flagged():
    result = audit(capped_scan, *SCAN_PAIR, epsilon=EPSILON, **SMALL)
    assert not result.passed, str(result)


def joint_for(factor):
    """JointExp of the audit case drawn for ``factor`` times the epsilon it claims."""

    def release(inputs, rng):
        ranks, upper, targets, total = inputs
        out = joint_exponential(
            ranks, targets, total=total, sensitivity=JOINT_SENSITIVITY,
            epsilon=factor * EPSILON, upper_ranks=upper, strict=True, random_state=rng,
        )  # fmt: skip
        return float(out[0] * JOINT_CANDIDATES.size + out[1])

    return release


def test_joint_drawn_for_twice_epsilon_is_flagged():
    """The correct twin is the "joint_exponential" case of test_audit_mechanisms.py."""
    inputs = [joint_rank_inputs(values) for values in JOINT_VALUES]
    result = audit(joint_for(2), *inputs, epsilon=EPSILON, **SETTINGS)
    assert not result.passed, str(result)
