"""The private per-group counts, centred sums and squares (skdp.utils._centred_sums)."""

import warnings

import numpy as np
import pytest

from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning
from skdp.utils._centred_sums import VAR_FLOOR, centred_sums

RNG = np.random.default_rng(0)
X = np.c_[RNG.uniform(0, 10, 600), RNG.normal(100, 5, 600)]
GROUPS = (np.arange(600) % 3).astype(np.int64)
LOWER, UPPER = np.array([0.0, 80.0]), np.array([10.0, 120.0])
EPSILONS = {"epsilon_count": 0.2, "epsilon_sums": 0.4, "epsilon_squares": 0.4}


def test_spends_the_three_budgets_once_over_all_groups():
    """Groups compose in parallel: 5 groups cost what one does (0.2 + 0.4 + 0.4)."""
    with PrivacyLedger() as ledger:
        centred_sums(X, LOWER, UPPER, groups=GROUPS, n_groups=5, random_state=0, **EPSILONS)
    assert ledger.total.epsilon == pytest.approx(1.0, rel=1e-12)
    with PrivacyLedger() as ledger:
        out = centred_sums(X, LOWER, UPPER, epsilon_count=0.3, epsilon_sums=0.5, random_state=0)
    assert ledger.total.epsilon == pytest.approx(0.8, rel=1e-12)
    assert out.squares is None and out.var is None


def test_large_epsilon_recovers_the_exact_group_statistics():
    big = {key: 1e9 for key in EPSILONS}
    out = centred_sums(X, LOWER, UPPER, groups=GROUPS, n_groups=3, random_state=0, **big)
    for k in range(3):
        rows = X[GROUPS == k]
        assert out.count[k] == rows.shape[0]
        np.testing.assert_allclose(out.mean[k], rows.mean(axis=0), rtol=1e-4)
        np.testing.assert_allclose(out.var[k], rows.var(axis=0), rtol=1e-4)
        centred = rows - (LOWER + UPPER) / 2
        np.testing.assert_allclose(out.sums[k], centred.sum(axis=0), rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(out.squares[k], (centred**2).sum(axis=0), rtol=1e-4)


def test_noise_is_the_same_relative_to_each_half_range():
    """Sums' noise: Laplace of scale d h_j / epsilon_sums (std sqrt(2) d h_j / eps),
    so a feature of half-range 100 gets 100 times the noise of one of half-range 1,
    not the noise of the widest feature."""
    data = np.zeros((50, 2))
    lower, upper = np.array([-1.0, -100.0]), np.array([1.0, 100.0])
    draws = np.array([
        centred_sums(data, lower, upper, epsilon_count=1.0, epsilon_sums=1.0,
                     random_state=seed).sums[0]
        for seed in range(400)
    ])  # fmt: skip
    std = draws.std(axis=0)
    expected = np.sqrt(2) * 2 * np.array([1.0, 100.0])  # d = 2
    np.testing.assert_allclose(std, expected, rtol=0.15)


def test_squares_noise_has_half_the_plain_sensitivity():
    """Centred squares sum t^2 - 1/2: noise of scale (d / 2) h^2 / epsilon_squares."""
    data = np.zeros((50, 1))
    draws = np.array([
        centred_sums(data, -2.0, 2.0, epsilon_count=1e9, epsilon_sums=1.0,
                     epsilon_squares=1.0, random_state=seed).squares[0, 0]
        for seed in range(400)
    ])  # fmt: skip
    assert draws.std() == pytest.approx(np.sqrt(2) * 0.5 * 4.0, rel=0.15)


def test_every_group_is_noised_even_an_empty_one():
    counts = [
        centred_sums(X, LOWER, UPPER, groups=GROUPS, n_groups=4, random_state=seed,
                     **EPSILONS).count[3]
        for seed in range(50)
    ]  # fmt: skip
    assert len(set(counts)) > 3


def test_post_processing_stays_in_the_box_and_above_the_floor():
    """Tiny epsilon: noisy counts below 1 become 1, means stay in the box, variances in
    [VAR_FLOOR h^2, h^2]."""
    half = (UPPER - LOWER) / 2
    tiny = {key: 1e-3 for key in EPSILONS}
    for seed in range(20):
        out = centred_sums(X[:5], LOWER, UPPER, n_groups=1, random_state=seed, **tiny)
        assert np.all(out.n >= 1) and np.all(out.n == np.maximum(out.count, 1))
        assert np.all((out.mean >= LOWER) & (out.mean <= UPPER))
        assert np.all(out.var >= VAR_FLOOR * half**2 * (1 - 1e-12))
        noise_floor = np.minimum(2 / (2 * 1e-3 * out.n), 1.0)  # d / (2 eps_Q n~), d = 2
        assert np.all(out.var >= noise_floor[:, None] * half**2 * (1 - 1e-12))
        assert np.all(out.var <= half**2 * (1 + 1e-12))


def test_rows_are_clipped_to_the_bounds_first():
    data = np.array([[-50.0], [50.0], [0.5]])
    big = {key: 1e9 for key in EPSILONS}
    with pytest.warns(ClippingWarning, match="2 of 3 values"):
        out = centred_sums(data, 0.0, 1.0, random_state=0, **big)
    clipped = np.array([0.0, 1.0, 0.5])
    assert out.mean[0, 0] == pytest.approx(clipped.mean(), abs=1e-6)
    assert out.var[0, 0] == pytest.approx(clipped.var(), abs=1e-6)


def test_no_warning_inside_the_bounds():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        centred_sums(X, LOWER, UPPER, random_state=0, **EPSILONS)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"groups": np.full(600, 3), "n_groups": 3}, "groups must be"),
        ({"groups": np.zeros(5, dtype=int)}, "groups must be"),
        ({"var_floor": 0.0}, "var_floor"),
    ],
)
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        centred_sums(X, LOWER, UPPER, random_state=0, **EPSILONS, **kwargs)


