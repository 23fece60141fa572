"""The vectorised counting of DPDecisionTree: every candidate's Max score in one pass per
attribute, records re-read only for the attribute a level specialized, categorical
columns encoded through their codes."""

import copy

import numpy as np
import pandas as pd
import pytest

from skdp.tree import _counting, _maxgddp
from skdp.tree._attributes import (
    CategoricalAttribute,
    NumericAttribute,
    OrderedCategoricalAttribute,
    string_codes,
)
from skdp.tree._counting import OccupiedCounts, SparseCounts
from skdp.tree._specialization import Specializer

TAXONOMY = {"Any": [{"AB": ["a", "b"]}, {"CDE": ["c", {"DE": ["d", "e"]}]}]}


def _problem(n=300, seed=0):
    rng = np.random.default_rng(seed)
    columns = [
        rng.integers(5, size=n),  # leaf index of the taxonomy
        rng.integers(4, size=n).astype(float),  # index in a category order
        rng.uniform(0, 8, n),
        rng.uniform(-1, 1, n),
    ]
    y = ((columns[2] > 4) ^ (columns[0] >= 2) ^ (rng.random(n) < 0.2)).astype(int)
    y[columns[3] > 0.8] = 2
    return columns, y


def _attributes():
    return [
        CategoricalAttribute("t", TAXONOMY),
        OrderedCategoricalAttribute("o", ["p", "q", "r", "s"]),
        NumericAttribute("x", 0.0, 8.0, 7),
        NumericAttribute("z", -1.0, 1.0, 5),
    ]


def _brute_force_max(attributes, columns, y, n_classes):
    """Records the cell majorities get right, counted from the records."""
    cell = np.zeros(y.size, dtype=np.int64)
    for attribute, values in zip(attributes, columns, strict=True):
        cell = cell * len(attribute.cut) + attribute.position_of(values)
    counts = np.zeros((cell.max() + 1, n_classes), dtype=np.int64)
    np.add.at(counts, (cell, y), 1)
    return int(counts.max(axis=1).sum())


@pytest.mark.parametrize("form", ["occupied", "sparse", "dense"])
def test_every_max_score_equals_the_records_count_after_that_specialization(form, monkeypatch):
    columns, y = _problem()
    spec = Specializer(_attributes(), columns, y, 3, 2**20)
    if form == "sparse":  # tensors above these sizes are held as sorted keys
        spec._dense_limit = 1
        monkeypatch.setattr(_counting, "OCCUPIED_PER_ROW", 0)
    elif form == "dense":  # no cache: the form a dask block sends, a flat array
        spec.cache = None
    for a, concept, split in [(0, 0, None), (2, 0, 4.0), (1, 0, 1.5)]:
        spec.specialize(a, concept, split)
    found, scores = _maxgddp.candidates(spec, "max")
    assert len(found) > 20
    kinds = {type(t) for t in spec._counts().tensors.values()}
    expected = {"occupied": {OccupiedCounts}, "sparse": {SparseCounts}, "dense": {np.ndarray}}
    assert kinds == expected[form]
    for (a, concept, split), score in zip(found, scores, strict=True):
        after = copy.deepcopy(spec.attributes)
        after[a].specialize(concept, split)
        assert score == _brute_force_max(after, columns, y, 3), (a, concept, split)


def test_a_level_reads_again_only_the_column_it_specialized(monkeypatch):
    reads = []
    for kind in (_counting._CategoricalMap, _counting._NumericMap):
        original = kind.position

        def counted(self, values, original=original):
            reads.append(values.copy())
            return original(self, values)

        monkeypatch.setattr(kind, "position", counted)
    columns, y = _problem()
    spec = Specializer(_attributes(), columns, y, 3, 2**20)
    steps = [(0, 0, None), (2, 0, 4.0), (2, 2, 6.0)]
    _maxgddp.candidates(spec, "max")
    for step in steps:
        spec.specialize(*step)
        _maxgddp.candidates(spec, "max")
    # the four columns once, then only the specialized one per level
    assert len(reads) == 4 + len(steps)
    for read, (a, _, _) in zip(reads[4:], steps, strict=True):
        np.testing.assert_array_equal(read, columns[a])


@pytest.mark.parametrize(
    "column",
    [
        pd.Series([1, 1.0, True, "1", 0.0, -0.0, "a"], dtype=object),
        pd.Series([0.0, -0.0, 0.1 + 0.2, 1e20]),
        pd.Series([3, 1, 3]),
        pd.Series([True, False]),
        pd.Series(pd.Categorical(["x", "y", "x"], categories=["z", "y", "x"])),
        ["p", "q", "p"],
    ],
)
def test_string_codes_spell_every_value_as_str_does(column):
    codes, strings = string_codes(column)
    assert [strings[c] for c in codes] == [str(v) for v in column]
    assert len(strings) == len(set(strings))


@pytest.mark.parametrize("n_points", [0, 1, 15, _counting.LINEAR_POINTS, 40])
def test_count_at_most_is_searchsorted_right(n_points):
    rng = np.random.default_rng(n_points)
    points = rng.uniform(-2, 2, n_points)
    if n_points:
        points[0] = 0.0
    points = np.sort(points)
    near = np.concatenate([points, np.nextafter(points, -np.inf), np.nextafter(points, np.inf)])
    values = np.concatenate([near, [-0.0, 0.0, -1e300, 1e300, -np.inf, np.inf]])
    values = np.concatenate([values, rng.uniform(-3, 3, 500)])
    matrix = np.column_stack([values, values])  # a strided column as well
    for column in (values, matrix[:, 1]):
        found = _counting.count_at_most(points, column)
        np.testing.assert_array_equal(found, np.searchsorted(points, column, side="right"))
        assert found.dtype == np.intp
    codes = rng.integers(0, 6, 100).astype(np.uint8)  # category indices against boundaries
    boundaries = np.arange(0.5, 5.0, 1.0)
    np.testing.assert_array_equal(
        _counting.count_at_most(boundaries, codes), np.searchsorted(boundaries, codes, "right")
    )
