"""PrivateSVM: accounting, noise calibration, exactness of the solvers, random features, API."""

import math
import warnings

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, LinearSVC

import skdp.svm._output as output_module
import skdp.svm._private_svm as module
from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning, PrivacyLeakWarning
from skdp.svm import PrivateSVM
from skdp.svm._private_svm import random_fourier_features
from skdp.utils._erm import INTERCEPT_SHARE

X_BIN, Y_BIN = make_classification(n_samples=300, n_features=4, random_state=0)
NORM_BIN = 8.0  # a public bound above every row norm of X_BIN (max ~5.9)
SIGN_BIN = np.where(Y_BIN == 1, 1.0, -1.0)
X_IRIS, Y_IRIS = load_iris(return_X_y=True)
NORM_IRIS = 12.0  # above every row norm of iris (max ~11.1)
MARGIN = 1 - 2.0**-40  # the estimator's rounding margin on the scaled rows
T = INTERCEPT_SHARE  # the constant column is T * norm
LATTICE = 2.0**-12  # l2_laplace's lattice step is at most this * sensitivity / sqrt(dim)
# a declared data_norm: nothing spent on public inputs
DECLARED_SPLIT = {"n_samples": 0.0, "bounds": 0.0, "data_norm": 0.0}


def model(**params):
    defaults = {"data_norm": NORM_BIN, "classes": [0, 1], "mechanism": "output", "random_state": 0}
    return PrivateSVM(**{**defaults, **params})


def design(X, norm, fit_intercept=True):
    """The scaled rows the estimator optimises over: [x, R] / (R sqrt 2), or x / R."""
    if not fit_intercept:
        return X * (MARGIN / norm)
    return np.column_stack([X, np.full(len(X), T * norm)]) * (MARGIN / (norm * math.hypot(1, T)))


def scaled_weights(fitted, norm):
    """The fitted weights in the scaled problem, from coef_ and intercept_."""
    if not fitted.fit_intercept:
        return fitted.coef_ * (norm / MARGIN)
    weights = np.column_stack([fitted.coef_, fitted.intercept_ / (T * norm)])
    return weights * (norm * math.hypot(1, T) / MARGIN)


def liblinear_hinge(Z, sign, C):
    """liblinear's solution of ||w||^2 / 2 + C sum max(0, 1 - y w.z), no intercept."""
    reference = LinearSVC(
        loss="hinge", C=C, fit_intercept=False, dual=True, tol=1e-12, max_iter=10**6,
        random_state=0,
    )  # fmt: skip
    with warnings.catch_warnings():
        # it may stop at max_iter a little short of the optimum: the tolerance covers it
        warnings.simplefilter("ignore", ConvergenceWarning)
        return reference.fit(Z, sign > 0).coef_[0]


def cvxpy_hinge(Z, sign, C):
    """The same QP written for cvxpy (hinge as a pos() atom), solved to tight tolerances."""
    w = cp.Variable(Z.shape[1])
    hinge_sum = cp.sum(cp.pos(1 - cp.multiply(sign, Z @ w)))
    problem = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * hinge_sum))
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return w.value


def huber_objective_gradient(w, Z, sign, C, width):
    """Gradient of C sum_i huber(y_i w.z_i) + ||w||^2 / 2 (Chaudhuri et al.'s Huber loss)."""
    margin = sign * (Z @ w)
    derivative = np.where(
        margin < 1 - width,
        -1.0,
        np.where(margin > 1 + width, 0.0, -(1 + width - margin) / (2 * width)),
    )
    return C * (Z.T @ (derivative * sign)) + w


def recording(monkeypatch, name):
    """Replace <name> (a noise mechanism) by a wrapper that records its calls: output
    perturbation's mechanisms are called from skdp.svm._output."""
    where = output_module if name in ("l2_laplace", "laplace") else module
    calls, real = [], getattr(where, name)

    def wrapper(value, **kwargs):
        calls.append((np.array(value, dtype=float), kwargs))
        return real(value, **kwargs)

    monkeypatch.setattr(where, name, wrapper)
    return calls


