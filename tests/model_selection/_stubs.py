"""Stub candidates for the search's tests and audit: data-independent or overspending."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from skdp.base import DifferentialPrivacyMixin
from skdp.mechanisms import geometric


class ConstantClassifier(DifferentialPrivacyMixin, ClassifierMixin, BaseEstimator):
    """Predicts ``label`` everywhere; its fit reads nothing (spends nothing).

    ``spend`` makes it spend ``spend * epsilon`` on a dummy count: 1 is honest, more
    overspends its declared ``epsilon``.
    """

    def __init__(self, *, epsilon=1.0, label=0, classes=(0, 1), spend=0.0, random_state=None):
        self.epsilon = epsilon
        self.label = label
        self.classes = classes
        self.spend = spend
        self.random_state = random_state

    def fit(self, X, y):
        if self.spend:
            geometric(0, epsilon=self.spend * self.epsilon, random_state=self.random_state)
        self.classes_ = np.asarray(self.classes)
        self.n_features_in_ = np.shape(X)[1] if np.ndim(X) == 2 else 1
        self.epsilon_split_ = {"fit": float(self.epsilon)}
        self.n_rows_seen_ = len(X)  # for the tests only (a real estimator never keeps n)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)
