"""The losses of :class:`~skdp.linear_model.ObjectivePerturbationLogistic` (see its Notes)."""

import math

import numpy as np
from scipy.special import log_softmax, softmax

from skdp.linear_model._op_rules import sum_zero_basis
from skdp.utils._erm import RowLoss

__all__ = ["_Logistic", "_Softmax"]


class _Logistic(RowLoss):
    """Summed logistic loss of ``w``; the label is +1 for code ``positive``, else -1."""

    curvature, sensitivity, rank = 0.25, 1.0, 1

    def __init__(self, design, positive):
        super().__init__(design)
        self.positive = positive
        self.noise_dim = self.size

    def noise(self, z):
        """The noise vector from ``noise_dim`` L2-Laplace coordinates (the identity)."""
        return z

    def __call__(self, X, codes, *, w, hessian=False):
        # in place, four row-sized arrays at most (on 10^6 rows each is 8 MB), kept
        # from block to block when ``scratch`` keeps them (RowLoss.summed); the
        # same operations on the same values as the expressions in the comments (a
        # product by -1 or 1 negates exactly)
        design, scratch, n = self.rows(X), self.scratch, X.shape[0]
        flags = np.not_equal(codes, self.positive, out=scratch("flags", (n,), bool))
        sign = np.multiply(flags, -2.0, out=scratch("sign", (n,)))
        sign += 1.0  # y: -1 where the code is not positive
        margin = design.dot(w)
        margin *= sign  # y w.x~
        # exp(-|m|): log(1 + e^-m) and its slope, overflow-free
        small = np.abs(margin, out=scratch("small", (n,)))
        np.exp(np.negative(small, out=small), out=small)
        work = np.negative(margin, out=scratch("work", (n,)))
        np.maximum(work, 0, out=work)  # max(-m, 0)
        loss = work.sum() + np.log1p(small, out=work).sum()
        flags = np.less(margin, 0, out=flags)
        slope = np.maximum(small, flags, out=margin)  # where(m >= 0, small, 1)
        np.divide(slope, np.add(small, 1, out=work), out=slope)  # -l'(m) = expit(-m)
        np.negative(sign, out=sign)
        slope *= sign  # -y slope
        grad = design.tdot(slope)
        if not hessian:
            return loss, grad
        del margin, slope, sign, flags  # not held through the Hessian's sums
        curvature = np.divide(small, np.square(work, out=work), out=small)  # l''(m)
        return loss, grad, design.gram(curvature)


class _Softmax(RowLoss):
    """Summed multinomial (softmax) loss of the flattened ``(K, dim)`` matrix ``w``.

    The noise lives in the subspace of matrices whose rows sum to zero (``noise``), of
    dimension ``(K - 1) dim``, where every gradient lies; ``curvature = 1 / K`` per
    eigen-direction over ``rank = K - 1`` directions bounds the Jacobian term (Notes of
    :class:`~skdp.linear_model.ObjectivePerturbationLogistic`).
    """

    sensitivity = math.sqrt(2)

    def __init__(self, design, n_classes):
        super().__init__(design)
        self.n_classes, self.rank, self.curvature = n_classes, n_classes - 1, 1 / n_classes
        self.size = n_classes * design.shape[1]
        self.noise_dim = (n_classes - 1) * design.shape[1]

    def noise(self, z):
        """``(U (x) I) z``: ``noise_dim`` coordinates onto the rows-sum-to-zero subspace."""
        U = sum_zero_basis(self.n_classes)
        return (U @ z.reshape(self.n_classes - 1, -1)).ravel()

    def __call__(self, X, codes, *, w, hessian=False):
        design, rows = self.rows(X), np.arange(X.shape[0])
        log_p = log_softmax(design.dot(w.reshape(self.n_classes, -1)), axis=1)
        residual = np.exp(log_p)
        residual[rows, codes] -= 1
        loss, grad = -log_p[rows, codes].sum(), design.tdot(residual).ravel()
        if not hessian:
            return loss, grad
        p = softmax(design.dot(w.reshape(self.n_classes, -1)), axis=1)
        K, d = self.n_classes, design.shape[1]
        H = np.empty((K, d, K, d))
        for a in range(K):
            for b in range(a, K):
                H[a, :, b, :] = design.gram(p[:, a] * ((a == b) - p[:, b]))
                H[b, :, a, :] = H[a, :, b, :].T
        return loss, grad, H.reshape(K * d, K * d)
