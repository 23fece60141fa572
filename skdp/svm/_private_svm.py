"""PrivateSVM: linear and random-Fourier-feature SVMs by output or objective perturbation."""

import functools
import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from skdp.accounting import PrivacyLedger, record_spend
from skdp.base import DifferentialPrivacyMixin
from skdp.linear_model._base import LinearDecisionMixin, clipped_features
from skdp.mechanisms import check_random_state, l2_laplace_noise
from skdp.svm._huber import Huber
from skdp.svm._output import output_perturbation
from skdp.svm._random_features import random_fourier_features
from skdp.svm._svm_inputs import original_weights, svm_design, validated_xy
from skdp.utils._erm import MAX_ITER, minimise, perturbation_parameters
from skdp.utils.validation import (
    EPSILON_CONSTRAINT,
    MAX_DATA_NORM,
    RANDOM_STATE_CONSTRAINT,
    check_epsilon,
    closing_share,
    split_budget,
)

__all__ = ["PrivateSVM"]

_OBJECTIVE_TOL = 1e-10  # Newton's stopping rule for mechanism="objective" (see _erm)


class PrivateSVM(
    DifferentialPrivacyMixin,
    LinearDecisionMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Support vector machine with differential privacy, linear or RBF (random features).

    Minimises ``C sum_i loss(y_i f(x_i)) + ||w||^2 / 2`` (scikit-learn's ``C``
    convention) on features of norm at most 1: the rows of ``X`` clipped to a norm
    bound, declared (``data_norm``), implied by declared per-feature ``bounds`` or
    estimated privately, and scaled (``kernel="linear"``), or random Fourier features
    of the RBF kernel drawn independently of the data (``kernel="rbf"``), with the
    intercept as a regularised constant feature. Then either minimises a Huber loss
    plus a random linear term (``mechanism="objective"``, Chaudhuri et al. 2011) or
    perturbs the exact hinge-loss minimiser (``mechanism="output"``, Rubinstein et al.
    2012).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget, in ``[1e-12, 1e15]`` (as every skdp estimator).
    C : float, default=1.0
        Weight of the summed loss against ``||w||^2 / 2`` (> 0, finite), on the scaled
        features (Notes). The output noise is proportional to ``C`` and the weights
        grow more slowly, so output perturbation wants a small ``C``: on Adult at
        ``epsilon = 1``, 0.774 at C = 0.01, 0.764 at 0.1, the majority class at 0.001;
        objective perturbation is less sensitive (0.840 at C = 0.1, 0.830 at 1).
    kernel : {"linear", "rbf"}, default="linear"
        A linear SVM on the clipped rows of ``X``, or the RBF kernel approximated by
        random Fourier features.
    gamma : float, default=1.0
        RBF kernel ``exp(-gamma ||x - x'||^2)`` in the units of ``X``; public. There is
        no ``"scale"`` option: it reads the variance of the data.
    n_components : int, default=500
        Number of random features for ``kernel="rbf"``: cosine and sine of
        ``ceil(n_components / 2)`` random frequencies (an odd number gets one more).
        A feature matrix above 2 GiB (``skdp.utils._resources.MAX_ALLOCATION_BYTES``)
        is refused before it is allocated.
    mechanism : {"objective", "output"}, default="objective"
        Minimise a Huber loss plus a random linear term, or perturb the exact
        hinge-loss minimiser (Notes). Output perturbation's noise grows with ``C``
        while its weights do not, so it needs a ``C`` of about ``1 / n``: at the
        default ``C = 1`` its accuracy on Adult's numeric columns at ``epsilon = 1`` is
        0.52 (majority class 0.76); objective perturbation's is 0.78.
    noise : {"l2", "laplace"}, default="l2"
        Output perturbation's noise: L2 Laplace (density ``exp(-epsilon ||b|| / Delta)``,
        :func:`~skdp.mechanisms.l2_laplace`) or i.i.d. Laplace per weight at the L1
        sensitivity ``sqrt(dim) Delta`` (:func:`~skdp.mechanisms.laplace`, exact on a
        lattice; each weight's noise has ``sqrt(2 dim / (dim + 1)) < sqrt(2)`` times the
        standard deviation).
    huber_width : float, default=0.5
        ``h`` of the Huber loss for ``mechanism="objective"``: quadratic on
        ``|1 - m| <= h``, curvature ``1 / (2 h)``.
    data_norm : float or None, default=None
        Public bound on the L2 norm of the rows of ``X`` for ``kernel="linear"``;
        longer rows are scaled down to it with a
        :class:`~skdp.exceptions.ClippingWarning`. ``None`` estimates it privately
        with part of ``epsilon``, as
        :class:`~skdp.linear_model.ObjectivePerturbationLogistic` does (Notes). Must be
        None when ``bounds`` is given; on dask input ``data_norm`` or ``bounds`` must be
        given. Not used by ``kernel="rbf"``, whose features have norm 1 whatever ``X``
        is.
    bounds : tuple, dict or None, default=None
        ``kernel="linear"``: public per-feature domains ``(lower, upper)`` (scalars or
        one per feature, or ``{column: (lower, upper)}`` for a DataFrame). Each column
        is clipped to its domain and mapped into ``[-1, 1]``, so the rows' norm bound is
        ``sqrt(n_features)``: nothing is spent on public inputs, every feature counts
        whatever its units, and the rows are centred on the domain's middle (Notes,
        measured). Values outside are clipped with a
        :class:`~skdp.exceptions.ClippingWarning`, in ``fit`` and in ``predict``.
        Not used by ``kernel="rbf"`` (as ``data_norm``): its random features have norm
        1 whatever ``X`` is, and ``gamma`` is in the units of ``X``, so rescaling the
        columns would change the kernel; scale ``X`` before the fit if that is wanted.
    fit_intercept : bool, default=True
        Fit an intercept, as a regularised constant feature (Notes).
    classes : array-like, default=None
        The public class labels. ``None`` takes them from ``y`` with a
        :class:`~skdp.exceptions.PrivacyLeakWarning` (refused on dask input).
    tol : float, default=0.01
        ``mechanism="output"``: the solver must prove (by its duality gap) that its
        answer is within ``tol * Delta / 2`` of the exact minimiser, and the noise is
        calibrated to ``(1 + tol) Delta`` to cover it; a
        :class:`~skdp.svm.SolverCertificateError` is raised when it cannot.
    random_state : None, int or numpy.random.Generator, default=None
        Draws the noise and the random frequencies. None draws from a fresh
        cryptographically secure generator; an int gives reproducible fits for
        experiments (not for releases).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features_out) or (n_classes, n_features_out)
        Weights of the features: the columns of ``X`` (``kernel="linear"``) or the
        random features (``kernel="rbf"``; ``n_components`` rounded up to even).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    random_frequencies_ : ndarray of shape (ceil(n_components / 2), n_features)
        ``kernel="rbf"`` only: drawn from ``N(0, 2 gamma I)``, not from the data; part
        of the released model.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only for DataFrame input with string column names.
    data_norm_ : float
        ``kernel="linear"`` only: the row-norm bound the rows were clipped to,
        ``data_norm``, the private estimate, or ``sqrt(n_features)`` with declared
        ``bounds`` (in the units of the scaled columns when ``bounds_`` is set).
    bounds_ : tuple of ndarray or None
        ``kernel="linear"`` only: ``(lower, upper)``, the declared ``bounds`` or the
        private per-feature bounds each column was clipped to and scaled by before the
        norm (``data_norm=None`` with budget for them), else None. Predictions then
        weigh the columns clipped to them, as in the fit.
    extra_regularization_ : float
        ``Delta`` added to ``1 / C`` by ``mechanism="objective"`` (0 for "output").
    epsilon_split_ : dict
        ``{"noise": ...}`` (output) or ``{"noise": ..., "curvature": ...}``
        (objective), summed over the one-vs-rest problems; with ``kernel="linear"``
        also ``"n_samples"``, ``"bounds"`` and ``"data_norm"``, the epsilon of the
        private public inputs (0 each when ``data_norm`` or ``bounds`` is declared).
        They add up to ``epsilon``.
    privacy_spent_ : PrivacyBudget

    Notes
    -----
    **Privacy**: ``epsilon``-DP for add/remove one record (``2 epsilon`` under
    substitution). With ``kernel="linear"`` and declared ``bounds``, each column is
    clipped to its public domain and mapped into ``[-1, 1]``, a public map, so the rows'
    norm bound is ``sqrt(n_features)`` and nothing is spent before the mechanism. With
    ``kernel="linear"`` and neither ``data_norm`` nor ``bounds``, the norm bound is
    estimated first, with the shares of
    :class:`~skdp.linear_model.ObjectivePerturbationLogistic` (5% on a noisy count,
    per-feature bounds when cheap, 5% to 25% on the 90% quantile of the row norms); the
    mechanism runs with the rest. Every feature vector ``x~`` has ``||x~|| <= 1``:
    linear rows are clipped to the bound ``R`` and mapped to ``[x, t R] / (R sqrt(1 + t^2))``
    with ``t = 1/2`` (``x / R`` without intercept; :func:`skdp.utils._erm.scaled_design`);
    random Fourier features ``phi`` have norm exactly 1 and are mapped the same way with
    ``R = 1``. Frequencies come from ``random_state`` only.

    *Output*: ``P(w) = ||w||^2 / 2 + C sum_i h(y_i w.x~_i)`` with the hinge ``h``
    (1-Lipschitz) is 1-strongly convex. If ``w`` and ``w'`` minimise ``P`` and
    ``P + C h_z`` (one more record ``z``), strong convexity at both minimisers gives
    ``||w - w'||^2 <= C (h_z(w) - h_z(w')) <= C ||w - w'||``: the L2 sensitivity is
    ``Delta = C``. (Rubinstein et al.'s ``4 L C kappa / n`` is for substitution with
    the loss averaged; it is ``4 C`` in this scaling, twice the ``2 C`` above.) The
    released point ``w^`` is not the minimiser ``w*`` but is *certified* near it: for any
    ``alpha`` in ``[0, C]^n``, weak duality gives ``D(alpha) <= P(w*)`` and 1-strong
    convexity (``0`` in the subdifferential at ``w*``) ``P(w^) >= P(w*) + ||w^ - w*||^2 / 2``,
    so ``||w^ - w*|| <= sqrt(2 G)`` with ``G = P(w^) - D(alpha)``. A fit releases ``w^``
    only when a floating-point upper bound on ``G`` (``_hinge.hinge_gap_bound``: ``G``
    as a sum of non-negative terms, with the rounding of every dot product bounded) is
    at most ``r^2 / 2``, ``r = tol C / 2``; so on every dataset
    ``||w^ - w*|| <= r`` and on neighbours ``||w^_D - w^_D'|| <= r + C + r = (1 + tol) C``
    (speed_and_parity.md A2: ``Delta* + 2 sqrt(2 G* / mu)``, checked for ``mu = 1``,
    ``Delta* = C`` add/remove, ``G* = r^2 / 2``). L2 Laplace noise of that sensitivity,
    or Laplace at ``sqrt(dim)`` times it, makes the release ``epsilon``-DP. ``r`` is fixed
    by the public ``C`` and ``tol`` before the fit, never by the gap reached; how
    ``alpha`` and ``w^`` were found does not matter (smoothed Newton steps, an exact dual
    on the rows near the margin, the full QP by Clarabel as a fallback:
    ``skdp.svm._hinge_fast``), and the path taken is not released.

    *Objective*: the Huber loss has ``|l'| <= 1`` and ``l'' <= c = 1 / (2 h)``, so the
    argument of :class:`~skdp.linear_model.ObjectivePerturbationLogistic` applies with
    that ``c``: noise ``b`` of L2 sensitivity 1 at ``beta``, and ``log(1 + c C)`` (or
    ``epsilon / 2`` with extra regularisation) for the Jacobian term, recorded in the
    ledger. The proof assumes the exact minimiser; Newton's method stops at the rule of
    :func:`skdp.utils._erm.minimise`.

    One-vs-rest with ``K > 2`` classes: every record is in all ``K`` problems, so each
    gets ``epsilon / K``.

    **Defaults, measured** (``PrivateSVM(random_state=seed)``: linear, objective,
    nothing declared; ``epsilon = 1``, 70/30 splits, 10 seeds; mean, worst seed,
    majority class): breast_cancer 0.884, 0.830, 0.626; Adult's numeric columns
    0.794, 0.782, 0.756; iris 0.396, 0.044, 0.333 and wine 0.457, 0.278, 0.389 (too
    few rows for the parameters at this epsilon; 0.651 and 0.643 at ``epsilon = 5``).
    ``mechanism="output"`` with the default ``C``: Adult 0.570, worst 0.244.

    **Declared bounds, measured** (Iris, 100 training / 50 test rows, linear,
    ``classes=[0, 1, 2]``, 20 seeds; mean, worst seed at ``epsilon`` 0.5, 1, 2, 5):
    objective, the domains as ``bounds`` 0.514,
    0.619 (worst 0.220), 0.717 (0.620), 0.797 (0.740); their norm ``data_norm=11.9``
    0.411, 0.487 (0.240), 0.556 (0.300), 0.658 (0.580). Uncentred rows put the class
    signal on a large common offset that the (regularised) intercept must absorb.
    Output perturbation at the default ``C = 1`` gains less (0.439 against 0.440 at
    ``epsilon = 1``, 0.699 against 0.608 at 5): its noise, not the design, dominates;
    with ``C = 0.03`` and ``bounds`` it scores 0.713 (worst 0.620) at ``epsilon = 1``,
    0.741 (0.660) at 2, where ``data_norm=11.9`` gives the majority class.
    With ``K`` classes each one-vs-rest problem gets ``epsilon / K``, so at
    ``epsilon <= 1`` single seeds can still fall below chance.

    **Differences from the papers**: summed loss (no private ``n`` in the objective),
    add/remove neighbours and the sensitivity above; an intercept inside the norm
    bound (an unregularised one breaks strong convexity); a solver certificate instead
    of assuming exactness; L2-shaped noise by default.

    **Limitation**: whether the certificate succeeds depends on the data, so a
    :class:`~skdp.svm.SolverCertificateError` (raised before any noise is drawn) is
    itself a bit of information about it, as is the fit's running time. With the
    default ``tol`` the certificate holds by orders of magnitude on every dataset tried.

    **Dask**: with ``mechanism="objective"``, ``fit`` takes a dask array or DataFrame
    ``X`` (and a dask or in-memory ``y``) without loading it on the driver: the rows are
    clipped inside the blocks (``kernel="linear"``) or mapped to their random Fourier
    features there (``kernel="rbf"``: the frequencies are public), kept in the workers'
    memory, and every Newton or L-BFGS evaluation is one pass over the blocks returning
    the summed loss, gradient and Hessian; noise and solver stay on the driver, and the
    same ``random_state`` gives the in-memory model up to summation order.
    ``classes`` (and, for the linear kernel, ``data_norm`` or ``bounds``) must be given.
    ``mechanism="output"`` refuses dask input: its certified
    solver needs all the rows at once. ``predict`` and ``decision_function`` on dask
    input return lazy dask arrays.

    References
    ----------
    B. I. P. Rubinstein, P. L. Bartlett, L. Huang and N. Taft, "Learning in a Large
    Function Space: Privacy-Preserving Mechanisms for SVM Learning", Journal of
    Privacy and Confidentiality 4(1), 2012.
    K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially Private Empirical
    Risk Minimization", JMLR 12 (2011), 1069-1109.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from skdp.svm import PrivateSVM
    >>> X, y = make_classification(n_samples=2000, n_features=5, random_state=0)
    >>> model = PrivateSVM(epsilon=1.0, data_norm=12.0, classes=[0, 1], random_state=0)
    >>> model.fit(X, y).privacy_spent_.epsilon
    1.0
    >>> bool(model.score(X, y) > 0.8)
    True

    With nothing declared, part of the budget estimates the norm bound:

    >>> model = PrivateSVM(classes=[0, 1], random_state=0).fit(X, y)
    >>> round(model.epsilon_split_["n_samples"], 2), round(model.privacy_spent_.epsilon, 12)
    (0.05, 1.0)
    >>> bool(model.score(X, y) > 0.8)
    True
    """

    _parameter_constraints = {
        "epsilon": EPSILON_CONSTRAINT,
        "C": [Interval(Real, 0, math.inf, closed="neither")],
        "kernel": [StrOptions({"linear", "rbf"})],
        "gamma": [Interval(Real, 0, math.inf, closed="neither")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "mechanism": [StrOptions({"output", "objective"})],
        "noise": [StrOptions({"l2", "laplace"})],
        "huber_width": [Interval(Real, 0, math.inf, closed="neither")],
        "data_norm": [None, Interval(Real, 0, MAX_DATA_NORM, closed="right")],
        "bounds": [None, tuple, list, dict, np.ndarray],
        "fit_intercept": ["boolean"],
        "classes": ["array-like", None],
        "tol": [Interval(Real, 0, 1, closed="right")],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        C=1.0,
        kernel="linear",
        gamma=1.0,
        n_components=500,
        mechanism="objective",
        noise="l2",
        huber_width=0.5,
        data_norm=None,
        bounds=None,
        fit_intercept=True,
        classes=None,
        tol=0.01,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.mechanism = mechanism
        self.noise = noise
        self.huber_width = huber_width
        self.data_norm = data_norm
        self.bounds = bounds
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.tol = tol
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the private model.

        Parameters
        ----------
        X : array-like or dask array / DataFrame of shape (n_samples, n_features)
            A dask collection (``mechanism="objective"`` only) is never loaded on the
            driver: the features are kept in the workers' memory and each solver step
            sums over the blocks there (Notes); ``classes`` (and ``data_norm`` or
            ``bounds`` for the linear kernel) must then be given.
        y : array-like, dask array or dask Series of shape (n_samples,)

        Returns
        -------
        self
        """
        rng = check_random_state(self.random_state)
        X, codes, classes = validated_xy(self, X, y)
        positives = [1] if len(classes) == 2 else list(range(len(classes)))
        self.extra_regularization_ = 0.0
        with PrivacyLedger() as ledger:
            design, codes, inputs = svm_design(self, X, rng, codes)
            rows = design.rows() if self.mechanism == "output" else None
            self.epsilon_split_ = dict(inputs.epsilon_split)
            weights = []
            shares = split_budget(inputs.remaining, [1.0] * len(positives))
            for i, (share, positive) in enumerate(zip(shares, positives, strict=True)):
                if i == len(positives) - 1:  # close the ledger's running total on epsilon
                    share = closing_share(check_epsilon(self.epsilon), ledger.total.epsilon)
                if self.mechanism == "output":
                    sign = np.where(codes == positive, 1.0, -1.0)
                    weights.append(self._output_perturbation(rows, sign, share, rng))
                else:
                    weights.append(self._objective(design, codes, positive, share, rng))
        coef, intercept = original_weights(np.vstack(weights), design, inputs, self.fit_intercept)
        self.coef_, self.intercept_ = coef, intercept
        self.classes_ = classes
        if self.kernel == "linear":
            scaling = inputs.scaling
            self.data_norm_ = inputs.data_norm
            self.bounds_ = None if scaling is None else (scaling.lower, scaling.upper)
        self.privacy_spent_ = ledger.total
        return self

    def _output_perturbation(self, rows, sign, epsilon, rng):
        """The certified hinge minimiser plus noise at ``(1 + tol) C``: one problem."""
        self.epsilon_split_["noise"] = self.epsilon_split_.get("noise", 0.0) + epsilon
        return output_perturbation(rows, sign, self.C, self.tol, self.noise, epsilon, rng)

    def _objective(self, design, codes, positive, epsilon, rng):
        """Objective perturbation of the Huber loss: one problem (``positive`` vs rest)."""
        problem = Huber(design, positive, self.huber_width)
        extra, beta = perturbation_parameters(epsilon, self.C, curvature=problem.curvature)
        record_spend(epsilon - beta, mechanism="objective_perturbation_curvature")
        b = l2_laplace_noise(problem.size, sensitivity=1.0, epsilon=beta, random_state=rng)
        lam = 1 / self.C + extra
        w, _, converged = minimise(problem, design.X, codes, lam, b, _OBJECTIVE_TOL, MAX_ITER)
        if not converged:
            warnings.warn(
                f"the Huber SVM solver did not converge in {MAX_ITER} steps; the privacy "
                "proof assumes the exact minimiser. Rescale X or lower C.",
                ConvergenceWarning,
                stacklevel=4,
            )
        split = self.epsilon_split_
        split["noise"] = split.get("noise", 0.0) + beta
        split["curvature"] = split.get("curvature", 0.0) + epsilon - beta
        self.extra_regularization_ = extra
        return w

    def _block_features(self):
        """The features ``coef_`` weighs, as a picklable function of a block: the random
        feature map (rbf), or the columns clipped to ``bounds_`` (linear, when set)."""
        if self.kernel == "rbf":
            return functools.partial(random_fourier_features, frequencies=self.random_frequencies_)
        return clipped_features(self.bounds_)
