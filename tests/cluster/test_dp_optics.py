"""DPOPTICS: weighted OPTICS, budget accounting, noise on every cell, post-processing, API."""

import copy
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.cluster import OPTICS, cluster_optics_xi
from sklearn.metrics import adjusted_rand_score
from sklearn.utils._param_validation import InvalidParameterError
from threadpoolctl import threadpool_limits

import skdp.cluster._grid as grid
import skdp.cluster._optics_grid as optics_grid_module
from skdp import PrivacyLedger
from skdp.cluster import DPOPTICS
from skdp.cluster._optics_grid import xi_clusters, xi_labels
from skdp.cluster._weighted_optics import weighted_core_distances, weighted_optics
from skdp.exceptions import ClippingWarning
from tests._ledger import bounds_entries

BOUNDS = (-10.0, 10.0)
CENTRES = np.array([[-5.0, -5.0], [5.0, 5.0], [-5.0, 5.0], [5.0, -5.0]])
FITTED_ATTRIBUTES = (
    "ordering_",
    "reachability_",
    "core_distances_",
    "predecessor_",
    "cell_labels_",
    "cluster_hierarchy_",
    "cell_centers_",
    "cell_weights_",
)


@pytest.fixture(autouse=True)
def _one_thread():
    """On a loaded machine OpenMP threads cost ~50 ms per tiny nearest-neighbour call."""
    with threadpool_limits(1):
        yield


def blobs(sizes=(300, 300, 300), scale=0.8, seed=0, n_outliers=0):
    """Well-separated 2-D blobs inside BOUNDS (and uniform outliers, label -1)."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(sizes)), sizes)
    X = CENTRES[labels] + rng.normal(scale=scale, size=(labels.size, 2))
    outliers = rng.uniform(-9.5, 9.5, size=(n_outliers, 2))
    return np.r_[X, outliers], np.r_[labels, np.full(n_outliers, -1)]


def sklearn_rounded(values):
    """scikit-learn's OPTICS rounds core and reachability distances to 15 decimals."""
    return np.round(values, np.finfo(np.float64).precision)


# weighted OPTICS ---------------------------------------------------------------------------


@pytest.mark.parametrize("max_eps", [np.inf, 2.0, 0.6])
def test_weighted_optics_with_unit_weights_is_sklearn_optics(max_eps):
    X, _ = blobs(sizes=(100, 100, 100), scale=1.0)
    reference = OPTICS(min_samples=7, max_eps=max_eps).fit(X)
    ordering, reachability, core, predecessor = weighted_optics(X, np.ones(len(X)), 7, max_eps)
    np.testing.assert_array_equal(ordering, reference.ordering_)
    np.testing.assert_array_equal(predecessor, reference.predecessor_)
    np.testing.assert_array_equal(sklearn_rounded(core), reference.core_distances_)
    np.testing.assert_array_equal(sklearn_rounded(reachability), reference.reachability_)
    if np.isfinite(max_eps):  # the cut-off is exercised: some points are no core points
        assert np.isinf(core).any() and np.isfinite(core).any()


def reference_core_distances(points, weights, min_samples):
    """Brute force: sort every point's distances, the first radius reaching the weight."""
    core = np.full(len(points), np.inf)
    for i, p in enumerate(points):
        distances = np.sqrt(((points - p) ** 2).sum(axis=1))
        order = np.argsort(distances, kind="stable")
        reached = np.flatnonzero(np.cumsum(weights[order]) >= min_samples)
        if reached.size:
            core[i] = distances[order[reached[0]]]
    return core


@pytest.mark.parametrize(
    ("points", "weights", "min_samples", "max_eps", "expected"),
    [
        ([[0.0], [1.0], [3.0]], [5, 1, 1], 6, np.inf, [1.0, 1.0, 3.0]),
        ([[0.0], [1.0], [3.0]], [5, 1, 1], 7, np.inf, [3.0, 2.0, 3.0]),
        ([[0.0], [1.0], [3.0]], [5, 1, 1], 8, np.inf, [np.inf] * 3),  # total weight 7
        # a cell of weight >= min_samples is a core cell on its own: distance 0
        ([[0.0], [1.0], [3.0]], [10, 1, 1], 6, np.inf, [0.0, 1.0, 3.0]),
        ([[0.0], [1.0], [3.0]], [10, 1, 1], 6, 2.5, [0.0, 1.0, np.inf]),
        ([[0.0, 0.0], [3.0, 4.0]], [2.0, 2.0], 3, np.inf, [5.0, 5.0]),
        ([[0.0, 0.0], [3.0, 4.0]], [2.0, 2.0], 2, np.inf, [0.0, 0.0]),
        ([[0.0], [0.5], [2.0]], [0.25, 0.5, 0.75], 1.5, np.inf, [2.0, 1.5, 2.0]),
    ],
)
def test_weighted_core_distances_by_hand(points, weights, min_samples, max_eps, expected):
    core = weighted_core_distances(np.array(points), np.array(weights), min_samples, max_eps)
    np.testing.assert_array_equal(core, expected)


