"""DPKMeans: budget accounting, noise on every cluster, Lloyd and grid internals, API."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score, euclidean_distances
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils._param_validation import InvalidParameterError
from threadpoolctl import threadpool_limits

import skdp.cluster._grid as grid
import skdp.cluster._lloyd as lloyd
from skdp import PrivacyLedger, privacy_spent
from skdp.cluster import DPKMeans
from skdp.cluster._tree import LEVEL_SHARES, tree_levels
from skdp.exceptions import ClippingWarning
from skdp.mechanisms import lattice_step
from tests._ledger import bounds_entries

BOUNDS = (-10.0, 10.0)
HALF = 10.0  # half the width of BOUNDS: one unit of the scaled domain in units of X
BLOB_CENTRES = np.array([[-6.0, -6.0, 0.0], [6.0, -6.0, 3.0], [0.0, 6.0, -3.0]])


@pytest.fixture(autouse=True)
def _one_thread():
    """On a loaded machine OpenMP threads cost ~50 ms per tiny pairwise-distance call."""
    with threadpool_limits(1):
        yield


def blobs(n_per_blob=100, centres=BLOB_CENTRES, scale=0.5, seed=0):
    """Well-separated blobs, well inside BOUNDS; the label of each row."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(centres)), n_per_blob)
    return centres[labels] + rng.normal(scale=scale, size=(labels.size, centres.shape[1])), labels


def two_signs(n, d, seed=0):
    """Values in [-3.5, -2.5] or [2.5, 3.5]: two log-scale bins, so private bounds clip none."""
    rng = np.random.default_rng(seed)
    return rng.choice([-1.0, 1.0], size=(n, d)) * rng.uniform(2.5, 3.5, size=(n, d))


# budget accounting ---------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 10, 50])
@pytest.mark.parametrize("method", ["lloyd", "grid", "hybrid"])
@pytest.mark.parametrize("bounds", [(-4.0, 4.0), None], ids=["public", "private"])
@pytest.mark.parametrize("max_iter", [None, 3])
def test_ledger_spends_exactly_epsilon_split_c_to_d_per_lloyd_iteration(
    d, method, bounds, max_iter
):
    """Regression test for diffprivlib's budget split bug.

    diffprivlib swaps the count and per-dimension sum shares (the count gets
    ``eps_t / (d + c)`` and each dimension ``c eps_t / (d + c)``) and so spends
    ``eps_t (1 + d c) / (d + c)`` per iteration: 1.21x at d = 10, 2.09x at d = 50. Here the
    ledger must show, per iteration, one discrete-Laplace call for the counts and one
    Laplace call for the sums with epsilons in ratio ``c : d``, adding up to the
    iteration's share, and a total of exactly ``epsilon``.
    """
    epsilon = 2.0 if bounds is not None else 100.0  # private bounds in 50-d need a budget
    X = two_signs(600, d)
    model = DPKMeans(
        3, epsilon=epsilon, bounds=bounds, method=method, max_iter=max_iter, random_state=0
    )
    with warnings.catch_warnings():
        # private bounds are 98% quantiles: they may clip a few values
        warnings.simplefilter("error" if bounds else "ignore", ClippingWarning)
        with PrivacyLedger() as ledger:
            model.fit(X)
    assert math.isclose(ledger.total.epsilon, epsilon, rel_tol=1e-12)
    assert model.privacy_spent_ == ledger.total
    split = model.epsilon_split_
    assert set(split) == {"n_samples", "bounds", "grid", "lloyd"}
    assert math.isclose(math.fsum(split.values()), epsilon, rel_tol=1e-12)
    # the preamble: one noisy count (5%) and the tiered bounds share, both recorded
    preamble = bounds_entries(ledger, model.bounds_tier_, d) if bounds is None else []
    if bounds is None:
        assert split["n_samples"] == pytest.approx(0.05 * epsilon)
        assert 0.1 * epsilon <= split["bounds"] <= 0.5 * epsilon + 1e-12
        assert math.isclose(math.fsum(e.epsilon for e in preamble), split["bounds"])
        assert model.bounds_tier_ in (1, 2)
    else:
        assert split["bounds"] == 0 and not preamble and model.bounds_tier_ is None
    entries = [e for e in ledger.entries if not any(e is p for p in preamble)]
    if split["n_samples"]:  # exactly one count, released first
        assert (entries[0].mechanism, entries[0].epsilon) == ("geometric", split["n_samples"])
        entries = entries[1:]
    if method == "grid":
        assert split["lloyd"] == 0
        assert [(e.mechanism, e.epsilon) for e in entries] == [("geometric", split["grid"])]
        return
    if method == "lloyd":
        assert split["grid"] == 0
    n_iter = model.n_iter_
    if max_iter is not None:
        assert n_iter == max_iter
    elif method == "hybrid":
        assert n_iter == 1
    else:
        n_low = max(1.0, model.n_samples_estimate_ - 3 / split["n_samples"])
        rule = lloyd.su_iterations(split["lloyd"], n_low, 3, d)
        assert n_iter == rule and lloyd.MIN_ITERATIONS <= n_iter <= lloyd.MAX_ITERATIONS
    steps = entries[-2 * n_iter :]
    grid = entries[: len(entries) - len(steps)]
    if method == "hybrid":  # the tree's levels: geometric, LEVEL_SHARES of the grid's share
        n_low = max(1.0, model.n_samples_estimate_ - 3 / split["n_samples"])
        shares = LEVEL_SHARES[-tree_levels(d, n_low, split["grid"]) :]
        expected = [split["grid"] * share / sum(shares) for share in shares]
        assert [e.mechanism for e in grid] == ["geometric"] * len(shares)
        assert [e.epsilon for e in grid] == pytest.approx(expected, rel=1e-12)
    else:
        assert not grid
    c = lloyd.count_share(d)
    for counts, sums in zip(steps[::2], steps[1::2], strict=True):
        assert (counts.mechanism, sums.mechanism) == ("geometric", "laplace")
        assert math.isclose(counts.epsilon / sums.epsilon, c / d, rel_tol=1e-12)
        assert math.isclose(counts.epsilon + sums.epsilon, split["lloyd"] / n_iter, rel_tol=1e-12)


