"""A minimal differentially private estimator of the tests' own.

It exercises the whole foundation the way a real estimator will (validation, public
or privately estimated bounds, split budget, mechanisms, ledger, sklearn API), so
the harnesses and the accounting of Pipeline / GridSearchCV / cross-validation are
tested before any real estimator exists.
"""

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils.validation import check_is_fitted, validate_data

from skdp.accounting import PrivacyLedger
from skdp.base import DifferentialPrivacyMixin
from skdp.mechanisms import check_random_state, geometric, laplace
from skdp.utils._bounds import estimate_bounds
from skdp.utils.validation import (
    EPSILON_CONSTRAINT,
    RANDOM_STATE_CONSTRAINT,
    clip_to_bounds,
    resolve_bounds,
    split_budget,
)


class NoisyMeanRegressor(DifferentialPrivacyMixin, RegressorMixin, BaseEstimator):
    """Predict a differentially private mean of the training targets.

    Privacy: add/remove one record. The target is clipped to ``bounds_y`` and centred
    on its midpoint, so the centred sum has sensitivity half the range, and the count
    sensitivity 1. With ``bounds_y=None``, a tenth of ``epsilon`` estimates them first.

    Parameters
    ----------
    epsilon : float, default=1.0
    bounds_y : tuple of float, optional
    random_state : None, int or numpy.random.Generator, default=None
    """

    _parameter_constraints = {
        "epsilon": EPSILON_CONSTRAINT,
        "bounds_y": [None, tuple, list],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(self, *, epsilon=1.0, bounds_y=None, random_state=None):
        self.epsilon = epsilon
        self.bounds_y = bounds_y
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        X, y = validate_data(self, X, y, y_numeric=True)
        rng = check_random_state(self.random_state)
        with PrivacyLedger() as ledger:
            if self.bounds_y is None:
                self.epsilon_split_ = split_budget(self.epsilon, {"bounds": 1, "sum": 4.5})
                lower, upper = estimate_bounds(
                    y, epsilon=self.epsilon_split_["bounds"], random_state=rng
                )
            else:
                self.epsilon_split_ = {"sum": self.epsilon * 0.5}
                lower, upper = resolve_bounds(self.bounds_y, 1, name="bounds_y")
            self.epsilon_split_["count"] = self.epsilon - sum(self.epsilon_split_.values())
            lower, upper = float(lower[0]), float(upper[0])
            centre = (lower + upper) / 2
            y = clip_to_bounds(y, lower, upper, name="y")
            noisy_sum = laplace(
                np.sum(y - centre),
                sensitivity=(upper - lower) / 2,
                epsilon=self.epsilon_split_["sum"],
                random_state=rng,
            )
            noisy_count = geometric(y.size, epsilon=self.epsilon_split_["count"], random_state=rng)
        self.mean_ = float(np.clip(centre + noisy_sum / max(noisy_count, 1), lower, upper))
        self.bounds_y_ = (lower, upper)
        self.privacy_spent_ = ledger.total
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return np.full(X.shape[0], self.mean_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True  # a constant prediction, by design
        return tags