def test_weighted_core_distances_beyond_sixteen_neighbours_match_brute_force():
    """Weights of 1/4 on a line: a core ball needs 20 or more points, so the neighbour
    search must widen past its first 16."""
    rng = np.random.default_rng(0)
    points = np.r_[np.arange(40.0), rng.uniform(0, 40, 30)][:, np.newaxis]
    weights = rng.choice([0.25, 0.5, 0.75], size=len(points))
    weights[:40] = 0.25
    core = weighted_core_distances(points, weights, 5.0)
    np.testing.assert_array_equal(core, reference_core_distances(points, weights, 5.0))
    assert np.all(np.isfinite(core)) and core.max() > 5


# budget accounting ------------------------------------------------------------------------


@pytest.mark.parametrize("bounds", [BOUNDS, None], ids=["public", "private"])
@pytest.mark.parametrize("grid_size", [20, None], ids=["grid-given", "grid-rule"])
@pytest.mark.parametrize("count_share", [0.0, 0.3])
@pytest.mark.parametrize("ratio", [1.0, 1 / 20])
@pytest.mark.parametrize("cluster_method", ["eom", "xi", "dbscan"])
def test_ledger_spends_exactly_epsilon(bounds, grid_size, count_share, ratio, cluster_method):
    """The counts compose in parallel over the released partition: the block costs its
    largest epsilon, the full count budget that the noise group always gets."""
    epsilon = 3.0
    X, _ = blobs(sizes=(400, 200, 100))
    model = DPOPTICS(
        epsilon=epsilon, bounds=bounds, min_samples=10, grid_size=grid_size,
        count_share=count_share, sparse_budget_ratio=ratio, cluster_method=cluster_method,
        eps=1.5, random_state=0,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)  # private bounds may clip a tail
        with PrivacyLedger() as ledger:
            model.fit(X)
    assert math.isclose(ledger.total.epsilon, epsilon, rel_tol=1e-12)
    assert ledger.total.delta == 0
    assert model.privacy_spent_ == ledger.total
    split = model.epsilon_split_
    assert set(split) == {"bounds", "n_samples", "histogram", "counts"}
    assert math.isclose(math.fsum(split.values()), epsilon, rel_tol=1e-12)
    scans = bounds_entries(ledger, model.bounds_tier_, X.shape[1]) if bounds is None else []
    assert math.isclose(math.fsum(e.epsilon for e in scans), split["bounds"], abs_tol=1e-15)
    if bounds is None:  # the tiered share of skdp.utils._bounds
        assert 0.1 * epsilon <= split["bounds"] <= 0.5 * epsilon + 1e-12
        assert model.bounds_tier_ in (1, 2)
    else:
        assert split["bounds"] == 0 and model.bounds_tier_ is None
    # the grid rule needs N; dbscan with eps sizes the cells from eps instead; private
    # bounds release the count anyway, and one count serves both
    needs_n = (grid_size is None and cluster_method != "dbscan") or bounds is None
    assert math.isclose(split["n_samples"], 0.05 * epsilon if needs_n else 0.0)
    assert (model.n_samples_estimate_ is None) == (not needs_n)
    rest = split["histogram"] + split["counts"]
    assert math.isclose(split["counts"], count_share * rest, rel_tol=1e-12, abs_tol=1e-15)
    n_groups = int(model.cell_labels_.max(initial=-1)) + 2 if count_share else 0
    counts = ledger.entries[len(ledger.entries) - n_groups :]
    histogram = ledger.entries[-n_groups - 1]
    assert (histogram.mechanism, histogram.epsilon) == ("geometric", split["histogram"])
    before = ledger.entries[: -n_groups - 1]
    assert math.isclose(
        math.fsum(e.epsilon for e in before), split["bounds"] + split["n_samples"], abs_tol=1e-12
    )
    # the preamble: at most one noisy count (first), then the bounds' releases
    assert [e.mechanism for e in before] == ["geometric"] * needs_n + [e.mechanism for e in scans]
    if not count_share:
        assert model.cluster_counts_.size == 0 and model.noise_count_ is None
        return
    assert model.cluster_counts_.shape == (n_groups - 1,)
    assert all(e.mechanism == "geometric" for e in counts)
    assert counts[-1].epsilon == split["counts"]  # the noise group: the full count budget
    assert {e.epsilon for e in counts} <= {split["counts"], split["counts"] * ratio}


