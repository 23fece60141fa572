"""Private bounds estimation."""

import numpy as np
import pytest

from skdp import PrivacyLedger
from skdp.utils._bounds import estimate_bounds


def test_bounds_cover_the_bulk_of_the_data():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(50, 10, 5000), rng.uniform(-3, -1, 5000)])
    lower, upper = estimate_bounds(X, epsilon=1.0, random_state=1)
    assert np.mean((X >= lower) & (X <= upper)) > 0.99
    assert lower[0] >= 0 and upper[0] <= 256, "no wider than a factor of ~2 beyond the data"
    assert lower[1] == -4 and upper[1] == -1


def test_bounds_spend_exactly_epsilon_in_one_call():
    with PrivacyLedger() as ledger:
        estimate_bounds(np.ones((500, 4)), epsilon=0.3, random_state=0)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("geometric", 0.3)]


def test_bounds_are_edges_of_the_public_grid():
    X = np.random.default_rng(0).uniform(3, 7, 2000)
    lower, upper = estimate_bounds(X, epsilon=1.0, random_state=0)
    for edge in (lower[0], upper[0]):
        assert np.log2(abs(edge)) == round(np.log2(abs(edge)))


def test_too_few_records_is_a_clear_error():
    with pytest.raises(ValueError, match="Pass public bounds"):
        estimate_bounds(np.ones(10), epsilon=0.1, random_state=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": 1, "failure_probability": 1.5}, "failure_probability"),
        ({"epsilon": 1, "min_exponent": 5, "max_exponent": 2}, "min_exponent"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        estimate_bounds(np.ones(100), **kwargs)


def test_non_finite_data_is_refused():
    with pytest.raises(ValueError, match="finite"):
        estimate_bounds(np.array([1.0, np.nan]), epsilon=1.0)
