"""What a numpy fit of DPDecisionTree holds per record: no copy of float columns that
need no clipping, compact codes, cached positions and bins, int32 count tensors and
gains (scikit-learn's tree holds about 100 bytes per record of 10 float columns: a
float32 copy, the labels and an index)."""

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

from skdp.exceptions import ClippingWarning
from skdp.tree import DPDecisionTree
from skdp.tree._columns import as_frame, split_columns
from skdp.tree._counting import LevelCounter, RecordCache, compact, numeric_gains
from skdp.tree._specialization import Specializer

N, D = 5_000, 10


def _data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(N, D))
    return X, (X[:, 0] + X[:, 1] > 0).astype(int)


def peak_bytes_per_record(model, X, y):
    tracemalloc.start()
    try:
        model.fit(X, y)
        return tracemalloc.get_traced_memory()[1] / len(X)
    finally:
        tracemalloc.stop()


def test_a_fit_holds_no_copy_of_float_columns_inside_their_bounds():
    # X itself is the caller's; 10 float64 columns are 80 bytes a record. The fit reads
    # them in place and holds the labels (8), a byte per cached position and bin, and a
    # level's temporaries: about 107 a record at this size with the fixed costs. It held
    # about 187 with an encoded float copy of X, 540 before that (a pandas copy of X,
    # the encoded columns twice, int64 caches).
    X, y = _data()
    tree = DPDecisionTree(n_levels=4, bounds=(-1.0, 1.0), classes=[0, 1], random_state=0)
    assert peak_bytes_per_record(tree, X, y) < 140


def _encoded(X, bounds, **params):
    tree = DPDecisionTree(bounds=bounds, classes=[0, 1], **params)
    frame = as_frame(X)
    columns, _ = split_columns(tree, frame, from_frame=isinstance(X, pd.DataFrame))
    return columns.encode_columns(frame, clip_warning=True)


def test_encoded_columns_are_views_unless_clipped_and_codes_are_small():
    X, _ = _data()
    X[:3, 1] = [5.0, -7.0, 1.0]  # two values of column 1 outside [-1, 1]
    before = X.copy()
    with pytest.warns(ClippingWarning, match="2 of 5000"):
        encoded = _encoded(X, (-1.0, 1.0))
    assert encoded.shape == X.shape
    views = [np.shares_memory(encoded[:, j], X) for j in range(D)]
    assert views == [j != 1 for j in range(D)]
    assert np.array_equal(encoded[:, 1], np.clip(X[:, 1], -1.0, 1.0))
    assert np.array_equal(X, before)  # never written
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no bounds: nothing clipped, nothing said
        assert all(np.shares_memory(c, X) for c in _encoded(X, None).columns)
    frame = pd.DataFrame({"c": pd.Categorical(list("abcab") * 3), "x": np.arange(15.0)})
    encoded = _encoded(frame, None)
    assert encoded[:, 0].dtype == np.uint8 and list(encoded[:, 0][:5]) == [0, 1, 2, 0, 1]
    with pytest.raises(IndexError):
        encoded[:5, 0]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_numeric_gains_match_the_formula_in_their_own_type(dtype):
    counts = np.random.default_rng(1).integers(0, 50, size=(7, 9, 3)).astype(dtype)
    left = np.cumsum(counts.astype(np.int64), axis=-2)
    total = left[..., -1:, :]
    expected = left.max(axis=-1) + (total - left).max(axis=-1) - total.max(axis=-1)
    found = numeric_gains(counts)
    assert found.dtype == dtype
    assert np.array_equal(found, expected)


def test_the_cache_keeps_positions_and_bins_in_the_smallest_type():
    X, y = _data()
    tree = DPDecisionTree(n_levels=2, bounds=(-1.0, 1.0), classes=[0, 1], random_state=0)
    attributes = tree.fit(X, y)._columns.attributes
    cache = RecordCache()
    spec = Specializer(attributes, X, y, 2, 2**20, cache)
    spec.cell_counts()
    held = [found for _, found in cache._held.values() if isinstance(found, np.ndarray)]
    assert held and all(found.dtype == np.uint8 for found in held)
    # the counts read from them are those of int64 positions
    counter = LevelCounter(attributes, 2, [], 1 << 20)
    assert np.array_equal(counter.counts(X, y)[0], spec.cell_counts().reshape(-1))


def test_compact_picks_the_type_from_the_largest_index():
    assert compact(np.array([0, 255])).dtype == np.uint8
    assert compact(np.array([0, 256])).dtype == np.uint16
    assert compact(np.array([70_000])).dtype == np.uint32
    assert compact(np.array([-1, 3])).dtype == np.int32
    assert compact(np.array([], dtype=np.int64)).dtype == np.uint8


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("bounds", [(-1.0, 1.0), None])
def test_columns_read_in_place_are_still_checked_finite(bad, bounds):
    X, y = _data()
    X[7, 3] = bad
    with pytest.raises(ValueError, match="NaN or infinity in column 'x3'"):
        DPDecisionTree(bounds=bounds, classes=[0, 1], random_state=0).fit(X, y)
