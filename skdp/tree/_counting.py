"""One pass over the records for one set of cuts: cell x class counts and, per
attribute, a (cell, bin, class) count tensor, and the majority gains read from them.

A record's bin is the child of its concept it falls into (categorical) or its interval
between consecutive grid split points of its interval (numeric). The pass is vectorised
over all records and all cells: each record's cell is one combined integer code (its
concept positions in mixed radix), and every tensor is one :func:`numpy.bincount` of
``(cell, bin, class)`` codes. A numpy fit keeps each attribute's positions and
``bin * K + class`` keys between levels (:class:`RecordCache`; only the attribute just
specialized is re-read) and counts over the occupied cells only
(:class:`OccupiedCounts`); a dask fit sends each block's counts to the driver, densely
or as sorted keys (:class:`SparseCounts`).
"""

import math

import numpy as np

_CHUNK = 1 << 22  # counts held at once when scoring many split points
# a numpy fit holds a tensor on its occupied cells up to this many entries per record
# (sorted keys and their counts take two per record), else as SparseCounts
OCCUPIED_PER_ROW = 2
# up to this many sorted points, counting those <= a value beats a binary search
LINEAR_POINTS = 32


def numeric_gains(counts):
    """``(..., bins, K)`` counts -> ``(..., bins)``: the majority gain of splitting
    after each bin (left: the bins up to it, right: the rest).

    int32 counts (of fewer than ``2**30`` records: every sum below fits) are summed in
    int32, and the right side's counts overwrite the left's: one temporary the size of
    ``counts``.
    """
    left = np.cumsum(counts, axis=-2, dtype=np.int32 if counts.dtype == np.int32 else np.int64)
    total = left[..., -1:, :].copy()
    gains = left.max(axis=-1)
    np.subtract(total, left, out=left)  # the right side
    gains += left.max(axis=-1)
    gains -= total.max(axis=-1)
    return gains


def categorical_gains(counts):
    """``(..., children, K)`` counts -> ``(...)``: the majority gain of the children."""
    return counts.max(axis=-1).sum(axis=-1) - counts.sum(axis=-2).max(axis=-1)


def _by_position(found, position, size):
    """Per-cell gains summed by the position of the cell's concept (``size`` of them).

    Summed in the gains' own type (int32 gains of fewer than ``2**30`` records add up
    to at most that many; ``np.add.at`` is several times slower when it must cast).
    """
    total = np.zeros((size, *found.shape[1:]), dtype=found.dtype)
    np.add.at(total, position, found)
    return total.astype(np.int64, copy=False)


