"""The solver of :mod:`skdp.utils._erm`: damped Newton steps on a strongly convex objective.

Objective perturbation's proof needs the exact minimiser of
``loss(w) + lam / 2 ||w||^2 + b.w`` (to a stated tolerance), and output perturbation's
sensitivity bound is for that minimiser too. :func:`minimise` finds it with damped
Newton steps from a warm start on a regular subsample, L-BFGS first when there are many
parameters; the loss is any :class:`skdp.utils._erm.RowLoss`, summed over numpy or dask
row blocks.
"""

import contextlib
import functools
import math

import numpy as np
from scipy.linalg import solve
from scipy.optimize import minimize
from threadpoolctl import ThreadpoolController

from skdp.utils._stats import count_rows, is_dask_collection

__all__ = ["MAX_ITER", "SINGLE_THREAD_DIM", "blas_threads", "minimise"]

NEWTON_ONLY_DIM = 100  # above this many parameters, L-BFGS runs before Newton
MAX_ITER = 1000  # per solver phase
WARM_ROWS = 20_000  # rows of the subsample a warm start is found on (_warm_start)
WARM_TOL = 1e-4  # its stopping rule: the subsample's own error is larger
# a full Newton step is predicted to end at the stopping rule (and the Hessian there is
# not summed) when rate * ||grad||^2 is below the rule's bound divided by this
PREDICTION_MARGIN = 16

# Designs of at most this many columns are solved with one BLAS thread (blas_threads).
SINGLE_THREAD_DIM = 1024


def blas_threads(dim):
    """One BLAS thread for a design of at most ``SINGLE_THREAD_DIM`` columns (a context).

    The solvers' products are tall and skinny: ``n x dim`` times a vector, and
    ``dim x dim`` Hessians summed over row blocks. Per call there is too little work
    for threads to pay, and on a busy machine every threaded call waits for its
    slowest thread. Measured on the 2-core machine under a load of 20 (10^6 x 10,
    Hessian in blocks of 2^14 rows): 46 ms CPU and 0.42 s wall with one thread,
    437 ms CPU and 2.3 s wall with two. At load 2, one thread against two: Adult
    one-hot (108 columns) PrivateSVM 1.27 s against 2.6 s wall (CPU 1.27 against
    5.2 s), ObjectivePerturbationLogistic 0.44 against 0.69 s; 500 random Fourier
    features 0.50 against 0.80 s; 2000 features (objective) 1.55 against 1.74 s.
    Only output perturbation on 2000 features gained from two threads (188 against
    232 s wall, for 10% more CPU), so designs wider than ``SINGLE_THREAD_DIM`` keep
    the library's threads.
    """
    if dim <= SINGLE_THREAD_DIM:
        return _threadpools().limit(limits=1, user_api="blas")
    return contextlib.nullcontext()


@functools.cache
def _threadpools():
    """The process's thread pools, found once (a scan of the loaded libraries)."""
    return ThreadpoolController()


def minimise(loss, X, codes, lam, b, tol, max_iter):
    """The minimiser of ``loss(w) + lam / 2 ||w||^2 + b.w``: damped Newton steps.

    ``loss`` (a :class:`RowLoss`) is summed over the rows ``X`` with class codes
    ``codes``: numpy arrays, or dask arrays with the same row blocks (kept in memory:
    every evaluation is one pass over the blocks, which returns the loss, the gradient
    and, in the Newton phase, the Hessian). With many parameters, where a Hessian costs
    much more than a gradient, L-BFGS brings ``w`` close first. Each phase runs at most
    ``max_iter`` iterations. Returns ``(w, iterations, converged)``. Runs with one BLAS
    thread on narrow designs (:func:`blas_threads`).
    """
    with blas_threads(loss.columns):
        try:
            start = _warm_start(loss, X, codes, lam, b, max_iter)
            return _damped_newton(loss, X, codes, lam, b, tol, max_iter, start)
        finally:
            loss.release()  # one problem's block arrays at a time (one-vs-rest)


def _warm_start(loss, X, codes, lam, b, max_iter):
    """Where the Newton steps start: the minimiser on every ``k``-th row, or None.

    On numpy input of more than ``4 WARM_ROWS`` rows, ``m ~ WARM_ROWS`` regularly spaced
    rows stand for all ``n``: ``(n / m) sum_sub l`` estimates the summed loss, so the
    start minimises ``sum_sub l + (m / n) (lam / 2 ||w||^2 + b.w)`` to ``WARM_TOL``.
    Newton's steps on all rows then need two or three iterations instead of five or
    more. Only the path changes: the answer is the whole objective's minimiser to
    ``tol`` (the stopping rule of :func:`minimise`), whatever the start.
    """
    n = count_rows(X)
    if is_dask_collection(X) or n < 4 * WARM_ROWS:
        return None
    every = n // WARM_ROWS
    loss, rows = loss.mapped(X, slice(None, None, every))  # the subsample, mapped once
    sub_codes, ratio = codes[::every], rows.shape[0] / n
    return _damped_newton(loss, rows, sub_codes, lam * ratio, b * ratio, WARM_TOL, max_iter)[0]


