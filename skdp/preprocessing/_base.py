"""What the private scalers share: input checks, the private box, affine transforms."""

import math

import numpy as np
from sklearn.base import OneToOneFeatureMixin, TransformerMixin
from sklearn.utils import metadata_routing
from sklearn.utils.validation import FLOAT_DTYPES, check_is_fitted

from skdp.base import DifferentialPrivacyMixin
from skdp.utils._joint_quantiles import (
    common_denominator,
    grid_ranks,
    joint_draws,
    joint_sensitivity,
    level_gaps,
)
from skdp.utils._numeric_input import validate_numeric_data
from skdp.utils._shares import close_last_share
from skdp.utils._stats import as_dask_array, is_dask_collection
from skdp.utils.validation import resolve_bounds

__all__ = ["AffineScalerMixin", "affordable_candidates", "declared_bounds", "feature_quantiles"]

# the weight the d JointExp draws of a fit may give, together, to outputs that leave all
# the data in an end block, against about 1 for an output near the quantiles (below)
STRAY_WEIGHT = 0.05


def declared_bounds(estimator, n_features):
    """The estimator's public ``bounds`` as ``(lower, upper)`` arrays, or None to estimate."""
    names = getattr(estimator, "feature_names_in_", None)
    return resolve_bounds(estimator.bounds, n_features, feature_names=names)


def affordable_candidates(n_noisy, epsilon, levels, cap, n_features=1):
    """How many evenly spaced candidates a feature's JointExp draw can tell apart.

    JointExp draws ``m = len(levels)`` increasing candidates with weight ``exp(-r
    S)``, ``r = epsilon / (2 Delta)`` for the score's sensitivity ``Delta`` in rank
    units (:func:`skdp.utils._joint_quantiles.joint_sensitivity`). An output with
    every candidate above the data leaves all ``n`` values in the first block, which
    should hold ``w_0 n`` of them, and the other blocks empty: it scores ``S = n (1 -
    w_0) + n (1 - w_0)``; every candidate below the data scores ``2 n (1 - w_m)``
    (``w`` the levels' gaps). There are at most ``C(K, m)`` outputs on ``K``
    candidates, so these weigh ``C(K, m) exp(-2 r n (1 - max(w_0, w_m)))`` at most.
    On few records that exceeds the weight of the outputs near the quantiles (about 1
    each) and the draw strays over the box (Wine at ``epsilon = 1`` on 257
    candidates: ``data_min_`` of alcohol at 1000 for values in ``[11, 15]``).

    This returns the largest ``K`` in ``[max(m, 2), cap]`` with ``C(K, m) exp(-2 r n~
    (1 - max(w_0, w_m))) <= STRAY_WEIGHT / n_features`` (the noisy count ``n~`` for
    ``n``; the ``d`` draws of a fit stray together with a weight of ``STRAY_WEIGHT``
    at most), or ``max(m, 2)`` when none is: the outputs are then the box's corners
    (and points between them for ``m > 2``), nothing finer is affordable.

    Privacy: ``K`` is a function of ``n_noisy`` (the released noisy count), ``epsilon``
    and the public levels only, so it is post-processing of an earlier release, and
    the candidates ``np.linspace(lower, upper, K)`` of a public or private box are
    public: JointExp on them is ``epsilon``-DP as on any public grid.

    Parameters
    ----------
    n_noisy : int
        The released noisy record count.
    epsilon : float
        One feature's budget for the draw.
    levels : sequence of fractions.Fraction
        The distinct levels, increasing.
    cap : int
        The most candidates to return (>= ``len(levels)``).
    n_features : int, default=1
        The number of draws the fit makes.

    Returns
    -------
    int

    Examples
    --------
    >>> from fractions import Fraction
    >>> from skdp.preprocessing._base import affordable_candidates
    >>> levels = [Fraction(1, 100), Fraction(99, 100)]
    >>> [affordable_candidates(n, 0.05, levels, 257, n_features=10) for n in (150, 600, 2000)]
    [2, 181, 257]
    """
    denominator, numerators = common_denominator(levels)
    gaps = level_gaps(numerators, denominator)
    m = len(gaps) - 1
    rate = epsilon * denominator / (2 * joint_sensitivity(gaps, denominator))
    # ln C(K, m) up to this keeps the stray outputs' weight under STRAY_WEIGHT / d
    ends = 1 - max(gaps[0], gaps[-1]) / denominator
    allowed = math.log(STRAY_WEIGHT / n_features) + 2 * rate * max(n_noisy, 1) * ends
    low, high = max(m, 2), cap  # C(K, m) increases with K: bisect for the largest
    if _log_choose(high, m) <= allowed:
        return high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if _log_choose(middle, m) <= allowed else (low, middle)
    return low


