"""Empirical privacy audit of DPKMeans on tiny neighbouring datasets.

Lloyd (``max_iter=1``, ``k = 2``, public init ``[-0.5, 0.5]``, bounds ``(-1, 1)``, so the
scaled domain is the data's own): three records sit at ``x = -1`` (cluster 0) and the
fourth, at ``x = 1``, is removed in the neighbour. It is the only member of cluster 1:

* cluster 1's exact count is 1 on the first dataset and 0 on the second, its exact sum
  1 and 0: the extra record moves both by their whole sensitivity (1 for the counts,
  ``d = 1`` for the sums in the scaled domain);
* the released ``cluster_counts_[1]`` is that count plus discrete Laplace noise at
  ``epsilon c / (1 + c)`` (``c = count_share(1)``, ~0.37 epsilon);
* the released centre ``cluster_centers_[1, 0]`` is the previous centre 0.5 when the
  noisy count is below 1, else the posterior mean in the box of noisy sum / noisy count:
  post-processing of both noisy statistics;
* the joint statistic (:func:`lloyd_joint`) reads both: "noisy count >= 1 and noisy sum
  >= 1", recovered from the released count and centre. There the privacy loss of the
  pair (noisy count, noisy sum) is at its maximum, ``eps_count + eps_sum = epsilon``
  (up to the lattice's ``2**-12``), so this event sees the whole budget, where the count
  alone sees ~0.37 of it.

Grid (``k = 10``, more clusters than the grid has cells, so the weighted k-means is not
needed): 100 records at ``x = -1`` and the extra one at ``x = 1``, alone in the last cell.
The release is the noisy mass of the cells with centre above 0 (their
``cluster_counts_``), which moves by 1 with the extra record; the grid shape itself
depends on the noisy number of records (``0.05 epsilon``).

Mutants that draw the noise for 10x epsilon, or release an empty cluster's count as an
exact 0 (diffprivlib's ``if cluster not in labels: continue``), must be flagged, and so
must noise for 2x epsilon on the joint statistic (diffprivlib's swapped split overspends
2.09x at d = 50) and a grid histogram noised for 10x epsilon; the correct estimator,
audited on the same neighbours with the same statistics, must pass. Any statistic is
post-processing of the release, so a pass never depends on choosing it well.
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import skdp.cluster._grid as grid_module
import skdp.cluster._lloyd as lloyd_module
import skdp.cluster._tree as tree_module
from skdp.cluster import DPKMeans
from skdp.utils._audit import audit

EPSILON = 1.0
X = np.array([[-1.0], [-1.0], [-1.0], [1.0]])
FIRST, SECOND = X, X[:-1]  # add/remove the last record, alone in cluster 1
INIT = np.array([[-0.5], [0.5]])
GRID_X = np.r_[np.full((100, 1), -1.0), [[1.0]]]
GRID_FIRST, GRID_SECOND = GRID_X, GRID_X[:-1]
GRID_K = 10


@pytest.fixture(autouse=True)
def _one_thread():
    """Thousands of tiny fits: on a loaded machine OpenMP threads cost ~50 ms per
    pairwise-distance call, against ~0.3 ms on one thread."""
    with threadpool_limits(1):
        yield


def lloyd_centre(model):
    return model.cluster_centers_[1, 0]


def lloyd_count(model):
    return model.cluster_counts_[1]


# the Laplace scale of cluster 1's noisy sum (d = 1, all of epsilon on one iteration)
SUM_SCALE = (1 + lloyd_module.count_share(1)) / EPSILON


def lloyd_joint(model):
    """1 when the noisy count is >= 1 and the noisy sum >= 1, else 0.

    The centre is ``box_posterior_mean(noisy sum / n, SUM_SCALE / n)``, increasing in the
    noisy sum, so with the noisy count ``n >= 1`` the sum is >= 1 exactly when the centre
    reaches its value at the ratio 1 / n. The event has probability ratio
    ``e^(eps_count + eps_sum) ~ e^epsilon`` between the datasets (0.30 against 0.11).
    """
    n = model.cluster_counts_[1]
    if n < 1:
        return 0.0
    at_one = lloyd_module.box_posterior_mean(np.array(1 / n), np.array(SUM_SCALE / n))
    return float(model.cluster_centers_[1, 0] >= at_one)


RELEASES = {"centre": lloyd_centre, "count": lloyd_count, "joint": lloyd_joint}


def lloyd_release(statistic, epsilon=EPSILON):
    def release(data, rng):
        model = DPKMeans(2, epsilon=epsilon, bounds=(-1, 1), max_iter=1, init=INIT, method="lloyd")
        return statistic(model.set_params(random_state=rng).fit(data))

    return release


def grid_release(data, rng, epsilon=EPSILON):
    """The noisy mass of the cells with centre above 0."""
    model = DPKMeans(
        GRID_K, epsilon=epsilon, bounds=(-1, 1), method="grid",
        init=np.linspace(-0.9, 0.9, GRID_K)[:, np.newaxis], random_state=rng,
    ).fit(data)  # fmt: skip
    return model.cluster_counts_[model.cluster_centers_[:, 0] > 0].sum()


def audit_lloyd(name, n_search, n_samples, random_state=0):
    return audit(
        lloyd_release(RELEASES[name]), FIRST, SECOND, epsilon=EPSILON,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def audit_grid(n_search, n_samples, random_state=0):
    return audit(
        grid_release, GRID_FIRST, GRID_SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_extra_record_moves_count_and_sum_by_their_whole_sensitivity():
    """The premise of the Lloyd audits, at negligible noise."""
    exact = {"epsilon": 1e9, "bounds": (-1, 1), "max_iter": 1, "init": INIT, "method": "lloyd"}
    first = DPKMeans(2, random_state=0, **exact).fit(FIRST)
    second = DPKMeans(2, random_state=0, **exact).fit(SECOND)
    assert first.cluster_counts_.tolist() == [3, 1] and second.cluster_counts_.tolist() == [3, 0]
    assert first.cluster_centers_[1, 0] == pytest.approx(1.0, abs=1e-6)  # sum 1 / count 1
    assert second.cluster_centers_[1, 0] == 0.5  # empty: the public init is kept


def test_the_grid_puts_the_extra_record_alone_above_zero():
    """The premise of the grid audit, at negligible noise: the mass above 0 is 1, then 0."""
    released = [
        grid_release(data, np.random.default_rng(0), epsilon=1e9)
        for data in (GRID_FIRST, GRID_SECOND)
    ]
    assert released == [1, 0]


@pytest.mark.parametrize("name", RELEASES)
def test_lloyd_passes_audit(name):
    result = audit_lloyd(name, n_search=100, n_samples=500)
    assert result.passed, str(result)


def test_grid_passes_audit():
    result = audit_grid(n_search=100, n_samples=500)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", RELEASES)
def test_lloyd_passes_a_large_audit(name):
    result = audit_lloyd(name, n_search=1000, n_samples=5000, random_state=1)
    assert result.passed, str(result)


@pytest.mark.slow
def test_grid_passes_a_large_audit():
    result = audit_grid(n_search=1000, n_samples=5000, random_state=1)
    assert result.passed, str(result)


def noise_for(factor):
    """A mutant drawing the Lloyd noise for ``factor`` times the epsilon it records."""

    def patch(monkeypatch):
        for name in ("geometric", "laplace"):
            real = getattr(lloyd_module, name)

            def too_little_noise(value, *, epsilon, _real=real, **kwargs):
                return _real(value, epsilon=factor * epsilon, **kwargs)

            monkeypatch.setattr(lloyd_module, name, too_little_noise)

    return patch


def empty_counts_not_noised(monkeypatch):
    """diffprivlib's skip: an empty cluster's count is released as an exact 0."""
    real = lloyd_module.geometric

    def skip_empty(value, **kwargs):
        counts = np.asarray(value)
        return np.where(counts == 0, 0, real(counts, **kwargs))

    monkeypatch.setattr(lloyd_module, "geometric", skip_empty)


MUTANTS = {"10x-epsilon": noise_for(10), "skip-empty": empty_counts_not_noised}


@pytest.mark.parametrize("name", ["centre", "count"])
@pytest.mark.parametrize("mutant", MUTANTS)
def test_audit_flags_the_mutant(monkeypatch, mutant, name):
    MUTANTS[mutant](monkeypatch)
    result = audit_lloyd(name, n_search=60, n_samples=300)
    assert not result.passed, str(result)


def test_audit_flags_twice_epsilon_on_the_joint_release(monkeypatch):
    """The joint statistic is sharp enough to catch a factor 2 (as diffprivlib's
    swapped split overspends at d = 50)."""
    noise_for(2)(monkeypatch)
    result = audit_lloyd("joint", n_search=200, n_samples=1000)
    assert not result.passed, str(result)


def test_audit_flags_a_grid_noised_for_ten_times_epsilon(monkeypatch):
    real = grid_module.geometric

    def too_little_noise(value, *, epsilon, **kwargs):
        return real(value, epsilon=10 * epsilon, **kwargs)

    monkeypatch.setattr(grid_module, "geometric", too_little_noise)
    result = audit_grid(n_search=60, n_samples=300)
    assert not result.passed, str(result)


# the hybrid's clipped displacement step: radius 0.5 around the public centre 0.5, so
# the extra record at 1 moves cluster 1's displacement sum by its whole sensitivity
RADII = np.array([0.5, 0.5])


def clipped_release(data, rng, epsilon=EPSILON):
    """Cluster 1's released centre after one clipped displacement step from INIT."""
    counts, sums = lloyd_module.cluster_displacements(data, INIT, np.ones(1), RADII)
    centres, _ = lloyd_module.clipped_lloyd_step(
        counts, sums, INIT, RADII, epsilon=epsilon, rng=rng
    )
    return centres[1, 0]


