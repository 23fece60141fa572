"""The bitmask kernels against brute-force Python counts, and on the real MSNBC data."""

import os
from collections import Counter
from itertools import combinations
from pathlib import Path

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings

from skdp.datasets import fetch_msnbc
from skdp.frequent_patterns import _bitmask
from skdp.frequent_patterns._bitmask import (
    mask_counts,
    masks_to_itemsets,
    pack_transactions,
    popcount,
    superset_differences,
    superset_sums,
    truncate_masks,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
MSNBC_FILE = "msnbc/msnbc990928.seq.gz"

uint64s = st.integers(0, 2**64 - 1)
power_of_two_lists = st.integers(0, 6).flatmap(
    lambda k: st.lists(st.integers(-50, 50), min_size=2**k, max_size=2**k)
)


@st.composite
def binary_matrices(draw, max_columns=10):
    """A 0/1 matrix and a list of distinct columns of it, in random order."""
    n_rows = draw(st.integers(0, 30))
    n_columns = draw(st.integers(1, max_columns))
    X = draw(hnp.arrays(bool, (n_rows, n_columns)))
    columns = draw(st.permutations(range(n_columns)))
    return X, columns[: draw(st.integers(0, min(n_columns, 63)))]


def brute_pack(X, columns):
    return [sum(1 << j for j, c in enumerate(columns) if X[i, c]) for i in range(len(X))]


def brute_support(X, columns, itemset_mask):
    wanted = [c for j, c in enumerate(columns) if itemset_mask >> j & 1]
    return sum(all(X[i, c] for c in wanted) for i in range(len(X)))


def all_formats(X):
    """The same 0/1 matrix as dense arrays, scipy sparse formats and DataFrames."""
    formats = {
        "bool": X,
        "int": X.astype(np.int8),
        "float": X.astype(float),
        "csr": sp.csr_matrix(X),
        "csc": sp.csc_matrix(X),
        "coo": sp.coo_matrix(X.astype(np.int64)),
        "csr_array": sp.csr_array(X),
        "frame": pd.DataFrame(X),
        "sparse_frame": pd.DataFrame(
            {j: pd.arrays.SparseArray(X[:, j], fill_value=False) for j in range(X.shape[1])}
        ),
    }
    if len(X):
        formats["list"] = X.tolist()
    return formats


# --- pack_transactions ------------------------------------------------------------------


@settings(deadline=None)
@given(binary_matrices())
def test_pack_matches_brute_force_in_every_format(case):
    X, columns = case
    expected = brute_pack(X, columns)
    for name, data in all_formats(X).items():
        masks = pack_transactions(data, columns)
        assert masks.dtype == np.uint64, name
        assert masks.tolist() == expected, name


@settings(deadline=None, max_examples=30)
@given(binary_matrices(max_columns=70))
def test_pack_uses_up_to_63_bits(case):
    X, columns = case
    expected = brute_pack(X, columns)
    assert pack_transactions(X, columns).tolist() == expected
    assert pack_transactions(sp.csr_matrix(X), columns).tolist() == expected


def test_pack_63_columns_sets_bit_62():
    X = np.ones((2, 63), dtype=bool)
    X[1, :62] = False
    assert pack_transactions(X, range(63)).tolist() == [2**63 - 1, 2**62]
    assert pack_transactions(sp.csc_matrix(X), range(63)).tolist() == [2**63 - 1, 2**62]


def test_pack_sparse_ignores_stored_zeros_and_merges_duplicates():
    rows, cols = [0, 0, 1, 1, 2], [0, 1, 1, 1, 2]
    X = sp.coo_matrix(([True, False, True, True, True], (rows, cols)), shape=(4, 3))
    assert pack_transactions(X, [0, 1, 2]).tolist() == [1, 2, 4, 0]


# the loaders' as_frame=True construction; pandas < 3 warns about its fill value
@pytest.mark.filterwarnings("ignore:Allowing arbitrary scalar fill_value:FutureWarning")
def test_pack_sparse_frame_is_not_densified(monkeypatch):
    X = np.array([[1, 0, 1], [0, 0, 0], [0, 1, 1]], dtype=bool)
    frame = pd.DataFrame.sparse.from_spmatrix(sp.csr_matrix(X), columns=["a", "b", "c"])

    def fail(*args, **kwargs):
        raise AssertionError("densified")

    monkeypatch.setattr(pd.DataFrame, "to_numpy", fail)
    monkeypatch.setattr(pd.DataFrame, "__array__", fail)
    assert pack_transactions(frame, [2, 0]).tolist() == [3, 0, 1]


def test_pack_frame_with_mixed_or_true_filled_sparse_columns():
    X = np.array([[1, 0, 1], [0, 0, 0], [0, 1, 1]], dtype=bool)
    true_filled = pd.arrays.SparseArray(X[:, 2], fill_value=True)
    mixed = pd.DataFrame({"a": X[:, 0], "b": pd.arrays.SparseArray(X[:, 1]), "c": true_filled})
    assert pack_transactions(mixed, [0, 1, 2]).tolist() == brute_pack(X, [0, 1, 2])


@pytest.mark.parametrize(
    ("bad", "shown"), [(2, "2.0"), (-1, "-1.0"), (0.5, "0.5"), (np.nan, "nan")]
)
@pytest.mark.parametrize("to_format", [np.asarray, sp.csr_matrix, pd.DataFrame])
def test_pack_rejects_non_binary_values(bad, shown, to_format):
    X = np.array([[1.0, 0.0], [0.0, bad]])
    with pytest.raises(ValueError, match=rf"only 0/1 or boolean values; found {shown} "):
        pack_transactions(to_format(X), [0, 1])


def test_pack_checks_only_the_selected_columns():
    X = np.array([[1, 7], [0, 3]])
    assert pack_transactions(X, [0]).tolist() == [1, 0]
    assert pack_transactions(sp.csr_matrix(X), [0]).tolist() == [1, 0]


def test_pack_rejects_strings():
    with pytest.raises(ValueError, match=r"found 'yes'"):
        pack_transactions(np.array([["yes", "no"]], dtype=object), [0, 1])


def test_pack_rejects_more_than_63_columns():
    X = np.zeros((3, 64), dtype=bool)
    with pytest.raises(ValueError, match=r"At most 63 columns fit in a uint64 mask; got 64"):
        pack_transactions(X, range(64))


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ([0, 3], r"columns must be in \[0, 3\)"),
        ([-1, 0], r"columns must be in \[0, 3\)"),
        ([1, 2, 1], r"columns must be distinct"),
        ([0.0, 1.0], r"integer indices"),
        ([[0, 1]], r"1-dimensional"),
    ],
)
@pytest.mark.parametrize("to_format", [np.asarray, sp.csr_matrix, pd.DataFrame])
def test_pack_rejects_bad_columns(columns, message, to_format):
    X = to_format(np.eye(3, dtype=bool))
    with pytest.raises(ValueError, match=message):
        pack_transactions(X, columns)


