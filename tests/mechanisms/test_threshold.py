"""AboveThreshold (skdp.mechanisms.above_threshold)."""

import numpy as np
import pytest
from scipy import stats

import skdp.mechanisms._threshold as threshold_module
from skdp import PrivacyLedger
from skdp.mechanisms import above_threshold
from skdp.utils._audit import audit
from skdp.utils._audit_quantiles import THRESHOLD_PAIR


def test_stops_at_the_first_query_well_above_the_threshold():
    queries = [0] * 5 + [1000] * 5
    stops = {
        above_threshold(queries, 500, sensitivity=1, epsilon=1.0, random_state=s)
        for s in range(50)
    }
    assert stops == {5}


def test_returns_the_length_when_nothing_crosses():
    assert above_threshold([0, 0, 0], 1000, sensitivity=1, epsilon=1.0, random_state=0) == 3


def test_noise_scale_is_two_sensitivity_over_epsilon():
    # P[first query crosses] for a query 10 below the threshold: about half a Laplace
    # tail; the 1-d path, one call per scan (the 2-d one: the exact-law test below)
    stops = np.array(
        [above_threshold([-10], 0, sensitivity=5, epsilon=1.0, random_state=s) for s in range(600)]
    )
    crossed = np.mean(stops == 0)
    # difference of two discrete Laplace(10) variables exceeding 10: about 0.28
    assert 0.22 < crossed < 0.34


def test_charges_epsilon_once_for_the_whole_scan():
    with PrivacyLedger() as ledger:
        above_threshold(np.zeros(300), 1, sensitivity=2, epsilon=0.7, random_state=0)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("above_threshold", 0.7)]


@pytest.mark.parametrize(
    ("queries", "threshold", "match"),
    [
        ([0.5], 0, "integers"),
        ([np.nan], 0, "integers"),
        ([[[1, 2]]], 0, "1-d or 2-d"),
        ([1], 0.5, "threshold"),
    ],
)
def test_bad_arguments(queries, threshold, match):
    with pytest.raises(ValueError, match=match):
        above_threshold(queries, threshold, sensitivity=1, epsilon=1.0)


def _exact_stop_law(queries, threshold, scale):
    """P[first crossing at k], k = 0..len(queries), of AboveThreshold with exact noise."""
    z = np.arange(-60 * int(scale), 60 * int(scale) + 1)
    pmf = np.exp(-np.abs(z) / scale)
    pmf /= pmf.sum()
    cdf = np.cumsum(pmf)  # P[nu <= z]

    def below(level):  # P[nu < level] for integer levels
        return np.interp(level - 1, z, cdf, left=0.0, right=1.0)

    law, alive = [], pmf.copy()  # over rho: P[rho, no crossing so far]
    for q in queries:
        stays = below(threshold + z - q)
        law.append(np.sum(alive * (1 - stays)))
        alive = alive * stays
    return np.array([*law, alive.sum()])


def test_each_row_of_a_2d_call_has_the_exact_law_of_a_scan():
    queries, threshold, sensitivity, epsilon = [-6, -3, 0, -2], 0, 2, 1.0
    n_rows = 20_000
    stops = above_threshold(
        np.tile(queries, (n_rows, 1)), threshold, sensitivity=sensitivity, epsilon=epsilon,
        random_state=0,
    )  # fmt: skip
    assert stops.shape == (n_rows,) and stops.dtype.kind == "i"
    expected = _exact_stop_law(queries, threshold, 2 * sensitivity / epsilon) * n_rows
    observed = np.bincount(stops, minlength=len(queries) + 1)
    assert stats.chisquare(observed, expected).pvalue > 1e-4
    # the same statistic rejects the law of half the noise (a wrong scale)
    wrong = _exact_stop_law(queries, threshold, sensitivity / epsilon) * n_rows
    assert stats.chisquare(observed, wrong).pvalue < 1e-6


