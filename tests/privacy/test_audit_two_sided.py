"""Empirical privacy audit of the two-sided mean (skdp.utils._two_sided).

Two groups, one feature in the public box ``[-1, 1]``: three records at 0 in group 0;
the extra record, at the upper bound ``1``, in group 1 (alone there), and removed in
the neighbour, where group 1 is empty. It moves group 1's distance sums ``(A, B)`` by
``(1, 0)``: the whole L1 sensitivity ``d = 1``. The audit sees group 1's mean.

Mutants that draw the noise for 10x epsilon, or leave an empty group's sums unnoised
(its mean would then be the midpoint exactly), must be flagged.
"""

import numpy as np
import pytest

import skdp.utils._two_sided as module
from skdp.utils._audit import audit
from tests._mutants import ten_times

EPSILON = 1.0
X = np.array([[0.0], [0.0], [0.0], [1.0]])
GROUPS = np.array([0, 0, 0, 1])
FIRST, SECOND = (X, GROUPS), (X[:-1], GROUPS[:-1])


def release(data, rng, epsilon=EPSILON):
    x, groups = data
    out = module.two_sided_mean(
        x, -1.0, 1.0, groups=groups, n_groups=2, epsilon=epsilon, random_state=rng
    )
    return out[1, 0]


def run_audit(n_search, n_samples, random_state=0):
    return audit(
        release, FIRST, SECOND, epsilon=EPSILON, n_search=n_search, n_samples=n_samples,
        random_state=random_state,
    )  # fmt: skip


def test_the_extra_record_moves_its_group_to_the_bound():
    """The premise of the audit, at negligible noise: group 1's mean is 1 with the
    record, the midpoint 0 of pure noise without it."""
    rng = np.random.default_rng(0)
    assert release(FIRST, rng, 1e9) == pytest.approx(1.0)
    assert abs(release(SECOND, rng, 1e9)) <= 1.0


def test_two_sided_mean_passes_the_audit():
    result = run_audit(n_search=100, n_samples=400)
    assert result.passed, str(result)


@pytest.mark.slow
def test_two_sided_mean_passes_a_large_audit():
    result = run_audit(n_search=2000, n_samples=20000, random_state=1)
    assert result.passed, str(result)


def too_little_noise(monkeypatch):
    ten_times(monkeypatch, module, "laplace")


def empty_group_not_noised(monkeypatch):
    real = module.laplace

    def laplace(value, **kwargs):
        sums = np.asarray(value)
        empty = sums.sum(axis=0, keepdims=True) == 0  # A + B = n = 0
        return np.where(empty, 0.0, real(sums, **kwargs))

    monkeypatch.setattr(module, "laplace", laplace)


@pytest.mark.parametrize("mutant", [too_little_noise, empty_group_not_noised])
def test_audit_flags_the_mutant(monkeypatch, mutant):
    mutant(monkeypatch)
    result = run_audit(n_search=40, n_samples=200)
    assert not result.passed, str(result)
