"""Top-down specialization: the engine shared by MAXGDDP and DiffGen.

The state is one cut per attribute (see :mod:`skdp.tree._attributes`); the leaf cells are
the full product of the cuts. The engine computes the *exact* (unnoised) scores of
candidate specializations; the algorithms (``_maxgddp``, ``_diffgen``) choose among them
with a DP selection mechanism and then call :meth:`Specializer.specialize`. Scores:

``max``
    The number of training records the cell-majority rule classifies correctly after
    specializing ``v``: ``sum over all cells P of the new cut of max_k |P ∩ class k|``.
    Cells that do not hold ``v`` are unchanged, so this is the papers' ``Max(D, v) =
    sum over cells P holding v, children c of v: max_k |P_c ∩ class k|`` plus the
    correct count of the cells outside ``v``. Adding one record raises exactly one
    count by one, so every score rises by at most 1 and none falls: sensitivity 1 and
    *monotone* under add/remove. (The papers' ``Max(D, v)`` alone favours concepts that
    cover many records over ones that improve the classification: on Iris, after
    splitting off setosa, the root of an unused attribute scores 67 without gaining
    anything, the split separating versicolor from virginica 64.)
``infogain``
    The class-entropy reduction (bits) of splitting ``v`` inside every cell, weighted by
    the cells' share of the records in ``v``. Always in ``[0, log2 K]``, so its
    sensitivity is at most ``log2 K`` (a range bound, as in DiffGen); not monotone.

The records are read in one pass per set of cuts, with
:func:`~skdp.utils._stats.sum_blocks` (numpy arrays, or dask arrays block by block): the
exact cell x class counts, and for every attribute a *(cell, bin, class)* count tensor,
where a record's bin is the child of its concept it falls into (categorical) or its
interval between consecutive grid split points of its interval (numeric). Every
candidate's score is a function of these tensors, so one pass serves a whole level of
candidates; the scores are then computed on the driver, exactly as from the records
(:mod:`skdp.tree._counting`). The Max scores of all candidates of an attribute (every
grid point of every interval, every concept of a taxonomy) come from one cumulative
sum over its tensor, with no loop over cells or candidates; InfoGain is scored concept
by concept.
"""

import math

import numpy as np

from skdp.tree._counting import (
    _CHUNK,
    LevelCounter,
    OccupiedCounts,
    RecordCache,
    SparseCounts,
    categorical_gains,
    numeric_gains,
    sparse_gains,
)
from skdp.utils._stats import is_dask_collection, sum_blocks

SCORES = ("max", "infogain")
# a count tensor of a block of rows is held densely up to this many entries, and up to
# twice the rows of the largest block; beyond, as sorted (key, count) pairs (at most one
# per row), so that what a block sends to the driver stays about the size of the block
DENSE_LIMIT = 1 << 20
DENSE_ALWAYS = 1 << 16