def test_pack_rejects_one_dimensional_input():
    with pytest.raises(ValueError, match=r"2-dimensional"):
        pack_transactions(np.array([1, 0, 1]), [0])


# --- counts, zeta and Möbius transforms -------------------------------------------------


@settings(deadline=None)
@given(binary_matrices(max_columns=6))
def test_counts_then_superset_sums_give_every_support(case):
    X, columns = case
    k = len(columns)
    counts = mask_counts(pack_transactions(X, columns), k)
    assert counts.dtype == np.int64
    bins = Counter(brute_pack(X, columns))
    assert counts.tolist() == [bins[s] for s in range(2**k)]
    supports = superset_sums(counts)
    assert supports.tolist() == [brute_support(X, columns, s) for s in range(2**k)]
    assert supports[0] == len(X)


@given(power_of_two_lists)
def test_superset_sums_matches_brute_force(values):
    k = len(values).bit_length() - 1
    expected = [sum(values[t] for t in range(2**k) if t & s == s) for s in range(2**k)]
    original = np.array(values)
    result = superset_sums(original)
    assert result.tolist() == expected
    assert result.dtype == original.dtype
    assert original.tolist() == values  # the input is not modified


@given(power_of_two_lists)
def test_superset_differences_inverts_superset_sums(values):
    values = np.array(values, dtype=np.int64)
    assert np.array_equal(superset_differences(superset_sums(values)), values)
    assert np.array_equal(superset_sums(superset_differences(values)), values)


def test_superset_differences_matches_mobius_formula():
    rng = np.random.default_rng(0)
    f = rng.normal(size=2**4)
    expected = [
        sum((-1) ** bin(t ^ s).count("1") * f[t] for t in range(16) if t & s == s)
        for s in range(16)
    ]
    result = superset_differences(f)
    assert result.dtype == np.float64
    np.testing.assert_allclose(result, expected)


def test_superset_sums_keeps_floats_and_promotes_booleans():
    assert superset_sums(np.array([0.5, 0.25])).tolist() == [0.75, 0.25]
    result = superset_sums(np.array([True, True, False, True]))
    assert result.dtype == np.int64
    assert result.tolist() == [3, 2, 1, 1]


@pytest.mark.parametrize("transform", [superset_sums, superset_differences])
def test_transforms_reject_bad_shapes(transform):
    with pytest.raises(ValueError, match=r"power-of-two length 2\*\*k; got 3"):
        transform([1, 2, 3])
    with pytest.raises(ValueError, match=r"power-of-two length 2\*\*k; got 0"):
        transform([])
    with pytest.raises(ValueError, match=r"1-dimensional"):
        transform(np.ones((2, 2)))


