"""Exact itemset mining and the helpers shared by the private top-k miners.

Nothing here adds noise. The exact miners compute the statistics that
:func:`~skdp.frequent_patterns._tf.tf_top_k` and
:func:`~skdp.frequent_patterns._privbasis.privbasis_top_k` perturb (or use inside a
mechanism's utility); :func:`select_without_replacement` is PrivBasis's loop of
exponential mechanisms (TF runs its own, with a block candidate).

Itemsets are tuples of sorted column indices of the transaction matrix ``X``; the
support of an itemset is the number of transactions (rows) that contain all of it.
"""

import heapq
import math

import numpy as np
import scipy.sparse as sp

from skdp.frequent_patterns._bitmask import _as_bool
from skdp.mechanisms import exponential

__all__ = [
    "MAX_PATTERNS",
    "check_transactions",
    "frequent_itemsets_exact",
    "n_itemsets",
    "select_without_replacement",
    "support_counts",
    "supports",
    "top_itemsets",
    "top_supports",
]

# public cap on the itemsets an exact mining run may return (memory and time)
MAX_PATTERNS = 2_000_000
# uint64 words per chunk of candidate tidsets (32 MiB)
_CHUNK_WORDS = 2**22


def check_transactions(X):
    """``X`` as a canonical boolean CSR matrix (sorted indices, no stored zeros).

    ``X`` is an incidence matrix of 0/1 or booleans, sparse or dense, of shape
    (n_transactions, n_items); the columns are the public item universe. Any other
    value raises a ValueError.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.sum_duplicates()
        data = _as_bool(X.data)
        X = sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional; got {X.ndim} dimension(s).")
        X = sp.csr_matrix(_as_bool(X))
    X.eliminate_zeros()
    X.sort_indices()
    if X.shape[1] == 0:
        raise ValueError("X must have at least one item column.")
    return X


def n_itemsets(n_items, max_length):
    """Exact number of itemsets of length 1 to ``max_length`` over ``n_items`` items.

    Examples
    --------
    >>> from skdp.frequent_patterns._mining import n_itemsets
    >>> n_itemsets(4, 2)
    10
    """
    return sum(math.comb(n_items, j) for j in range(1, min(max_length, n_items) + 1))


def _item_bitsets(X_csc, n_words):
    """Row set of each column as ``n_words`` uint64 words (bit ``r`` = row ``r``)."""
    columns = np.repeat(np.arange(X_csc.shape[1]), np.diff(X_csc.indptr))
    rows = X_csc.indices.astype(np.int64)
    flat = columns * n_words + (rows >> 6)
    bits = np.left_shift(np.uint64(1), (rows & 63).astype(np.uint64))
    bitsets = np.zeros(X_csc.shape[1] * n_words, dtype=np.uint64)
    if flat.size:  # rows are sorted within a column: equal words are adjacent
        starts = np.flatnonzero(np.r_[True, flat[1:] != flat[:-1]])
        bitsets[flat[starts]] = np.bitwise_or.reduceat(bits, starts)
    return bitsets.reshape(X_csc.shape[1], n_words)


def _groups(level):
    """Start and end rows of the runs of ``level`` that share all but the last item."""
    n = level.shape[0]
    new_group = np.any(level[1:, :-1] != level[:-1, :-1], axis=1)
    starts = np.flatnonzero(np.concatenate(([True], new_group)))
    return starts, np.concatenate((starts[1:], [n]))


def _joins(level):
    """The apriori joins of a sorted level: ``(parent, partner)``, ``parent < partner``
    in one run of shared prefixes, in lexicographic order of the joined itemsets."""
    starts, ends = _groups(level)
    sizes = ends - starts
    counts = np.repeat(ends, sizes) - np.arange(level.shape[0]) - 1
    parent = np.repeat(np.arange(level.shape[0]), counts)
    partner = parent + 1 + np.arange(parent.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return parent, partner, starts, ends


def _rows_containing(X_csc, itemset):
    rows = X_csc.indices[X_csc.indptr[itemset[0]] : X_csc.indptr[itemset[0] + 1]]
    for item in itemset[1:]:
        column = X_csc.indices[X_csc.indptr[item] : X_csc.indptr[item + 1]]
        rows = np.intersect1d(rows, column, assume_unique=True)
    return rows


def _too_many(max_patterns, min_support, max_length):
    return ValueError(
        f"More than {max_patterns} itemsets of length <= {max_length} have support >= "
        f"{min_support}: raise min_support or lower max_length."
    )


def mine_levels(X, min_support, max_length=None, *, max_patterns=MAX_PATTERNS, counting="auto"):
    """Every itemset with support >= ``min_support``, level by level (apriori).

    Level 1 counts the columns, level 2 is the sparse product ``X^T X``; longer
    itemsets join two frequent itemsets of the previous level that differ in their
    last item and count the candidate exactly by intersecting packed tidsets (the
    join alone, without the subset-pruning step: counting is exact either way).

    Parameters
    ----------
    X : sparse matrix of shape (n_transactions, n_items)
        Output of :func:`check_transactions`.
    min_support : int
        At least 1.
    max_length : int or None
        Longest itemset; None for no limit.
    max_patterns : int
        Raise a ValueError when more itemsets than this are frequent.
    counting : {"auto", "bitsets", "groups"}
        How levels 3 and up are counted: AND of packed tidsets (dense data), sparse
        products over the transactions of each shared prefix (sparse data), or by a
        rough cost estimate per level. The result is the same.

    Returns
    -------
    list of (ndarray of shape (n_L, L), ndarray of shape (n_L,))
        One pair per non-empty level: the itemsets (rows of sorted column indices, in
        lexicographic order) and their supports (int64).
    """
    from skdp.frequent_patterns._counts import TransactionCounts  # it builds on this module

    counts = TransactionCounts(X)
    return counts.mine_levels(
        min_support, max_length, max_patterns=max_patterns, counting=counting
    )


def frequent_itemsets_exact(X, min_support, max_length=None, *, max_patterns=MAX_PATTERNS):
    """All itemsets with support at least ``min_support``, with their supports.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_transactions, n_items)
        Boolean incidence matrix.
    min_support : int
        Smallest support kept, at least 1.
    max_length : int or None, default=None
        Longest itemset; None for no limit.
    max_patterns : int, default=MAX_PATTERNS
        Public cap on the output size: a ValueError asks to raise ``min_support`` or
        lower ``max_length`` when more itemsets are frequent.

    Returns
    -------
    itemsets : list of tuple of int
        Sorted column indices; shorter itemsets first, then lexicographic.
    supports : ndarray of shape (len(itemsets),), int64

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.frequent_patterns._mining import frequent_itemsets_exact
    >>> X = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]])
    >>> itemsets, supports = frequent_itemsets_exact(X, 2)
    >>> list(zip(itemsets, supports.tolist()))
    [((0,), 2), ((1,), 3), ((2,), 2), ((0, 1), 2), ((1, 2), 2)]
    """
    levels = mine_levels(check_transactions(X), min_support, max_length, max_patterns=max_patterns)
    itemsets = [tuple(row) for level, _ in levels for row in level.tolist()]
    supports = np.concatenate([s for _, s in levels]) if levels else np.zeros(0, np.int64)
    return itemsets, supports.astype(np.int64)


def supports(X, itemsets):
    """Exact support of each itemset (the empty itemset: every transaction).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.frequent_patterns._mining import supports
    >>> supports(np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]]), [(0, 1), (2,)]).tolist()
    [2, 2]
    """
    return support_counts(check_transactions(X).tocsc(), itemsets)


def support_counts(X_csc, itemsets):
    """:func:`supports` on a checked matrix in CSC format."""
    return np.array(
        [_rows_containing(X_csc, s).size if len(s) else X_csc.shape[0] for s in itemsets],
        dtype=np.int64,
    )


def top_itemsets(X, n, max_length=None):
    """The ``n`` itemsets of largest support, exactly, by best-first search.

    Ties are broken by the lexicographic order of the itemsets. Pops itemsets from a
    max-heap of supports; popping ``P`` pushes its extensions by a later item, counted
    at once over the transactions containing ``P``. An extension never has more support
    than ``P`` (and sorts after it), so pops come out in the final order; extensions
    below the ``n``-th largest support seen so far are never pushed.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_transactions, n_items)
    n : int
        Number of itemsets wanted.
    max_length : int or None, default=None
        Longest itemset; None for no limit.

    Returns
    -------
    itemsets : list of tuple of int
        At most ``n``: fewer only when fewer itemsets have support >= 1.
    supports : ndarray of int64
        Non-increasing.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.frequent_patterns._mining import top_itemsets
    >>> X = np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]])
    >>> top_itemsets(X, 3)
    ([(1,), (0,), (0, 1)], array([3, 2, 2]))
    """
    X = check_transactions(X)
    return top_supports(X, X.tocsc(), n, max_length)


def top_supports(X, X_csc, n, max_length=None):
    """:func:`top_itemsets` on a checked matrix, given in CSR and CSC formats."""
    n_items = X.shape[1]
    max_length = n_items if max_length is None else max_length
    item_support = np.bincount(X.indices, minlength=n_items)
    best = sorted(item_support[item_support > 0].tolist())[-n:]  # min-heap of n supports
    heap = [(-int(s), (j,)) for j, s in enumerate(item_support.tolist()) if s > 0]
    heapq.heapify(heap)
    found, found_support = [], []
    while heap and len(found) < n:
        negative_support, itemset = heapq.heappop(heap)
        found.append(itemset)
        found_support.append(-negative_support)
        if len(itemset) >= max_length or itemset[-1] == n_items - 1:
            continue
        rows = _rows_containing(X_csc, itemset)
        counts = np.bincount(X[rows].indices, minlength=n_items)[itemset[-1] + 1 :]
        bound = best[0] if len(best) >= n else 1
        for offset in np.flatnonzero(counts >= bound).tolist():
            count = int(counts[offset])
            heapq.heappush(heap, (-count, (*itemset, itemset[-1] + 1 + offset)))
            if len(best) < n:
                heapq.heappush(best, count)
            elif count > best[0]:
                heapq.heapreplace(best, count)
    return found, np.asarray(found_support, dtype=np.int64)


def select_without_replacement(scores, n_select, *, epsilon, rng):
    """``n_select`` rounds of the monotone exponential mechanism without replacement.

    Each round calls :func:`skdp.mechanisms.exponential` with ``monotonic=True``,
    ``sensitivity=1`` and ``epsilon`` on the candidates not yet chosen, so the loop
    spends ``n_select * epsilon``. Valid for scores that are counts under add/remove
    one record (each moves by 0 or +1 together): the chosen candidates are public
    once released, so each round's range is fixed by the earlier outputs.

    Parameters
    ----------
    scores : array-like of shape (n_candidates,)
    n_select : int
        At most ``n_candidates``.
    epsilon : float
        Budget of one round.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_select,), int
        Indices into ``scores``, in the order chosen.
    """
    scores = np.asarray(scores, dtype=float)
    if n_select > scores.size:
        raise ValueError(f"cannot select {n_select} of {scores.size} candidates")
    remaining = np.arange(scores.size)
    chosen = []
    for _ in range(n_select):
        pick = exponential(
            scores[remaining], sensitivity=1, epsilon=epsilon, monotonic=True, random_state=rng
        )
        chosen.append(remaining[pick])
        remaining = np.concatenate((remaining[:pick], remaining[pick + 1 :]))
    return np.asarray(chosen, dtype=np.intp)
