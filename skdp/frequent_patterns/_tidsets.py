"""Dense transactions over a few items as packed tidsets: exact counts by AND and popcount.

A dense boolean block of ``n`` transactions over ``q`` items is stored as ``q`` bitsets
of ``n`` bits (the tidset of each item, 64 rows per uint64 word): ``q n / 8`` bytes, an
eighth of the boolean matrix. Every count that PrivBasis and TF read is then a popcount:
an itemset's support is the popcount of the AND of its items' tidsets, and a basis's bin
counts are a ``bincount`` of each row's code over the basis, unpacked from the tidsets.
:class:`~skdp.frequent_patterns._counts.TransactionCounts` reads dense blocks through
:class:`Tidsets` (no sparse matrix is built) and sparse ones as CSR. The counts are the
same exact integers either way; nothing here adds noise.
"""

from functools import lru_cache

import numpy as np
import scipy.sparse as sp

from skdp.frequent_patterns._bitmask import _as_bool, superset_differences, word_popcounts
from skdp.frequent_patterns._mining import check_transactions

__all__ = ["MAX_TIDSET_ITEMS", "Tidsets", "prepare_counts", "upper_pairs"]

# dense blocks over at most this many items are packed into tidsets; wider ones are
# read as sparse matrices (the all-pairs supports cost q**2 / 2 tidset ANDs)
MAX_TIDSET_ITEMS = 256
# rows transposed at a time while packing (a multiple of 64: whole words per block)
_PACK_ROWS = 2**13
# groups of 8 rows packed at a time from the rows of a C-ordered block
_PACK_GROUPS = 2**13
# tidset words ANDed at a time (8 KiB per item) and bytes of ANDed words per chunk
_BLOCK_WORDS = 1024
_CHUNK_BYTES = 2**21
# tidset bytes (8 rows each) coded over a basis at a time
_CODE_BYTES = 2**13
# bases of at most this many items count their bins from the supports of their 2**size
# subsets (ANDs and popcounts of the tidsets); longer ones code every row over them
_SUBSET_BASIS = 7
# bytes of the subsets' ANDs held at a time (word blocks of at least _BLOCK_WORDS)
_SUBSET_BYTES = 2**20


@lru_cache(maxsize=64)
def upper_pairs(size):
    """``np.triu_indices(size, k=1)``, cached (read-only arrays)."""
    first, second = np.triu_indices(size, k=1)
    first.flags.writeable = second.flags.writeable = False
    return first, second


def _row_word(X):
    """The unsigned word of 8 or 4 bytes that tiles a row of ``X``, or None."""
    if X.dtype != bool or not X.flags.c_contiguous or X.shape[0] < 8:
        return None
    for size in (8, 4):
        if X.shape[1] % size == 0:
            return np.dtype(f"u{size}")
    return None


def _pack_row_groups(X, word, packed):
    """Byte ``m`` of every tidset in ``packed`` from rows ``8 m .. 8 m + 7`` of ``X``.

    A row of booleans read as words holds one 0/1 byte per item. Row ``k`` of a group
    times ``2**k``, summed over the 8 rows of the group (one ``matmul`` of the group's
    ``8 x words`` block with the powers of two), sets bit ``k`` of the byte of item
    ``j`` when row ``8 m + k`` holds it: the little-endian packed byte, whatever the
    byte order of the words (the bits are disjoint: no carry leaves a byte).
    """
    groups = X.shape[0] // 8
    words = X[: 8 * groups].view(word).reshape(groups, 8, -1)
    powers = np.left_shift(word.type(1), np.arange(8, dtype=word))
    for start in range(0, groups, _PACK_GROUPS):
        block = words[start : start + _PACK_GROUPS]
        out = np.matmul(block.transpose(0, 2, 1), powers)
        packed[:, start : start + block.shape[0]] = out.view(np.uint8).T
    return 8 * groups


