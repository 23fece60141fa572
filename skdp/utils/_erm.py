"""Regularised empirical risk minimisation on norm-bounded rows: the pieces that
objective perturbation (logistic, softmax, Huber) and output perturbation share.

Rows are clipped to a public L2 norm ``R`` and scaled into the unit ball, with the
intercept as a regularised constant column: ``x~ = [x, t R] / (R sqrt(1 + t^2))`` with
``t =`` :data:`INTERCEPT_SHARE`, or ``x / R`` without an intercept
(:func:`unit_ball_design`). :func:`perturbation_parameters` is the
budget rule of objective perturbation; :func:`minimise` (:mod:`skdp.utils._erm_solver`,
re-exported here) is the solver its proof needs.

A loss (:class:`RowLoss`) is a small object of public parameters that maps a block of
rows and their class codes to the block's summed loss, gradient and Hessian;
:func:`minimise` adds these up with :func:`skdp.utils._stats.sum_blocks`, one pass over
the rows per evaluation, so the same solver runs on a numpy array (one block) and on a
dask array persisted in the workers' memory (:func:`skdp.utils._stats.as_dask_xy`,
:func:`persist_design`). Only ``dim``-sized sums reach the driver. Rows clipped to
per-feature bounds or to the norm bound are never copied: a :class:`Design` with a
``row_map`` (:mod:`skdp.utils._erm_rows`) maps each block of ``ROW_BLOCK`` rows when it is
read, and the loss is summed block by block (:meth:`RowLoss.summed`), its temporaries in
arrays kept from block to block and from one evaluation to the next
(:class:`~skdp.utils._erm_rows.Scratch`); the long rows are looked up from the squared
norms the norm bound was found from, and the warm start's subsample is mapped once.

The row-norm bound ``R`` is declared by the user or estimated privately
(:func:`skdp.utils._erm_inputs.private_row_inputs`).
"""

import copy
import functools
import math

import numpy as np

from skdp.utils._erm_rows import (
    FRESH,
    ROW_BLOCK,
    RowMap,
    Scratch,
    clip_block,
    long_rows,
    no_long_rows,
    row_squares,
    tally_rows,
    warn_long_rows,
)
from skdp.utils._erm_solver import MAX_ITER, blas_threads, minimise
from skdp.utils._stats import is_dask_collection, sum_blocks

__all__ = [
    "MAX_ITER",
    "Design",
    "RowLoss",
    "blas_threads",
    "minimise",
    "persist_design",
    "perturbation_parameters",
    "scaled_design",
    "unit_ball_design",
]

# Shrinks the scaled rows by a few ulps so that ||x~|| <= 1 survives floating-point rounding.
NORM_MARGIN = 1 - 2.0**-40
# t: the intercept's constant column is t R for rows of norm R. The unit ball is shared
# between the features and the constant, so a smaller t leaves the features more of it
# (their signal grows against the same noise) and regularises the intercept more. On
# Iris scaled by its public domains (multinomial objective perturbation, 100 rows, 40
# seeds), accuracy at epsilon = 1 was 0.689, 0.718 and 0.727 at t = 1, 0.5 (chosen)
# and 0.25-ish; on Adult's numeric columns (default constructor, 10 seeds) 0.815 at both
# t = 1 and 0.5, breast_cancer 0.838 -> 0.870.
INTERCEPT_SHARE = 0.5


def scaled_design(rows, norm, *, fit_intercept, row_map=None):
    """The :class:`Design` of rows of norm at most ``norm``: inside the unit ball.

    ``row_map`` (a :class:`~skdp.utils._erm_rows.RowMap`) maps ``rows`` to them.
    """
    if fit_intercept:
        scale = NORM_MARGIN / (norm * math.sqrt(1 + INTERCEPT_SHARE**2))
        return Design(rows, scale, INTERCEPT_SHARE * norm, row_map)
    return Design(rows, NORM_MARGIN / norm, None, row_map)