def test_count_share_is_su_et_al_constant_behind_diffprivlib_overspend():
    """c = (4 d rho^2)^(1/3), rho = 0.225; with the shares swapped (count eps_t / (d + c),
    each dimension c eps_t / (d + c)) an iteration would spend (1 + d c) / (d + c) eps_t."""
    for d in (1, 2, 10, 50):
        assert lloyd.count_share(d) == pytest.approx((4 * d * 0.225**2) ** (1 / 3), rel=1e-12)
    for d, overspend in [(2, 0.905), (10, 1.21), (50, 2.09)]:
        c = lloyd.count_share(d)
        assert (1 + d * c) / (d + c) == pytest.approx(overspend, abs=0.005)


# every cluster is noised ---------------------------------------------------------------


def record_noise(monkeypatch):
    """Wrap the noise functions used by noisy_lloyd_step; record inputs and outputs."""
    calls = []
    for name in ("geometric", "laplace"):
        real = getattr(lloyd, name)

        def wrapper(value, *, _name=name, _real=real, **kwargs):
            out = _real(value, **kwargs)
            calls.append((_name, np.array(value, copy=True), np.array(out, copy=True)))
            return out

        monkeypatch.setattr(lloyd, name, wrapper)
    return calls


FAR_INIT = np.array([[-6.0, -6.0, 0.0], [6.0, -6.0, 3.0], [0.0, 6.0, -3.0], [9.5, 9.5, 9.5]])


def test_every_cluster_is_noised_every_iteration_empty_ones_included(monkeypatch):
    """The fourth centre is far from all data: its cluster is empty in every iteration
    (at this epsilon its noisy count is 0 < 1, so it never moves), yet its exact count 0
    and sum 0 go through the noise with the others: no data-dependent skip."""
    calls = record_noise(monkeypatch)
    X, _ = blobs()
    model = DPKMeans(
        4, epsilon=1e6, bounds=BOUNDS, init=FAR_INIT, max_iter=4, method="lloyd", random_state=0
    )
    model.fit(X)
    assert model.n_iter_ == 4
    assert [name for name, _, _ in calls] == ["geometric", "laplace"] * 4
    for (_, counts, _), (_, sums, _) in zip(calls[::2], calls[1::2], strict=True):
        assert counts.shape == (4,) and sums.shape == (4, 3)
        assert counts[3] == 0 and np.all(sums[3] == 0)
        assert counts[:3].tolist() == [100, 100, 100]
    np.testing.assert_allclose(model.cluster_centers_[3], FAR_INIT[3])


