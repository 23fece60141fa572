"""MinMaxScaler: scale each feature to a range from private quantiles (or public bounds)."""

from fractions import Fraction

import numpy as np
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

__all__ = ["MinMaxScaler"]

# at most 257 evenly spaced candidates: the grid step at 1/256 of the box; the ranks on
# the grid take one pass over X, then JointExp about 0.25 ms per feature (O(K log K))
N_CANDIDATES = 257
DEFAULT_QUANTILES = (0.01, 0.99)


def _quantile_levels(levels):
    """``levels`` as exact fractions, checked increasing."""
    fractions = [Fraction(*_as_fraction(level)) for level in levels]
    if fractions[0] >= fractions[1]:
        raise ValueError(f"quantile_range must be increasing, got {tuple(levels)!r}")
    return fractions


class MinMaxScaler(AffineScalerMixin, BaseEstimator):
    """Scale each feature to ``feature_range`` from its private low and high quantiles.

    A drop-in for :class:`sklearn.preprocessing.MinMaxScaler` whose fit is
    ``epsilon``-differentially private. The minimum and maximum of a feature are one
    record's values (removing that record can move them across the whole range), so no
    noise level protects them usefully: ``data_min_`` and ``data_max_`` are private
    estimates of low and high quantiles (1% and 99% by default), or, when you
    declare ``bounds``, the bounds themselves (at no cost) unless you ask for
    quantiles inside them.

    Parameters
    ----------
    feature_range : tuple (min, max), default=(0, 1)
        Desired range of transformed data.
    epsilon : float, default=1.0
        Privacy budget (> 0). **Unused when ``bounds`` is given and
        ``quantile_range=None``**: the bounds are then the answer and the fit reads
        nothing from the data but its shape, so it spends 0
        (``privacy_spent_.epsilon == 0``, and :func:`skdp.privacy_spent` counts 0 for
        it in a Pipeline or a search).
    bounds : None, tuple, dict or (lower, upper) arrays, default=None
        Public per-feature range (see :func:`skdp.utils.validation.resolve_bounds`).
        Given (and ``quantile_range=None``): ``data_min_, data_max_ = bounds`` at no
        cost. None: a box is estimated privately (Notes) and the quantiles searched
        in it.
    quantile_range : None or tuple (q_low, q_high), default=None
        The private quantiles ``data_min_`` and ``data_max_`` estimate
        (``0 < q_low < q_high < 1``; rounded to fractions with denominators up to
        1000). None: ``(0.01, 0.99)`` without ``bounds``, the bounds themselves with
        them. Levels given with ``bounds`` search the quantiles inside the declared
        box with all of ``epsilon`` (tighter than a loose declared range, at a cost).
    copy : bool, default=True
        Set to False to scale in place in :meth:`transform` (as scikit-learn); ``fit``
        never writes to ``X``.
    clip : bool, default=False
        Clip transformed values to ``feature_range``. Records beyond the private
        quantiles (about 1% on each side by default) otherwise fall outside it.
    random_state : None, int or numpy.random.Generator, default=None
        None draws from a fresh cryptographically secure generator; an int gives
        reproducible fits for experiments (not for releases).

    Attributes
    ----------
    data_min_, data_max_ : ndarray of shape (n_features,)
        The private ``q_low`` and ``q_high`` quantiles (``data_min_ < data_max_``
        always), or the declared bounds.
    data_range_ : ndarray of shape (n_features,)
        ``data_max_ - data_min_`` (> 0).
    scale_ : ndarray of shape (n_features,)
        ``(feature_range[1] - feature_range[0]) / data_range_``.
    min_ : ndarray of shape (n_features,)
        ``feature_range[0] - data_min_ * scale_``.
    n_samples_seen_ : int or None
        The noisy number of records (bounds=None), None when nothing was released.
        Never the exact count.
    bounds_ : tuple of ndarray
        The public or privately estimated box the quantiles were searched in.
    bounds_tier_ : int or None
        How the box was found (:mod:`skdp.utils._bounds`: 1 per-feature scans, 2 one
        box for all features, 3 the public fallback ``[-100, 100]``); None if declared.
    n_candidates_ : int or None
        The number of evenly spaced candidates of each feature's box the quantiles
        were drawn among (2: the box itself, nothing finer was affordable); None when
        the declared bounds are the answer.
    epsilon_split_ : dict
        ``{"n_samples", "bounds", "quantiles"}``; all 0 when the declared bounds are
        the answer.
    privacy_spent_ : PrivacyBudget
        What the ledger measured during ``fit``: ``epsilon``, or 0 when the declared
        bounds are the answer.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only for DataFrame input with string column names.

    See Also
    --------
    StandardScaler : Private mean and variance scaling.

    Notes
    -----
    **Privacy**: ``epsilon``-DP under add/remove of one record. With ``bounds=None``,
    three sequential steps (:func:`skdp.utils._bounds.estimate_public_inputs` for the
    first two; with declared bounds and ``quantile_range`` only step 3, on all of
    ``epsilon`` and the declared box):

    1. a noisy record count (5% of epsilon, discrete Laplace, sensitivity 1);
    2. a private box, 10% to 60% of epsilon by tier (a function of the noisy count,
       ``epsilon`` and ``d``): per feature, AboveThreshold scans for the 98% quantile
       of ``x`` and of ``-x`` on a public grid of powers of ``2**0.25`` (one record
       moves a rank query by one);
    3. the rest, ``epsilon / d`` per feature, on JointExp (Gillenwater, Joseph and
       Kulesza 2021; :func:`skdp.tools.quantile`, ``method="joint"``) drawing
       ``q_low < q_high`` together among ``K`` evenly spaced public candidates of the
       feature's box, values clipped to it. Its add/remove sensitivity for levels
       ``(0.01, 0.99)`` is ``2 (1 - 0.01) = 1.98`` rank units (a record added below
       both outputs: :func:`skdp.utils._joint_quantiles.joint_sensitivity`, derived
       there). ``K`` is 257, or fewer when the noisy count is too small for JointExp
       to tell 257 candidates apart
       (:func:`skdp.preprocessing._base.affordable_candidates`: a function of the
       noisy count, ``epsilon / d`` and the levels, so the grid is public, chosen
       after the count's release; sequential composition is unchanged).

    A record touches every feature, so the ``d`` draws compose sequentially.
    ``transform`` and ``inverse_transform`` are post-processing. With declared
    ``bounds`` and ``quantile_range=None`` nothing is released about the data (the
    output depends only on the bounds and the number of columns), hence the zero
    spend; ``epsilon`` is then ignored rather than spent on nothing.

    **Differences from scikit-learn**: no ``partial_fit`` (each call would spend its
    own budget); NaN is refused (impute first); the exact ``n_samples_seen_`` is never
    released.

    **Accuracy**: the quantiles' error is in ranks, about ``ln(K) / (epsilon_q)``
    records for ``epsilon_q`` per feature, plus ``1/(K - 1)`` of the box in value.
    With ``n epsilon / d`` of a few units or less the box (step 2) is one range for
    all features and the grid coarse (Wine at ``epsilon = 1``: ``K = 2``, the box
    itself, so the transformed values stay in ``[0, 2]`` but features on a small
    scale use little of it). Declare ``bounds`` when you know them.

    References
    ----------
    J. Gillenwater, M. Joseph and A. Kulesza, "Differentially private quantiles",
    ICML 2021. D. Durfee, "Unbounded differentially private quantile and maximum
    estimation", NeurIPS 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.preprocessing import MinMaxScaler
    >>> X = np.random.default_rng(0).uniform([0, 10], [1, 50], size=(5000, 2))
    >>> scaler = MinMaxScaler(epsilon=1.0, random_state=0).fit(X)
    >>> scaler.data_min_.round(1), scaler.data_max_.round(1)
    (array([ 0. , 10.3]), array([ 1. , 49.4]))
    >>> scaler.privacy_spent_.epsilon
    1.0

    Declared bounds are the answer, at no cost:

    >>> free = MinMaxScaler(bounds=([0, 0], [1, 100])).fit(X)
    >>> free.data_max_, free.privacy_spent_.epsilon
    (array([  1., 100.]), 0.0)

    Or, at a cost, the quantiles inside a loose declared range:

    >>> tight = MinMaxScaler(bounds=([0, 0], [1, 100]), quantile_range=(0.01, 0.99),
    ...                      random_state=0).fit(X)
    >>> tight.data_max_.round(1), tight.privacy_spent_.epsilon
    (array([ 1. , 49.2]), 1.0)
    """

    _parameter_constraints = {
        "feature_range": [tuple],
        "epsilon": EPSILON_CONSTRAINT,
        "bounds": [None, tuple, list, dict, np.ndarray],
        "quantile_range": [None, tuple],
        "copy": ["boolean"],
        "clip": ["boolean"],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(
        self,
        feature_range=(0, 1),
        *,
        epsilon=1.0,
        bounds=None,
        quantile_range=None,
        copy=True,
        clip=False,
        random_state=None,
    ):
        self.feature_range = feature_range
        self.epsilon = epsilon
        self.bounds = bounds
        self.quantile_range = quantile_range
        self.copy = copy
        self.clip = clip
        self.random_state = random_state

    def _check_ranges(self):
        low, high = self.feature_range
        if not low < high:
            raise ValueError(
                f"Minimum of desired feature range must be smaller than maximum. Got "
                f"{self.feature_range}."
            )
        if self.quantile_range is None:
            return None if self.bounds is not None else DEFAULT_QUANTILES
        q_low, q_high = (float(q) for q in self.quantile_range)
        if not 0 < q_low < q_high < 1:
            raise ValueError(
                f"quantile_range must be (q_low, q_high) with 0 < q_low < q_high < 1, got "
                f"{self.quantile_range!r}"
            )
        return (q_low, q_high)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Release the private low and high quantiles of each feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite values; never modified.
        y : Ignored

        Returns
        -------
        self
        """
        levels = self._check_ranges()
        X = self._validate_fit_input(X)
        d = X.shape[1]
        declared = declared_bounds(self, d)
        with PrivacyLedger() as ledger:
            if declared is not None and levels is None:
                lower, upper = declared
                split = {"n_samples": 0.0, "bounds": 0.0, "quantiles": 0.0}
                self.n_samples_seen_, self.bounds_tier_ = None, None
                self.n_candidates_ = None
                self.data_min_, self.data_max_ = lower.copy(), upper.copy()
            elif declared is not None:
                lower, upper = declared
                split = {"n_samples": 0.0, "bounds": 0.0, "quantiles": float(self.epsilon)}
                self.n_samples_seen_, self.bounds_tier_ = None, None
                self.n_candidates_ = N_CANDIDATES
                self.data_min_, self.data_max_ = feature_quantiles(
                    X, _quantile_levels(levels), lower, upper, n_candidates=N_CANDIDATES,
                    epsilon=check_epsilon(self.epsilon), ledger=ledger,
                    budget=check_epsilon(self.epsilon), rng=check_random_state(self.random_state),
                )  # fmt: skip
            else:
                rng = check_random_state(self.random_state)
                found = estimate_public_inputs(
                    check_epsilon(self.epsilon),
                    n_samples=X.shape[0],
                    columns=X,
                    stacklevel=4,
                    random_state=rng,
                    finite=True,  # validated above
                )
                lower, upper = found.bounds
                split = {**found.epsilon_split, "quantiles": found.remaining}
                split.pop("data_norm")
                fractions = _quantile_levels(levels)
                self.n_candidates_ = affordable_candidates(
                    found.n_samples, found.remaining / d, fractions, N_CANDIDATES, d
                )
                self.data_min_, self.data_max_ = feature_quantiles(
                    X, fractions, lower, upper, n_candidates=self.n_candidates_,
                    epsilon=found.remaining, ledger=ledger, budget=check_epsilon(self.epsilon),
                    rng=rng,
                )  # fmt: skip
                self.n_samples_seen_, self.bounds_tier_ = found.n_samples, found.bounds_tier
        self.bounds_ = (lower, upper)
        self.epsilon_split_ = split
        self.privacy_spent_ = ledger.total
        self.data_range_ = self.data_max_ - self.data_min_
        low, high = self.feature_range
        self.scale_ = (high - low) / self.data_range_
        self.min_ = low - self.data_min_ * self.scale_
        self._multiplier, self._offset = self.scale_, self.min_
        return self

    def _clip_range(self):
        return self.feature_range if self.clip else None

    def _privacy_budget(self):
        """0 when the declared bounds are the answer (nothing is read), else ``epsilon``."""
        if self.bounds is not None and self.quantile_range is None:
            return PrivacyBudget(0.0)
        return super()._privacy_budget()