# every cell is noised -----------------------------------------------------------------------


def test_every_cell_is_noised_in_one_release_including_the_empty_ones(monkeypatch):
    X, _ = blobs(sizes=(50, 50, 50), scale=0.3)
    shape = (7, 9)
    passed = []
    real = grid.geometric

    def spy(value, **kwargs):
        passed.append((np.array(value), kwargs))
        return real(value, **kwargs)

    monkeypatch.setattr(grid, "geometric", spy)
    model = DPOPTICS(epsilon=1.0, bounds=BOUNDS, grid_size=shape, random_state=0).fit(X)
    [(exact, kwargs)] = passed
    position = np.floor((X - BOUNDS[0]) / (BOUNDS[1] - BOUNDS[0]) * np.array(shape)).astype(int)
    expected = np.bincount(np.ravel_multi_index(tuple(position.T), shape), minlength=63)
    np.testing.assert_array_equal(exact, expected)
    assert exact.size == math.prod(shape) and np.count_nonzero(exact == 0) >= 40
    assert kwargs["sensitivity"] == 1 and kwargs["epsilon"] == model.epsilon_split_["histogram"]
    assert model.grid_shape_ == shape and model.histogram_.shape == shape
    assert model.histogram_.size == math.prod(model.grid_shape_)
    # at epsilon 0.8 an empty cell stays 0 with probability tanh(0.4) ~ 0.38
    assert np.count_nonzero(model.histogram_.ravel()[expected == 0]) >= 20


# post-processing -----------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["eom", "xi", "dbscan"])
def fitted(request):
    X, _ = blobs(sizes=(300, 150, 60))
    model = DPOPTICS(
        epsilon=1.0, bounds=BOUNDS, min_samples=10, grid_size=25,
        cluster_method=request.param, eps=1.2, random_state=0,
    ).fit(X)  # fmt: skip
    return model, X


def assert_same_clustering(model, reference):
    for name in FITTED_ATTRIBUTES:
        np.testing.assert_array_equal(getattr(model, name), getattr(reference, name), err_msg=name)


def test_the_fitted_model_finds_clusters(fitted):
    """The premise of the post-processing tests: a noisy, non-trivial clustering."""
    model, _ = fitted
    assert model.cell_labels_.max() >= 1 and (model.cell_labels_ == -1).any()
    assert (model.histogram_ < 0).any()  # noise is visible
    if model.cluster_method == "xi":
        assert len(model.cluster_hierarchy_) >= 2
    else:
        assert model.cluster_hierarchy_.shape == (0, 2)


def test_refitting_from_the_released_histogram_reproduces_the_clustering(fitted):
    model, X = fitted
    again = copy.deepcopy(model).cluster_from_histogram(model.histogram_.copy())
    assert_same_clustering(again, model)
    np.testing.assert_array_equal(again.predict(X), model.labels_)
    fresh = DPOPTICS(**model.get_params())
    fresh.bounds_ = tuple(b.copy() for b in model.bounds_)
    fresh.grid_shape_ = model.grid_shape_
    fresh.epsilon_split_ = dict(model.epsilon_split_)  # the histogram's noise scale
    fresh.cluster_from_histogram(model.histogram_.ravel().copy())
    assert_same_clustering(fresh, model)
    np.testing.assert_array_equal(fresh.histogram_, model.histogram_)
    np.testing.assert_array_equal(fresh.predict(X), model.labels_)


def test_labels_are_predict_on_the_training_data(fitted):
    model, X = fitted
    np.testing.assert_array_equal(model.labels_, model.predict(X))
    assert (model.labels_ >= 0).sum() > len(X) / 2


