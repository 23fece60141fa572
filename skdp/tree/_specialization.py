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
"""

import numpy as np

SCORES = ("max", "infogain")
_CHUNK = 1 << 22  # counts held at once when scoring many split points


def _entropy(counts, axis=-1):
    """Entropy in bits times the total, ``n * H``, of count vectors along ``axis``."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(counts > 0, np.log2(counts), 0.0)
        return total * np.log2(np.where(total > 0, total, 1)) - (counts * logs).sum(axis=axis)


def majority_gain(counts):
    """Records the cell majority gains from splitting, summed over the cells.

    ``counts`` has shape ``(cells, [split points,] children, classes)``; the result has
    one entry per split point (a scalar without that axis).
    """
    after = counts.max(axis=-1).sum(axis=-1)
    before = counts.sum(axis=-2).max(axis=-1)
    return (after - before).sum(axis=0)


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
    encoded : list of ndarray
        The records' encoded values per attribute (leaf indices or clipped numbers).
    y : ndarray of int
        Class index of every record, in ``range(n_classes)``.
    n_classes : int
    max_cells : int
        Public cap on ``cells x classes``; a specialization that would pass it is not a
        candidate.
    """

    def __init__(self, attributes, encoded, y, n_classes, max_cells):
        self.attributes = attributes
        self.encoded = encoded
        self.y = np.asarray(y, dtype=np.int64)
        self.n_classes = n_classes
        self.max_cells = max_cells
        self.history = []  # (attribute index, concept, split or None, children)
        self.cut_history = []  # the cuts before the first and after every step
        self._refresh()

    def _refresh(self):
        self.cut_history.append([list(a.cut) for a in self.attributes])
        self.sizes = [len(a.cut) for a in self.attributes]
        cell = np.zeros(self.y.size, dtype=np.int64)
        for attribute, values, size in zip(self.attributes, self.encoded, self.sizes, strict=True):
            cell = cell * size + attribute.position_of(values)
        self.cell = cell
        self.n_cells = int(np.prod(self.sizes, dtype=np.int64))
        self.correct = int(self.cell_counts().max(axis=1).sum())  # cell-majority hits

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

    def _inside(self, a, concept):
        attribute = self.attributes[a]
        inside = attribute.concepts_of(self.encoded[a]) == concept
        groups = np.unique(self.cell[inside], return_inverse=True)[1]
        return inside, groups.reshape(-1), int(groups.max(initial=-1)) + 1

    def score_categorical(self, a, concept, score):
        """Score of specializing categorical ``concept`` of attribute ``a``."""
        attribute = self.attributes[a]
        inside, group, n_groups = self._inside(a, concept)
        child = attribute.child_index(concept, self.encoded[a][inside])
        fanout, k = attribute.fanout(concept), self.n_classes
        flat = (group * fanout + child) * k + self.y[inside]
        counts = np.bincount(flat, minlength=n_groups * fanout * k).reshape(n_groups, fanout, k)
        if score == "max":
            return self.correct + int(majority_gain(counts))
        return information_gain(counts)

    def score_split_points(self, a, concept, points, score):
        """Scores of splitting numeric ``concept`` of attribute ``a`` at each point."""
        points = np.asarray(points, dtype=float)
        inside, group, n_groups = self._inside(a, concept)
        m, k = points.size, self.n_classes
        bins = np.searchsorted(points, self.encoded[a][inside], side="right")
        y = self.y[inside]
        scores = np.zeros(m)
        per_group = (m + 1) * k
        step = max(1, _CHUNK // per_group)
        order = np.argsort(group, kind="stable")
        starts = np.searchsorted(group[order], np.arange(0, n_groups + step, step))
        for g0, lo, hi in zip(range(0, n_groups, step), starts[:-1], starts[1:], strict=False):
            rows = order[lo:hi]
            g = group[rows] - g0
            n_block = int(g.max(initial=-1)) + 1
            flat = (g * (m + 1) + bins[rows]) * k + y[rows]
            counts = np.bincount(flat, minlength=n_block * per_group).reshape(n_block, m + 1, k)
            left = np.cumsum(counts, axis=1)[:, :m, :]
            right = counts.sum(axis=1, keepdims=True) - left
            both = np.stack([left, right], axis=2)  # (groups, m, 2, k)
            if score == "max":
                scores += majority_gain(both)
            else:  # n * H differences, normalised by the records in the concept below
                scores += _entropy(both.sum(axis=2)).sum(axis=0) - _entropy(both).sum(axis=(0, 2))
        if score == "max":
            return self.correct + scores.astype(np.int64)
        return scores / inside.sum() if inside.any() else scores

    def specialize(self, a, concept, split=None):
        """Apply a (released) specialization and recompute the cells."""
        children = self.attributes[a].specialize(concept, split)
        self.history.append((a, concept, split, children))
        self._refresh()
        return children

    def cell_counts(self):
        """True counts of every cell x class, empty ones included: shape (cells, K)."""
        flat = self.cell * self.n_classes + self.y
        counts = np.bincount(flat, minlength=self.n_cells * self.n_classes)
        return counts.reshape(self.n_cells, self.n_classes)
