"""Noisy class counts and per-class category counts: CategoricalNB's release.

Under add/remove of one record (a row with its label) the class counts move by 1 in
one cell and the category counts by 1 in one cell per feature: the two histograms
have L1 sensitivities 1 and ``d``. Both are released with discrete Laplace noise
(:func:`skdp.mechanisms.geometric`), every cell included, empty ones too. With the
class counts at ``epsilon_class`` and the category counts at ``epsilon_category``
the noise scales are ``1 / epsilon_class`` and ``d / epsilon_category``; the split
``epsilon / (d + 1)`` and ``d epsilon / (d + 1)`` gives every cell the same scale
``(d + 1) / epsilon``, that of a single histogram of ``K (1 + sum_j m_j)`` cells with
L1 sensitivity ``d + 1``.

The class counts are then sharpened for free (post-processing): every feature's
category counts of class ``k`` add up to another noisy estimate of ``n_k``, of
variance ``m_j`` times one cell's. :func:`pooled_class_count` averages the ``d + 1``
unbiased estimates with inverse-variance weights.
"""

import numpy as np

from skdp.mechanisms import geometric

__all__ = ["category_counts", "noisy_class_counts", "pooled_class_count"]


def noisy_class_counts(class_codes, n_classes, *, epsilon, random_state):
    """``n_k + Z_k`` for every class (sensitivity 1: a record is in one class)."""
    exact = np.bincount(class_codes, minlength=n_classes)
    return geometric(exact, epsilon=epsilon, random_state=random_state)


def category_counts(codes, class_codes, n_classes, n_categories, *, epsilon, random_state):
    """Noisy counts of every (class, category) cell of every feature.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features), int
        The category code of every value, ``codes[:, j]`` in ``[0, n_categories[j])``
        (any integer dtype).
    class_codes : ndarray of shape (n_samples,), int64 or intp
        The class index of every row.
    n_classes : int
    n_categories : ndarray of shape (n_features,), int
    epsilon : float
        The budget of the whole release: one record is in one cell per feature, an L1
        sensitivity of ``n_features``; the noise scale of a cell is
        ``n_features / epsilon``.
    random_state : numpy.random.Generator

    Returns
    -------
    list of ndarray of shape (n_classes, n_categories[j]), int64
        Noisy counts (possibly negative).
    """
    d = codes.shape[1]
    offsets = np.concatenate([[0], np.cumsum(n_categories)])
    cells = int(offsets[-1])
    # one histogram, class k, feature j, category c at [k, offsets[j] + c], filled one
    # feature at a time (no n_samples x n_features temporary)
    exact = np.empty((n_classes, cells), dtype=np.int64)
    for j, m in enumerate(n_categories):
        flat = class_codes * int(m) + codes[:, j]
        exact[:, offsets[j] : offsets[j + 1]] = np.bincount(
            flat, minlength=n_classes * int(m)
        ).reshape(n_classes, m)
    noisy = geometric(exact, sensitivity=d, epsilon=epsilon, random_state=random_state)
    return [noisy[:, offsets[j] : offsets[j + 1]] for j in range(d)]


def pooled_class_count(class_count, counts, *, epsilon_class, epsilon_category):
    """Inverse-variance average of the class counts and each feature's row totals.

    ``class_count`` has noise of scale ``1 / epsilon_class``; the total of feature
    ``j``'s ``m_j`` cells, scale ``d / epsilon_category`` each, has ``m_j`` times a
    cell's variance. Post-processing of the release; the result is at least 1.
    """
    d = len(counts)
    weights = [epsilon_class**2] + [(epsilon_category / d) ** 2 / c.shape[1] for c in counts]
    estimates = [np.asarray(class_count, dtype=float)] + [c.sum(axis=1) for c in counts]
    pooled = sum(w * e for w, e in zip(weights, estimates, strict=True)) / sum(weights)
    return np.maximum(pooled, 1.0)
