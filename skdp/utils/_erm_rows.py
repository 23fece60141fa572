"""The rows an ERM fit reads, mapped a block at a time: never an ``n x d`` copy of ``X``.

An ERM design (:class:`skdp.utils._erm.Design`) reads rows ``m(x)``: the validated rows
``x`` under a public map ``m`` (:class:`RowMap`), which clips every column to public or
private per-feature bounds and maps it into ``[-1, 1]`` (``columns``), then scales every
row longer than the norm bound down to it. The map acts on each row alone, so it runs on
one block of ``ROW_BLOCK`` rows at a time whenever the solver reads the rows, and the
only row-sized arrays a fit keeps are vectors (the squared row norms of
:func:`row_squares`, the class codes). The mapped values are those a mapped copy of
``X`` would hold, bit for bit; the sums over the rows (loss, gradient, Hessian) are
added up block by block.

The block functions of a dask design (:func:`skdp.utils._erm.persist_design`) are here
too: they clip each row block where it lives.
"""

import warnings

import numpy as np

from skdp.exceptions import ClippingWarning

__all__ = [
    "ROW_BLOCK",
    "RowMap",
    "Scratch",
    "clip_block",
    "long_rows",
    "no_long_rows",
    "row_squares",
    "tally_rows",
    "warn_long_rows",
]

# rows of a block: its mapped rows and the loss's temporaries stay in the CPU's cache
# (2**14 rows of 10 columns: 1.3 MB)
ROW_BLOCK = 2**14


class Scratch:
    """Arrays reused by every block of a pass over the rows, and by the next passes.

    ``scratch(name, shape)`` is an uninitialised array, the same memory for every call
    with that name and ``shape[1:]`` (its first rows for a shorter block). A block's
    temporaries are 128 KiB and more (``ROW_BLOCK`` values), where glibc's ``malloc``
    may map fresh pages for each allocation and unmap them when it is freed (its
    threshold moves with the process's history): at 10^5 x 10 rows such page faults
    took 35 of the 80 ms of an
    :class:`~skdp.linear_model.ObjectivePerturbationLogistic` fit, in the processes
    where they happened. The caller must be done with an array before it asks for the
    same name again; :data:`FRESH` (no reuse) stands in where arrays must outlive the
    block.
    """

    def __init__(self, reuse=True):
        self.reuse, self._arrays = reuse, {}

    def __call__(self, name, shape, dtype=np.float64, order="C"):
        if not self.reuse:
            return np.empty(shape, dtype, order=order)
        key = (name, shape[1:], np.dtype(dtype), order)
        array = self._arrays.get(key)
        if array is None or array.shape[0] < shape[0]:
            array = self._arrays[key] = np.empty(shape, dtype, order=order)
        return array[: shape[0]]  # a shorter block (the last) reads the first rows

    def like(self, name, X, dtype=np.float64):
        """An array shaped and laid out as ``X`` (as numpy's ``order="K"`` lays out a new
        array from a 2-d ``X``): F-ordered for an F-ordered block."""
        order = "F" if X.strides[0] < X.strides[1] else "C"
        return self(name, X.shape, dtype, order=order)


FRESH = Scratch(reuse=False)


class RowMap:
    """A public map of a block of rows: ``columns``, then rows longer than ``norm`` scaled
    down to it (each row on its own; picklable when ``columns`` is).

    Parameters
    ----------
    columns : callable or None
        Maps a block of rows to mapped rows, written into ``out`` or a new array, e.g.
        :meth:`skdp.utils._erm_inputs.ColumnScaling.apply`; None leaves them as they are.
    norm : float or None
        The L2 norm bound; None clips no row.
    squares : ndarray or None
        The squared norms of all the (mapped) rows (:func:`row_squares`): the long rows
        and their factors are then found once, and a block read with its ``rows`` looks
        them up instead of summing its squares again (the same values, to the bit).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._erm_rows import RowMap
    >>> RowMap(norm=1.0)(np.array([[3.0, 4.0], [0.3, 0.4]]))
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """

    def __init__(self, columns=None, norm=None, squares=None):
        self.columns, self.norm, self.long = columns, norm, None
        if norm is not None and squares is not None:
            self.long = np.flatnonzero(squares > norm**2)
            self.factors = norm / np.sqrt(squares[self.long])

    def __call__(self, X, scratch=FRESH, rows=None):
        """The mapped rows of the block ``X``, in ``scratch``'s arrays (:class:`Scratch`).

        ``rows``: the slice of the whole data that ``X`` is (with ``squares``).
        """
        out = X
        if self.columns is not None:
            out = self.columns(X, out=scratch("rows", X.shape, order="F"))
        if self.norm is None:
            return out
        if self.long is None or rows is None:
            long, squares = _long_rows(out, self.norm, scratch)
            factors = self.norm / np.sqrt(squares)
        else:
            long, factors = self._long_rows_of(rows, X.shape[0])
        if not long.size:
            return out
        if out is X:  # never write into the caller's data
            out = scratch("rows", X.shape)
            np.copyto(out, X)
        out[long] *= factors[:, np.newaxis]
        return out

    def _long_rows_of(self, rows, size):
        """The long rows among the ``size`` rows of the slice ``rows``, and their factors."""
        start, step = rows.start or 0, rows.step or 1
        low, high = np.searchsorted(self.long, [start, start + step * size])
        long, factors = self.long[low:high] - start, self.factors[low:high]
        if step > 1:
            keep = long % step == 0
            long, factors = long[keep] // step, factors[keep]
        return long, factors


