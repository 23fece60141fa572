"""Private quantiles (skdp.utils._quantiles)."""

import numpy as np
import pytest

from skdp import PrivacyLedger
from skdp.utils._joint_quantiles import grid_ranks
from skdp.utils._quantiles import (
    bounded_quantile,
    rank_queries,
    scan_quantile,
    unbounded_quantile,
)


def test_rank_queries_count_values_strictly_below():
    queries, v = rank_queries(np.array([1.0, 2.0, 2.0, 5.0]), np.array([0.0, 2.0, 3.0]), 0.5)
    assert v == 2
    assert queries.tolist() == [2 * 0 - 4, 2 * 1 - 4, 2 * 3 - 4]


@pytest.mark.parametrize("n", [1000, 100_000])
def test_scan_error_shrinks_with_n(n):
    x = np.random.default_rng(0).uniform(0, 100, n)
    results = [scan_quantile(x, 0.98, epsilon=0.1, random_state=s) for s in range(30)]
    # in grid steps (factors of 2**0.25) from the true quantile
    steps = np.abs(np.log2(np.array(results) / np.quantile(x, 0.98))) * 4
    if n == 1000:
        assert np.median(steps) <= 2
    else:
        assert np.max(steps) <= 1


def test_scan_is_one_above_threshold_charge():
    with PrivacyLedger() as ledger:
        scan_quantile(np.arange(100.0), 0.5, epsilon=0.3, random_state=0)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("above_threshold", 0.3)]


@pytest.mark.parametrize("values", [[], [3.0], [-1e300, 1e300]])
def test_unbounded_quantile_always_returns_a_finite_value(values):
    assert np.isfinite(unbounded_quantile(values, 0.5, epsilon=0.1, random_state=0))


@pytest.mark.parametrize(("centre", "sign"), [(40.0, 1), (-40.0, -1)])
def test_unbounded_quantile_finds_the_sign_and_scale(centre, sign):
    x = np.random.default_rng(1).normal(centre, 2.0, 5000)
    result = unbounded_quantile(x, 0.5, epsilon=1.0, random_state=0)
    assert np.sign(result) == sign and 30 < abs(result) < 50


def test_bounded_quantile_is_accurate_and_on_the_candidates():
    x = np.random.default_rng(0).normal(0, 1, 2000)
    results = [
        bounded_quantile(x, 0.25, (-10, 10), epsilon=1.0, random_state=s) for s in range(20)
    ]
    assert np.median(np.abs(np.array(results) - np.quantile(x, 0.25))) < 0.1
    candidates = np.linspace(-10, 10, 1025)
    assert all(np.isclose(r, candidates).any() for r in results)


def test_bounded_quantile_with_no_data_is_still_a_candidate():
    assert -1 <= bounded_quantile([], 0.5, (-1, 1), epsilon=1.0, random_state=0) <= 1


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: scan_quantile([np.nan], 0.5, epsilon=1), "finite"),
        (lambda: scan_quantile([1.0], 1.0, epsilon=1), "q must be in"),
        (lambda: bounded_quantile([1.0], 0.5, (2, 1), epsilon=1), "bounds"),
        (lambda: unbounded_quantile([1.0], 0.5, epsilon=0), "epsilon"),
    ],
)
def test_bad_arguments_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("order", ["C", "F"])
def test_grid_ranks_are_those_of_a_sort_of_each_clipped_column(order):
    # values at the candidates and one float either side of them, outside the box,
    # a box too narrow for the floats to split (sorted instead) and a huge one
    rng = np.random.default_rng(4)
    lower = np.array([-1.0, 3.0, 1e6, -1e300])
    upper = np.array([2.5, 3.0 + 2.0**-45, 1e6 + 1e-3, 1e300])
    n, K = 6000, 257
    X = lower + rng.uniform(-0.2, 1.2, (n, 4)) * (upper / 2 - lower / 2) * 2
    for j in range(4):
        grid = np.linspace(lower[j], upper[j], K)
        at = rng.integers(0, n, 2000)
        X[at, j] = grid[rng.integers(0, K, at.size)]
        X[at[:500], j] = np.nextafter(X[at[:500], j], np.inf)
        X[at[500:1000], j] = np.nextafter(X[at[500:1000], j], -np.inf)
    X = np.asarray(X, order=order)
    below, at_or_below = grid_ranks(X, lower, upper, K)
    for j in range(4):
        grid = np.linspace(lower[j], upper[j], K)
        ordered = np.sort(np.clip(X[:, j], lower[j], upper[j]))
        assert np.array_equal(below[j], np.searchsorted(ordered, grid, side="left"))
        assert np.array_equal(at_or_below[j], np.searchsorted(ordered, grid, side="right"))


