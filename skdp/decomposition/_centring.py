"""The data pass of :class:`skdp.decomposition.PCA`: private mean, centring, scatter.

No copy of ``X`` (its Notes, steps 2-4): ``X`` is read a block of rows at a time
(:class:`~skdp.decomposition._clipped_rows.ClippedRows`, ``2^16`` values), each block
clipped to the public box and shifted by its ``origin`` in a reused buffer only when a
value lies outside the box or the origin is not 0. :func:`private_centring` adds up,
in one pass, the clipped values' count, column sums and (with ``data_norm=None``)
scatter ``R^T R``, and releases the noisy
count and the noisy centred sums. With ``data_norm=None`` the returned
:class:`Centring` counts the norms of the rows centred on the private mean for
:func:`private_row_norm` (a second pass) and corrects the scatter for the rows longer
than the bound (:meth:`Centring.scatter`: those rows only, read again by index); with
a declared ``data_norm`` a second pass adds up the centred rows scaled to the bound
(where many rows may be longer than a declared bound, one dense pass costs less than
a correction row by row). Memory: a few blocks, and with ``data_norm=None`` 2 bytes a
row (the norms' keys, :meth:`Centring.norm_counts`).

The count and the sums are those of :func:`skdp.utils._centred_sums.centred_sums`
with one group and no squares (same sensitivities and noise scales, in one release).
"""

import sys
import warnings
from dataclasses import dataclass

import numpy as np

from skdp.decomposition._clipped_rows import WIDE, ClippedRows, rowwise
from skdp.exceptions import ClippingWarning
from skdp.mechanisms import laplace
from skdp.utils._bounds import NORM_QUANTILE, _expected, margin_quantile, norm_share
from skdp.utils._bounds_scan import feature_counts, scan_counts
from skdp.utils.validation import warn_clipped

__all__ = ["Centring", "private_centring", "private_row_norm"]

# the noisy mean's offset from the box midpoint is soft-thresholded at SHRINK times
# the Laplace scale of its noise (post-processing; PCA's Notes)
SHRINK = 2.0
_MIN_NORM = 2.0**-30
_NORMS = 2**16  # norms counted at a time (512 kB)
# the formula of Centring.scatter serves while its terms stay below this many norm^2
_CANCELLATION = 2.0**30
# a norm's key: the top 16 bits of its square (sign, exponent, 4 mantissa bits), the
# last of its four uint16 words on a little-endian machine
_KEY = 3 if sys.byteorder == "little" else 0