def _long_rows(rows, norm, scratch=FRESH):
    """``(indices, squared norms)`` of the rows longer than ``norm``.

    Each squared norm summed as that of one C-ordered row, the value
    :func:`row_squares` gives to the bit: a Fortran-ordered block (a column map's)
    sums its squares in another order, an ulp apart, so its rows that may be too long
    are looked at again, as C-ordered rows.
    """
    squares = np.einsum("ij,ij->i", rows, rows, out=scratch("squares", rows.shape[:1]))
    if rows.flags.c_contiguous:
        long = np.flatnonzero(squares > norm**2)
        return long, squares[long]
    maybe = np.flatnonzero(squares > norm**2 * (1 - 2.0**-40))
    candidates = rows[maybe]
    squares = np.einsum("ij,ij->i", candidates, candidates)
    too_long = squares > norm**2
    return maybe[too_long], squares[too_long]


def row_squares(X, columns=None):
    """``(squared L2 norm of each row of columns(X), values columns clipped)``.

    ``columns`` maps a block of rows to ``(rows, n_clipped)`` (such as
    :meth:`skdp.utils._erm_inputs.ColumnScaling.transform`, given ``scratch``) and
    runs on one block of ``ROW_BLOCK`` rows at a time; None reads ``X`` as it is (0
    clipped).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._erm_rows import row_squares
    >>> row_squares(np.array([[3.0, 4.0], [0.3, 0.4]]))
    (array([25.  ,  0.25]), 0)
    """
    if columns is None:
        return np.einsum("ij,ij->i", X, X), 0
    squares, n_clipped, scratch = np.empty(X.shape[0]), 0, Scratch()
    for start in range(0, X.shape[0], ROW_BLOCK):
        rows, clipped = columns(X[start : start + ROW_BLOCK], scratch=scratch)
        np.einsum("ij,ij->i", rows, rows, out=squares[start : start + ROW_BLOCK])
        n_clipped += clipped
    return squares, n_clipped


def warn_long_rows(n_clipped, n, norm, stacklevel=2):
    """The ClippingWarning for ``n_clipped`` of ``n`` rows scaled down to ``norm``."""
    warnings.warn(
        f"{n_clipped} of {n} rows of X had an L2 norm above {norm:g} and were scaled down to it.",
        ClippingWarning,
        stacklevel=stacklevel + 1,
    )


def clip_block(X, norm):
    """The rows of a block clipped to ``norm`` (as :class:`RowMap` does; dask)."""
    if not np.any(np.einsum("ij,ij->i", X, X) > norm**2):
        return X
    norms = np.linalg.norm(X, axis=1)
    too_long = norms > norm
    scale = np.ones_like(norms)
    scale[too_long] = norm / norms[too_long]
    return X * scale[:, np.newaxis]


def long_rows(X, norm):
    """Which rows of a block :func:`clip_block` scales down."""
    if not np.any(np.einsum("ij,ij->i", X, X) > norm**2):
        return np.zeros(X.shape[0], dtype=bool)
    return np.linalg.norm(X, axis=1) > norm


def no_long_rows(X):
    """No row of the block is scaled down (features of norm 1)."""
    return np.zeros(X.shape[0], dtype=bool)


def tally_rows(flags, codes):
    """``[rows flagged, rows]`` of a block."""
    return np.array([np.count_nonzero(flags), codes.shape[0]])
