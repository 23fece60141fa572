"""The logistic loss of ObjectivePerturbationLogistic, evaluated in place.

On 10^6 rows every row-sized array is 8 MB: the loss, its gradient and Hessian hold
at most four of them besides the rows (six before), with the values of the textbook
expressions to the last bit.
"""

import tracemalloc

import numpy as np
import pytest

from skdp.linear_model._op_losses import _Logistic
from skdp.utils._erm import scaled_design

N = 100_000
RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, size=(N, 3))
CODES = RNG.integers(0, 2, N)
W = np.array([0.5, -1.0, 2.0, 0.1])


def _textbook(design, codes, w, positive):
    sign = np.where(codes == positive, 1.0, -1.0)
    margin = sign * design.dot(w)
    small = np.exp(-np.abs(margin))
    loss = np.maximum(-margin, 0).sum() + np.log1p(small).sum()
    slope = np.where(margin >= 0, small, 1.0) / (1 + small)
    return loss, design.tdot(-sign * slope), design.gram(small / (1 + small) ** 2)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_in_place_loss_is_the_textbook_loss_to_the_bit(fit_intercept):
    design = scaled_design(X, 2.0, fit_intercept=fit_intercept)
    problem = _Logistic(design, 1)
    w = W if fit_intercept else W[:3]
    for found, expected in zip(
        problem(X, CODES, w=w, hessian=True), _textbook(design, CODES, w, 1), strict=True
    ):
        np.testing.assert_array_equal(found, expected)
    loss, grad = problem(X, CODES, w=w)
    expected = _textbook(design, CODES, w, 1)
    assert loss == expected[0]
    np.testing.assert_array_equal(grad, expected[1])


def test_the_loss_holds_at_most_four_row_sized_arrays():
    problem = _Logistic(scaled_design(X, 2.0, fit_intercept=True), 1)
    tracemalloc.start()
    try:
        problem(X, CODES, w=W, hessian=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4.5 * 8 * N
