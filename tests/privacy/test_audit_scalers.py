"""Empirical privacy audits of the private scalers on tiny neighbouring datasets.

MinMaxScaler (``bounds=None``, so the whole fit is audited: the noisy count, the
private box and the JointExp quantiles): four records at ``-50, -25, 25, 50`` and the
fifth, at 95, removed in the neighbour. With five records the box is the public
fallback ``[-100, 100]`` on both sides (tier 3: ``n epsilon`` is far too small), so
``data_max_`` is JointExp's 99% output among the public candidates, which the extra
record pulls above 87.5. The public grid is cut to 17 candidates (a public constant,
monkeypatched) so that a fit takes a few milliseconds, and the rule that coarsens it
on few records (``STRAY_WEIGHT``, monkeypatched) keeps all 17. A mutant that draws
the quantiles for 10x the epsilon it records must be flagged. A second audit leaves
the rule on: the grid then follows the noisy count (2 candidates below about 9, 17
from about 18).

StandardScaler (declared box ``[-1, 1]``, so the release is the count, the centred
sums and the centred squares of :mod:`skdp.utils._centred_sums`): three records at -1
and the fourth at 1, removed in the neighbour. It moves the count by 1, the sum by 1
(``h = 1``) and the centred square ``t^2 - 1/2`` by 1/2: each statistic by its whole
sensitivity (``d = 1``). The audited statistics are ``mean_`` (noisy sum over noisy
count) and ``var_``. A mutant whose count, sums and squares are noised for 10x the
epsilon they record must be flagged. (The private box of ``bounds=None`` is the one
the MinMaxScaler audit covers.)

RobustScaler: see the comment above its audit, at the end.
"""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import skdp.preprocessing._base as scaler_base
import skdp.preprocessing._minmax as minmax_module
import skdp.preprocessing._robust as robust_module
import skdp.utils._centred_sums as sums_module
from skdp.preprocessing import MinMaxScaler, RobustScaler, StandardScaler
from skdp.utils._audit import audit
from skdp.utils._joint_quantiles import joint_quantiles

EPSILON = 1.0
MINMAX_X = np.array([[-50.0], [-25.0], [25.0], [50.0], [95.0]])
MINMAX_FIRST, MINMAX_SECOND = MINMAX_X, MINMAX_X[:-1]


@pytest.fixture(autouse=True)
def _small_and_quiet(monkeypatch):
    """One thread, a 17-point grid, and no fallback-bounds warning per fit."""
    monkeypatch.setattr(minmax_module, "N_CANDIDATES", 17)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def minmax_release(data, rng, epsilon=EPSILON):
    return MinMaxScaler(epsilon=epsilon, random_state=rng).fit(data).data_max_[0]


@pytest.fixture
def full_grid(monkeypatch):
    """The 17 candidates whatever the noisy count."""
    monkeypatch.setattr(scaler_base, "STRAY_WEIGHT", 1e300)


