"""TF (tf_top_k): budget, exactness at negligible noise, the block sampler, guards."""

import math
from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp

import skdp.frequent_patterns._tf as tf_module
from skdp.accounting import PrivacyLedger
from skdp.datasets import fetch_fimi
from skdp.frequent_patterns._mining import (
    check_transactions,
    mine_levels,
    n_itemsets,
    supports,
    top_itemsets,
)
from skdp.frequent_patterns._tf import _Block, _colex_ranks, _colex_unrank, _em_units, tf_top_k
from skdp.mechanisms._selection import _grid_scores, _weights_exponent


def planted(seed=74, n_items=10, n_types=300):
    """Transactions of 300 random types (1-5 items) repeated 1-39 times each.

    With seed 74 the supports of the top 31 itemsets are distinct for every
    max_length used below (checked by test_planted_data_has_a_unique_top_k).
    """
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n_types):
        row = np.zeros(n_items, dtype=bool)
        row[rng.choice(n_items, rng.integers(1, 6), replace=False)] = True
        rows += [row] * int(rng.integers(1, 40))
    return sp.csr_matrix(np.array(rows))


X_PLANTED = planted()


def fetch_or_skip(name):
    try:
        return fetch_fimi(name, download_if_missing=False).data
    except OSError as exc:
        pytest.skip(f"FIMI {name} is not in the data home (set SKDP_DATA_HOME): {exc}")


@pytest.mark.parametrize("max_length", [2, 3, 4, None])
def test_planted_data_has_a_unique_top_k(max_length):
    _, top = top_itemsets(X_PLANTED, 31, max_length)
    assert len(set(top.tolist())) == 31


@pytest.mark.parametrize(("k", "epsilon"), [(1, 0.1), (5, 0.5), (10, 1.0), (20, 3.0), (7, 1e6)])
def test_ledger_sees_exactly_epsilon(k, epsilon):
    with PrivacyLedger() as ledger:
        itemsets, noisy = tf_top_k(
            X_PLANTED, k=k, max_length=3, epsilon=epsilon, rng=np.random.default_rng(k)
        )
    assert ledger.total.epsilon == epsilon
    names = [entry.mechanism for entry in ledger.entries]
    assert names == ["exponential"] * k + ["geometric"]
    assert all(entry.epsilon == epsilon / (2 * k) for entry in ledger.entries[:-1])
    assert ledger.entries[-1].epsilon == pytest.approx(epsilon / 2, rel=1e-12)
    assert len(itemsets) == len(set(itemsets)) == k and noisy.dtype == np.int64
    assert all(1 <= len(s) <= 3 and list(s) == sorted(s) for s in itemsets)
    assert np.all(np.diff(noisy) <= 0)


def test_rounds_are_capped_and_the_rest_goes_to_phase_two():
    with PrivacyLedger() as ledger:
        itemsets, noisy = tf_top_k(
            X_PLANTED, k=3, max_length=2, epsilon=1e9, rng=np.random.default_rng(0)
        )
    assert ledger.total.epsilon == 1e9
    assert [e.epsilon for e in ledger.entries[:-1]] == [tf_module.MAX_ROUND_EPSILON] * 3
    expected, expected_support = top_itemsets(X_PLANTED, 3, 2)
    assert itemsets == expected and noisy.tolist() == expected_support.tolist()


@pytest.mark.parametrize("max_length", [2, 3, 4])
@pytest.mark.parametrize("k", [5, 10, 30])
def test_negligible_noise_gives_the_exact_top_k(k, max_length):
    expected, expected_support = top_itemsets(X_PLANTED, k, max_length)
    itemsets, noisy = tf_top_k(
        X_PLANTED, k=k, max_length=max_length, epsilon=1e6, rng=np.random.default_rng(0)
    )
    assert itemsets == expected
    assert noisy.tolist() == expected_support.tolist()


def test_negligible_noise_gives_the_exact_top_50_of_mushroom():
    X = fetch_or_skip("mushroom")
    expected, expected_support = top_itemsets(X, 51, 4)
    assert expected_support[49] > expected_support[50], "no tie at the boundary"
    itemsets, noisy = tf_top_k(
        X, k=50, max_length=4, epsilon=1e6, rng=np.random.default_rng(0), min_support=4000
    )
    assert set(itemsets) == set(expected[:50])
    assert noisy.tolist() == expected_support[:50].tolist()  # ties inside: same multiset
    assert supports(X, itemsets).tolist() == noisy.tolist()


def test_seeded_runs_reproduce():
    runs = [
        tf_top_k(X_PLANTED, k=8, max_length=3, epsilon=0.5, rng=np.random.default_rng(seed))
        for seed in (11, 11, 12)
    ]
    assert runs[0][0] == runs[1][0] and runs[0][1].tolist() == runs[1][1].tolist()
    assert (runs[0][0], runs[0][1].tolist()) != (runs[2][0], runs[2][1].tolist())


def test_the_block_wins_and_yields_valid_unmined_patterns():
    """At small epsilon the block (thousands of unmined patterns) outweighs the few mined
    ones: the chosen patterns are then uniform draws of the unmined set."""
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.random((300, 30)) < 0.1)
    min_support = 40  # only a few single items are mined
    mined = mine_levels(check_transactions(X), min_support, 3)
    mined = {tuple(row) for level, _ in mined for row in level.tolist()}
    assert 0 < len(mined) < 10
    with PrivacyLedger() as ledger:
        itemsets, _ = tf_top_k(
            X, k=6, max_length=3, epsilon=0.05, rng=rng, min_support=min_support
        )
    assert ledger.total.epsilon == 0.05
    unmined = [s for s in itemsets if s not in mined]
    assert len(unmined) >= 5, itemsets
    assert len(set(itemsets)) == 6
    for itemset in unmined:
        assert 1 <= len(itemset) <= 3 and list(itemset) == sorted(set(itemset))
        assert all(0 <= item < 30 for item in itemset)
    assert np.all(supports(X, unmined) < min_support)


