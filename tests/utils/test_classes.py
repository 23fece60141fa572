import tracemalloc
import warnings

import numpy as np
import pytest

from skdp.exceptions import PrivacyLeakWarning
from skdp.utils import _classes
from skdp.utils._classes import resolve_classes


def _reference(classes, y):
    index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    return np.array([index[v] for v in np.asarray(y).tolist()], dtype=np.int64)


@pytest.mark.parametrize("kind", ["int", "str", "object", "float-in-int-classes", "bool"])
def test_codes_are_each_label_index_across_blocks_of_different_labels(monkeypatch, kind):
    monkeypatch.setattr(_classes, "_BLOCK", 7)  # blocks with one, two or all three labels
    raw = np.array([0] * 10 + [1] * 9 + [2, 0, 1] * 6 + [2] * 8)
    classes, y = {
        "int": ([2, 0, 1], raw),
        "str": (["c", "a", "b"], np.array(["a", "b", "c"])[raw]),
        "object": (["c", "a", "b"], np.array(["a", "b", "c"], dtype=object)[raw]),
        "float-in-int-classes": ([2, 0, 1], raw.astype(float)),
        "bool": ([True, False], raw > 0),
    }[kind]
    found, codes = resolve_classes(classes, y, estimator_name="demo")
    assert found.tolist() == list(classes)
    assert codes.dtype == np.int64
    np.testing.assert_array_equal(codes, _reference(classes, y))


def test_labels_not_in_classes_are_named_whatever_block_they_are_in(monkeypatch):
    monkeypatch.setattr(_classes, "_BLOCK", 4)
    y = np.array([0, 1] * 10 + [5])
    with pytest.raises(ValueError, match=r"y has labels not in classes: \['5'\]"):
        resolve_classes([0, 1], y, estimator_name="demo")


def test_classes_from_y_warn_and_are_sorted():
    with pytest.warns(PrivacyLeakWarning, match="reveals which labels occur"):
        classes, codes = resolve_classes(None, ["b", "a", "b"], estimator_name="demo")
    assert classes.tolist() == ["a", "b"] and codes.tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("classes", "match"), [([0, 0, 1], "duplicates"), ([1], "needs at least 2 classes")]
)
def test_bad_classes_are_refused(classes, match):
    with pytest.raises(ValueError, match=match):
        resolve_classes(classes, [1, 1], estimator_name="demo")


def test_peak_memory_is_the_codes_plus_a_block_not_copies_of_y():
    y = np.random.default_rng(0).integers(0, 2, size=10**6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tracemalloc.start()
        try:
            resolve_classes([0, 1], y, estimator_name="demo")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 2 * y.nbytes  # a sort and inverse over all of y held five copies