def test_bad_bounds_are_refused():
    with pytest.raises(ValueError, match="lower < upper"):
        centred_sums(X, UPPER, LOWER, random_state=0, **EPSILONS)


def test_a_variance_below_its_noise_is_raised_to_the_noise_scale():
    """A constant column (exact variance 0): at epsilon_squares 0.5 with 100 rows the
    floor is d / (2 * 0.5 * n~) ~ 0.01 of h^2, not the public VAR_FLOOR."""
    data = np.zeros((100, 1))
    for seed in range(10):
        out = centred_sums(data, -1.0, 1.0, epsilon_count=1.0, epsilon_sums=1.0,
                           epsilon_squares=0.5, random_state=seed)  # fmt: skip
        assert out.var[0, 0] >= 1 / (2 * 0.5 * out.n[0]) * (1 - 1e-12)


def test_a_dask_array_gives_the_numpy_release():
    """Exact statistics summed block by block, then the same noise on the driver."""
    da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
    in_memory = centred_sums(X, LOWER, UPPER, random_state=0, **EPSILONS)
    lazy = centred_sums(da.from_array(X, chunks=100), LOWER, UPPER, random_state=0, **EPSILONS)
    np.testing.assert_array_equal(lazy.count, in_memory.count)
    np.testing.assert_allclose(lazy.mean, in_memory.mean, rtol=1e-9)
    np.testing.assert_allclose(lazy.var, in_memory.var, rtol=1e-9)


def test_exact_statistics_take_blocks_not_copies_of_x():
    import tracemalloc

    from skdp.utils._centred_sums import _BlockStatistics

    X = np.random.default_rng(0).normal(size=(300_000, 4))
    statistics = _BlockStatistics(np.full(4, -2.0), np.full(4, 2.0), 3, squares=True)
    groups = np.arange(X.shape[0]) % 3
    tracemalloc.start()
    count, sums, squares, n_clipped = statistics(X, groups)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 0.5 * X.nbytes  # a scaled copy alone would be X.nbytes
    t = np.clip(X / 2.0, -1.0, 1.0)
    np.testing.assert_allclose(sums[1], t[groups == 1].sum(axis=0))
    np.testing.assert_allclose(squares[2], (t[groups == 2] ** 2 - 0.5).sum(axis=0))
    assert n_clipped == np.count_nonzero(np.abs(X) > 2.0) and count.tolist() == [100_000] * 3


@pytest.mark.parametrize("n_groups", [1, 2])
def test_clipped_values_are_counted_exactly_at_and_next_to_the_bounds(n_groups):
    """The compares run only when the scaled block's extremes leave the scaled box;
    values on a bound are not clipped, one ulp past it they are, and the sums are those
    of the values clipped then scaled."""
    from skdp.utils._centred_sums import _BlockStatistics

    lower, upper = np.array([-1.3, 0.1, 2.0]), np.array([0.7, 3.3, 2.5])
    X = np.random.default_rng(1).uniform(lower, upper, size=(1000, 3))
    statistics = _BlockStatistics(lower, upper, n_groups, squares=True)
    groups = np.arange(1000) % n_groups
    assert statistics(X, groups)[3] == 0
    X[:3] = lower, upper, (lower + upper) / 2
    assert statistics(X, groups)[3] == 0
    X[3] = np.nextafter(lower, -np.inf)
    X[4, 1] = np.nextafter(upper[1], np.inf)
    _, sums, squares, n_clipped = statistics(X, groups)
    assert n_clipped == 4
    t = np.clip((np.clip(X, lower, upper) - statistics.centre) / statistics.half, -1.0, 1.0)
    for k in range(n_groups):
        np.testing.assert_allclose(sums[k], t[groups == k].sum(axis=0), rtol=1e-13)
        np.testing.assert_allclose(
            squares[k], (t[groups == k] ** 2 - 0.5).sum(axis=0), rtol=1e-12, atol=1e-12
        )
