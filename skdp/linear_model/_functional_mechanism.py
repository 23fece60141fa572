"""The functional mechanism (Zhang et al., PVLDB 2012): least squares.

The shared pipeline (bounds, scaling, the one noisy release, the private part of
``fit``) lives in :mod:`skdp.linear_model._moments` and
:mod:`skdp.linear_model._fm_base`, the minimiser in
:mod:`skdp.linear_model._fm_solver`; this module holds the regressor and its privacy
argument, :mod:`skdp.linear_model._fm_classifier` the classifier.
"""

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context

from skdp.linear_model import _fm_solver, _moment_release, _moments
from skdp.linear_model._base import LinearPredictionMixin
from skdp.linear_model._fm_base import COMMON_CONSTRAINTS, FunctionalMechanismBase
from skdp.mechanisms import check_random_state
from skdp.utils._numeric_input import validate_numeric_data
from skdp.utils._stats import (
    as_dask_xy,
    is_dask_collection,
    require_public,
)

__all__ = ["FunctionalMechanismRegressor"]


class FunctionalMechanismRegressor(
    FunctionalMechanismBase, LinearPredictionMixin, RegressorMixin, BaseEstimator
):
    """Differentially private least squares by the functional mechanism.

    Perturbs the coefficients of the least-squares objective rather than the data or
    the model (Zhang et al. 2012): features and target are clipped to public bounds
    and mapped into ``[-1, 1]``, the exact degree-1 and degree-2 coefficients of
    ``sum_i (y_i - x_i.w)^2`` are released once with Laplace noise, and the noisy
    quadratic is minimised in closed form (post-processing).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget of the whole fit.
    bounds : None, tuple, dict or (lower, upper) arrays, default=None
        Public feature bounds (see :func:`skdp.utils.validation.resolve_bounds`);
        values outside are clipped with a :class:`~skdp.exceptions.ClippingWarning`,
        and predictions weigh the columns clipped to them. None estimates them
        privately with part of ``epsilon`` (Notes); a warning says when the budget is
        too small and a public fallback box is used. Must be declared for dask input.
    bounds_y : None or (lower, upper), default=None
        Public target bounds, likewise; estimated apart from the features' bounds.
    fit_intercept : bool, default=True
        Fit an (unpenalised) intercept. Without one, columns are divided by their
        largest absolute bound but not shifted, so the model passes through the
        origin in the original units.
    regularization : "auto" or float >= 0, default="auto"
        Ridge ``lambda |w|^2`` on the slopes, added to the objective in the scaled
        units (rows in ``[-1, 1]``; the objective grows like the number of records).
        "auto": five standard deviations of the noise on a released quadratic
        coefficient, the authors' ``5 sqrt(2) Delta / epsilon``. Post-processing.
    random_state : None, int or numpy.random.Generator, default=None
        None (a fresh secure generator) for real releases; a seed only for tests.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    bounds_ : tuple of ndarray
        The public or privately estimated feature bounds ``(lower, upper)``.
    bounds_y_ : tuple of float
        The public or privately estimated target bounds.
    bounds_tier_ : int or None
        How the missing bounds were estimated (the largest tier over ``bounds`` and
        ``bounds_y``): 1 per column, 2 one box for all the features, 3 the public
        fallback ``[-100, 100]`` (nothing spent); None when all were given.
    epsilon_split_ : dict
        ``{"n_samples": ..., "bounds": ..., "moments": ...}``: the noisy count and the
        bounds (0 each when all bounds were given) and the one release. They add up
        to ``epsilon``.
    privacy_spent_ : PrivacyBudget
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    Notes
    -----
    **Privacy.** ``epsilon``-DP under add/remove of one record (``n`` is private).
    Public bounds: all of ``epsilon`` goes to one :func:`~skdp.mechanisms.laplace`
    release. Otherwise the missing bounds are estimated first
    (:func:`skdp.linear_model._moments.resolve_public_bounds`): 5% of ``epsilon`` on a
    noisy record count ``n~``, then for ``bounds_y`` and then ``bounds`` the tiered
    share of :func:`skdp.utils._bounds.bounds_share` (10% to 60%, by ``n~ epsilon``
    and the number of columns: per-column 2% / 98% quantiles, one box for all the
    features, or the public fallback at no cost), the two together at most 60%; a
    parameter whose share no longer fits gets the fallback. The target's bounds are
    estimated apart: a box shared with the features would scale them by the target's
    range. The release gets the rest. Each share is a function of public values and
    ``n~``; everything after the release is post-processing.

    **Release.** With ``x~ = (x', 1)`` (``d = p + 1`` columns) and ``y'`` all in
    ``[-1, 1]``, the objective is ``sum y'^2 - 2 c.w + w^T M w`` with
    ``c = sum_i y'_i x~_i`` (the paper's ``beta = -2 c``) and ``M = sum_i x~_i x~_i^T``.
    The degree-0 term is not released. Released together: ``c`` and the ``d (d + 1) / 2``
    distinct entries of the symmetric ``M`` (upper triangle), each times a public
    weight.

    **Sensitivity.** One record changes ``c_j`` by ``y' x~_j`` and ``M_jl`` by
    ``x~_j x~_l``, each at most 1 in magnitude, so the weighted vector moves by at
    most the sum of the weights in L1; a record at a corner with ``|y'| = 1`` attains
    it, so the bound is tight (the intercept column being exactly 1 does not tighten
    it). With the paper's coefficients (weight 2 on ``c``, 1 on ``M``) this is
    ``Delta = 2 d + d (d + 1) / 2``. The paper's ``Delta = 2 (d^2 + 2 d)`` is for
    substitution (twice add/remove) and all ``d^2`` entries of ``M``; under
    add/remove all entries give ``d^2 + 2 d``, and the upper triangle, which holds
    the same information, roughly halves it (88 instead of 143 at ``d = 11``), so
    roughly halves the noise for the same guarantee. Under substitution the
    mechanism is ``2 epsilon``-DP.

    **Weights (changed from the paper).** An entry of weight ``w_i`` gets noise of
    scale ``Delta / (w_i epsilon)``: weights split ``epsilon`` inside the one release.
    The linear statistics (``sum y' x'_j``, ``sum x'_j``) get ``((p + 1) / 2)^(1/3)``,
    which minimises the slopes' first-order noise; the products 1; ``n`` and
    ``sum y'`` a quarter of the budget between them: the mean prediction rests on
    these two numbers, and at equal weights their noise dominates the error for small
    ``n`` (:func:`skdp.linear_model._moment_release.regression_weights`).

    **Post-processing (changed from the paper).** The intercept is not penalised:
    the problem is solved through its Schur complement with the noisy means of
    ``x'`` and ``y'`` (over the noisy count floored at ten noise standard
    deviations, shrunk by their noise, clipped to ``[-1, 1]``). The slopes solve
    ``(S + lambda I) w = s`` (``lambda`` plus the expected size of the noise that the
    means put into ``S``) after spectral trimming: eigenvalues below ``2.5 sqrt(p)``
    noise standard deviations are dropped (the authors' ``1e-8`` keeps noise-made
    near-zero eigenvalues that blow the solution up; the classifier uses ``1.5
    sqrt(p)``, as accuracy suffers less than squared error from noisy slopes). As
    the noise grows the slopes shrink to 0 and the prediction tends to the noisy
    mean of ``y``, not to 0 in scaled units; that mean moves toward the middle of
    ``bounds_y`` only when the noisy count is itself mostly noise (``n epsilon`` of a
    few units, where no private mean is accurate). No re-run with fresh noise when
    the objective is unbounded (each would cost ``epsilon``); the noise is lattice
    Laplace (Mironov 2012).

    **Predictions** weigh the columns clipped to ``bounds_``, as in the fit: a
    privately estimated bound that came out narrow cannot blow a prediction up.

    **Dask.** ``fit`` takes dask arrays and DataFrames (and a dask ``y``) without
    loading them: the exact statistics are sums over the rows, computed in one pass
    by the same block function as for numpy input (clipping and scaling each row
    inside its block), and noised once on the driver, so a seed gives the same model
    either way (up to the order of the floating-point sums). The bounds must be
    public there. ``predict`` returns a lazy dask array for dask input.

    References
    ----------
    J. Zhang, Z. Zhang, X. Xiao, Y. Yang and M. Winslett, "Functional Mechanism:
    Regression Analysis under Differential Privacy", PVLDB 5(11), 2012.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(-0.2, 0.2), bounds_y=(0, 400), random_state=0
    ... ).fit(X, y)
    >>> model.privacy_spent_.epsilon, model.coef_.shape
    (1.0, (10,))
    >>> bool(0 <= model.predict(X[:1])[0] <= 400)
    True

    With nothing declared, part of ``epsilon`` estimates the bounds:

    >>> model = FunctionalMechanismRegressor(random_state=0).fit(X, y)
    >>> model.bounds_tier_, sorted(model.epsilon_split_)
    (2, ['bounds', 'moments', 'n_samples'])
    """

    _parameter_constraints = {
        **COMMON_CONSTRAINTS,
        "bounds_y": [None, tuple, list, np.ndarray],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        bounds=None,
        bounds_y=None,
        fit_intercept=True,
        regularization="auto",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.bounds = bounds
        self.bounds_y = bounds_y
        self.fit_intercept = fit_intercept
        self.regularization = regularization
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the private least-squares model.

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)
            A dask collection is never loaded: ``X^T X``, ``X^T y`` and the sums are
            computed block by block where the blocks live (one pass, each row clipped
            and scaled inside its block) and only they come back; ``bounds`` and
            ``bounds_y`` must then be given. The same ``random_state`` gives the
            model that the same data in memory gives.
        y : array-like or dask array / Series of shape (n_samples,)

        Returns
        -------
        self
        """
        if is_dask_collection(X) or is_dask_collection(y):
            require_public(self.bounds, "bounds", self)
            require_public(self.bounds_y, "bounds_y", self)
            X, y = as_dask_xy(self, X, y, numeric=True)
        else:
            X, y = validate_numeric_data(self, X, y, y_numeric=True, dtype=np.float64)
        rng = check_random_state(self.random_state)
        blocks = [(X, self.bounds, "bounds", "X"), (y[:, None], self.bounds_y, "bounds_y", "y")]
        model, scalings, resolved = self._fit_noisy_model(blocks, "regression", rng)
        coef, intercept = _fm_solver.to_original_units(*model, scalings[0], scalings[1])
        self.coef_, self.intercept_ = coef[0], float(intercept[0])
        self.bounds_y_ = (float(resolved[1][0][0]), float(resolved[1][1][0]))
        return self

    def _weights(self, n_features, n_classes):
        return _moment_release.regression_weights(n_features, self.fit_intercept)

    def _minimise(self, linear, quadratic, noise_std, weights):
        return _fm_solver.minimise_noisy_quadratic(
            _moments.symmetric_from_upper(quadratic, linear.size),
            linear,
            ridge=self._ridge(noise_std, 1.0),
            trim=_fm_solver.REGRESSION_TRIM,
            noise=_fm_solver.NoiseLevels(
                quadratic=noise_std,
                count=noise_std / weights[1][-1],
                feature_sum=noise_std / weights[0][0],
                target_sum=noise_std / weights[0][-1],
            ),
            fit_intercept=self.fit_intercept,
            intercept_limit=1.0,
        )

    def predict(self, X):
        """Predict with the released linear model (post-processing).

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray or dask array of shape (n_samples,)
            A lazy dask array for dask input.
        """
        return self._map_scores(X, "values")