def audit_clipped(n_search, n_samples, random_state=0):
    return audit(
        clipped_release, FIRST, SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_clipped_step_moves_by_the_whole_radius():
    """The premise of the clipped-step audit, at negligible noise: 1.0, then 0.5 (kept)."""
    rng = np.random.default_rng(0)
    released = [clipped_release(data, rng, epsilon=1e9) for data in (FIRST, SECOND)]
    assert released == pytest.approx([1.0, 0.5], abs=1e-6)


def test_clipped_step_passes_audit():
    result = audit_clipped(n_search=200, n_samples=1000)
    assert result.passed, str(result)


def test_audit_flags_a_clipped_step_noised_for_ten_times_epsilon(monkeypatch):
    noise_for(10)(monkeypatch)
    result = audit_clipped(n_search=60, n_samples=300)
    assert not result.passed, str(result)


# the hybrid's tree histogram (skdp.cluster._tree): 50 records at -0.9 and 50 at 0.9,
# so both level-1 cells of the grid (2,) are refined; the extra record at 0.9 adds 1 to
# the level-2 cell [0.5, 1], whose noisy count is released at epsilon_2 = 0.8 epsilon
TREE_X = np.r_[np.full((50, 1), -0.9), np.full((50, 1), 0.9), [[0.9]]]
TREE_FIRST, TREE_SECOND = TREE_X, TREE_X[:-1]


def tree_release(data, rng, epsilon=EPSILON):
    """The noisy mass of the tree's leaves above 0.5 (0 when no such leaf clears the
    threshold)."""
    epsilons = [epsilon * share for share in tree_module.LEVEL_SHARES]
    points, weights = tree_module.tree_histogram(data, np.ones(1), (2,), epsilons, rng)
    return weights[points[:, 0] > 0.5].sum()


def audit_tree(n_search, n_samples, random_state=0):
    return audit(
        tree_release, TREE_FIRST, TREE_SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_tree_counts_the_extra_record_in_a_level_two_leaf():
    """The premise of the tree audit, at negligible noise: 51, then 50."""
    rng = np.random.default_rng(0)
    released = [tree_release(data, rng, epsilon=1e9) for data in (TREE_FIRST, TREE_SECOND)]
    assert released == [51, 50]


def test_tree_passes_audit():
    result = audit_tree(n_search=200, n_samples=1000)
    assert result.passed, str(result)


def test_audit_flags_a_tree_noised_for_ten_times_epsilon(monkeypatch):
    real = tree_module.geometric

    def too_little_noise(value, *, epsilon, **kwargs):
        return real(value, epsilon=10 * epsilon, **kwargs)

    monkeypatch.setattr(tree_module, "geometric", too_little_noise)
    result = audit_tree(n_search=60, n_samples=300)
    assert not result.passed, str(result)
