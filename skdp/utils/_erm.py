"""Regularised empirical risk minimisation on norm-bounded rows: the pieces that
objective perturbation (logistic, softmax, Huber) and output perturbation share.

Rows are clipped to a public L2 norm ``R`` and scaled into the unit ball, with the
intercept as a regularised constant column: ``x~ = [x, R] / (R sqrt 2)``, or ``x / R``
without an intercept (:func:`unit_ball_design`). :func:`perturbation_parameters` is the
budget rule of objective perturbation and :func:`minimise` the solver its proof needs.
"""

import math

import numpy as np
from scipy.linalg import solve
from scipy.optimize import minimize

from skdp.utils.validation import clip_rows_to_norm

__all__ = [
    "MAX_ITER",
    "Design",
    "minimise",
    "perturbation_parameters",
    "require_data_norm",
    "unit_ball_design",
]

NEWTON_ONLY_DIM = 100  # above this many parameters, L-BFGS runs before Newton
MAX_ITER = 1000  # per solver phase
# Shrinks the scaled rows by a few ulps so that ||x~|| <= 1 survives floating-point rounding.
NORM_MARGIN = 1 - 2.0**-40


def perturbation_parameters(epsilon, C, *, curvature, rank=1):
    """``(extra_regularization, noise_epsilon)`` for objective perturbation.

    The Jacobian term costs ``rank * log(1 + curvature / Lambda)`` with
    ``Lambda = 1 / C + extra``. It is left as it is when that is at most
    ``epsilon / 2``; otherwise ``extra`` brings it down to exactly ``epsilon / 2``.
    """
    cost = rank * math.log1p(curvature * C)
    if cost <= epsilon / 2:
        return 0.0, epsilon - cost
    # rounded up by a relative 2**-40 so that the float cost stays below epsilon / 2
    needed = curvature / math.expm1(epsilon / (2 * rank)) * (1 + 2.0**-40)
    return max(needed - 1 / C, 0.0), epsilon / 2


class Design:
    """The rows ``x~ = scale * [x, constant]`` (no constant without intercept), never built."""

    _BLOCK = 2**14

    def __init__(self, X, scale, constant):
        self.X, self.scale, self.constant = X, scale, constant
        self.shape = (X.shape[0], X.shape[1] + (constant is not None))

    def dot(self, W):
        """``x~ . w`` for each row: ``(n,)`` for ``W`` of shape ``(dim,)``, else ``(n, K)``."""
        out = self.X @ W[..., : self.X.shape[1]].T
        if self.constant is not None:
            out += self.constant * W[..., -1]
        out *= self.scale
        return out

    def tdot(self, V):
        """``sum_i V_i x~_i``: ``(dim,)`` for ``V`` of shape ``(n,)``, else ``(K, dim)``."""
        out = V.T @ self.X
        if self.constant is not None:
            out = np.concatenate([out, self.constant * V.sum(axis=0)[..., np.newaxis]], axis=-1)
        return out * self.scale

    def rows(self):
        """The rows ``x~`` as one dense ``(n, dim)`` array."""
        if self.constant is None:
            return self.X * self.scale
        return np.column_stack([self.X, np.full(self.shape[0], float(self.constant))]) * self.scale

    def gram(self, weight):
        """``sum_i weight_i x~_i x~_i^T``, in blocks of rows (no n x dim temporary)."""
        p, G = self.X.shape[1], np.zeros(2 * self.shape[1:])
        for start in range(0, self.shape[0], self._BLOCK):
            rows = slice(start, start + self._BLOCK)
            G[:p, :p] += (self.X[rows] * weight[rows, np.newaxis]).T @ self.X[rows]
        if self.constant is not None:
            G[:p, p] = G[p, :p] = self.constant * (weight @ self.X)
            G[p, p] = self.constant**2 * weight.sum()
        return G * self.scale**2


def minimise(problem, lam, b, tol, max_iter):
    """The minimiser of ``loss(w) + lam / 2 ||w||^2 + b.w``: damped Newton steps.

    With many parameters, where a Hessian costs much more than a gradient, L-BFGS
    brings ``w`` close first. Each phase runs at most ``max_iter`` iterations.
    """

    def objective(w):
        loss, grad = problem.loss_grad(w)
        return loss + 0.5 * lam * (w @ w) + b @ w, grad + lam * w + b

    n, dim, n_iter = problem.design.shape[0], problem.size, 0
    w = np.zeros(dim)
    if dim > NEWTON_ONLY_DIM:
        result = minimize(
            objective,
            w,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iter, "gtol": 1e-4 * (n + 1), "ftol": 1e-12},
        )
        w, n_iter = result.x, int(result.nit)
    value, grad = objective(w)
    for _ in range(max_iter):
        if np.linalg.norm(grad) <= tol * (n + np.linalg.norm(b) + lam * np.linalg.norm(w)):
            return w, n_iter, True
        hessian = problem.hessian(w)
        hessian.flat[:: dim + 1] += lam
        step = solve(hessian, grad, assume_a="pos")
        # backtracking; near the optimum the full step wins. A smaller gradient alone
        # only counts when the value rose by rounding at most: where a loss is linear
        # (Huber) its Hessian vanishes and a long Newton step could otherwise cycle
        slack = 16 * np.finfo(float).eps * (abs(value) + 1)
        for t in 0.5 ** np.arange(40):
            new_w = w - t * step
            new_value, new_grad = objective(new_w)
            if new_value < value or (
                new_value <= value + slack and np.linalg.norm(new_grad) < np.linalg.norm(grad)
            ):
                break
        w, value, grad, n_iter = new_w, new_value, new_grad, n_iter + 1
    return w, n_iter, False


def unit_ball_design(X, norm, *, fit_intercept):
    """The rows clipped to ``norm`` (with a ClippingWarning), scaled into the unit ball.

    With an intercept the constant column ``norm`` is appended before scaling by
    ``1 / (norm sqrt 2)``, so ``||x~|| <= 1``; without, the scale is ``1 / norm``.
    """
    # clip_rows_to_norm copies X: only call it when needed (an ulp off is in the margin)
    if np.any(np.einsum("ij,ij->i", X, X) > norm**2):
        X = clip_rows_to_norm(X, norm)
    if fit_intercept:
        return Design(X, NORM_MARGIN / (norm * math.sqrt(2)), norm)
    return Design(X, NORM_MARGIN / norm, None)


def require_data_norm(data_norm, estimator_name):
    """``float(data_norm)``, or a ValueError saying why it must be public and given."""
    if data_norm is None:
        raise ValueError(
            f"data_norm=None: {estimator_name} needs a public bound on the L2 norm of the "
            "rows of X (e.g. from the known ranges of the features); pass data_norm=... "
            "It is not read from the data, which would not be private."
        )
    return float(data_norm)
