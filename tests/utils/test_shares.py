"""Budget shares that a ledger adds up to exactly ``epsilon``."""

import math

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings
from sklearn.datasets import load_iris

from skdp.decomposition import PCA
from skdp.linear_model import FunctionalMechanismRegressor
from skdp.naive_bayes import GaussianNB
from skdp.svm import PrivateSVM
from skdp.utils.validation import closing_share, split_budget


@settings(max_examples=300)
@given(
    epsilon=st.floats(1e-6, 1e6),
    shares=st.lists(st.floats(0.01, 1.0), min_size=1, max_size=40),
)
def test_closing_share_makes_the_float_sum_exact(epsilon, shares):
    parts = [epsilon * 0.5 * s / sum(shares) for s in shares]
    spent = 0.0
    for part in parts:
        spent += part
    last = closing_share(epsilon, spent)
    # exact, or (where no float makes the sum exact) the largest share under epsilon
    if any(spent + s == epsilon for s in _floats_near(last)):
        assert spent + last == epsilon
    else:
        assert spent + last < epsilon < spent + math.nextafter(last, math.inf)
    assert last == pytest.approx(epsilon - math.fsum(parts), rel=1e-9)


def _floats_near(x, k=8):
    """The floats within ``k`` ulps of ``x``."""
    near = [x]
    for direction in (math.inf, -math.inf):
        y = x
        for _ in range(k):
            y = math.nextafter(y, direction)
            near.append(y)
    return near


def test_closing_share_is_the_largest_under_epsilon_where_no_share_is_exact():
    # 0.49999999999999983 + 0.5 rounds to 0.9999999999999998 and + next(0.5) to 1.0:
    # no float closes the sum on 0.9999999999999999 (hypothesis found it)
    epsilon, spent = 0.9999999999999999, 0.49999999999999983
    last = closing_share(epsilon, spent)
    assert last == 0.5 and spent + last < epsilon < spent + math.nextafter(last, 1.0)


@settings(max_examples=300)
@given(
    epsilon=st.floats(1e-6, 1e6),
    shares=st.lists(st.floats(0.01, 1.0), min_size=1, max_size=8),
)
def test_split_budget_parts_add_up_in_order(epsilon, shares):
    parts = split_budget(epsilon, shares)
    spent = 0.0
    for part in parts:
        spent += part
    assert spent <= epsilon
    assert spent == pytest.approx(epsilon, rel=1e-15)
    assert all(p > 0 for p in parts)


def test_split_budget_closes_where_a_plain_difference_overspends():
    assert 0.03 + 0.135 + 0.135 > 0.3
    parts = split_budget(0.3, [0.1, 0.45, 0.45])
    assert parts[0] + parts[1] + parts[2] == 0.3


@pytest.mark.parametrize("bounds", [None, (0.0, 8.0)])
@pytest.mark.parametrize("epsilon", [0.3, 0.7, 2.9])
def test_gaussian_nb_spends_epsilon_to_the_last_bit(epsilon, bounds):
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 8, size=(60, 3))
    y = np.arange(60) % 2
    model = GaussianNB(epsilon=epsilon, bounds=bounds, classes=[0, 1], random_state=0)
    assert model.fit(X, y).privacy_spent_.epsilon == epsilon
    assert math.fsum(model.epsilon_split_.values()) == pytest.approx(epsilon, rel=1e-15)


@pytest.mark.parametrize("epsilon", [1.3, 3.3])
def test_functional_mechanism_spends_epsilon_to_the_last_bit(epsilon):
    X = load_iris().data
    model = FunctionalMechanismRegressor(epsilon=epsilon, random_state=0).fit(X[:, :3], X[:, 3])
    assert model.privacy_spent_.epsilon == epsilon
    assert model.epsilon_split_["moments"] > 0


@pytest.mark.parametrize("epsilon", [0.3, 1.3, 2.9])
def test_pca_and_svm_never_spend_more_than_epsilon(epsilon):
    X = load_iris().data
    y = (X[:, 0] > 5.8).astype(int)
    pca = PCA(2, epsilon=epsilon, random_state=0).fit(X)
    assert pca.privacy_spent_.epsilon == epsilon
    svm = PrivateSVM(epsilon=epsilon, classes=[0, 1], random_state=0).fit(X, y)
    assert epsilon - 1e-15 * epsilon <= svm.privacy_spent_.epsilon <= epsilon
