"""Private estimation of feature bounds, for estimators given ``bounds=None``.

A noisy histogram on a public log-scale grid: bins ``(2**(k-1), 2**k]`` for
``k = min_exponent+1 .. max_exponent`` on each side of zero, and a centre bin
``[-2**min_exponent, 2**min_exponent]``; values beyond ``2**max_exponent`` fall in
the outermost bins. Every bin of every feature is noised with discrete Laplace, and
the bounds are the outer edges of the lowest and highest bins whose noisy count
clears a threshold set so that an empty bin clears it with probability at most
``failure_probability`` (the approach of Google's differential-privacy library's
approximate bounds). The whole estimate is post-processing of the noisy histogram.
"""

import math

import numpy as np

from skdp.mechanisms import geometric
from skdp.utils.validation import check_epsilon

__all__ = ["BOUNDS_SHARE", "estimate_bounds"]

# the share of epsilon an estimator spends estimating bounds the user did not give
BOUNDS_SHARE = 0.1


def _bin_index(X, min_exponent, max_exponent):
    magnitude = np.abs(X)
    mantissa, exponent = np.frexp(magnitude)  # magnitude = mantissa * 2**exponent
    ceil_log2 = np.where(mantissa == 0.5, exponent - 1, exponent)
    k = np.clip(ceil_log2, min_exponent, max_exponent) - min_exponent
    k = np.where(magnitude <= 2.0**min_exponent, 0, k)
    centre = max_exponent - min_exponent
    return np.where(X < 0, centre - k, centre + k)


def _edges(min_exponent, max_exponent):
    positive = 2.0 ** np.arange(min_exponent, max_exponent + 1)
    return np.concatenate([-positive[::-1], positive])


def estimate_bounds(
    X,
    *,
    epsilon,
    random_state=None,
    min_exponent=-30,
    max_exponent=62,
    failure_probability=1e-3,
):
    """Estimate per-feature ``(lower, upper)`` bounds with ``epsilon``-DP.

    Privacy: add/remove one record changes one bin count per feature by one, so the
    ``n_features`` histograms together have L1 sensitivity ``n_features``; all of them
    are released by one :func:`~skdp.mechanisms.geometric` call with that sensitivity.
    The grid depends only on ``min_exponent`` and ``max_exponent`` (public).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or (n_samples,)
        Finite values.
    epsilon : float
        The budget this estimate spends.
    random_state : None, int or numpy.random.Generator, default=None
    min_exponent, max_exponent : int, default=-30, 62
        The public grid: resolution near zero and the largest magnitude.
    failure_probability : float, default=1e-3
        Chance that some empty bin is counted as holding data.

    Returns
    -------
    lower, upper : ndarray of shape (n_features,)
        For 1-d ``X``, arrays of shape (1,).

    Raises
    ------
    ValueError
        If for some feature no bin clears the threshold (too few records for this
        epsilon); the message says to pass public bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds import estimate_bounds
    >>> ages = np.random.default_rng(0).integers(17, 91, size=5000).astype(float)
    >>> estimate_bounds(ages, epsilon=0.5, random_state=0)
    (array([16.]), array([128.]))
    """
    epsilon = check_epsilon(epsilon)
    if not 0 < failure_probability < 1:
        raise ValueError(f"failure_probability must be in (0, 1), got {failure_probability}")
    if not min_exponent < max_exponent:
        raise ValueError("min_exponent must be < max_exponent")
    X = np.asarray(X, dtype=float)
    X = X.reshape(-1, 1) if X.ndim == 1 else X
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite to estimate its bounds")
    n_features = X.shape[1]
    edges = _edges(min_exponent, max_exponent)
    n_bins = edges.size - 1
    index = _bin_index(X, min_exponent, max_exponent)
    counts = np.stack([np.bincount(index[:, j], minlength=n_bins) for j in range(n_features)])
    noisy = geometric(counts, sensitivity=n_features, epsilon=epsilon, random_state=random_state)
    # P[Z >= T] <= exp(-T epsilon / sensitivity) for discrete Laplace noise Z
    threshold = math.ceil(n_features / epsilon * math.log(counts.size / failure_probability))
    occupied = noisy >= threshold
    empty = np.flatnonzero(~occupied.any(axis=1))
    if empty.size:
        raise ValueError(
            f"could not estimate bounds privately for feature(s) {empty.tolist()}: no bin "
            f"of the noisy histogram reached {threshold} records at epsilon={epsilon:g}. "
            "Pass public bounds (domain knowledge), or more budget or data."
        )
    first = occupied.argmax(axis=1)
    last = n_bins - 1 - occupied[:, ::-1].argmax(axis=1)
    return edges[first], edges[last + 1]