def spends(params, X=X_BIN, y=Y_BIN):
    with PrivacyLedger() as ledger:
        fitted = model(**params).fit(X, y)
    return fitted, ledger, [(entry.mechanism, entry.epsilon) for entry in ledger.entries]


# ---------------------------------------------------------------------------- ledger


@pytest.mark.parametrize(
    ("noise", "mechanism_name"), [("l2", "l2_laplace"), ("laplace", "laplace")]
)
def test_output_ledger_spends_epsilon_once(noise, mechanism_name):
    fitted, ledger, entries = spends({"epsilon": 0.7, "noise": noise})
    assert entries == [(mechanism_name, 0.7)]
    assert ledger.total.epsilon == pytest.approx(0.7, rel=1e-12)
    assert fitted.privacy_spent_ == ledger.total
    assert fitted.epsilon_split_ == {**DECLARED_SPLIT, "noise": 0.7}


@pytest.mark.parametrize(
    ("epsilon", "C", "huber_width"),
    [(1.0, 1.0, 0.5), (1.0, 0.5, 2.0), (0.2, 1.0, 0.5), (1.0, 100.0, 0.1)],
)
def test_objective_ledger_spends_epsilon(epsilon, C, huber_width):
    params = {"epsilon": epsilon, "C": C, "huber_width": huber_width, "mechanism": "objective"}
    fitted, ledger, entries = spends(params)
    curvature = math.log1p(C / (2 * huber_width))  # log(1 + c C) with c = 1 / (2 h)
    if curvature <= epsilon / 2:
        assert fitted.extra_regularization_ == 0.0
    else:  # extra regularisation brings the Jacobian term down to epsilon / 2
        lam = 1 / C + fitted.extra_regularization_
        curvature = math.log1p(1 / (2 * huber_width) / lam)
        assert curvature <= epsilon / 2 and curvature == pytest.approx(epsilon / 2, rel=1e-9)
    assert entries == [
        ("objective_perturbation_curvature", pytest.approx(curvature, rel=1e-9)),
        ("l2_laplace_noise", pytest.approx(epsilon - curvature, rel=1e-9)),
    ]
    assert ledger.total.epsilon == pytest.approx(epsilon, rel=1e-12)
    assert fitted.privacy_spent_ == ledger.total
    assert fitted.epsilon_split_ == pytest.approx(
        {**DECLARED_SPLIT, "noise": epsilon - curvature, "curvature": curvature}, rel=1e-9
    )
    assert math.fsum(fitted.epsilon_split_.values()) == pytest.approx(epsilon, rel=1e-12)


@pytest.mark.parametrize(
    ("params", "per_class"),
    [
        ({"mechanism": "output", "noise": "l2"}, ["l2_laplace"]),
        ({"mechanism": "output", "noise": "laplace"}, ["laplace"]),
        ({"mechanism": "objective"}, ["objective_perturbation_curvature", "l2_laplace_noise"]),
        ({"kernel": "rbf", "n_components": 20}, ["l2_laplace"]),
    ],
)
def test_one_vs_rest_spends_epsilon_over_k_per_class(params, per_class):
    params = {"epsilon": 1.5, "data_norm": NORM_IRIS, "classes": [0, 1, 2], **params}
    fitted, ledger, entries = spends(params, X_IRIS, Y_IRIS)
    assert [name for name, _ in entries] == per_class * 3
    k = len(per_class)
    for start in range(0, len(entries), k):
        share = math.fsum(spend for _, spend in entries[start : start + k])
        assert share == pytest.approx(0.5, rel=1e-12)
    assert ledger.total.epsilon == pytest.approx(1.5, rel=1e-12)
    assert fitted.privacy_spent_ == ledger.total
    assert math.fsum(fitted.epsilon_split_.values()) == pytest.approx(1.5, rel=1e-12)
    n_features = 20 if params.get("kernel") == "rbf" else 4
    assert fitted.coef_.shape == (3, n_features) and fitted.intercept_.shape == (3,)


