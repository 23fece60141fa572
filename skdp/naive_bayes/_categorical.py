"""CategoricalNB: categorical naive Bayes from private class and category counts."""

from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from skdp.accounting import PrivacyLedger
from skdp.base import DifferentialPrivacyMixin
from skdp.mechanisms import check_random_state
from skdp.naive_bayes._categories import (
    auto_encoding,
    declared_encoding,
    resolve_categories,
)
from skdp.naive_bayes._counts import category_counts, noisy_class_counts, pooled_class_count
from skdp.naive_bayes._priors import check_priors
from skdp.utils._bounds import (
    bounds_share,
    estimate_bounds_spending,
    rescan_budget,
    warn_public_bounds,
)
from skdp.utils._numeric_input import validate_numeric_data
from skdp.utils.validation import (
    EPSILON_CONSTRAINT,
    RANDOM_STATE_CONSTRAINT,
    check_epsilon,
    closing_share,
    resolve_bounds,
    resolve_classes,
)

__all__ = ["CategoricalNB"]


class CategoricalNB(DifferentialPrivacyMixin, ClassifierMixin, BaseEstimator):
    """Categorical naive Bayes with ``epsilon``-differential privacy.

    It releases noisy class counts and, per class and feature, noisy counts of every
    public category (discrete Laplace, every cell noised, empty ones included); the
    priors and the smoothed category probabilities are computed from them as in
    :class:`sklearn.naive_bayes.CategoricalNB`. The categories are public: declared in
    ``categories``, or, by default, the integer codes (or ten bins) of a privately
    estimated box, so the default fits any finite input.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget (> 0).
    categories : list or None, default=None
        The public categories of each feature: per feature an int ``m`` (the codes
        ``0, ..., m - 1``) or an array-like of its category values. A value of ``X``
        outside them is an error. None derives them from ``bounds`` (next).
    bounds : None, tuple, dict or (lower, upper) arrays, default=None
        With ``categories=None``: the public box of the features (see
        :func:`skdp.utils.validation.resolve_bounds`). A feature whose box holds
        between 2 and ``max_categories`` integers gets those integers as categories,
        values rounded to the nearest one; any other gets ten equal-width bins of the
        box. Values outside the box go to the nearest category with a
        :class:`~skdp.exceptions.ClippingWarning`. None estimates the box privately
        (:func:`skdp.utils._bounds.estimate_bounds_spending`, 98% quantiles; a column
        of mostly zeros is rescanned over its nonzero values), with a share of
        epsilon sized by the total of the noisy class counts, or the public fallback
        ``[-100, 100]`` with a warning when that is too small. Must be None when
        ``categories`` is given.
    max_categories : int, default=64
        The most integer codes a feature's box may hold before it is binned instead.
    alpha : float, default=1.0
        Additive (Laplace) smoothing of the category counts (> 0), as scikit-learn's.
    fit_prior : bool, default=True
        Whether to learn the class priors (from the noisy counts); False uses uniform
        priors.
    class_prior : array-like of shape (n_classes,) or None, default=None
        Public prior probabilities of the classes; overrides ``fit_prior``.
    classes : array-like or None, default=None
        The public class labels. None takes the labels found in ``y``, which reveals
        which labels occur: a :class:`~skdp.exceptions.PrivacyLeakWarning` says so.
    random_state : None, int or numpy.random.Generator, default=None
        None draws from a fresh cryptographically secure generator; an int gives
        reproducible fits for experiments (not for releases).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    class_count_ : ndarray of shape (n_classes,)
        Noisy number of records per class, at least 1 (Notes; never the exact one).
    class_log_prior_ : ndarray of shape (n_classes,)
        Log of the priors: ``class_prior``, uniform, or ``class_count_`` normalised.
    category_count_ : list of ndarray of shape (n_classes, n_categories_[j])
        The noisy counts of each category per class, clipped at 0.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_[j])
        ``log((N_kjc + a) / sum_c (N_kjc + a))`` from ``category_count_``, with
        ``a = alpha + noise_scale_`` (Notes).
    noise_scale_ : float
        The scale ``d / epsilon_category`` of the discrete Laplace noise of every
        category count (public: a function of ``epsilon`` and ``d``).
    ignored_features_ : ndarray of shape (n_features,) of bool
        The features set aside because their counts are mostly noise (Notes): their
        ``feature_log_prob_`` is uniform, so they do not weigh in the prediction.
    categories_ : list of ndarray
        The category values of each feature: declared, the integer codes, or the bin
        centres of a binned feature.
    n_categories_ : ndarray of shape (n_features,), int
        Number of categories per feature.
    encoding_ : list of str
        Per feature ``"declared"``, ``"integer"`` or ``"bins"``.
    bounds_ : tuple of ndarray or None
        The public or private box behind the integer codes and bins; None when
        ``categories`` is declared.
    epsilon_split_ : dict
        ``{"bounds", "class_counts", "category_counts"}``: adds up to ``epsilon``.
    privacy_spent_ : PrivacyBudget
        What the ledger measured during ``fit``: ``epsilon``.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of str
        Only for DataFrame input with string column names.

    See Also
    --------
    sklearn.naive_bayes.CategoricalNB : The non-private estimator.
    GaussianNB : Private naive Bayes for numeric features.

    Notes
    -----
    **Privacy**: ``epsilon``-DP under add/remove of one record (a row of ``X`` with its
    label); substituting one record costs ``2 epsilon``. A record lies in one class:
    it moves one class count by 1 (L1 sensitivity 1) and, in each of the ``d``
    features, one (class, category) count by 1 (L1 sensitivity ``d`` over all the
    category counts). The class counts get ``epsilon_c = epsilon_rest / (d + 1)`` and
    the category counts ``d epsilon_rest / (d + 1)``, so every cell has discrete
    Laplace noise of the same scale ``(d + 1) / epsilon_rest``; ``epsilon_rest`` is
    ``epsilon`` when the categories or bounds are declared. With ``categories=None``
    and ``bounds=None`` the class counts come first (at ``epsilon / (d + 1)``), their
    total (post-processing) sizes the share of the private box, and the category
    counts take the rest. The category domains are public or derived from the private
    box, never from the data; every cell is noised.

    Post-processing: ``category_count_ = max(N~, 0)``; the class count is the
    inverse-variance average of the noisy class count and the ``d`` noisy totals
    ``sum_c N~_kjc`` (each an unbiased estimate of ``n_k``, of variance ``m_j`` cells'),
    at least 1; the priors are scikit-learn's. The smoothing adds the noise scale
    ``b = d / epsilon_category`` of a cell to ``alpha``: a count below its noise cannot
    be told from 0 (and clipping at 0 lifts an empty cell to about ``b / 2`` on
    average), so the category probabilities shrink towards uniform as much as the
    noise warrants and tend to scikit-learn's as epsilon grows. Measured on German
    credit (13 categorical features, 700 training rows) and Adult's 8 categorical
    columns, 10 splits: at epsilon 0.1 mean accuracy 0.658 to 0.681 and 0.792 to 0.805
    against ``alpha`` alone; equal (within 0.002) from epsilon 1 on. A feature ``j``
    whose average cell, ``sum_k n~_k / (K m_j)`` records, holds fewer records than the
    noise scale ``b`` is set aside (``ignored_features_``): its counts would add more
    noise than signal to every prediction. With every feature set aside the model
    predicts the class of largest noisy count. On German credit at epsilon 0.1 this
    takes the mean accuracy from 0.681 to the majority class's 0.700 (worst split
    0.640 to 0.700) and at 0.3 from 0.692 to 0.695; from 0.5 on, and on Adult, it
    changes nothing. No exact count is used or released.

    **Checked against diffprivlib 0.6.6**: it has no categorical naive Bayes (its
    GaussianNB handles numeric features only). Vaidya et al. (2013) add Laplace noise
    to the same class and category counts; they calibrate each feature's counts on
    its own, which spends ``epsilon`` per feature rather than in total unless the
    budget is split as here.

    References
    ----------
    J. Vaidya, B. Shafiq, A. Basu and Y. Hong, "Differentially private naive Bayes
    classification", IEEE/WIC/ACM WI-IAT 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.naive_bayes import CategoricalNB
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, size=2000)
    >>> X = np.column_stack([(y + rng.integers(0, 2, 2000)) % 3, rng.integers(0, 4, 2000)])
    >>> model = CategoricalNB(epsilon=1.0, categories=[3, 4], classes=[0, 1], random_state=0)
    >>> model = model.fit(X, y)
    >>> model.privacy_spent_.epsilon
    1.0
    >>> model.n_categories_
    array([3, 4])
    >>> round(model.score(X, y), 2)
    0.77
    """

    _parameter_constraints = {
        "epsilon": EPSILON_CONSTRAINT,
        "categories": [None, list, tuple],
        "bounds": [None, tuple, list, dict, np.ndarray],
        "max_categories": [Interval(Integral, 2, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "fit_prior": ["boolean"],
        "class_prior": [None, "array-like"],
        "classes": [None, "array-like"],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        categories=None,
        bounds=None,
        max_categories=64,
        alpha=1.0,
        fit_prior=True,
        class_prior=None,
        classes=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.categories = categories
        self.bounds = bounds
        self.max_categories = max_categories
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.classes = classes
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # continuous blobs are binned: scikit-learn's 0.83 accuracy check is not the
        # use this model is for (its own CategoricalNB is tagged so too)
        tags.classifier_tags.poor_score = True
        return tags

    def _log_prior(self, class_count):
        n_classes = class_count.size
        prior = check_priors(self.class_prior, n_classes)
        if prior is not None:
            with np.errstate(divide="ignore"):
                return np.log(prior)
        if not self.fit_prior:
            return np.full(n_classes, -np.log(n_classes))
        return np.log(class_count) - np.log(class_count.sum())

    def _encoding(self, X, class_codes, n_classes, epsilon, rng):
        """``(encoding, split, class_count)``: the categories, privately where needed."""
        d = X.shape[1]
        declared = resolve_categories(self.categories, d)
        names = getattr(self, "feature_names_in_", None)
        box = resolve_bounds(self.bounds, d, feature_names=names)
        if declared is not None:
            if box is not None:
                raise ValueError("bounds must be None when categories is given")
            return declared_encoding(declared), {"bounds": 0.0}, None
        if box is not None:
            return auto_encoding(*box, self.max_categories), {"bounds": 0.0}, None
        epsilon_class = epsilon / (d + 1)
        class_count = noisy_class_counts(
            class_codes, n_classes, epsilon=epsilon_class, random_state=rng
        )
        n_noisy = max(int(class_count.sum()), 1)
        share, tier = bounds_share(n_noisy, epsilon, d)
        lower, upper, rescans = estimate_bounds_spending(
            X, epsilon=share * epsilon, tier=tier, n_noisy=n_noisy,
            sparse_budget=rescan_budget(epsilon, epsilon_class, share * epsilon), random_state=rng,
        )  # fmt: skip
        box = (lower, upper)
        warn_public_bounds(tier, epsilon=epsilon, n_noisy=n_noisy, bounds=box, stacklevel=4)
        split = {"bounds": share * epsilon + rescans, "class_counts": epsilon_class}
        return auto_encoding(*box, self.max_categories), split, class_count

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the private model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite training values: declared categories, or any numbers (encoded as
            described under ``bounds``).
        y : array-like of shape (n_samples,)
            Target labels, all in ``classes`` when it is given.

        Returns
        -------
        self
        """
        # any numeric dtype as it is: the encoding reads one column at a time
        X, y = validate_numeric_data(self, X, y, dtype="numeric")
        classes, class_codes = resolve_classes(
            self.classes, y, estimator_name=type(self).__name__, stacklevel=4
        )
        epsilon = check_epsilon(self.epsilon)
        rng = check_random_state(self.random_state)
        d, n_classes = X.shape[1], len(classes)
        with PrivacyLedger() as ledger:
            encoding, split, class_count = self._encoding(X, class_codes, n_classes, epsilon, rng)
            codes = encoding.encode(X, warn=True, stacklevel=4)
            if class_count is None:
                split["class_counts"] = epsilon / (d + 1)
                class_count = noisy_class_counts(
                    class_codes, n_classes, epsilon=split["class_counts"], random_state=rng
                )
            # the last share closes the ledger's running total on epsilon exactly
            split["category_counts"] = closing_share(epsilon, ledger.total.epsilon)
            counts = category_counts(
                codes, class_codes, n_classes, encoding.n_categories,
                epsilon=split["category_counts"], random_state=rng,
            )  # fmt: skip
        self.classes_ = classes
        self.class_count_ = pooled_class_count(
            class_count, counts,
            epsilon_class=split["class_counts"], epsilon_category=split["category_counts"],
        )  # fmt: skip
        self.class_log_prior_ = self._log_prior(self.class_count_)
        self.category_count_ = [np.maximum(c, 0).astype(float) for c in counts]
        # the noise scale of a cell, added to alpha: post-processing (module Notes)
        self.noise_scale_ = d / split["category_counts"]
        smoothed = [c + self.alpha + self.noise_scale_ for c in self.category_count_]
        self.feature_log_prob_ = [
            np.log(s) - np.log(s.sum(axis=1, keepdims=True)) for s in smoothed
        ]
        # a feature whose average cell holds fewer records than the noise scale is
        # mostly noise: it is set aside (uniform probabilities), post-processing
        average = self.class_count_.sum() / n_classes
        self.ignored_features_ = average / encoding.n_categories < self.noise_scale_
        for j in np.flatnonzero(self.ignored_features_):
            self.feature_log_prob_[j] = np.full_like(smoothed[j], -np.log(smoothed[j].shape[1]))
        self.categories_ = encoding.categories
        self.n_categories_ = encoding.n_categories
        self.encoding_ = encoding.kinds
        self.bounds_ = None if encoding.lower is None else (encoding.lower, encoding.upper)
        self._encoder = encoding
        self.epsilon_split_ = {k: split[k] for k in ("bounds", "class_counts", "category_counts")}
        self.privacy_spent_ = ledger.total
        return self

    def _joint_log_likelihood(self, X):
        check_is_fitted(self)
        X = validate_numeric_data(self, X, reset=False, dtype="numeric")
        codes = self._encoder.encode(X)
        jll = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for j, log_prob in enumerate(self.feature_log_prob_):
            jll += log_prob[:, codes[:, j]].T
        return jll

    def predict(self, X):
        """The most probable class of each row (post-processing of the release).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Values encoded as in ``fit``; out-of-box values go to the nearest category.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        jll = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(jll, axis=1)]

    def predict_log_proba(self, X):
        """Log-probability of each class for each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        jll = self._joint_log_likelihood(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Probability of each class for each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return np.exp(self.predict_log_proba(X))
