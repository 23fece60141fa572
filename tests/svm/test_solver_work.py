"""What PrivateSVM's solvers do besides finding the model: BLAS threads, the points
evaluated, the copies of the data (no timing: the work itself)."""

import math
import tracemalloc
import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import skdp.svm._output as output_module
import skdp.svm._private_svm as module
import skdp.utils._erm as erm
import skdp.utils._erm_solver as erm_solver
from skdp.exceptions import ClippingWarning
from skdp.linear_model import ObjectivePerturbationLogistic
from skdp.svm._huber import Huber
from skdp.utils._erm import Design, unit_ball_design
from skdp.utils.validation import clip_rows_to_norm
from tests.svm.test_private_svm import X_BIN, Y_BIN, model


def _blas_threads():
    """``{library: threads}`` of the loaded BLAS libraries (some are single-threaded)."""
    return {
        pool["filepath"]: pool["num_threads"]
        for pool in threadpool_info()
        if pool["user_api"] == "blas"
    }


@pytest.mark.parametrize(
    ("mechanism", "where", "name"),
    [("objective", Huber, "__call__"), ("output", output_module, "certified_hinge_svm")],
)
def test_narrow_designs_are_solved_with_one_blas_thread(monkeypatch, mechanism, where, name):
    seen, real = [], getattr(where, name)

    def recording(*args, **kwargs):
        if not seen:
            seen.append(_blas_threads())  # inside the solver
        return real(*args, **kwargs)

    monkeypatch.setattr(where, name, recording)
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        model(mechanism=mechanism).fit(X_BIN, Y_BIN)
        after = _blas_threads()
    assert 2 in before.values()  # numpy's BLAS, at least
    assert len(seen) == 1 and set(seen[0].values()) == {1}
    assert after == before  # restored for the caller


def test_newton_trials_stay_within_the_strong_convexity_radius(monkeypatch):
    # at w = 0 every Huber margin is on the linear side: the Hessian vanishes and the
    # plain Newton step (about n / lam long) was tried first, far outside the region
    # that can hold the minimiser
    points, problem = [], {}
    real_call, real_minimise = Huber.__call__, module.minimise

    def recording_call(self, X, codes, *, w, hessian=False):
        points.append(w.copy())
        return real_call(self, X, codes, w=w, hessian=hessian)

    def recording_minimise(loss, X, codes, lam, b, tol, max_iter):
        problem.update(lam=lam, b=b, n=X.shape[0])
        return real_minimise(loss, X, codes, lam, b, tol, max_iter)

    monkeypatch.setattr(Huber, "__call__", recording_call)
    monkeypatch.setattr(module, "minimise", recording_minimise)
    model(mechanism="objective", C=100.0, epsilon=100.0).fit(X_BIN, Y_BIN)
    lam, b = problem["lam"], problem["b"]
    # every iterate has a value at most f(0) = n (the Huber loss is 1 at margin 0), so
    # ||w - w*||^2 <= 2 (f(0) + ||b||^2 / (2 lam)) / lam; a capped trial at most twice that
    radius = math.sqrt(2 * (problem["n"] + (b @ b) / (2 * lam)) / lam)
    distances = [np.linalg.norm(w - points[-1]) for w in points]
    assert max(distances) <= 2 * radius


def test_the_dense_rows_are_built_in_one_allocation():
    X = np.random.default_rng(0).normal(size=(20_000, 5))
    design = Design(X, 0.25, 3.0)
    tracemalloc.start()
    try:
        rows = design.rows()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # column_stack then scale would be two n x dim arrays (+800 KB); numpy 1's ufunc
    # buffers for the strided output add ~130 KB whatever n is
    assert peak <= rows.nbytes + 2**18
    expected = np.column_stack([X, np.full(len(X), 3.0)]) * 0.25
    np.testing.assert_array_equal(rows, expected)


def test_own_rows_are_clipped_in_place_as_a_copy_would_be():
    X = np.random.default_rng(1).normal(size=(500, 3))
    with pytest.warns(ClippingWarning, match=r"of 500 rows of X had an L2 norm above 1.5"):
        expected = clip_rows_to_norm(X, 1.5)
    own = X.copy()
    with pytest.warns(ClippingWarning, match=r"of 500 rows of X had an L2 norm above 1.5"):
        design = unit_ball_design(own, 1.5, fit_intercept=True, overwrite=True)
    assert design.X is own
    np.testing.assert_allclose(own, expected, rtol=1e-15)
    assert np.linalg.norm(own, axis=1).max() <= 1.5 * (1 + 1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        untouched = X.copy()
        unit_ball_design(untouched, 1.5, fit_intercept=True)
    np.testing.assert_array_equal(untouched, X)


@pytest.mark.parametrize("loss", ["huber", "logistic"])
def test_large_fits_start_newton_from_a_subsample(monkeypatch, loss):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(100_000, 3))
    y = (X @ [1.0, -1.0, 0.5] + rng.logistic(scale=0.3, size=len(X)) > 0).astype(int)
    make = {
        "huber": lambda: model(mechanism="objective", data_norm=2.0),
        "logistic": lambda: ObjectivePerturbationLogistic(data_norm=2.0, classes=[0, 1]),
    }[loss]  # PrivateSVM and ObjectivePerturbationLogistic share the solver
    passes, real = [], erm.sum_blocks

    def counting(function, *arrays):
        passes.append(arrays[0].shape[0])
        return real(function, *arrays)

    monkeypatch.setattr(erm, "sum_blocks", counting)
    warm = make().set_params(random_state=0).fit(X, y)
    assert passes.count(len(X)) <= 4  # from w = 0: 7 (logistic), 11 (Huber)
    monkeypatch.setattr(erm_solver, "WARM_ROWS", len(X))  # no warm start
    cold = make().set_params(random_state=0).fit(X, y)
    np.testing.assert_allclose(warm.coef_, cold.coef_, rtol=1e-7)
    np.testing.assert_allclose(warm.intercept_, cold.intercept_, rtol=1e-7)
