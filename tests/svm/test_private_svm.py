"""PrivateSVM's mechanisms: accounting, noise calibration, exactness of the solvers.

The estimator's interface (random features, shapes, inputs, errors) is tested in
test_private_svm_interface.py."""

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

import skdp.svm._output as output_module
import skdp.svm._private_svm as module
from skdp import PrivacyLedger
from skdp.svm import PrivateSVM
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