def perturbation_parameters(epsilon, C, *, curvature, rank=1):
    """``(extra_regularization, noise_epsilon)`` for objective perturbation.

    The Jacobian term costs ``rank * log(1 + curvature / Lambda)`` with
    ``Lambda = 1 / C + extra``. It is left as it is when that is at most
    ``epsilon / 2``; otherwise ``extra`` brings it down to exactly ``epsilon / 2``.
    """
    cost = rank * math.log1p(curvature * C)
    if cost <= epsilon / 2:
        return 0.0, epsilon - cost
    # rounded up by a relative 2**-40 so that the float cost stays below epsilon / 2
    needed = curvature / math.expm1(epsilon / (2 * rank)) * (1 + 2.0**-40)
    return max(needed - 1 / C, 0.0), epsilon / 2


class Design:
    """The rows ``x~ = scale * [m(x), constant]`` (no constant without intercept), never built.

    ``m`` is ``row_map`` (:class:`~skdp.utils._erm_rows.RowMap`), or the identity when
    None; a mapped design applies it to one block of rows at a time.
    """

    _BLOCK = ROW_BLOCK

    def __init__(self, X, scale, constant, row_map=None, scratch=FRESH):
        self.X, self.scale, self.constant, self.row_map = X, scale, constant, row_map
        self.shape = (X.shape[0], X.shape[1] + (constant is not None))
        self.scratch = scratch  # where dot and gram put their row-sized temporaries

    def blocks(self):
        """``(rows, design)`` of each block of ``ROW_BLOCK`` rows, mapped (a plain design)."""
        for start in range(0, max(self.X.shape[0], 1), ROW_BLOCK):
            rows = slice(start, start + ROW_BLOCK)
            yield rows, Design(self.row_map(self.X[rows], rows=rows), self.scale, self.constant)

    def dot(self, W):
        """``x~ . w`` for each row: ``(n,)`` for ``W`` of shape ``(dim,)``, else ``(n, K)``."""
        if self.row_map is not None:
            return np.concatenate([block.dot(W) for _, block in self.blocks()])
        V = W[..., : self.X.shape[1]].T
        out = self.scratch("dot", (self.X.shape[0], *V.shape[1:]))
        out = np.matmul(self.X, V, out=out)
        if self.constant is not None:
            out += self.constant * W[..., -1]
        out *= self.scale
        return out

    def tdot(self, V):
        """``sum_i V_i x~_i``: ``(dim,)`` for ``V`` of shape ``(n,)``, else ``(K, dim)``."""
        if self.row_map is not None:
            return sum(block.tdot(V[rows]) for rows, block in self.blocks())
        out = V.T @ self.X
        if self.constant is not None:
            out = np.concatenate([out, self.constant * V.sum(axis=0)[..., np.newaxis]], axis=-1)
        return out * self.scale

    def rows(self):
        """The rows ``x~`` as one dense ``(n, dim)`` array (one allocation)."""
        if self.row_map is not None:
            out = np.empty(self.shape)
            for rows, block in self.blocks():
                out[rows] = block.rows()
            return out
        if self.constant is None:
            return self.X * self.scale
        out = np.empty(self.shape)
        np.multiply(self.X, self.scale, out=out[:, :-1])
        out[:, -1] = float(self.constant) * self.scale
        return out

    def gram(self, weight):
        """``sum_i weight_i x~_i x~_i^T``, in blocks of rows (no n x dim temporary).

        When most weights are zero (the Huber loss weighs only the rows of its
        quadratic band), only the rows of non-zero weight are read.
        """
        if self.row_map is not None:
            return sum(block.gram(weight[rows]) for rows, block in self.blocks())
        X = self.X
        if 2 * np.count_nonzero(weight) < weight.size:
            nonzero = np.flatnonzero(weight)
            X, weight = X[nonzero], weight[nonzero]
        p, G = X.shape[1], np.zeros(2 * self.shape[1:])
        for start in range(0, X.shape[0], self._BLOCK):
            rows = slice(start, start + self._BLOCK)
            block = X[rows]
            weighted = self.scratch.like("weighted", block)
            np.multiply(block, weight[rows, np.newaxis], out=weighted)
            G[:p, :p] += weighted.T @ block
        if self.constant is not None:
            G[:p, p] = G[p, :p] = self.constant * (weight @ X)
            G[p, p] = self.constant**2 * weight.sum()
        return G * self.scale**2


