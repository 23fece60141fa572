"""ObjectivePerturbationLogistic: accounting, exactness of the solver, API, bad input."""

import math
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

import skdp.linear_model._objective_perturbation as module
import skdp.linear_model._op_rules as rules
from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning, PrivacyLeakWarning
from skdp.linear_model import ObjectivePerturbationLogistic
from skdp.utils._erm import INTERCEPT_SHARE

X_BIN, Y_BIN = make_classification(n_samples=300, n_features=4, random_state=0)
NORM_BIN = 8.0  # a public bound above every row norm of X_BIN (max ~6.1)
X_IRIS, Y_IRIS = load_iris(return_X_y=True)
NORM_IRIS = 12.0  # above every row norm of iris (max ~11.1)
MARGIN = 1 - 2.0**-40  # the estimator's rounding margin on the scaled rows
T = INTERCEPT_SHARE  # the constant column is T * norm


def model(**params):
    defaults = {"data_norm": NORM_BIN, "classes": [0, 1], "random_state": 0}
    return ObjectivePerturbationLogistic(**{**defaults, **params})


def design(X, norm, fit_intercept=True):
    """The scaled rows the estimator optimises over (norm <= 1)."""
    if not fit_intercept:
        return X * (MARGIN / norm)
    return np.column_stack([X, np.full(len(X), T * norm)]) * (MARGIN / (norm * math.hypot(1, T)))


def scaled_weights(fitted, norm):
    """The fitted weights in the scaled problem, from coef_ and intercept_."""
    if not fitted.fit_intercept:
        return fitted.coef_ * (norm / MARGIN)
    weights = np.column_stack([fitted.coef_, fitted.intercept_ / (T * norm)])
    return weights * (norm * math.hypot(1, T) / MARGIN)


def sklearn_reference(Z, y, C):
    """scikit-learn's exact solution of sum loss + ||w||^2 / (2C) on the design Z."""
    reference = LogisticRegression(
        C=C, fit_intercept=False, solver="newton-cholesky", tol=1e-14, max_iter=1000
    )
    return reference.fit(Z, y).coef_


# ---------------------------------------------------------------------------- ledger


def spends(fitted_params, X=X_BIN, y=Y_BIN):
    with PrivacyLedger() as ledger:
        fitted = model(**fitted_params).fit(X, y)
    entries = [(entry.mechanism, entry.epsilon) for entry in ledger.entries]
    return fitted, ledger, entries


def test_ledger_splits_epsilon_between_curvature_and_noise():
    fitted, ledger, entries = spends({"epsilon": 1.0, "C": 1.0})
    lam = 1 / 1.0 + fitted.extra_regularization_
    curvature = math.log1p(0.25 / lam)  # log(1 + c / Lambda)
    assert entries == [
        ("objective_perturbation_curvature", pytest.approx(curvature, rel=1e-12)),
        ("l2_laplace_noise", pytest.approx(1.0 - curvature, rel=1e-12)),
    ]
    assert ledger.total.epsilon == pytest.approx(1.0, rel=1e-12)
    assert fitted.privacy_spent_ == ledger.total
    # the rule: Lambda = noise_dim * Delta / (omega * beta), 5 noise coordinates, Delta 1
    assert lam * rules.WEIGHT_SCALE * (1 - curvature) == pytest.approx(5.0, rel=1e-9)
    declared = {"n_samples": 0.0, "bounds": 0.0, "data_norm": 0.0}  # nothing estimated
    assert fitted.epsilon_split_ == pytest.approx(
        {**declared, "noise": 1 - curvature, "curvature": curvature}
    )


def test_strong_user_regularisation_is_kept():
    """1 / C above the rule's Lambda: no extra regularisation."""
    fitted, ledger, entries = spends({"epsilon": 1.0, "C": 0.01})
    assert fitted.extra_regularization_ == 0.0
    assert entries[0][1] == pytest.approx(math.log1p(0.25 * 0.01), rel=1e-12)
    assert ledger.total.epsilon == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize(
    ("epsilon", "C", "kwargs"),
    [
        (0.2, 1.0, {"curvature": 0.25, "noise_dim": 5}),
        (1.0, 100.0, {"curvature": 0.25, "noise_dim": 5}),
        (0.05, 100.0, {"curvature": 0.1, "rank": 9, "noise_dim": 1, "sensitivity": 0.01}),
        (1e12, 3.0, {"curvature": 1 / 3, "rank": 2, "noise_dim": 10, "sensitivity": 1.5}),
    ],
)
def test_rule_is_the_largest_of_its_three_lower_bounds(epsilon, C, kwargs):
    extra, beta = rules.perturbation_parameters(epsilon, C, **kwargs)
    lam, rank = 1 / C + extra, kwargs.get("rank", 1)
    curvature = rank * math.log1p(kwargs["curvature"] / lam)
    assert beta == pytest.approx(epsilon - curvature, rel=1e-12)
    assert curvature <= epsilon / 2  # beta never below epsilon / 2
    fixed_point = kwargs["noise_dim"] * kwargs.get("sensitivity", 1.0) / rules.WEIGHT_SCALE
    assert lam * beta >= fixed_point * (1 - 1e-9)
    # and Lambda is the smallest such: one of the three bounds is tight
    tight = [
        lam == pytest.approx(1 / C, rel=1e-9),
        curvature == pytest.approx(epsilon / 2, rel=1e-9),
        lam * beta == pytest.approx(fixed_point, rel=1e-9),
    ]
    assert any(tight)


