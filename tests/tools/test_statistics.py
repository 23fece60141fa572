"""skdp.tools mean, var, std, sum and count_nonzero: numpy-like private statistics."""

import warnings

import dask.array as da
import numpy as np
import pytest

from skdp import PrivacyLedger
from skdp.tools import (
    count_nonzero,
    histogram,
    histogramdd,
    mean,
    median,
    percentile,
    quantile,
    std,
    sum,
    var,
)

RNG = np.random.default_rng(0)
X = RNG.normal([0.0, 10.0, -3.0], [1.0, 3.0, 0.5], size=(20000, 3))
BOUNDS = ([-5.0, -5.0, -6.0], [5.0, 25.0, 0.0])
FUNCTIONS = [mean, var, std, sum]


@pytest.mark.parametrize("function", [*FUNCTIONS, count_nonzero], ids=lambda f: f.__name__)
@pytest.mark.parametrize("bounds", [None, BOUNDS], ids=["estimated", "declared"])
@pytest.mark.parametrize("axis", [None, 0])
def test_spends_exactly_epsilon_in_the_callers_ledger(function, bounds, axis):
    options = {} if function is count_nonzero else {"bounds": bounds}
    with PrivacyLedger() as ledger:
        function(X[:2000], axis, epsilon=0.7, random_state=0, **options)
    assert ledger.total.epsilon == pytest.approx(0.7, rel=1e-12)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_close_to_numpy_per_column_and_overall(function):
    reference = getattr(np, function.__name__)
    for axis in (0, None):
        got = function(X, axis, epsilon=5.0, bounds=BOUNDS, random_state=1)
        truth = reference(X, axis=axis)
        assert np.shape(got) == np.shape(truth)
        scale = 1e-3 * X.shape[0] * 30 if function is sum else 0.05 * np.abs(truth).max() + 0.02
        np.testing.assert_allclose(got, truth, atol=scale)


def test_one_d_input_gives_a_float_and_estimated_bounds_work():
    x = X[:, 1]
    for function in FUNCTIONS:
        got = function(x, epsilon=2.0, random_state=0)
        assert isinstance(got, float)
        assert got == pytest.approx(getattr(np, function.__name__)(x), rel=0.1)
    assert isinstance(count_nonzero(x, epsilon=1.0, random_state=0), int)


def test_count_nonzero_per_column():
    Z = np.zeros((5000, 2))
    Z[:1000, 0] = 1.0
    got = count_nonzero(Z, axis=0, epsilon=2.0, random_state=0)
    assert got.shape == (2,) and got.dtype.kind == "i"
    np.testing.assert_allclose(got, [1000, 0], atol=15)


def test_the_noise_is_fresh_and_seeded():
    first = mean(X, 0, epsilon=1.0, bounds=BOUNDS, random_state=3)
    np.testing.assert_array_equal(first, mean(X, 0, epsilon=1.0, bounds=BOUNDS, random_state=3))
    assert not np.array_equal(first, mean(X, 0, epsilon=1.0, bounds=BOUNDS, random_state=4))
    # the release is noisy: not the exact mean of the clipped values
    assert not np.allclose(first, X.mean(axis=0), atol=1e-9)


def test_sum_uses_the_add_remove_sensitivity():
    """A range that excludes 0: one record moves the sum by up to max(|l|, |u|) = 10,
    not u - l = 1; the noise is scaled to it (spread of 400 draws at epsilon 1)."""
    x = np.full(100, 9.5)
    draws = [sum(x, epsilon=1.0, bounds=(9.0, 10.0), random_state=s) for s in range(400)]
    assert 8 < np.std(draws) < 20  # Laplace(10) has std 14.1; Laplace(1) 1.41


def test_values_are_clipped_to_the_bounds():
    x = np.array([0.0] * 500 + [1000.0] * 500)
    with pytest.warns(UserWarning, match="clipped"):
        got = mean(x, epsilon=5.0, bounds=(0.0, 10.0), random_state=0)
    assert 4 < got <= 10


def test_variance_is_positive_and_within_the_box():
    got = var(np.ones(50), epsilon=0.5, bounds=(0.0, 2.0), random_state=0)
    assert 0 < got <= 1.0


