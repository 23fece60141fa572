"""Budget and regularisation rules of :class:`~skdp.linear_model.ObjectivePerturbationLogistic`.

Objective perturbation (Chaudhuri, Monteleoni and Sarwate 2011) minimises
``L(w) + Lambda/2 ||w||^2 + b.w`` over rows of norm at most one. Its epsilon is shared
between the noise ``b`` (density proportional to ``exp(-beta ||b|| / Delta)`` in
``m`` dimensions) and the Jacobian term ``rank * log(1 + curvature / Lambda)``.

The regularisation ``Lambda`` trades the two errors of the perturbed minimiser: the
noise moves ``w`` by about ``||b|| / Lambda`` (where the data's curvature is small, as
along the features of a small sample), which costs about ``||b||^2 / (2 Lambda)`` of
objective, and the regulariser biases a model of norm ``omega`` by ``Lambda omega^2
/ 2``. Their sum is smallest at ``Lambda = E||b|| / omega`` with ``E||b|| = m Delta /
beta`` (the mean of the Gamma(``m``, ``Delta / beta``) norm): the balance of the
excess-risk bounds of Chaudhuri et al. (2011, Section 6, ``Lambda`` of order
``d / (epsilon ||w0||)`` in the summed objective) and Kifer, Smith and Thakurta
(2012, Theorem 4). :data:`WEIGHT_SCALE` is ``omega``, a public prior on the norm of a
useful model in the unit-ball design (scores within ``+-5``: class probabilities up to
about 0.99). ``beta`` itself depends on ``Lambda`` through the Jacobian term, so
:func:`perturbation_parameters` solves ``Lambda = m Delta / (omega beta(Lambda))``;
everything it reads is public (epsilon, ``C``, the dimensions, the number of
classes), so the rule spends nothing and adapts to ``n`` through the data's own
curvature, which the summed objective lets grow with ``n``.

Measured on Iris scaled to ``[0, 1]`` by public bounds (``data_norm=2``, multinomial,
100 training rows, 20 seeds), the best fixed ``Lambda`` of a grid was about 30, 5, 3,
2 and 0.3-1 at epsilon 0.1, 0.5, 1, 2 and 5; the rule gives 35, 7.0, 3.5, 1.7 and
0.6 (then ``1 / C = 1``).
"""

import math

import numpy as np

__all__ = ["WEIGHT_SCALE", "perturbation_parameters", "sum_zero_basis"]

# omega: the public prior on the norm of a useful model in the unit-ball design
WEIGHT_SCALE = 5.0
# rounding the Jacobian term up by a relative 2**-40 keeps the float cost below its cap
_ROUND_UP = 1 + 2.0**-40


def _cost(lam, curvature, rank):
    return rank * math.log1p(curvature / lam)


def perturbation_parameters(epsilon, C, *, curvature, rank=1, noise_dim=1, sensitivity=1.0):
    """``(extra_regularization, noise_epsilon)`` of one objective-perturbation problem.

    ``Lambda = 1 / C + extra`` is the largest of ``1 / C``; the smallest ``Lambda``
    whose Jacobian term ``rank * log(1 + curvature / Lambda)`` is at most
    ``epsilon / 2``; and the fixed point of ``Lambda = noise_dim * sensitivity /
    (WEIGHT_SCALE * beta(Lambda))`` (module docstring). ``beta = epsilon`` minus the
    Jacobian term at that ``Lambda``, so ``beta >= epsilon / 2`` and the two spends add
    up to ``epsilon``. Public inputs only.

    Parameters
    ----------
    epsilon : float
        The problem's budget.
    C : float
        The user's inverse regularisation.
    curvature : float
        Bound on each non-zero eigenvalue of one record's Hessian (unit rows).
    rank : int, default=1
        Bound on the rank of one record's Hessian.
    noise_dim : int, default=1
        Dimension of the noise vector.
    sensitivity : float, default=1.0
        L2 sensitivity of the gradient to one record.

    Returns
    -------
    extra : float
        ``Delta >= 0``, added to ``1 / C``.
    beta : float
        The noise's epsilon.

    Examples
    --------
    >>> from skdp.linear_model._op_rules import perturbation_parameters
    >>> extra, beta = perturbation_parameters(
    ...     1.0, 1.0, curvature=1 / 3, rank=2, noise_dim=10, sensitivity=2**0.5)
    >>> round(1 + extra, 2), round(beta, 3)
    (3.46, 0.816)
    """

    def target(lam):  # m Delta / (omega beta(lam)), decreasing in lam
        return noise_dim * sensitivity / (WEIGHT_SCALE * (epsilon - _cost(lam, curvature, rank)))

    half = curvature / math.expm1(min(epsilon / (2 * rank), 700.0)) * _ROUND_UP
    lam = max(1 / C, half)
    if target(lam) > lam:  # the fixed point lies in (lam, target(lam)]: bisect (log scale)
        low, high = lam, target(lam)
        for _ in range(100):
            middle = math.sqrt(low * high)
            low, high = (middle, high) if target(middle) > middle else (low, middle)
        lam = high
    return max(lam - 1 / C, 0.0), epsilon - _cost(lam, curvature, rank)


def sum_zero_basis(n_classes):
    """An orthonormal basis ``U`` (``(K, K - 1)``) of the vectors whose entries sum to 0.

    The Helmert basis: column ``j`` is ``(1, ..., 1, -(j + 1), 0, ..., 0)`` (``j + 1``
    ones), normalised. Public: it depends on ``K`` only.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.linear_model._op_rules import sum_zero_basis
    >>> U = sum_zero_basis(3)
    >>> np.allclose(U.T @ U, np.eye(2)), np.allclose(U.sum(axis=0), 0)
    (True, True)
    """
    U = np.zeros((n_classes, n_classes - 1))
    for j in range(n_classes - 1):
        U[: j + 1, j] = 1.0
        U[j + 1, j] = -(j + 1)
        U[:, j] /= math.sqrt((j + 1) * (j + 2))
    return U
