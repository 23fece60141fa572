"""TransactionEncoder: brute-force encodings, round trips, errors and privacy accounting."""

import math

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils import get_tags

from skdp import PrivacyLeakWarning, privacy_spent
from skdp.frequent_patterns import TransactionEncoder
from skdp.frequent_patterns._bitmask import pack_transactions

UNIVERSE = ["milk", "bread", 3, ("tea", "green"), "eggs", 7.5]
transactions = st.lists(st.lists(st.sampled_from(UNIVERSE), max_size=8), max_size=15)

# mlxtend's TransactionEncoder example and the table it documents
MLXTEND_DATASET = [
    ["Apple", "Beer", "Rice", "Chicken"],
    ["Apple", "Beer", "Rice"],
    ["Apple", "Beer"],
    ["Apple", "Bananas"],
    ["Milk", "Beer", "Rice", "Chicken"],
    ["Milk", "Beer", "Rice"],
    ["Milk", "Beer"],
    ["Apple", "Bananas"],
]
MLXTEND_COLUMNS = ["Apple", "Bananas", "Beer", "Chicken", "Milk", "Rice"]
MLXTEND_TABLE = [
    [1, 0, 1, 1, 0, 1],
    [1, 0, 1, 0, 0, 1],
    [1, 0, 1, 0, 0, 0],
    [1, 1, 0, 0, 0, 0],
    [0, 0, 1, 1, 1, 1],
    [0, 0, 1, 0, 1, 1],
    [0, 0, 1, 0, 1, 0],
    [1, 1, 0, 0, 0, 0],
]


def brute_encode(X, items):
    return [[item in set(transaction) for item in items] for transaction in X]


def in_column_order(X, items):
    return [[item for item in items if item in set(transaction)] for transaction in X]


@settings(deadline=None)
@given(transactions, st.permutations(UNIVERSE))
def test_transform_matches_brute_force(X, items):
    encoder = TransactionEncoder(items=items).fit(X)
    dense = encoder.transform(X)
    assert dense.dtype == bool
    assert dense.shape == (len(X), len(items))
    assert dense.tolist() == brute_encode(X, items)
    sparse = encoder.set_params(sparse_output=True).transform(X)
    assert sp.issparse(sparse) and sparse.format == "csr" and sparse.dtype == bool
    assert sparse.toarray().tolist() == brute_encode(X, items)


@settings(deadline=None)
@given(transactions, st.permutations(UNIVERSE))
def test_inverse_transform_round_trip(X, items):
    encoder = TransactionEncoder(items=items).fit(X)
    expected = in_column_order(X, items)
    assert encoder.inverse_transform(encoder.transform(X)) == expected
    sparse = encoder.set_params(sparse_output=True).transform(X)
    assert encoder.inverse_transform(sparse) == expected
    assert encoder.inverse_transform(sparse.toarray().astype(np.int64)) == expected


@settings(deadline=None)
@given(transactions)
def test_packed_masks_of_the_encoding(X):
    items = UNIVERSE
    Y = TransactionEncoder(items=items, sparse_output=True).fit_transform(X)
    expected = [
        sum(1 << j for j, item in enumerate(items) if item in set(transaction))
        for transaction in X
    ]
    assert pack_transactions(Y, range(len(items))).tolist() == expected


def test_mlxtend_style_usage():
    encoder = TransactionEncoder()
    with pytest.warns(PrivacyLeakWarning, match=r"item set was read from the data"):
        table = encoder.fit(MLXTEND_DATASET).transform(MLXTEND_DATASET)
    frame = pd.DataFrame(table, columns=encoder.columns_)
    assert list(frame.columns) == MLXTEND_COLUMNS
    assert frame.astype(int).values.tolist() == MLXTEND_TABLE
    assert encoder.columns_mapping_ == {item: j for j, item in enumerate(MLXTEND_COLUMNS)}
    assert not hasattr(encoder, "n_features_in_")  # the input is not a matrix
    assert encoder.inverse_transform(table) == in_column_order(MLXTEND_DATASET, MLXTEND_COLUMNS)


def test_set_output_pandas_names_the_columns():
    encoder = TransactionEncoder(items=["b", 1, "a"]).set_output(transform="pandas")
    frame = encoder.fit_transform([["a"], [1, "b"]])
    assert list(frame.columns) == ["b", "1", "a"]
    assert frame.values.tolist() == [[False, False, True], [True, True, False]]


def test_items_none_sorts_the_seen_items_and_warns():
    X = [["c", "a"], [], ["b", "a"]]
    with pytest.warns(PrivacyLeakWarning, match=r"Pass items= to declare the public item"):
        encoder = TransactionEncoder().fit(X)
    assert encoder.columns_ == ["a", "b", "c"]


