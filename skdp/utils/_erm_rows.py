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


class RowMap:
    """A public map of a block of rows: ``columns``, then rows longer than ``norm`` scaled
    down to it (each row on its own; picklable when ``columns`` is).

    Parameters
    ----------
    columns : callable or None
        Maps a block of rows to a new array of mapped rows (the caller's copy), e.g.
        :meth:`skdp.utils._erm_inputs.ColumnScaling.apply`; None leaves them as they are.
    norm : float or None
        The L2 norm bound; None clips no row.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._erm_rows import RowMap
    >>> RowMap(norm=1.0)(np.array([[3.0, 4.0], [0.3, 0.4]]))
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """

    def __init__(self, columns=None, norm=None):
        self.columns, self.norm = columns, norm

    def __call__(self, X):
        rows = X if self.columns is None else self.columns(X)
        if self.norm is None:
            return rows
        long, squares = _long_rows(rows, self.norm)
        if not long.size:
            return rows
        if rows is X:  # never write into the caller's data
            rows = X.copy()
        rows[long] *= (self.norm / np.sqrt(squares))[:, np.newaxis]
        return rows


def _long_rows(rows, norm):
    """``(indices, squared norms)`` of the rows longer than ``norm``.

    Each squared norm summed as that of one C-ordered row, the value
    :func:`row_squares` gives to the bit: a Fortran-ordered block (a column map's)
    sums its squares in another order, an ulp apart, so its rows that may be too long
    are looked at again, as C-ordered rows.
    """
    squares = np.einsum("ij,ij->i", rows, rows)
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
    :meth:`skdp.utils._erm_inputs.ColumnScaling.transform`) and runs on one block of
    ``ROW_BLOCK`` rows at a time; None reads ``X`` as it is (0 clipped).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._erm_rows import row_squares
    >>> row_squares(np.array([[3.0, 4.0], [0.3, 0.4]]))
    (array([25.  ,  0.25]), 0)
    """
    if columns is None:
        return np.einsum("ij,ij->i", X, X), 0
    squares, n_clipped = np.empty(X.shape[0]), 0
    for start in range(0, X.shape[0], ROW_BLOCK):
        rows, clipped = columns(X[start : start + ROW_BLOCK])
        squares[start : start + ROW_BLOCK] = np.einsum("ij,ij->i", rows, rows)
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
