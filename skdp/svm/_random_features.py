"""Random Fourier features of the RBF kernel (Rahimi and Recht, 2007) as an ERM design.

The frequencies are drawn from the fit's generator, never from the data, and every
feature vector has norm 1, so :class:`~skdp.svm.PrivateSVM` (``kernel="rbf"``) needs
no norm bound and spends nothing on public inputs.
"""

import functools
import math

import numpy as np

from skdp.utils._erm import persist_design, scaled_design
from skdp.utils._stats import is_dask_collection

__all__ = ["random_feature_design", "random_fourier_features"]


def random_fourier_features(X, frequencies):
    """``[cos(X rho^T), sin(X rho^T)] / sqrt(D)`` for ``D`` frequencies: rows of norm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.svm._random_features import random_fourier_features
    >>> features = random_fourier_features(np.ones((2, 3)), np.ones((4, 3)))
    >>> features.shape, np.linalg.norm(features, axis=1).round(12)
    ((2, 8), array([1., 1.]))
    """
    projection = X @ frequencies.T
    return np.hstack([np.cos(projection), np.sin(projection)]) / math.sqrt(len(frequencies))


def random_feature_design(X, codes, frequencies, *, fit_intercept):
    """The unit-ball design of ``[phi(x), t]`` (``phi(x)`` without an intercept; ``t`` as in
    :func:`skdp.utils._erm.scaled_design`).

    On a dask ``X`` the features are computed inside the blocks and persisted with the
    codes (:func:`skdp.utils._erm.persist_design`).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.svm._random_features import random_feature_design
    >>> design, _ = random_feature_design(
    ...     np.zeros((3, 2)), np.zeros(3), np.ones((5, 2)), fit_intercept=True)
    >>> design.shape
    (3, 11)
    """
    if is_dask_collection(X):
        features = functools.partial(random_fourier_features, frequencies=frequencies)
        return persist_design(X, codes, features=features, fit_intercept=fit_intercept)
    features = random_fourier_features(X, frequencies)
    return scaled_design(features, 1.0, fit_intercept=fit_intercept), codes
