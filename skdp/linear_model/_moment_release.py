"""The functional mechanism's one Laplace release of its polynomial coefficients.

Every statistic of :mod:`skdp.linear_model._moments` (the linear and the quadratic
coefficients of the objective, on the design mapped into ``[-1, 1]``) is scaled by a
public weight and released in one :func:`~skdp.mechanisms.laplace` call at the
sensitivity :func:`release_sensitivity`: weighting is a split of epsilon inside one
release, chosen to minimise the slopes' first-order variance.
"""

import math

import numpy as np

from skdp.mechanisms import laplace

__all__ = [
    "classification_weights",
    "regression_weights",
    "release_moments",
    "release_sensitivity",
    "released_vector",
]

# share of the release's budget for the statistics of the intercept (n, sum y / counts)
INTERCEPT_SHARE = 0.25


def _intercept_weight(rest, n_entries):
    """The weight that gives ``n_entries`` statistics ``INTERCEPT_SHARE`` of the budget.

    In a release of sensitivity ``rest + n_entries * W`` the noise on an entry of
    weight ``W`` has scale ``sensitivity / (W epsilon)``: weighting is a split of
    epsilon inside one release. Never below 1.
    """
    return max(1.0, INTERCEPT_SHARE * rest / ((1 - INTERCEPT_SHARE) * n_entries))


def regression_weights(n_features, fit_intercept):
    """Public per-entry weights of ``(c, triu(M))``: ``(linear (d,), quadratic)``.

    ``a = ((p + 1) / 2)**(1/3)`` on the linear statistics (``sum y x_j`` and
    ``sum x_j``), 1 on the products ``sum x_j x_l``, and on ``n`` and ``sum y`` the
    weight that gives them ``INTERCEPT_SHARE`` of the budget. ``a`` minimises the
    first-order variance of the slopes ``S^{-1}(ds - dS w)`` for ``|w| = 1``: with
    ``L = p`` linear and ``Q = p (p + 1) / 2`` quadratic entries at weights ``a`` and
    1, the variance is proportional to ``(a L + Q)^2 (1 / a^2 + |w|^2)``, smallest at
    ``a^3 = Q / (L |w|^2)``.
    """
    n_columns = n_features + fit_intercept
    quadratic = np.ones(n_columns * (n_columns + 1) // 2)
    slope = ((n_features + 1) / 2) ** (1 / 3)
    linear = np.full(n_columns, slope)
    if fit_intercept:  # sum y: last in c; sum x and n: the last column of M
        last_column = np.flatnonzero(np.triu_indices(n_columns)[1] == n_columns - 1)
        quadratic[last_column[:-1]] = slope
        rest = 2 * slope * n_features + n_features * (n_features + 1) / 2
        linear[-1] = quadratic[-1] = _intercept_weight(rest, 2)
    return linear, quadratic


def classification_weights(n_features, fit_intercept, n_classes):
    """Public per-entry weights of ``(T, triu(G))``: ``(linear (d,), quadratic)``.

    The same weights for every class's row of ``T``. ``a = (2 K (p + 1))**(1/3)`` on
    the feature sums, 1 on ``G``, and on the class count the weight that gives it
    ``INTERCEPT_SHARE`` of the budget. ``a`` minimises the same first-order variance as
    in :func:`regression_weights`, but the right-hand side ``4 T_k - 2 sum_j T_j``
    adds the noise of ``K`` rows, four times over in variance: ``a^3 = 4 K Q / L``.
    """
    quadratic = np.ones(n_features * (n_features + 1) // 2)
    slope = (2 * n_classes * (n_features + 1)) ** (1 / 3)
    linear = np.full(n_features + fit_intercept, slope)
    if fit_intercept:  # the class count
        linear[-1] = _intercept_weight(slope * n_features + quadratic.size, 1)
    return linear, quadratic


def released_vector(linear, quadratic, weights):
    """The vector that one Laplace call releases: the weighted statistics, flattened."""
    linear_weights, quadratic_weights = weights
    return np.concatenate([np.ravel(linear * linear_weights), quadratic * quadratic_weights])


def release_sensitivity(weights):
    """Add/remove L1 sensitivity of :func:`released_vector` (entries of x~, y in [-1, 1]).

    One record adds at most 1 in magnitude to every entry of ``c`` / ``triu(M)``, or of
    one row of ``T`` and of ``triu(sum x x^T)``, all at once at a corner of the box.
    """
    return float(math.fsum(np.ravel(weights[0])) + math.fsum(weights[1]))


def release_moments(linear, quadratic, *, weights, epsilon, rng):
    """All the statistics in one :func:`~skdp.mechanisms.laplace` call; noisy copies."""
    noisy = laplace(
        released_vector(linear, quadratic, weights),
        sensitivity=release_sensitivity(weights),
        epsilon=epsilon,
        random_state=rng,
    )
    size = np.size(linear)
    noisy_linear = noisy[:size].reshape(np.shape(linear)) / weights[0]
    return noisy_linear, noisy[size:] / weights[1]
