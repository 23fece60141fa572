"""Tier-1 bounds of sparse columns: the rescan of the nonzero values.

(skdp.utils._bounds_sparse, run by skdp.utils._bounds.estimate_public_inputs.) Before
it, a column with more zeros than the scan's quantile got a box of about ``+-2**-30``
and the scalers divided by it (Adult's packaged sample: capital-gain at 8e11).
"""

import math
import warnings

import numpy as np
import pytest

import skdp.utils._bounds as bounds_module
import skdp.utils._bounds_sparse as sparse_module
from skdp import PrivacyLedger
from skdp.datasets import fetch_adult
from skdp.preprocessing import MinMaxScaler, RobustScaler, StandardScaler
from skdp.utils._bounds import estimate_public_inputs, norm_share
from skdp.utils._bounds_scan import column_counts, scan_counts
from skdp.utils._bounds_sparse import SLACK_SCALES, SPARSE_LIMIT, collapsed


def _sparse(n=3000, share=0.03, seed=0):
    """A normal column and one of ``1 - share`` zeros, the rest uniform on [1, 100]."""
    rng = np.random.default_rng(seed)
    sparse = np.where(rng.random(n) < share, rng.uniform(1, 100, n), 0.0)
    return np.column_stack([rng.normal(0, 1, n), sparse])


def test_a_97_percent_zero_column_gets_the_box_of_its_nonzero_values():
    X = _sparse()
    for seed in range(10):
        with PrivacyLedger() as ledger:
            found = estimate_public_inputs(1.0, n_samples=X.shape[0], columns=X, random_state=seed)
        lower, upper = found.bounds
        assert lower[1] == 0 and 30 <= upper[1] <= 130, "the nonzero values' 70-98% points"
        assert -3.4 < lower[0] < -1.5 and 1.5 < upper[0] < 3.4, "the normal column"
        share = bounds_module.bounds_share(found.n_samples, 1.0, 2)[0]
        assert found.epsilon_split["bounds"] > share, "the rescan is charged to the bounds"
        assert ledger.total.epsilon == pytest.approx(1.0 - found.remaining)
        assert found.remaining > 0.4


def test_without_the_rescan_the_sparse_column_collapses(monkeypatch):
    # what the rescan repairs, on the same data and seed (the old behaviour)
    monkeypatch.setattr(bounds_module, "rescan_budget", lambda *spent: 0.0)
    found = estimate_public_inputs(1.0, n_samples=3000, columns=_sparse(), random_state=0)
    assert found.bounds[1][1] < SPARSE_LIMIT


def test_columns_without_zeros_draw_and_spend_exactly_as_without_the_rescan(monkeypatch):
    X = np.random.default_rng(1).normal(0, 1e-3, (5000, 3))  # small scale, no zeros
    outputs = []
    for budget in (bounds_module.rescan_budget, lambda *spent: 0.0):
        monkeypatch.setattr(bounds_module, "rescan_budget", budget)
        rng = np.random.default_rng(7)
        found = estimate_public_inputs(5.0, n_samples=5000, columns=X, random_state=rng)
        outputs.append((found.bounds, found.epsilon_split, rng.random()))
    (first, split, draw), (second, split_0, draw_0) = outputs
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    assert split == split_0 and draw == draw_0, "no draw and no spend more"


@pytest.mark.parametrize("nonzero", [0, 1, 3])
def test_an_all_zero_column_gets_a_finite_tiny_box(nonzero):
    X = np.zeros((3000, 2))
    X[:, 0] = np.random.default_rng(0).normal(size=3000)
    X[:nonzero, 1] = 5.0
    for seed in range(20):
        with PrivacyLedger() as ledger:
            found = estimate_public_inputs(
                2.0, n_samples=3000, columns=X, row_norms=np.abs(X).sum(axis=1),
                random_state=seed,
            )  # fmt: skip
        lower, upper = found.bounds
        assert np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))
        assert 0 < upper[1] - lower[1] < 2**-10 and lower[1] <= 0 <= upper[1]
        assert ledger.total.epsilon == pytest.approx(2.0 - found.remaining)


def test_the_rescan_leaves_at_least_half_of_what_the_estimates_leave():
    # twenty sparse columns at tier 1's largest share, and a norm bound: the public cap
    rng = np.random.default_rng(2)
    X = np.where(rng.random((6000, 20)) < 0.02, rng.uniform(1, 2, (6000, 20)), 0.0)
    for seed in range(5):
        found = estimate_public_inputs(
            0.4, n_samples=6000, columns=X, row_norms=np.linalg.norm(X, axis=1),
            random_state=seed,
        )  # fmt: skip
        split = found.epsilon_split
        share = bounds_module.bounds_share(found.n_samples, 0.4, 20)[0]
        left = 0.4 - split["n_samples"] - share * 0.4 - norm_share(found.n_samples, 0.4) * 0.4
        assert share > 0.4 and split["bounds"] > share * 0.4
        assert found.remaining >= left / 2 - 1e-12 and found.remaining > 0