def test_small_epsilon_regularises_more():
    lams = [
        1 + rules.perturbation_parameters(e, 1.0, curvature=1 / 3, rank=2, noise_dim=10)[0]
        for e in (0.1, 0.5, 1.0, 2.0, 5.0)
    ]
    assert lams == sorted(lams, reverse=True) and lams[0] > 10 * lams[-1]


def test_one_vs_rest_spends_epsilon_over_k_per_class():
    fitted, ledger, entries = spends(
        {"epsilon": 1.5, "data_norm": NORM_IRIS, "classes": [0, 1, 2], "multi_class": "ovr"},
        X_IRIS,
        Y_IRIS,
    )
    assert len(entries) == 6
    for curvature, noise in zip(entries[::2], entries[1::2], strict=True):
        assert curvature[0] == "objective_perturbation_curvature"
        assert noise[0] == "l2_laplace_noise"
        assert curvature[1] + noise[1] == pytest.approx(0.5, rel=1e-12)
    assert ledger.total.epsilon == pytest.approx(1.5, rel=1e-12)
    assert math.fsum(fitted.epsilon_split_.values()) == pytest.approx(1.5, rel=1e-12)
    assert fitted.coef_.shape == (3, 4) and fitted.intercept_.shape == (3,)


def test_multinomial_noise_lives_where_the_gradients_do(monkeypatch):
    """(K - 1) dim noise coordinates, sensitivity sqrt 2, Jacobian (K-1) log(1 + 1/(K Lambda))."""
    seen = []
    real = module.l2_laplace_noise

    def recording(dimension, **kwargs):
        seen.append((dimension, kwargs["sensitivity"], kwargs["epsilon"]))
        return real(dimension, **kwargs)

    monkeypatch.setattr(module, "l2_laplace_noise", recording)
    params = {"epsilon": 1.0, "C": 0.5, "data_norm": NORM_IRIS, "classes": [0, 1, 2]}
    fitted, ledger, entries = spends(params, X_IRIS, Y_IRIS)  # multinomial is the default
    lam = 2.0 + fitted.extra_regularization_
    curvature = 2 * math.log1p(1 / (3 * lam))
    assert seen == [(10, math.sqrt(2), pytest.approx(1 - curvature))]
    assert entries[0] == ("objective_perturbation_curvature", pytest.approx(curvature))
    assert ledger.total.epsilon == pytest.approx(1.0, rel=1e-12)
    assert fitted.coef_.shape == (3, 4)
    # noise and gradients sum to zero over the classes, so does the minimiser
    np.testing.assert_allclose(fitted.coef_.sum(axis=0), 0, atol=1e-9)
    np.testing.assert_allclose(fitted.intercept_.sum(), 0, atol=1e-9)


def test_sum_zero_basis_is_orthonormal():
    for k in (2, 3, 7):
        U = rules.sum_zero_basis(k)
        np.testing.assert_allclose(U.T @ U, np.eye(k - 1), atol=1e-12)
        np.testing.assert_allclose(U.sum(axis=0), 0, atol=1e-12)


# ---------------------------------------------------- exactness: large epsilon, solver


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("C", [0.5, 20.0])
def test_large_epsilon_recovers_sklearn_on_the_scaled_design(fit_intercept, C):
    fitted = model(epsilon=1e12, C=C, fit_intercept=fit_intercept).fit(X_BIN, Y_BIN)
    reference = sklearn_reference(design(X_BIN, NORM_BIN, fit_intercept), Y_BIN, C)
    np.testing.assert_allclose(scaled_weights(fitted, NORM_BIN), reference, rtol=1e-7, atol=1e-8)
    if not fit_intercept:
        assert np.all(fitted.intercept_ == 0)