def test_mask_counts_bins_and_errors():
    counts = mask_counts(np.array([3, 1, 0, 3, 3], dtype=np.uint64), 3)
    assert counts.tolist() == [1, 1, 0, 3, 0, 0, 0, 0]
    assert mask_counts(np.array([], dtype=np.uint64), 2).tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError, match=r"n_items must be in \[0, 26\].*got 27"):
        mask_counts(np.zeros(3, dtype=np.uint64), 27)
    with pytest.raises(ValueError, match=r"bit at position 2 or above"):
        mask_counts([1, 4], 2)
    with pytest.raises(ValueError, match=r"non-negative"):
        mask_counts([1, -1], 2)


# --- popcount, itemsets, truncation -----------------------------------------------------


@given(st.lists(uint64s, max_size=20))
def test_popcount_matches_brute_force(values):
    masks = np.array(values, dtype=np.uint64)
    expected = [bin(v).count("1") for v in values]
    assert popcount(masks).tolist() == expected
    assert _popcount_bytes(masks).tolist() == expected  # the numpy < 2 fallback


def _popcount_bytes(masks):
    """``word_popcounts`` as numpy 1 computes it (no ``np.bitwise_count``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bitmask, "_HAS_BITWISE_COUNT", False)
        return _bitmask.word_popcounts(masks)


def test_popcount_keeps_the_shape_and_rejects_non_integers():
    masks = np.array([[0, 7], [2**63, 2**64 - 1]], dtype=np.uint64)
    assert popcount(masks).tolist() == [[0, 3], [1, 64]]
    assert _popcount_bytes(masks).tolist() == [[0, 3], [1, 64]]
    with pytest.raises(ValueError, match=r"masks must be integers; got dtype float64"):
        popcount([1.0])


@given(st.lists(st.integers(0, 2**8 - 1), max_size=20))
def test_masks_to_itemsets_matches_brute_force(values):
    items = ["a", 2, ("c",), "d", 5.0, "f", "g", "h"]
    expected = [frozenset(items[j] for j in range(8) if v >> j & 1) for v in values]
    assert masks_to_itemsets(np.array(values, dtype=np.uint64), items) == expected


def test_masks_to_itemsets_rejects_bits_without_an_item():
    with pytest.raises(ValueError, match=r"bit at position 2 or above"):
        masks_to_itemsets([1, 4], ["a", "b"])


def brute_truncate(mask, max_length):
    kept = [j for j in range(64) if mask >> j & 1][:max_length]
    return sum(1 << j for j in kept)


@given(st.lists(uint64s, max_size=20), st.integers(0, 65))
def test_truncate_masks_keeps_the_lowest_bits(values, max_length):
    masks = np.array(values, dtype=np.uint64)
    result = truncate_masks(masks, max_length)
    assert result.dtype == np.uint64
    assert result.tolist() == [brute_truncate(v, max_length) for v in values]
    assert masks.tolist() == values  # the input is not modified


def test_truncate_masks_rejects_negative_lengths():
    with pytest.raises(ValueError, match=r"max_length must be non-negative; got -1"):
        truncate_masks([3], -1)


# --- MSNBC ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def msnbc_home():
    home = Path(os.environ.get("SKDP_DATA_HOME", REPO_ROOT / ".." / "shared" / "datasets"))
    if not (home / MSNBC_FILE).is_file():
        pytest.skip(f"{MSNBC_FILE} is not in the data home {home}; set SKDP_DATA_HOME")
    return home


@pytest.fixture(scope="module")
def msnbc(msnbc_home):
    return fetch_msnbc(data_home=msnbc_home, download_if_missing=False).data


def test_msnbc_supports_from_bin_counts(msnbc):
    n_items = msnbc.shape[1]
    counts = mask_counts(pack_transactions(msnbc, range(n_items)), n_items)
    supports = superset_sums(counts)
    assert supports[0] == msnbc.shape[0] == counts.sum()
    singletons = [supports[1 << j] for j in range(n_items)]
    assert singletons == np.asarray(msnbc.sum(axis=0)).ravel().tolist()
    columns = msnbc.tocsc()
    for a, b in [(0, 1), (0, 13), (2, 11), (5, 16), *combinations((3, 7, 9), 2)]:
        both = np.intersect1d(columns[:, a].indices, columns[:, b].indices)
        assert supports[(1 << a) | (1 << b)] == len(both)
    assert np.array_equal(superset_differences(supports), counts)


@pytest.mark.filterwarnings("ignore:Allowing arbitrary scalar fill_value:FutureWarning")
def test_msnbc_frame_packs_like_the_matrix(msnbc, msnbc_home):
    frame = fetch_msnbc(data_home=msnbc_home, as_frame=True, download_if_missing=False).data
    columns = [16, 0, 5, 13, 2]
    assert np.array_equal(pack_transactions(frame, columns), pack_transactions(msnbc, columns))
