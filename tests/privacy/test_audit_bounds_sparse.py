"""Audit of the rescan of collapsed sparse columns (skdp.utils._bounds_sparse).

Tier 1 of the private bounds on one feature of 6000 zeros, 52 values at 1 and 8 at
1000, against the same with one more value at 1000 (add one record). With the bounds'
``epsilon`` of 0.1 the first scan collapses on every run; the rescan's budget of 1
buys its sign histogram (``epsilon_c = 0.15``) and its scan (``epsilon_j`` about 0.75,
at most 0.85) of the 87% point of the 60 nonzero values less three noise scales: just
above 1 on both datasets. The whole release is claimed ``1.1``-DP. The mutant draws
the rescan's histogram and scan for ten times the epsilon it charges (its threshold
slack shrinks with them): the added value at 1000 then moves the scan past 1 on
about 46% of runs instead of 4% (log ratio 2.4), which the audit must flag.
"""

import numpy as np
import pytest

import skdp.utils._bounds_sparse as sparse_module
from skdp import PrivacyLedger
from skdp.utils._audit import audit
from skdp.utils._bounds import _bounds_and_rows

from .._mutants import ten_times

BOUNDS_EPSILON, SPARSE_BUDGET, N_NOISY = 0.1, 1.0, 6060
FIRST = np.r_[np.zeros(6000), np.ones(52), np.full(8, 1000.0)][:, np.newaxis]
PAIR = (FIRST, np.r_[FIRST, [[1000.0]]])


def _bounds(X, rng):
    lower, upper, *_ = _bounds_and_rows(
        X, BOUNDS_EPSILON, 1, N_NOISY, rng, True, sparse_budget=SPARSE_BUDGET
    )
    return lower, upper


def _log_width(released):
    lower, upper = released
    return float(np.log2(upper[0] - lower[0]))


def _audit(n_search, n_samples, random_state):
    return audit(
        _bounds, *PAIR, epsilon=BOUNDS_EPSILON + SPARSE_BUDGET, statistic=_log_width,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_pair_collapses_and_is_rescanned_for_the_whole_budget():
    for X in PAIR:
        for seed in range(50):
            with PrivacyLedger() as ledger:
                *_, spent = _bounds_and_rows(
                    X, BOUNDS_EPSILON, 1, N_NOISY, seed, True, sparse_budget=SPARSE_BUDGET
                )
            assert 0.5 < spent <= SPARSE_BUDGET + 1e-12
            assert ledger.total.epsilon == pytest.approx(BOUNDS_EPSILON + spent)


def test_the_rescan_passes_the_audit():
    result = _audit(n_search=300, n_samples=1000, random_state=0)
    assert result.passed, result


def test_the_audit_flags_a_rescan_drawn_for_ten_times_its_epsilon(monkeypatch):
    ten_times(monkeypatch, sparse_module, "scan_counts", "geometric")
    result = _audit(n_search=300, n_samples=1000, random_state=0)
    assert not result.passed, result


@pytest.mark.slow
def test_the_rescan_passes_a_large_audit():
    result = _audit(n_search=2000, n_samples=10000, random_state=1)
    assert result.passed, result