def test_predict_on_the_cell_centres_is_the_cell_labels(fitted):
    model, _ = fitted
    np.testing.assert_array_equal(model.predict(model.cell_centers_), model.cell_labels_)


@pytest.mark.parametrize("records_per_cell", [1, 3])
@pytest.mark.parametrize("min_cluster_size", [None, 2, 25, 60, 0.05, 0.2])
def test_xi_size_filter_counts_records_like_sklearn_points(min_cluster_size, records_per_cell):
    """r records in each occupied cell: s records are ceil(s / r) points (at least 2^d)."""
    X, _ = blobs(sizes=(120, 60, 30), n_outliers=10)
    side = 2000  # fine enough that no two points share a cell
    model = DPOPTICS(
        bounds=BOUNDS, min_samples=8, grid_size=side, min_cluster_size=min_cluster_size,
        cluster_method="xi",
    )  # fmt: skip
    model.bounds_ = (np.full(2, -10.0), np.full(2, 10.0))
    model.grid_shape_ = (side, side)
    cells = model._grid_map().cells(X)
    assert np.unique(cells).size == len(X)  # the premise
    model.cluster_from_histogram(records_per_cell * np.bincount(cells, minlength=side * side))
    records = 8 if min_cluster_size is None else min_cluster_size
    if isinstance(records, float):
        records *= records_per_cell * len(X)
    # and at least 2**d cells: smaller ones are mostly steps of the grid's distances
    in_points = max(4, math.ceil(records / records_per_cell))
    labels, hierarchy = cluster_optics_xi(
        reachability=model.reachability_,
        predecessor=model.predecessor_,
        ordering=model.ordering_,
        min_samples=8,
        min_cluster_size=in_points,
        xi=0.05,
    )
    np.testing.assert_array_equal(model.cluster_hierarchy_, hierarchy)
    np.testing.assert_array_equal(model.cell_labels_, labels)
    assert labels.max() >= (0 if min_cluster_size == 0.2 else 1)


# the grid is public ------------------------------------------------------------------------


@pytest.mark.parametrize(("grid_size", "shape"), [(6, (6, 6)), ((5, 8), (5, 8)), ([3, 4], (3, 4))])
def test_a_given_grid_does_not_depend_on_the_data(grid_size, shape):
    first, _ = blobs(sizes=(300, 10, 10))
    second = np.random.default_rng(1).uniform(-10, 10, size=(57, 2))
    for X in (first, second):
        model = DPOPTICS(epsilon=1.0, bounds=BOUNDS, grid_size=grid_size, random_state=0)
        assert model.fit(X).grid_shape_ == shape
        assert model.n_samples_estimate_ is None


def test_the_grid_rule_sees_only_the_noisy_number_of_records(monkeypatch):
    calls = []
    real = optics_grid_module.grid_rule

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(optics_grid_module, "grid_rule", spy)
    first, _ = blobs(sizes=(700, 200, 100))
    second = np.random.default_rng(1).uniform(-10, 10, size=first.shape)  # same N
    models = [DPOPTICS(epsilon=1.0, bounds=BOUNDS, random_state=0).fit(X) for X in (first, second)]
    assert len(calls) == 2
    for model, (args, kwargs) in zip(models, calls, strict=True):
        n_estimate, split = model.n_samples_estimate_, model.epsilon_split_
        # capacity follows the count's lower bound n~ - 3 / epsilon_n
        n_low = max(1.0, n_estimate - 3 / split["n_samples"])
        # "eom" smooths the counts itself: a finer public floor, from n~ and epsilon
        eom_floor = min(optics_grid_module.EOM_MIN_CELLS, n_low * split["histogram"] / 0.5)
        cells = {
            "max_cells": optics_grid_module.MAX_OPTICS_CELLS,
            "min_cells": max(optics_grid_module.MIN_OPTICS_CELLS, eom_floor),
        }
        assert args == (n_low, split["histogram"], 2) and kwargs == cells
        assert model.grid_shape_ == grid.uniform_grid_shape(n_low, split["histogram"], 2, **cells)
    # the same noisy N (same seed, same N) gives the same grid for different data
    assert models[0].n_samples_estimate_ == models[1].n_samples_estimate_
    assert models[0].grid_shape_ == models[1].grid_shape_


