"""scikit-learn's estimator checks and skdp's own, over every public estimator."""

import pytest
import sklearn
from sklearn.base import clone, is_classifier
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.fixes import parse_version

from skdp.cluster import DPOPTICS, DPKMeans
from skdp.ensemble import RandomForestClassifier
from skdp.frequent_patterns import DPFrequentItemsets
from skdp.linear_model import (
    FunctionalMechanismClassifier,
    FunctionalMechanismRegressor,
    ObjectivePerturbationLogistic,
)
from skdp.model_selection import PrivateGridSearchCV
from skdp.svm import PrivateSVM
from skdp.tree import DPDecisionTree
from skdp.utils.discovery import all_estimators
from skdp.utils.estimator_checks import skdp_checks
from tests._estimators import NoisyMeanRegressor
from tests.model_selection._config import SEARCH_CHECK_PARAMS

# Test configuration per estimator class: seeded, a large epsilon and public bounds,
# so the checks exercise the API rather than the noise. The default constructors
# (DEFAULT_INSTANCES) run the same checks. A class missing here is
# constructed with its defaults and random_state=0.
CHECK_PARAMS = {
    # epsilon 10: noise of ~400 lattice steps, so two unseeded fits rarely round alike
    NoisyMeanRegressor: {"epsilon": 10.0, "bounds_y": (-100.0, 100.0)},
    DPDecisionTree: {"epsilon": 1e3, "bounds": (-100.0, 100.0), "n_levels": 6},
    FunctionalMechanismRegressor: {"epsilon": 1e3, "bounds": (-5.0, 5.0), "bounds_y": (-5.0, 5.0)},
    FunctionalMechanismClassifier: {"epsilon": 1e3, "bounds": (-5.0, 5.0)},
    ObjectivePerturbationLogistic: {"epsilon": 1e3, "data_norm": 100.0},
    PrivateSVM: {"epsilon": 1e4, "data_norm": 100.0, "C": 100.0},
    DPKMeans: {"epsilon": 1e3, "bounds": (-10.0, 10.0)},
    DPOPTICS: {"epsilon": 10.0, "bounds": (-3.0, 3.0)},
    DPFrequentItemsets: {"epsilon": 1.0, "top_k": 5, "binarize": 0.5},
    PrivateGridSearchCV: SEARCH_CHECK_PARAMS,
    # three trees: the parallel parts and the soft vote, not the one-tree small-data forest
    RandomForestClassifier: {"epsilon": 1e3, "bounds": (-100.0, 100.0), "n_estimators": 3},
}
# further configurations of a class that run the same checks
EXTRA_INSTANCES = [
    DPKMeans(epsilon=1e3, bounds=(-10.0, 10.0), method="grid", random_state=0),
    DPKMeans(epsilon=1e3, bounds=(-10.0, 10.0), method="hybrid", random_state=0),
    PrivateSVM(epsilon=1e4, data_norm=100.0, C=100.0, mechanism="objective", random_state=0),
    PrivateSVM(epsilon=1e4, C=100.0, kernel="rbf", gamma=0.1, n_components=100, random_state=0),
]


# the user's first try: default constructors, only seeded (epsilon 1, nothing declared)
DEFAULT_INSTANCES = [cls(random_state=0) for _, cls in all_estimators()] + [
    DPDecisionTree(algorithm="diffgen", random_state=0),
    DPKMeans(method="grid", random_state=0),
    DPKMeans(method="hybrid", random_state=0),
    PrivateSVM(mechanism="objective", random_state=0),
    PrivateSVM(kernel="rbf", random_state=0),
]


def _instances():
    classes = [cls for _, cls in all_estimators()] + [NoisyMeanRegressor]
    configured = [cls(**{"random_state": 0, **CHECK_PARAMS.get(cls, {})}) for cls in classes]
    return configured + EXTRA_INSTANCES + DEFAULT_INSTANCES


# check_clustering wants ARI > 0.4 on 50 standardised rows: with nothing declared at
# epsilon 1 (n epsilon = 50) the private bounds fall back to the public [-100, 100] box
NO_BOUNDS_ON_50_ROWS = "ARI > 0.4 on 50 rows at epsilon=1 needs public bounds"


# scikit-learn 1.6's check casts the iris X of a categorical-tagged estimator to int,
# then subtracts a float mean in place (a bug in the check; later releases pass)
SKLEARN_16_CATEGORICAL_CAST = "sklearn 1.6: the check subtracts a float mean from int X"
OLD_SKLEARN = parse_version(sklearn.__version__) < parse_version("1.7")


def _expected_failed_checks(estimator):
    # the grid method's private histogram finds the three blobs even so (issue 21)
    grid_kmeans = isinstance(estimator, DPKMeans) and estimator.method == "grid"
    if isinstance(estimator, (DPKMeans, DPOPTICS)) and estimator.bounds is None:
        return {} if grid_kmeans else {"check_clustering": NO_BOUNDS_ON_50_ROWS}
    # the tree, the forest and the searches around the tree (their default) take categories
    if OLD_SKLEARN and get_tags(estimator).input_tags.categorical:
        return {"check_positive_only_tag_during_fit": SKLEARN_16_CATEGORICAL_CAST}
    return {}


# scikit-learn's checks cannot pass public class lists, so classifiers infer them (and warn)
@pytest.mark.filterwarnings("ignore::skdp.exceptions.PrivacyLeakWarning")
@pytest.mark.filterwarnings("ignore::skdp.exceptions.ClippingWarning")
@parametrize_with_checks(_instances(), expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", _instances(), ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("check", skdp_checks(), ids=lambda c: c.__name__)
def test_skdp_rules(estimator, check):
    if is_classifier(estimator) and estimator.get_params().get("classes", ()) is None:
        # a clone: the instances are shared with test_sklearn_compatible, whose checks
        # fit three-class targets, on the same worker
        estimator = clone(estimator).set_params(classes=[0, 1])  # make_check_data's labels
    check(estimator)


def test_registry_finds_only_public_dp_estimators():
    """all_estimators lists skdp classes that are both estimators and DP."""
    for name, cls in all_estimators():
        assert not name.startswith("_") and cls.__module__.startswith("skdp.")
        assert hasattr(cls, "_privacy_budget") and hasattr(cls, "get_params")
