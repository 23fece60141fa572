"""The public output domain of one attribute: a taxonomy tree or a numeric interval.

Both kinds hold a *cut*: the current set of concepts, which partitions the attribute's
domain. Specializing a concept of the cut replaces it by its children. Everything here is
public: the taxonomy, the root interval and the candidate split points; records only ever
pass through :meth:`encode` (value -> leaf or value) and :meth:`concepts_of` (-> the
concept of the cut that holds it).
"""

import numpy as np
import pandas as pd

from skdp.datasets._taxonomies import check_taxonomy

# The split points of a numeric column without bounds: 0 and +-2**(k/4) for k = -120..248
# (2**-30 .. 2**62, steps of 19%), public constants. Measured on Adult at epsilon 1 (20
# seeds): half powers lose 1.4 points, eighth powers 0.7, powers of 2 below 2**-4 0.6.
_POWERS = 2.0 ** (np.arange(-120, 249) / 4)
SIGNED_GRID = np.concatenate([-_POWERS[::-1], [0.0], _POWERS])


class CategoricalAttribute:
    """A categorical attribute generalized along a public taxonomy tree.

    Parameters
    ----------
    name : str
        Column name, for messages and labels.
    tree : dict
        The taxonomy in the format of :func:`skdp.datasets.load_taxonomies`.
    """

    kind = "categorical"

    def __init__(self, name, tree):
        self.name = name
        self.values = check_taxonomy(tree, name=name)
        self.labels, self.children, parents = [], [], []
        self.leaf_node = {}  # value -> node id
        stack = [(tree, -1)]
        while stack:
            node, parent = stack.pop()
            if isinstance(node, str):
                label, kids = node, []
            else:
                ((label, kids),) = node.items()
            node_id = len(self.labels)
            self.labels.append(label)
            self.children.append([])
            parents.append(parent)
            if parent >= 0:
                self.children[parent].append(node_id)
            if isinstance(node, str):
                self.leaf_node[node] = node_id
            stack.extend((kid, node_id) for kid in reversed(kids))
        self.value_leaf = np.array([self.leaf_node[v] for v in self.values])
        # child_toward[v][leaf index] = the child of v on the path to that leaf (or -1)
        self._paths = []
        for value in self.values:
            path, node = [], self.leaf_node[value]
            while node >= 0:
                path.append(node)
                node = parents[node]
            self._paths.append(path[::-1])
        self.cut = [0]
        self._leaf_concept = np.zeros(len(self.values), dtype=np.int64)  # node of the cut

    def encode(self, column):
        """Map values to leaf indices; raise on a value outside the taxonomy."""
        index = {v: i for i, v in enumerate(self.values)}
        return _codes(
            self.name, index, column, "leaves of its taxonomy", "the taxonomy (or categories)"
        )

    def concepts_of(self, codes):
        """The cut concept (node id) holding each encoded value."""
        return self._leaf_concept[codes]

    def position_of(self, codes):
        """The index in ``self.cut`` of the concept holding each encoded value."""
        position = np.empty(len(self.labels), dtype=np.int64)
        position[self.cut] = np.arange(len(self.cut))
        return position[self._leaf_concept[codes]]

    def can_specialize(self, concept):
        return bool(self.children[concept])

    def fanout(self, concept, split=None):
        return len(self.children[concept])

    def child_index(self, concept, codes):
        """Which child of ``concept`` each encoded value (inside it) falls into."""
        lookup = np.full(len(self.values), -1, dtype=np.int64)
        for leaf, path in enumerate(self._paths):
            if concept in path[:-1]:
                child = path[path.index(concept) + 1]
                lookup[leaf] = self.children[concept].index(child)
        return lookup[codes]

    def leaf_children(self):
        """For every leaf: which child of its cut concept it falls into (0 under a leaf).

        The per-record form of :meth:`child_index` for all concepts of the cut at once.
        """
        lookup = np.zeros(len(self.values), dtype=np.int64)
        for leaf, path in enumerate(self._paths):
            concept = int(self._leaf_concept[leaf])
            if self.children[concept]:
                child = path[path.index(concept) + 1]
                lookup[leaf] = self.children[concept].index(child)
        return lookup

    def specialize(self, concept, split=None):
        """Replace ``concept`` in the cut by its children (in taxonomy order)."""
        at = self.cut.index(concept)
        kids = self.children[concept]
        self.cut[at : at + 1] = kids
        for leaf, path in enumerate(self._paths):
            if concept in path[:-1]:
                self._leaf_concept[leaf] = path[path.index(concept) + 1]
        return kids

    def label(self, concept):
        return self.labels[concept]

    def ancestor_in(self, concept, cut):
        """The concept of an earlier (coarser) ``cut`` that contains ``concept``."""
        for path in self._paths:
            if concept in path:
                return next(node for node in path if node in cut)
        raise KeyError(concept)