@dataclass
class Centring:
    """What :func:`private_centring` released, and the sums of the rows it centres.

    The rows ``r_i = clip(x_i, lower, upper) - origin`` are never stored: ``box``
    reads them again a block at a time.

    Attributes
    ----------
    mean : ndarray of shape (n_features,)
        The shrunk private mean, inside the box.
    n : int
        The noisy count, at least 1.
    origin : ndarray of shape (n_features,)
        Public: 0 when the box contains 0, else its midpoint.
    sums : ndarray of shape (n_features,)
        The exact column sums of the rows (never released).
    gram : ndarray of shape (n_features, n_features) or None
        Their exact ``R^T R`` (never released); None when not added up
        (:meth:`scatter` then makes one dense pass).
    box : ClippedRows
        The reader of the rows.
    """

    mean: np.ndarray
    n: int
    origin: np.ndarray
    sums: np.ndarray
    gram: np.ndarray | None
    box: ClippedRows

    @property
    def _shift(self):
        return self.mean - self.origin

    def _squared(self, rows, out, cross):
        """``||r_i - s||^2`` of ``rows`` into ``out``, as ``||r_i||^2 - 2 r_i . s +
        ||s||^2`` (``s`` the mean's offset from ``origin``; rounding relative to the
        box, which the rows lie in), clipped at 0. ``cross``: a scratch array as long
        (``r_i . (-2 s)`` is ``-2 r_i . s`` exactly: a power of 2 scales each rounding)."""
        shift = self._shift
        np.einsum("ij,ij->i", rows, rows, out=out)
        out += np.matmul(rows, -2.0 * shift, out=cross[: out.size])
        out += shift @ shift
        return np.maximum(out, 0.0, out=out)

    def _squared_chunks(self):
        """``(first row, squared centred norms)`` of ``_NORMS`` rows or so at a time
        (whole blocks; the array is reused)."""
        n, step = self.box.X.shape[0], self.box.step
        size = step * max(1, _NORMS // step)
        squared, cross = np.empty(min(size, n)), np.empty(min(step, n))
        for start in range(0, n, size):
            stop = min(start + size, n)
            for first, rows, _ in self.box.blocks(start, stop):
                self._squared(rows, squared[first - start : first - start + rows.shape[0]], cross)
            yield start, squared[: stop - start]

    def squared_norms(self):
        """``||x_i - mean||^2`` of every clipped row (an ``n``-vector: for tests)."""
        return np.concatenate([chunk.copy() for _, chunk in self._squared_chunks()])

    def norm_counts(self, rows=None):
        """``(below, keys)``: the counts of :func:`~skdp.utils._bounds_scan.feature_counts`
        of the centred norms (added up over chunks) and each norm's key, the top 16
        bits of its square as ``uint16`` (2 bytes a row, for :meth:`scatter`).

        ``rows`` (increasing indices): the counts are those of these rows' norms only;
        the keys are still every row's.
        """
        keys = np.empty(self.box.X.shape[0], dtype=np.uint16)
        below, buffer = 0, None
        for start, squared in self._squared_chunks():
            keys[start : start + squared.size] = _keys(squared)
            buffer = np.empty_like(squared) if buffer is None else buffer
            if rows is not None:
                first, stop = np.searchsorted(rows, (start, start + squared.size))
                squared = squared.take(rows[first:stop] - start)
            norms = np.sqrt(squared, out=buffer[: squared.size])
            below = below + feature_counts(norms[:, np.newaxis])[0][0]
        return below, keys

    def _long_rows(self, norm, keys):
        """``(how many, sum_i (1 - norm^2 / ||c_i||^2) c_i c_i^T)`` over the centred rows
        ``c_i`` longer than ``norm``.

        Squares are ordered as their bit patterns, so a row longer than ``norm`` has a
        key at least that of ``norm^2``; those rows only are read again (by index, a
        block at a time) and their norms recomputed. The sum is ``A^T A`` with ``a_i =
        sqrt(1 - norm^2 / ||c_i||^2) c_i`` (one symmetric product a block).
        """
        shift, bound = self._shift, norm**2
        d, key, step = shift.size, _keys(bound)[0], self.box.step
        found, correction = 0, np.zeros((d, d))
        tile, buffer = np.tile(shift, (WIDE, 1)), np.empty((min(step, keys.size), d))
        norms, cross = np.empty(buffer.shape[0]), np.empty(buffer.shape[0])
        for start in range(0, keys.size, _NORMS):
            taken = start + np.flatnonzero(keys[start : start + _NORMS] >= key)
            for first in range(0, taken.size, step):
                rows = self.box.take(taken[first : first + step], buffer)
                squared = self._squared(rows, norms[: rows.shape[0]], cross)
                long = squared > bound
                if not long.all():
                    rows, squared = rows[long], squared[long]
                found += squared.size
                centred = rowwise(np.subtract, rows, tile, rows)
                centred *= np.sqrt(1.0 - bound / squared)[:, np.newaxis]
                correction += centred.T @ centred
        return found, correction

    def _weighted_scatter(self, norm):
        """``(how many long, sum_i w_i c_i c_i^T)`` formed a block at a time, ``w_i =
        min(1, norm^2 / ||c_i||^2)``: one more pass, centring each block (no
        cancellation), as ``A^T A`` with ``a_i = sqrt(w_i) c_i`` (one symmetric product
        a block)."""
        shift, bound, box = self._shift, norm**2, self.box
        found, scatter = 0, np.zeros((shift.size, shift.size))
        tile, squared, centred = np.tile(shift, (WIDE, 1)), np.empty(box.rows), None
        products, ones = np.empty((box.rows, shift.size)), np.ones(shift.size)
        for _, rows, _ in box.blocks():
            m = rows.shape[0]
            if rows.base is not box.buffer:  # a view of X: centred into a buffer of its own
                centred = np.empty((box.rows, shift.size)) if centred is None else centred
                c = rowwise(np.subtract, rows, tile, centred[:m])
            else:
                c = rowwise(np.subtract, rows, tile, rows)
            s = squared[:m]
            # ||c_i||^2 as (c * c) 1: a product and a matrix-vector product, a third
            # faster than einsum over rows of d values
            np.matmul(np.multiply(c, c, out=products[:m]), ones, out=s)
            long = int(np.count_nonzero(s > bound))
            if long:
                found += long
                weight = np.sqrt(np.minimum(np.divide(bound, s, out=s), 1.0, out=s), out=s)
                c *= weight[:, np.newaxis]
            scatter += c.T @ c
        return found, scatter

    def _cancels(self, norm):
        """Whether the terms of the formula of :meth:`scatter` exceed ``2^30 norm^2``."""
        shift, n = self._shift, self.box.X.shape[0]
        magnitude = np.trace(self.gram) + 2.0 * np.linalg.norm(self.sums) * np.linalg.norm(shift)
        return magnitude + n * (shift @ shift) > _CANCELLATION * norm**2

    def scatter(self, norm, *, keys=None, stacklevel):
        """``Z^T Z``, ``Z`` the centred rows scaled to norm at most ``norm``, over ``norm``.

        ``sum_i (r_i - s)(r_i - s)^T = R^T R - S s^T - s S^T + n s s^T`` with ``s`` the
        mean's offset from ``origin`` and ``S`` the exact sums, then for each row
        longer than ``norm`` (a :class:`~skdp.exceptions.ClippingWarning` says how
        many) its share ``(1 - norm^2 / ||r_i - s||^2)(r_i - s)(r_i - s)^T`` is taken
        out, so ``Z`` has rows of L2 norm at most 1; the long rows are found by their
        ``keys`` (:meth:`norm_counts`). Without ``gram`` or ``keys`` (a declared
        bound) the rows' own weighted sum is formed in one pass instead
        (:meth:`_weighted_scatter`).

        Rounding: the terms are of size ``M = tr(R^T R) + 2 ||S|| ||s|| + n ||s||^2``
        (relative to the box, which the rows lie in), their errors ``u M`` or so
        before the division by ``norm^2``. When ``M > 2^30 norm^2`` (a bound far
        below most rows, or a mean far from ``origin``) those errors would no longer
        be negligible against the sensitivity of ``Z^T Z`` (its entries move by at
        most 1): the sum of ``w_i c_i c_i^T`` is then formed row by row instead
        (:meth:`_weighted_scatter`, one more pass), whose error is relative to
        ``Z^T Z`` itself. Both paths compute the same matrix; which one ran shows only
        in the running time.
        """
        shift, n = self._shift, self.box.X.shape[0]
        if self.gram is None or keys is None or self._cancels(norm):
            found, scatter = self._weighted_scatter(norm)
        else:
            cross = np.outer(self.sums, shift)
            scatter = self.gram - cross - cross.T + n * np.outer(shift, shift)
            found, correction = self._long_rows(norm, keys)
            scatter -= correction
        if found:
            warnings.warn(
                f"{found} of {n} centred rows of X had an L2 norm above "
                f"{norm:g} and were scaled down to it.",
                ClippingWarning,
                stacklevel=stacklevel + 1,
            )
        scatter /= norm**2
        return (scatter + scatter.T) / 2.0


def _keys(squared):
    """The top 16 bits of float64 values, as ``uint16``: ordered as the non-negative
    values (their bit patterns are), ``-0.0`` above all."""
    return np.asarray(squared, dtype=np.float64).reshape(-1).view(np.uint16)[_KEY::4]


def private_centring(
    X, lower, upper, *, epsilon_count, epsilon_sums, stacklevel, random_state, gram=True
):
    """Release a noisy count and a shrunk noisy mean of the clipped rows.

    ``epsilon_count + epsilon_sums``-DP under add/remove of a row: with ``c`` and ``h``
    the box midpoints and half-ranges, the vector ``T_j = sum_i (x_ij - c_j) / h_j`` of
    the clipped rows moves by at most ``sum_j 1 = d`` in L1, and the count by 1. Both go
    out in one :func:`~skdp.mechanisms.laplace` release of ``(a n, T)``, ``a = d
    epsilon_count / epsilon_sums``, at L1 sensitivity ``a + d`` and ``epsilon_count +
    epsilon_sums``: the count's noise scale is ``(a + d) / (a (epsilon_count +
    epsilon_sums)) = 1 / epsilon_count`` and the sums' ``d / epsilon_sums``, those of two
    separate releases, for one call of the exact sampler (its fixed cost was 6% of the
    fit at ``10^5`` rows); ``n~`` is the noisy ``a n`` over ``a``, rounded. The mean ``c
    + h clip(T~ / n~, -1, 1)`` is then soft-thresholded towards ``c`` at ``SHRINK`` times
    its noise scale ``d h / (epsilon_sums n~)`` (all post-processing).

    With ``gram`` (public: PCA passes ``data_norm is None``) the same pass adds up the
    rows' ``R^T R`` for :meth:`Centring.scatter` (one BLAS product a block; no release
    here).
    """
    lower = np.broadcast_to(np.asarray(lower, dtype=float), X.shape[1:])
    upper = np.broadcast_to(np.asarray(upper, dtype=float), X.shape[1:])
    n, d = X.shape
    centre, half = (lower + upper) / 2.0, (upper - lower) / 2.0
    origin = np.where(np.all((lower <= 0) & (upper >= 0)), 0.0, centre)
    box = ClippedRows(X, lower, upper, origin)
    gram = np.zeros((d, d)) if gram else None
    wide, tail, count = np.zeros(WIDE * d), np.zeros(d), 0
    for _, rows, clipped in box.blocks(count=True):
        count += clipped
        if gram is not None:
            gram += rows.T @ rows
        whole = rows.shape[0] // WIDE * WIDE  # a multiple of WIDE rows: one long axis
        wide += rows[:whole].reshape(-1, WIDE * d).sum(axis=0)
        if whole < rows.shape[0]:
            tail += np.einsum("ij->j", rows[whole:])
    if count:
        warn_clipped(count, X.size, stacklevel=stacklevel + 1)
    sums = wide.reshape(WIDE, d).sum(axis=0) + tail
    weight = d * epsilon_count / epsilon_sums
    exact = np.concatenate([[weight * n], (sums - n * (centre - origin)) / half])
    noisy = laplace(
        exact, sensitivity=weight + d, epsilon=epsilon_count + epsilon_sums,
        random_state=random_state,
    )  # fmt: skip
    n_noisy = max(int(np.rint(noisy[0] / weight)), 1)
    noisy = noisy[1:]
    offset = np.clip(noisy / n_noisy, -1.0, 1.0)
    scale = d / (epsilon_sums * n_noisy)
    offset = np.sign(offset) * np.maximum(np.abs(offset) - SHRINK * scale, 0.0)
    return Centring(centre + half * offset, n_noisy, origin, sums, gram, box)


def private_row_norm(centring, epsilon, *, random_state, rows=None, rate=1.0):
    """``(epsilon spent, R, keys of the squared centred norms)``: PCA's private row-norm bound.

    A share of ``epsilon`` set by the noisy count (:func:`skdp.utils._bounds.norm_share`)
    goes to :func:`~skdp.utils._quantiles.scan_quantile`'s AboveThreshold on the norms
    ``||x_i - mean||`` of the clipped rows (``mean`` is public by then; one row moves
    each rank query by one), for the ``NORM_QUANTILE`` level adjusted by
    :func:`~skdp.utils._bounds.margin_quantile`. The norms are ``>= 0``, so ``#{|x| <
    c} = #{x < c}``, and their counts are taken in one pass
    (:func:`~skdp.utils._bounds_scan.feature_counts`, a chunk of norms at a time)
    instead of a sort.

    ``rows``: the Poisson subsample (public ``rate``) that the private bounds' scans
    read (:attr:`~skdp.utils._bounds.PublicEstimates.rows`); the scan then counts
    those rows' norms only, and its quantile rule reads the expected size ``rate
    n~``. Its coins are independent of the data and were drawn before, so neighbours
    give equal or neighbouring subsamples: the scan, ``epsilon``-DP on its input, is
    ``epsilon``-DP on the full data (proof in :mod:`skdp.utils._bounds_scan`; no
    amplification is claimed), and it composes with the bounds' scans on the same
    subsample and the other releases as before (sequential composition, conditional on
    the coins). Seeded fits whose bounds read a subsample release another norm than
    before (the same law on fewer rows); with every row read, the same bit for bit.
    """
    spend = norm_share(centring.n, epsilon) * epsilon
    q = margin_quantile(NORM_QUANTILE, _expected(centring.n, rate), spend)
    below, keys = centring.norm_counts(rows)
    size = keys.size if rows is None else rows.size
    norm = scan_counts(below, size, q, epsilon=spend, random_state=random_state)
    return spend, max(norm, _MIN_NORM), keys
