"""The certified hinge-loss solver of output perturbation: fast path, certificate, fallback."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from sklearn.datasets import make_classification

import skdp.svm._hinge as hinge
import skdp.svm._hinge_fast as fast
import skdp.svm._output as output
from skdp import PrivacyLedger
from skdp.svm import PrivateSVM, SolverCertificateError
from skdp.svm._hinge import certified_hinge_svm, hinge_gap_bound
from tests.svm.test_private_svm import NORM_BIN, SIGN_BIN, X_BIN, Y_BIN, cvxpy_hinge, design, model


def no_full_qp(*args):
    raise AssertionError("the full quadratic program was solved")


def exact_gap(w, alpha, rows, sign, C):
    """``P(w) - D(alpha)`` in exact rational arithmetic on the floats given."""
    w = [Fraction(x) for x in w]
    C = Fraction(C)
    alpha = [min(max(Fraction(a), Fraction(0)), C) for a in alpha]
    rows = [[Fraction(x) for x in row] for row in rows]
    margins = [
        Fraction(s) * sum(z * x for z, x in zip(row, w, strict=True))
        for row, s in zip(rows, sign, strict=True)
    ]
    primal = sum(x * x for x in w) / 2 + C * sum(max(Fraction(0), 1 - m) for m in margins)
    v = [
        sum(a * Fraction(s) * row[j] for a, s, row in zip(alpha, sign, rows, strict=True))
        for j in range(len(w))
    ]
    return primal - (sum(alpha) - sum(x * x for x in v) / 2)


X_MANY, Y_MANY = make_classification(n_samples=3000, n_features=6, flip_y=0.1, random_state=2)
NORM_MANY = 10.0  # above every row norm of X_MANY


@pytest.mark.parametrize("C", [0.05, 1.0, 30.0])
@pytest.mark.parametrize("many", [False, True], ids=["300-rows-whole-dual", "3000-rows-band"])
def test_fast_solver_is_certified_without_the_full_qp(monkeypatch, C, many):
    """The whole dual (<= 500 rows), or smoothed Newton + band repair: within
    max_distance of cvxpy's QP, and the full Clarabel QP is never solved."""
    monkeypatch.setattr(hinge, "_clarabel_solve", no_full_qp)
    Z = design(X_MANY, NORM_MANY) if many else design(X_BIN, NORM_BIN)
    sign = np.where(Y_MANY == 1, 1.0, -1.0) if many else SIGN_BIN
    max_distance = 1e-3 * C
    w = certified_hinge_svm(Z, sign, C, max_distance=max_distance)
    reference = cvxpy_hinge(Z, sign, C)
    assert np.linalg.norm(w - reference) <= max_distance
    np.testing.assert_allclose(w, reference, rtol=1e-5, atol=1e-6 * max(1.0, C))


def test_band_repair_adds_the_flagged_rows_until_certified():
    """A start 0.002 off and a band of 1e-4: the first round fixes rows on the wrong
    side and is not certified; a later round (wider band, flagged rows) is."""
    Z, sign, C = design(X_MANY, NORM_MANY), np.where(Y_MANY == 1, 1.0, -1.0), 1.0
    start = cvxpy_hinge(Z, sign, C) + 0.002 / np.sqrt(Z.shape[1])
    bounds = [
        hinge_gap_bound(Z.T @ (alpha * sign), alpha, Z, sign, C)
        for alpha in hinge.band_repair(Z, sign, C, start, tau=1e-4)
    ]
    assert bounds[0] > 1.0 and min(bounds[1:]) <= 1e-10


@pytest.mark.parametrize("params", [{}, {"kernel": "rbf", "n_components": 20, "gamma": 0.1}])
def test_estimator_fits_by_the_fast_solver_one_vs_rest(monkeypatch, params):
    monkeypatch.setattr(hinge, "_clarabel_solve", no_full_qp)
    X = np.vstack([X_BIN, X_BIN[:90] + 3])
    y = np.concatenate([(X_BIN[:, 0] > 0).astype(int), np.full(90, 2)])
    fitted = model(epsilon=1e9, C=0.5, data_norm=12.0, classes=[0, 1, 2], **params).fit(X, y)
    assert fitted.privacy_spent_.epsilon == 1e9 and fitted.score(X, y) > 0.8


def test_gap_bound_is_above_the_exact_gap_at_every_box_corner():
    """Adversarial alpha (all 2^n corners of [0, C]^n) and two points each: the float
    bound is never below the exact gap, and is tight to rounding."""
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(7, 3))
    rows *= (1 - 2.0**-40) / np.linalg.norm(rows, axis=1, keepdims=True).clip(1)
    sign = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0])
    C = 0.7
    for corner in itertools.product([0.0, C], repeat=len(rows)):
        alpha = np.array(corner)
        for w in (rows.T @ (alpha * sign), rng.normal(size=3)):
            bound, exact = (
                hinge_gap_bound(w, alpha, rows, sign, C),
                exact_gap(w, alpha, rows, sign, C),
            )
            assert bound >= exact >= 0
            assert bound <= float(exact) * (1 + 1e-12) + 1e-14