def _damped_newton(loss, X, codes, lam, b, tol, max_iter, w=None):
    """:func:`minimise` from ``w`` (default 0; L-BFGS first on many parameters)."""

    def objective(w, hessian=False):
        value, grad, *H = loss.summed(X, codes, w=w, hessian=hessian)
        return value + 0.5 * lam * (w @ w) + b @ w, grad + lam * w + b, *H

    n, dim, n_iter = count_rows(X), loss.size, 0
    w = np.zeros(dim) if w is None else w
    if dim > NEWTON_ONLY_DIM:
        result = minimize(
            objective,
            w,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iter, "gtol": 1e-4 * (n + 1), "ftol": 1e-12},
        )
        w, n_iter = result.x, int(result.nit)
    value, grad, hessian = objective(w, hessian=True)
    rate = None  # of quadratic convergence, ||g+|| / ||g||^2, measured at the last full step
    for _ in range(max_iter):
        bound = tol * (n + np.linalg.norm(b) + lam * np.linalg.norm(w))
        if np.linalg.norm(grad) <= bound:
            return w, n_iter, True
        if hessian is None:  # predicted to stop here, but did not: the same pass again
            hessian = objective(w, hessian=True)[2]
        hessian.flat[:: dim + 1] += lam
        step = solve(hessian, grad, assume_a="pos")
        # backtracking; near the optimum the full step wins. A smaller gradient alone
        # only counts when the value rose by rounding at most: where a loss is linear
        # (Huber) its Hessian vanishes and a long Newton step could otherwise cycle
        # (rounding of value, whose terms cancel: the loss, lam/2 ||w||^2 and b.w)
        slack = 16 * np.finfo(float).eps * (abs(value) + lam * (w @ w) + 2 * abs(b @ w) + 1)
        t = min(1.0, _radius(value, lam, b) / np.linalg.norm(step))
        for _ in range(40):
            new_w = w - t * step
            # the Hessian at the point where the rule stops is never used: not summed
            # when the full step is predicted to end there (an error costs one pass)
            last = (
                t == 1 and rate is not None and rate * (grad @ grad) <= bound / PREDICTION_MARGIN
            )
            new_value, new_grad, *new_hessian = objective(new_w, hessian=not last)
            if new_value < value or (
                new_value <= value + slack and np.linalg.norm(new_grad) < np.linalg.norm(grad)
            ):
                break
            t = _shorter_step(t, value, -(grad @ step), new_value)
        else:  # no descent left above rounding: w is as close as float64 gets
            return w, n_iter, False
        rate = np.linalg.norm(new_grad) / (grad @ grad) if t == 1 else None
        w, value, grad, hessian = new_w, new_value, new_grad, (new_hessian or [None])[0]
        n_iter += 1
    return w, n_iter, False


def _radius(value, lam, b):
    """A bound on the distance from ``w`` to the minimiser, ``value`` the objective at ``w``.

    Every :class:`RowLoss` is non-negative, so the objective is at least
    ``min_v lam / 2 ||v||^2 + b.v = -||b||^2 / (2 lam)``, and ``lam``-strong convexity
    gives ``lam / 2 ||w - w*||^2 <= value - objective(w*)``. No longer step can help:
    it caps the first trial (at ``w = 0`` the Huber loss is linear in every row, its
    Hessian vanishes and the Newton step is about ``n / lam`` long).
    """
    return math.sqrt(2 * max(value + (b @ b) / (2 * lam), 0.0) / lam)


def _shorter_step(t, value, slope, new_value):
    """The next trial length after the step ``t`` failed (``slope``: the derivative at 0).

    The minimiser of the parabola through ``value`` and ``slope`` at 0 and ``new_value``
    at ``t``, kept in ``[t / 10, t / 2]`` (Nocedal and Wright, Numerical Optimization,
    2006, section 3.5). Where a loss is linear in most rows (the Huber loss at
    ``w = 0``) the first Newton step is about ``n`` times too long: halving took
    ``log2(n)`` evaluations (22 in all at 10^6 rows), the parabola about ``log10(n)``.
    """
    curvature = new_value - value - slope * t
    if not curvature > 0:  # not a convex parabola in floating point: halve
        return t / 2
    return min(max(-slope * t * t / (2 * curvature), t / 10), t / 2)
