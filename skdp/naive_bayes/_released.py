"""Gaussian naive Bayes prediction on released parameters."""

import numpy as np
from scipy.special import logsumexp

_LOG_TINY = np.log(np.finfo(np.float64).tiny)


class _Released:
    """Gaussian naive Bayes on released parameters (picklable: dask ships it)."""

    def __init__(self, prior, theta, var, classes):
        self.theta, self.var, self.classes = theta, var, classes
        with np.errstate(divide="ignore"):
            self.log_prior = np.log(prior)
        self.normaliser = -0.5 * np.sum(np.log(2.0 * np.pi * var), axis=1)

    def joint_log_likelihood(self, X):
        """``log P(c) + log P(x | c)`` of every row and class."""
        squared = ((X[:, np.newaxis, :] - self.theta) ** 2 / self.var).sum(axis=2)
        return self.log_prior + self.normaliser - 0.5 * squared

    def predict(self, X):
        return self.classes[np.argmax(self.joint_log_likelihood(X), axis=1)]

    def log_proba(self, X):
        jll = self.joint_log_likelihood(X)
        # below the smallest positive float a probability is 0 in predict_proba: keep
        # the log at that float's log so that log(predict_proba) matches
        return np.maximum(jll - logsumexp(jll, axis=1, keepdims=True), _LOG_TINY)

    def proba(self, X):
        return np.exp(self.log_proba(X))