def test_gap_bound_accounts_for_the_rounding_of_the_margins():
    """One row, ``alpha`` near ``1 / ||z||^2``, ``w = fl(alpha z)``: the computed margin is
    often on the wrong side of its exact value, so trusting it (the naive gap from the
    computed margins) understates the exact gap; the bound never does."""
    rng = np.random.default_rng(3)
    z = rng.normal(size=(1, 5))
    z /= np.linalg.norm(z) * (1 + 1e-9)
    understated = 0
    for k in range(-8, 9):
        alpha = np.array([(1 + k * 2.0**-52) / float(z[0] @ z[0])])
        w = z.T @ alpha
        margin = float((z @ w)[0])
        naive = (2 - alpha[0]) * max(0.0, 1 - margin) + alpha[0] * max(0.0, margin - 1)
        exact = exact_gap(w, alpha, z, np.ones(1), 2.0)
        understated += naive < exact
        assert hinge_gap_bound(w, alpha, z, np.ones(1), 2.0) >= exact
    assert understated > 0


def test_tight_tol_is_certified_beyond_a_relative_rounding_allowance(monkeypatch):
    """G* = 1.25e-13 here, below 1e-13 (|P| + |D|) ~ 1.9e-11: the per-row bound proves it."""
    monkeypatch.setattr(hinge, "_clarabel_solve", no_full_qp)
    Z = design(X_BIN, NORM_BIN)
    w = certified_hinge_svm(Z, SIGN_BIN, 1.0, max_distance=5e-7)
    assert np.linalg.norm(w - cvxpy_hinge(Z, SIGN_BIN, 1.0)) <= 5e-7 + 1e-9
    assert model(tol=1e-6, C=1.0).fit(X_BIN, Y_BIN).privacy_spent_.epsilon == 1.0


def test_a_shifted_point_is_not_certified(monkeypatch):
    """The exact dual with the minimiser moved by twice the allowed distance fails."""
    Z, C, max_distance = design(X_BIN, NORM_BIN), 1.0, 0.005
    w = certified_hinge_svm(Z, SIGN_BIN, C, max_distance=max_distance)
    shifted = w + 2 * max_distance * np.eye(len(w))[0]
    alpha = np.clip(next(hinge.band_repair(Z, SIGN_BIN, C, w)), 0, C)
    assert hinge_gap_bound(w, alpha, Z, SIGN_BIN, C) <= max_distance**2 / 2
    monkeypatch.setattr(hinge, "_candidates", lambda rows, sign, C: iter([(shifted, alpha)]))
    with pytest.raises(SolverCertificateError, match="duality gap"):
        certified_hinge_svm(Z, SIGN_BIN, C, max_distance=max_distance)


def test_certificate_error_releases_and_spends_nothing(monkeypatch):
    poor = [(np.zeros(5), np.zeros(300)), (np.full(5, np.nan), np.zeros(300))]
    monkeypatch.setattr(hinge, "_candidates", lambda rows, sign, C: iter(poor))
    with pytest.raises(SolverCertificateError, match="duality gap"):
        certified_hinge_svm(design(X_BIN, NORM_BIN), SIGN_BIN, 1.0, max_distance=0.005)
    with PrivacyLedger() as ledger, pytest.raises(SolverCertificateError, match="tol"):
        model().fit(X_BIN, Y_BIN)
    assert len(ledger.entries) == 0 and ledger.total.epsilon == 0


def test_certificate_error_when_the_distance_is_below_rounding():
    with pytest.raises(SolverCertificateError):
        certified_hinge_svm(design(X_BIN, NORM_BIN), SIGN_BIN, 1.0, max_distance=1e-9)


def test_full_qp_fallback_and_its_dual_point(monkeypatch):
    """No band-repair round: the full QP; its useless primal answer is replaced by the
    point sum_i alpha_i y_i x_i of its dual answer, after a second, tighter solve."""
    Z = design(X_BIN, NORM_BIN)
    accuracies, real = [], hinge._clarabel_solve

    def bad_primal(rows, sign, C, accuracy):
        accuracies.append(accuracy)
        w, alpha = real(rows, sign, C, accuracy)
        if len(accuracies) == 1:  # the first solve is useless altogether
            return np.full_like(w, np.nan), np.zeros_like(alpha)
        return np.zeros_like(w), alpha

    monkeypatch.setattr(hinge, "band_repair", lambda *args, **kwargs: iter(()))
    monkeypatch.setattr(hinge, "_clarabel_solve", bad_primal)
    w = certified_hinge_svm(Z, SIGN_BIN, 1.0, max_distance=0.005)
    assert accuracies == [1e-12, 1e-15]
    assert np.linalg.norm(w - cvxpy_hinge(Z, SIGN_BIN, 1.0)) <= 0.005


