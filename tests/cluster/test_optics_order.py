"""DPOPTICS's OPTICS ordering of the released cells: the textbook scan's output, to the
bit, from each cell's neighbourhood instead of every pair."""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from skdp.cluster._weighted_optics import weighted_core_distances, weighted_optics


@pytest.fixture(autouse=True)
def _one_thread():
    with threadpool_limits(1):
        yield


def textbook_scan(points, core, max_eps):
    """Ankerst et al.'s loop as scikit-learn runs it: every step scans every
    unprocessed point (next: smallest reachability, first index on ties)."""
    n = points.shape[0]
    reachability, predecessor = np.full(n, np.inf), np.full(n, -1, dtype=np.intp)
    ordering, unprocessed = np.empty(n, dtype=np.intp), np.ones(n, dtype=bool)
    for position in range(n):
        candidates = np.flatnonzero(unprocessed)
        point = candidates[np.argmin(reachability[candidates])]
        unprocessed[point] = False
        ordering[position] = point
        if np.isfinite(core[point]):
            others = candidates[candidates != point]
            distances = np.sqrt(((points[others] - points[point]) ** 2).sum(axis=1))
            reach = np.maximum(distances, core[point])
            better = (distances <= max_eps) & (reach < reachability[others])
            reachability[others[better]] = reach[better]
            predecessor[others[better]] = point
    return ordering, reachability, predecessor


def grid_cells(shape, occupied, lower=-1.3, upper=2.1):
    """Centres of occupied cells of a grid on ``[lower, upper]^d``, as DPOPTICS makes
    them (equal distances everywhere: ties at every step)."""
    coords = np.stack(np.unravel_index(occupied, shape), axis=1)
    half = (upper - lower) / 2
    return (lower + upper) / 2 + ((2 * coords + 1) / np.asarray(shape) - 1) * half


def clustered_cells(shape, seed, n_bumps=4):
    """Occupied cells and Norm-Sub-like weights: a few dense bumps and sparse noise
    cells between them, as a noisy histogram of clustered data leaves them."""
    rng = np.random.default_rng(seed)
    grids = np.meshgrid(*(np.arange(m) for m in shape), indexing="ij")
    density = np.zeros(shape)
    for _ in range(n_bumps):
        centre, width = rng.uniform(0, min(shape), len(shape)), rng.uniform(1, min(shape) / 6)
        density += 200 * np.exp(
            -sum((g - c) ** 2 for g, c in zip(grids, centre, strict=True)) / width**2
        )
    weights = np.maximum(density + rng.laplace(scale=3, size=shape) - 2, 0).ravel()
    occupied = np.flatnonzero(weights)
    return grid_cells(shape, occupied), weights[occupied]


CASES = {
    "2-D bumps, max_eps inf": ((32, 32), 0, 20, np.inf),
    "2-D bumps, max_eps 0.2": ((32, 32), 1, 20, 0.2),
    "3-D bumps": ((10, 10, 10), 2, 50, np.inf),
    "2-D sparse, min_samples above every cell": ((24, 24), 3, 400, np.inf),
    "1-D": ((300,), 4, 10, np.inf),
}


@pytest.mark.parametrize("shape, seed, min_samples, max_eps", CASES.values(), ids=CASES)
def test_the_ordering_is_the_textbook_scans_to_the_bit(shape, seed, min_samples, max_eps):
    points, weights = clustered_cells(shape, seed)
    core = weighted_core_distances(points, weights, min_samples, max_eps)
    expected = textbook_scan(points, core, max_eps)
    ordering, reachability, found_core, predecessor = weighted_optics(
        points, weights, min_samples, max_eps
    )
    assert found_core.tobytes() == core.tobytes()
    for found, wanted in zip((ordering, reachability, predecessor), expected, strict=True):
        assert found.dtype == wanted.dtype and found.tobytes() == wanted.tobytes()


def test_a_full_grid_with_equal_weights_breaks_every_tie_like_the_scan():
    points = grid_cells((20, 20), np.arange(400))
    weights = np.full(400, 3.0)
    core = weighted_core_distances(points, weights, 10, np.inf)
    expected = textbook_scan(points, core, np.inf)
    found = weighted_optics(points, weights, 10)
    for a, b in zip((found[0], found[1], found[3]), expected, strict=True):
        assert a.tobytes() == b.tobytes()


class CountingPoints(np.ndarray):
    """Points that count the rows the ordering gathers by fancy indexing."""

    rows = 0

    def __getitem__(self, key):
        out = np.asarray(self).__getitem__(key)
        if isinstance(key, np.ndarray) and key.ndim == 1:
            CountingPoints.rows += key.size
        return out


def test_the_ordering_reads_each_cells_neighbourhood_not_every_pair():
    # 1300-odd cells of a 48 x 48 grid: the scan gathers ~n^2 / 2 = 9e5 rows
    points, weights = clustered_cells((48, 48), 5, n_bumps=6)
    n = points.shape[0]
    CountingPoints.rows = 0
    ordering, *_ = weighted_optics(points.view(CountingPoints), weights, 20)
    assert np.array_equal(np.sort(ordering), np.arange(n))
    assert CountingPoints.rows < 60 * n, (n, CountingPoints.rows)  # measured: 14 n