def audit_minmax(n_search, n_samples, random_state=0):
    return audit(
        minmax_release, MINMAX_FIRST, MINMAX_SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_extra_record_moves_the_high_quantile():
    """The premise of the audit: the fallback box on both sides, and there, at
    negligible noise, a 99% quantile of 100 (above 95), then 50."""
    rng = np.random.default_rng(0)
    for data in (MINMAX_FIRST, MINMAX_SECOND):
        assert MinMaxScaler(random_state=rng).fit(data).bounds_tier_ == 3
    levels = [Fraction(1, 100), Fraction(99, 100)]
    released = [
        joint_quantiles(data[:, 0], levels, (-100.0, 100.0), 17, 1e6, rng)
        for data in (MINMAX_FIRST, MINMAX_SECOND)
    ]
    assert [high for _, high in released] == [100.0, 50.0]


def test_minmax_passes_audit(full_grid):
    result = audit_minmax(n_search=40, n_samples=200)
    assert result.passed, str(result)


def test_minmax_passes_audit_with_a_grid_from_the_noisy_count():
    rng = np.random.default_rng(0)
    sizes = {MinMaxScaler(random_state=rng).fit(MINMAX_FIRST).n_candidates_ for _ in range(60)}
    assert {2, 17} <= sizes  # the premise: the rule is on and follows the count
    result = audit_minmax(n_search=40, n_samples=200)
    assert result.passed, str(result)


@pytest.mark.slow
def test_minmax_passes_a_large_audit(full_grid):
    result = audit_minmax(n_search=500, n_samples=3000, random_state=1)
    assert result.passed, str(result)


def test_audit_flags_quantiles_drawn_for_ten_times_epsilon(monkeypatch, full_grid):
    real = scaler_base.joint_draws

    def too_little_noise(below, at_or_below, n, fractions, candidates, epsilons, rng):
        return real(below, at_or_below, n, fractions, candidates, 10 * np.array(epsilons), rng)

    monkeypatch.setattr(scaler_base, "joint_draws", too_little_noise)
    result = audit_minmax(n_search=40, n_samples=200)
    assert not result.passed, str(result)


STANDARD_X = np.array([[-1.0], [-1.0], [-1.0], [1.0]])
STANDARD_FIRST, STANDARD_SECOND = STANDARD_X, STANDARD_X[:-1]
STATISTICS = {"mean": lambda model: model.mean_[0], "var": lambda model: model.var_[0]}


def standard_release(statistic, epsilon=EPSILON):
    def release(data, rng):
        scaler = StandardScaler(epsilon=epsilon, bounds=(-1.0, 1.0), random_state=rng)
        return STATISTICS[statistic](scaler.fit(data))

    return release


def audit_standard(statistic, n_search, n_samples, random_state=0):
    return audit(
        standard_release(statistic), STANDARD_FIRST, STANDARD_SECOND, epsilon=EPSILON,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_extra_record_moves_mean_and_variance():
    """The premise, at negligible noise: mean -0.5 and variance 0.75, then -1 and the
    floor (all three records at the same value)."""
    first, second = (
        StandardScaler(epsilon=1e9, bounds=(-1.0, 1.0), random_state=0).fit(data)
        for data in (STANDARD_FIRST, STANDARD_SECOND)
    )
    assert first.mean_[0] == pytest.approx(-0.5) and second.mean_[0] == pytest.approx(-1.0)
    assert first.var_[0] == pytest.approx(0.75) and second.var_[0] < 1e-3


@pytest.mark.parametrize("statistic", STATISTICS)
def test_standard_passes_audit(statistic):
    result = audit_standard(statistic, n_search=40, n_samples=200)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("statistic", STATISTICS)
def test_standard_passes_a_large_audit(statistic):
    result = audit_standard(statistic, n_search=1000, n_samples=5000, random_state=1)
    assert result.passed, str(result)


@pytest.mark.parametrize("statistic", STATISTICS)
def test_audit_flags_sums_noised_for_ten_times_epsilon(monkeypatch, statistic):
    for name in ("geometric", "laplace"):
        real = getattr(sums_module, name)

        def too_little_noise(value, *, epsilon, _real=real, **kwargs):
            return _real(value, epsilon=10 * epsilon, **kwargs)

        monkeypatch.setattr(sums_module, name, too_little_noise)
    result = audit_standard(statistic, n_search=40, n_samples=200)
    assert not result.passed, str(result)


# RobustScaler (declared box [-1, 1], so the release is the JointExp draw of the 25%,
# 50% and 75% levels): six records spread over the box, the one at 1 removed in the
# neighbour. On a 5-point public grid (a public constant, monkeypatched) the removal
# pulls the median's distribution down: at 10x epsilon ``center_ > 0`` has probability
# about 1/3 on the first data set and below 1% on the second.
ROBUST_X = np.array([[-1.0], [-0.6], [-0.1], [0.1], [0.6], [1.0]])
ROBUST_FIRST, ROBUST_SECOND = ROBUST_X, ROBUST_X[:-1]


def robust_release(data, rng):
    return RobustScaler(epsilon=EPSILON, bounds=(-1.0, 1.0), random_state=rng).fit(data).center_[0]


def audit_robust(monkeypatch, n_search, n_samples, random_state=0):
    monkeypatch.setattr(robust_module, "N_CANDIDATES", 5)
    return audit(
        robust_release, ROBUST_FIRST, ROBUST_SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_robust_passes_audit(monkeypatch):
    result = audit_robust(monkeypatch, n_search=60, n_samples=150)
    assert result.passed, str(result)


@pytest.mark.slow
def test_robust_passes_a_large_audit(monkeypatch):
    result = audit_robust(monkeypatch, n_search=1000, n_samples=5000, random_state=1)
    assert result.passed, str(result)


def test_audit_flags_robust_quantiles_drawn_for_ten_times_epsilon(monkeypatch):
    real = scaler_base.joint_draws

    def too_little_noise(below, at_or_below, n, fractions, candidates, epsilons, rng):
        return real(below, at_or_below, n, fractions, candidates, 10 * np.array(epsilons), rng)

    monkeypatch.setattr(scaler_base, "joint_draws", too_little_noise)
    # 150 / 400 draws: flagged on 10 of 10 audit seeds (60 / 150: 9 of 10; numpy 1's
    # streams hit the tenth)
    result = audit_robust(monkeypatch, n_search=150, n_samples=400)
    assert not result.passed, str(result)
