"""The exact hinge-loss SVM that output perturbation needs, with a certificate.

Output perturbation adds noise calibrated to how far the *exact* minimiser moves when a
record is added or removed; a solver that stops early releases a point that may be
farther. :func:`certified_hinge_svm` solves the primal quadratic program with the
interior-point solver Clarabel and proves how close the returned point is to the
minimiser: for any feasible dual ``alpha`` the duality gap ``G = P(w) - D(alpha)`` bounds
``P(w) - P(w*)``, and ``P`` is 1-strongly convex, so ``||w - w*||_2 <= sqrt(2 G)``.
"""

import math

import clarabel
import numpy as np
import scipy.sparse as sp

__all__ = ["SolverCertificateError", "certified_hinge_svm", "hinge_duality_gap"]

# the duality gap is a difference of two sums of size ~ C n computed in float64; it is
# trusted only down to this fraction of their magnitude
_ROUNDING = 1e-13


class SolverCertificateError(RuntimeError):
    """The solver could not prove its answer close enough to the exact minimiser.

    Raised by :class:`~skdp.svm.PrivateSVM` (``mechanism="output"``) before any noise
    is drawn, so nothing is released. A larger ``tol`` makes the certificate easier to
    obtain (the noise grows by the same factor); rescaling the data can also help.

    Examples
    --------
    A ``tol`` far below the solver's floating-point accuracy cannot be certified:

    >>> from sklearn.datasets import make_classification
    >>> from skdp.svm import PrivateSVM, SolverCertificateError
    >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    >>> model = PrivateSVM(
    ...     C=0.1, data_norm=10.0, mechanism="output", classes=[0, 1], tol=1e-12, random_state=0
    ... )
    >>> try:
    ...     model.fit(X, y)
    ... except SolverCertificateError:
    ...     print("no certificate: nothing was released")
    no certificate: nothing was released
    >>> model.set_params(tol=0.01).fit(X, y).privacy_spent_.epsilon
    1.0
    """


def _primal(w, rows, sign, C):
    margins = sign * (rows @ w)
    return 0.5 * math.fsum(w * w) + C * math.fsum(np.maximum(0.0, 1.0 - margins))


def hinge_duality_gap(w, alpha, rows, sign, C):
    """``(gap, rounding)`` of ``P(w) = ||w||^2 / 2 + C sum_i max(0, 1 - y_i w.x_i)``.

    ``alpha`` is clipped into the dual's feasible box ``[0, C]`` first; the dual is
    ``D(alpha) = sum_i alpha_i - ||sum_i alpha_i y_i x_i||^2 / 2``. ``rounding`` is the
    floating-point uncertainty of the gap.
    """
    alpha = np.clip(alpha, 0.0, C)
    v = rows.T @ (alpha * sign)
    primal = _primal(w, rows, sign, C)
    dual = math.fsum(alpha) - 0.5 * math.fsum(v * v)
    return primal - dual, _ROUNDING * (abs(primal) + abs(dual) + 1.0)


def _clarabel_solve(rows, sign, C, accuracy):
    """Clarabel on ``min ||w||^2 / 2 + C sum xi`` s.t. ``xi >= 0``, ``xi >= 1 - y w.x``.

    Returns the primal ``w`` and the multipliers ``alpha`` of the margin constraints.
    """
    n, dim = rows.shape
    P = sp.block_diag([sp.identity(dim), sp.csc_matrix((n, n))], format="csc")
    q = np.concatenate([np.zeros(dim), np.full(n, C)])
    # standard form A x + s = b, s >= 0: -xi <= 0 and -y x.w - xi <= -1
    margin_rows = sp.csc_matrix(-sign[:, np.newaxis] * rows)
    A = sp.vstack(
        [
            sp.hstack([sp.csc_matrix((n, dim)), -sp.identity(n)]),
            sp.hstack([margin_rows, -sp.identity(n)]),
        ],
        format="csc",
    )
    b = np.concatenate([np.zeros(n), -np.ones(n)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = accuracy
    settings.max_iter = 500
    solution = clarabel.DefaultSolver(
        P, q, A, b, [clarabel.NonnegativeConeT(2 * n)], settings
    ).solve()
    x, z = np.asarray(solution.x), np.asarray(solution.z)
    return x[:dim], z[n:]


def certified_hinge_svm(rows, sign, C, *, max_distance):
    """The minimiser of ``||w||^2 / 2 + C sum_i max(0, 1 - y_i w.x_i)``, certified.

    Parameters
    ----------
    rows : ndarray of shape (n_samples, dim)
    sign : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    C : float
    max_distance : float
        The returned ``w`` is proved to lie within this L2 distance of the exact
        minimiser ``w*`` (duality gap ``<= max_distance**2 / 2``, after rounding).

    Returns
    -------
    w : ndarray of shape (dim,)

    Raises
    ------
    SolverCertificateError
        When neither the primal answer nor the primal point of the dual answer
        (``sum_i alpha_i y_i x_i``) is certified, even after a second, tighter solve.
    """
    allowed = 0.5 * max_distance**2
    best = math.inf
    for accuracy in (1e-12, 1e-15):
        w, alpha = _clarabel_solve(rows, sign, C, accuracy)
        alpha = np.clip(alpha, 0.0, C)
        for candidate in (w, rows.T @ (alpha * sign)):
            if not np.all(np.isfinite(candidate)):
                continue
            gap, rounding = hinge_duality_gap(candidate, alpha, rows, sign, C)
            if gap + rounding <= allowed:
                return candidate
            best = min(best, gap + rounding)
    raise SolverCertificateError(
        f"the SVM solver's duality gap ({best:.3g}) does not prove its answer within "
        f"{max_distance:.3g} of the exact minimiser, which output perturbation needs. "
        "Increase tol (the noise grows by the same factor) or rescale the data."
    )
