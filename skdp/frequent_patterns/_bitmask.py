"""Transactions projected onto a public item set ``I`` as 64-bit masks, and their counts.

Bit ``j`` of a transaction's mask says whether it contains the ``j``-th item of ``I``
(``len(I) <= 63``). The bin count of a mask ``S`` is the number of transactions whose
projection onto ``I`` is exactly ``S``; its sum over the supersets of ``S`` (a zeta
transform) is the support of the itemset ``S``. Nothing here adds noise: these are the
exact kernels that private frequent itemset mining perturbs.
"""

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = [
    "MAX_BINS_ITEMS",
    "MAX_ITEMS",
    "mask_counts",
    "masks_to_itemsets",
    "pack_transactions",
    "popcount",
    "superset_differences",
    "superset_sums",
    "truncate_masks",
    "word_popcounts",
]

# bits of a uint64 mask that item sets may use (the top bit stays clear)
MAX_ITEMS = 63
# a memory cap on the dense bin counts: 2**26 int64 counts take 512 MiB
MAX_BINS_ITEMS = 26

_ONE = np.uint64(1)
_BYTE_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def pack_transactions(X, columns):
    """Pack each transaction's items among ``columns`` into the bits of a uint64.

    Parameters
    ----------
    X : {array-like, sparse matrix, DataFrame} of shape (n_transactions, n_columns)
        Boolean or 0/1 incidence matrix: a numpy array, any scipy sparse matrix or array,
        or a DataFrame of booleans. A DataFrame whose selected columns are all sparse
        (fill value 0 or False) is converted to a scipy matrix without densifying.
    columns : sequence of int
        Distinct column indices of the public item set ``I``, at most 63; column
        ``columns[j]`` becomes bit ``j``.

    Returns
    -------
    ndarray of shape (n_transactions,), uint64

    Raises
    ------
    ValueError
        When ``columns`` has more than 63 entries, duplicates or indices out of range,
        or a selected column holds a value other than 0, 1, False or True.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.frequent_patterns._bitmask import pack_transactions
    >>> X = np.array([[1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> pack_transactions(X, [2, 0]).tolist()
    [3, 1, 0]
    """
    if isinstance(X, pd.DataFrame):
        X = _frame_columns(X, _check_columns(columns, X.shape[1]))
        columns = range(X.shape[1])
    if sp.issparse(X):
        return _pack_sparse(sp.csr_matrix(X), _check_columns(columns, X.shape[1]))
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional; got {X.ndim} dimension(s).")
    selected = _as_bool(X[:, _check_columns(columns, X.shape[1])])
    padded = np.zeros((X.shape[0], 64), dtype=bool)
    padded[:, : selected.shape[1]] = selected
    return np.packbits(padded, axis=1, bitorder="little").view("<u8")[:, 0].astype(np.uint64)


def _check_columns(columns, n_columns):
    columns = np.asarray(columns)
    if columns.size == 0:
        return np.zeros(0, dtype=np.intp)
    if columns.ndim != 1 or columns.dtype.kind not in "iu":
        raise ValueError("columns must be a 1-dimensional sequence of integer indices.")
    if len(columns) > MAX_ITEMS:
        raise ValueError(f"At most {MAX_ITEMS} columns fit in a uint64 mask; got {len(columns)}.")
    if columns.min() < 0 or columns.max() >= n_columns:
        raise ValueError(f"columns must be in [0, {n_columns}); got {columns.tolist()}.")
    if len(np.unique(columns)) != len(columns):
        raise ValueError(f"columns must be distinct; got {columns.tolist()}.")
    return columns.astype(np.intp)


def _frame_columns(frame, columns):
    """The selected columns of a DataFrame: a scipy matrix if all are sparse, else dense."""
    selected = frame.iloc[:, columns]
    if selected.shape[1] == 0:
        return np.zeros((len(frame), 0), dtype=bool)
    if all(_sparse_with_zero_fill(dtype) for dtype in selected.dtypes):
        return selected.sparse.to_coo()
    return np.column_stack([column.to_numpy() for _, column in selected.items()])


def _sparse_with_zero_fill(dtype):
    if not isinstance(dtype, pd.SparseDtype):
        return False
    return pd.notna(dtype.fill_value) and dtype.fill_value == 0


