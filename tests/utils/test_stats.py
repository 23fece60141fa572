"""The exact statistics on numpy arrays and on dask collections."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from skdp.utils._stats import (
    as_dask_array,
    count_rows,
    is_dask_collection,
    map_rows,
    require_public,
    sum_blocks,
)

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")


def _counts_and_sums(block, labels):
    counts = np.bincount(labels, minlength=3)
    sums = np.zeros((3, block.shape[1]))
    np.add.at(sums, labels, block)
    return counts, sums


def test_sum_blocks_gives_the_numpy_result_on_dask_blocks(dask_client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 4))
    labels = rng.integers(3, size=1000)
    exact = sum_blocks(_counts_and_sums, X, labels)
    lazy = sum_blocks(
        _counts_and_sums, da.from_array(X, chunks=(137, 2)), da.from_array(labels, chunks=300)
    )
    np.testing.assert_array_equal(lazy[0], exact[0])
    assert lazy[0].sum() == 1000
    np.testing.assert_allclose(lazy[1], exact[1], rtol=1e-12)


def test_sum_blocks_accepts_a_numpy_array_next_to_a_dask_one():
    X = np.arange(12.0).reshape(6, 2)
    weights = np.array([1, 0, 1, 0, 1, 0])
    total = sum_blocks(lambda x, w: w @ x, da.from_array(X, chunks=4), weights)
    np.testing.assert_array_equal(total, weights @ X)


def test_count_rows_and_map_rows_on_both_kinds():
    X = np.arange(10.0).reshape(5, 2)
    lazy = da.from_array(X, chunks=2)
    assert count_rows(X) == count_rows(lazy) == 5
    row_sums = map_rows(lambda b: b.sum(axis=1), lazy, dtype=float)
    assert is_dask_collection(row_sums)
    np.testing.assert_array_equal(row_sums.compute(), X.sum(axis=1))
    doubled = map_rows(lambda b: 2 * b, lazy, dtype=float, columns=2)
    np.testing.assert_array_equal(doubled.compute(), 2 * X)


def test_as_dask_array_sets_the_feature_attributes_from_a_dataframe():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1, 0, 1]})
    estimator = BaseEstimator()
    X = as_dask_array(estimator, dd.from_pandas(frame, npartitions=2), reset=True)
    assert estimator.n_features_in_ == 2
    assert list(estimator.feature_names_in_) == ["a", "b"]
    assert X.dtype == np.float64 and X.chunks[1] == (2,)
    np.testing.assert_array_equal(X.compute(), frame.to_numpy(dtype=float))


@pytest.mark.parametrize(
    ("X", "message"),
    [
        (da.ones(5, chunks=2), "2-D"),
        (da.from_array(np.array([["a"], ["b"]]), chunks=1), "numeric"),
        (dd.from_pandas(pd.DataFrame({"c": ["x", "y"]}), npartitions=1), "not numeric"),
    ],
)
def test_as_dask_array_names_what_is_wrong(X, message):
    with pytest.raises(ValueError, match=message):
        as_dask_array(BaseEstimator(), X, reset=True)


def test_as_dask_array_checks_the_feature_count_on_predict():
    estimator = BaseEstimator()
    as_dask_array(estimator, da.ones((4, 3), chunks=2), reset=True)
    with pytest.raises(ValueError, match=r"has 2 features.*expecting 3"):
        as_dask_array(estimator, da.ones((4, 2), chunks=2), reset=False)


def test_non_finite_values_raise_when_their_block_is_computed():
    X = np.ones((6, 2))
    X[4, 1] = np.nan
    lazy = as_dask_array(BaseEstimator(), da.from_array(X, chunks=3), reset=True)
    with pytest.raises(ValueError, match="NaN or infinity"):
        sum_blocks(lambda b: b.sum(axis=0), lazy)


def test_require_public_refuses_a_missing_public_input():
    with pytest.raises(ValueError, match="needs public bounds"):
        require_public(None, "bounds", BaseEstimator())
