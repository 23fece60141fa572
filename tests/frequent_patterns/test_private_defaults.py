"""DPFrequentItemsets() on any input: the "auto" method, binarize=0.0, tiny and tied data."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdp import PrivacyLedger
from skdp.frequent_patterns import DPFrequentItemsets
from skdp.frequent_patterns._counts import TransactionCounts
from skdp.frequent_patterns._itemsets import MAX_TRIE_ITEMS
from skdp.frequent_patterns._mining import top_itemsets


def above_median(loader):
    X = loader(as_frame=True).data
    return X > X.median()


@pytest.mark.parametrize(
    ("loader", "method"), [(load_wine, "tdps-bins"), (load_breast_cancer, "privbasis")]
)
def test_auto_picks_by_the_number_of_items_and_spends_exactly_epsilon(loader, method):
    """The user's first try: a DataFrame of booleans, 13 or 30 columns."""
    X = above_median(loader)
    model = DPFrequentItemsets(random_state=0)
    with PrivacyLedger() as ledger:
        model.fit(X)
    assert model.method == "auto" and model.method_ == method  # the parameter is untouched
    assert math.isclose(ledger.total.epsilon, 1.0, rel_tol=1e-12)
    assert model.privacy_spent_ == ledger.total
    split = model.epsilon_split_
    assert math.isclose(math.fsum(split.values()), 1.0, rel_tol=1e-12)
    expected = {"supports"} if method == "tdps-bins" else {"n_transactions", "itemsets"}
    assert set(split) == expected
    assert len(model.frequent_itemsets_) == 100
    assert model.items_ == list(X.columns)
    assert model.transform(X).shape == (X.shape[0], 100)


def test_auto_reads_the_public_item_set_not_the_columns():
    X = above_median(load_breast_cancer)
    assert X.shape[1] > MAX_TRIE_ITEMS
    items = list(X.columns[:MAX_TRIE_ITEMS])
    assert DPFrequentItemsets(items=items, top_k=5, random_state=0).fit(X).method_ == "tdps-bins"
    items = list(X.columns[: MAX_TRIE_ITEMS + 1])
    assert DPFrequentItemsets(items=items, top_k=5, random_state=0).fit(X).method_ == "privbasis"


def test_explicit_tdps_on_many_items_names_the_way_out():
    X = above_median(load_breast_cancer)
    with pytest.raises(ValueError, match=r"at most 20 items.*X has \(items=None\) 30.*'auto'"):
        DPFrequentItemsets(method="tdps-bins").fit(X)


TINY = {
    "one-row": np.array([[1, 0, 1]]),
    "one-row-wide": np.ones((1, 30)),  # every one of the 2**30 itemsets has support 1
    "two-rows-wide": np.ones((2, 40)),
    "all-zero-wide": np.zeros((10, 25)),
    "one-column": np.ones((10, 1)),
    "negative-values": -np.ones((5, 3)),  # binarize=0.0: no item present
    "counts": np.array([[3, 0, 1], [0, 2, 2]]),
}


@pytest.mark.parametrize("X", TINY.values(), ids=TINY.keys())
def test_the_default_fits_tiny_and_degenerate_data(X):
    model = DPFrequentItemsets(random_state=0).fit(X)
    assert math.isclose(model.privacy_spent_.epsilon, 1.0, rel_tol=1e-12)
    released = model.frequent_itemsets_
    assert 1 <= len(released) <= 100
    assert released["support"].between(0, 1).all()
    assert model.transform(X).shape == (X.shape[0], len(released))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_are_refused_by_name(bad):
    X = pd.DataFrame({"a": [1.0, bad], "b": [0.0, 1.0]})
    with pytest.raises(ValueError, match=r"NaN|infinity"):
        DPFrequentItemsets().fit(X)


def test_no_transactions_are_refused_by_name():
    with pytest.raises(ValueError, match="0 sample"):
        DPFrequentItemsets().fit(np.zeros((0, 3), dtype=bool))


@pytest.mark.parametrize(
    "X",
    [
        np.ones((1, 30), dtype=bool),
        np.ones((3, 16), dtype=bool),
        np.random.default_rng(0).random((6, 14)) < 0.6,  # small: many ties
        np.random.default_rng(1).random((200, 12)) < 0.4,
    ],
    ids=["one-row", "all-ones", "ties", "random"],
)
@pytest.mark.parametrize("n", [1, 7, 110])
def test_nth_support_is_exact_and_does_not_enumerate_ties(X, n):
    """The n-th largest support, as the best-first search gives it, without walking the
    2**|I| itemsets that tie at it."""
    _, supports = top_itemsets(X, n)
    expected = int(supports[n - 1]) if supports.size >= n else 0
    assert TransactionCounts(X).nth_support(n) == expected


@parametrize_with_checks([DPFrequentItemsets(random_state=0)])
def test_sklearn_checks_pass_on_the_default_constructor(estimator, check):
    check(clone(estimator))
