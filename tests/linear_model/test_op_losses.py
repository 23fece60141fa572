"""The logistic loss of ObjectivePerturbationLogistic, evaluated in place.

On 10^6 rows every row-sized array is 8 MB: the loss, its gradient and Hessian hold
at most four of them besides the rows (six before), with the values of the textbook
expressions to the last bit.
"""

import tracemalloc

import numpy as np
import pytest

from skdp.linear_model._op_losses import _Logistic, _Softmax
from skdp.utils._erm import scaled_design, unit_ball_design
from skdp.utils._erm_inputs import ColumnScaling
from skdp.utils._erm_rows import ROW_BLOCK, row_squares

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


@pytest.mark.filterwarnings("ignore::skdp.exceptions.ClippingWarning")
@pytest.mark.parametrize("kind", ["bounds", "norm"])
def test_a_mapped_design_reads_the_rows_a_copy_would_hold(kind):
    """Per-feature bounds and the norm bound map the rows one block at a time, to the
    values a clipped, scaled copy of X holds; the loss, gradient and Hessian summed over
    the blocks equal those of the copy up to the order of the sums."""
    X = 1.5 * RNG.normal(size=(2 * ROW_BLOCK + 7, 3))
    if kind == "bounds":
        scaling = ColumnScaling(np.array([-2.0, -1.0, 0.0]), np.array([2.0, 1.0, 3.0]))
        squares, _ = row_squares(X, scaling.transform)
        mapped = unit_ball_design(
            X, 1.2, fit_intercept=True, columns=scaling.apply, squares=squares
        )
        copy = unit_ball_design(scaling.transform(X)[0], 1.2, fit_intercept=True, overwrite=True)
    else:
        mapped = unit_ball_design(X, 2.0, fit_intercept=True)
        copy = unit_ball_design(X.copy(), 2.0, fit_intercept=True, overwrite=True)
    assert mapped.X is X and mapped.row_map is not None
    np.testing.assert_array_equal(mapped.rows(), copy.rows())
    codes = RNG.integers(0, 3, size=len(X))
    for problem, w in [(_Logistic, W), (_Softmax, np.tile(W, 3))]:
        loss = problem(mapped, 3) if problem is _Softmax else problem(mapped, 1)
        reference = problem(copy, 3) if problem is _Softmax else problem(copy, 1)
        found = loss.summed(X, codes, w=w, hessian=True)
        expected = reference(copy.X, codes, w=w, hessian=True)
        for a, b in zip(found, expected, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9)
