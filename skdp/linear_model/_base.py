"""What the private linear classifiers share: predictions from ``coef_`` and ``intercept_``.

Everything here is post-processing of the released coefficients.
"""

import numpy as np
from scipy.special import expit, softmax
from sklearn.utils.validation import check_is_fitted, validate_data


class LinearDecisionMixin:
    """``decision_function`` and ``predict`` of a linear model (one score per class).

    The estimator sets ``classes_`` (n_classes labels), ``coef_`` of shape
    ``(1, n_features)`` for two classes or ``(n_classes, n_features)`` (one score per
    class: softmax or one-vs-rest models), and ``intercept_`` of matching length, as
    scikit-learn's linear classifiers do.
    """

    def decision_function(self, X):
        """Signed distance to the hyperplane(s): ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        scores = self._features(X) @ self.coef_.T + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def _features(self, X):
        """What ``coef_`` weighs: the columns of ``X`` (a kernel model maps them first)."""
        return X

    def predict(self, X):
        """The class of each row: the sign of the score, or the class of the largest score.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes_[index]


class LinearClassifierPredictMixin(LinearDecisionMixin):
    """:class:`LinearDecisionMixin` plus logistic / softmax ``predict_proba``."""

    def predict_proba(self, X):
        """Class probabilities: the logistic of the score, or the softmax of the scores.

        With more than two classes the per-class scores go through a softmax: exact for
        a softmax model, and what scikit-learn's multinomial logistic regression does.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            positive = expit(scores)
            return np.column_stack([1 - positive, positive])
        return softmax(scores, axis=1)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
