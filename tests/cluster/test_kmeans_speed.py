"""DPKMeans's exact statistics and post-processing: same results, bounded work and memory."""

import tracemalloc
import warnings

import numpy as np
from sklearn.cluster import KMeans

from skdp.cluster._grid import cell_index, count_cells
from skdp.cluster._lloyd import MAX_FAILED_DRAWS, sphere_packing
from skdp.cluster._lloyd_stats import cluster_displacements, cluster_sums, nearest_centres
from skdp.cluster._weighted_kmeans import weighted_kmeans


def _inertia(points, weights, centres):
    return weights @ ((points[:, None] - centres[None]) ** 2).sum(-1).min(axis=1)


def test_weighted_kmeans_reaches_sklearn_objective_at_a_lloyd_fixed_point():
    k, d = 6, 8  # the segmented sums (a few columns: one bincount each, as every fit)
    rng = np.random.default_rng(k)
    points = rng.normal(size=(300, d)) + rng.integers(0, 4, size=(300, 1)) * 3.0
    weights = rng.uniform(0.5, 5.0, 300)
    init = rng.uniform(-1, 1, (k, d))
    centres, n_iter = weighted_kmeans(points, weights, init, seed=0, restarts=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = KMeans(k, n_init=10, random_state=0).fit(points, sample_weight=weights)
    assert n_iter >= 1
    assert _inertia(points, weights, centres) <= reference.inertia_ * 1.02
    labels = nearest_centres(points, centres, 0.5 * (centres**2).sum(1))
    for j in np.unique(labels):  # every centre is (nearly: tol) the weighted mean of its points
        mine = labels == j
        mean = np.average(points[mine], axis=0, weights=weights[mine])
        assert np.allclose(centres[j], mean, atol=0.05)


def test_weighted_kmeans_is_reproducible_and_uses_the_public_start():
    points = np.array([[0.0], [0.1], [5.0], [5.1], [9.0]])
    weights = np.array([1.0, 1.0, 1.0, 1.0, 1e-9])
    first = weighted_kmeans(points, weights, np.array([[0.0], [5.0]]), seed=3, restarts=0)
    again = weighted_kmeans(points, weights, np.array([[0.0], [5.0]]), seed=3, restarts=0)
    assert np.array_equal(first[0], again[0])
    assert sorted(first[0].ravel().round(2).tolist()) == [0.05, 5.05]


def test_nearest_centres_running_minimum_is_argmin_first_on_ties():
    rng = np.random.default_rng(0)
    block = rng.integers(-3, 4, size=(500, 2)).astype(float)  # many exact ties
    for k in (2, 5, 16, 17):
        centres = rng.integers(-3, 4, size=(k, 2)).astype(float)
        half_norms = 0.5 * (centres**2).sum(1)
        expected = np.argmin(half_norms - block @ centres.T, axis=1)
        assert np.array_equal(nearest_centres(block, centres, half_norms), expected)


def test_cluster_sums_with_many_clusters_needs_no_rows_by_clusters_matrix():
    rng = np.random.default_rng(0)
    values = rng.uniform(-1, 1, (2048, 2))
    centres = rng.uniform(-1, 1, (2048, 2))
    tracemalloc.start()
    try:
        counts, sums = cluster_sums(values, centres)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 48 * 2**20  # (2048 x 2048) one-hot and score matrices: 96 MiB
    labels = np.argmin(0.5 * (centres**2).sum(1) - values @ centres.T, axis=1)
    assert np.array_equal(counts, np.bincount(labels, minlength=2048))
    assert np.allclose(sums[:, 0], np.bincount(labels, values[:, 0], minlength=2048))


def test_cluster_displacements_sums_unit_clipped_moves_per_cluster():
    values = np.array([[0.0, 3.0], [0.1, 0.0], [10.0, 0.0], [9.0, 0.0]])
    centres = np.array([[0.0, 0.0], [10.0, 0.0]])
    counts, sums = cluster_displacements(values, centres, np.ones(2), np.array([1.0, 2.0]))
    assert counts.tolist() == [2, 2]
    assert np.allclose(sums, [[0.1, 1.0], [-0.5, 0.0]])


def test_count_cells_matches_a_bincount_of_the_cell_index_for_listed_cells():
    rng = np.random.default_rng(1)
    values = rng.uniform(-2, 2, (5000, 3))
    half = np.array([2.0, 2.0, 2.0])
    shape = (6, 5, 7)
    full = np.bincount(cell_index(values / half, shape), minlength=210)
    assert np.array_equal(count_cells(values, shape, half, chunk_rows=777), full)
    cells = np.sort(rng.choice(210, 40, replace=False))
    assert np.array_equal(count_cells(values, shape, half, cells), full[cells])
    # a grid far larger than the rows: the search path, not a lookup table
    big = (64, 64, 64)
    many = np.bincount(cell_index(values / half, big), minlength=64**3)
    listed = np.flatnonzero(many)[::3]
    assert np.array_equal(count_cells(values, big, half, listed), many[listed])


def test_cell_index_with_a_scale_leaves_the_input_alone():
    Z = np.array([[0.5, -2.0], [-1.0, 2.0]])
    before = Z.copy()
    assert cell_index(Z, (4, 4), np.array([1.0, 2.0])).tolist() == [12, 3]
    assert np.array_equal(Z, before)


def _one_draw_at_a_time(n_clusters, d, rng):
    """Su et al.'s sphere packing as specified: one candidate per draw."""
    radius = 0.5
    while True:
        centres, failures = [], 0
        while len(centres) < n_clusters and failures < MAX_FAILED_DRAWS:
            candidate = rng.uniform(radius - 1, 1 - radius, size=d)
            if all(np.sqrt(np.sum((c - candidate) ** 2)) >= 2 * radius for c in centres):
                centres, failures = [*centres, candidate], 0
            else:
                failures += 1
        if len(centres) == n_clusters:
            return np.array(centres)
        radius /= 2


class _CountingGenerator:
    """A generator that counts its ``uniform`` calls (everything else passes through)."""

    def __init__(self, seed):
        self.rng, self.calls = np.random.default_rng(seed), 0

    def uniform(self, *args, **kwargs):
        self.calls += 1
        return self.rng.uniform(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.rng, name)


def test_sphere_packing_tests_draws_in_batches_as_if_one_at_a_time():
    cases = [(1, 1, 0), (3, 2, 0), (3, 2, 1), (8, 2, 2), (5, 10, 3), (40, 3, 4)]
    for n_clusters, d, seed in cases:
        counting, reference = _CountingGenerator(seed), np.random.default_rng(seed)
        centres = sphere_packing(n_clusters, d, counting)
        np.testing.assert_array_equal(centres, _one_draw_at_a_time(n_clusters, d, reference))
        assert counting.rng.bit_generator.state == reference.bit_generator.state
    counting = _CountingGenerator(0)
    sphere_packing(3, 2, counting)  # the first radius fails 100 draws: 106 draws in all
    assert counting.calls <= 30  # in batches of 1, 2, 4, ...: 12 calls