def _log_choose(k, m):
    return math.lgamma(k + 1) - math.lgamma(m + 1) - math.lgamma(k - m + 1)


def feature_quantiles(X, levels, lower, upper, *, n_candidates, epsilon, ledger, budget, rng):
    """Per feature, all ``levels`` in one JointExp draw in its box, ``epsilon / d`` each.

    The last feature's share closes ``ledger`` on ``budget`` (the fit's whole epsilon):
    ``d`` float shares of ``epsilon / d`` can add up to one unit in the last place above
    or below it, and :func:`skdp.utils._shares.close_last_share` gives the last one the
    rounding. The ranks of every feature on its grid come from one pass over ``X``
    (:func:`skdp.utils._joint_quantiles.grid_ranks`), then the ``d`` draws in one batched
    call (:func:`skdp.utils._joint_quantiles.joint_draws`). Returns an
    array of shape ``(len(levels), d)``, increasing down each column.
    """
    n, d = X.shape
    shares = close_last_share(
        dict.fromkeys(range(d), epsilon / d), epsilon=budget, spent=ledger.total.epsilon
    )
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    below, at_or_below = grid_ranks(X, lower, upper, n_candidates)
    candidates = np.linspace(lower, upper, n_candidates, axis=1)
    epsilons = [shares[j] for j in range(d)]
    found = joint_draws(below, at_or_below, n, levels, candidates, epsilons, rng)
    return np.ascontiguousarray(found.T)


class AffineScalerMixin(DifferentialPrivacyMixin, OneToOneFeatureMixin, TransformerMixin):
    """``transform(X) = X * scale_ + offset``: pure post-processing of fitted attributes.

    Subclasses set ``self._offset`` and ``self._multiplier`` (arrays of shape
    ``(n_features,)``) in ``fit`` and may define ``_clip_range()`` (the output range to
    clip to, or None).
    """

    # ``copy`` is a plain argument, not metadata to route (as in scikit-learn's scalers)
    __metadata_request__transform = {"copy": metadata_routing.UNUSED}
    __metadata_request__inverse_transform = {"copy": metadata_routing.UNUSED}

    def _validate_fit_input(self, X):
        # never written to: fit reads X only through aggregates computed on copies
        return validate_numeric_data(self, X, dtype=np.float64)

    def _validate_new(self, X, *, copy):
        check_is_fitted(self)
        if is_dask_collection(X):  # lazy: dask arithmetic never writes in place
            return as_dask_array(self, X, reset=False)
        return validate_numeric_data(self, X, reset=False, dtype=FLOAT_DTYPES, copy=copy)

    def _clip_range(self):
        return None

    def transform(self, X, copy=None):
        """Scale ``X`` with the released statistics (post-processing, no spend).

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)
            Finite values; a dask collection gives a lazy dask array.
        copy : bool, default=None
            Copy ``X`` first (None: the ``copy`` parameter). With ``copy=False`` a
            float array may be scaled in place, as in scikit-learn.

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_features)
        """
        copy = self.copy if copy is None else copy
        X = self._validate_new(X, copy=copy)
        clip = self._clip_range()
        if is_dask_collection(X):
            X = X * self._multiplier + self._offset
            return X if clip is None else X.clip(*clip)
        X *= self._multiplier
        X += self._offset
        if clip is not None:
            np.clip(X, clip[0], clip[1], out=X)
        return X

    def inverse_transform(self, X, copy=None):
        """Undo :meth:`transform` (without its clipping).

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)
            Scaled values; a dask collection gives a lazy dask array.
        copy : bool, default=None
            Copy ``X`` first (None: the ``copy`` parameter).

        Returns
        -------
        ndarray or dask array of shape (n_samples, n_features)
        """
        copy = self.copy if copy is None else copy
        X = self._validate_new(X, copy=copy)
        if is_dask_collection(X):
            return (X - self._offset) / self._multiplier
        X -= self._offset
        X /= self._multiplier
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
