"""What the private linear models share: predictions from ``coef_`` and ``intercept_``.

Everything here is post-processing of the released coefficients. The predictions of a
block of rows are methods of :class:`LinearScores`, a small picklable object holding the
released model only, so that :func:`~skdp.utils._stats.map_rows` applies them to a
numpy array at once or to a dask collection block by block (a lazy dask array).
"""

import functools

import numpy as np
from scipy.special import expit, softmax
from sklearn.utils.validation import check_is_fitted

from skdp.utils._numeric_input import validate_numeric_data
from skdp.utils._stats import as_dask_array, is_dask_collection, map_rows


def clip_columns(block, lower, upper):
    """The columns of a block of rows clipped to ``[lower, upper]`` (a block function)."""
    return np.clip(block, lower, upper)


def clipped_features(bounds):
    """The public map "clip each column to ``bounds``" as a picklable block function.

    The features a model fitted on clipped columns weighs; None (the columns as they
    are) when ``bounds`` is None.
    """
    if bounds is None:
        return None
    return functools.partial(clip_columns, lower=bounds[0], upper=bounds[1])


class LinearScores:
    """``features(X) @ coef.T + intercept`` and what is derived from it, per block.

    Parameters
    ----------
    coef : ndarray of shape (n_features,) (regression) or (n_models, n_features)
    intercept : float or ndarray of shape (n_models,)
    classes : ndarray of shape (n_classes,) or None
    features : callable or None
        A public map of a block of ``X`` to the features ``coef`` weighs (None: ``X``).
    """

    def __init__(self, coef, intercept, classes=None, features=None):
        self.coef, self.intercept, self.classes = coef, intercept, classes
        self.features = features

    def _inputs(self, block):
        return block if self.features is None else self.features(block)

    def values(self, block):
        """The regression's predictions."""
        return self._inputs(block) @ self.coef + self.intercept

    def decision(self, block):
        """One score per row (two classes) or per row and class."""
        scores = self._inputs(block) @ self.coef.T + self.intercept
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, block):
        """The class of each row: the sign of the score, or the largest score's class."""
        scores = self.decision(block)
        index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
        return self.classes[index]

    def proba(self, block):
        """The logistic of the score, or the softmax of the scores."""
        scores = self.decision(block)
        if scores.ndim == 1:
            positive = expit(scores)
            return np.column_stack([1 - positive, positive])
        return softmax(scores, axis=1)

    def log_proba(self, block):
        """The logarithm of :meth:`proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.proba(block))


class LinearPredictionMixin:
    """Applies :class:`LinearScores` to numpy arrays or dask collections.

    Tags the estimator ``poor_score``: at the default ``epsilon = 1`` on the 100 to 300
    rows of scikit-learn's checks, no private linear model here reaches their
    thresholds (accuracy 0.83 on three blobs: 0.76 to 0.79 on average over ten seeds,
    0.51 at worst; ``R^2`` 0.5: about 0). At large epsilon they recover the non-private
    models (the estimators' tests).
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if tags.classifier_tags is not None:
            tags.classifier_tags.poor_score = True
        if tags.regressor_tags is not None:
            tags.regressor_tags.poor_score = True
        return tags

    def _block_features(self):
        """A public map of a block of ``X`` to the features ``coef_`` weighs (None: X)."""
        return None

    def _map_scores(self, X, what):
        check_is_fitted(self)
        if is_dask_collection(X):
            X = as_dask_array(self, X, reset=False)
        else:
            X = validate_numeric_data(self, X, reset=False)
        classes = getattr(self, "classes_", None)
        scores = LinearScores(self.coef_, self.intercept_, classes, self._block_features())
        n_scores = None if self.coef_.ndim == 1 or self.coef_.shape[0] == 1 else len(classes)
        columns, dtype = {
            "values": (None, np.float64),
            "decision": (n_scores, np.float64),
            "predict": (None, None if classes is None else classes.dtype),
            "proba": (None if classes is None else len(classes), np.float64),
            "log_proba": (None if classes is None else len(classes), np.float64),
        }[what]
        return map_rows(getattr(scores, what), X, dtype=dtype, columns=columns)


class LinearDecisionMixin(LinearPredictionMixin):
    """``decision_function`` and ``predict`` of a linear classifier (one score per class).

    The estimator sets ``classes_`` (n_classes labels), ``coef_`` of shape
    ``(1, n_features)`` for two classes or ``(n_classes, n_features)`` (one score per
    class: softmax or one-vs-rest models), and ``intercept_`` of matching length, as
    scikit-learn's linear classifiers do.
    """

    def decision_function(self, X):
        """Signed distance to the hyperplane(s): ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)
            A dask collection gives a lazy dask array, computed block by block.

        Returns
        -------
        ndarray or dask array of shape (n_samples,) or (n_samples, n_classes)
            One score per row for two classes, else one per row and class.
        """
        return self._map_scores(X, "decision")

    def predict(self, X):
        """The class of each row: the sign of the score, or the class of the largest score.

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)
            A dask collection gives a lazy dask array, computed block by block.

        Returns
        -------
        ndarray or dask array of shape (n_samples,)
        """
        return self._map_scores(X, "predict")


class LinearClassifierPredictMixin(LinearDecisionMixin):
    """:class:`LinearDecisionMixin` plus logistic / softmax ``predict_proba``."""

    def predict_proba(self, X):
        """Class probabilities: the logistic of the score, or the softmax of the scores.

        With more than two classes the per-class scores go through a softmax: exact for
        a softmax model, and what scikit-learn's multinomial logistic regression does.

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)
            A dask collection gives a lazy dask array, computed block by block.

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_classes)
        """
        return self._map_scores(X, "proba")

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)
            A dask collection gives a lazy dask array, computed block by block.

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_classes)
        """
        return self._map_scores(X, "log_proba")
