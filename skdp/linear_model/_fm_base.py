"""What both functional-mechanism estimators share: the private part of ``fit``.

:class:`FunctionalMechanismBase` resolves the bounds (privately when missing), computes
the exact statistics in one pass (:class:`~skdp.linear_model._moments.BlockMoments`),
releases them once and hands the noisy statistics to the estimator's minimiser
(:mod:`skdp.linear_model._fm_solver`). Predictions weigh the columns clipped to
``bounds_``, as the model was fitted.
"""

import math
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from skdp.accounting import PrivacyLedger
from skdp.base import DifferentialPrivacyMixin
from skdp.linear_model._base import clipped_features
from skdp.linear_model._fm_solver import RIDGE_NOISE_MULTIPLE
from skdp.linear_model._moment_release import release_moments, release_sensitivity
from skdp.linear_model._moments import BlockMoments, resolve_public_bounds, unit_scaling
from skdp.utils._stats import count_rows, sum_blocks
from skdp.utils.validation import (
    EPSILON_CONSTRAINT,
    RANDOM_STATE_CONSTRAINT,
    check_epsilon,
    closing_share,
    warn_clipped,
)

__all__ = ["COMMON_CONSTRAINTS", "FunctionalMechanismBase"]


COMMON_CONSTRAINTS = {
    "epsilon": EPSILON_CONSTRAINT,
    "bounds": [None, tuple, list, dict, np.ndarray],
    "fit_intercept": ["boolean"],
    "regularization": [StrOptions({"auto"}), Interval(Real, 0, math.inf, closed="left")],
    "random_state": RANDOM_STATE_CONSTRAINT,
}


class FunctionalMechanismBase(DifferentialPrivacyMixin):
    """What both estimators share: the private part of ``fit`` and the ridge.

    A subclass defines ``_weights(n_features, n_classes)`` (the public weights of the
    released entries) and ``_minimise(noisy_linear, noisy_quadratic, noise_std,
    weights)`` (post-processing into a scaled model).
    """

    def _fit_noisy_model(self, blocks, statistics, rng, *, extra=(), n_classes=None):
        """Resolve bounds, compute the statistics in one pass, release them once, minimise.

        ``blocks`` are ``(values, bounds parameter, parameter name, label)``, features
        first, ``values`` 2-D numpy or dask arrays (on dask every bound is public: the
        caller checks). ``statistics`` names the :class:`BlockMoments` method that
        :func:`~skdp.utils._stats.sum_blocks` runs on the values and the ``extra``
        row-aligned arrays; it returns ``(linear, quadratic, n_clipped)``. Returns the
        scaled model ``(slopes, intercepts)``, the scalings and the bounds.
        """
        with PrivacyLedger() as ledger:
            # stacklevel: the user's fit -> _fit_context -> fit -> here
            resolved, self.epsilon_split_, self.bounds_tier_ = resolve_public_bounds(
                self, [block[:3] for block in blocks], rng=rng, stacklevel=4
            )
            scalings = [unit_scaling(*r, centred=self.fit_intercept) for r in resolved]
            moments = BlockMoments(
                resolved, scalings, fit_intercept=self.fit_intercept, n_classes=n_classes
            )
            values = [block[0] for block in blocks]
            linear, quadratic, n_clipped = sum_blocks(
                getattr(moments, statistics), *values, *extra
            )
            n_rows = count_rows(values[0])
            for block, clipped in zip(blocks, n_clipped, strict=True):
                # fit -> _fit_context -> the caller's line
                warn_clipped(int(clipped), n_rows * block[0].shape[1], name=block[3], stacklevel=5)
            weights = self._weights(values[0].shape[1], n_classes)
            # the last share closes the ledger's running total on epsilon exactly
            epsilon = closing_share(check_epsilon(self.epsilon), ledger.total.epsilon)
            self.epsilon_split_["moments"] = epsilon
            noisy_linear, noisy_quadratic = release_moments(
                linear, quadratic, weights=weights, epsilon=epsilon, rng=rng
            )
        self.privacy_spent_ = ledger.total
        self.bounds_ = resolved[0]
        # standard deviation of the noise on a released entry of weight 1
        noise_std = math.sqrt(2) * release_sensitivity(weights) / epsilon
        model = self._minimise(noisy_linear, noisy_quadratic, noise_std, weights)
        return model, scalings, resolved

    def _ridge(self, noise_std, objective_scale):
        """The ridge in the solver's units; "auto" is five noise standard deviations."""
        if self.regularization == "auto":
            return RIDGE_NOISE_MULTIPLE * noise_std
        return objective_scale * float(self.regularization)

    def _block_features(self):
        """The features the released model weighs: the columns clipped to ``bounds_``."""
        return clipped_features(self.bounds_)
