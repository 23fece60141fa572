"""The linear models and PrivateSVM with their defaults: private data_norm, edge cases.

``ObjectivePerturbationLogistic`` and ``PrivateSVM`` (linear kernel) estimate the row-norm
bound privately when ``data_norm=None`` (skdp.utils._erm_inputs); the functional
mechanism estimates its bounds (tests/linear_model/test_functional_mechanism.py). Here:
the ledger and the split, the clipping, the per-feature scaling, the tiny inputs a user
may pass to ``Est()``, and that declared inputs give the models they gave before.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris, make_classification

from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning
from skdp.linear_model import (
    FunctionalMechanismClassifier,
    FunctionalMechanismRegressor,
    ObjectivePerturbationLogistic,
)
from skdp.svm import PrivateSVM
from skdp.utils._bounds import norm_share
from tests._ledger import bounds_entries

X_BIN, Y_BIN = make_classification(n_samples=300, n_features=4, random_state=0)
X_IRIS, Y_IRIS = load_iris(return_X_y=True)

# the estimators whose default fit estimates data_norm
NORM_ESTIMATORS = {
    "logistic": ObjectivePerturbationLogistic,
    "svm_objective": PrivateSVM,
    "svm_output": lambda **params: PrivateSVM(mechanism="output", C=0.1, **params),
}
# every default constructor of the package (the classifiers and the regressor)
CLASSIFIERS = {
    **NORM_ESTIMATORS,
    "svm_rbf": lambda **params: PrivateSVM(kernel="rbf", **params),
    "functional": FunctionalMechanismClassifier,
}
ALL = {**CLASSIFIERS, "regressor": FunctionalMechanismRegressor}


def _quiet_fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes from y, clipping, fallback bounds
        return model.fit(X, y)


def _mixed_units(n, seed=0):
    """Three informative features in very different units (areas, lengths, ratios)."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 3))
    y = (Z @ [1.0, -1.0, 1.0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return np.abs(Z * [300.0, 3.0, 0.03] + [1000.0, 10.0, 0.1]), y


# ------------------------------------------------------------------ data_norm=None


@pytest.mark.parametrize("name", NORM_ESTIMATORS)
@pytest.mark.parametrize("epsilon", [0.3, 2.0])
def test_private_data_norm_spends_exactly_epsilon_and_records_the_split(name, epsilon):
    model = NORM_ESTIMATORS[name](epsilon=epsilon, classes=[0, 1], random_state=0)
    with PrivacyLedger() as ledger:
        _quiet_fit(model, X_BIN, Y_BIN)
    assert ledger.total.epsilon == pytest.approx(epsilon, rel=1e-12)
    assert model.privacy_spent_ == ledger.total
    split = model.epsilon_split_
    assert math.fsum(split.values()) == pytest.approx(epsilon, rel=1e-12)
    assert split["n_samples"] == pytest.approx(0.05 * epsilon, rel=1e-12)
    assert 0.05 * epsilon <= split["data_norm"] <= 0.25 * epsilon
    entries = [(entry.mechanism, entry.epsilon) for entry in ledger.entries]
    assert entries[0] == ("geometric", pytest.approx(split["n_samples"], rel=1e-12))
    tier = 1 if split["bounds"] else None  # tier-1 bounds or none (skdp.utils._erm_inputs)
    bounds = bounds_entries(ledger, tier, X_BIN.shape[1])
    assert math.fsum(e.epsilon for e in bounds) == pytest.approx(split["bounds"], rel=1e-12)
    norm_scan = ledger.entries[1 + len(bounds)]
    assert norm_scan.mechanism == "above_threshold"
    assert norm_scan.epsilon == pytest.approx(split["data_norm"], rel=1e-12)
    assert model.data_norm is None and model.data_norm_ > 0


def test_the_norm_share_follows_the_noisy_count():
    # 40 records over n~ epsilon, within [5%, 25%]
    assert norm_share(10_000, 1.0) == 0.05 and norm_share(100, 1.0) == 0.25
    assert norm_share(800, 0.5) == pytest.approx(0.1)
    assert norm_share(0, 1.0) == 0.25  # n~ clamped at 1: defined on any count


@pytest.mark.parametrize("name", NORM_ESTIMATORS)
def test_private_data_norm_is_a_high_quantile_and_rows_beyond_it_are_clipped(name):
    X = np.random.default_rng(0).normal(size=(600, 4))
    y = (X[:, 0] > 0).astype(int)
    model = NORM_ESTIMATORS[name](classes=[0, 1], random_state=1)  # (seed 0 overshoots)
    with pytest.warns(ClippingWarning, match="rows of X had an L2 norm above"):
        model.fit(X * 64, y)  # n epsilon = 600, four features: bounds too dear to scale
    assert model.bounds_ is None and model.epsilon_split_["bounds"] == 0.0
    norms = np.linalg.norm(X * 64, axis=1)
    # the 90% quantile, up to a few steps of the 2^(1/4) grid
    assert np.quantile(norms, 0.7) < model.data_norm_ < np.quantile(norms, 0.999)


@pytest.mark.parametrize("name", NORM_ESTIMATORS)
def test_with_budget_for_per_feature_bounds_the_columns_are_scaled_first(name):
    """Mixed units: each column is clipped and scaled into [-1, 1] before the norm."""
    X, y = _mixed_units(20_000)
    model = _quiet_fit(NORM_ESTIMATORS[name](classes=[0, 1], random_state=0), X, y)
    lower, upper = model.bounds_
    assert model.epsilon_split_["bounds"] == pytest.approx(0.1)  # tier 1 at its minimum
    assert np.all(upper >= np.quantile(X, 0.9, axis=0)) and np.all(upper < 4 * X.max(axis=0))
    assert model.data_norm_ <= math.sqrt(3)  # in units of the scaled rows
    assert model.score(X, y) > 0.8  # every feature counts, not only the largest unit
    # predictions weigh the clipped columns, in the units of X
    far = X * [100.0, 1.0, 1.0]
    np.testing.assert_array_equal(
        model.decision_function(far), model.decision_function(np.clip(far, lower, upper))
    )


@pytest.mark.parametrize("name", NORM_ESTIMATORS)
def test_scaled_fit_does_not_depend_on_the_units_of_a_column(name):
    """Rescaling a column by 16 (16 steps of the fine grid) rescales its bounds and coef."""
    X, y = _mixed_units(20_000)
    model = NORM_ESTIMATORS[name](classes=[0, 1], random_state=0)
    first = _quiet_fit(model, X, y)
    coef, intercept = first.coef_.copy(), first.intercept_.copy()
    second = _quiet_fit(model, X * [16.0, 1.0, 1.0], y)
    np.testing.assert_allclose(second.coef_, coef / [16.0, 1.0, 1.0], rtol=1e-9)
    np.testing.assert_allclose(second.intercept_, intercept, rtol=1e-9)


def test_scaling_beats_the_largest_unit_on_mixed_features():
    """Unscaled, the row norm tracks the largest-unit column and the others are lost."""
    X, y = _mixed_units(20_000)
    X_test, y_test = _mixed_units(5000, seed=1)
    scaled = _quiet_fit(ObjectivePerturbationLogistic(classes=[0, 1], random_state=0), X, y)
    declared = ObjectivePerturbationLogistic(
        data_norm=float(np.quantile(np.linalg.norm(X, axis=1), 0.9)),  # the same rule, raw
        classes=[0, 1],
        random_state=0,
    )
    declared = _quiet_fit(declared, X, y)
    assert scaled.score(X_test, y_test) > declared.score(X_test, y_test) + 0.1


@pytest.mark.parametrize("name", NORM_ESTIMATORS)
@pytest.mark.parametrize("n", [1, 2, 5])
def test_private_data_norm_never_fails_on_tiny_data(name, n):
    model = NORM_ESTIMATORS[name](classes=[0, 1], random_state=0)
    with PrivacyLedger() as ledger:
        _quiet_fit(model, X_BIN[:n], Y_BIN[:n])
    assert ledger.total.epsilon == pytest.approx(1.0, rel=1e-12)
    assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(model.intercept_))
    assert math.isfinite(model.data_norm_) and model.data_norm_ > 0
    assert set(model.predict(X_BIN)) <= {0, 1}


@pytest.mark.parametrize("name", NORM_ESTIMATORS)
def test_a_seed_reproduces_the_private_fit(name):
    fits = [
        _quiet_fit(NORM_ESTIMATORS[name](random_state=seed), X_IRIS, Y_IRIS) for seed in (0, 0, 1)
    ]
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    assert fits[0].data_norm_ == fits[1].data_norm_
    assert not np.array_equal(fits[0].coef_, fits[2].coef_)


# ------------------------------------------------------- declared inputs: as before


# coef_ and intercept_ of these declared fits before data_norm=None was estimated
# (commit 055e965): declared inputs spend nothing new and give the same models. The
# logistic one since its regularisation rule (issue 21: Lambda from the noise's mean norm),
# all three since the intercept's constant column is half the norm bound (issue 21:
# skdp.utils._erm.INTERCEPT_SHARE)
BEFORE = {
    "logistic": (
        ObjectivePerturbationLogistic(data_norm=8.0, classes=[0, 1], random_state=3),
        [0.142103519237, 0.499414888438, 0.534240699408, -0.282344865478],
        [0.110336177213],
    ),
    "svm_output": (
        PrivateSVM(data_norm=8.0, classes=[0, 1], mechanism="output", C=0.1, random_state=3),
        [0.207584191515, 0.136186182054, 0.299907806606, -0.0757243861017],
        [-0.0202125041179],
    ),
    "svm_objective": (
        PrivateSVM(data_norm=8.0, classes=[0, 1], mechanism="objective", random_state=3),
        [0.110995779566, 0.515867991066, 0.547443189385, -0.384206759105],
        [0.044577262656],
    ),
    "regressor": (
        FunctionalMechanismRegressor(bounds=(-0.2, 0.2), bounds_y=(25, 346), random_state=3),
        [
            28.9560294455,
            27.134673356,
            -19.9439055578,
            30.2127617602,
            -28.6114215253,
            -44.0781205523,
            -51.3540436426,
            -19.3622701642,
            -21.2399160982,
            -5.20939526379,
        ],
        [140.531623852],
    ),
}


@pytest.mark.parametrize("name", BEFORE)
def test_declared_inputs_give_the_models_they_gave_before(name):
    model, coef, intercept = BEFORE[name]
    X, y = load_diabetes(return_X_y=True) if name == "regressor" else (X_BIN, Y_BIN)
    with PrivacyLedger() as ledger:
        _quiet_fit(model, X, y)
    np.testing.assert_allclose(np.ravel(model.coef_), coef, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.ravel(model.intercept_), intercept, rtol=1e-9)
    assert "geometric" not in [entry.mechanism for entry in ledger.entries]  # no count
    assert model.epsilon_split_.get("n_samples", 0.0) == 0.0


# ------------------------------------------------------ the default constructors


@pytest.mark.parametrize("name", ALL)
def test_default_fit_spends_epsilon_on_a_users_data(name):
    X, y = load_diabetes(return_X_y=True) if name == "regressor" else (X_IRIS, Y_IRIS)
    model = ALL[name](random_state=0)
    with PrivacyLedger() as ledger:
        _quiet_fit(model, X, y)
    assert ledger.total.epsilon == pytest.approx(1.0, rel=1e-12)
    assert math.fsum(model.epsilon_split_.values()) == pytest.approx(1.0, rel=1e-12)
    assert np.all(np.isfinite(model.predict(X)))
    if name == "svm_rbf":  # the rbf kernel spends nothing on a norm
        assert model.epsilon_split_.keys() == {"noise", "curvature"}
        assert not hasattr(model, "data_norm_")


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_one_row_or_one_class_is_a_clear_error_for_a_classifier(name):
    with pytest.raises(ValueError, match="needs at least 2 classes; got 1 class"):
        _quiet_fit(CLASSIFIERS[name](random_state=0), X_BIN[:1], Y_BIN[:1])
    with pytest.raises(ValueError, match="needs at least 2 classes; got 1 class"):
        _quiet_fit(CLASSIFIERS[name](random_state=0), X_BIN, np.ones(300))


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_one_row_with_public_classes_fits(name):
    model = _quiet_fit(CLASSIFIERS[name](classes=[0, 1], random_state=0), X_BIN[:1], Y_BIN[:1])
    assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)
    assert set(model.predict(X_BIN)) <= {0, 1}


