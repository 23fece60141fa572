"""The Huber hinge loss of Chaudhuri et al. (2011) as an objective for :mod:`skdp.utils._erm`."""

__all__ = ["Huber"]

import numpy as np

from skdp.utils._erm import RowLoss


class Huber(RowLoss):
    """Summed Huber loss of ``w``; the label is +1 for code ``positive``, else -1.

    With margin ``m = y w.x~`` and width ``h``: ``0`` for ``m > 1 + h``,
    ``(1 + h - m)^2 / (4 h)`` for ``|1 - m| <= h`` and ``1 - m`` for ``m < 1 - h``; so
    ``|l'| <= 1`` and ``0 <= l'' <= 1 / (2 h)`` (the curvature objective perturbation
    pays for). As ``h -> 0`` it tends to the hinge loss.
    """

    sensitivity, rank = 1.0, 1

    def __init__(self, design, positive, width):
        super().__init__(design)
        self.positive, self.width = positive, float(width)
        self.curvature = 1 / (2 * self.width)

    def __call__(self, X, codes, *, w, hessian=False):
        design, sign = self.rows(X), np.where(codes == self.positive, 1.0, -1.0)
        gap = 1 + self.width - sign * design.dot(w)  # > 0 where the loss is positive
        quadratic = (gap > 0) & (gap < 2 * self.width)
        linear = gap >= 2 * self.width
        loss = (gap[quadratic] ** 2).sum() / (4 * self.width) + (gap[linear] - self.width).sum()
        slope = np.where(linear, 1.0, np.where(quadratic, gap / (2 * self.width), 0.0))  # -l'
        grad = design.tdot(-sign * slope)
        if not hessian:
            return loss, grad
        return loss, grad, design.gram(quadratic * self.curvature)