def test_the_empty_cluster_count_really_gets_noise(monkeypatch):
    """At a small epsilon (count noise of scale ~45) the released count of the empty
    cluster is rarely 0: with probability tanh(0.011) ~ 1% per fit if noised, always if
    skipped."""
    calls = record_noise(monkeypatch)
    X, _ = blobs()
    released = []
    for seed in range(20):
        calls.clear()
        model = DPKMeans(4, epsilon=0.1, bounds=BOUNDS, init=FAR_INIT, max_iter=1, method="lloyd")
        model.set_params(random_state=seed).fit(X)
        (_, counts, noisy_counts), (_, sums, noisy_sums) = calls
        assert counts[3] == 0 and np.all(sums[3] == 0)
        assert np.all(noisy_sums[3] != 0)
        np.testing.assert_array_equal(model.cluster_counts_, noisy_counts)
        released.append(noisy_counts[3])
    assert np.count_nonzero(released) >= 17
    assert np.mean(np.abs(released)) > 10


# noisy_lloyd_step ------------------------------------------------------------------------


def posterior_mean_reference(estimate, scale):
    """Mean of mu on [-1, 1] with density proportional to exp(-|mu - estimate| / scale)."""
    nearest = min(max(estimate, -1.0), 1.0)
    offset = abs(estimate - nearest)  # factored out so that nothing underflows

    def density(mu):
        return math.exp(-(abs(mu - estimate) - offset) / scale)

    def integral(function):  # smooth on each side of the peak
        pieces = [(-1.0, nearest), (nearest, 1.0)]
        return sum(quad(function, a, b, epsabs=1e-13, epsrel=1e-11)[0] for a, b in pieces)

    return integral(lambda mu: mu * density(mu)) / integral(density)


@settings(max_examples=200, deadline=None)
@given(
    estimate=st.floats(-4.0, 4.0),
    scale=st.floats(1e-3, 1e3),
)
def test_box_posterior_mean_is_the_truncated_laplace_mean(estimate, scale):
    value = lloyd.box_posterior_mean(np.array([estimate]), np.array([scale]))[0]
    assert -1.0 <= value <= 1.0
    assert value == pytest.approx(posterior_mean_reference(estimate, scale), abs=1e-9)
    mirrored = lloyd.box_posterior_mean(np.array([-estimate]), np.array([scale]))[0]
    assert mirrored == pytest.approx(-value, abs=1e-12)


def test_box_posterior_mean_limits():
    estimate = np.array([-3.0, -1.0, -0.3, 0.0, 0.7, 1.0, 5.0])
    precise = lloyd.box_posterior_mean(estimate, np.full(7, 1e-9))
    np.testing.assert_allclose(precise, np.clip(estimate, -1, 1), atol=1e-8)
    hopeless = lloyd.box_posterior_mean(estimate, np.full(7, 1e9))
    np.testing.assert_allclose(hopeless, 0.0, atol=1e-8)
    grid_of_estimates = np.linspace(-3, 3, 601)
    moderate = lloyd.box_posterior_mean(grid_of_estimates, np.full(601, 0.3))
    assert np.all(np.diff(moderate) >= -1e-12), "monotone in the estimate"
    # beyond the box the posterior no longer depends on how far the estimate lies
    assert moderate[0] == moderate[50] and moderate[-1] == moderate[-51]


def test_noisy_lloyd_step_keeps_centres_with_noisy_count_below_one(monkeypatch):
    counts = np.array([5, 0, 3, 2])
    sums = np.array([[1.5, -1.0], [0.0, 0.0], [2.0, 1.0], [1.0, -0.5]])
    previous = np.array([[0.1, 0.2], [0.3, 0.4], [-0.5, -0.6], [0.7, -0.8]])
    noisy_counts = np.array([4, 0, -2, 1])
    noisy_sums = np.array([[2.0, -1.0], [7.0, 7.0], [1.0, 1.0], [3.0, -0.5]])
    seen = {}

    def fake_geometric(value, **kwargs):
        seen["geometric"] = (np.array(value), kwargs)
        return noisy_counts

    def fake_laplace(value, **kwargs):
        seen["laplace"] = (np.array(value), kwargs)
        return noisy_sums

    monkeypatch.setattr(lloyd, "geometric", fake_geometric)
    monkeypatch.setattr(lloyd, "laplace", fake_laplace)
    rng = np.random.default_rng(0)
    epsilon, d = 0.6, 2
    centres, released = lloyd.noisy_lloyd_step(counts, sums, previous, epsilon=epsilon, rng=rng)
    c = lloyd.count_share(d)
    count_epsilon, sum_epsilon = epsilon * c / (d + c), epsilon * d / (d + c)
    np.testing.assert_array_equal(released, noisy_counts)
    # noisy count 0 and -2 (below 1): the previous centre, exactly
    np.testing.assert_array_equal(centres[[1, 2]], previous[[1, 2]])
    # noisy counts 4 and 1 (1 is not below 1): the posterior mean in the box of the
    # ratio, whose Laplace noise has scale (d / sum_epsilon) / noisy count
    for j in (0, 3):
        for i in range(d):
            ratio, scale = noisy_sums[j, i] / noisy_counts[j], d / sum_epsilon / noisy_counts[j]
            expected = posterior_mean_reference(ratio, scale)
            assert centres[j, i] == pytest.approx(expected, abs=1e-9)
    assert centres[3, 0] < 1.0, "3.0 is pulled inside the box, not clipped to its face"
    np.testing.assert_array_equal(seen["geometric"][0], counts)
    np.testing.assert_array_equal(seen["laplace"][0], sums)
    geometric_kwargs, laplace_kwargs = seen["geometric"][1], seen["laplace"][1]
    assert geometric_kwargs["sensitivity"] == 1 and laplace_kwargs["sensitivity"] == d
    assert geometric_kwargs["epsilon"] == pytest.approx(count_epsilon, rel=1e-12)
    assert laplace_kwargs["epsilon"] == pytest.approx(sum_epsilon, rel=1e-12)
    assert geometric_kwargs["random_state"] is rng and laplace_kwargs["random_state"] is rng


