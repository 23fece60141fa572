"""Empirical privacy audits of the private scalers on tiny neighbouring datasets.

MinMaxScaler (``bounds=None``, so the whole fit is audited: the noisy count, the
private box and the JointExp quantiles): four records at ``-50, -25, 25, 50`` and the
fifth, at 95, removed in the neighbour. With five records the box is the public
fallback ``[-100, 100]`` on both sides (tier 3: ``n epsilon`` is far too small), so
``data_max_`` is JointExp's 99% output among the public candidates, which the extra
record pulls above 87.5. The public grid is cut to 17 candidates (a public constant,
monkeypatched) so that a fit takes a few milliseconds. A mutant that draws the
quantiles for 10x the epsilon it records must be flagged.
"""

import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import skdp.preprocessing._minmax as minmax_module
from skdp.preprocessing import MinMaxScaler
from skdp.utils._audit import audit

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
    released = [
        minmax_module._joint_quantiles(data, (0.01, 0.99), [-100.0], [100.0], epsilon=1e6, rng=rng)
        for data in (MINMAX_FIRST, MINMAX_SECOND)
    ]
    assert [high[0] for _, high in released] == [100.0, 50.0]


def test_minmax_passes_audit():
    result = audit_minmax(n_search=40, n_samples=200)
    assert result.passed, str(result)


@pytest.mark.slow
def test_minmax_passes_a_large_audit():
    result = audit_minmax(n_search=500, n_samples=3000, random_state=1)
    assert result.passed, str(result)


def test_audit_flags_quantiles_drawn_for_ten_times_epsilon(monkeypatch):
    real = minmax_module.quantile

    def too_little_noise(*args, epsilon, **kwargs):
        return real(*args, epsilon=10 * epsilon, **kwargs)

    monkeypatch.setattr(minmax_module, "quantile", too_little_noise)
    result = audit_minmax(n_search=40, n_samples=200)
    assert not result.passed, str(result)