@pytest.mark.parametrize(
    ("chunk", "queries"),
    [(1, [-6, -3, 0, -2]), (64, [-12] * 100 + [-2] * 50)],  # chunks 1, 2, 1; 64, 86
)
def test_scans_drawn_a_chunk_at_a_time_keep_the_exact_law(monkeypatch, chunk, queries):
    """A 2-d call draws the noise of its first _CHUNK queries, then of chunks twice as
    long for the rows still scanning: each row still has the exact law of a scan."""
    monkeypatch.setattr(threshold_module, "_CHUNK", chunk)
    n_rows, scale = 20_000, 4
    stops = above_threshold(
        np.tile(queries, (n_rows, 1)), 0, sensitivity=2, epsilon=1.0, random_state=3
    )
    law = _exact_stop_law(queries, 0, scale)
    keep = law * n_rows > 5  # the chi-square's cells, the rest pooled
    observed = np.bincount(stops, minlength=len(queries) + 1)
    pooled = [observed[~keep].sum()] if (~keep).any() else []
    observed = np.append(observed[keep], pooled)
    expected = np.append(law[keep], [law[~keep].sum()] if pooled else []) * n_rows
    assert np.count_nonzero(stops >= chunk) > 1000  # the later chunks are read
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_rows_are_independent_scans():
    # two rows that stop at 0 or 1 with probability about one half each
    stops = above_threshold(np.zeros((20_000, 2)), 0, sensitivity=1, epsilon=1.0, random_state=1)
    pairs = stops.reshape(-1, 2)
    table = np.histogram2d(pairs[:, 0], pairs[:, 1], bins=[np.arange(4)] * 2)[0]
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    assert stats.chi2_contingency(table).pvalue > 1e-4


def test_a_2d_call_charges_epsilon_once_per_row():
    with PrivacyLedger() as ledger:
        stops = above_threshold(
            [[0, 0, 50], [100, 0, 0], [0, 0, 0]], 25, sensitivity=1, epsilon=0.7, random_state=0
        )
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("above_threshold", 0.7)] * 3
    assert stops.tolist()[:2] == [2, 0]


def test_empty_scans():
    none = above_threshold(np.zeros((0, 3)), 0, sensitivity=1, epsilon=1.0, random_state=0)
    assert none.shape == (0,)
    empty = above_threshold(np.zeros((2, 0)), 0, sensitivity=1, epsilon=1.0, random_state=0)
    assert empty.tolist() == [0, 0]


def _rows(fraction):
    """A 2-d call whose first row is the audit pair, noise ``fraction`` of what it needs.

    Only the first row reads the data, so the release is ``epsilon``-DP for the
    ``epsilon`` of one row (the fixed second row is public post-processing's twin).
    """

    def release(queries, rng):
        rows = np.vstack([queries, np.zeros(queries.size, dtype=int)])
        first, second = above_threshold(
            rows, 0, sensitivity=fraction, epsilon=1.0, random_state=rng
        )
        return first * (queries.size + 1) + second

    return release


AUDIT = {"epsilon": 1.0, "n_search": 100, "n_samples": 400, "random_state": 0}


def test_a_2d_call_passes_the_audit():
    result = audit(_rows(1.0), *THRESHOLD_PAIR, **AUDIT)
    assert result.passed, str(result)


def test_a_2d_call_with_a_quarter_of_the_noise_is_flagged():
    result = audit(_rows(0.25), *THRESHOLD_PAIR, **AUDIT)
    assert not result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize(("fraction", "passes"), [(1.0, True), (0.5, False)])
def test_a_2d_call_large_audit(fraction, passes):
    """The twin at the settings of the 1-d mutant (tests/privacy/test_audit_quantiles.py)."""
    settings = {**AUDIT, "n_search": 1000, "n_samples": 5000}
    assert audit(_rows(fraction), *THRESHOLD_PAIR, **settings).passed == passes
