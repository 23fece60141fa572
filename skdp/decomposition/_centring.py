"""The data pass of :class:`skdp.decomposition.PCA`: private mean, centring, scatter.

A few passes over ``X`` and at most one copy of it (its Notes, steps 2-4):
:func:`private_centring` clips ``X`` to the public box only when a value lies
outside it, releases the noisy count and the noisy centred sums; the returned
:class:`Centring` gives the norms of the rows centred on the private mean (for
:func:`private_row_norm`, the private bound on them) and their clipped scatter matrix
(one BLAS call) without forming the centred rows.

The count and the sums are those of :func:`skdp.utils._centred_sums.centred_sums`
with one group and no squares (same sensitivities and noise scales, in one release),
done here on the column sums so that the clipped values are formed at most once:
through ``centred_sums`` the fit made four copies of ``X`` and took 9x scikit-learn's
PCA CPU time at ``10^6 x 10``.
"""

import warnings
from dataclasses import dataclass

import numpy as np

from skdp.exceptions import ClippingWarning
from skdp.mechanisms import laplace
from skdp.utils._bounds import NORM_QUANTILE, margin_quantile, norm_share
from skdp.utils._bounds_scan import feature_counts, scan_counts
from skdp.utils.validation import warn_clipped

__all__ = ["Centring", "private_centring", "private_row_norm"]

# the noisy mean's offset from the box midpoint is soft-thresholded at SHRINK times
# the Laplace scale of its noise (post-processing; PCA's Notes)
SHRINK = 2.0
_CELLS = 2**15  # values per block of the norm pass (256 kB)
_MIN_NORM = 2.0**-30
_NORMS = 2**16  # norms counted at a time (512 kB)


