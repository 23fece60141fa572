"""Exact support counts of a transaction database, one block pass per query.

TF and PrivBasis read the transactions only through exact counts, asked in a few data
dependent phases (item supports, pair supports, the supports of one level of candidate
itemsets, the bins of a few bases). :class:`TransactionCounts` answers each query with
one :func:`~skdp.utils._stats.sum_blocks` pass of a small picklable block function: on
a numpy or sparse matrix the function runs once on the whole matrix, on a dask array it
runs on every row block where the block lives and only the counts travel. A dense
block over at most ``MAX_TIDSET_ITEMS`` items is read as packed tidsets
(:class:`~skdp.frequent_patterns._tidsets.Tidsets`: popcounts, no sparse copy), any
other as a boolean CSR matrix. The answers are exact integers, so a fit gives the same
model on all of them. Nothing here adds noise.
"""

import numpy as np
import scipy.sparse as sp

from skdp.frequent_patterns._bitmask import mask_counts, pack_transactions
from skdp.frequent_patterns._mining import (
    MAX_PATTERNS,
    _groups,
    _item_bitsets,
    _joins,
    _rows_containing,
    _too_many,
)
from skdp.frequent_patterns._tidsets import (
    MAX_TIDSET_ITEMS,
    Tidsets,
    _and_popcounts,
    prepare_counts,
    upper_pairs,
)
from skdp.utils._stats import is_dask_collection, sum_blocks

__all__ = ["TransactionCounts"]

# runs of at most this many itemsets read their join supports from a dense product
_DENSE_RUN = 1024


def _checked(block):
    return block