def test_large_epsilon_recovers_sklearn_one_vs_rest_and_multinomial():
    params = {"epsilon": 1e12, "C": 30.0, "data_norm": NORM_IRIS, "classes": [0, 1, 2]}
    Z = design(X_IRIS, NORM_IRIS)
    ovr = model(**params, multi_class="ovr").fit(X_IRIS, Y_IRIS)
    for k in range(3):
        reference = sklearn_reference(Z, (Y_IRIS == k).astype(int), 30.0)
        np.testing.assert_allclose(
            scaled_weights(ovr, NORM_IRIS)[k], reference[0], rtol=1e-7, atol=1e-8
        )
    multinomial = model(**params, multi_class="multinomial").fit(X_IRIS, Y_IRIS)
    np.testing.assert_allclose(
        scaled_weights(multinomial, NORM_IRIS), sklearn_reference(Z, Y_IRIS, 30.0), atol=1e-7
    )


@pytest.mark.parametrize(
    ("n_classes", "multi_class", "n_features"), [(2, "ovr", 110), (3, "multinomial", 40)]
)
def test_large_epsilon_recovers_sklearn_with_many_features(n_classes, multi_class, n_features):
    """Over 100 parameters, L-BFGS runs before the Newton steps; same exact answer.

    The softmax problem has ``3 (n_features + 1) = 123`` parameters."""
    X, y = make_classification(
        n_samples=400, n_features=n_features, n_informative=8, n_classes=n_classes,
        random_state=1,
    )  # fmt: skip
    norm = float(np.ceil(np.linalg.norm(X, axis=1).max()))
    fitted = model(
        epsilon=1e12, C=3.0, data_norm=norm, classes=list(range(n_classes)),
        multi_class=multi_class,
    ).fit(X, y)  # fmt: skip
    reference = sklearn_reference(design(X, norm), y, 3.0)
    np.testing.assert_allclose(scaled_weights(fitted, norm), reference, rtol=1e-6, atol=1e-7)


def test_solver_reaches_the_gradient_tolerance(monkeypatch):
    """||grad J(w)|| <= tol * (n + ||b|| + Lambda ||w||) with the b actually drawn."""
    drawn = []
    real = module.l2_laplace_noise

    def recording(dimension, **kwargs):
        drawn.append(real(dimension, **kwargs))
        return drawn[-1]

    monkeypatch.setattr(module, "l2_laplace_noise", recording)
    tol = 1e-13
    fitted = model(epsilon=0.5, C=2.0, tol=tol).fit(X_BIN, Y_BIN)
    w, b = scaled_weights(fitted, NORM_BIN)[0], drawn[0]
    lam = 1 / 2.0 + fitted.extra_regularization_
    Z, sign = design(X_BIN, NORM_BIN), np.where(Y_BIN == 1, 1.0, -1.0)
    gradient = Z.T @ (-sign * expit(-sign * (Z @ w))) + lam * w + b
    bound = tol * (len(Z) + np.linalg.norm(b) + lam * np.linalg.norm(w))
    assert np.linalg.norm(gradient) <= bound
    # and the noise mattered: the noiseless minimiser is elsewhere
    assert np.linalg.norm(b) > 0.1


def test_unreachable_tolerance_warns(monkeypatch):
    monkeypatch.setattr(module, "MAX_ITER", 1)
    with pytest.warns(ConvergenceWarning, match="exact minimiser"):
        model().fit(X_BIN, Y_BIN)


# -------------------------------------------------------------------------------- API


@pytest.mark.parametrize("multi_class", ["ovr", "multinomial"])
def test_predict_proba_rows_sum_to_one_and_match_predict(multi_class):
    for X, y, norm, classes in [
        (X_BIN, Y_BIN, NORM_BIN, [0, 1]),
        (X_IRIS, Y_IRIS, NORM_IRIS, [0, 1, 2]),
    ]:
        fitted = model(data_norm=norm, classes=classes, multi_class=multi_class).fit(X, y)
        proba = fitted.predict_proba(X)
        assert proba.shape == (len(X), len(classes))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
        np.testing.assert_array_equal(fitted.predict(X), fitted.classes_[proba.argmax(axis=1)])


def test_binary_shapes_and_accuracy_at_moderate_epsilon():
    fitted = model(epsilon=2.0).fit(X_BIN, Y_BIN)
    assert fitted.coef_.shape == (1, 4) and fitted.intercept_.shape == (1,)
    assert fitted.decision_function(X_BIN).shape == (300,)
    assert fitted.score(X_BIN, Y_BIN) > 0.8


