"""Private bounds on many rows: a Poisson subsample and one sort per column.

(skdp.utils._bounds_scan, used by skdp.utils._bounds.estimate_bounds and
estimate_public_inputs.) The audit runs ``estimate_bounds`` with the subsample's rate
forced to 1/2 on tiny neighbours: forty values at 1, and one more far above them (in
the subsample, the 98% point then moves past it; the sign histograms see a positive
side either way); the mutant scans the subsample with ten times the epsilon it charges
for ("the subsample amplifies privacy by 1 / rate"), which the audit must flag.
"""

import tracemalloc

import numpy as np
import pytest

import skdp.utils._bounds as bounds_module
import skdp.utils._bounds_counts as counts_module
import skdp.utils._bounds_scan as scan_module
import skdp.utils._grid_index as grid_index_module
from skdp import PrivacyLedger
from skdp.utils._audit import audit
from skdp.utils._bounds import estimate_bounds, estimate_public_inputs
from skdp.utils._bounds_scan import (
    SUBSAMPLE_ROWS,
    column_counts,
    feature_counts,
    poisson_rows,
    poisson_subsample,
    subsample_rate,
)
from skdp.utils._quantiles import _ANCHORED_GRID

EPSILON = 1.0
PAIR = (np.ones((40, 1)), np.r_[np.ones((40, 1)), [[1e6]]])


def test_column_counts_are_those_of_a_sort_of_the_magnitudes():
    rng = np.random.default_rng(0)
    grid = _ANCHORED_GRID
    column = np.concatenate([
        rng.normal(0, 3, 500), np.zeros(7), -np.zeros(3), grid[::7], -grid[::5],
        np.nextafter(grid[1::9], 0), -np.nextafter(grid[2::9], np.inf),
    ])  # fmt: skip
    below, negative, positive = column_counts(rng.permutation(column))
    expected = np.searchsorted(np.sort(np.abs(column)), grid, side="left")
    assert np.array_equal(below, expected)
    assert negative == np.count_nonzero(column < 0) and positive == np.count_nonzero(column > 0)


@pytest.mark.parametrize("order", ["C", "F"])
def test_feature_counts_are_column_counts_of_every_column_in_one_pass(order):
    # zeros of both signs, subnormals, the grid's own points and their neighbours,
    # values past both ends of the grid: the bit tables must count each exactly
    rng = np.random.default_rng(3)
    grid = _ANCHORED_GRID
    special = np.concatenate([
        np.zeros(5), -np.zeros(5), [5e-324, -5e-324, 1e-310, 1e300, -1e300],
        grid, -grid[::3], np.nextafter(grid[1:], 0), -np.nextafter(grid[1::2], np.inf),
    ])  # fmt: skip
    X = rng.normal(0, 10, (special.size, 3)) * rng.choice([1, 1e-6, 1e4], (special.size, 3))
    X[:, 1] = rng.permutation(special)
    X = np.asarray(X, order=order)
    rows = poisson_rows(X.shape[0], 0.5, rng)
    for subset in (None, rows):
        below, negative, positive = feature_counts(X, subset)
        for j in range(X.shape[1]):
            column = X[:, j] if subset is None else X[subset, j]
            expected = column_counts(column)
            assert np.array_equal(below[j], expected[0])
            assert (negative[j], positive[j]) == expected[1:]


def _every_cell():
    """Bit patterns at both ends of every finite cell of feature_counts' table, and on
    both sides of every grid candidate, with both signs (infinities included)."""
    shift = counts_module._SHIFT
    cells = np.arange(0x7FF << 52 >> shift, dtype=np.uint64)  # the finite cells
    starts = cells << np.uint64(shift)
    points = _ANCHORED_GRID[1:].view(np.uint64)
    patterns = np.concatenate([
        starts, starts + np.uint64((1 << shift) - 1), points, points - np.uint64(1),
        points + np.uint64(1), np.array([np.inf]).view(np.uint64),
    ])  # fmt: skip
    return np.concatenate([patterns, patterns | np.uint64(1 << 63)]).view(np.float64)


@pytest.mark.parametrize("add_at", [True, False])
def test_feature_counts_are_exact_on_every_cell_with_either_histogram(monkeypatch, add_at):
    # the one-gather key (_sum_table) against a sort, at the edges of all 2 x 32752
    # cells and around every threshold; np.add.at and np.bincount give the same counts
    monkeypatch.setattr(grid_index_module, "_ADD_AT", add_at)
    column = np.random.default_rng(7).permutation(_every_cell())
    below, negative, positive = feature_counts(np.column_stack([column, -column]))
    for j, values in enumerate((column, -column)):
        expected = column_counts(values)
        assert np.array_equal(below[j], expected[0])
        assert (negative[j], positive[j]) == expected[1:]


@pytest.mark.parametrize("nan", [np.nan, -np.nan])
def test_feature_counts_refuse_nan(nan):
    X = np.ones((1000, 3))
    X[517, 1] = nan
    with pytest.raises(ValueError, match="NaN"):
        feature_counts(X)


def _same(first, second):
    return all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.uint8, np.float32, bool])