def test_items_none_falls_back_to_sorting_by_text():
    with pytest.warns(PrivacyLeakWarning):
        encoder = TransactionEncoder().fit([["b", 2], [10, "a"], [1]])
    assert encoder.columns_ == [1, 10, 2, "a", "b"]


def test_fit_transform_reads_an_iterator_once():
    X = [["a", "b"], ["b"], []]
    with pytest.warns(PrivacyLeakWarning):
        from_iterator = TransactionEncoder().fit_transform(iter(X))
    assert from_iterator.tolist() == [[True, True], [False, True], [False, False]]


def test_given_items_keep_their_order():
    encoder = TransactionEncoder(items=np.array(["z", "a", "m"])).fit([])
    assert encoder.columns_ == ["z", "a", "m"]
    assert encoder.transform([["m", "z", "z"], []]).tolist() == [
        [True, False, True],
        [False, False, False],
    ]
    names = encoder.get_feature_names_out()
    assert names.dtype == object and names.tolist() == ["z", "a", "m"]


def test_empty_input_and_empty_item_set():
    encoder = TransactionEncoder(items=["a", "b"]).fit([])
    assert encoder.transform([]).shape == (0, 2)
    assert encoder.inverse_transform(np.zeros((0, 2), dtype=bool)) == []
    no_items = TransactionEncoder(items=[]).fit([])
    assert no_items.transform([[], []]).shape == (2, 0)


def test_unknown_items():
    encoder = TransactionEncoder(items=["a", "b"]).fit([])
    with pytest.raises(ValueError, match=r"Unknown item 'zzz' in transaction 1"):
        encoder.transform([["a"], ["b", "zzz"]])
    encoder.set_params(handle_unknown="ignore")
    result = encoder.transform([["zzz", "a"], ["b", "zzz", "q"], ["q"]])
    assert result.tolist() == [[True, False], [False, True], [False, False]]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"items": ["a", "b", "a"]}, r"items contains duplicates, e\.g\. 'a'"),
        ({"items": {"a", "b"}}, r"items must be ordered"),
        ({"handle_unknown": "skip"}, r"handle_unknown"),
        ({"sparse_output": "yes"}, r"sparse_output"),
    ],
)
def test_invalid_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        TransactionEncoder(**{"items": ["a", "b"], **params}).fit([["a"]])


@pytest.mark.parametrize("X", ["ab", [["a"], "ab"], 5])
def test_transactions_must_be_iterables_of_items(X):
    encoder = TransactionEncoder(items=["a", "b"]).fit([])
    with pytest.raises(TypeError, match=r"iterable"):
        encoder.transform(X)


def test_inverse_transform_errors_and_input_left_alone():
    encoder = TransactionEncoder(items=["a", "b", "c"]).fit([])
    with pytest.raises(ValueError, match=r"X has 2 columns, but the encoder has 3 items"):
        encoder.inverse_transform(np.ones((4, 2), dtype=bool))
    with pytest.raises(ValueError, match=r"2-dimensional"):
        encoder.inverse_transform(np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match=r"only 0/1 or boolean values; found 2"):
        encoder.inverse_transform(sp.csr_matrix(np.array([[0, 2, 1]])))
    X = sp.csr_matrix(np.array([[1, 0, 1], [0, 0, 0]]))
    assert encoder.inverse_transform(X) == [["a", "c"], []]
    assert X.dtype == np.int64 and X.data.tolist() == [1, 1]


def test_not_fitted():
    with pytest.raises(NotFittedError):
        TransactionEncoder(items=["a"]).transform([["a"]])


def test_tags_and_clone():
    encoder = TransactionEncoder(items=["a"], sparse_output=True)
    tags = get_tags(encoder)
    assert not tags.input_tags.two_d_array
    assert tags.input_tags.string
    assert tags.requires_fit
    assert not tags.non_deterministic
    assert clone(encoder).get_params() == encoder.get_params()


def test_privacy_spent_is_zero_with_public_items():
    X = [["a", "b"], ["b"]]
    encoder = TransactionEncoder(items=["a", "b"]).fit(X)
    assert privacy_spent(encoder).epsilon == 0.0
    pipeline = make_pipeline(TransactionEncoder(items=["a", "b"]), FunctionTransformer())
    assert privacy_spent(pipeline.fit(X)).epsilon == 0.0


def test_privacy_spent_is_infinite_with_items_from_the_data():
    with pytest.warns(PrivacyLeakWarning, match=r"item set was read from the data"):
        encoder = TransactionEncoder().fit([["a", "b"], ["b"]])
    with pytest.warns(PrivacyLeakWarning, match=r"TransactionEncoder is not differentially"):
        spent = privacy_spent(encoder)
    assert math.isinf(spent.epsilon)