def _entropy(counts, axis=-1):
    """Entropy in bits times the total, ``n * H``, of count vectors along ``axis``."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(counts > 0, np.log2(counts), 0.0)
        return total * np.log2(np.where(total > 0, total, 1)) - (counts * logs).sum(axis=axis)


def information_gain(counts):
    """InfoGain from the counts of shape ``(cells, children, classes)``.

    ``counts[g, c, k]``: records of cell ``g`` falling in child ``c`` with class ``k``.
    """
    n = counts.sum()
    if n == 0:
        return 0.0
    parent = _entropy(counts.sum(axis=1)).sum()
    return (parent - _entropy(counts).sum()) / n


class Specializer:
    """Cuts, cells and candidate scores over the encoded training records.

    Parameters
    ----------
    attributes : list
        :class:`CategoricalAttribute` / :class:`NumericAttribute`, at their root cut.
    encoded : list of ndarray, or ndarray or dask array of shape (n_samples, n_attributes)
        The records' encoded values per attribute (leaf indices or clipped numbers); a
        2-D array holds one column per attribute (leaf indices as floats).
    y : ndarray or dask array of int
        Class index of every record, in ``range(n_classes)``.
    n_classes : int
    max_cells : int
        Public cap on ``cells x classes``; a specialization that would pass it is not a
        candidate.
    cache : RecordCache, optional
        Shared with other specializers of the same records (:mod:`skdp.tree._lookahead`);
        a new one by default. Unused for dask input.
    """

    def __init__(self, attributes, encoded, y, n_classes, max_cells, cache=None):
        self.attributes = attributes
        if isinstance(encoded, (list, tuple)):
            encoded = np.asfortranarray(np.column_stack([np.asarray(e, float) for e in encoded]))
        self.encoded = encoded
        self.y = y if is_dask_collection(y) else np.asarray(y, dtype=np.int64)
        chunks = encoded.chunks[0] if is_dask_collection(encoded) else [encoded.shape[0]]
        self._dense_limit = min(DENSE_LIMIT, max(DENSE_ALWAYS, 2 * max(chunks, default=0)))
        # a numpy fit keeps the records' positions and bins between levels
        self.cache = (
            None
            if is_dask_collection(encoded)
            else (cache if cache is not None else RecordCache())
        )
        self.n_classes = n_classes
        self.max_cells = max_cells
        self.history = []  # (attribute index, concept, split or None, children)
        self.cut_history = []  # the cuts before the first and after every step
        self._refresh()

    def _refresh(self):
        self.cut_history.append([list(a.cut) for a in self.attributes])
        self.sizes = [len(a.cut) for a in self.attributes]
        self.n_cells = int(np.prod(self.sizes, dtype=np.int64))
        self._level = None  # the counts of the current cuts, read when first needed

    @property
    def correct(self):
        """Records the cell-majority rule classifies correctly under the current cuts."""
        return self._counts().correct

    def fits_after(self, a, concept, split=None):
        """Whether specializing ``concept`` of attribute ``a`` keeps cells under the cap."""
        fanout = self.attributes[a].fanout(concept, split)
        cells = self.n_cells // self.sizes[a] * (self.sizes[a] + fanout - 1)
        return cells * self.n_classes <= self.max_cells

    def open_concepts(self):
        """``(attribute index, concept)`` of every concept of the cuts that can split."""
        return [
            (a, concept)
            for a, attribute in enumerate(self.attributes)
            for concept in attribute.cut
            if attribute.can_specialize(concept)
        ]

    def _counts(self, needed=()):
        """The counts of the current cuts, with the tensors of the ``needed`` attributes.

        The first call after a change of the cuts reads the records once for the cell
        counts and the tensors of every attribute with a candidate under the cap (all a
        level of MAXGDDP or DiffGen scores); a later call that needs another attribute
        reads them again.
        """
        level = self._level
        if level is not None and set(needed) <= level.tensors.keys():
            return level
        if level is None:
            wanted = {a for a, c in self.open_concepts() if self.fits_after(a, c)}
        else:
            wanted = set(level.tensors)
        needed = sorted(wanted | set(needed))
        counter = LevelCounter(
            self.attributes, self.n_classes, needed, self._dense_limit, self.cache
        )
        cells, *tensors = sum_blocks(counter.counts, self.encoded, self.y)
        self._level = _Level(counter, cells, tensors)
        return self._level

    def _concept_counts(self, a, concept, n_bins):
        """Counts of shape ``(cells, n_bins, classes)`` of the records in ``concept``: per
        cell holding records of it (in cell order), the records in each bin by class."""
        level = self._counts([a])
        position = self.attributes[a].cut.index(concept)
        suffix = math.prod(self.sizes[a + 1 :])
        return level.concept_counts(a, position, self.sizes[a], suffix)[:, :n_bins]

    def _gains(self, a):
        """Majority gains of every candidate of attribute ``a`` (all concepts at once)."""
        level = self._counts([a])
        kind = self.attributes[a].kind
        return level.gains(a, self.sizes[a], math.prod(self.sizes[a + 1 :]), kind)

    def score_categorical(self, a, concept, score):
        """Score of specializing categorical ``concept`` of attribute ``a``."""
        if score == "max":
            position = self.attributes[a].cut.index(concept)
            return self.correct + int(self._gains(a)[position])
        counts = self._concept_counts(a, concept, self.attributes[a].fanout(concept))
        return information_gain(counts)

    def score_split_points(self, a, concept, points, score):
        """Scores of splitting numeric ``concept`` of attribute ``a`` at each point.

        The points must be among the concept's public grid
        (:meth:`NumericAttribute.split_points`).
        """
        points = np.asarray(points, dtype=float).reshape(-1)
        grid = self.attributes[a].split_points(concept)
        at = np.searchsorted(grid, points)
        if np.any(at >= grid.size) or np.any(grid[np.minimum(at, grid.size - 1)] != points):
            raise ValueError(f"split points {points} are not on the grid {grid}")
        if score == "max":  # the gain of a point does not depend on the other points
            position = self.attributes[a].cut.index(concept)
            return self.correct + self._gains(a)[position, at]
        binned = self._concept_counts(a, concept, grid.size + 1)
        if points.size != grid.size:  # merge the grid's bins between the chosen points
            binned = np.add.reduceat(binned, np.r_[0, at + 1], axis=1)
        n_groups = binned.shape[0]
        m = points.size
        scores = np.zeros(m)
        step = max(1, _CHUNK // ((m + 1) * self.n_classes))
        for g0 in range(0, n_groups, step):
            counts = binned[g0 : g0 + step]
            left = np.cumsum(counts, axis=1)[:, :m, :]
            right = counts.sum(axis=1, keepdims=True) - left
            both = np.stack([left, right], axis=2)  # (groups, m, 2, k)
            # n * H differences, normalised by the records in the concept below
            scores += _entropy(both.sum(axis=2)).sum(axis=0) - _entropy(both).sum(axis=(0, 2))
        n_inside = binned.sum()
        return scores / n_inside if n_inside else scores

    def specialize(self, a, concept, split=None):
        """Apply a (released) specialization and recompute the cells."""
        children = self.attributes[a].specialize(concept, split)
        self.history.append((a, concept, split, children))
        self._refresh()
        return children

    def cell_counts(self):
        """True counts of every cell x class, empty ones included: shape (cells, K)."""
        return self._counts().cells


class _Level:
    """The summed counts of one set of cuts (on the driver)."""

    def __init__(self, counter, cells, tensors):
        if isinstance(cells, SparseCounts):
            cells = cells.dense(counter.n_cells * counter.n_classes)
        self.cells = cells.reshape(-1, counter.n_classes)
        self.correct = int(self.cells.max(axis=1).sum())
        self.n_classes = counter.n_classes
        self.n_bins = dict(counter.tensors)
        self.tensors = dict(zip(self.n_bins, tensors, strict=True))
        self._gains = {}

    def gains(self, a, size, suffix, kind):
        """Majority gain of every candidate of attribute ``a``, summed over the cells.

        For every concept of the cut (``size`` of them, ``suffix`` cells per concept):
        numeric, one gain per grid point (shape ``(size, bins)``; a concept's points are
        its first entries), the records the cell majorities gain from splitting there;
        categorical, one gain per concept (shape ``(size,)``), from splitting it into
        its children. All candidates of all cells in one pass over the tensor.
        """
        if a not in self._gains:
            n_bins, k = self.n_bins[a], self.n_classes
            tensor = self.tensors[a]
            gain = numeric_gains if kind != "categorical" else categorical_gains
            if isinstance(tensor, OccupiedCounts):
                found = tensor.gains(gain, size, suffix)
            elif isinstance(tensor, np.ndarray):  # empty cells gain 0
                counts = tensor.reshape(-1, size, suffix, n_bins, k).swapaxes(0, 1)
                found = gain(counts.reshape(size, -1, n_bins, k)).sum(axis=1)
            else:
                found = sparse_gains(tensor, gain, n_bins, k, size, suffix)
            self._gains[a] = found
        return self._gains[a]

    def concept_counts(self, a, position, size, suffix):
        """``(occupied cells, bins, classes)`` counts of the cells at ``position`` of
        attribute ``a`` (``size`` concepts in its cut, ``suffix`` cells per concept of it)."""
        n_bins, k = self.n_bins[a], self.n_classes
        tensor = self.tensors[a]
        if isinstance(tensor, OccupiedCounts):
            return tensor.concept_counts(position, size, suffix)
        if isinstance(tensor, np.ndarray):
            counts = tensor.reshape(-1, size, suffix, n_bins, k)[:, position]
            counts = counts.reshape(-1, n_bins, k)
            return counts[counts.any(axis=(1, 2))]
        cell, rest = np.divmod(tensor.keys, n_bins * k)
        inside = cell // suffix % size == position
        cells, group = np.unique(cell[inside], return_inverse=True)
        counts = np.zeros((cells.size, n_bins * k), dtype=np.int64)
        counts[group.reshape(-1), rest[inside]] = tensor.counts[inside]
        return counts.reshape(-1, n_bins, k)
