"""DPFrequentItemsets on dask collections: the numpy model, without loading the data."""

import numpy as np
import pandas as pd
import pytest

from skdp.frequent_patterns import DPFrequentItemsets

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")

TDPS = ["tdps-bins", "tdps-signal", "tdps-measurement", "tdps-omp"]


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
    pd.testing.assert_frame_equal(remote.frequent_itemsets_, local.frequent_itemsets_)
    assert remote.n_transactions_estimate_ == local.n_transactions_estimate_
    assert remote.privacy_spent_ == local.privacy_spent_
    assert remote.epsilon_split_ == local.epsilon_split_


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


@pytest.mark.parametrize("method", ["tf", "privbasis"])
def test_mining_methods_refuse_dask(transactions, method):
    with pytest.raises(ValueError, match=r"use one of the methods \['tdps-bins', 'tdps-signal'"):
        DPFrequentItemsets(method=method).fit(da.from_array(transactions, chunks=1000))


def test_dask_needs_public_items_beyond_twenty_columns():
    X = da.zeros((100, 21), dtype=bool, chunks=50)
    with pytest.raises(ValueError, match="need a public item set"):
        DPFrequentItemsets().fit(X)


def test_dask_values_other_than_0_1_are_refused(transactions):
    X = da.from_array(transactions * 2, chunks=1000)
    with pytest.raises(ValueError, match="0/1 incidence matrix"):
        DPFrequentItemsets(random_state=0).fit(X)