class RowLoss:
    """A loss summed over design rows: public parameters only, evaluated block by block.

    Subclasses set ``curvature`` (a bound on ``l''``), ``sensitivity`` (of the gradient
    to one record) and ``rank`` (of one record's Hessian), and define
    ``__call__(X, codes, *, w, hessian)``: the summed loss and its gradient at ``w`` over
    the rows ``X`` (clipped, unscaled: the scale and constant of ``design`` map them to
    ``x~``) with class codes ``codes``, plus the Hessian when ``hessian``. The object
    holds no data, so dask can ship it (bound in a :func:`functools.partial`) to the
    workers.
    """

    curvature, sensitivity, rank = None, 1.0, 1

    def __init__(self, design):
        self.scale, self.constant, self.row_map = design.scale, design.constant, design.row_map
        self.size = self.columns = design.shape[1]
        self.scratch, self._reader = FRESH, None
        self.blocked = design.row_map is not None  # summed one ROW_BLOCK at a time

    def rows(self, X):
        """The design rows ``x~`` of a block of rows, mapped by ``row_map`` when set."""
        if self.row_map is not None:
            X = self.row_map(X, self.scratch)
        return Design(X, self.scale, self.constant, scratch=self.scratch)

    def summed(self, X, codes, **kwargs):
        """``self(X, codes, **kwargs)`` summed over the rows (:func:`minimise`).

        :func:`~skdp.utils._stats.sum_blocks` (numpy at once, dask block by block);
        with a ``row_map`` on numpy rows, one block of ``ROW_BLOCK`` rows at a time, so
        the mapped rows and the loss's temporaries are never row-sized, in arrays kept
        for the next block and the next evaluation (:class:`~skdp.utils._erm_rows.Scratch`:
        the blocks run one after the other here, never at once as on dask's threads).
        """
        if not self.blocked or is_dask_collection(X):
            return sum_blocks(functools.partial(self, **kwargs), X, codes)
        reader, total = self.reader(), None
        function = functools.partial(reader, **kwargs)
        for start in range(0, max(X.shape[0], 1), ROW_BLOCK):
            rows = slice(start, start + ROW_BLOCK)
            block = X[rows]
            if self.row_map is not None:
                block = self.row_map(block, reader.scratch, rows=rows)
            part = function(block, codes[rows])
            total = part if total is None else [t + p for t, p in zip(total, part, strict=True)]
        return total

    def reader(self):
        """This loss without its ``row_map``, reading mapped blocks, on kept arrays."""
        if self.row_map is None and self.scratch is not FRESH:
            return self
        if self._reader is None:
            self._reader = copy.copy(self)
            self._reader.row_map, self._reader.scratch = None, Scratch()
        return self._reader

    def mapped(self, X, rows):
        """``(loss, mapped)``: the rows ``X[rows]`` (a slice) mapped once, and a copy of
        this loss that reads them as they are, block by block as this one would map them.

        A solver that evaluates the loss many times on a few rows (the warm start of
        :func:`minimise`) maps them once. Without a ``row_map``: this loss and a
        C-ordered copy of ``X[rows]``.
        """
        if self.row_map is None:
            return self, np.ascontiguousarray(X[rows])
        return self.reader(), self.row_map(X[rows], rows=rows)

    def release(self):
        """Free the kept arrays (:func:`minimise` calls it when done)."""
        self._reader = None

    def __getstate__(self):  # shipped to dask's workers: without the kept arrays
        return {**self.__dict__, "_reader": None, "scratch": FRESH}


