"""Synthetic data of the speed benchmark (:mod:`benchmarks.speed`), one generator per
estimator family, and the exact itemset counterpart; every generator is seeded."""

import math

import numpy as np
from sklearn.base import BaseEstimator

N_FEATURES = 10
N_ITEMS = 40
N_CODES = 8
BOX = (-1.0, 1.0)


def _linear(n, seed, *, classification):
    w = np.random.default_rng(12345).uniform(-1, 1, N_FEATURES) * 2 / math.sqrt(N_FEATURES)
    rng = np.random.default_rng(seed)
    X = rng.uniform(*BOX, size=(n, N_FEATURES))
    if classification:
        return X, (X @ w + rng.logistic(scale=0.3, size=n) > 0).astype(int)
    return X, np.clip(X @ w + rng.normal(scale=0.5, size=n), -4.0, 4.0)


def classification_data(n, seed=0):
    """Features uniform in the public box ``[-1, 1]^10``; labels of a noisy linear rule."""
    return _linear(n, seed, classification=True)


def regression_data(n, seed=0):
    """Features in ``[-1, 1]^10``; a linear target plus noise, clipped to ``[-4, 4]``."""
    return _linear(n, seed, classification=False)


def normal_data(n, seed=0):
    """Standard normal features in 10 dimensions (not in any box: private bounds and
    norms clip here, unlike on ``regression_data``); the same kind of linear target."""
    w = np.random.default_rng(12345).uniform(-1, 1, N_FEATURES) * 2 / math.sqrt(N_FEATURES)
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, N_FEATURES))
    return X, X @ w + rng.normal(scale=0.5, size=n)


def blob_data(n, seed=0):
    """Three Gaussian blobs in ``[-1, 1]^2`` (clipped), no labels."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-0.5, -0.5], [0.5, -0.3], [0.0, 0.6]])
    X = centres[rng.integers(3, size=n)] + rng.normal(scale=0.12, size=(n, 2))
    return np.clip(X, *BOX), None


def categorical_data(n, seed=0):
    """Ten features of 8 integer codes each; labels of a noisy rule on the first two."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, N_CODES, size=(n, N_FEATURES))
    return X, ((X[:, 0] + X[:, 1] + rng.integers(0, 4, size=n)) > N_CODES + 1).astype(int)


def transaction_data(n, seed=0):
    """Boolean transactions over 40 items of decreasing frequency (0.6 down to 0.02)."""
    rng = np.random.default_rng(seed)
    return rng.random((n, N_ITEMS)) < np.geomspace(0.6, 0.02, N_ITEMS), None


class ExactItemsets(BaseEstimator):
    """Non-private counterpart of DPFrequentItemsets (no mlxtend): the exact top-k
    itemsets of one or two items, from the item counts and ``X.T @ X``."""

    def __init__(self, top_k=20):
        self.top_k = top_k

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=np.float32)
        pairs = X.T @ X
        i, j = np.triu_indices(X.shape[1], k=1)
        supports = np.concatenate([np.diag(pairs), pairs[i, j]]) / X.shape[0]
        best = np.argsort(-supports, kind="stable")[: self.top_k]
        items = [(a,) for a in range(X.shape[1])] + list(zip(i, j, strict=True))
        self.itemsets_ = [frozenset(items[b]) for b in best]
        self.supports_ = supports[best]
        return self
