"""Exact counts of the private bounds' scans: one pass over the rows, from the bits.

:func:`feature_counts` gives, for every column, the counts that a sort of ``|x_j|``
gives for the grid of :func:`skdp.utils._quantiles.scan_quantile` and the signs of
``x_j`` (:func:`skdp.utils._bounds_scan.column_counts`, the reference), with no sort:
each value's bit pattern is mapped to its key ``(sign, #{candidates <= |x|})`` by one
gather in a table of ``2**16`` cells (:func:`_bit_tables`, :func:`_sum_table`), and the
keys are counted. Split from :mod:`skdp.utils._bounds_scan`, which re-exports both
public names. Counting is exact (integers), so it changes no release.
"""

import numpy as np

from skdp.utils._grid_index import add_counts
from skdp.utils._quantiles import _ANCHORED_GRID

__all__ = ["as_numeric", "feature_counts"]

_CELLS = 2**15  # values per block of feature_counts (a few hundred kB of temporaries)


def _bit_tables(candidates):
    """Lookup tables that count the candidates at or below ``|x|`` from its bits.

    Non-negative float64 values are ordered as their bit patterns (as int64), zero and
    subnormals included. The thresholds are the candidates' bit patterns with the
    smallest subnormal (bits ``1``) added after the anchor 0, so that ``x = 0`` and
    ``x != 0`` fall on different sides (the sign counts). A cell is the ``2**_SHIFT``
    bit patterns sharing their top bits; ``first[k]`` counts the thresholds at or below
    the cell's start and ``inside[k]`` is the one threshold strictly inside it (an
    int64 maximum if none; never two: checked). Then
    ``#{t <= b} = first[b >> _SHIFT] + (b >= inside[b >> _SHIFT])`` exactly.
    """
    thresholds = np.concatenate([[0, 1], candidates[1:].view(np.int64)])
    if candidates[0] != 0 or not np.all(np.diff(thresholds) > 0):
        raise ValueError("the candidates must be 0 then increasing positive values")
    starts = np.arange((0x7FF << 52 >> _SHIFT) + 1, dtype=np.int64) << _SHIFT
    first = np.searchsorted(thresholds, starts, side="right")
    cell = thresholds >> _SHIFT
    strict = thresholds > cell << _SHIFT
    if np.unique(cell[strict]).size != np.count_nonzero(strict):
        raise ValueError("two candidates share a cell of feature_counts' table")
    inside = np.full(starts.size, np.iinfo(np.int64).max)
    inside[cell[strict]] = thresholds[strict]
    return first, inside


_SHIFT = 52 - 4  # a cell is 1/16 of an octave: the grid's quarter steps fall apart
_FIRST, _INSIDE = _bit_tables(_ANCHORED_GRID)


def _sum_table(first, inside, n_keys):
    """One gather table ``T`` such that ``(T[b >> _SHIFT] + b) >> (_SHIFT + 1)`` is the key.

    For the bit pattern ``b`` (uint64) of a value, its cell ``c = b >> _SHIFT`` holds the
    sign bit ``s`` and the top bits ``k`` of ``|x|``; ``low = b - (c << _SHIFT)``. The
    key is ``F + [low >= L]`` with ``F = s n_keys + first[k]`` and ``L`` the offset of
    ``inside[k]`` in its cell (``2**_SHIFT``, never reached, when the cell has none): the
    key ``(sign, #{thresholds <= |x|})`` of :func:`_bit_tables`. With
    ``T[c] = F 2**(_SHIFT + 1) + 2**(_SHIFT + 1) - L - (c << _SHIFT)`` (mod ``2**64``),
    ``T[c] + b = F 2**(_SHIFT + 1) + (2**(_SHIFT + 1) - L + low)`` and the bracket lies in
    ``[2**_SHIFT, 2**(_SHIFT + 1) + 2**_SHIFT)``, at or above ``2**(_SHIFT + 1)`` exactly
    when ``low >= L``: one gather, one add and one shift give the key, exactly (the sum
    stays below ``2**64`` for ``F < 2**15 - 1``). Cells of no finite value (NaN patterns)
    get ``F = 2 n_keys``, a slot of their own (:func:`feature_counts` refuses a count
    there).
    """
    half, low_bits = 1 << (63 - _SHIFT), 1 << _SHIFT
    entries = np.full(2 * half, 2 * n_keys, dtype=np.uint64)  # F
    lows = np.full(2 * half, low_bits, dtype=np.uint64)  # L
    cells = np.arange(first.size, dtype=np.int64)
    offset = np.where(inside == np.iinfo(np.int64).max, low_bits, inside - (cells << _SHIFT))
    for sign in (0, 1):
        entries[sign * half : sign * half + first.size] = first + sign * n_keys
        lows[sign * half : sign * half + first.size] = offset
    starts = np.arange(2 * half, dtype=np.uint64) << np.uint64(_SHIFT)
    # uint64 arithmetic wraps modulo 2**64 (silently, on arrays)
    return (entries << np.uint64(_SHIFT + 1)) + np.uint64(2 * low_bits) - lows - starts