def unit_ball_design(X, norm, *, fit_intercept, overwrite=False, columns=None, squares=None):
    """The rows clipped to ``norm`` (with a ClippingWarning), scaled into the unit ball.

    With an intercept the constant column ``t norm`` (``t =`` :data:`INTERCEPT_SHARE`) is
    appended before scaling by ``1 / (norm sqrt(1 + t^2))``, so ``||x~|| <= 1``; without,
    the scale is ``1 / norm``. ``columns`` (a public map of a block of rows to new rows,
    such as per-feature bounds; then ``squares`` must be given) is applied before the
    norm. ``X`` is never copied: with ``columns``, or rows longer than ``norm``, the
    design maps each block of rows when it is read (:class:`~skdp.utils._erm_rows.RowMap`).
    ``overwrite=True`` (no ``columns``) says ``X`` is the caller's own copy: long rows
    are then scaled down in place. ``squares``: the squared norms of the (mapped) rows,
    when already computed (:func:`~skdp.utils._erm_rows.row_squares`).
    """
    if squares is None:
        squares = row_squares(X)[0]
    n_long = int(np.count_nonzero(squares > norm**2))
    if n_long:
        warn_long_rows(n_long, X.shape[0], norm, stacklevel=1)
    if n_long and overwrite and columns is None:
        _clip_rows_in_place(X, norm, squares)
    elif n_long or columns is not None:  # an ulp off is in the margin
        row_map = RowMap(columns, norm if n_long else None, squares=squares)
        return scaled_design(X, norm, fit_intercept=fit_intercept, row_map=row_map)
    return scaled_design(X, norm, fit_intercept=fit_intercept)


def _clip_rows_in_place(X, norm, squares):
    """The long rows of ``X`` scaled down to ``norm`` in place, from the squared row norms
    ``squares`` (equal to its norms up to rounding, which the margin covers)."""
    too_long = squares > norm**2
    X[too_long] *= (norm / np.sqrt(squares[too_long]))[:, np.newaxis]


def persist_design(X, codes, *, norm=None, fit_intercept=True, features=None, stacklevel=2):
    """The design of a dask fit, persisted once in the workers' memory, and its codes.

    With ``norm`` the rows are clipped to it inside the blocks and scaled into the unit
    ball as :func:`unit_ball_design` does (a :class:`~skdp.exceptions.ClippingWarning`
    counts the clipped rows); otherwise ``features`` (a public map of a block to rows
    of norm 1, such as random Fourier features) is applied inside the blocks, and the
    constant column is 1. The blocks are computed here, so a NaN, an infinity or an
    undeclared label raises now, before any noise is drawn.

    Returns
    -------
    design : Design
        Over a persisted dask array.
    codes : dask.array.Array
        Persisted, in the same row blocks.
    """
    import dask

    if norm is not None:
        rows = X.map_blocks(clip_block, float(norm), dtype=X.dtype)
        flags = X.map_blocks(long_rows, float(norm), dtype=bool, drop_axis=1)
    else:
        probe = features(np.zeros((1, X.shape[1])))
        rows = X.map_blocks(features, dtype=probe.dtype, chunks=(X.chunks[0], probe.shape[1:]))
        flags = X.map_blocks(no_long_rows, dtype=bool, drop_axis=1)
    rows, flags, codes = dask.persist(rows, flags, codes)
    n_clipped, n = (int(v) for v in sum_blocks(tally_rows, flags, codes))
    if n_clipped:
        warn_long_rows(n_clipped, n, norm, stacklevel=stacklevel)
    # without norm: features of norm 1, as PrivateSVM's random Fourier features
    return scaled_design(rows, 1.0 if norm is None else norm, fit_intercept=fit_intercept), codes