class _BlockCounts:
    """The block functions of :class:`TransactionCounts`: each maps a block of raw rows,
    through ``prepare`` (to a checked boolean CSR matrix of the item columns), to exact
    counts that add up over the blocks."""

    def __init__(self, prepare, **query):
        self.prepare = prepare
        self.query = query

    def items(self, block):
        """Item supports and number of transactions."""
        X = self.prepare(block)
        if isinstance(X, Tidsets):
            return X.item_supports(), np.int64(X.shape[0])
        counts = np.bincount(X.indices, minlength=X.shape[1]).astype(np.int64)
        return counts, np.int64(X.shape[0])

    def pairs(self, block):
        """``X_S^T X_S`` above the diagonal for the columns ``S``, as a sparse matrix
        (asked over more than ``MAX_TIDSET_ITEMS`` items: CSR blocks)."""
        X = self.prepare(block)
        X = X[:, self.query["columns"]].astype(np.int64).tocsc()
        return sp.csr_matrix(sp.triu(X.T @ X, k=1))

    def pair_list(self, block):
        """Support of each row ``(a, b)`` of the int array ``pairs``."""
        X = self.prepare(block)
        pairs = self.query["pairs"]
        if isinstance(X, Tidsets):
            return X.supports(pairs)
        used, index = np.unique(pairs, return_inverse=True)
        bitsets = _item_bitsets(X.tocsc()[:, used], max(1, -(-X.shape[0] // 64)))
        return _and_popcounts(bitsets, index.reshape(pairs.shape))

    def itemsets(self, block):
        """Support of each itemset (tuples of columns; the empty one: every row)."""
        X = self.prepare(block)
        itemsets = self.query["itemsets"]
        out = np.zeros(len(itemsets), dtype=np.int64)
        by_length = {}
        for i, itemset in enumerate(itemsets):
            by_length.setdefault(len(itemset), []).append(i)
        X_csc = None
        for length, rows in by_length.items():
            rows = np.asarray(rows, dtype=np.intp)
            if length == 0:
                out[rows] = X.shape[0]
                continue
            if isinstance(X, Tidsets):
                out[rows] = X.supports([itemsets[i] for i in rows])
                continue
            X_csc = X.tocsc() if X_csc is None else X_csc
            level = np.asarray([itemsets[i] for i in rows], dtype=np.intp)
            used, index = np.unique(level, return_inverse=True)
            n_words = max(1, -(-X.shape[0] // 64))
            bitsets = _item_bitsets(X_csc[:, used], n_words)
            out[rows] = _and_popcounts(bitsets, index.reshape(level.shape))
        return out

    def joins(self, block):
        """Supports of the joins ``level[parent] + level[partner, -1]`` (columns
        ``frequent[...]``), by packed tidsets or by per-run sparse products."""
        q = self.query
        level, parent, partner = q["level"], q["parent"], q["partner"]
        X = self.prepare(block)
        if isinstance(X, Tidsets):  # the same counts as "bitsets", without a copy
            columns = np.column_stack((level[parent], level[partner, -1]))
            return X.supports(q["frequent"][columns])
        X = X[:, q["frequent"]].astype(np.int64)
        X_csc = X.tocsc()
        if q["counting"] == "bitsets":
            bitsets = _item_bitsets(X_csc, max(1, -(-X.shape[0] // 64)))
            columns = np.column_stack((level[parent], level[partner, -1]))
            return _and_popcounts(bitsets, columns)
        support = np.zeros(parent.size, dtype=np.int64)
        starts, ends = _groups(level)
        first = np.searchsorted(parent, starts)  # joins are sorted by parent
        for start, end, begin in zip(starts.tolist(), ends.tolist(), first.tolist(), strict=True):
            if end - start < 2:
                continue
            stop = begin + (end - start) * (end - start - 1) // 2
            last = level[start:end, -1]
            projected = X[_rows_containing(X_csc, level[start, :-1])][:, last]
            product = sp.csr_matrix(projected.T @ projected)
            rows, columns = parent[begin:stop] - start, partner[begin:stop] - start
            if end - start <= _DENSE_RUN:
                support[begin:stop] = product.toarray()[rows, columns]
            else:  # a long run: read the joins from the sparse product
                support[begin:stop] = np.asarray(product[rows, columns]).ravel()
        return support

    def bins(self, block):
        """Bin counts of every basis (empty bins dropped), concatenated."""
        X = self.prepare(block)
        parts = [np.zeros(0, dtype=np.int64)]
        for basis in self.query["bases"]:
            if isinstance(X, Tidsets):
                parts.append(X.bins(basis)[1:])
                continue
            masks = pack_transactions(X[:, list(basis)], range(len(basis)))
            parts.append(mask_counts(masks, len(basis))[1:])
        return np.concatenate(parts)


class TransactionCounts:
    """Exact counts of the transactions ``X`` over the items, one block pass per query.

    Parameters
    ----------
    X : {array-like, sparse matrix} or dask.array.Array of shape (n_transactions, n_cols)
        The transactions.
    prepare : callable or None, default=None
        A picklable function from a row block of ``X`` to the block over the ``n_items``
        items as :func:`~skdp.frequent_patterns._tidsets.prepare_counts` returns it
        (:class:`~skdp.frequent_patterns._tidsets.Tidsets` or a checked boolean CSR
        matrix). None: ``X`` is already an incidence matrix of the items. An in-memory
        ``X`` is prepared once.
    n_items : int or None, default=None
        The number of items (needed with ``prepare`` on a dask array).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.frequent_patterns._counts import TransactionCounts
    >>> counts = TransactionCounts(np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]]))
    >>> counts.item_supports().tolist()
    [2, 3, 2]
    >>> counts.supports([(0, 1), (1, 2), ()]).tolist()
    [2, 2, 3]
    """

    def __init__(self, X, prepare=None, n_items=None):
        if not is_dask_collection(X):
            X = prepare_counts(X if prepare is None else prepare(X))
            prepare, n_items = _checked, X.shape[1]
        elif n_items == 0:
            raise ValueError("X must have at least one item column.")
        self.X, self.prepare, self.n_items = X, prepare, n_items
        self._items = None
        # pair supports counted so far (-1: not yet), over few items: exact, so any
        # later query may read them instead of counting again
        self._pairs = None
        if n_items <= MAX_TIDSET_ITEMS:
            self._pairs = np.full((n_items, n_items), -1, dtype=np.int64)

    def _pass(self, name, **query):
        return sum_blocks(getattr(_BlockCounts(self.prepare, **query), name), self.X)

    def item_supports(self):
        """Support of every item (one pass, kept for the later queries)."""
        if self._items is None:
            self._items, n = self._pass("items")
            self.n_transactions = int(n)
        return self._items

    def pair_supports(self, columns):
        """Upper triangle of the pair supports among ``columns``: an ndarray over at
        most ``MAX_TIDSET_ITEMS`` items (one pass for the pairs not counted before, none
        if all were), else a csr_matrix (one pass)."""
        columns = np.asarray(columns, dtype=np.intp)
        if self._pairs is None:
            return sp.csr_matrix(self._pass("pairs", columns=columns))
        out = np.zeros((columns.size, columns.size), dtype=np.int64)
        out[upper_pairs(columns.size)] = self._known_pairs(columns)
        return out

    def pair_support_values(self, columns):
        """Support of each pair ``(columns[i], columns[j])``, ``i < j``, in the order of
        ``np.triu_indices(len(columns), k=1)`` (one pass, or none if all are known)."""
        columns = np.asarray(columns, dtype=np.intp)
        if self._pairs is not None:
            return self._known_pairs(columns)
        pairs = self.pair_supports(columns)
        return np.asarray(pairs[upper_pairs(columns.size)], dtype=np.int64).ravel()

    def _known_pairs(self, columns):
        """:meth:`pair_support_values` from the table, counting the missing pairs."""
        first, second = upper_pairs(columns.size)
        a, b = columns[first], columns[second]
        values = self._pairs[a, b]
        missing = np.flatnonzero(values < 0)
        if missing.size:
            a, b = a[missing], b[missing]
            values[missing] = self._pass("pair_list", pairs=np.column_stack((a, b)))
            self._pairs[a, b] = self._pairs[b, a] = values[missing]
        return values

    def supports(self, itemsets):
        """Support of each itemset, as int64 (one pass; none without itemsets)."""
        itemsets = [tuple(int(i) for i in s) for s in itemsets]
        if not itemsets:
            return np.zeros(0, dtype=np.int64)
        return np.asarray(self._pass("itemsets", itemsets=itemsets), dtype=np.int64)

    def basis_bins(self, bases):
        """Bin counts of every basis, empty bins dropped, concatenated (one pass)."""
        return np.asarray(self._pass("bins", bases=[tuple(b) for b in bases]), dtype=np.int64)

    def _pair_level(self, frequent, min_support):
        """The pairs of ``frequent`` with support >= ``min_support``, lexicographic."""
        pairs = self.pair_supports(frequent)
        if not sp.issparse(pairs):  # row-major nonzero: lexicographic already
            row, col = np.nonzero(pairs >= min_support)
            level = np.column_stack((row, col)).astype(np.intp)
            return level, pairs[row, col].astype(np.int64)
        pairs = pairs.tocoo()
        keep = pairs.data >= min_support
        order = np.lexsort((pairs.col[keep], pairs.row[keep]))
        level = np.column_stack((pairs.row[keep], pairs.col[keep]))[order].astype(np.intp)
        return level, pairs.data[keep][order].astype(np.int64)

    def _extend(self, frequent, level, support, counting):
        """All joins of ``level`` (indices into ``frequent``) and their supports."""
        parent, partner, starts, ends = _joins(level)
        if isinstance(self.X, Tidsets):  # packed in memory: "bitsets" without a copy
            counting = "bitsets"
        if counting == "auto":  # the cost model of mine_levels
            sizes = ends - starts
            n_words = max(1, -(-self.n_transactions // 64))
            bitset_cost = 2.0 * n_words * float(np.sum(sizes * (sizes - 1) // 2))
            runs = sizes > 1
            run_support = np.maximum.reduceat(support, starts)[runs]
            mean_length = float(self._items.sum()) / max(1, self.n_transactions)
            group_cost = 3e5 * runs.sum() + 50.0 * mean_length * float(run_support.sum())
            counting = "bitsets" if bitset_cost <= group_cost else "groups"
        joined = np.column_stack((level[parent], level[partner, -1]))
        if not parent.size:
            return joined, np.zeros(0, dtype=np.int64)
        counts = self._pass(
            "joins",
            frequent=frequent,
            level=level,
            parent=parent,
            partner=partner,
            counting=counting,
        )
        return joined, np.asarray(counts, dtype=np.int64)

    def mine_levels(
        self, min_support, max_length=None, *, max_patterns=MAX_PATTERNS, counting="auto"
    ):
        """Every itemset with support >= ``min_support`` (apriori), one pass per level.

        Parameters
        ----------
        min_support : int
        max_length : int or None, default=None
        max_patterns : int, default=MAX_PATTERNS
            Raise a ValueError when more itemsets than this are frequent.
        counting : {"auto", "bitsets", "groups"}, default="auto"
            How levels 3 and up are counted: AND of packed tidsets (dense data), sparse
            products over the transactions of each shared prefix (sparse data), or by a
            rough cost estimate per level. The result is the same.

        Returns
        -------
        list of (ndarray, ndarray)
            The same levels as ``mine_levels``.
        """
        if min_support < 1:
            raise ValueError(f"min_support must be at least 1; got {min_support}.")
        n_items = self.n_items
        max_length = n_items if max_length is None else min(max_length, n_items)
        item_support = self.item_supports()
        frequent = np.flatnonzero(item_support >= min_support)
        if frequent.size > max_patterns:
            raise _too_many(max_patterns, min_support, max_length)
        levels = [(frequent[:, None], item_support[frequent])] if frequent.size else []
        total = frequent.size
        if max_length < 2 or frequent.size < 2:
            return levels
        level, support = self._pair_level(frequent, min_support)
        while level.shape[0]:
            total += level.shape[0]
            if total > max_patterns:
                raise _too_many(max_patterns, min_support, max_length)
            levels.append((frequent[level], support))
            if level.shape[1] >= max_length:
                break
            level, support = self._extend(frequent, level, support, counting)
            keep = support >= min_support
            level, support = level[keep], support[keep]
        return levels

    def nth_support(self, n, max_length=None):
        """The ``n``-th largest support among the itemsets of length <= ``max_length``
        with support >= 1 (0 when there are fewer), one pass per level.

        Level by level with a rising threshold ``t``, the ``n``-th largest support
        counted so far (1 until ``n`` are counted): every subset of an itemset of support
        ``s`` has support ``>= s``, so every itemset at or above the final threshold is
        counted and the result is exact (that of
        :func:`~skdp.frequent_patterns._mining.top_supports`). Once ``n`` supports are
        counted, only itemsets strictly above ``t`` are extended: an extension of one at
        ``t`` has support ``<= t`` and cannot raise the ``n``-th largest, and without
        this rule ties (one transaction holding every item: ``2**|I|`` itemsets of
        support 1) would enumerate the whole lattice. Every level extended then holds
        fewer than ``n`` itemsets. The pairs: those of the ``m`` items of largest
        support, ``m`` grown until every item left out is below ``t`` (its pairs are
        too). In memory over at most ``MAX_TIDSET_ITEMS`` items ``m`` starts where
        ``m`` items and their pairs number ``n`` and each round counts only the new
        pairs; otherwise (dask: a pass reads the data) ``m`` is every item above the
        first ``t``, one pass.

        Parameters
        ----------
        n : int
        max_length : int or None, default=None

        Returns
        -------
        int
        """
        max_length = self.n_items if max_length is None else min(max_length, self.n_items)
        item_support = self.item_supports()

        def update(best, new):
            """The n largest so far, and the least support an extended itemset needs."""
            best = np.sort(np.concatenate((best, new[new > 0])))[::-1][:n]
            return best, (int(best[n - 1]) + 1 if best.size >= n else 1)

        best, threshold = update(np.zeros(0, dtype=np.int64), item_support)
        frequent = np.flatnonzero(item_support >= threshold)
        if max_length < 2 or frequent.size < 2:
            return int(best[n - 1]) if best.size >= n else 0
        ranked = frequent[np.argsort(-item_support[frequent], kind="stable")]
        size = ranked.size
        if self._pairs is not None and not is_dask_collection(self.X):
            size = min(size, next(m for m in range(2, n + 2) if m * (m + 1) // 2 >= n))
        item_best = best
        while True:
            prefix = np.sort(ranked[:size])
            level, support = self._pair_level(prefix, 1)
            best, threshold = update(item_best, support)
            grown = int(np.count_nonzero(item_support[ranked] >= threshold))
            if grown <= size:
                break
            size = grown
        while True:
            keep = support >= threshold
            level, support = level[keep], support[keep]
            if level.shape[1] >= max_length or level.shape[0] < 2:
                break
            level, support = self._extend(prefix, level, support, "auto")
            if not level.shape[0]:
                break
            best, threshold = update(best, support)
        return int(best[n - 1]) if best.size >= n else 0