# ------------------------------------------------------------- output noise calibration


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("noise", ["l2", "laplace"])
def test_output_noise_is_calibrated_to_one_plus_tol_times_c(monkeypatch, noise, fit_intercept):
    """Delta = C for add/remove; (1 + tol) covers the certified solver error; L1 <= sqrt(d) L2."""
    calls = recording(monkeypatch, "l2_laplace" if noise == "l2" else "laplace")
    C, tol = 2.5, 0.04
    model(epsilon=0.8, C=C, tol=tol, noise=noise, fit_intercept=fit_intercept).fit(X_BIN, Y_BIN)
    dim = 4 + fit_intercept
    expected = (1 + tol) * C * (1.0 if noise == "l2" else math.sqrt(dim))
    [(value, kwargs)] = calls
    assert value.shape == (dim,)
    assert kwargs["sensitivity"] == pytest.approx(expected, rel=1e-12)
    assert kwargs["epsilon"] == 0.8


@pytest.mark.parametrize("noise", ["l2", "laplace"])
def test_one_vs_rest_noise_per_class(monkeypatch, noise):
    calls = recording(monkeypatch, "l2_laplace" if noise == "l2" else "laplace")
    model(epsilon=1.5, C=0.3, noise=noise, data_norm=NORM_IRIS, classes=[0, 1, 2]).fit(
        X_IRIS, Y_IRIS
    )
    scale = 1.0 if noise == "l2" else math.sqrt(5)
    assert len(calls) == 3
    for _, kwargs in calls:
        assert kwargs["sensitivity"] == pytest.approx(scale * 1.01 * 0.3, rel=1e-12)
        assert kwargs["epsilon"] == pytest.approx(0.5, rel=1e-12)


# ---------------------------------------------------- exactness: large epsilon, solvers


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("C", [0.1, 1.0])
def test_large_epsilon_output_recovers_liblinear_on_the_scaled_design(
    monkeypatch, C, fit_intercept
):
    calls = recording(monkeypatch, "l2_laplace")
    fitted = model(epsilon=1e12, C=C, fit_intercept=fit_intercept).fit(X_BIN, Y_BIN)
    reference = liblinear_hinge(design(X_BIN, NORM_BIN, fit_intercept), SIGN_BIN, C)
    [(exact, kwargs)] = calls
    # the certified minimiser handed to the noise is sklearn's
    np.testing.assert_allclose(exact, reference, rtol=1e-5, atol=1e-6)
    # the release differs from it by the lattice rounding only (the noise is ~1e-12)
    half_step = LATTICE / 2 * kwargs["sensitivity"] / math.sqrt(exact.size)
    released = scaled_weights(fitted, NORM_BIN)[0]
    np.testing.assert_allclose(released, reference, rtol=0, atol=half_step + 1e-5)
    assert np.abs(released - exact).max() <= half_step * (1 + 1e-9)
    if not fit_intercept:
        assert np.all(fitted.intercept_ == 0)