# large epsilon: the clustering of the points --------------------------------------------------


@pytest.fixture(scope="module")
def clean_blobs():
    X, truth = blobs(sizes=(800, 800, 800))
    return X, truth, OPTICS(min_samples=20, cluster_method="xi").fit(X).labels_


@pytest.fixture(scope="module")
def noisy_blobs():
    X, truth = blobs(sizes=(400, 400, 400), n_outliers=20)  # scikit-learn's OPTICS: 3 s
    return X, truth, OPTICS(min_samples=20, cluster_method="dbscan", eps=1.5).fit(X).labels_


@pytest.mark.parametrize("grid_size", [40, 50])
def test_large_epsilon_xi_matches_sklearn_optics_on_the_points(clean_blobs, grid_size):
    X, truth, reference = clean_blobs
    model = DPOPTICS(
        epsilon=1e4, bounds=BOUNDS, min_samples=20, grid_size=grid_size,
        cluster_method="xi", random_state=0,
    ).fit(X)  # fmt: skip
    assert adjusted_rand_score(reference, truth) >= 0.95  # the premise
    assert adjusted_rand_score(model.labels_, reference) >= 0.95
    assert adjusted_rand_score(model.labels_, truth) >= 0.95
    assert model.cluster_counts_.size == 3


@pytest.mark.parametrize("grid_size", [40, 50])
def test_large_epsilon_dbscan_matches_sklearn_optics_on_the_points(noisy_blobs, grid_size):
    X, truth, reference = noisy_blobs
    model = DPOPTICS(
        epsilon=1e4, bounds=BOUNDS, min_samples=20, grid_size=grid_size,
        cluster_method="dbscan", eps=1.5, random_state=0,
    ).fit(X)  # fmt: skip
    assert adjusted_rand_score(reference, truth) >= 0.95  # the premise
    assert adjusted_rand_score(model.labels_, reference) >= 0.95
    assert adjusted_rand_score(model.labels_, truth) >= 0.95
    assert (reference == -1).sum() >= 5 and (model.labels_ == -1).sum() >= 5  # outliers
    assert model.cluster_counts_.size == 3


# released counts ---------------------------------------------------------------------------


@pytest.mark.parametrize("cluster_method", ["eom", "xi", "dbscan"])
def test_large_epsilon_counts_are_the_records_in_each_cluster(cluster_method):
    X, _ = blobs(sizes=(500, 250, 100), n_outliers=15)
    model = DPOPTICS(
        epsilon=1e4, bounds=BOUNDS, min_samples=10, grid_size=30,
        cluster_method=cluster_method, eps=1.5, random_state=0,
    ).fit(X)  # fmt: skip
    groups = model.predict(X)
    n_clusters = model.cell_labels_.max() + 1
    assert n_clusters >= 3
    exact = np.bincount(groups[groups >= 0], minlength=n_clusters)
    assert model.cluster_counts_.shape == (n_clusters,)
    assert np.all(np.abs(model.cluster_counts_ - exact) <= 1)
    assert isinstance(model.noise_count_, int)
    assert abs(model.noise_count_ - np.count_nonzero(groups == -1)) <= 1


def test_no_counts_without_a_count_share():
    X, _ = blobs()
    with PrivacyLedger() as ledger:
        model = DPOPTICS(epsilon=1.0, bounds=BOUNDS, grid_size=20, count_share=0).fit(X)
    assert model.cluster_counts_.shape == (0,) and model.noise_count_ is None
    assert model.cell_labels_.max() >= 0  # there were clusters to count
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("geometric", 1.0)]


def test_sparse_clusters_get_ratio_times_the_count_epsilon():
    """Clusters with less noisy mass (Norm-Sub weight) than the median cluster: ``epsilon
    ratio``; the others and the noise group: the full count epsilon."""
    epsilon, ratio = 20.0, 1 / 20
    X, _ = blobs(sizes=(600, 300, 100, 40))
    model = DPOPTICS(
        epsilon=epsilon, bounds=BOUNDS, min_samples=10, grid_size=30,
        cluster_method="dbscan", eps=1.5, sparse_budget_ratio=ratio, random_state=0,
    )  # fmt: skip
    with PrivacyLedger() as ledger:
        model.fit(X)
    n_clusters = model.cell_labels_.max() + 1
    labels, weights = model.cell_labels_, model.cell_weights_
    mass = np.array([weights[labels == k].sum() for k in range(n_clusters)])
    sparse = mass < np.median(mass)
    assert sparse.any() and not sparse.all()  # the premise: both kinds
    full = model.epsilon_split_["counts"]
    expected = np.r_[np.where(sparse, full * ratio, full), full]
    counts = ledger.entries[-(n_clusters + 1) :]
    np.testing.assert_array_equal([e.epsilon for e in counts], expected)
    assert ledger.entries[-(n_clusters + 2)].epsilon == model.epsilon_split_["histogram"]
    assert math.isclose(ledger.total.epsilon, epsilon, rel_tol=1e-12)