def _pack_columns(X):
    """The tidsets of the columns of a dense boolean ``X``: (n_columns, n_words) uint64."""
    n, q = X.shape
    n_words = max(1, -(-n // 64))
    packed = np.zeros((q, 8 * n_words), dtype=np.uint8)
    word = _row_word(X)
    done = 0 if word is None else _pack_row_groups(X, word, packed)
    for start in range(done, n, _PACK_ROWS):
        block = np.ascontiguousarray(X[start : start + _PACK_ROWS].T)
        stop = start // 8 + -(-block.shape[1] // 8)
        packed[:, start // 8 : stop] = np.packbits(block, axis=1, bitorder="little")
    return packed.view("<u8")


def _and_popcounts(words, itemsets):
    """Popcount of the AND of the tidsets ``words[itemset]`` of each row of ``itemsets``.

    Word blocks of at least ``_BLOCK_WORDS`` (more for few itemsets) and itemset chunks
    small enough that the operands stay in cache; the counts add up over the blocks.
    """
    out = np.zeros(itemsets.shape[0], dtype=np.int64)
    step = max(_BLOCK_WORDS, _CHUNK_BYTES // (8 * max(1, itemsets.shape[0])))
    chunk = max(1, _CHUNK_BYTES // (8 * step))
    for begin in range(0, words.shape[1], step):
        block = words[:, begin : begin + step]
        for start in range(0, itemsets.shape[0], chunk):
            rows = itemsets[start : start + chunk]
            joint = block[rows[:, 0]]
            for column in range(1, rows.shape[1]):
                joint &= block[rows[:, column]]
            out[start : start + rows.shape[0]] += np.add.reduce(
                word_popcounts(joint), axis=1, dtype=np.int64
            )
    return out


def _spread_table():
    """Byte ``b`` spread over the 8 bytes of a uint64: byte ``k`` is bit ``k`` of ``b``."""
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    return np.ascontiguousarray(bits).view("<u8")[:, 0]


_SPREAD = _spread_table()


class Tidsets:
    """The transactions of a dense block as one packed tidset per item.

    Parameters
    ----------
    X : ndarray of shape (n_transactions, n_items)
        Booleans or 0/1 (anything else raises a ValueError, as
        :func:`~skdp.frequent_patterns._mining.check_transactions` does).

    Attributes
    ----------
    shape : tuple of int
        ``(n_transactions, n_items)``.
    words : ndarray of shape (n_items, ceil(n_transactions / 64)), uint64
        Bit ``r % 64`` of word ``r // 64`` of row ``j``: transaction ``r`` holds item ``j``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.frequent_patterns._tidsets import Tidsets
    >>> tidsets = Tidsets(np.array([[1, 1, 0], [1, 1, 1], [0, 1, 1]]))
    >>> tidsets.item_supports().tolist()
    [2, 3, 2]
    >>> tidsets.supports(np.array([[0, 1], [1, 2]])).tolist()
    [2, 2]
    """

    def __init__(self, X):
        X = _as_bool(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional; got {X.ndim} dimension(s).")
        if X.shape[1] == 0:
            raise ValueError("X must have at least one item column.")
        self.shape = X.shape
        self.words = _pack_columns(X)

    def item_supports(self):
        """Support of every item, int64."""
        return word_popcounts(self.words).sum(axis=1, dtype=np.int64)

    def pair_supports(self, columns):
        """Upper triangle (above the diagonal) of the pair supports among ``columns``.

        Returns
        -------
        ndarray of shape (len(columns), len(columns)), int64
            Zero on and below the diagonal (dense: at most ``MAX_TIDSET_ITEMS`` items).
        """
        columns = np.asarray(columns, dtype=np.intp)
        size = columns.size
        out = np.zeros((size, size), dtype=np.int64)
        first, second = upper_pairs(size)
        out[first, second] = self.supports(np.column_stack((columns[first], columns[second])))
        return out

    def supports(self, itemsets):
        """Support of each row of ``itemsets`` (an int array of columns, one length)."""
        itemsets = np.asarray(itemsets, dtype=np.intp)
        if itemsets.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        return _and_popcounts(self.words, itemsets)

    def contains(self, itemsets):
        """Whether each transaction holds each itemset (tuples of columns, non-empty).

        Returns
        -------
        ndarray of shape (n_transactions, len(itemsets)), bool
        """
        n = self.shape[0]
        out = np.empty((n, len(itemsets)), dtype=bool)
        for j, itemset in enumerate(itemsets):
            joint = np.bitwise_and.reduce(self.words[list(itemset)], axis=0)
            out[:, j] = np.unpackbits(joint.view(np.uint8), count=n, bitorder="little")
        return out

    def bins(self, basis):
        """Number of transactions whose items among ``basis`` are exactly ``S``, for every
        ``S`` (bit ``j`` of ``S``: ``basis[j]``), the empty one included.

        A basis of at most ``_SUBSET_BASIS`` items: the Möbius inversion (over supersets)
        of the supports of its ``2**len(basis)`` subsets; a longer one: a ``bincount`` of
        every row's code over it. The same exact counts.

        Returns
        -------
        ndarray of shape (2**len(basis),), int64
        """
        if len(basis) <= _SUBSET_BASIS:
            return superset_differences(self._subset_supports(basis))
        return self._coded_bins(basis)

    def _subset_supports(self, basis):
        """Support of every subset ``S`` of ``basis`` (bit ``j``: ``basis[j]``), by
        building the ANDs of the tidsets one item at a time, one word block at a time."""
        size, words = len(basis), self.words
        out = np.zeros(2**size, dtype=np.int64)
        out[0] = self.shape[0]
        step = max(_BLOCK_WORDS, _SUBSET_BYTES // (8 * 2**size))
        joint = np.empty((2**size, min(step, words.shape[1])), dtype=np.uint64)
        for begin in range(0, words.shape[1], step):
            block = words[:, begin : begin + step]
            part = joint[:, : block.shape[1]]
            for bit, item in enumerate(basis):
                half = 1 << bit
                part[half] = block[item]
                np.bitwise_and(part[1:half], block[item], out=part[half + 1 : 2 * half])
            out[1:] += np.add.reduce(word_popcounts(part[1:]), axis=1, dtype=np.int64)
        return out

    def _coded_bins(self, basis):
        """:meth:`bins` by a ``bincount`` of every row's code over ``basis``."""
        n, size = self.shape[0], len(basis)
        as_bytes = self.words.view(np.uint8)[:, : -(-n // 8)]
        dtype = np.uint16 if size <= 16 else np.uint32
        counts = np.zeros(2**size, dtype=np.int64)
        for start in range(0, as_bytes.shape[1], _CODE_BYTES):
            chunk = as_bytes[:, start : start + _CODE_BYTES]
            codes = np.zeros(8 * chunk.shape[1], dtype=dtype)
            # 8 items at a time: one byte per row, 8 rows per uint64 (the spread table)
            for group in range(0, size, 8):
                lanes = np.zeros(chunk.shape[1], dtype="<u8")
                for bit, item in enumerate(basis[group : group + 8]):
                    lanes |= _SPREAD.take(chunk[item]) << np.uint64(bit)
                codes |= lanes.view(np.uint8).astype(dtype) << dtype(group)
            counts += np.bincount(codes, minlength=2**size)
        counts[0] -= 8 * as_bytes.shape[1] - n  # the padding rows of the last byte
        return counts


def prepare_counts(X):
    """``X`` as :class:`~skdp.frequent_patterns._counts.TransactionCounts` reads it.

    A dense ``X`` over at most ``MAX_TIDSET_ITEMS`` items becomes :class:`Tidsets`;
    anything else the checked boolean CSR matrix of
    :func:`~skdp.frequent_patterns._mining.check_transactions`. A rule on the format and
    the public number of columns only: both give the same exact counts.

    Parameters
    ----------
    X : {array-like, sparse matrix, Tidsets} of shape (n_transactions, n_items)

    Returns
    -------
    Tidsets or csr_matrix
    """
    if isinstance(X, Tidsets) or sp.issparse(X):
        return X if isinstance(X, Tidsets) else check_transactions(X)
    X = np.asarray(X)
    if X.ndim == 2 and 0 < X.shape[1] <= MAX_TIDSET_ITEMS:
        return Tidsets(X)
    return check_transactions(X)
