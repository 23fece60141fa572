"""Row blocks of an ERM fit: kept scratch arrays, long rows looked up, a warm start
on rows mapped once, and no Hessian where the stopping rule ends. Each gives the
values of the plain computation to the bit."""

import numpy as np
import pytest

from skdp.linear_model._op_losses import _Logistic, _Softmax
from skdp.utils import _erm_solver
from skdp.utils._erm import minimise, unit_ball_design
from skdp.utils._erm_inputs import ColumnScaling
from skdp.utils._erm_rows import FRESH, ROW_BLOCK, RowMap, Scratch, row_squares

RNG = np.random.default_rng(3)
X = 1.5 * RNG.normal(size=(3 * ROW_BLOCK + 11, 3))
CODES = RNG.integers(0, 3, size=len(X))
SCALING = ColumnScaling(np.array([-2.0, -1.0, 0.0]), np.array([2.0, 1.0, 3.0]))


def test_scratch_hands_out_the_same_memory_per_name():
    scratch = Scratch()
    a = scratch("a", (8, 2))
    assert np.shares_memory(scratch("a", (8, 2)), a)
    shorter = scratch("a", (3, 2))  # the last block: the first rows
    assert shorter.shape == (3, 2) and np.shares_memory(shorter, a)
    assert not np.shares_memory(scratch("b", (8, 2)), a)
    assert scratch("a", (9, 2)).shape == (9, 2)  # a longer block: a new array
    assert not np.shares_memory(FRESH("a", (8, 2)), FRESH("a", (8, 2)))


@pytest.mark.filterwarnings("ignore::skdp.exceptions.ClippingWarning")
@pytest.mark.parametrize("columns", [None, SCALING])
@pytest.mark.parametrize(
    "rows", [slice(0, ROW_BLOCK), slice(2 * ROW_BLOCK, None), slice(1, None, 7)]
)
def test_long_rows_looked_up_are_the_long_rows_summed(columns, rows):
    """With the squared norms of all rows, a block's long rows and their factors are
    looked up, to the bit of the block's own sums (any slice, strided too)."""
    transform = None if columns is None else columns.transform
    apply = None if columns is None else columns.apply
    squares = row_squares(X, transform)[0]
    norm = float(np.sqrt(np.quantile(squares, 0.7)))
    looked_up = RowMap(apply, norm, squares=squares)(X[rows], rows=rows)
    summed = RowMap(apply, norm)(X[rows])
    np.testing.assert_array_equal(looked_up, summed)
    assert (np.linalg.norm(looked_up, axis=1) < norm * (1 + 1e-15)).all()


@pytest.mark.filterwarnings("ignore::skdp.exceptions.ClippingWarning")
@pytest.mark.parametrize("problem", [_Logistic, _Softmax])
def test_rows_mapped_once_give_the_sums_of_rows_mapped_per_block(problem):
    """The warm start's subsample, mapped once, gives the loss, gradient and Hessian
    that mapping a copy of it block by block gives, to the bit."""
    squares = row_squares(X, SCALING.transform)[0]
    design = unit_ball_design(X, 1.5, fit_intercept=True, columns=SCALING.apply, squares=squares)
    loss = problem(design, 3 if problem is _Softmax else 1)
    w = RNG.normal(size=loss.size)
    rows = slice(None, None, 2)
    reader, mapped = loss.mapped(X, rows)
    assert reader.row_map is None and mapped.shape == X[rows].shape
    copy = np.ascontiguousarray(X[rows])
    sub_design = unit_ball_design(
        copy, 1.5, fit_intercept=True, columns=SCALING.apply, squares=squares[rows]
    )
    expected = problem(sub_design, 3 if problem is _Softmax else 1).summed(
        copy, CODES[rows], w=w, hessian=True
    )
    found = reader.summed(mapped, CODES[rows], w=w, hessian=True)
    for a, b in zip(found, expected, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("ignore::skdp.exceptions.ClippingWarning")
def test_a_missed_prediction_sums_the_hessian_and_takes_the_same_path(monkeypatch):
    """Where the rate predicts the rule will stop but it does not, the Hessian is
    summed in one more pass: the same steps, the same answer."""
    design = unit_ball_design(X, 3.0, fit_intercept=True)
    loss, codes = _Logistic(design, 1), CODES % 2
    b = RNG.normal(size=loss.size)
    expected = minimise(loss, X, codes, 1.0, b, 1e-10, 100)
    passes, real = [], type(loss).summed

    def counting(self, *args, **kwargs):
        passes.append(kwargs["hessian"])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(_erm_solver, "PREDICTION_MARGIN", 1e-300)  # always predicted
    monkeypatch.setattr(type(loss), "summed", counting)
    found = minimise(loss, X, codes, 1.0, b, 1e-10, 100)
    np.testing.assert_array_equal(found[0], expected[0])
    assert found[1:] == expected[1:]
    assert False in passes and passes.count(True) > 2


@pytest.mark.parametrize("order", ["C", "F"])
def test_row_squares_on_kept_arrays_are_the_plain_ones(order):
    """The per-feature map in kept arrays: the same squared norms and clipped count as
    new arrays, on C- and Fortran-ordered rows (laid out as numpy lays out new arrays)."""
    rows = np.asarray(X, order=order)
    squares, n_clipped = row_squares(rows, SCALING.transform)
    plain, expected = SCALING.transform(rows)
    assert n_clipped == expected > 0
    np.testing.assert_array_equal(squares, np.einsum("ij,ij->i", plain, plain))


@pytest.mark.filterwarnings("ignore::skdp.exceptions.ClippingWarning")
def test_minimise_frees_the_kept_arrays():
    """One problem's block arrays at a time: one-vs-rest fits K problems in turn."""
    loss = _Logistic(unit_ball_design(X, 3.0, fit_intercept=True), 1)
    loss.summed(X, CODES % 2, w=np.zeros(loss.size), hessian=True)
    assert loss._reader is not None and loss._reader.scratch._arrays
    minimise(loss, X, CODES % 2, 1.0, np.zeros(loss.size), 1e-10, 100)
    assert loss._reader is None