@dataclass
class Centring:
    """What :func:`private_centring` released, and the exact rows it centres.

    The rows are never copied when ``X`` lies inside a box that contains 0 (the
    scatter is then formed from ``X^T X`` and the sums: see :meth:`scatter`);
    otherwise ``rows`` is one copy, clipped and shifted by the box midpoint.

    Attributes
    ----------
    mean : ndarray of shape (n_features,)
        The shrunk private mean, inside the box.
    n : int
        The noisy count, at least 1.
    rows : ndarray of shape (n_samples, n_features)
        ``clip(X, lower, upper) - origin`` (exact data: never released; ``X`` itself
        when its extremes lie in the box and ``origin`` is 0).
    origin : ndarray of shape (n_features,)
        Public: 0 when the box contains 0, else its midpoint.
    sums : ndarray of shape (n_features,)
        The exact column sums of ``rows`` (never released).
    """

    mean: np.ndarray
    n: int
    rows: np.ndarray
    origin: np.ndarray
    sums: np.ndarray

    @property
    def _shift(self):
        return self.mean - self.origin

    def squared_norms(self):
        """``||x_i - mean||^2`` of every clipped row, as ``||r_i||^2 - 2 r_i . s +
        ||s||^2`` (``s`` the mean's offset from ``origin``; rounding relative to the
        box, which the rows lie in): one pass over the rows, a block of ``_CELLS``
        values at a time, so that the product with ``s`` reads the block from cache
        (over all rows at once, BLAS's threads cost more than they bring)."""
        shift, rows = self._shift, self.rows
        squared = np.empty(rows.shape[0])
        step = max(1, _CELLS // max(rows.shape[1], 1))
        offset = shift @ shift
        for start in range(0, rows.shape[0], step):
            block, out = rows[start : start + step], squared[start : start + step]
            np.einsum("ij,ij->i", block, block, out=out)
            out -= 2.0 * (block @ shift)
            out += offset
        return np.maximum(squared, 0.0, out=squared)

    def _long_rows(self, norm, squared_norms):
        """Indices and ``||x_i - mean||^2`` of the rows longer than ``norm``.

        Without ``squared_norms``: one pass for ``||r_i||``, a block of ``4 _CELLS``
        values at a time (no n-vector); only the rows with ``||r_i|| + ||s|| > norm``
        (the triangle inequality) are centred and measured.
        """
        if squared_norms is not None:
            long = np.flatnonzero(squared_norms > norm**2)
            return long, squared_norms[long]
        reach = norm - np.linalg.norm(self._shift)
        found, lengths = [np.empty(0, dtype=np.intp)], [np.empty(0)]
        step = max(1, 4 * _CELLS // max(self.rows.shape[1], 1))
        for start in range(0, self.rows.shape[0], step):
            block = self.rows[start : start + step]
            raw = np.einsum("ij,ij->i", block, block)
            candidates = np.flatnonzero(raw > reach**2) if reach > 0 else np.arange(raw.size)
            centred = block[candidates] - self._shift
            squared = np.einsum("ij,ij->i", centred, centred)
            keep = squared > norm**2
            found.append(start + candidates[keep])
            lengths.append(squared[keep])
        return np.concatenate(found), np.concatenate(lengths)

    def scatter(self, norm, *, squared_norms=None, stacklevel):
        """``Z^T Z``, ``Z`` the centred rows scaled to norm at most ``norm``, over ``norm``.

        ``sum_i (r_i - s)(r_i - s)^T = R^T R - S s^T - s S^T + n s s^T`` with ``s`` the
        mean's offset from ``origin`` and ``S`` the exact sums (one BLAS call on the
        rows; rounding is relative to the box, which ``rows`` lie in), then for each
        row longer than ``norm`` (a :class:`~skdp.exceptions.ClippingWarning` says how
        many) its share ``(1 - norm^2 / ||r_i - s||^2)(r_i - s)(r_i - s)^T`` is taken
        out, so ``Z`` has rows of L2 norm at most 1. ``squared_norms``, when already
        computed, spares a pass.
        """
        shift, rows = self._shift, self.rows
        cross = np.outer(self.sums, shift)
        scatter = rows.T @ rows - cross - cross.T + rows.shape[0] * np.outer(shift, shift)
        long, squared = self._long_rows(norm, squared_norms)
        if long.size:
            warnings.warn(
                f"{long.size} of {rows.shape[0]} centred rows of X had an L2 norm above "
                f"{norm:g} and were scaled down to it.",
                ClippingWarning,
                stacklevel=stacklevel + 1,
            )
            centred = rows[long] - shift
            excess = 1.0 - norm**2 / squared
            scatter -= (centred * excess[:, np.newaxis]).T @ centred
        scatter /= norm**2
        return (scatter + scatter.T) / 2.0


def private_centring(X, lower, upper, *, epsilon_count, epsilon_sums, stacklevel, random_state):
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
    """
    lower = np.broadcast_to(np.asarray(lower, dtype=float), X.shape[1:])
    upper = np.broadcast_to(np.asarray(upper, dtype=float), X.shape[1:])
    n, d = X.shape
    centre, half = (lower + upper) / 2.0, (upper - lower) / 2.0
    origin = np.where(np.all((lower <= 0) & (upper >= 0)), 0.0, centre)
    clipped = _clipped(X, lower, upper)
    if clipped is not None:
        X, count = clipped
        if count:
            warn_clipped(count, X.size, stacklevel=stacklevel + 1)
        X -= origin
    elif np.any(origin):
        X = X - origin
    sums = np.einsum("ij->j", X)
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
    return Centring(centre + half * offset, n_noisy, X, origin, sums)


def private_row_norm(centring, epsilon, *, random_state):
    """``(epsilon spent, R, squared centred norms)``: PCA's private row-norm bound.

    A share of ``epsilon`` set by the noisy count (:func:`skdp.utils._bounds.norm_share`)
    goes to :func:`~skdp.utils._quantiles.scan_quantile`'s AboveThreshold on the norms
    ``||x_i - mean||`` of the clipped rows (``mean`` is public by then; one row moves
    each rank query by one), for the ``NORM_QUANTILE`` level adjusted by
    :func:`~skdp.utils._bounds.margin_quantile`. The norms are ``>= 0``, so ``#{|x| <
    c} = #{x < c}``, and their counts are taken in one pass
    (:func:`~skdp.utils._bounds_scan.feature_counts`, a block of norms at a time)
    instead of a sort.
    """
    spend = norm_share(centring.n, epsilon) * epsilon
    q = margin_quantile(NORM_QUANTILE, centring.n, spend)
    squared = centring.squared_norms()
    below = sum(  # counts add up over blocks: no copy of the n norms
        feature_counts(np.sqrt(squared[start : start + _NORMS])[:, np.newaxis])[0][0]
        for start in range(0, max(squared.size, 1), _NORMS)
    )
    norm = scan_counts(below, squared.size, q, epsilon=spend, random_state=random_state)
    return spend, max(norm, _MIN_NORM), squared


def _clipped(X, lower, upper):
    """``(clip(X, lower, upper), number of values it changed)``, or None when ``X`` lies
    in the box by two contiguous scans (its extremes against the tightest bounds). The
    values outside are counted on the clipped copy (one comparison pass), not found
    column by column first."""
    if X.size == 0 or (X.min() >= lower.max() and X.max() <= upper.min()):
        return None
    clipped = np.clip(X, lower, upper)
    return clipped, int(np.count_nonzero(clipped != X))