def test_grid_ranks_check_only_the_values_near_a_candidate_and_stay_exact(monkeypatch):
    # random boxes, some far from 0 for their width (every value checked), K from 2
    # to 1025, values a few floats around the candidates: equal to a sort each time;
    # and the checks run on few values when the box is well conditioned
    import skdp.utils._joint_quantiles as module

    checked = []
    real = module._guessed_ranks

    def spy(X, candidates, lower, scale, cut):
        checked.append(cut)
        return real(X, candidates, lower, scale, cut)

    monkeypatch.setattr(module, "_guessed_ranks", spy)
    rng = np.random.default_rng(11)
    for _ in range(40):
        d, K = int(rng.integers(1, 4)), int(rng.integers(2, 1026))
        centre = rng.choice([0.0, 1.0, 1e3, 1e7]) * rng.choice([-1, 1], d)
        width = 10.0 ** rng.uniform(-3, 3, d)
        lower, upper = centre - width * rng.uniform(0, 1, d), centre + width
        X = lower + rng.uniform(-0.1, 1.1, (5000, d)) * (upper - lower)
        for j in range(d):
            grid = np.linspace(lower[j], upper[j], K)
            at = rng.integers(0, 5000, 1500)
            X[at, j] = grid[rng.integers(0, K, at.size)]
            moved, steps = at[:600], rng.integers(-3, 4, 600)
            for k in range(3):  # up to three floats either side
                up, down = moved[steps > k], moved[steps < -k]
                X[up, j] = np.nextafter(X[up, j], np.inf)
                X[down, j] = np.nextafter(X[down, j], -np.inf)
        below, at_or_below = grid_ranks(X, lower, upper, K)
        for j in range(d):
            grid = np.linspace(lower[j], upper[j], K)
            ordered = np.sort(np.clip(X[:, j], lower[j], upper[j]))
            assert np.array_equal(below[j], np.searchsorted(ordered, grid, side="left"))
            assert np.array_equal(at_or_below[j], np.searchsorted(ordered, grid, side="right"))
    assert None in checked and any(cut is not None and cut < 1e-9 for cut in checked)


def test_feature_grids_are_one_linspace_per_feature():
    from skdp.utils._joint_quantiles import _feature_grids

    rng = np.random.default_rng(12)
    for case in range(200):
        d, K = int(rng.integers(1, 12)), int(rng.choice([1, 2, 3, 100, 181, 257, 513]))
        lower = rng.normal(size=d) * 10.0 ** rng.uniform(-3, 300, d)
        upper = lower + 10.0 ** rng.uniform(-3, 3, d) * np.abs(lower).clip(1)
        if case % 3 == 0:  # a width of a few denormals: its step is 0
            K = int(rng.choice([100, 181, 257]))
            lower[0], upper[0] = 0.0, 5e-324 * int(rng.integers(1, 40))
        grids = _feature_grids(lower, upper, K)
        for j in range(d):
            assert np.array_equal(grids[j], np.linspace(lower[j], upper[j], K))


@pytest.mark.parametrize("add_at", [False, True])
def test_both_counting_loops_give_the_ranks_of_a_sort(monkeypatch, add_at):
    import skdp.utils._grid_index as grid_index

    monkeypatch.setattr(grid_index, "_ADD_AT", add_at)
    histogram = np.zeros(7, dtype=np.int64)
    cells = np.random.default_rng(0).integers(0, 7, 5000)
    grid_index.add_counts(histogram, cells)
    assert np.array_equal(histogram, np.bincount(cells, minlength=7))
    X = np.random.default_rng(1).normal(size=(6000, 3))
    below, at_or_below = grid_ranks(X, [-2.0, -1.0, 0.0], [2.0, 1.0, 3.0], 257)
    for j, (lo, hi) in enumerate([(-2.0, 2.0), (-1.0, 1.0), (0.0, 3.0)]):
        grid, ordered = np.linspace(lo, hi, 257), np.sort(np.clip(X[:, j], lo, hi))
        assert np.array_equal(below[j], np.searchsorted(ordered, grid, side="left"))
        assert np.array_equal(at_or_below[j], np.searchsorted(ordered, grid, side="right"))