def test_noisy_lloyd_step_with_precise_sums_is_the_ratio_in_the_box(monkeypatch):
    """A huge count makes the ratio's noise negligible: the centre is the ratio, and a
    ratio beyond a face ends on that face."""
    monkeypatch.setattr(lloyd, "geometric", lambda value, **kwargs: np.array([10**9]))
    monkeypatch.setattr(lloyd, "laplace", lambda value, **kwargs: np.array([[-5e9, 2.5e8]]))
    centres, _ = lloyd.noisy_lloyd_step(
        np.array([10**9]), np.zeros((1, 2)), np.zeros((1, 2)), epsilon=1.0, rng=None
    )
    np.testing.assert_allclose(centres, [[-1.0, 0.25]], atol=1e-8)


# large epsilon: the exact algorithms ---------------------------------------------------


def test_large_epsilon_lloyd_recovers_sklearn_kmeans():
    """With negligible noise, T DP Lloyd steps from C0 are T Lloyd steps from C0.

    The only difference left is the lattice of the sums: each scaled sum is rounded to
    a multiple of the lattice step g, so a centre moves by at most g / 2 / count in the
    scaled domain, HALF * g / 2 / count in units of X; HALF * g bounds it.
    """
    X, truth = blobs(n_per_blob=100)
    C0 = BLOB_CENTRES + np.array([[2.0, -1.5, 1.0], [-2.0, 1.0, -1.0], [1.5, -2.0, 2.0]])
    T, epsilon = 5, 1e9
    model = DPKMeans(3, epsilon=epsilon, bounds=BOUNDS, init=C0, max_iter=T, random_state=0)
    model.fit(X)
    reference = KMeans(3, init=C0, n_init=1, max_iter=T, tol=0, algorithm="lloyd").fit(X)
    d, k = 3, 3
    sum_epsilon = epsilon / T * d / (d + lloyd.count_share(d))
    g = lattice_step(d, k * d, sum_epsilon)
    assert g <= 2.0**-12 / k
    np.testing.assert_allclose(model.cluster_centers_, reference.cluster_centers_, atol=HALF * g)
    assert not np.allclose(model.cluster_centers_, C0, atol=0.5), "the centres moved"
    np.testing.assert_array_equal(model.labels_, reference.labels_)
    assert adjusted_rand_score(model.labels_, truth) == 1.0
    np.testing.assert_array_equal(model.cluster_counts_, np.bincount(reference.labels_))


def test_large_epsilon_grid_finds_the_blob_centres_within_a_cell():
    X, truth = blobs(n_per_blob=200, centres=BLOB_CENTRES[:, :2])
    model = DPKMeans(3, epsilon=1e6, bounds=BOUNDS, method="grid", random_state=0).fit(X)
    cell_width = (BOUNDS[1] - BOUNDS[0]) / np.asarray(model.grid_shape_)
    assert math.prod(model.grid_shape_) >= grid.MAX_CELLS  # the cap: 512 x 512
    means = np.array([X[truth == j].mean(axis=0) for j in range(3)])
    order = euclidean_distances(means, model.cluster_centers_).argmin(axis=1)
    assert sorted(order.tolist()) == [0, 1, 2]
    assert np.all(np.abs(model.cluster_centers_[order] - means) <= cell_width)
    assert adjusted_rand_score(model.labels_, truth) == 1.0
    np.testing.assert_array_equal(model.cluster_counts_[order], [200, 200, 200])