def test_the_rescan_scans_the_ranks_of_the_nonzero_values(monkeypatch):
    # the queries' counts are those of the nonzero magnitudes, with their exact number
    seen = []

    def spy(below, n_values, q, **kwargs):
        seen.append((below, n_values))
        return original(below, n_values, q, **kwargs)

    original = sparse_module.scan_counts
    monkeypatch.setattr(sparse_module, "scan_counts", spy)
    X = _sparse(share=0.02, seed=4)
    found = estimate_public_inputs(1.0, n_samples=X.shape[0], columns=X, random_state=0)
    assert found.epsilon_split["bounds"] > 0.1
    [(below, n_values)] = seen
    nonzero = X[X[:, 1] != 0, 1]
    assert n_values == nonzero.size and np.array_equal(below, column_counts(nonzero)[0])


def test_collapsed_reads_the_released_point_and_the_noisy_nonzero_count():
    magnitudes = np.array([2.0**-30, 0.5, 1.0, 2.0**-30])
    noisy = np.array([[-3, 40], [0, 499], [0, 10], [300, 201]])
    assert collapsed(magnitudes, noisy, 1000).tolist() == [True, True, False, False]


def test_adult_sample_scalers_stay_near_scikit_learns_range():
    # the packaged sample (what a new user and the docs build get): the scalers' first
    # try gave 8e11 and 4e12 (MinMaxScaler) on capital-gain and capital-loss
    frame = fetch_adult(as_frame=True, sample=True).frame.select_dtypes("number")
    X = frame.to_numpy(float)
    # a box from a high quantile of the nonzero values clips capital-gain's top values
    # (up to 99999), hence a few times scikit-learn's range, not 1e11
    limits = {MinMaxScaler: 50, StandardScaler: 200, RobustScaler: 50}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for estimator, limit in limits.items():
            for seed in range(3):
                model = estimator(random_state=seed).fit(X)
                worst = np.abs(model.transform(X)).max()
                assert math.isfinite(worst) and worst < limit, (estimator.__name__, seed)
                assert model.privacy_spent_.epsilon == pytest.approx(1.0)


def _above_threshold_law(queries, threshold, scale):
    """The exact law of AboveThreshold's stop (discrete Laplace of ``scale``, one
    ``rho`` and one ``nu_i`` per query), by summing over ``rho``."""
    reach = int(60 * scale) + max(abs(int(q)) for q in queries) + abs(threshold)
    support = np.arange(-reach, reach + 1)
    pmf = np.exp(-np.abs(support) / scale)
    pmf /= pmf.sum()
    cdf = np.cumsum(pmf)  # P[Z <= support[k]]
    law = np.zeros(len(queries) + 1)
    for rho, p_rho in zip(support, pmf, strict=True):
        alive = p_rho
        for i, query in enumerate(queries):
            # crossing at i: nu_i >= threshold + rho - query
            bar = threshold + rho - query
            below = cdf[np.clip(bar - 1 + reach, -1, 2 * reach)] if bar - 1 >= -reach else 0.0
            law[i] += alive * (1 - below)
            alive *= below
        law[-1] += alive
    return law


def test_the_slack_scan_follows_above_thresholds_exact_law():
    # the rescan's scan (scan_counts with slack 3) on eight nonzero values over a short
    # public grid: the stops' frequencies against the exact law (chi-square, 4000 draws)
    from scipy.stats import chisquare

    values = np.array([0.3, 0.5, 0.7, 1.1, 1.3, 2.0, 3.0, 9.0])
    grid = np.array([0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
    below = np.searchsorted(np.sort(values), grid, side="left")
    epsilon, q = 2.0, 0.75  # q = 3 / 4
    rng = np.random.default_rng(0)
    draws = [
        scan_counts(below, values.size, q, epsilon=epsilon, random_state=rng, candidates=grid,
                    slack=SLACK_SCALES)
        for _ in range(4000)
    ]  # fmt: skip
    observed = np.array([np.count_nonzero(np.asarray(draws) == c) for c in grid])
    threshold = -math.ceil(SLACK_SCALES * 2 * 4 / epsilon)
    law = _above_threshold_law(4 * below - 3 * values.size, threshold, 2 * 4 / epsilon)
    expected = np.r_[law[:-2], law[-2] + law[-1]] * 4000  # no crossing: the last point
    assert expected.min() >= 5 and math.isclose(expected.sum(), 4000)
    result = chisquare(observed, expected)
    assert result.pvalue > 1e-3, (observed, expected.round(1))
