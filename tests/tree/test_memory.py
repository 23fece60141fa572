"""What a numpy fit of DPDecisionTree holds per record: one encoded copy of X, compact
cached positions and bins, int32 count tensors (scikit-learn's tree holds about 100
bytes per record of 10 float columns: a float32 copy, the labels and an index)."""

import tracemalloc

import numpy as np

from skdp.tree import DPDecisionTree
from skdp.tree._counting import LevelCounter, RecordCache, compact
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


def test_a_fit_holds_about_two_copies_of_the_records_at_most():
    # X itself is the caller's; 10 float64 columns are 80 bytes a record. The fit holds
    # the encoded copy (80), the labels (8), a byte per cached position and bin, and a
    # level's temporaries (about 30): about 190 a record at this size with the fixed
    # costs. It held about 540 (a pandas copy of X, the encoded columns twice, int64
    # caches).
    X, y = _data()
    tree = DPDecisionTree(n_levels=4, bounds=(-1.0, 1.0), classes=[0, 1], random_state=0)
    assert peak_bytes_per_record(tree, X, y) < 300


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