@pytest.mark.parametrize("function", [*FUNCTIONS, count_nonzero], ids=lambda f: f.__name__)
def test_rejects_bad_input(function):
    with pytest.raises(ValueError, match="axis"):
        function(X, 1, epsilon=1.0)
    with pytest.raises(ValueError, match="NaN"):
        function([1.0, np.nan], epsilon=1.0)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        function(np.ones((2, 2, 2)), epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        function(X, epsilon=0.0)
    if function is not count_nonzero:
        for bounds in [(1.0, 0.0), (0.0, np.inf), ([0, 0], [1, 1]), "ab"]:
            with pytest.raises(ValueError, match="bounds"):
                function(X, epsilon=1.0, bounds=bounds)


def test_empty_input_gives_a_finite_release():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for function in FUNCTIONS:
            assert np.isfinite(function([], epsilon=1.0, random_state=0))


def test_histogram_has_numpys_shape_and_spends_epsilon():
    x = X[:, 1]
    with PrivacyLedger() as ledger:
        hist, edges = histogram(x, bins=12, range=(-5, 25), epsilon=0.5, random_state=0)
    assert ledger.total.epsilon == pytest.approx(0.5, rel=1e-12)
    truth, true_edges = np.histogram(x, bins=12, range=(-5, 25))
    assert hist.shape == truth.shape and hist.dtype == np.int64
    np.testing.assert_array_equal(edges, true_edges)
    np.testing.assert_allclose(hist, truth, atol=40)
    hist, edges = histogram(x, bins=[-5, 0, 10, 25], epsilon=0.5, random_state=0)
    np.testing.assert_allclose(hist, np.histogram(x, bins=[-5, 0, 10, 25])[0], atol=40)


def test_every_bin_is_noised_the_empty_ones_too():
    draws = [
        histogram(np.zeros(10), bins=2, range=(5, 7), epsilon=1.0, random_state=s)[0]
        for s in range(50)
    ]
    assert np.any(np.asarray(draws) != 0)


def test_histogramdd_has_numpys_shape():
    with PrivacyLedger() as ledger:
        H, edges = histogramdd(X[:, :2], bins=(3, [0, 10, 20]), range=[(-3, 3), None],
                               epsilon=1.0, random_state=0)  # fmt: skip
    assert ledger.total.epsilon == pytest.approx(1.0, rel=1e-12)
    truth = np.histogramdd(X[:, :2], bins=[np.linspace(-3, 3, 4), [0, 10, 20]])[0]
    assert H.shape == (3, 2) and len(edges) == 2
    np.testing.assert_allclose(H, truth, atol=40)


@pytest.mark.parametrize(
    "call",
    [
        lambda: histogram(X[:, 0], bins=5, epsilon=1.0),  # no public range
        lambda: histogram(X[:, 0], bins=[1, 0], epsilon=1.0),
        lambda: histogram(X, bins=[0, 1], epsilon=1.0),
        lambda: histogramdd(X, bins=3, epsilon=1.0),
        lambda: histogramdd(X, bins=3, range=[(0, 1)], epsilon=1.0),
    ],
)
def test_histograms_need_public_bins(call):
    with pytest.raises(ValueError):
        call()


def test_median_and_percentile_wrap_quantile():
    x = X[:, 1]
    assert median(x, epsilon=1.0, bounds=(-5, 25), random_state=0) == quantile(
        x, 0.5, epsilon=1.0, bounds=(-5, 25), random_state=0
    )
    np.testing.assert_array_equal(
        percentile(x, [10, 90], epsilon=1.0, bounds=(-5, 25), random_state=0),
        quantile(x, [0.1, 0.9], epsilon=1.0, bounds=(-5, 25), random_state=0),
    )


def test_median_and_percentile_per_column_split_epsilon():
    with PrivacyLedger() as ledger:
        got = median(X, 0, epsilon=1.0, bounds=BOUNDS, random_state=0)
    assert ledger.total.epsilon == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(got, np.median(X, axis=0), atol=0.1)
    got = percentile(X, [10, 90], 0, epsilon=3.0, random_state=0)
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got, np.percentile(X, [10, 90], axis=0), rtol=0.25, atol=0.2)
    with pytest.raises(ValueError, match="axis"):
        median(X, epsilon=1.0)


@pytest.mark.parametrize("function", [*FUNCTIONS, count_nonzero], ids=lambda f: f.__name__)
def test_dask_input_gives_the_numpy_release(function):
    """The sums are added up block by block; same seed, same release as numpy."""
    options = {} if function is count_nonzero else {"bounds": BOUNDS}
    remote = da.from_array(X[:4000], chunks=(1000, 3))
    for axis in (0, None):
        np.testing.assert_allclose(
            function(remote, axis, epsilon=1.0, random_state=0, **options),
            function(X[:4000], axis, epsilon=1.0, random_state=0, **options),
            rtol=1e-9,
        )
    if function is not count_nonzero:
        with pytest.raises(ValueError, match="bounds"):
            function(remote, epsilon=1.0)
        with pytest.raises(ValueError, match="finite"):
            function(da.from_array(np.array([[1.0], [np.nan]])), epsilon=1.0, bounds=(0, 2))


def test_histogram_counts_are_clipped_at_zero_unless_asked_not_to():
    """Free post-processing: empty bins never show negative counts by default; the raw
    counts (nonnegative=False) are the same draw before the clip."""
    x = np.full(20, 0.5)
    raw = histogram(x, bins=20, range=(0, 20), epsilon=0.2, nonnegative=False, random_state=0)[0]
    clipped = histogram(x, bins=20, range=(0, 20), epsilon=0.2, random_state=0)[0]
    assert np.any(raw < 0)
    np.testing.assert_array_equal(clipped, np.maximum(raw, 0))
    H = histogramdd(np.zeros((5, 2)), bins=4, range=[(1, 2), (1, 2)], epsilon=0.2, random_state=0)
    assert np.all(H[0] >= 0) and H[0].dtype == np.int64


@pytest.mark.parametrize("function", [var, std])
def test_var_splits_its_budget_evenly(function):
    """Count, centred sums and centred squares each get a third (was 1 : 2 : 2)."""
    with PrivacyLedger() as ledger:
        function(X[:, :2], axis=0, epsilon=0.9, bounds=(-5, 25), random_state=0)
    spends = sorted((entry.mechanism, entry.epsilon) for entry in ledger.entries)
    assert [name for name, _ in spends] == ["geometric", "laplace", "laplace"]
    np.testing.assert_allclose([eps for _, eps in spends], [0.3, 0.3, 0.3], rtol=1e-12)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_the_clipping_warning_points_at_the_caller(function):
    with pytest.warns(UserWarning, match="clipped") as caught:
        function(np.array([0.0, 50.0]), epsilon=1.0, bounds=(0.0, 10.0), random_state=0)
    assert [w.filename for w in caught] == [__file__]