_N_KEYS = _ANCHORED_GRID.size + 2  # keys per sign: #{thresholds <= |x|} in 0..G+1
_SUM_TABLE = _sum_table(_FIRST, _INSIDE, _N_KEYS)


def feature_counts(X, rows=None):
    """:func:`~skdp.utils._bounds_scan.column_counts` of each column of ``X`` (its ``rows``).

    Returns ``(below, negative, positive)`` of shapes ``(d, G)``, ``(d,)`` and ``(d,)``
    for the ``G`` candidates of the scan's grid ``_ANCHORED_GRID``, equal to those of
    ``column_counts`` column by column, in one pass. No sort and no copy of a column: each
    block of rows (gathered from ``rows`` when given) is counted from the bits of its
    values (:func:`_bit_tables`, :func:`_sum_table`: a shift, a gather, an add and a
    shift per value) into one histogram of (feature, sign bit, number of thresholds
    at or below ``|x|``), from which the counts are cumulative sums; a NaN raises
    ``ValueError`` (infinities count above every candidate). ``X``
    of another numeric dtype (integers, float32) is read in its own dtype and
    converted to float64 one block at a time (the same values as converting all of
    it, without an ``n x d`` float64 copy).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds_scan import column_counts, feature_counts
    >>> X = np.random.default_rng(0).normal(size=(1000, 3))
    >>> below, negative, positive = feature_counts(X)
    >>> bool(np.array_equal(below[1], column_counts(X[:, 1])[0])), int(negative[1])
    (True, 499)
    """
    X = as_numeric(X)
    n, d = X.shape[0] if rows is None else rows.size, X.shape[1]
    width = 2 * _N_KEYS + 1  # (sign bit, thresholds <= |x|), then the NaN slot
    histogram = np.zeros(d * width, dtype=np.int64)
    step = max(1, _CELLS // max(d, 1))
    tile = min(step, n)
    # per-block buffers, and the offsets as a whole block (a broadcast add of d
    # columns costs five times a contiguous one)
    offsets = np.tile(np.arange(d, dtype=np.int64) * width, (tile, 1))
    cells = np.empty((tile, d), dtype=np.uint64)
    direct = rows is None and X.dtype == np.float64
    buffer = None if direct else np.empty((tile, d))
    for start in range(0, n, step):
        stop = min(start + step, n)
        if direct:
            block = X[start:stop]
        elif rows is None:  # converted into one float64 buffer
            block = buffer[: stop - start]
            block[...] = X[start:stop]
        else:  # gathered and converted
            block = buffer[: stop - start]
            if not X.flags.c_contiguous:
                block[...] = X[rows[start:stop]]
            elif X.dtype == np.float64:  # take: a quarter of the time of X[rows]
                X.take(rows[start:stop], axis=0, out=block)
            else:
                block[...] = X.take(rows[start:stop], axis=0)
        bits, cell = block.view(np.uint64), cells[: stop - start]
        np.right_shift(bits, np.uint64(_SHIFT), out=cell)
        # key = sign * (G + 2) + #{thresholds <= |x|} (_sum_table); take() is fastest
        # on intp indices and without out=
        key = _SUM_TABLE.take(cell.view(np.int64))
        key += bits
        key >>= np.uint64(_SHIFT + 1)
        key = key.view(np.int64)
        key += offsets[: stop - start]
        add_counts(histogram, key.reshape(-1))
    histogram = histogram.reshape(d, width)
    if histogram[:, -1].any():
        raise ValueError("X must not hold NaN: its values must be finite")
    histogram = histogram[:, :-1]
    histogram = histogram.reshape(d, 2, -1).transpose(0, 2, 1)
    # k thresholds <= |x|: k = 1 for x = 0 (either sign), else k - 1 grid candidates
    per_count = histogram.sum(axis=2)
    at_most = np.zeros((d, _ANCHORED_GRID.size + 1), dtype=np.int64)
    at_most[:, 1:] = per_count[:, 2:]
    at_most[:, 1] += per_count[:, 1]
    below = np.cumsum(at_most, axis=1)[:, :-1]
    nonzero = histogram[:, 2:]
    return below, nonzero[:, :, 1].sum(axis=1), nonzero[:, :, 0].sum(axis=1)


def as_numeric(X):
    """``X`` as an array of its own numeric dtype (bool, integer or float), else float64.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds_scan import as_numeric
    >>> as_numeric(np.arange(3, dtype=np.int8)).dtype, as_numeric([1, 2.5]).dtype
    (dtype('int8'), dtype('float64'))
    """
    X = np.asarray(X)
    return X if X.dtype.kind in "biuf" else X.astype(float)
