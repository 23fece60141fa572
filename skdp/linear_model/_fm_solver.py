"""The functional mechanism's post-processing: noisy moments to a bounded linear model.

Everything here is a function of the released (noisy) statistics and public
constants: :func:`minimise_noisy_quadratic` turns them into a scaled model that tends
to the (noisy) mean prediction, not to zero, as the noise grows, and
:func:`to_original_units` maps it back to the units of the data.
"""

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "CLASSIFICATION_TRIM",
    "REGRESSION_TRIM",
    "NoiseLevels",
    "minimise_noisy_quadratic",
    "to_original_units",
]

# regularization="auto": the authors' ridge, five noise standard deviations
RIDGE_NOISE_MULTIPLE = 5.0
# spectral trimming: eigenvalues below this many sqrt(p) noise standard deviations are
# dropped (the noise matrix's spectral norm is about 2 sqrt(p) of them). Squared error
# suffers from the size of noise-made slopes, accuracy only from their direction.
REGRESSION_TRIM = 2.5
CLASSIFICATION_TRIM = 1.5
# floor of the noisy record count, in standard deviations of its noise: where the count
# is all noise, the noise moves the means by about a tenth of their half-range
COUNT_FLOOR_NOISE_MULTIPLE = 10.0


@dataclass(frozen=True)
class NoiseLevels:
    """Standard deviations of the noise on the released statistics (public)."""

    quadratic: float  # an entry of the feature Gram matrix (weight 1)
    count: float  # the record count n
    feature_sum: float  # each sum of a feature
    target_sum: float  # the intercept entry of each right-hand side


def _shrunk_mean(total, count, noise_std, limit):
    """``total / count`` shrunk toward 0 by its noise, then clipped to ``[-limit, limit]``.

    The posterior mean of ``m`` given ``total = n m + noise`` under a prior of
    variance ``limit**2 / 3`` (uniform on the public range) on ``m``.
    """
    shrinkage = noise_std**2 / (limit**2 / 3 * count)
    return np.clip(total / (count + shrinkage), -limit, limit), shrinkage


def minimise_noisy_quadratic(gram, rhs, *, ridge, trim, noise, fit_intercept, intercept_limit):
    """Minimiser of ``w^T (A + ridge P) w - 2 r^T w``, made bounded by post-processing.

    ``A`` is the noisy (symmetric) Gram matrix of the scaled design with the ones
    column last, ``r`` one or more noisy right-hand sides, and ``P`` the identity on
    the slopes only: the intercept is not penalised. With an intercept the problem is
    solved through its Schur complement: the noisy count ``n~ = A[-1, -1]`` is floored
    at ``COUNT_FLOOR_NOISE_MULTIPLE`` noise standard deviations (and at 1), the noisy
    means of the features and of the right-hand sides are shrunk by their noise
    (:func:`_shrunk_mean`) and clipped to their public ranges (``[-1, 1]`` and
    ``[-intercept_limit, intercept_limit]``), and the slopes solve ``(S + ridge I) w =
    s`` with ``S = A_xx - n m m^T`` and ``s = r_x - n m mu^T`` (the ridge grown by the
    expected size of the spike that the noise of the feature sums puts into
    ``n m m^T``), after dropping the
    eigenvalues of ``S + ridge I`` below ``trim * sqrt(p)`` noise standard deviations
    (spectral trimming; the noise matrix has spectral norm about ``2 sqrt(p)`` of
    them). The intercept is ``mu - m.w``. Without shrinking, clipping
    or flooring this is exactly the block solution; as ``ridge`` grows the slopes go
    to 0 and the intercepts to the noisy means ``mu``.

    Returns
    -------
    slopes : ndarray of shape (p, k)
    intercepts : ndarray of shape (k,)
    """
    rhs = rhs.reshape(rhs.shape[0], -1)
    if fit_intercept:
        count = max(gram[-1, -1], COUNT_FLOOR_NOISE_MULTIPLE * noise.count, 1.0)
        means, shrinkage = _shrunk_mean(gram[:-1, -1], count, noise.feature_sum, 1.0)
        targets, _ = _shrunk_mean(rhs[-1], count, noise.target_sum, intercept_limit)
        centred = gram[:-1, :-1] - count * np.outer(means, means)
        rhs = rhs[:-1] - count * np.outer(means, targets)
        # the noise d on the feature sums puts the spike n d d^T / (n + shrinkage)^2
        # into n m m^T, of expected size p sd^2 n / (n + shrinkage)^2: outweigh it
        spike = noise.feature_sum**2 * count / (count + shrinkage) ** 2
        ridge = ridge + centred.shape[0] * spike
    else:
        centred = gram
    values, vectors = np.linalg.eigh(centred + ridge * np.eye(centred.shape[0]))
    threshold = trim * noise.quadratic * math.sqrt(centred.shape[0])
    keep = values > max(threshold, 1e-12 * math.fsum(np.abs(values)))
    kept = vectors[:, keep]
    slopes = kept @ ((kept.T @ rhs) / values[keep, np.newaxis])
    intercepts = targets - means @ slopes if fit_intercept else np.zeros(rhs.shape[1])
    return slopes, intercepts


def to_original_units(slopes, intercepts, x_scaling, y_scaling=(0.0, 1.0)):
    """Map a model on scaled columns back: ``coef`` (k, p) and ``intercept`` (k,)."""
    (x_shift, x_scale), (y_shift, y_scale) = x_scaling, y_scaling
    coef = (slopes / x_scale[:, np.newaxis]).T
    intercept = intercepts - x_shift @ (slopes / x_scale[:, np.newaxis])
    return y_scale * coef, y_scale * intercept + y_shift