# the grid ----------------------------------------------------------------------------------


def test_uniform_grid_shape_matches_the_authors_s1_example():
    assert grid.uniform_grid_shape(5000, 1.0, 2) == (23, 22)
    assert grid.uniform_grid_shape(5, 1.0, 2) == (1, 1)  # fewer than one cell's worth


@pytest.mark.parametrize("d", [10, 20, 50])
def test_uniform_grid_shape_is_capped_near_max_cells_in_high_dimension(d):
    shape = grid.uniform_grid_shape(10**6, 1.0, d)
    assert len(shape) == d and min(shape) >= 1
    assert grid.MAX_CELLS <= math.prod(shape) < 2 * grid.MAX_CELLS


@settings(max_examples=200, deadline=None)
@given(
    n=st.floats(1, 1e7),
    epsilon=st.floats(1e-3, 1e3),
    d=st.integers(1, 60),
    max_cells=st.integers(1, 2**18),
)
def test_uniform_grid_shape_reaches_the_rule_and_stays_below_twice_it(n, epsilon, d, max_cells):
    shape = grid.uniform_grid_shape(n, epsilon, d, max_cells=max_cells)
    target = min(max(n * epsilon / 10, 1.0) ** (2 * d / (2 + d)), max_cells)
    assert len(shape) == d and all(isinstance(s, int) and s >= 1 for s in shape)
    assert target * (1 - 1e-6) <= math.prod(shape) < 2 * target


def test_cell_index_puts_faces_in_the_outer_cells():
    shape = (4, 3)
    Z = np.array([[-1.0, -1.0], [1.0, 1.0], [1.0, -1.0], [-0.4, 0.1], [0.0, 0.0]])
    # positions (0, 0), (3, 2), (3, 0), (floor(1.2), floor(1.65)), (2, floor(1.5))
    np.testing.assert_array_equal(grid.cell_index(Z, shape), [0, 11, 9, 4, 7])


def test_cell_centres_invert_cell_index():
    shape = (5, 2, 3)
    cells = np.arange(math.prod(shape))
    np.testing.assert_array_equal(grid.cell_index(grid.cell_centres(shape, cells), shape), cells)


def test_noisy_histogram_noises_every_cell_in_one_release(monkeypatch):
    shape = (5, 5)
    Z = np.tile([[0.9, 0.9]], (20, 1))  # all rows in the last cell
    passed = []
    real = grid.geometric

    def spy(value, **kwargs):
        passed.append((np.array(value), kwargs))
        return real(value, **kwargs)

    monkeypatch.setattr(grid, "geometric", spy)
    with PrivacyLedger() as ledger:
        counts = np.bincount(grid.cell_index(Z, shape), minlength=math.prod(shape))
        noisy = grid.noisy_histogram(counts, epsilon=0.5, rng=np.random.default_rng(0))
    [(exact, kwargs)] = passed
    np.testing.assert_array_equal(exact, np.r_[np.zeros(24), 20])
    assert kwargs["sensitivity"] == 1 and kwargs["epsilon"] == 0.5
    assert noisy.shape == (25,) and noisy.dtype == np.int64
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("geometric", 0.5)]
    # each empty cell stays 0 with probability tanh(0.25) ~ 0.24: most of 24 move
    assert np.count_nonzero(noisy[:24]) >= 10


def norm_sub_reference(noisy, total):
    """max(noisy - tau, 0) with the tau that keeps the total, found by bisection."""
    low, high = noisy.min() - total, noisy.max()
    for _ in range(200):
        tau = (low + high) / 2
        low, high = (tau, high) if np.maximum(noisy - tau, 0).sum() > total else (low, tau)
    return np.maximum(noisy - (low + high) / 2, 0)


def test_norm_sub_docstring_example():
    np.testing.assert_array_equal(grid.norm_sub(np.array([10, -2, 3, 1, -1])), [9, 0, 2, 0, 0])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-60, 60), min_size=1, max_size=40))
