"""Empirical privacy audit of DPOPTICS on tiny neighbouring datasets.

One dimension, public bounds ``(0, 1)`` and a public grid of 4 cells of width 0.25
(``grid_size`` given, so no share for the number of records): 20 records sit at
``x = 0.1`` (cell 0) and the extra one, at ``x = 0.9``, is removed in the neighbour. It is
alone in cell 3; cells 1 and 2 are empty in both datasets. ``count_share=0.2``: the
histogram gets ``0.8 epsilon``, the per-group counts ``0.2 epsilon``.

* ``histogram_[3]`` is the extra record's cell: its exact count is 1, then 0, so it
  moves by the histogram's whole sensitivity (1) and is released with discrete Laplace
  noise at ``0.8 epsilon``;
* ``noise_count_``: with ``cluster_method="dbscan"``, ``eps=0.3`` and ``min_samples=5``,
  cell 0 (weight ~20, a core cell on its own) is a cluster and the lone record's cell is
  not (its weight is ~1, or the cell is dropped by Norm-Sub), so the extra record is the
  only member of the noise group: exact noise count 1, then 0, noised at ``0.2 epsilon``.

Mutants that must be flagged: the histogram noised for 10x epsilon, and empty cells
left un-noised (released as an exact 0), which the second dataset shows in cell 3 every
time; and, to show the noise-count release has power, the counts noised for 10x
epsilon. The correct estimator, audited on the same neighbours with the same
statistics, must pass. Any statistic is post-processing of the release, so a pass never
depends on choosing it well.
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import skdp.cluster._grid as grid_module
import skdp.cluster._optics as optics_module
from skdp.cluster import DPOPTICS
from skdp.utils._audit import audit

EPSILON = 1.0
X = np.r_[np.full((20, 1), 0.1), [[0.9]]]
FIRST, SECOND = X, X[:-1]  # add/remove the last record, alone in cell 3
PARAMS = {
    "bounds": (0.0, 1.0),
    "grid_size": 4,
    "count_share": 0.2,
    "min_samples": 5,
    "cluster_method": "dbscan",
    "eps": 0.3,
}


@pytest.fixture(autouse=True)
def _one_thread():
    """Thousands of tiny fits: on a loaded machine OpenMP threads cost ~50 ms per
    nearest-neighbour call, against ~1 ms per fit on one thread."""
    with threadpool_limits(1):
        yield


def extra_cell(model):
    return model.histogram_[3]


def noise_count(model):
    return model.noise_count_


RELEASES = {"histogram-cell": extra_cell, "noise-count": noise_count}


def release(statistic, epsilon=EPSILON):
    def mechanism(data, rng):
        return statistic(DPOPTICS(epsilon=epsilon, random_state=rng, **PARAMS).fit(data))

    return mechanism


def audit_optics(name, n_search, n_samples, random_state=0):
    return audit(
        release(RELEASES[name]), FIRST, SECOND, epsilon=EPSILON,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_extra_record_moves_its_cell_and_the_noise_count_by_one():
    """The premise of the audits, at negligible noise."""
    exact = {"epsilon": 1e9, "random_state": 0, **PARAMS}
    first, second = (DPOPTICS(**exact).fit(data) for data in (FIRST, SECOND))
    assert first.histogram_.tolist() == [20, 0, 0, 1]
    assert second.histogram_.tolist() == [20, 0, 0, 0]
    assert first.labels_.tolist() == [0] * 20 + [-1]
    assert (first.noise_count_, second.noise_count_) == (1, 0)
    assert first.cluster_counts_.tolist() == second.cluster_counts_.tolist() == [20]
    assert first.epsilon_split_["histogram"] == pytest.approx(0.8 * 1e9)


@pytest.mark.parametrize("name", RELEASES)
def test_optics_passes_audit(name):
    result = audit_optics(name, n_search=100, n_samples=500)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", RELEASES)
def test_optics_passes_a_large_audit(name):
    result = audit_optics(name, n_search=1000, n_samples=5000, random_state=1)
    assert result.passed, str(result)


def histogram_noise_for_ten_times_epsilon(monkeypatch):
    real = grid_module.geometric

    def too_little_noise(value, *, epsilon, **kwargs):
        return real(value, epsilon=10 * epsilon, **kwargs)

    monkeypatch.setattr(grid_module, "geometric", too_little_noise)


def empty_cells_not_noised(monkeypatch):
    """Only the occupied cells noised: an empty cell is released as an exact 0."""
    real = grid_module.geometric

    def skip_empty(value, **kwargs):
        counts = np.asarray(value)
        return np.where(counts == 0, 0, real(counts, **kwargs))

    monkeypatch.setattr(grid_module, "geometric", skip_empty)


def counts_noise_for_ten_times_epsilon(monkeypatch):
    real = optics_module.geometric

    def too_little_noise(value, *, epsilon, **kwargs):
        return real(value, epsilon=10 * epsilon, **kwargs)

    monkeypatch.setattr(optics_module, "geometric", too_little_noise)


@pytest.mark.parametrize(
    ("mutant", "name"),
    [
        (histogram_noise_for_ten_times_epsilon, "histogram-cell"),
        (empty_cells_not_noised, "histogram-cell"),
        (counts_noise_for_ten_times_epsilon, "noise-count"),
    ],
    ids=["histogram-10x-epsilon", "skip-empty-cells", "counts-10x-epsilon"],
)
def test_audit_flags_the_mutant(monkeypatch, mutant, name):
    mutant(monkeypatch)
    result = audit_optics(name, n_search=60, n_samples=300)
    assert not result.passed, str(result)
