"""AboveThreshold (skdp.mechanisms.above_threshold)."""

import numpy as np
import pytest

from skdp import PrivacyLedger
from skdp.mechanisms import above_threshold


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
    # P[first query crosses] for a query 10 below the threshold: about half a Laplace tail
    stops = np.array(
        [
            above_threshold([-10], 0, sensitivity=5, epsilon=1.0, random_state=s)
            for s in range(4000)
        ]
    )
    crossed = np.mean(stops == 0)
    # difference of two discrete Laplace(10) variables exceeding 10: about 0.28
    assert 0.24 < crossed < 0.32


def test_charges_epsilon_once_for_the_whole_scan():
    with PrivacyLedger() as ledger:
        above_threshold(np.zeros(300), 1, sensitivity=2, epsilon=0.7, random_state=0)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("above_threshold", 0.7)]


@pytest.mark.parametrize(
    ("queries", "threshold", "match"),
    [
        ([0.5], 0, "integers"),
        ([np.nan], 0, "integers"),
        ([[1, 2]], 0, "1-d"),
        ([1], 0.5, "threshold"),
    ],
)
def test_bad_arguments(queries, threshold, match):
    with pytest.raises(ValueError, match=match):
        above_threshold(queries, threshold, sensitivity=1, epsilon=1.0)