def test_norm_sub_is_the_euclidean_projection_onto_the_scaled_simplex(values):
    noisy = np.array(values, dtype=float)
    total = noisy.sum()
    weights = grid.norm_sub(noisy)
    assert weights.shape == noisy.shape and np.all(weights >= 0)
    if total <= 0:
        assert np.all(weights == 0)
        return
    assert weights.sum() == pytest.approx(total, rel=1e-12)
    # KKT conditions of min ||w - v||^2 s.t. w >= 0, sum w = total: one tau with
    # w_i = v_i - tau where w_i > 0 and v_i <= tau where w_i = 0
    positive = weights > 0
    taus = noisy[positive] - weights[positive]
    assert np.ptp(taus) <= 1e-9 * max(1.0, np.abs(noisy).max())
    assert np.all(noisy[~positive] <= taus[0] + 1e-9)
    np.testing.assert_allclose(weights, norm_sub_reference(noisy, total), atol=1e-9)


def test_norm_sub_is_all_zeros_when_the_total_is_not_positive():
    for noisy in ([-3, 1, 2], [-5, 1], [0, 0, 0], [-1]):
        np.testing.assert_array_equal(grid.norm_sub(np.array(noisy)), np.zeros(len(noisy)))


# sphere packing --------------------------------------------------------------------------


