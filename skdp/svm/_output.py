"""Output perturbation of the certified hinge-loss SVM: one one-vs-rest problem.

The proof is in the Notes of :class:`~skdp.svm.PrivateSVM`; the constants are here.
"""

import math

from skdp.mechanisms import l2_laplace, laplace
from skdp.svm._hinge import certified_hinge_svm
from skdp.utils._erm import blas_threads

__all__ = ["output_perturbation", "output_sensitivity"]


def output_sensitivity(C, tol):
    """``(r, Delta)``: the certified solver distance and the L2 sensitivity of the release.

    Add/remove one record moves the exact minimiser by at most ``C`` (1-strongly convex
    objective, 1-Lipschitz loss, ``||z|| <= 1``). The released point is certified within
    ``r = tol C / 2`` of the minimiser of its own dataset, so two neighbouring releases
    are at most ``C + 2 r = (1 + tol) C`` apart (speed_and_parity.md A2, with
    ``mu = 1``, ``Delta* = C`` and ``G* = r^2 / 2``). ``r`` is public and fixed before
    the fit. ``Delta`` is rounded up: the solver is certified within the float ``r``.

    Examples
    --------
    >>> from skdp.svm._output import output_sensitivity
    >>> output_sensitivity(0.5, 0.01)
    (0.0025, 0.5050000000000001)
    """
    r = tol * C / 2
    return r, math.nextafter(C + 2 * r, math.inf)


def output_perturbation(rows, sign, C, tol, noise, epsilon, rng):
    """The certified hinge minimiser plus noise at ``(1 + tol) C``: ``epsilon``-DP.

    ``noise="l2"``: L2 Laplace (density ``exp(-epsilon ||b|| / Delta)``); ``"laplace"``:
    i.i.d. Laplace at the L1 sensitivity ``sqrt(dim) Delta``. Raises
    :class:`~skdp.svm.SolverCertificateError` before any noise is drawn when the
    solver cannot be certified.
    """
    max_distance, sensitivity = output_sensitivity(float(C), float(tol))
    with blas_threads(rows.shape[1]):  # narrow rows: one BLAS thread (see there)
        w = certified_hinge_svm(rows, sign, float(C), max_distance=max_distance)
    if noise == "l2":
        return l2_laplace(w, sensitivity=sensitivity, epsilon=epsilon, random_state=rng)
    return laplace(
        w, sensitivity=math.sqrt(w.size) * sensitivity, epsilon=epsilon, random_state=rng
    )
