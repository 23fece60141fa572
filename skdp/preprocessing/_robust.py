"""RobustScaler: centre on a private median, scale by a private interquantile range."""

from fractions import Fraction

import numpy as np
from scipy.stats import norm
from sklearn.base import BaseEstimator, _fit_context

from skdp.accounting import PrivacyBudget, PrivacyLedger
from skdp.mechanisms import check_random_state
from skdp.preprocessing._base import (
    AffineScalerMixin,
    affordable_candidates,
    declared_bounds,
    feature_quantiles,
)
from skdp.utils._bounds import estimate_public_inputs
from skdp.utils._quantiles import _as_fraction
from skdp.utils.validation import EPSILON_CONSTRAINT, RANDOM_STATE_CONSTRAINT, check_epsilon

__all__ = ["RobustScaler"]

# a grid step of 1/512 of the box: JointExp takes about 7 ms per feature for three
# levels on 10^5 values (O(K log K), as in MinMaxScaler)
N_CANDIDATES = 513


class RobustScaler(AffineScalerMixin, BaseEstimator):
    """Scale features with a private median and interquartile range.

    A drop-in for :class:`sklearn.preprocessing.RobustScaler` whose ``fit`` is
    ``epsilon``-differentially private: ``transform(X) = (X - center_) / scale_`` with
    ``center_`` the private median of each feature and ``scale_`` the distance between
    its private ``quantile_range`` quantiles (25% and 75% by default), all drawn at
    once per feature by JointExp. Quantiles move by at most one rank when a record is
    added or removed, whatever its value, so outliers cost neither privacy nor
    accuracy: no box has to hold every value, only the quantiles.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget (> 0).
    bounds : None, tuple, dict or (lower, upper) arrays, default=None
        Public per-feature box the quantiles are searched in (see
        :func:`skdp.utils.validation.resolve_bounds`); values outside are clipped for
        the search, never in :meth:`transform`. It only needs to hold the quantiles,
        not every value. None estimates a box privately with a share of ``epsilon``
        (Notes).
    with_centering : bool, default=True
        Centre the data on the private median. False releases no median.
    with_scaling : bool, default=True
        Scale the data by the private interquantile range. False releases only the
        median.
    quantile_range : tuple (q_min, q_max), default=(25.0, 75.0)
        Percentiles of the range, as in scikit-learn (``0 < q_min < q_max < 100``;
        rounded to fractions with denominators up to 1000).
    copy : bool, default=True
        Set to False to scale in place in :meth:`transform` (as scikit-learn); ``fit``
        never writes to ``X``.
    unit_variance : bool, default=False
        Divide ``scale_`` by the standard normal's interquantile range for
        ``quantile_range`` (a public constant), so normal features get unit variance.
    random_state : None, int or numpy.random.Generator, default=None
        None draws from a fresh cryptographically secure generator; an int gives
        reproducible fits for experiments (not for releases).

    Attributes
    ----------
    center_ : ndarray of shape (n_features,) or None
        The private medians; None when ``with_centering=False``.
    scale_ : ndarray of shape (n_features,) or None
        The private interquantile ranges (always > 0: JointExp returns strictly
        increasing quantiles); None when ``with_scaling=False``.
    quantiles_ : ndarray of shape (n_levels, n_features)
        Every private quantile released, increasing down each column (``q_min``, the
        median, ``q_max``, those that were asked for); empty when nothing is released.
    n_samples_seen_ : int or None
        The noisy number of records (``bounds=None``), None when nothing was released.
        Never the exact count.
    bounds_ : tuple of ndarray or None
        The public or privately estimated box the quantiles were searched in.
    bounds_tier_ : int or None
        How the box was found (:mod:`skdp.utils._bounds`: 1 per-feature scans, 2 one
        box for all features, 3 the public fallback ``[-100, 100]``); None if declared.
    n_candidates_ : int or None
        The number of evenly spaced candidates of each feature's box the quantiles
        were drawn among (513, or fewer on few records, Notes); None when nothing is
        released.
    epsilon_split_ : dict
        ``{"n_samples", "bounds", "quantiles"}``.
    privacy_spent_ : PrivacyBudget
        What the ledger measured during ``fit``: ``epsilon`` (0 when
        ``with_centering`` and ``with_scaling`` are both False: nothing is released).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only for DataFrame input with string column names.

    See Also
    --------
    StandardScaler : Private mean and variance scaling.
    MinMaxScaler : Private low and high quantiles mapped to a range.

    Notes
    -----
    **Privacy**: ``epsilon``-DP under add/remove of one record, by sequential
    composition of (step 1 only with ``bounds=None``):

    1. the private box of :func:`skdp.utils._bounds.estimate_public_inputs`: a noisy
       record count (5% of epsilon, discrete Laplace, sensitivity 1) and, per feature,
       AboveThreshold scans for the 98% quantiles of ``x`` and ``-x`` on a public grid
       of powers of ``2**0.25`` (10% to 60% of epsilon by tier, a function of the
       noisy count, ``epsilon`` and ``d``); one record moves each rank query by one;
    2. the rest, ``epsilon / d`` per feature, on one JointExp draw (Gillenwater,
       Joseph and Kulesza 2021; :func:`skdp.utils._joint_quantiles.joint_quantiles`)
       of the levels ``(q_min, 1/2, q_max)`` among ``K`` evenly spaced public
       candidates of the feature's box, values clipped to it: 513, or with
       ``bounds=None`` fewer when the noisy count is too small for JointExp to tell
       513 apart (:func:`skdp.preprocessing._base.affordable_candidates`, a function
       of the noisy count, ``epsilon / d`` and the levels: a public grid). For the default levels
       the gaps are ``w = (1/4, 1/4, 1/4, 1/4)`` and the add/remove sensitivity of the
       joint score is ``max(2 (1 - 1/4), 3 - 2 (1/4 + 1/4)) = 2`` rank units
       (:func:`skdp.utils._joint_quantiles.joint_sensitivity` derives the general
       bound: a record added between two outputs moves one gap count by 1 and every
       target by its ``w``; one added at an output widens both neighbouring
       intervals).

    A record touches every feature, so the ``d`` draws compose sequentially.
    ``center_``, ``scale_``, :meth:`transform` and :meth:`inverse_transform` are
    post-processing, and ``unit_variance`` divides by a public constant.

    **diffprivlib** has no robust scaler. **Differences from scikit-learn**: no
    ``partial_fit``; NaN is refused (impute first); sparse input is refused; the
    exact ``n_samples_seen_`` is never released.

    **Accuracy**: each quantile's error is in ranks, about ``ln(K) / epsilon_q``
    records for ``epsilon_q`` per feature, plus ``1/(K - 1)`` of the box in value.
    With ``n epsilon / d`` of a few units or less the box is one range for all
    features (or the public fallback) and the grid coarse: the quantiles stay among
    the box's few candidates, and a feature on a small scale gets a ``scale_`` far
    too large. Declare ``bounds`` when you know them.

    References
    ----------
    J. Gillenwater, M. Joseph and A. Kulesza, "Differentially private quantiles",
    ICML 2021. D. Durfee, "Unbounded differentially private quantile and maximum
    estimation", NeurIPS 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.preprocessing import RobustScaler
    >>> X = np.random.default_rng(0).normal([10, -3], [2, 0.5], size=(5000, 2))
    >>> np.median(X, axis=0).round(1), np.subtract(*np.percentile(X, [75, 25], axis=0)).round(2)
    (array([10., -3.]), array([2.74, 0.67]))
    >>> scaler = RobustScaler(epsilon=1.0, bounds=([0, -6], [20, 0]), random_state=0).fit(X)
    >>> scaler.center_.round(1), scaler.scale_.round(2)
    (array([10., -3.]), array([2.73, 0.67]))
    >>> scaler.privacy_spent_.epsilon
    1.0
    """

    _parameter_constraints = {
        "epsilon": EPSILON_CONSTRAINT,
        "bounds": [None, tuple, list, dict, np.ndarray],
        "with_centering": ["boolean"],
        "with_scaling": ["boolean"],
        "quantile_range": [tuple],
        "copy": ["boolean"],
        "unit_variance": ["boolean"],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(
        self, *, epsilon=1.0, bounds=None, with_centering=True, with_scaling=True,
        quantile_range=(25.0, 75.0), copy=True, unit_variance=False, random_state=None,
    ):  # fmt: skip
        self.epsilon = epsilon
        self.bounds = bounds
        self.with_centering = with_centering
        self.with_scaling = with_scaling
        self.quantile_range = quantile_range
        self.copy = copy
        self.unit_variance = unit_variance
        self.random_state = random_state

    def _levels(self):
        """The distinct levels to release, as increasing fractions (empty: none)."""
        q_min, q_max = (float(q) for q in self.quantile_range)
        if not 0 < q_min < q_max < 100:
            raise ValueError(
                f"quantile_range must be (q_min, q_max) percentiles with "
                f"0 < q_min < q_max < 100, got {self.quantile_range!r}"
            )
        ends = [Fraction(*_as_fraction(q / 100)) for q in (q_min, q_max)]
        if ends[0] >= ends[1]:
            raise ValueError(
                f"quantile_range {self.quantile_range!r} rounds to one level (fractions with "
                "denominators up to 1000): widen it"
            )
        levels = {Fraction(1, 2)} if self.with_centering else set()
        if self.with_scaling:
            levels.update(ends)
        return sorted(levels)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release the private median and interquantile range of each feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite values; never modified.
        y : Ignored

        Returns
        -------
        self
        """
        levels = self._levels()
        X = self._validate_fit_input(X)
        d = X.shape[1]
        box = declared_bounds(self, d)
        split = {"n_samples": 0.0, "bounds": 0.0, "quantiles": 0.0}
        self.n_samples_seen_, self.bounds_tier_ = None, None
        self.n_candidates_ = N_CANDIDATES if levels else None
        quantiles = np.empty((0, d))
        with PrivacyLedger() as ledger:
            rng = check_random_state(self.random_state)
            epsilon = check_epsilon(self.epsilon)
            if levels and box is None:
                found = estimate_public_inputs(
                    epsilon, n_samples=X.shape[0], columns=X, stacklevel=4, random_state=rng,
                    finite=True,  # validated above
                )  # fmt: skip
                box, self.bounds_tier_ = found.bounds, found.bounds_tier
                self.n_samples_seen_ = found.n_samples
                split.update(n_samples=found.epsilon_split["n_samples"])
                split.update(bounds=found.epsilon_split["bounds"])
                epsilon = found.remaining
                self.n_candidates_ = affordable_candidates(
                    found.n_samples, epsilon / d, levels, N_CANDIDATES, d
                )
            if levels:
                split["quantiles"] = epsilon
                quantiles = feature_quantiles(
                    X, levels, *box, n_candidates=self.n_candidates_, epsilon=epsilon,
                    ledger=ledger, budget=check_epsilon(self.epsilon), rng=rng,
                )  # fmt: skip
        self.bounds_ = box
        self.epsilon_split_ = split
        self.privacy_spent_ = ledger.total
        self.quantiles_ = quantiles
        self._set_statistics(dict(zip(levels, quantiles, strict=True)), d)
        return self

    def _set_statistics(self, found, d):
        self.center_ = found[Fraction(1, 2)].copy() if self.with_centering else None
        self.scale_ = None
        multiplier, offset = np.ones(d), np.zeros(d)
        if self.with_scaling:
            q_min, q_max = (Fraction(*_as_fraction(float(q) / 100)) for q in self.quantile_range)
            self.scale_ = found[q_max] - found[q_min]
            if self.unit_variance:
                self.scale_ = self.scale_ / (norm.ppf(float(q_max)) - norm.ppf(float(q_min)))
            multiplier = 1 / self.scale_
        if self.with_centering:
            offset = -self.center_ * multiplier
        self._multiplier, self._offset = multiplier, offset

    def _privacy_budget(self):
        """0 when nothing is released (``with_centering`` and ``with_scaling`` False)."""
        if not (self.with_centering or self.with_scaling):
            return PrivacyBudget(0.0)
        return super()._privacy_budget()