@pytest.mark.parametrize("n", [1, 2, 5])
def test_regressor_fits_one_row_and_an_all_equal_target(n):
    X = np.random.default_rng(0).normal(size=(n, 3))
    for y in (X[:, 0], np.full(n, 7.0)):
        model = _quiet_fit(FunctionalMechanismRegressor(random_state=0), X, y)
        assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)
        assert np.all(np.isfinite(model.predict(X_BIN[:, :3])))


@pytest.mark.parametrize("name", ALL)
def test_a_constant_column_fits_and_weighs_little(name):
    X, y = (load_diabetes(return_X_y=True)) if name == "regressor" else (X_BIN, Y_BIN)
    X = np.column_stack([X, np.full(len(X), 5.0)])
    model = _quiet_fit(ALL[name](random_state=0), X, y)
    assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(model.intercept_))
    assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)
    assert np.all(np.isfinite(model.predict(X)))


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize(("value", "word"), [(np.nan, "NaN"), (np.inf, "infinity")])
def test_nan_or_inf_in_X_is_a_clear_error_before_any_spend(name, value, word):
    X = X_BIN.copy()
    X[5, 2] = value
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match=f"Input X contains {word}"):
        _quiet_fit(ALL[name](random_state=0), X, Y_BIN)
    assert not ledger.entries
