"""``X`` read a block of rows at a time, clipped to a public box and shifted by an
origin (:class:`ClippedRows`), without a copy of ``X``: the reader of the passes of
:mod:`skdp.decomposition._centring`."""

import numpy as np

__all__ = ["CELLS", "FEW", "WIDE", "ClippedRows", "rowwise"]

CELLS = 2**16  # values per block of rows (512 kB: every step of a pass reads it from cache)
WIDE = 64  # rows of a block taken at once as one long row (see rowwise)
FEW = 64  # a block of m rows with at most m / FEW clipped values is re-read by a copy


def rowwise(operation, rows, tile, out):
    """``operation(rows, v, out=out)`` for ``v`` a row, given as ``tile`` (``WIDE``
    copies of it): ``WIDE`` rows at a time as one long row where the arrays allow it
    (a ``d``-vector broadcast over the rows runs a loop of ``d`` values a row)."""
    m, d = rows.shape
    whole = m // WIDE * WIDE
    if whole and rows.flags.c_contiguous and out.flags.c_contiguous:
        shape = (whole // WIDE, WIDE * d)
        operation(rows[:whole].reshape(shape), tile.reshape(-1), out=out[:whole].reshape(shape))
        operation(rows[whole:], tile[0], out=out[whole:])
    else:
        operation(rows, tile[0], out=out)
    return out


class ClippedRows:
    """``X`` read a block of rows at a time as ``clip(X, lower, upper) - origin``.

    A block lies in the box when its extremes lie within the tightest bounds (two
    reductions instead of the compares); it is then read as it is (a view of ``X``)
    when ``origin`` is 0. Otherwise it is clipped (``maximum`` then ``minimum``
    against the bounds tiled to the block, the values of :func:`numpy.clip`) and
    shifted in one reused buffer. Which blocks lie in the box is found by the first
    pass and remembered; after a block outside the box, the next one is clipped
    without the two reductions and lies in the box when nothing changed. The first
    pass also remembers the rows of a block with few clipped values (at most one per
    ``FEW`` rows): later passes copy that block and clip those rows only (the same
    values, one operation a value instead of two).
    """

    def __init__(self, X, lower, upper, origin):
        n, d = X.shape
        self.X, self.lower, self.upper, self.origin = X, lower, upper, origin
        self.step = max(WIDE, CELLS // max(d, 1) // WIDE * WIDE)
        self.rows = min(self.step, n)
        self.tiles = self.buffer = None  # made when a block needs them
        self.tightest = lower.max(), upper.min()
        self.shifted = bool(np.any(origin))
        self.inside = []
        self.few = {}  # a block's rows with a value outside the box, when they are few

    def blocks(self, start=0, stop=None, *, count=False):
        """``(first row, rows, values clipped or 0)`` of the blocks in ``[start, stop)``.

        ``start`` is a multiple of ``step``; the rows may be the buffer, overwritten by
        the next block. ``count`` counts the clipped values (the first pass).
        """
        stop = self.X.shape[0] if stop is None else stop
        for first in range(start, stop, self.step):
            block = self.X[first : min(first + self.step, stop)]
            index = first // self.step
            if index == len(self.inside):
                if count and self.inside and not self.inside[-1]:
                    self.inside.append(None)  # likely outside too: the clipped count decides
                else:
                    low, high = self.tightest
                    inside = block.size == 0 or (block.min() >= low and block.max() <= high)
                    self.inside.append(inside)
            if self.inside[index] and not self.shifted:
                yield first, block, 0
                continue
            if self.buffer is None:
                self.buffer = np.empty((self.rows, block.shape[1]))
            lower, upper, origin = self._tiles()
            rows = self.buffer[: block.shape[0]]
            clipped = 0
            few = self.few.get(index)
            if self.inside[index] or few is not None:
                if self.shifted:
                    rowwise(np.subtract, block, origin, rows)
                else:
                    np.copyto(rows, block)
                if few is not None:  # a later pass: only these rows leave the box
                    rows[few] = np.minimum(np.maximum(block[few], self.lower), self.upper)
                    if self.shifted:
                        rows[few] -= self.origin
            else:
                rowwise(np.minimum, rowwise(np.maximum, block, lower, rows), upper, rows)
                if count:
                    changed = rows != block
                    clipped = int(np.count_nonzero(changed))
                    if 0 < clipped <= rows.shape[0] // FEW:
                        self.few[index] = np.flatnonzero(changed) // rows.shape[1]
                if self.inside[index] is None:
                    self.inside[index] = clipped == 0
                if self.shifted:
                    rowwise(np.subtract, rows, origin, rows)
            yield first, rows, clipped

    def take(self, indices, out):
        """``clip(X[indices], lower, upper) - origin`` into ``out`` (the values of
        :meth:`blocks`; a reused array: a new one costs its page faults)."""
        rows = out[: indices.size]
        if self.X.flags.c_contiguous:
            np.take(self.X, indices, axis=0, out=rows)
        else:  # take() gathers F-ordered rows value by value
            rows[...] = self.X[indices]
        lower, upper, origin = self._tiles()
        rowwise(np.minimum, rowwise(np.maximum, rows, lower, rows), upper, rows)
        if self.shifted:
            rowwise(np.subtract, rows, origin, rows)
        return rows

    def _tiles(self):
        """The bounds and the origin as ``WIDE`` rows each (for :func:`rowwise`)."""
        if self.tiles is None:
            self.tiles = [np.tile(b, (WIDE, 1)) for b in (self.lower, self.upper, self.origin)]
        return self.tiles