def test_public_class_order_is_kept():
    labels = np.where(Y_BIN == 1, "no", "yes")
    fitted = model(epsilon=1e6, classes=["yes", "no"]).fit(X_BIN, labels)
    np.testing.assert_array_equal(fitted.classes_, ["yes", "no"])
    assert (fitted.predict(X_BIN) == labels).mean() > 0.9


def test_pandas_input_keeps_feature_names():
    frame = pd.DataFrame(X_BIN, columns=["a", "b", "c", "d"])
    fitted = model().fit(frame, Y_BIN)
    np.testing.assert_array_equal(fitted.feature_names_in_, ["a", "b", "c", "d"])
    np.testing.assert_allclose(fitted.coef_, model().fit(X_BIN, Y_BIN).coef_, rtol=1e-12)
    assert fitted.predict(frame).shape == (300,)


def test_seed_reproduces_and_other_seeds_differ():
    first = model(random_state=3).fit(X_BIN, Y_BIN)
    again = model(random_state=3).fit(X_BIN, Y_BIN)
    other = model(random_state=4).fit(X_BIN, Y_BIN)
    np.testing.assert_array_equal(first.coef_, again.coef_)
    np.testing.assert_array_equal(first.intercept_, again.intercept_)
    assert not np.array_equal(first.coef_, other.coef_)


def test_classes_from_y_warn_of_the_leak():
    with pytest.warns(PrivacyLeakWarning, match="classes=None"):
        model(classes=None).fit(X_BIN, Y_BIN)


def test_rows_beyond_data_norm_are_clipped_with_a_warning():
    with pytest.warns(ClippingWarning, match=r"rows of X had an L2 norm above 2"):
        clipped = model(epsilon=1e12, data_norm=2.0).fit(X_BIN, Y_BIN)
    # the clipped fit is the fit on the clipped rows
    norms = np.linalg.norm(X_BIN, axis=1, keepdims=True)
    X_clipped = X_BIN * np.minimum(1, 2.0 / norms)
    reference = sklearn_reference(design(X_clipped, 2.0), Y_BIN, 1.0)
    np.testing.assert_allclose(scaled_weights(clipped, 2.0), reference, rtol=1e-7, atol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        model().fit(X_BIN, Y_BIN)  # every row within NORM_BIN: no warning


@pytest.mark.parametrize("params", [{"data_norm": 3.0}, {}], ids=["norm", "default"])
def test_mapped_rows_are_never_copied(params):
    """Rows clipped to a declared norm, or to private per-feature bounds and norm, are
    mapped one block at a time while the solver reads them: the fit holds less than 3/4
    of a copy of X (a mapped copy and four row-sized arrays before: 1.45 copies), and X
    is left as it was (test_op_losses: the mapped rows are those of a copy)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100_000, 20))
    y = (X[:, 0] + rng.logistic(size=len(X)) > 0).astype(int)
    before = X.copy()
    fit = model(**{"data_norm": None, **params})
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ClippingWarning)
            fit.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.75 * X.nbytes
    np.testing.assert_array_equal(X, before)


# -------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"data_norm": 0.0}, "'data_norm' parameter"),
        ({"data_norm": -1.0}, "'data_norm' parameter"),
        ({"data_norm": math.inf}, "'data_norm' parameter"),
        ({"C": 0.0}, "'C' parameter"),
        ({"C": math.inf}, "'C' parameter"),
        ({"epsilon": 0.0}, "'epsilon' parameter"),
        ({"multi_class": "auto"}, "'multi_class' parameter"),
        ({"classes": [0, 0, 1]}, "duplicates"),
    ],
)
def test_bad_parameters_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        model(**params).fit(X_BIN, Y_BIN)


def test_bad_data_is_named():
    X_nan = X_BIN.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model().fit(X_nan, Y_BIN)
    with pytest.raises(ValueError, match="infinity"):
        model().fit(np.where(X_BIN > 2, np.inf, X_BIN), Y_BIN)
    with pytest.raises(ValueError, match=r"labels not in classes: \['2'\]"):
        model().fit(X_BIN, np.where(np.arange(300) == 7, 2, Y_BIN))
    with pytest.raises(ValueError, match="at least 2 classes"):
        model(classes=[1]).fit(X_BIN, np.ones(300))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model().fit(X_BIN, Y_BIN[:-1])
    with pytest.raises(ValueError, match="0 sample"):
        model().fit(X_BIN[:0], Y_BIN[:0])
    fitted = model().fit(X_BIN, Y_BIN)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X_BIN[:, :3])


def test_sample_weight_is_not_accepted():
    with pytest.raises(TypeError, match="sample_weight"):
        model().fit(X_BIN, Y_BIN, sample_weight=np.ones(300))