# bad input ---------------------------------------------------------------------------------


def _valid_X():
    return blobs(sizes=(20, 20, 20))[0]


@pytest.mark.parametrize(
    ("params", "X", "error", "match"),
    [
        ({}, np.r_[_valid_X(), [[np.nan, 0.0]]], ValueError, "NaN"),
        ({}, np.r_[_valid_X(), [[np.inf, 0.0]]], ValueError, "infinity"),
        ({"grid_size": (3, 4, 5)}, _valid_X(), ValueError, r"2 positive ints, got \(3, 4, 5\)"),
        ({"grid_size": (0, 4)}, _valid_X(), ValueError, "grid_size must be a positive int"),
        ({"grid_size": (2.5, 4)}, _valid_X(), ValueError, "grid_size must be a positive int"),
        ({"grid_size": 0}, _valid_X(), InvalidParameterError, "'grid_size' parameter"),
        ({"grid_size": -3}, _valid_X(), InvalidParameterError, "'grid_size' parameter"),
        ({"bounds": (1.0, 1.0)}, _valid_X(), ValueError, "lower must be < upper"),
        ({"bounds": ([0, 5], [1, 4])}, _valid_X(), ValueError, r"feature\(s\) \[1\]"),
        ({}, sp.csr_matrix(_valid_X()), TypeError, "[Ss]parse"),
        ({"cluster_method": "kmeans"}, _valid_X(), InvalidParameterError, "'cluster_method'"),
    ],
    ids=[
        "nan",
        "inf",
        "grid-size-length",
        "grid-size-zero-entry",
        "grid-size-float",
        "grid-size-zero",
        "grid-size-negative",
        "empty-bounds",
        "reversed-bounds",
        "sparse",
        "cluster-method",
    ],
)
def test_bad_input_is_rejected(params, X, error, match):
    model = DPOPTICS(**{"epsilon": 1.0, "bounds": BOUNDS, "random_state": 0, **params})
    with pytest.raises(error, match=match):
        model.fit(X)


def test_values_outside_the_bounds_are_clipped_with_a_warning():
    X = _valid_X()  # 60 rows of 2 values, all inside BOUNDS
    X[0, 0], X[1, 1], X[5, 1] = 11.0, -25.0, 10.5
    model = DPOPTICS(epsilon=1.0, bounds=BOUNDS, grid_size=10, random_state=0)
    with pytest.warns(ClippingWarning, match=r"^3 of 120 values of X lay outside"):
        model.fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        model.fit(_valid_X())


# predict and pandas -----------------------------------------------------------------------


def test_predict_outside_the_box_uses_the_nearest_face_cell():
    """A row outside the box is clipped onto it coordinate by coordinate, so it gets the
    label of the boundary cell nearest to it (the cell holding its projection onto the
    box; a corner cell beyond a corner). Expected labels are read off ``cell_centers_``
    and ``cell_labels_`` (-1 for an unoccupied cell), independently of ``predict``.

    A blob on the right face (x = 10) and one on the top face (y = 10) make the
    boundary cells there clustered, so the outside rows get real cluster labels.
    """
    rng = np.random.default_rng(0)
    X = np.r_[
        rng.normal([9.0, 0.0], 0.8, size=(600, 2)),
        rng.normal([-4.0, 9.0], 0.8, size=(600, 2)),
    ]
    X = np.clip(X, -10, 10)
    model = DPOPTICS(
        epsilon=100.0, bounds=BOUNDS, min_samples=10, grid_size=20,
        cluster_method="dbscan", eps=1.5, random_state=0,
    ).fit(X)  # fmt: skip
    outside = np.r_[
        # off the cell borders (x.25, x.85, ...), so the containing cell is unambiguous
        np.column_stack([np.full(41, 14.0), np.linspace(-12, 12, 41) + 0.25]),  # right
        np.column_stack([np.linspace(-12, 12, 41) + 0.25, np.full(41, 30.0)]),  # above
        [[25.0, 25.0], [-11.0, -11.0], [10.0 + 1e-9, 0.3]],  # beyond corners, just outside
    ]
    projected = np.clip(outside, -10, 10)
    half_width = 0.5  # cells of width 1
    expected = []
    for p in projected:
        inside = np.all(np.abs(model.cell_centers_ - p) <= half_width, axis=1)
        hits = np.flatnonzero(inside)
        assert hits.size <= 1
        expected.append(model.cell_labels_[hits[0]] if hits.size else -1)
    predicted = model.predict(outside)
    np.testing.assert_array_equal(predicted, expected)
    assert len(set(predicted[predicted >= 0].tolist())) >= 2  # both face blobs are reached
    assert predicted[-1] >= 0 and predicted[-1] == model.predict([[9.99, 0.3]])[0]


