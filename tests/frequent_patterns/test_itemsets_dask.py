"""DPFrequentItemsets on dask collections: the numpy model, without loading the data."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from skdp.frequent_patterns import DPFrequentItemsets
from skdp.frequent_patterns._counts import TransactionCounts
from skdp.frequent_patterns._transactions import Transactions

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")

TDPS = ["tdps-bins", "tdps-signal", "tdps-measurement", "tdps-omp"]
MINING = ["tf", "privbasis"]


@pytest.fixture(scope="module")
def transactions():
    rng = np.random.default_rng(0)
    return rng.random((3000, 6)) < [0.6, 0.5, 0.4, 0.1, 0.05, 0.02]


@pytest.mark.parametrize("method", TDPS)
def test_dask_fit_gives_the_numpy_model(dask_client, transactions, method):
    params = {
        "epsilon": 1.0,
        "top_k": 5,
        "method": method,
        "max_transaction_length": 4,
        "n_measurements": 40,
        "sparsity": 6,
        "random_state": 0,
    }
    local = DPFrequentItemsets(**params).fit(transactions)
    remote = DPFrequentItemsets(**params).fit(da.from_array(transactions, chunks=(700, 6)))
    _assert_same_model(remote, local)


def test_dask_binarize_gives_the_numpy_model(dask_client, transactions):
    values = np.where(transactions, 3.0, 0.25)
    params = {"epsilon": 1.0, "top_k": 4, "binarize": 1.0, "random_state": 1}
    local = DPFrequentItemsets(**params).fit(values)
    remote = DPFrequentItemsets(**params).fit(da.from_array(values, chunks=(1000, 6)))
    pd.testing.assert_frame_equal(remote.frequent_itemsets_, local.frequent_itemsets_)
    assert local.frequent_itemsets_["itemsets"].iloc[0] == frozenset({0})


def test_dask_dataframe_items_and_transform(dask_client, transactions):
    frame = pd.DataFrame(transactions, columns=list("abcdef"))
    params = {"epsilon": 1.0, "top_k": 4, "items": ["c", "a", "b"], "random_state": 0}
    local = DPFrequentItemsets(**params).fit(frame)
    remote = DPFrequentItemsets(**params).fit(dd.from_pandas(frame, npartitions=3))
    assert list(remote.feature_names_in_) == list("abcdef")
    assert remote.items_ == ["c", "a", "b"]
    pd.testing.assert_frame_equal(remote.frequent_itemsets_, local.frequent_itemsets_)
    lazy = remote.transform(dd.from_pandas(frame, npartitions=4))
    assert isinstance(lazy, da.Array) and lazy.dtype == bool
    np.testing.assert_array_equal(lazy.compute(), local.transform(frame))
    np.testing.assert_array_equal(
        remote.transform(da.from_array(transactions.astype(int), chunks=800)).compute(),
        local.transform(frame),
    )


@pytest.fixture(scope="module")
def wide():
    rng = np.random.default_rng(3)
    return rng.random((2500, 30)) < np.linspace(0.55, 0.01, 30)


@pytest.mark.parametrize("method", MINING)
@pytest.mark.parametrize(("epsilon", "top_k"), [(1.0, 4), (0.02, 30), (0.5, 30), (20.0, 40)])
def test_dask_mining_gives_the_numpy_model(dask_client, wide, method, epsilon, top_k):
    # top_k 30 and 40: PrivBasis selects pairs and builds several bases; epsilon 0.02:
    # TF draws patterns from the block of unmined ones (counted after the rounds)
    params = {"epsilon": epsilon, "top_k": top_k, "method": method, "random_state": 2}
    local = DPFrequentItemsets(**params).fit(wide)
    remote = DPFrequentItemsets(**params).fit(da.from_array(wide, chunks=(600, 30)))
    _assert_same_model(remote, local)


@pytest.mark.parametrize("method", MINING)
def test_dask_mining_dataframe_items_binarize(dask_client, wide, method):
    frame = pd.DataFrame(np.where(wide, 2.0, 0.5), columns=[f"i{j}" for j in range(30)])
    items = [f"i{j}" for j in (5, 0, 2, 1, 7, 3, 11, 4, 9)]
    params = {"top_k": 6, "method": method, "items": items, "binarize": 1.0, "random_state": 4}
    local = DPFrequentItemsets(**params).fit(frame)
    remote = DPFrequentItemsets(**params).fit(dd.from_pandas(frame, npartitions=3))
    assert remote.items_ == items
    pd.testing.assert_frame_equal(remote.frequent_itemsets_, local.frequent_itemsets_)
    np.testing.assert_array_equal(remote.transform(frame), local.transform(frame))


def test_transaction_counts_on_dask_equal_the_in_memory_ones(wide):
    # each query is one sum_blocks pass over the dask blocks (local scheduler here)
    X = da.from_array(wide, chunks=(700, 30)).astype(float)
    local = TransactionCounts(wide)
    remote = TransactionCounts(X, Transactions(np.arange(30), None).items, n_items=30)
    np.testing.assert_array_equal(remote.item_supports(), local.item_supports())
    assert remote.n_transactions == local.n_transactions == 2500
    assert remote.nth_support(25) == local.nth_support(25)
    assert remote.nth_support(25, 1) == local.nth_support(25, 1)
    for (a, s), (b, t) in zip(remote.mine_levels(40, 4), local.mine_levels(40, 4), strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(s, t)
    itemsets = [(0, 1, 2), (3,), (), (4, 29)]
    np.testing.assert_array_equal(remote.supports(itemsets), local.supports(itemsets))
    np.testing.assert_array_equal(remote.supports(itemsets)[2], 2500)
    bases = [(0, 1, 2), (3, 4), (5,)]
    np.testing.assert_array_equal(remote.basis_bins(bases), local.basis_bins(bases))
    pairs = remote.pair_supports([0, 2, 5])  # dense blocks: packed tidsets, an ndarray
    np.testing.assert_array_equal(pairs, local.pair_supports([0, 2, 5]))
    assert pairs[0, 1] == np.sum(wide[:, 0] & wide[:, 2])
    sparse = TransactionCounts(sp.csr_matrix(wide)).pair_supports([0, 2, 5])
    np.testing.assert_array_equal(pairs, sparse)
    np.testing.assert_array_equal(
        remote.pair_support_values([0, 2, 5]), pairs[[0, 0, 1], [1, 2, 2]]
    )


@pytest.mark.parametrize("method", MINING)
def test_dask_mining_refuses_values_other_than_0_1(transactions, method):
    X = da.from_array(transactions * 2, chunks=1000)
    with pytest.raises(ValueError, match="0/1 incidence matrix"):
        DPFrequentItemsets(method=method, top_k=3, binarize=None, random_state=0).fit(X)


def test_dask_tdps_needs_public_items_beyond_twenty_columns_and_auto_does_not():
    X = da.zeros((100, 21), dtype=bool, chunks=50)
    with pytest.raises(ValueError, match=r"at most 20 items.*items="):
        DPFrequentItemsets(method="tdps-bins").fit(X)
    assert DPFrequentItemsets(top_k=3, random_state=0).fit(X).method_ == "privbasis"


def test_dask_values_other_than_0_1_are_refused(transactions):
    X = da.from_array(transactions * 2, chunks=1000)
    with pytest.raises(ValueError, match="0/1 incidence matrix"):
        DPFrequentItemsets(binarize=None, random_state=0).fit(X)


def _assert_same_model(remote, local):
    pd.testing.assert_frame_equal(remote.frequent_itemsets_, local.frequent_itemsets_)
    assert remote.n_transactions_estimate_ == local.n_transactions_estimate_
    assert remote.privacy_spent_ == local.privacy_spent_
    assert remote.epsilon_split_ == local.epsilon_split_
