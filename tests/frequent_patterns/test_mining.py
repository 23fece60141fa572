"""The exact miners against brute-force enumeration, and the shared helpers."""

import math
from itertools import combinations

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings

from skdp.accounting import PrivacyLedger
from skdp.frequent_patterns._mining import (
    check_transactions,
    frequent_itemsets_exact,
    mine_levels,
    n_itemsets,
    select_without_replacement,
    supports,
    top_itemsets,
)

matrices = hnp.arrays(
    bool, st.tuples(st.integers(1, 60), st.integers(1, 7)), elements=st.booleans()
)


def brute_force(X, max_length):
    """Support of every itemset of length 1..max_length, by enumeration."""
    X = np.asarray(X, dtype=bool)
    return {
        itemset: int(X[:, list(itemset)].all(axis=1).sum())
        for length in range(1, max_length + 1)
        for itemset in combinations(range(X.shape[1]), length)
    }


@settings(max_examples=150, deadline=None)
@given(
    X=matrices,
    min_support=st.integers(1, 6),
    max_length=st.integers(1, 7),
    counting=st.sampled_from(["auto", "bitsets", "groups"]),
)
def test_mine_levels_matches_brute_force(X, min_support, max_length, counting):
    max_length = min(max_length, X.shape[1])
    expected = {s: v for s, v in brute_force(X, max_length).items() if v >= min_support}
    levels = mine_levels(check_transactions(X), min_support, max_length, counting=counting)
    found = {}
    for length, (level, support) in enumerate(levels, start=1):
        rows = [tuple(row) for row in level.tolist()]
        assert level.shape[1] == length
        assert rows == sorted(rows), "each level is in lexicographic order"
        found.update(zip(rows, support.tolist(), strict=True))
    assert found == expected


@settings(max_examples=60, deadline=None)
@given(X=matrices, min_support=st.integers(1, 4))
def test_frequent_itemsets_exact_on_sparse_input(X, min_support):
    itemsets, support = frequent_itemsets_exact(sp.csr_matrix(X), min_support)
    expected = {s: v for s, v in brute_force(X, X.shape[1]).items() if v >= min_support}
    assert dict(zip(itemsets, support.tolist(), strict=True)) == expected
    assert len(itemsets) == len(expected) and support.dtype == np.int64
    assert [len(s) for s in itemsets] == sorted(len(s) for s in itemsets)


def test_both_counting_strategies_on_a_denser_larger_sample():
    rng = np.random.default_rng(3)
    X = rng.random((3000, 12)) < np.linspace(0.2, 0.7, 12)
    expected = {s: v for s, v in brute_force(X, 5).items() if v >= 150}
    for counting in ("bitsets", "groups"):
        levels = mine_levels(check_transactions(X), 150, 5, counting=counting)
        found = {
            tuple(r): v for lv, s in levels for r, v in zip(lv.tolist(), s.tolist(), strict=True)
        }
        assert found == expected
    assert max(len(s) for s in expected) == 5


@settings(max_examples=150, deadline=None)
@given(X=matrices, n=st.integers(1, 40), max_length=st.none() | st.integers(1, 7))
def test_top_itemsets_matches_brute_force(X, n, max_length):
    length = X.shape[1] if max_length is None else min(max_length, X.shape[1])
    occurring = [(s, v) for s, v in brute_force(X, length).items() if v > 0]
    expected = sorted(occurring, key=lambda sv: (-sv[1], sv[0]))[:n]
    itemsets, support = top_itemsets(X, n, max_length)
    assert list(zip(itemsets, support.tolist(), strict=True)) == expected


@settings(max_examples=60, deadline=None)
@given(X=matrices, data=st.data())
def test_supports_matches_brute_force(X, data):
    table = brute_force(X, X.shape[1])
    itemsets = data.draw(st.lists(st.sampled_from(sorted(table)), max_size=8))
    assert supports(X, itemsets).tolist() == [table[s] for s in itemsets]
    assert supports(X, [()]).tolist() == [X.shape[0]]


def test_the_pattern_cap_raises_and_names_the_remedy():
    X = np.ones((5, 10), dtype=bool)  # every one of the 1023 itemsets has support 5
    with pytest.raises(ValueError, match="raise min_support or lower max_length"):
        frequent_itemsets_exact(X, 1, max_patterns=1000)
    itemsets, _ = frequent_itemsets_exact(X, 1, max_patterns=1023)
    assert len(itemsets) == 1023
    with pytest.raises(ValueError, match="min_support must be at least 1"):
        frequent_itemsets_exact(X, 0)


def test_n_itemsets_is_exact_for_huge_domains():
    assert n_itemsets(16470, 5) == sum(math.comb(16470, j) for j in range(1, 6))
    assert n_itemsets(16470, 5) > 2**63
    assert n_itemsets(3, 10) == 7


def test_check_transactions_canonicalises_and_rejects_non_binary_values():
    duplicated = sp.coo_matrix(([True] * 3, ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    X = check_transactions(duplicated)
    assert X.dtype == bool and X.toarray().tolist() == [[False, True], [True, False]]
    with pytest.raises(ValueError, match="only 0/1"):  # integer duplicates add up to 2
        check_transactions(sp.coo_matrix(([1, 1], ([0, 0], [1, 1])), shape=(1, 2)))
    explicit_zero = sp.csr_matrix((np.array([1, 0]), np.array([0, 1]), np.array([0, 2])))
    assert check_transactions(explicit_zero).nnz == 1
    with pytest.raises(ValueError, match="only 0/1"):
        check_transactions(np.array([[0, 2]]))
    with pytest.raises(ValueError, match="2-dimensional"):
        check_transactions(np.array([1, 0]))


def test_select_without_replacement_spends_each_round_and_never_repeats():
    scores = np.array([5.0, 50.0, 7.0, 40.0, 1.0])
    with PrivacyLedger() as ledger:
        picks = select_without_replacement(scores, 4, epsilon=1e4, rng=np.random.default_rng(0))
    assert picks.tolist() == [1, 3, 2, 0]  # at negligible noise: by decreasing score
    assert [e.epsilon for e in ledger.entries] == [1e4] * 4
    picks = select_without_replacement(scores, 5, epsilon=0.01, rng=np.random.default_rng(1))
    assert sorted(picks.tolist()) == list(range(5))
    with pytest.raises(ValueError, match="cannot select 6 of 5"):
        select_without_replacement(scores, 6, epsilon=1.0, rng=np.random.default_rng(0))