def test_dataframe_input_with_bounds_by_column_name():
    X, _ = blobs(sizes=(200, 100, 50))
    frame = pd.DataFrame(X, columns=["a", "b"])
    by_name = {"b": (-9.0, 9.0), "a": (-10.0, 10.0)}
    model = DPOPTICS(epsilon=1.0, bounds=by_name, grid_size=15, random_state=0).fit(frame)
    np.testing.assert_array_equal(model.bounds_[0], [-10.0, -9.0])
    np.testing.assert_array_equal(model.bounds_[1], [10.0, 9.0])
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b"])
    arrays = ([-10.0, -9.0], [10.0, 9.0])
    same = DPOPTICS(epsilon=1.0, bounds=arrays, grid_size=15, random_state=0).fit(X)
    np.testing.assert_array_equal(model.histogram_, same.histogram_)
    np.testing.assert_array_equal(model.labels_, same.labels_)
    np.testing.assert_array_equal(model.predict(frame), same.predict(X))
    np.testing.assert_array_equal(model.cluster_counts_, same.cluster_counts_)


def test_dbscan_grid_resolves_eps_and_needs_no_record_count():
    """With eps given and no grid_size, cells have a diagonal of at most eps (the
    distance the cut must resolve), from the public bounds alone: no noisy N is spent."""
    X = np.random.default_rng(0).uniform(-1, 1, size=(300, 2))
    model = DPOPTICS(
        epsilon=1.0, bounds=(-1.0, 1.0), cluster_method="dbscan", eps=0.1, random_state=0
    ).fit(X)
    sides = 2.0 / np.asarray(model.grid_shape_)
    assert np.sqrt(np.sum(sides**2)) <= 0.1
    assert model.grid_shape_ == (29, 29)  # ceil(2 sqrt 2 / 0.1)
    assert model.epsilon_split_["n_samples"] == 0 and model.n_samples_estimate_ is None
    other = DPOPTICS(
        epsilon=1.0, bounds=(-1.0, 1.0), cluster_method="dbscan", eps=0.1, random_state=1
    ).fit(X[:100] * 0.5)
    assert other.grid_shape_ == model.grid_shape_


def test_eps_grid_is_capped_at_the_cell_budget():
    X = np.random.default_rng(0).uniform(-1, 1, size=(50, 3))
    model = DPOPTICS(bounds=(-1.0, 1.0), cluster_method="dbscan", eps=0.01, random_state=0)
    shape = model.fit(X).grid_shape_
    assert np.prod(shape) <= optics_grid_module.MAX_OPTICS_CELLS


def test_xi_without_any_cluster_gives_an_empty_hierarchy():
    """scikit-learn returns a 1-d empty array when nothing is reachable (every cell a
    noise cell, e.g. a fine grid on few records): no IndexError, no cluster."""
    reachability = np.full(4, np.inf)
    ordering, predecessor = np.arange(4), np.full(4, -1)
    hierarchy = xi_clusters(
        reachability, predecessor, ordering, np.ones(4),
        min_samples=2, min_cluster_size=2, xi=0.05, min_cells=2,
    )  # fmt: skip
    assert hierarchy.shape == (0, 2)
    np.testing.assert_array_equal(xi_labels(ordering, hierarchy), [-1, -1, -1, -1])
