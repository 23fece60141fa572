"""centred_sums(count=...): counts released earlier are reused, not released again."""

import numpy as np
import pytest

from skdp import PrivacyLedger
from skdp.utils._centred_sums import centred_sums

RNG = np.random.default_rng(0)
X = RNG.uniform(0, 10, size=(300, 2))
GROUPS = (np.arange(300) % 3).astype(np.int64)


def test_given_counts_are_reused_and_cost_nothing():
    given = np.array([150, 90, -4])
    with PrivacyLedger() as ledger:
        out = centred_sums(
            X, 0.0, 10.0, groups=GROUPS, n_groups=3, count=given, epsilon_sums=0.3,
            epsilon_squares=0.3, random_state=0,
        )  # fmt: skip
    assert ledger.total.epsilon == pytest.approx(0.6, rel=1e-12)
    assert [entry.mechanism for entry in ledger.entries] == ["laplace", "laplace"]
    np.testing.assert_array_equal(out.count, given)
    np.testing.assert_array_equal(out.n, [150.0, 90.0, 1.0])
    # the means divide the noisy sums by the given counts
    np.testing.assert_allclose(out.mean, 5.0 + np.clip(out.sums / out.n[:, None], -5, 5))


@pytest.mark.parametrize(
    "kwargs",
    [{"epsilon_count": 0.2, "count": np.array([1, 2, 3])}, {}],
)
def test_exactly_one_of_count_and_epsilon_count(kwargs):
    with pytest.raises(ValueError, match="exactly one"):
        centred_sums(X, 0.0, 10.0, groups=GROUPS, n_groups=3, epsilon_sums=0.3, **kwargs)


@pytest.mark.parametrize("count", [np.array([1, 2]), np.array([1.5, 2.0, 3.0])])
def test_given_counts_must_be_one_integer_per_group(count):
    with pytest.raises(ValueError, match="released integer counts"):
        centred_sums(X, 0.0, 10.0, groups=GROUPS, n_groups=3, epsilon_sums=0.3, count=count)
