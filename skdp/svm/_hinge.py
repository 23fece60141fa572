"""The exact hinge-loss SVM that output perturbation needs, with a certificate.

Output perturbation adds noise calibrated to how far the *exact* minimiser of
``P(w) = ||w||^2 / 2 + C sum_i max(0, 1 - y_i w.z_i)`` (rows ``||z_i|| <= 1``) moves when a
record is added or removed; a solver that stops early releases a point that may be
farther. :func:`certified_hinge_svm` returns a point ``w`` *proved* to lie within a
given distance of the minimiser ``w*``: for any ``alpha`` in the dual box ``[0, C]^n``,
the duality gap ``G = P(w) - D(alpha)`` bounds ``P(w) - P(w*)``, and ``P`` is 1-strongly
convex, so ``||w - w*|| <= sqrt(2 G)`` (:func:`hinge_gap_bound` bounds ``G`` in floating
point). The candidates come from the fast solver of :mod:`skdp.svm._hinge_fast`
(smoothed Newton start, then an exact dual on the band of rows near the margin) and,
only when none of its rounds is certified, from the full quadratic program solved by
the interior-point solver Clarabel.
"""

import math

import clarabel
import numpy as np
import scipy.sparse as sp

from skdp.svm._hinge_fast import band_repair, smoothed_start

__all__ = ["SolverCertificateError", "certified_hinge_svm", "hinge_gap_bound"]

_U = 2.0**-53  # unit roundoff of float64
SMALL = 500  # rows up to which the fast path solves the whole dual exactly


def _gamma(k):
    """Higham's ``gamma_k = k u / (1 - k u)``: the relative error bound of a sum or dot
    product of ``k`` terms in any order (with or without fused multiply-adds)."""
    return k * _U / (1 - k * _U)


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


def hinge_gap_bound(w, alpha, rows, sign, C):
    """An upper bound, valid in floating point, on ``P(w) - D(alpha)``.

    ``P(w) = ||w||^2 / 2 + C sum_i max(0, 1 - m_i)`` with ``m_i = y_i w.z_i``, and
    ``D(alpha) = sum_i alpha_i - ||v||^2 / 2`` with ``v = sum_i alpha_i y_i z_i``, for
    ``alpha`` clipped into ``[0, C]`` and rows ``||z_i|| <= 1``. Expanding both,

        P(w) - D(alpha) = ||w - v||^2 / 2
                          + sum_i [(C - alpha_i) (1 - m_i)_+ + alpha_i (m_i - 1)_+],

    every term non-negative (speed_and_parity.md A3.2). In float64 ``v`` is computed to
    within ``gamma_n sum_i alpha_i`` in L2 norm and each margin to within
    ``e = gamma_dim ||w||`` (Cauchy-Schwarz with ``||z_i|| <= 1``; Higham 2002, section
    3.1, any summation order), so ``1 - m_i`` is bracketed by its computed value plus
    or minus ``e`` and the rounding of the subtraction; the bound takes the worst end
    of each bracket. What remains are sums of non-negative floats, each term with a
    relative error of a few ``u``: a sum is inflated by ``gamma_n`` and the total by
    ``16 u``. Returns ``inf`` for a non-finite ``w``.
    """
    if not np.all(np.isfinite(w)):
        return math.inf
    n, dim = rows.shape
    alpha = np.clip(alpha, 0.0, C)
    v = rows.T @ (alpha * sign)
    v_error = _gamma(n) * np.sum(alpha) * (1 + _gamma(n))
    distance = np.linalg.norm(w - v) * (1 + _gamma(dim + 4)) + v_error
    t = 1.0 - sign * (rows @ w)  # 1 - m_i, as computed
    error = _gamma(dim + 1) * np.linalg.norm(w) * (1 + _gamma(dim + 4)) + 4 * _U * np.abs(t)
    terms = (C - alpha) * np.maximum(t + error, 0.0) + alpha * np.maximum(error - t, 0.0)
    return (0.5 * distance**2 + np.sum(terms) * (1 + _gamma(n))) * (1 + 16 * _U)


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


def _candidates(rows, sign, C):
    """``(w, alpha)`` pairs to certify, fastest first: the band-repair rounds of the fast
    solver (on at most ``SMALL`` rows, one exact dual over all of them), then two
    interior-point solves of the full quadratic program (its primal answer and the
    primal point of its dual answer)."""
    if len(rows) <= SMALL:  # the whole dual at once: the band is every row
        rounds = band_repair(rows, sign, C, np.zeros(rows.shape[1]), tau=math.inf, rounds=1)
    else:
        rounds = band_repair(rows, sign, C, smoothed_start(rows, sign, C))
    for alpha in rounds:
        yield rows.T @ (alpha * sign), alpha
    for accuracy in (1e-12, 1e-15):
        w, alpha = _clarabel_solve(rows, sign, C, accuracy)
        alpha = np.clip(alpha, 0.0, C)
        yield w, alpha
        yield rows.T @ (alpha * sign), alpha


def certified_hinge_svm(rows, sign, C, *, max_distance):
    """The minimiser of ``||w||^2 / 2 + C sum_i max(0, 1 - y_i w.x_i)``, certified.

    Parameters
    ----------
    rows : ndarray of shape (n_samples, dim)
        Rows of L2 norm at most 1.
    sign : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    C : float
    max_distance : float
        The returned ``w`` is proved to lie within this L2 distance of the exact
        minimiser ``w*``: :func:`hinge_gap_bound` is at most ``max_distance**2 / 2``.

    Returns
    -------
    w : ndarray of shape (dim,)

    Raises
    ------
    SolverCertificateError
        When no candidate (fast solver rounds, then the full quadratic program solved
        twice, primal and dual points) is certified.
    """
    allowed = 0.5 * max_distance**2 * (1 - 4 * _U)
    best = math.inf
    for w, alpha in _candidates(rows, sign, C):
        bound = hinge_gap_bound(w, alpha, rows, sign, C)
        if bound <= allowed:
            return w
        best = min(best, bound)
    raise SolverCertificateError(
        f"the SVM solver's duality gap ({best:.3g}) does not prove its answer within "
        f"{max_distance:.3g} of the exact minimiser, which output perturbation needs. "
        "Increase tol (the noise grows by the same factor) or rescale the data."
    )
