"""The data pass of :class:`skdp.decomposition.PCA`: private mean, centring, scatter.

One pass over ``X`` per step and at most one copy of it (its Notes, steps 2-4):
:func:`private_centring` clips ``X`` to the public box only when a value lies
outside it, releases the noisy count and the noisy centred sums and returns the
rows centred on the private mean; :func:`clipped_scatter` scales the rows longer
than the public norm down in place and forms the scatter matrix in one BLAS call.

The count and the sums are the release of
:func:`skdp.utils._centred_sums.centred_sums` with one group and no squares (same
mechanisms, same sensitivities), done here on the column sums so that the clipped
values are formed at most once: through ``centred_sums`` the fit made four copies of
``X`` and took 6x scikit-learn's PCA at ``10^6 x 10``.
"""

import warnings
from dataclasses import dataclass

import numpy as np

from skdp.exceptions import ClippingWarning
from skdp.mechanisms import geometric, laplace
from skdp.utils.validation import warn_clipped

__all__ = ["Centring", "clipped_scatter", "private_centring"]

# the noisy mean's offset from the box midpoint is soft-thresholded at SHRINK times
# the Laplace scale of its noise (post-processing; PCA's Notes)
SHRINK = 2.0


@dataclass
class Centring:
    """What :func:`private_centring` released, and the rows centred on it.

    Attributes
    ----------
    mean : ndarray of shape (n_features,)
        The shrunk private mean, inside the box.
    n : int
        The noisy count, at least 1.
    centred : ndarray of shape (n_samples, n_features)
        A new array: ``clip(X, lower, upper) - mean`` (exact data: never released).
    """

    mean: np.ndarray
    n: int
    centred: np.ndarray


def private_centring(X, lower, upper, *, epsilon_count, epsilon_sums, stacklevel, random_state):
    """Release a noisy count and a shrunk noisy mean of the clipped rows; centre them.

    ``epsilon_count + epsilon_sums``-DP under add/remove of a row: the count has
    sensitivity 1 (:func:`~skdp.mechanisms.geometric`); with ``c`` and ``h`` the box
    midpoints and half-ranges, the vector ``T_j = sum_i (x_ij - c_j) / h_j`` of the
    clipped rows moves by at most ``sum_j 1 = d`` in L1 (:func:`~skdp.mechanisms.laplace`
    at sensitivity ``d``). The mean ``c + h clip(T~ / n~, -1, 1)`` is then
    soft-thresholded towards ``c`` at ``SHRINK`` times its noise scale ``d h / (epsilon_sums
    n~)`` (post-processing).
    """
    lower = np.broadcast_to(np.asarray(lower, dtype=float), X.shape[1:])
    upper = np.broadcast_to(np.asarray(upper, dtype=float), X.shape[1:])
    n, d = X.shape
    outside = _outside(X, lower, upper)
    if outside:
        warn_clipped(
            np.count_nonzero((X < lower) | (X > upper)), X.size, stacklevel=stacklevel + 1
        )
        X = np.clip(X, lower, upper)
    centre, half = (lower + upper) / 2.0, (upper - lower) / 2.0
    count = int(geometric(n, sensitivity=1, epsilon=epsilon_count, random_state=random_state))
    n_noisy = max(count, 1)
    sums = (np.einsum("ij->j", X) - n * centre) / half
    noisy = laplace(sums, sensitivity=d, epsilon=epsilon_sums, random_state=random_state)
    offset = np.clip(noisy / n_noisy, -1.0, 1.0)
    scale = d / (epsilon_sums * n_noisy)
    offset = np.sign(offset) * np.maximum(np.abs(offset) - SHRINK * scale, 0.0)
    mean = centre + half * offset
    if outside:  # X is already our own copy
        X -= mean
        return Centring(mean, n_noisy, X)
    return Centring(mean, n_noisy, X - mean)


def _outside(X, lower, upper):
    """Whether a value of ``X`` lies outside the box: two contiguous scans first (the
    global extremes against the tightest bounds), per column only when they fail."""
    if X.size == 0:
        return False
    if X.min() >= lower.max() and X.max() <= upper.min():
        return False
    return bool(np.any(X.min(axis=0) < lower) or np.any(X.max(axis=0) > upper))


def row_norms_squared(centred):
    """``||x_i||^2`` of every row, one pass."""
    return np.einsum("ij,ij->i", centred, centred)


def clipped_scatter(centred, squared_norms, norm, *, stacklevel):
    """``Z^T Z`` with ``Z`` the rows of ``centred`` scaled to norm at most ``norm``, over ``norm``.

    Scales the longer rows of ``centred`` in place (a
    :class:`~skdp.exceptions.ClippingWarning` says how many) and forms the scatter
    in one BLAS call; ``Z`` has rows of L2 norm at most 1.
    """
    long = np.flatnonzero(squared_norms > norm**2)
    if long.size:
        warnings.warn(
            f"{long.size} of {centred.shape[0]} centred rows of X had an L2 norm above "
            f"{norm:g} and were scaled down to it.",
            ClippingWarning,
            stacklevel=stacklevel + 1,
        )
        centred[long] *= (norm / np.sqrt(squared_norms[long]))[:, np.newaxis]
    scatter = centred.T @ centred
    scatter /= norm**2
    return (scatter + scatter.T) / 2.0