def test_duplicate_rows_on_the_margin_are_certified():
    """Few distinct binary rows, labels at random: many rows tie on the margin."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(600, 3)).astype(float)
    y = rng.integers(0, 2, size=600)
    Z, sign = design(X, 2.0), np.where(y == 1, 1.0, -1.0)
    for C in (0.01, 1.0):
        w = certified_hinge_svm(Z, sign, C, max_distance=0.005 * C)
        assert np.linalg.norm(w - cvxpy_hinge(Z, sign, C)) <= 0.005 * C + 1e-9
    assert PrivateSVM(data_norm=2.0, mechanism="output", classes=[0, 1]).fit(X, y).coef_.shape == (
        1,
        3,
    )


def wide_rbf_data():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((1500, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.standard_normal(len(X)) > 0.5).astype(int)
    return X, y


def test_narrow_band_gram_form_matches_the_sparse_form():
    """The band dual on ``alpha`` alone (dense Gram matrix) reaches the optimum of the
    ``(alpha, u)`` form the solver used before, in the box."""
    rng = np.random.default_rng(4)
    dim, k = 120, 80
    B = rng.standard_normal((dim, k)) / np.sqrt(dim)
    fixed = 0.3 * rng.standard_normal(dim)
    for C in (1.0, 5.0):  # both with free alphas strictly inside the box
        gram, sparse = fast._band_dual_gram(B, fixed, C), fast._band_dual_sparse(B, fixed, C)
        assert np.all((gram >= 0) & (gram <= C))
        value = lambda a: 0.5 * np.sum((fixed + B @ a) ** 2) - a.sum()  # noqa: E731
        assert value(gram) == pytest.approx(value(sparse), rel=1e-9, abs=1e-9)
        assert np.abs(gram - sparse).max() < 1e-5 * C
        assert 0 < np.count_nonzero((gram > 1e-6 * C) & (gram < C * (1 - 1e-6)))


def test_wide_design_fit_matches_the_previous_band_solver(monkeypatch):
    """A wide random-feature fit whose bands go through the Gram form, against the same
    fit with every band solved by the ``(alpha, u)`` form (the code before): both
    releases are certified within ``r = tol C / 2`` of the same minimiser and draw the
    same noise, so they differ by at most ``2 r``."""
    X, y = wide_rbf_data()
    params = {
        "kernel": "rbf",
        "n_components": 300,
        "gamma": 0.2,
        "C": 1.0,
        "tol": 0.01,
        "mechanism": "output",
        "classes": [0, 1],
        "random_state": 0,
    }
    monkeypatch.setattr(hinge, "_clarabel_solve", no_full_qp)
    forms = []
    for name in ("_band_dual_gram", "_band_dual_sparse"):
        original = getattr(fast, name)

        def recording(B, fixed, C, _original=original, _name=name):
            forms.append((_name, B.shape))
            return _original(B, fixed, C)

        monkeypatch.setattr(fast, name, recording)
    solved = []

    def recording_solver(*args, **kwargs):
        solved.append(certified_hinge_svm(*args, **kwargs))
        return solved[-1]

    monkeypatch.setattr(output, "certified_hinge_svm", recording_solver)
    new = PrivateSVM(**params).fit(X, y)
    assert forms and all(form == "_band_dual_gram" for form, _ in forms)
    assert all(k <= dim for _, (dim, k) in forms)
    forms.clear()
    monkeypatch.setattr(fast, "_band_dual_gram", fast._band_dual_sparse)
    old = PrivateSVM(**params).fit(X, y)
    assert forms and all(form == "_band_dual_sparse" for form, _ in forms)
    difference = np.concatenate([new.coef_ - old.coef_, [new.intercept_ - old.intercept_]], None)
    assert np.linalg.norm(difference) <= params["tol"] * params["C"]
    # before the noise: two certified points within r of the minimiser, 2 r apart at most
    assert np.linalg.norm(solved[0] - solved[1]) <= params["tol"] * params["C"]
    np.testing.assert_array_equal(new.random_frequencies_, old.random_frequencies_)


@pytest.mark.parametrize("q", [0, 1, 30, 80, 200])
def test_newton_step_is_the_hessian_solve_either_way(q):
    """The Woodbury form (``q < dim`` quadratic rows) and the ``dim x dim`` solve give the
    Newton step of ``I + c B^T B``."""
    rng = np.random.default_rng(q)
    dim, c = 80, 500.0
    band = rng.standard_normal((q, dim)) / np.sqrt(dim)
    grad = rng.standard_normal(dim)
    step = fast._newton_step(band, c, grad)
    hessian = np.eye(dim) + c * band.T @ band
    np.testing.assert_allclose(hessian @ step, grad, rtol=0, atol=1e-9 * np.abs(grad).max())