class RecordingGenerator:
    """A numpy Generator exposing only ``uniform`` (and its state, which sphere packing
    rewinds after a batch of draws), and recording the ranges."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)
        self.bit_generator = self._rng.bit_generator
        self.ranges = []

    def uniform(self, low, high, size):
        self.ranges.append((low, high))
        return self._rng.uniform(low, high, size=size)


@pytest.mark.parametrize(("k", "d"), [(1, 1), (3, 2), (5, 1), (20, 1), (20, 50)])
def test_sphere_packing_separates_centres_by_twice_the_final_radius(k, d):
    rng = RecordingGenerator(0)
    centres = lloyd.sphere_packing(k, d, rng)  # only rng.uniform draws numbers
    assert centres.shape == (k, d)
    radii = [1 + low for low, _ in rng.ranges]
    assert all(high == 1 - a for a, (_, high) in zip(radii, rng.ranges, strict=True))
    distinct = sorted(set(radii), reverse=True)
    assert distinct == [0.5 / 2**j for j in range(len(distinct))], "start at 1/2, halve"
    a = radii[-1]
    assert np.all(np.abs(centres) <= 1 - a)
    if k > 1:
        distances = euclidean_distances(centres)[np.triu_indices(k, 1)]
        assert distances.min() >= 2 * a
    # at a = 1/2 the centres lie in a cube of side 1, at least 1 apart: a single one, or
    # (almost surely) only in high dimension
    assert (a == 0.5) == ((k, d) in [(1, 1), (20, 50)])


def test_sphere_packing_depends_only_on_the_generator():
    first = lloyd.sphere_packing(4, 3, np.random.default_rng(7))
    again = lloyd.sphere_packing(4, 3, np.random.default_rng(7))
    other = lloyd.sphere_packing(4, 3, np.random.default_rng(8))
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(first, other)


# API -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fitted():
    X, _ = blobs()
    return DPKMeans(3, epsilon=2.0, bounds=BOUNDS, random_state=0).fit(X), X


def test_labels_are_predict_on_the_training_data(fitted):
    model, X = fitted
    np.testing.assert_array_equal(model.labels_, model.predict(X))
    assert model.predict(X).dtype == np.int64


def test_labels_are_the_nearest_centre_far_from_the_origin():
    # two blobs 2 apart at 1e8: ||x||^2 - 2 x.c + ||c||^2 cancels to within a few
    # units there (scikit-learn's pairwise_distances_argmin_min mislabelled 1.1% of
    # these rows); the labels are computed relative to the centres' mean
    rng = np.random.default_rng(0)
    offset = 1e8
    X = offset + np.r_[rng.normal(-1, 0.1, (3000, 2)), rng.normal(1, 0.1, (3000, 2))]
    model = DPKMeans(2, bounds=(offset - 4, offset + 4), random_state=0).fit(X)
    exact = (((X[:, np.newaxis] - model.cluster_centers_) ** 2).sum(axis=-1)).argmin(axis=1)
    np.testing.assert_array_equal(model.labels_, exact)
    np.testing.assert_array_equal(model.predict(X), exact)


def test_transform_is_the_euclidean_distance_to_each_centre(fitted):
    model, X = fitted
    distances = model.transform(X[:50])
    np.testing.assert_allclose(distances, euclidean_distances(X[:50], model.cluster_centers_))
    np.testing.assert_array_equal(distances.argmin(axis=1), model.predict(X[:50]))


def test_score_is_minus_the_kmeans_objective_and_honours_sample_weight(fitted):
    model, X = fitted
    squared = (euclidean_distances(X, model.cluster_centers_) ** 2).min(axis=1)
    assert model.score(X) == pytest.approx(-squared.sum(), rel=1e-9)
    weights = np.random.default_rng(1).uniform(0, 3, size=len(X))
    assert model.score(X, sample_weight=weights) == pytest.approx(-weights @ squared, rel=1e-9)
    doubled = model.score(X, sample_weight=np.r_[np.full(10, 2.0), np.ones(len(X) - 10)])
    assert doubled == pytest.approx(model.score(np.vstack([X, X[:10]])), rel=1e-9)


def test_no_inertia_attribute(fitted):
    model, _ = fitted
    assert not hasattr(model, "inertia_")


@pytest.mark.parametrize(
    ("method", "max_iter", "needs_n"),
    [("lloyd", 3, False), ("lloyd", None, True), ("grid", None, True), ("hybrid", 3, True)],
)
def test_noisy_number_of_records_only_when_a_rule_needs_it(method, max_iter, needs_n):
    X, _ = blobs()
    model = DPKMeans(3, epsilon=1.0, bounds=BOUNDS, method=method, max_iter=max_iter)
    model.set_params(random_state=0).fit(X)
    if needs_n:
        assert isinstance(model.n_samples_estimate_, int) and model.n_samples_estimate_ >= 1
        assert model.epsilon_split_["n_samples"] == pytest.approx(0.05)
    else:
        assert model.n_samples_estimate_ is None and model.epsilon_split_["n_samples"] == 0


@pytest.mark.parametrize("method", ["lloyd", "grid", "hybrid"])
def test_grid_shape_and_iterations_per_method(method):
    X, _ = blobs()
    model = DPKMeans(3, epsilon=1.0, bounds=BOUNDS, method=method, random_state=0).fit(X)
    if method == "lloyd":
        assert model.grid_shape_ is None
        assert lloyd.MIN_ITERATIONS <= model.n_iter_ <= lloyd.MAX_ITERATIONS
    else:
        shape = model.grid_shape_
        assert len(shape) == 3 and all(isinstance(s, int) and s >= 1 for s in shape)
        # capacity follows the count's lower bound n~ - 3 / epsilon_n, not n~ itself
        n_low = max(1.0, model.n_samples_estimate_ - 3 / model.epsilon_split_["n_samples"])
        epsilon = model.epsilon_split_["grid"]
        if method == "hybrid":  # the tree's level 1, at its share of the grid's budget
            epsilon *= LEVEL_SHARES[0] / sum(LEVEL_SHARES)
        assert shape == grid.uniform_grid_shape(n_low, epsilon, 3, min_cells=2**3)
    if method == "hybrid":
        assert model.n_iter_ == 1
    assert model.cluster_centers_.shape == (3, 3) and model.cluster_counts_.shape == (3,)


def test_dataframe_input_with_bounds_by_column_name():
    X, _ = blobs()
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    by_name = {"c": (-8.0, 8.0), "a": (-10.0, 10.0), "b": (-9.0, 9.0)}
    model = DPKMeans(3, epsilon=1.0, bounds=by_name, max_iter=2, random_state=0).fit(frame)
    np.testing.assert_array_equal(model.bounds_[0], [-10.0, -9.0, -8.0])
    np.testing.assert_array_equal(model.bounds_[1], [10.0, 9.0, 8.0])
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    arrays = ([-10.0, -9.0, -8.0], [10.0, 9.0, 8.0])
    same = DPKMeans(3, epsilon=1.0, bounds=arrays, max_iter=2, random_state=0).fit(X)
    np.testing.assert_array_equal(model.cluster_centers_, same.cluster_centers_)
    np.testing.assert_array_equal(model.predict(frame), same.predict(X))


def test_pandas_output_and_feature_names(fitted):
    model, X = fitted
    names = ["dpkmeans0", "dpkmeans1", "dpkmeans2"]
    np.testing.assert_array_equal(model.get_feature_names_out(), names)
    frame_model = DPKMeans(3, epsilon=2.0, bounds=BOUNDS, random_state=0)
    out = frame_model.set_output(transform="pandas").fit(X).transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == names
    np.testing.assert_allclose(out.to_numpy(), model.transform(X))


# bad input -------------------------------------------------------------------------------


def _valid_X():
    return blobs(n_per_blob=10)[0]


@pytest.mark.parametrize(
    ("params", "X", "error", "match"),
    [
        ({}, np.r_[_valid_X(), [[np.nan, 0.0, 0.0]]], ValueError, "NaN"),
        ({}, np.r_[_valid_X(), [[np.inf, 0.0, 0.0]]], ValueError, "infinity"),
        ({"init": np.zeros((3, 2))}, _valid_X(), ValueError, r"init must have shape .*\(3, 3\)"),
        ({"init": np.zeros((2, 3))}, _valid_X(), ValueError, r"init must have shape"),
        ({"init": np.r_[np.zeros((2, 3)), [[np.nan, 0, 0]]]}, _valid_X(), ValueError, "finite"),
        ({"init": "k-means++"}, _valid_X(), InvalidParameterError, "'init' parameter"),
        ({"method": "eugkm"}, _valid_X(), InvalidParameterError, "'method' parameter"),
        ({"bounds": (1.0, 1.0)}, _valid_X(), ValueError, "lower must be < upper"),
        ({"bounds": ([0, 5, 0], [1, 4, 1])}, _valid_X(), ValueError, r"feature\(s\) \[1\]"),
        ({}, sp.csr_matrix(_valid_X()), TypeError, "[Ss]parse"),
    ],
    ids=[
        "nan",
        "inf",
        "init-columns",
        "init-rows",
        "init-nan",
        "k-means++",
        "method",
        "empty-bounds",
        "reversed-bounds",
        "sparse",
    ],
)
def test_bad_input_is_named(params, X, error, match):
    model = DPKMeans(3, **{"epsilon": 1.0, "bounds": BOUNDS, "random_state": 0, **params})
    with pytest.raises(error, match=match):
        model.fit(X)


def test_bounds_dict_missing_a_column_is_named():
    frame = pd.DataFrame(_valid_X(), columns=["a", "b", "c"])
    model = DPKMeans(3, bounds={"a": BOUNDS, "b": BOUNDS}, random_state=0)
    with pytest.raises(ValueError, match=r"missing: \['c'\]"):
        model.fit(frame)


def test_values_outside_the_bounds_are_clipped_with_a_count():
    X = _valid_X()  # 30 rows of 3 values, all inside BOUNDS
    X[0, 0], X[1, 2], X[5, 1] = 11.0, -25.0, 10.5
    model = DPKMeans(3, epsilon=1.0, bounds=BOUNDS, max_iter=2, random_state=0)
    with pytest.warns(ClippingWarning, match=r"^3 of 90 values of X lay outside"):
        model.fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        model.fit(_valid_X())


# model selection ------------------------------------------------------------------------


def test_grid_search_over_epsilon_in_a_pipeline_counts_every_fit():
    X, _ = blobs(n_per_blob=40)
    pipe = make_pipeline(
        FunctionTransformer(), DPKMeans(3, bounds=BOUNDS, max_iter=2, random_state=0)
    )
    grid_values = [0.5, 1.0, 2.0]
    with PrivacyLedger() as ledger:
        search = GridSearchCV(pipe, {"dpkmeans__epsilon": grid_values}, cv=3).fit(X)
    best = search.best_estimator_[-1].epsilon
    assert best in grid_values
    expected = 3 * sum(grid_values) + best
    assert privacy_spent(search).epsilon == pytest.approx(expected)
    assert ledger.total.epsilon == pytest.approx(expected)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_hybrid_tree_has_one_level_when_the_noisy_count_cannot_pay_for_level_two():
    """Blobs in [-1, 1]^5 with n = 1000 at epsilon 0.1: level 2's 2^5 children of one cell
    would hold less than their noise, so the tree spends its whole share on level 1
    (one geometric release); at epsilon 1 it has both levels. Either way the five
    blobs are found on most seeds."""
    X, y = make_blobs(1000, n_features=5, centers=5, cluster_std=0.1,
                      center_box=(-0.6, 0.6), random_state=0)  # fmt: skip
    for epsilon, levels in ((0.1, 1), (1.0, 2)):
        scores = []
        for seed in range(5):
            with PrivacyLedger() as ledger:
                model = DPKMeans(5, bounds=(-1, 1), epsilon=epsilon, random_state=seed).fit(X)
            tree = [e for e in ledger.entries[1:-2] if e.mechanism == "geometric"]
            assert len(tree) == levels
            assert math.isclose(math.fsum(e.epsilon for e in tree), model.epsilon_split_["grid"])
            scores.append(adjusted_rand_score(y, model.labels_))
        assert min(scores) > (0.1 if epsilon < 1 else 0.5)
