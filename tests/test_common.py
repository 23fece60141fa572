"""scikit-learn's estimator checks and skdp's own, over every public estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdp.utils.discovery import all_estimators
from skdp.utils.estimator_checks import skdp_checks
from tests._estimators import NoisyMeanRegressor

# Test configuration per estimator class: seeded, a large epsilon and public bounds,
# so the checks exercise the API rather than the noise. A class missing here is
# constructed with its defaults and random_state=0.
CHECK_PARAMS = {
    NoisyMeanRegressor: {"epsilon": 1e3, "bounds_y": (-100.0, 100.0)},
}


def _instances():
    classes = [cls for _, cls in all_estimators()] + [NoisyMeanRegressor]
    return [cls(**{"random_state": 0, **CHECK_PARAMS.get(cls, {})}) for cls in classes]


def _expected_failed_checks(estimator):
    return {}


@parametrize_with_checks(_instances(), expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", _instances(), ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("check", skdp_checks(), ids=lambda c: c.__name__)
def test_skdp_rules(estimator, check):
    check(estimator)


def test_registry_finds_only_public_dp_estimators():
    """all_estimators lists skdp classes that are both estimators and DP."""
    for name, cls in all_estimators():
        assert not name.startswith("_") and cls.__module__.startswith("skdp.")
        assert hasattr(cls, "_privacy_budget") and hasattr(cls, "get_params")
