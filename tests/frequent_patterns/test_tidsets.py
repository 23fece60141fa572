"""Packed tidsets: the dense counting path gives the exact counts of the sparse one."""

from itertools import combinations

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings

from skdp.frequent_patterns import _bitmask, _tidsets
from skdp.frequent_patterns._bitmask import mask_counts, pack_transactions, superset_differences
from skdp.frequent_patterns._counts import TransactionCounts
from skdp.frequent_patterns._tidsets import MAX_TIDSET_ITEMS, Tidsets, prepare_counts
from skdp.frequent_patterns._transactions import Transactions, incidence

# row counts around the byte and word edges of the packing
matrices = hnp.arrays(
    bool,
    st.tuples(st.sampled_from([1, 7, 8, 9, 63, 64, 65, 130]), st.integers(1, 9)),
    elements=st.booleans(),
)


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few words, so that small data crosses every block edge."""
    monkeypatch.setattr(_tidsets, "_PACK_ROWS", 64)
    monkeypatch.setattr(_tidsets, "_PACK_GROUPS", 3)
    monkeypatch.setattr(_tidsets, "_BLOCK_WORDS", 2)
    monkeypatch.setattr(_tidsets, "_SUBSET_BYTES", 16)
    monkeypatch.setattr(_tidsets, "_CHUNK_BYTES", 64)
    monkeypatch.setattr(_tidsets, "_CODE_BYTES", 8)


@settings(max_examples=25, deadline=None)
@given(X=matrices, data=st.data())
def test_tidset_counts_match_brute_force(X, data):
    tidsets = Tidsets(X)
    q = X.shape[1]
    np.testing.assert_array_equal(tidsets.item_supports(), X.sum(axis=0))
    length = data.draw(st.integers(1, q))
    itemsets = np.array(data.draw(st.lists(st.permutations(range(q)), min_size=1, max_size=6)))
    itemsets = itemsets[:, :length]
    expected = [X[:, row].all(axis=1).sum() for row in itemsets]
    np.testing.assert_array_equal(tidsets.supports(itemsets), expected)
    held = np.column_stack([X[:, row].all(axis=1) for row in itemsets])
    np.testing.assert_array_equal(tidsets.contains([tuple(row) for row in itemsets]), held)
    basis = data.draw(st.permutations(range(q)))[: data.draw(st.integers(1, q))]
    np.testing.assert_array_equal(
        tidsets.bins(basis), mask_counts(pack_transactions(X, basis), len(basis))
    )
    pairs = tidsets.pair_supports(basis)
    expected = np.triu(X[:, basis].T.astype(int) @ X[:, basis].astype(int), k=1)
    np.testing.assert_array_equal(pairs, expected)


def _packbits_tidsets(X):
    """The tidsets as numpy's own packbits lays them out (the reference)."""
    n_words = max(1, -(-X.shape[0] // 64))
    packed = np.zeros((X.shape[1], 8 * n_words), dtype=np.uint8)
    packed[:, : -(-X.shape[0] // 8)] = np.packbits(X.T, axis=1, bitorder="little")
    return packed.view("<u8")


@pytest.mark.parametrize("n", [8, 9, 71, 200, 519])
@pytest.mark.parametrize(("q", "word"), [(8, "u8"), (24, "u8"), (12, "u4"), (5, None)])
def test_row_group_packing_matches_packbits(small_blocks, n, q, word):
    # C-ordered booleans over 8 k (or 4 k) items are packed 8 rows at a time from words;
    # blocks of 3 groups and a tail of n % 8 rows cross every edge of that path
    X = np.random.default_rng(n + q).random((n, q)) < 0.4
    assert _tidsets._row_word(X) == (None if word is None else np.dtype(word))
    np.testing.assert_array_equal(Tidsets(X).words, _packbits_tidsets(X))
    # the transposing path: Fortran order, fewer than 8 rows
    assert _tidsets._row_word(np.asfortranarray(X)) is None
    np.testing.assert_array_equal(Tidsets(np.asfortranarray(X)).words, _packbits_tidsets(X))
    np.testing.assert_array_equal(Tidsets(X[:7]).words, _packbits_tidsets(X[:7]))


@pytest.mark.parametrize("size", [0, 1, 2, 5, 7, 8, 10])
def test_bins_from_subset_supports_and_from_codes_agree(small_blocks, size):
    # bases of <= _SUBSET_BASIS items: Möbius inversion of the subset supports; longer
    # ones: a bincount of the row codes (both with word blocks of 2 here)
    X = np.random.default_rng(size).random((517, 12)) < np.linspace(0.8, 0.2, 12)
    basis = list(np.random.default_rng(size).permutation(12)[:size])
    tidsets = Tidsets(X)
    expected = mask_counts(pack_transactions(X, basis), size)
    np.testing.assert_array_equal(tidsets.bins(basis), expected)
    np.testing.assert_array_equal(tidsets._coded_bins(basis), expected)
    np.testing.assert_array_equal(superset_differences(tidsets._subset_supports(basis)), expected)
    assert tidsets.bins(basis).sum() == 517


def test_dense_and_sparse_input_give_the_same_counts(small_blocks):
    rng = np.random.default_rng(1)
    X = rng.random((301, 20)) < np.linspace(0.7, 0.1, 20)
    dense, sparse = TransactionCounts(X), TransactionCounts(sp.csr_matrix(X))
    assert isinstance(dense.X, Tidsets) and sp.issparse(sparse.X)
    np.testing.assert_array_equal(dense.item_supports(), sparse.item_supports())
    assert dense.n_transactions == sparse.n_transactions == 301
    assert dense.nth_support(20) == sparse.nth_support(20) > 0
    for (a, s), (b, t) in zip(dense.mine_levels(25), sparse.mine_levels(25), strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(s, t)
    # a basis of 17 items codes the rows on 32 bits
    bases = [tuple(range(17)), (3, 18), (19,)]
    np.testing.assert_array_equal(dense.basis_bins(bases), sparse.basis_bins(bases))
    itemsets = [(0, 1, 2), (5,), (), (4, 19)]
    np.testing.assert_array_equal(dense.supports(itemsets), sparse.supports(itemsets))


@pytest.mark.parametrize("sparse", [False, True])
def test_pair_supports_are_counted_once_and_read_back(monkeypatch, sparse):
    rng = np.random.default_rng(5)
    X = rng.random((700, 12)) < np.linspace(0.8, 0.1, 12)
    counts = TransactionCounts(sp.csr_matrix(X) if sparse else X)
    passes = []
    count_pass = counts._pass
    monkeypatch.setattr(
        counts, "_pass", lambda name, **q: passes.append(q) or count_pass(name, **q)
    )
    brute = X.T.astype(int) @ X.astype(int)
    first = counts.pair_supports([1, 4, 7])
    np.testing.assert_array_equal(first, np.triu(brute[np.ix_([1, 4, 7], [1, 4, 7])], k=1))
    second = counts.pair_supports([0, 4, 7, 9])  # (4, 7) is known: 5 new pairs counted
    np.testing.assert_array_equal(second, np.triu(brute[np.ix_([0, 4, 7, 9], [0, 4, 7, 9])], k=1))
    assert [len(q["pairs"]) for q in passes] == [3, 5]
    values = counts.pair_support_values([7, 4, 1])  # all known: no pass
    np.testing.assert_array_equal(values, [brute[7, 4], brute[7, 1], brute[4, 1]])
    assert len(passes) == 2
    # the n-th largest support over a growing prefix of items: brute force over
    # every itemset of <= 3 items, and the same with the prefix starting at all items
    supports = sorted(
        [int(s) for s in X.sum(axis=0)]
        + [int(brute[a, b]) for a in range(12) for b in range(a + 1, 12)]
        + [int((X[:, a] & X[:, b] & X[:, c]).sum()) for a, b, c in combinations(range(12), 3)],
        reverse=True,
    )
    for n in (1, 5, 22, 60):
        expected = supports[n - 1]
        assert TransactionCounts(X).nth_support(n, 3) == expected
        assert TransactionCounts(sp.csr_matrix(X)).nth_support(n, 3) == expected


def test_pair_supports_over_many_items_stay_sparse():
    X = sp.random(300, MAX_TIDSET_ITEMS + 4, density=0.05, format="csr", random_state=0) > 0
    counts = TransactionCounts(X)
    assert counts._pairs is None
    columns = [0, 5, MAX_TIDSET_ITEMS + 2]
    pairs = counts.pair_supports(columns)
    assert sp.issparse(pairs)
    dense = X[:, columns].toarray().astype(int)
    np.testing.assert_array_equal(pairs.toarray(), np.triu(dense.T @ dense, k=1))
    np.testing.assert_array_equal(
        counts.pair_support_values(columns), (dense.T @ dense)[[0, 0, 1], [1, 2, 2]]
    )


def test_dense_input_over_few_items_is_packed_and_many_items_stay_sparse():
    X = np.eye(5, MAX_TIDSET_ITEMS + 1, dtype=bool)
    assert sp.issparse(prepare_counts(X))
    assert isinstance(prepare_counts(X[:, :MAX_TIDSET_ITEMS]), Tidsets)
    assert sp.issparse(prepare_counts(sp.csr_matrix(X[:, :3])))
    transactions = Transactions(np.array([2, 0]), 0.0, itemsets=[(0,), (0, 1)])
    np.testing.assert_array_equal(
        transactions.contains(X.astype(float)), transactions.contains(sp.csr_matrix(X))
    )
    packed = transactions.items(X.astype(float))
    assert isinstance(packed, Tidsets) and packed.shape == (5, 2)
    np.testing.assert_array_equal(packed.item_supports(), [1, 1])
    # one bit per transaction and item: an eighth of the boolean matrix
    assert Tidsets(np.ones((6400, 40), dtype=bool)).words.nbytes == 6400 * 40 // 8


def test_tidsets_refuse_what_the_sparse_path_refuses():
    with pytest.raises(ValueError, match="only 0/1 or boolean"):
        Tidsets(np.array([[0, 2]]))
    with pytest.raises(ValueError, match="at least one item column"):
        TransactionCounts(np.zeros((3, 0), dtype=bool))


def test_booleans_are_read_as_they_are_without_a_copy():
    X = np.array([[True, False], [False, True]])
    assert incidence(X, 0.0) is X
    assert incidence(X, 0.5) is X
    assert not incidence(X, 1.0).any()
    assert incidence(X, -0.5).all()


def test_tidset_counts_without_numpy_2_popcount(monkeypatch):
    # numpy 1 has no np.bitwise_count: the byte-table popcount gives the same counts
    X = np.random.default_rng(3).random((1000, 12)) < 0.3
    itemsets = np.array([[0, 1], [2, 5], [3, 11], [4, 7]])
    fast = Tidsets(X)
    expected = (fast.item_supports(), fast.supports(itemsets), fast.bins([0, 3, 5, 7]))
    monkeypatch.setattr(_bitmask, "_HAS_BITWISE_COUNT", False)
    slow = Tidsets(X)
    np.testing.assert_array_equal(
        slow.bins([0, 3, 5, 7]), mask_counts(pack_transactions(X, [0, 3, 5, 7]), 4)
    )
    np.testing.assert_array_equal(slow.bins([0, 3, 5, 7]), expected[2])
    np.testing.assert_array_equal(slow.item_supports(), X.sum(axis=0))
    np.testing.assert_array_equal(slow.supports(itemsets), X[:, itemsets].all(axis=2).sum(axis=0))
    np.testing.assert_array_equal(slow.item_supports(), expected[0])
    np.testing.assert_array_equal(slow.supports(itemsets), expected[1])
