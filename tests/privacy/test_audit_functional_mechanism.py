"""Empirical privacy audit of the functional-mechanism estimators.

A tiny dataset (six records, one feature) and its neighbour without the last record,
which sits at a corner of the public box, so the released vector moves by exactly its
sensitivity. Each run fits the estimator and returns the noisy vector handed back by
the Laplace mechanism; the audited statistic is the privacy loss of that vector
between the two inputs (``sum |z - v_second| - sum |z - v_first|``, the optimal test
for Laplace noise of one scale), so the audit sees all of the released information.
A mutated release (noise for half the sensitivity) must be flagged.
"""

import numpy as np
import pytest

from skdp.linear_model import (
    FunctionalMechanismClassifier,
    FunctionalMechanismRegressor,
    _moment_release,
)
from skdp.utils._audit import audit

EPSILON = 1.0
X = np.array([[0.2], [0.9], [0.4], [0.6], [0.1], [1.0]])
Y = {
    "regressor": np.array([0.3, 0.8, 0.5, 0.4, 0.0, 1.0]),
    "classifier": np.array([0, 1, 0, 1, 0, 1]),
}
ESTIMATORS = {
    "regressor": lambda rng, **kw: FunctionalMechanismRegressor(
        epsilon=EPSILON, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=rng, **kw
    ),
    "classifier": lambda rng, **kw: FunctionalMechanismClassifier(
        epsilon=EPSILON, bounds=(0.0, 1.0), classes=[0, 1], random_state=rng, **kw
    ),
}


def _capture_release(monkeypatch, sensitivity_factor=1.0):
    """Patch the estimators' Laplace call to record (exact value, noisy output)."""
    real, calls = _moment_release.laplace, []

    def release(value, *, sensitivity, **kwargs):
        out = real(value, sensitivity=sensitivity * sensitivity_factor, **kwargs)
        calls.append((np.array(value), out))
        return out

    monkeypatch.setattr(_moment_release, "laplace", release)
    return calls


def audit_estimator(
    monkeypatch, kind, *, sensitivity_factor=1.0, n_search=300, n_samples=2000, **params
):
    calls = _capture_release(monkeypatch, sensitivity_factor)
    first, second = (X, Y[kind]), (X[:-1], Y[kind][:-1])

    def mechanism(data, rng):
        calls.clear()
        ESTIMATORS[kind](rng, **params).fit(*data)
        return calls[-1][1]

    exact = []
    for data in (first, second):
        mechanism(data, np.random.default_rng(0))
        exact.append(calls[-1][0])
    assert np.abs(exact[0] - exact[1]).sum() > 0

    def privacy_loss(noisy):
        return np.abs(noisy - exact[1]).sum() - np.abs(noisy - exact[0]).sum()

    return audit(
        mechanism, first, second, epsilon=EPSILON, statistic=privacy_loss,
        n_search=n_search, n_samples=n_samples, random_state=0,
    )  # fmt: skip


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_release_passes_the_audit(monkeypatch, kind):
    result = audit_estimator(monkeypatch, kind, n_search=150, n_samples=1000)
    assert result.passed, str(result)


@pytest.mark.parametrize(
    ("kind", "params"),
    # with an intercept the regressor's five released entries spread the loss over
    # rare events; without, two entries carry it and 2000 runs suffice to catch it
    [("regressor", {"fit_intercept": False}), ("classifier", {})],
)
def test_audit_flags_noise_for_half_the_sensitivity(monkeypatch, kind, params):
    result = audit_estimator(monkeypatch, kind, sensitivity_factor=0.5, **params)
    assert not result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_release_passes_a_large_audit(monkeypatch, kind):
    result = audit_estimator(monkeypatch, kind, n_search=5000, n_samples=25000)
    assert result.passed, str(result)
    assert result.epsilon_lower_bound > 0.5 * EPSILON, str(result)  # near-tight neighbours


@pytest.mark.slow
def test_audit_flags_the_regressor_with_intercept_at_half_the_sensitivity(monkeypatch):
    result = audit_estimator(
        monkeypatch, "regressor", sensitivity_factor=0.5, n_search=2000, n_samples=20000
    )
    assert not result.passed, str(result)


@pytest.mark.slow
def test_fitted_coefficients_pass_the_audit():
    """The fitted model itself (post-processing of the release)."""

    def mechanism(data, rng):
        return ESTIMATORS["regressor"](rng).fit(*data).coef_[0]

    result = audit(
        mechanism, (X, Y["regressor"]), (X[:-1], Y["regressor"][:-1]), epsilon=EPSILON,
        n_search=2000, n_samples=20000, random_state=1,
    )  # fmt: skip
    assert result.passed, str(result)