def test_other_dtypes_are_read_in_blocks_with_the_counts_and_bounds_of_float64(dtype):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 200, size=(600_000, 3)).astype(dtype)
    X[:, 1] = X[:, 1] * (-1 if np.issubdtype(dtype, np.signedinteger) else 1)
    as_float = X.astype(float)
    rows = poisson_rows(X.shape[0], 0.3, rng)
    for subset in (None, rows):
        assert _same(feature_counts(X, subset), feature_counts(as_float, subset))
    tracemalloc.start()
    box = estimate_bounds(X, epsilon=1.0, n_noisy=X.shape[0], random_state=5)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 0.25 * as_float.nbytes  # a float64 copy of X alone is as_float.nbytes
    assert _same(box, estimate_bounds(as_float, epsilon=1.0, n_noisy=X.shape[0], random_state=5))
    small = X[:300]
    for tier in (2, 3):
        expected = estimate_bounds(small.astype(float), epsilon=1.0, tier=tier, random_state=6)
        assert _same(estimate_bounds(small, epsilon=1.0, tier=tier, random_state=6), expected)


def test_the_rate_is_public_and_keeps_enough_rows_for_the_scan():
    assert subsample_rate(None, 0.01) == 1.0
    assert subsample_rate(50_000, 1.0) == 1.0  # fewer rows than a subsample keeps
    assert subsample_rate(10**6, 1.0) == SUBSAMPLE_ROWS / 10**6
    # a smaller scan budget keeps more rows: its noise stays a small share of them
    assert subsample_rate(10**6, 0.001) == 1.0
    assert subsample_rate(10**7, 0.005) == pytest.approx(0.02)


def test_a_poisson_subsample_keeps_each_row_independently():
    X = np.arange(200_000.0)[:, None]
    kept = poisson_subsample(X, 0.25, np.random.default_rng(1))
    assert abs(kept.shape[0] - 50_000) < 4 * np.sqrt(200_000 * 0.25 * 0.75)
    assert np.all(np.diff(kept[:, 0]) > 0), "rows kept in order, none twice"
    rng = np.random.default_rng(2)
    state = rng.bit_generator.state
    assert poisson_subsample(X, 1.0, rng) is X and rng.bit_generator.state == state


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_non_finite_values_anywhere_are_refused(bad):
    X = np.ones((1000, 3))
    X[517, 1] = bad
    with pytest.raises(ValueError, match="finite"):
        estimate_bounds(X, epsilon=1.0, random_state=0)


def test_many_rows_are_scanned_on_a_subsample_of_the_rate(monkeypatch):
    seen = []

    def spy(below, n_values, q, **kwargs):
        seen.append((below.shape, n_values))
        return original(below, n_values, q, **kwargs)

    original = scan_module.scan_counts
    monkeypatch.setattr(scan_module, "scan_counts", spy)
    X = np.random.default_rng(0).uniform(-1, 1, size=(300_000, 2))
    with PrivacyLedger() as ledger:
        lower, upper = estimate_bounds(X, epsilon=0.1, n_noisy=300_000, random_state=0)
    [(shape, n_values)] = seen  # one call: a row of counts per feature, one subsample
    assert shape[0] == 2 and abs(n_values - SUBSAMPLE_ROWS) < 2_000
    assert ledger.total.epsilon == pytest.approx(0.1), "the full budget is charged"
    assert np.array_equal(lower, [-1.0, -1.0]) and np.array_equal(upper, [1.0, 1.0])


def test_public_inputs_on_many_rows_match_the_full_data_box():
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.uniform(0, 10, 200_000), rng.normal(0, 1, 200_000)])
    norms = np.linalg.norm(X, axis=1)
    for seed in range(3):
        with PrivacyLedger() as ledger:
            found = estimate_public_inputs(
                1.0, n_samples=X.shape[0], columns=X, row_norms=norms, random_state=seed
            )
        lower, upper = found.bounds
        assert lower[0] == 0 and 9.8 <= upper[0] <= 14, "the 98% point of U(0, 10), or above"
        assert -3.4 < lower[1] < -1.9 and 1.9 < upper[1] < 3.4
        assert 9.5 < found.data_norm < 14
        assert ledger.total.epsilon == pytest.approx(1.0 - found.remaining)


def _half_rate(n_noisy, epsilon_scan):
    return 0.5


def _bounds_on_half(X, rng):
    return estimate_bounds(X, epsilon=EPSILON, random_state=rng)


def _width(released):
    lower, upper = released
    return float(upper[0] - lower[0])


_SCAN = scan_module.scan_counts


def _ten_times(below, n_values, q, *, epsilon, random_state):
    return _SCAN(below, n_values, q, epsilon=10 * epsilon, random_state=random_state)


def _audit_half_rate(monkeypatch, n_search, n_samples, random_state):
    """The audit of the bounds' width when the scans read half of the rows."""
    monkeypatch.setattr(bounds_module, "subsample_rate", _half_rate)
    return audit(
        _bounds_on_half, *PAIR, epsilon=EPSILON, statistic=_width,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_subsampled_bounds_pass_the_audit(monkeypatch):
    result = _audit_half_rate(monkeypatch, n_search=100, n_samples=100, random_state=0)
    assert result.passed, result


def test_the_audit_flags_a_subsample_scanned_for_ten_times_its_epsilon(monkeypatch):
    monkeypatch.setattr(scan_module, "scan_counts", _ten_times)
    # at these sizes the event search misses on some seeds (before the scans were drawn
    # in one call: flagged on 3 of seeds 0-3, now on 2; the same laws, other draws)
    result = _audit_half_rate(monkeypatch, n_search=100, n_samples=200, random_state=1)
    assert not result.passed, result


@pytest.mark.slow
def test_subsampled_bounds_pass_a_large_audit(monkeypatch):
    result = _audit_half_rate(monkeypatch, n_search=1000, n_samples=5000, random_state=1)
    assert result.passed, result
