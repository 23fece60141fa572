"""The Huber hinge loss of Chaudhuri et al. (2011) as an objective for :mod:`skdp.utils._erm`."""

__all__ = ["Huber"]

import numpy as np


class Huber:
    """Summed Huber loss of ``w`` on the design rows with labels ``sign`` in {-1, +1}.

    With margin ``m = y w.x~`` and width ``h``: ``0`` for ``m > 1 + h``,
    ``(1 + h - m)^2 / (4 h)`` for ``|1 - m| <= h`` and ``1 - m`` for ``m < 1 - h``; so
    ``|l'| <= 1`` and ``0 <= l'' <= 1 / (2 h)`` (the curvature objective perturbation
    pays for). As ``h -> 0`` it tends to the hinge loss.
    """

    sensitivity, rank = 1.0, 1

    def __init__(self, design, sign, width):
        self.design, self.sign, self.width = design, sign, float(width)
        self.size = design.shape[1]
        self.curvature = 1 / (2 * self.width)

    def _margin(self, w):
        return self.sign * self.design.dot(w)

    def loss_grad(self, w):
        gap = 1 + self.width - self._margin(w)  # > 0 where the loss is positive
        quadratic = (gap > 0) & (gap < 2 * self.width)
        linear = gap >= 2 * self.width
        loss = (gap[quadratic] ** 2).sum() / (4 * self.width) + (gap[linear] - self.width).sum()
        slope = np.where(linear, 1.0, np.where(quadratic, gap / (2 * self.width), 0.0))  # -l'
        return loss, self.design.tdot(-self.sign * slope)

    def hessian(self, w):
        gap = 1 + self.width - self._margin(w)
        quadratic = (gap > 0) & (gap < 2 * self.width)
        return self.design.gram(quadratic * self.curvature)
