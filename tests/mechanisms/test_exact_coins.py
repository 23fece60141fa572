"""The exp(-1) coins of the geometric sampler are those of the generic unit Bernoulli.

``_exp_neg_one_coins`` skips the generic sampler's first step (a uniform below 1) and
must draw exactly what ``_bernoulli_exp_neg_unit(np.ones(n), 1, rng)`` draws, leaving
the generator in the same state: the discrete Laplace noise of every mechanism, for a
given seed, depends on it.
"""

import numpy as np
import pytest
from randomgen import AESCounter

from skdp.mechanisms._exact import (
    _bernoulli_exp_neg_unit,
    _exp_neg_one_coins,
    _geometric_exp_neg_one,
)


def _generators(seed):
    makers = (
        np.random.default_rng,
        lambda s: np.random.Generator(AESCounter(key=s)),
        lambda s: np.random.Generator(np.random.MT19937(s)),
    )
    return [(make(seed), make(seed)) for make in makers]


@pytest.mark.parametrize("size", [0, 1, 7, 2000])
def test_exp_neg_one_coins_draw_what_the_unit_sampler_draws(size):
    for seed in range(5):
        for first, second in _generators(seed):
            coins = _exp_neg_one_coins(size, first)
            expected = _bernoulli_exp_neg_unit(np.ones(size, dtype=np.int64), 1, second)
            assert coins.dtype == bool and np.array_equal(coins, expected)
            assert np.array_equal(first.integers(0, 2**62, 4), second.integers(0, 2**62, 4))


def test_exp_neg_one_coins_have_the_law_of_exp_minus_one():
    coins = _exp_neg_one_coins(400_000, np.random.default_rng(0))
    assert abs(coins.mean() - np.exp(-1)) < 4 * np.sqrt(np.exp(-1) * (1 - np.exp(-1)) / 4e5)


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_geometric_counts_heads_before_the_first_tail_whatever_the_batch(batch):
    # P[count = k] = exp(-k) (1 - exp(-1)): the same law for every coins-per-pass
    counts = _geometric_exp_neg_one(300_000, np.random.default_rng(batch), batch=batch)
    for k in range(4):
        expected = np.exp(-k) * (1 - np.exp(-1))
        assert abs(np.mean(counts == k) - expected) < 4 * np.sqrt(expected / 3e5)
