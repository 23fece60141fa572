"""Public class priors of the naive Bayes models, checked as scikit-learn checks them."""

import numpy as np

__all__ = ["check_priors"]


def check_priors(priors, n_classes):
    """``priors`` as a float array of shape ``(n_classes,)``, or None when None.

    Public values (never read from the data): non-negative, finite, adding up to 1.
    """
    if priors is None:
        return None
    priors = np.asarray(priors, dtype=float)
    if priors.shape != (n_classes,):
        raise ValueError(f"Number of priors must match number of classes ({n_classes}).")
    if not np.all(np.isfinite(priors)) or np.any(priors < 0):
        raise ValueError("Priors must be non-negative and finite.")
    if not np.isclose(priors.sum(), 1.0):
        raise ValueError("The sum of the priors should be 1.")
    return priors