def _pack_sparse(X, columns):
    selected = X[:, columns]
    selected.sum_duplicates()
    shifts = selected.indices.astype(np.uint64)
    bits = np.where(_as_bool(selected.data), _ONE << shifts, np.uint64(0))
    starts = selected.indptr[:-1]
    # reduceat reads one element for an empty row: pad, then zero the empty rows
    masks = np.bitwise_or.reduceat(np.append(bits, np.uint64(0)), starts)
    masks[starts == selected.indptr[1:]] = 0
    return masks.astype(np.uint64, copy=False)


def _as_bool(values):
    """Boolean copy (or view) of ``values``; ValueError unless every entry is 0 or 1."""
    values = np.asarray(values)
    if values.dtype == bool:
        return values
    is_one = np.asarray(values == 1, dtype=bool)
    bad = ~(is_one | np.asarray(values == 0, dtype=bool))
    if bad.any():
        found = values.ravel()[[np.argmax(bad)]].tolist()[0]
        raise ValueError(
            f"X must hold only 0/1 or boolean values; found {found!r} "
            f"({int(bad.sum())} such value(s))."
        )
    return is_one


def _as_masks(masks):
    masks = np.asarray(masks)
    if masks.dtype.kind not in "iu":
        raise ValueError(f"masks must be integers; got dtype {masks.dtype}.")
    if masks.dtype.kind == "i" and (masks < 0).any():
        raise ValueError("masks must be non-negative.")
    return masks.astype(np.uint64, copy=False)


def mask_counts(masks, n_items):
    """Number of transactions whose mask is exactly ``S``, for every ``S`` in ``[0, 2**n_items)``.

    Parameters
    ----------
    masks : array-like of shape (n_transactions,), uint64
        From :func:`pack_transactions`.
    n_items : int
        Size of the item set, at most 26 (the result has ``2**n_items`` entries).

    Returns
    -------
    ndarray of shape (2**n_items,), int64

    Raises
    ------
    ValueError
        When ``n_items`` exceeds 26 (the counts would take more than 512 MiB) or a mask
        has a bit at position ``n_items`` or above.

    Examples
    --------
    >>> from skdp.frequent_patterns._bitmask import mask_counts
    >>> mask_counts([3, 1, 0, 3], 2).tolist()
    [1, 1, 0, 2]
    """
    if not 0 <= n_items <= MAX_BINS_ITEMS:
        raise ValueError(
            f"n_items must be in [0, {MAX_BINS_ITEMS}]: 2**n_items int64 counts must fit "
            f"in memory; got {n_items}."
        )
    masks = _as_masks(masks).ravel()
    if masks.size and masks.max() >> np.uint64(n_items):
        raise ValueError(f"A mask has a bit at position {n_items} or above.")
    counts = np.bincount(masks.astype(np.intp), minlength=2**n_items)
    return counts.astype(np.int64, copy=False)


def _n_bits(values):
    size = len(values)
    if size == 0 or size & (size - 1):
        raise ValueError(f"values must have a power-of-two length 2**k; got {size}.")
    return size.bit_length() - 1


def _butterfly(values, subtract):
    values = np.array(values, copy=True)
    if values.ndim != 1:
        raise ValueError(f"values must be 1-dimensional; got shape {values.shape}.")
    if values.dtype == bool:
        values = values.astype(np.int64)
    k = _n_bits(values)
    for i in range(k):
        # index = a * 2**(i+1) + b * 2**i + c: the middle axis is bit i of the index
        pairs = values.reshape(2 ** (k - i - 1), 2, 2**i)
        if subtract:
            pairs[:, 0, :] -= pairs[:, 1, :]
        else:
            pairs[:, 0, :] += pairs[:, 1, :]
    return values


def superset_sums(values):
    """Zeta transform over supersets: ``f(S) = sum(values[T] for T ⊇ S)``.

    With the bin counts of :func:`mask_counts` as ``values``, ``f(S)`` is the support
    of the itemset ``S`` (the number of transactions that contain it; ``f(0)`` is the
    number of transactions). Runs in ``O(k 2**k)``.

    Parameters
    ----------
    values : array-like of shape (2**k,)
        Indexed by the masks of the subsets of ``k`` items.

    Returns
    -------
    ndarray of shape (2**k,)
        A new array of the same dtype (booleans become int64).

    Examples
    --------
    >>> from skdp.frequent_patterns._bitmask import superset_sums
    >>> superset_sums([1, 1, 0, 2]).tolist()
    [4, 3, 2, 2]
    """
    return _butterfly(values, subtract=False)