def test_large_epsilon_output_one_vs_rest_recovers_the_exact_qp(monkeypatch):
    """Versicolor-vs-rest is far from separable: liblinear's coordinate descent (random
    order, no seed) can stop ~5% short of it, so the reference is the QP to 1e-12."""
    calls = recording(monkeypatch, "l2_laplace")
    fitted = model(epsilon=1e12, C=1.0, data_norm=NORM_IRIS, classes=[0, 1, 2]).fit(X_IRIS, Y_IRIS)
    Z = design(X_IRIS, NORM_IRIS)
    released = scaled_weights(fitted, NORM_IRIS)
    for k, (exact, _) in enumerate(calls):
        reference = cvxpy_hinge(Z, np.where(Y_IRIS == k, 1.0, -1.0), 1.0)
        np.testing.assert_allclose(exact, reference, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(released[k], reference, rtol=0, atol=1e-4)
    # predict is the argmax of the per-class scores of the scaled problem
    np.testing.assert_array_equal(fitted.predict(X_IRIS), (Z @ released.T).argmax(axis=1))


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize(("C", "huber_width"), [(1.0, 0.5), (10.0, 0.1), (0.2, 2.0)])
def test_large_epsilon_objective_is_the_huber_minimiser(C, huber_width, fit_intercept):
    fitted = model(
        epsilon=1e12, C=C, huber_width=huber_width, mechanism="objective",
        fit_intercept=fit_intercept,
    ).fit(X_BIN, Y_BIN)  # fmt: skip
    assert fitted.extra_regularization_ == 0.0
    w = scaled_weights(fitted, NORM_BIN)[0]
    Z = design(X_BIN, NORM_BIN, fit_intercept)
    gradient = huber_objective_gradient(w, Z, SIGN_BIN, C, huber_width)
    # Newton stops at ||grad|| <= 1e-10 (n + ...) on the loss + ||w||^2 / (2 C) scale
    assert np.linalg.norm(gradient) <= 1e-9 * C * len(Z)
    assert np.linalg.norm(w) > 0.5  # and the minimiser is not trivial
    # the quadratic part matters: the hinge minimiser is elsewhere
    assert np.linalg.norm(w - liblinear_hinge(Z, SIGN_BIN, C)) > 1e-3


@pytest.mark.parametrize(
    ("params", "X", "y"),
    [
        # iris at the default epsilon and C: seed 4 cycles in one of the three problems
        ({"data_norm": NORM_IRIS, "classes": [0, 1, 2], "random_state": 4}, X_IRIS, Y_IRIS),
        # one record at x = 1, C = 100: w = 0 -> 50 -> 0 -> ... (Lambda = 0.01)
        (
            {"epsilon": 1e12, "C": 100.0, "data_norm": 1.0, "fit_intercept": False},
            [[0.0], [1.0]],
            [0, 1],
        ),
    ],
    ids=["iris", "one-record"],
)
def test_objective_newton_converges_where_the_huber_loss_is_linear(params, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model(mechanism="objective", **params).fit(X, y)


def test_objective_warns_when_newton_does_not_converge(monkeypatch):
    monkeypatch.setattr(module, "MAX_ITER", 1)
    with pytest.warns(ConvergenceWarning, match="exact minimiser"):
        model(mechanism="objective").fit(X_BIN, Y_BIN)


# ---------------------------------------------------------------- random Fourier features

X_MOONS, Y_MOONS = make_moons(n_samples=200, noise=0.2, random_state=0)


def rbf(**params):
    return model(**{"kernel": "rbf", "data_norm": None, **params})


def test_random_frequencies_do_not_depend_on_the_data():
    other_X = np.random.default_rng(5).normal(size=(50, 2)) * 10
    other_y = np.arange(50) % 2
    first = rbf(n_components=60, gamma=0.5).fit(X_MOONS, Y_MOONS)
    second = rbf(n_components=60, gamma=0.5).fit(other_X, other_y)
    np.testing.assert_array_equal(first.random_frequencies_, second.random_frequencies_)
    assert first.random_frequencies_.shape == (30, 2)
    reseeded = rbf(n_components=60, gamma=0.5, random_state=1).fit(X_MOONS, Y_MOONS)
    assert not np.array_equal(first.random_frequencies_, reseeded.random_frequencies_)


def test_rbf_model_holds_no_training_points():
    fitted = rbf(n_components=60).fit(X_MOONS, Y_MOONS)
    assert fitted.random_frequencies_.shape == (30, 2)
    assert fitted.coef_.shape == (1, 60) and fitted.intercept_.shape == (1,)
    assert not hasattr(fitted, "support_vectors_") and not hasattr(fitted, "dual_coef_")
    # no training row is among the released arrays
    released = np.vstack([fitted.random_frequencies_, fitted.coef_.reshape(-1, 2)])
    assert not (released[:, None, :] == X_MOONS[None, :, :]).all(axis=2).any()


def test_random_features_have_norm_one_and_approximate_the_rbf_kernel():
    X = np.random.default_rng(0).normal(size=(6, 3))
    fitted = rbf(n_components=8000, gamma=0.7).fit(X, [0, 1] * 3)
    features = random_fourier_features(X, fitted.random_frequencies_)
    np.testing.assert_allclose(np.linalg.norm(features, axis=1), 1.0, rtol=1e-12)
    kernel = np.exp(-0.7 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    # 4000 frequencies: the error of each entry has standard deviation below 0.016
    np.testing.assert_allclose(features @ features.T, kernel, atol=0.07)


def test_rbf_ignores_data_norm():
    fitted = rbf(n_components=40).fit(X_MOONS, Y_MOONS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        tiny_norm = rbf(n_components=40, data_norm=1e-3).fit(X_MOONS, Y_MOONS)
    np.testing.assert_array_equal(fitted.coef_, tiny_norm.coef_)
    np.testing.assert_array_equal(fitted.intercept_, tiny_norm.intercept_)


@pytest.mark.parametrize("mechanism", ["output", "objective"])
def test_rbf_at_large_epsilon_is_close_to_sklearn_svc(mechanism):
    X_test, y_test = make_moons(n_samples=2000, noise=0.2, random_state=1)
    fitted = rbf(
        epsilon=1e12, C=10.0, gamma=1.0, n_components=400, mechanism=mechanism
    ).fit(X_MOONS, Y_MOONS)  # fmt: skip
    reference = SVC(kernel="rbf", gamma=1.0, C=10.0).fit(X_MOONS, Y_MOONS)
    accuracy = fitted.score(X_test, y_test)
    assert accuracy > 0.9
    assert abs(accuracy - reference.score(X_test, y_test)) <= 0.05


def test_rbf_decision_function_shapes_and_predict():
    binary = rbf(n_components=40).fit(X_MOONS, Y_MOONS)
    scores = binary.decision_function(X_MOONS)
    assert scores.shape == (200,)
    np.testing.assert_array_equal(binary.predict(X_MOONS), (scores > 0).astype(int))
    three = rbf(n_components=40, classes=[0, 1, 2], gamma=0.1).fit(X_IRIS, Y_IRIS)
    scores = three.decision_function(X_IRIS)
    assert scores.shape == (150, 3)
    np.testing.assert_array_equal(three.predict(X_IRIS), scores.argmax(axis=1))
    assert three.random_frequencies_.shape == (20, 4) and three.coef_.shape == (3, 40)


@pytest.mark.parametrize(("n_components", "n_frequencies"), [(41, 21), (1, 1), (2, 1)])
def test_odd_n_components_gets_one_more_feature(n_components, n_frequencies):
    fitted = rbf(n_components=n_components).fit(X_MOONS, Y_MOONS)
    assert fitted.random_frequencies_.shape == (n_frequencies, 2)
    assert fitted.coef_.shape == (1, 2 * n_frequencies)
    assert fitted.decision_function(X_MOONS).shape == (200,)


# -------------------------------------------------------------------------------- API


@pytest.mark.parametrize("mechanism", ["output", "objective"])
def test_binary_shapes_and_accuracy_at_moderate_epsilon(mechanism):
    fitted = model(epsilon=2.0, C=0.1, mechanism=mechanism).fit(X_BIN, Y_BIN)
    assert fitted.coef_.shape == (1, 4) and fitted.intercept_.shape == (1,)
    assert fitted.decision_function(X_BIN).shape == (300,)
    assert fitted.score(X_BIN, Y_BIN) > 0.8


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_pandas_input_gives_the_same_model_and_keeps_feature_names(kernel):
    params = {"kernel": kernel, "n_components": 20}
    frame = pd.DataFrame(X_BIN, columns=["a", "b", "c", "d"])
    fitted = model(**params).fit(frame, Y_BIN)
    from_numpy = model(**params).fit(X_BIN, Y_BIN)
    np.testing.assert_array_equal(fitted.feature_names_in_, ["a", "b", "c", "d"])
    np.testing.assert_array_equal(fitted.coef_, from_numpy.coef_)
    np.testing.assert_array_equal(fitted.intercept_, from_numpy.intercept_)
    np.testing.assert_array_equal(fitted.predict(frame), from_numpy.predict(X_BIN))
    assert not hasattr(from_numpy, "feature_names_in_")


@pytest.mark.parametrize(
    "params", [{}, {"mechanism": "objective"}, {"noise": "laplace"}, {"kernel": "rbf"}]
)
def test_seed_reproduces_and_other_seeds_differ(params):
    params = {"n_components": 20, **params}
    first = model(random_state=3, **params).fit(X_BIN, Y_BIN)
    again = model(random_state=3, **params).fit(X_BIN, Y_BIN)
    other = model(random_state=4, **params).fit(X_BIN, Y_BIN)
    np.testing.assert_array_equal(first.coef_, again.coef_)
    np.testing.assert_array_equal(first.intercept_, again.intercept_)
    assert not np.array_equal(first.coef_, other.coef_)


@pytest.mark.parametrize(
    "params", [{}, {"mechanism": "objective"}, {"kernel": "rbf", "n_components": 20}]
)
def test_inputs_are_not_mutated(params):
    X, y = X_BIN.copy(), Y_BIN.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        fitted = model(data_norm=2.0, **params).fit(X, y)  # rows get clipped
        fitted.predict(X)
    np.testing.assert_array_equal(X, X_BIN)
    np.testing.assert_array_equal(y, Y_BIN)


def test_public_class_order_is_kept():
    labels = np.where(Y_BIN == 1, "no", "yes")
    fitted = model(epsilon=1e6, classes=["yes", "no"]).fit(X_BIN, labels)
    np.testing.assert_array_equal(fitted.classes_, ["yes", "no"])
    assert (fitted.predict(X_BIN) == labels).mean() > 0.9


def test_classes_from_y_warn_of_the_leak():
    with pytest.warns(PrivacyLeakWarning, match="classes=None"):
        fitted = model(classes=None).fit(X_BIN, Y_BIN)
    np.testing.assert_array_equal(fitted.classes_, [0, 1])


def test_rows_beyond_data_norm_are_clipped_with_a_warning():
    params = {"epsilon": 1e12, "data_norm": 2.0, "mechanism": "objective"}
    with pytest.warns(ClippingWarning, match=r"rows of X had an L2 norm above 2"):
        clipped = model(**params).fit(X_BIN, Y_BIN)
    # the clipped fit is the fit on the clipped rows
    norms = np.linalg.norm(X_BIN, axis=1, keepdims=True)
    X_clipped = X_BIN * np.minimum(1, 2.0 / norms) * (1 - 2.0**-50)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        reference = model(**params).fit(X_clipped, Y_BIN)
        model().fit(X_BIN, Y_BIN)  # every row within NORM_BIN: no warning
    np.testing.assert_allclose(clipped.coef_, reference.coef_, rtol=1e-8)
    np.testing.assert_allclose(clipped.intercept_, reference.intercept_, rtol=1e-8)


# -------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"data_norm": 0.0}, "'data_norm' parameter"),
        ({"data_norm": -1.0}, "'data_norm' parameter"),
        ({"kernel": "poly"}, "'kernel' parameter"),
        ({"mechanism": "foo"}, "'mechanism' parameter"),
        ({"noise": "gaussian"}, "'noise' parameter"),
        ({"tol": 0.0}, "'tol' parameter"),
        ({"tol": 1.5}, "'tol' parameter"),
        ({"C": 0.0}, "'C' parameter"),
        ({"C": math.inf}, "'C' parameter"),
        ({"gamma": 0.0}, "'gamma' parameter"),
        ({"huber_width": 0.0}, "'huber_width' parameter"),
        ({"n_components": 0}, "'n_components' parameter"),
        ({"epsilon": 0.0}, "'epsilon' parameter"),
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
    with pytest.raises(ValueError, match=r"labels not in classes: \['2'\]"):
        model().fit(X_BIN, np.where(np.arange(300) == 7, 2, Y_BIN))
    fitted = model().fit(X_BIN, Y_BIN)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X_BIN[:, :3])
    fitted = rbf(n_components=20).fit(X_BIN, Y_BIN)
    with pytest.raises(ValueError, match="features"):
        fitted.decision_function(X_BIN[:, :3])