class NumericAttribute:
    """A numeric attribute generalized into intervals of a public domain ``[low, high)``.

    With finite declared bounds, the candidate split points of an interval ``[a, b)``
    are the ``n_split_points`` evenly spaced points strictly inside it. Without bounds
    (``low=-inf``, ``high=inf``) the root is the whole real line and the candidates of
    an interval are the points of the public scale-free grid ``SIGNED_GRID`` (``0`` and
    ``+-2**(k/4)``, ``2**-30`` to ``2**62``) inside it, or the ``n_split_points`` even
    points once a finite interval holds fewer than two of them. Either way the
    candidates are fixed by the interval alone.

    Parameters
    ----------
    name : str
    low, high : float
        The public root domain; values must already be clipped into it. ``-inf`` and
        ``inf`` select the scale-free grid.
    n_split_points : int
        Candidate split points per interval (of the even grid).
    """

    kind = "numeric"

    def __init__(self, name, low, high, n_split_points):
        self.name = name
        self.n_split_points = n_split_points
        self.intervals = [(float(low), float(high))]
        self.scale_free = not (np.isfinite(low) and np.isfinite(high))
        self.cut = [0]

    def encode(self, column):
        return np.asarray(column, dtype=float)

    def _edges(self):
        return np.array([self.intervals[c][0] for c in self.cut[1:]])

    def position_of(self, values):
        return np.searchsorted(self._edges(), values, side="right")

    def concepts_of(self, values):
        return np.asarray(self.cut)[self.position_of(values)]

    def split_points(self, concept):
        low, high = self.intervals[concept]
        if self.scale_free:
            inside = SIGNED_GRID[(SIGNED_GRID > low) & (SIGNED_GRID < high)]
            if inside.size >= 2 or not np.isfinite(high - low):
                return inside
        steps = np.arange(1, self.n_split_points + 1) / (self.n_split_points + 1)
        points = low + (high - low) * steps
        return np.unique(points[(points > low) & (points < high)])

    def can_specialize(self, concept):
        return self.split_points(concept).size > 0

    def grid(self):
        """The split points of every interval of the cut, concatenated in cut order, and
        where each interval's points start (one more offset at the end)."""
        points = [self.split_points(c) for c in self.cut]
        offsets = np.cumsum([0] + [p.size for p in points])
        return np.concatenate(points), offsets

    def fanout(self, concept, split=None):
        return 2

    def child_index(self, concept, values, split):
        return (np.asarray(values) >= split).astype(np.int64)

    def specialize(self, concept, split):
        low, high = self.intervals[concept]
        if not low < split < high:
            raise ValueError(f"split point {split} is not inside [{low}, {high})")
        self.intervals += [(low, float(split)), (float(split), high)]
        kids = [len(self.intervals) - 2, len(self.intervals) - 1]
        at = self.cut.index(concept)
        self.cut[at : at + 1] = kids
        return kids

    def label(self, concept):
        low, high = self.intervals[concept]
        return f"[{low:.6g}, {high:.6g})"

    def ancestor_in(self, concept, cut):
        low, high = self.intervals[concept]
        for c in cut:
            a, b = self.intervals[c]
            if a <= low and high <= b:
                return c
        raise KeyError(concept)


class OrderedCategoricalAttribute(NumericAttribute):
    """A categorical attribute generalized into ranges of its public category order.

    The default for a categorical column without a taxonomy: value ``i`` of the declared
    order is encoded as ``i`` and the column is then split like a numeric one, between
    consecutive categories. Every boundary inside a range is a candidate split point
    (``m - 1`` at the root for ``m`` categories), so the selection can isolate a single
    category or group neighbours in one step; a flat fan-out would multiply the cells by
    ``m`` at once. Everything is public: the order is the declared one (``categories``,
    or the categorical dtype's categories).

    Parameters
    ----------
    name : str
    values : list of str
        The declared categories, in their public order.
    """

    kind = "ordered"

    def __init__(self, name, values):
        self.values = list(values)
        if len(set(self.values)) != len(self.values):
            raise ValueError(f"Column {name!r}: the declared categories repeat a value.")
        self._index = {v: i for i, v in enumerate(self.values)}
        super().__init__(name, -0.5, len(self.values) - 0.5, max(1, len(self.values) - 1))

    def encode(self, column):
        """Map values to their index in the declared order; raise on an unknown value."""
        return _codes(
            self.name, self._index, column, "among its declared categories",
            "the categories (or taxonomy)",
        ).astype(float)  # fmt: skip

    def split_points(self, concept):
        """The boundaries between consecutive categories inside the range."""
        low, high = self.intervals[concept]
        return np.arange(np.ceil(low) + 0.5, high, 1.0)

    def label(self, concept):
        low, high = self.intervals[concept]
        inside = self.values[int(np.ceil(low)) : int(np.ceil(high))]
        if len(inside) == len(self.values):
            return "Any" if "Any" not in self.values else "Any (root)"
        return inside[0] if len(inside) == 1 else "{" + ", ".join(inside) + "}"


def string_codes(column):
    """``(codes, strings)``: ``strings`` the distinct ``str(value)`` of ``column`` and
    ``codes`` each row's index in it, as ``[str(v) for v in column]`` would spell them.

    A pandas categorical column is read through its codes (one ``str`` per category,
    none per row); another column is turned into strings by pandas and factorized, so
    that values that compare equal but print differently (``1``, ``1.0``, ``True``)
    stay apart.
    """
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
        strings = [str(v) for v in column.cat.categories]
        return np.asarray(column.cat.codes, dtype=np.int64), strings
    series = column if isinstance(column, pd.Series) else pd.Series(list(column), dtype=object)
    if pd.api.types.infer_dtype(series, skipna=False) not in ("string", "integer", "boolean"):
        series = series.map(str)  # floats, mixed objects: each value as str spells it
    codes, uniques = pd.factorize(series, use_na_sentinel=False)
    return codes.astype(np.int64), [str(v) for v in uniques]


def _codes(name, index, column, where, remedy):
    """``index[str(value)]`` for each value of ``column``; a ValueError names unknown
    values. ``column``: a pandas Series or a sequence."""
    codes, strings = string_codes(column)
    lookup = np.fromiter((index.get(s, -1) for s in strings), dtype=np.int64, count=len(strings))
    found = np.where(codes >= 0, lookup[codes] if len(lookup) else -1, -1)
    if (found < 0).any():
        unknown = sorted({strings[c] if c >= 0 else "nan" for c in np.unique(codes[found < 0])})
        raise ValueError(
            f"Column {name!r} has values that are not {where}: {unknown[:10]}. "
            f"Add them to {remedy}."
        )
    return found