def sparse_gains(tensor, gain, n_bins, k, size, suffix):
    """The gains of a :class:`SparseCounts` tensor: the occupied cells only, made dense a
    chunk at a time, summed by the position of their concept."""
    cell, rest = np.divmod(tensor.keys, n_bins * k)
    cells, group = np.unique(cell, return_inverse=True)
    group = group.reshape(-1)
    position = cells // suffix % size
    width = (n_bins,) if gain is numeric_gains else ()
    total = np.zeros((size, *width), dtype=np.int64)
    # a chunk of dense counts holds about as many entries as there are keys (each a
    # record at least), not _CHUNK: the gains' temporaries stay the size of the records
    step = max(1, min(_CHUNK, OCCUPIED_PER_ROW * tensor.keys.size) // (n_bins * k))
    dtype = np.int32 if tensor.counts.sum() < 2**30 else np.int64
    for g0 in range(0, cells.size, step):
        g1 = min(g0 + step, cells.size)
        # keys are sorted: the records of cells g0..g1 are one slice
        lo, hi = np.searchsorted(group, [g0, g1])
        dense = np.zeros((g1 - g0, n_bins * k), dtype=dtype)
        dense[group[lo:hi] - g0, rest[lo:hi]] = tensor.counts[lo:hi]
        total += _by_position(gain(dense.reshape(-1, n_bins, k)), position[g0:g1], size)
    return total


class OccupiedCounts:
    """A (cell, bin, class) tensor on the occupied cells only (a numpy fit's form).

    Parameters
    ----------
    cells : ndarray of int
        The ids of the cells holding records, increasing.
    counts : ndarray of shape (len(cells), bins, classes)
    """

    def __init__(self, cells, counts):
        self.cells, self.counts = cells, counts

    def gains(self, gain, size, suffix):
        """``gain`` of every occupied cell, summed by the position of its concept."""
        return _by_position(gain(self.counts), self.cells // suffix % size, size)

    def concept_counts(self, position, size, suffix):
        """The counts of the occupied cells at ``position``, in cell order."""
        return self.counts[self.cells // suffix % size == position]


def signature(attribute):
    """What the positions and bins of records depend on: the concepts of the cut."""
    if attribute.kind == "categorical":
        return tuple(attribute.cut)
    return tuple(attribute.intervals[c] for c in attribute.cut)


class RecordCache:
    """Per attribute, its latest position map and the positions and ``bin * K + class``
    keys of the records under it (a numpy fit: a level re-reads only the attribute it
    specialized).

    Belongs to one set of records and labels, shared by the specializers of one fit
    (:mod:`skdp.tree._lookahead`): an entry is keyed by the concepts of the cut it was
    read under, so it never serves another.
    """

    def __init__(self):
        self._held = {}

    def get(self, what, a, attribute, compute):
        key = signature(attribute)
        held = self._held.get((what, a))
        if held is None or held[0] != key:
            held = self._held[(what, a)] = (key, compute())
        return held[1]


class LevelCounter:
    """What a pass over the records counts for one set of cuts: small and picklable, so
    that dask ships it to the workers (:func:`~skdp.utils._stats.sum_blocks`).

    Parameters
    ----------
    attributes : list
        At their current cuts (read once, here).
    n_classes : int
    tensors : list of int
        The attributes whose (cell, bin, class) tensors to count.
    dense_limit : int
        Counts with more entries are returned as :class:`SparseCounts`.
    cache : RecordCache or None
        A numpy fit's cache: the tensors are then :class:`OccupiedCounts` where they
        hold at most ``max(dense_limit, OCCUPIED_PER_ROW * n)`` entries (about what sorted
        keys take).
        None for dask blocks (flat ndarrays, or :class:`SparseCounts`).
    """

    def __init__(self, attributes, n_classes, tensors, dense_limit, cache=None):
        self.n_classes = n_classes
        self.sizes = [len(a.cut) for a in attributes]
        self.n_cells = math.prod(self.sizes)
        self.maps = position_maps(attributes, cache)
        self.tensors = [(a, self.maps[a].n_bins) for a in tensors]
        self._tensor_set = set(tensors)
        self.dense_limit = dense_limit
        self._cache, self._attributes = cache, (attributes if cache is not None else None)

    def _read(self, what, j, compute):
        if self._cache is None:
            return compute()
        return self._cache.get(what, j, self._attributes[j], lambda: compact(compute()))

    def counts(self, encoded, y):
        """The block's cell x class counts and its tensor of every chosen attribute: a
        flat ndarray (up to ``dense_limit`` entries), :class:`OccupiedCounts` (with a
        cache) or :class:`SparseCounts`."""
        y = np.asarray(y, dtype=np.int64)
        k = self.n_classes
        cell = np.zeros(y.size, dtype=np.int64)
        positions, early = [], {}
        for j, (values, size) in enumerate(zip(self.maps, self.sizes, strict=True)):
            column = _Column(encoded, j)
            positions.append(self._read("position", j, lambda v=values, c=column: v.position(c())))
            if self._cache is not None and j in self._tensor_set:
                # the cache keeps each record's bin x class (bin * K + class) anyway:
                # read it while the column is at hand
                early[j] = self._read("bin_class", j, lambda m=values, c=column, j=j:
                                      m.bin(c(), positions[j]) * k + y)  # fmt: skip
            del column
            cell *= size
            cell += positions[j]
        found = [self._count(cell * k + y, self.n_cells * k)]
        occupied = self._occupied(cell) if self._cache is not None else None
        room = max(self.dense_limit, OCCUPIED_PER_ROW * y.size)
        base = (None, None)  # (n_bins, index * n_bins * K), shared by equal n_bins
        for a, n_bins in self.tensors:
            bin_class = early.pop(a, None)
            if bin_class is None:
                bin_class = self.maps[a].bin(encoded[:, a], positions[a]) * k + y
            if occupied is not None and occupied[0].size * n_bins * k <= room:
                cells, index = occupied
                if base[0] != n_bins:
                    base = (None, None)  # the previous one freed first
                    base = (n_bins, index * (n_bins * k))
                flat = base[1] + bin_class  # (index * n_bins + bin) * K + class
                counts = np.bincount(flat, minlength=cells.size * n_bins * k)
                del flat  # counts of at most n records: int32 holds them in half the room
                counts = counts.astype(np.int32 if y.size < 2**30 else np.int64)
                found.append(OccupiedCounts(cells, counts.reshape(-1, n_bins, k)))
            else:
                found.append(
                    self._count(cell * (n_bins * k) + bin_class, self.n_cells * n_bins * k)
                )
        return tuple(found)

    def _occupied(self, cell):
        """The occupied cells (increasing) and each record's index among them."""
        if self.n_cells > 4 * cell.size + (1 << 16):  # too many cells to look up densely
            cells, index = np.unique(cell, return_inverse=True)
            return cells, index.reshape(-1)
        cells = np.flatnonzero(np.bincount(cell, minlength=self.n_cells))
        lookup = np.zeros(self.n_cells, dtype=np.int64)
        lookup[cells] = np.arange(cells.size)
        return cells, lookup[cell]

    def _count(self, flat, size):
        if size <= self.dense_limit:
            return np.bincount(flat, minlength=size)
        return SparseCounts(flat)


class _Column:
    """Column ``j`` of ``encoded``, made contiguous once when first called (a view of
    the caller's rows is strided; every search would otherwise copy it)."""

    def __init__(self, encoded, j):
        self.encoded, self.j, self.values = encoded, j, None

    def __call__(self):
        if self.values is None:
            self.values = np.ascontiguousarray(self.encoded[:, self.j])
        return self.values


def compact(values):
    """Non-negative indices in the smallest unsigned type that holds them (a numpy fit
    caches two per record and attribute: 2 bytes each on Adult, not 16)."""
    top = int(values.max()) if values.size else 0
    if values.size and values.min() < 0:
        return values.astype(np.int32)
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return values.astype(dtype)
    return values


def position_maps(attributes, cache=None):
    """Per attribute, the map of an encoded value to its position in the current cut."""

    def build(a):
        return _CategoricalMap(a) if a.kind == "categorical" else _NumericMap(a)

    if cache is None:
        return [build(a) for a in attributes]
    return [cache.get("map", j, a, lambda a=a: build(a)) for j, a in enumerate(attributes)]


class _CategoricalMap:
    """Leaf index -> position of its concept in the cut, and child of that concept."""

    def __init__(self, attribute):
        leaves = np.arange(len(attribute.values))
        self.positions = attribute.position_of(leaves)
        self.children = attribute.leaf_children()
        self.n_bins = max(1, max(attribute.fanout(c) for c in attribute.cut))

    def position(self, values):
        return self.positions[values.astype(np.int64)]

    def bin(self, values, positions):
        return self.children[values.astype(np.int64)]


class _NumericMap:
    """Value -> position of its interval in the cut, and bin between the grid points of
    that interval (as ``searchsorted(split_points, value, side="right")``)."""

    def __init__(self, attribute):
        self.edges = attribute._edges()
        self.grid, self.offsets = attribute.grid()
        self.n_bins = int(np.diff(self.offsets).max()) + 1

    def position(self, values):
        return count_at_most(self.edges, values)

    def bin(self, values, positions):
        # every point of an earlier interval is <= the value, none of a later one
        return count_at_most(self.grid, values) - self.offsets[positions]


def count_at_most(points, values):
    """``np.searchsorted(points, values, side="right")`` for sorted ``points``: how many
    points are <= each value. Up to ``LINEAR_POINTS`` points they are counted one pass
    each (the same comparisons, without the binary search's unpredictable branches:
    15 points over 10^5 values 0.2 ms against 2.8)."""
    if points.size > LINEAR_POINTS:
        return np.searchsorted(points, values, side="right")
    found = np.zeros(np.shape(values), dtype=np.uint8)
    at_most = np.empty(np.shape(values), dtype=bool)
    for point in points:
        np.greater_equal(values, point, out=at_most)
        found += at_most
    return found.astype(np.intp)


class SparseCounts:
    """Counts of flat keys as sorted ``(keys, counts)``; ``+`` merges two of them.

    Parameters
    ----------
    flat : ndarray of int, optional
        One key per record.
    """

    def __init__(self, flat=None, *, keys=None, counts=None):
        if flat is not None:
            keys, counts = np.unique(flat, return_counts=True)
        self.keys, self.counts = keys, counts.astype(np.int64)

    def dense(self, size):
        """The counts as a flat ndarray of ``size`` entries."""
        counts = np.zeros(size, dtype=np.int64)
        counts[self.keys] = self.counts
        return counts

    def __add__(self, other):
        keys = np.concatenate([self.keys, other.keys])
        counts = np.concatenate([self.counts, other.counts])
        if not keys.size:
            return SparseCounts(keys=keys, counts=counts)
        order = np.argsort(keys, kind="stable")
        keys, counts = keys[order], counts[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        return SparseCounts(keys=keys[starts], counts=np.add.reduceat(counts, starts))