def test_with_nothing_mined_every_pattern_comes_from_the_block():
    X = sp.csr_matrix(np.random.default_rng(1).random((20, 12)) < 0.3)
    itemsets, _ = tf_top_k(
        X, k=40, max_length=2, epsilon=1.0, rng=np.random.default_rng(2), min_support=21
    )
    assert len(set(itemsets)) == 40
    assert all(1 <= len(s) <= 2 and list(s) == sorted(set(s)) for s in itemsets)


@pytest.mark.parametrize("ranked", [True, False], ids=["exact-ranks", "rejection"])
def test_block_draws_exactly_the_unmined_patterns(monkeypatch, ranked):
    if not ranked:
        monkeypatch.setattr(tf_module, "_RANKED_LEVEL", 0)
    X = check_transactions(np.random.default_rng(3).random((40, 7)) < 0.4)
    levels = mine_levels(X, 6, 3)
    mined = {tuple(row) for level, _ in levels for row in level.tolist()}
    domain = {s for j in (1, 2, 3) for s in combinations(range(7), j)}
    block = _Block(levels, 7, 3)
    assert block.size == n_itemsets(7, 3) - len(mined) == len(domain - mined)
    rng = np.random.default_rng(4)
    drawn = [block.draw(rng) for _ in range(len(domain - mined))]
    assert sorted(drawn) == sorted(domain - mined)
    assert block.size == 0


def test_block_draws_are_uniform():
    X = check_transactions(np.random.default_rng(5).random((30, 6)) < 0.5)
    levels = mine_levels(X, 8, 2)
    rng = np.random.default_rng(6)
    first = [_Block(levels, 6, 2).draw(rng) for _ in range(6000)]
    values, counts = np.unique(np.array([str(s) for s in first]), return_counts=True)
    expected = 6000 / len(values)
    assert len(values) == _Block(levels, 6, 2).size
    chi_square = ((counts - expected) ** 2 / expected).sum()
    assert chi_square < len(values) + 6 * math.sqrt(2 * len(values))  # ~ 4 sigma


def test_colex_rank_and_unrank_are_inverse_bijections():
    level = np.array(list(combinations(range(9), 4)))
    ranks = _colex_ranks(level, 9)
    assert sorted(ranks.tolist()) == list(range(math.comb(9, 4)))
    assert all(
        _colex_unrank(int(r), 4, 9) == tuple(row) for r, row in zip(ranks, level, strict=True)
    )


@pytest.mark.parametrize("epsilon", [1e-9, 1e-3, 0.05, 1.0, 1e4, tf_module.MAX_ROUND_EPSILON])
@pytest.mark.parametrize("n_block", [2, 1000, 10**15, 3**50])
def test_the_block_candidate_weighs_as_much_as_its_patterns(epsilon, n_block):
    """The mechanism's weight ratio of the block to one pattern of the same score is
    n_block, up to the rounding of one grid unit (n_block <= e^56: inside the window)."""
    sensitivity, rate = _em_units(epsilon)
    scores = np.array([3.25, 3.25 + math.log(n_block) / rate])
    index, units = _grid_scores(scores, sensitivity, epsilon)
    exponent, denominator = _weights_exponent(index, units, epsilon, True)
    log_ratio = (int(exponent[0]) - int(exponent[1])) / denominator
    one_unit = rate * float(sensitivity / (units - 1))
    assert abs(log_ratio - math.log(n_block)) <= one_unit * 1.01
    assert 1.0 < sensitivity <= 1.0 + 8.0 * float(sensitivity / (units - 1))
    assert rate <= epsilon and one_unit < 0.13


def test_too_many_mined_patterns_raise_instead_of_changing_the_algorithm():
    X = np.ones((6, 14), dtype=bool)  # every itemset has support 6
    with pytest.raises(ValueError, match="raise min_support or lower max_length"):
        tf_top_k(X, k=3, max_length=6, epsilon=1.0, rng=np.random.default_rng(0),
                 max_patterns=5000)  # fmt: skip
    itemsets, _ = tf_top_k(
        X, k=3, max_length=6, epsilon=1.0, rng=np.random.default_rng(0), min_support=7
    )
    assert len(itemsets) == 3


def test_bad_arguments_are_refused():
    X = X_PLANTED
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="exceeds the 10 itemsets"):
        tf_top_k(X, k=11, max_length=1, epsilon=1.0, rng=rng)
    wide = sp.csr_matrix((3, 2000), dtype=bool)
    with pytest.raises(ValueError, match="lower max_length"):
        tf_top_k(wide, k=1, max_length=40, epsilon=1.0, rng=rng)
    for bad in ({"k": 0}, {"max_length": 0}, {"min_support": 0}, {"epsilon": -1.0},
                {"epsilon": math.inf}, {"rho": 1.0}, {"k": 2.5}):  # fmt: skip
        arguments = {"k": 2, "max_length": 2, "epsilon": 1.0, **bad}
        with pytest.raises(ValueError):
            tf_top_k(X, rng=rng, **arguments)
    with PrivacyLedger() as ledger, pytest.raises(ValueError):
        tf_top_k(X, k=2, max_length=2, epsilon=1.0, rng=rng, rho=0.0)
    assert ledger.total.epsilon == 0, "nothing is spent on refused arguments"