def superset_differences(values):
    """Möbius transform over supersets, the inverse of :func:`superset_sums`.

    ``superset_differences(superset_sums(c))`` equals ``c``: from the supports of all
    itemsets it recovers the bin counts, ``c(S) = sum((-1)**|T - S| f(T) for T ⊇ S)``.

    Parameters
    ----------
    values : array-like of shape (2**k,)

    Returns
    -------
    ndarray of shape (2**k,)
        A new array of the same dtype (booleans become int64).

    Examples
    --------
    >>> from skdp.frequent_patterns._bitmask import superset_differences
    >>> superset_differences([4, 3, 2, 2]).tolist()
    [1, 1, 0, 2]
    """
    return _butterfly(values, subtract=True)


def popcount(masks):
    """Number of set bits of each mask.

    Parameters
    ----------
    masks : array-like of non-negative int

    Returns
    -------
    ndarray of int64, of the shape of ``masks``

    Examples
    --------
    >>> from skdp.frequent_patterns._bitmask import popcount
    >>> popcount([0, 1, 6, 2**63 - 1]).tolist()
    [0, 1, 2, 63]
    """
    return word_popcounts(_as_masks(masks)).astype(np.int64)


def word_popcounts(words):
    """The number of set bits of each entry of an unsigned 64-bit integer array (uint8).

    ``np.bitwise_count`` on numpy 2; on numpy 1 a table of the 256 byte counts, read
    through a byte view (one byte of temporary memory per byte of ``words``).
    """
    words = np.asarray(words, dtype="<u8")
    if _HAS_BITWISE_COUNT:
        return np.bitwise_count(words)
    as_bytes = words.reshape(*words.shape, 1).view(np.uint8)
    return _BYTE_POPCOUNT[as_bytes].sum(axis=-1, dtype=np.uint8)


_HAS_BITWISE_COUNT = hasattr(np, "bitwise_count")  # numpy >= 2.0


def masks_to_itemsets(masks, items):
    """The itemset of each mask: bit ``j`` stands for ``items[j]``.

    Parameters
    ----------
    masks : array-like of shape (n_masks,), uint64
    items : sequence
        The public item labels, in the order of the bits.

    Returns
    -------
    list of frozenset

    Raises
    ------
    ValueError
        When a mask has a bit at position ``len(items)`` or above.

    Examples
    --------
    >>> from skdp.frequent_patterns._bitmask import masks_to_itemsets
    >>> itemsets = masks_to_itemsets([5, 0, 2], ["bread", "milk", "eggs"])
    >>> itemsets == [frozenset({"bread", "eggs"}), frozenset(), frozenset({"milk"})]
    True
    """
    items = list(items)
    masks = _as_masks(masks).ravel()
    if masks.size and len(items) < 64 and masks.max() >> np.uint64(len(items)):
        raise ValueError(f"A mask has a bit at position {len(items)} or above.")
    distinct, inverse = np.unique(masks, return_inverse=True)
    shifts = np.arange(min(len(items), 64), dtype=np.uint64)
    has_item = ((distinct[:, None] >> shifts) & _ONE).astype(bool)
    itemsets = [frozenset(items[j] for j in np.flatnonzero(row)) for row in has_item]
    return [itemsets[i] for i in inverse.ravel()]


def truncate_masks(masks, max_length):
    """Keep the ``max_length`` lowest set bits of each mask (the first items of ``I``).

    The truncation is data independent: it looks only at each transaction's own items
    and the public order of ``I``, so one transaction changes only its own mask.

    Parameters
    ----------
    masks : array-like of uint64
    max_length : int
        Non-negative.

    Returns
    -------
    ndarray of uint64, of the shape of ``masks``

    Examples
    --------
    >>> from skdp.frequent_patterns._bitmask import truncate_masks
    >>> truncate_masks([0b1011, 0b0110, 0b1000], 2).tolist()
    [3, 6, 8]
    """
    if max_length < 0:
        raise ValueError(f"max_length must be non-negative; got {max_length}.")
    masks = _as_masks(masks).copy()
    long = popcount(masks) > max_length
    rest = masks[long]
    kept = np.zeros_like(rest)
    for _ in range(max_length):
        lowest = rest & (~rest + _ONE)  # two's complement: the lowest set bit
        kept |= lowest
        rest ^= lowest
    masks[long] = kept
    return masks
