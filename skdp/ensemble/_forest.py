"""RandomForestClassifier: DPDecisionTrees on disjoint random parts of the records."""

import contextvars
from numbers import Integral

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_consistent_length, check_is_fitted, validate_data

from skdp.accounting import PrivacyLedger, parallel_composition, record_spend
from skdp.base import DifferentialPrivacyMixin
from skdp.ensemble._partition import (
    COUNT_SHARE_FOREST,
    assign,
    n_trees,
    public_record,
    record_frame,
    shared_categories,
)
from skdp.mechanisms import check_random_state
from skdp.tree import DPDecisionTree
from skdp.tree._columns import as_frame
from skdp.tree._params import PARAMETER_CONSTRAINTS as TREE_CONSTRAINTS
from skdp.utils._bounds import estimate_public_inputs
from skdp.utils._stats import is_dask_collection
from skdp.utils.validation import closing_share, resolve_classes

__all__ = ["RandomForestClassifier"]

# the most trees an int n_estimators asks for (each is a whole DPDecisionTree fit)
MAX_ESTIMATORS = 1000
_FORWARDED = (
    "algorithm", "n_levels", "leaf_budget", "n_split_points", "bounds",
    "categorical_features", "taxonomies",
)  # fmt: skip


class RandomForestClassifier(DifferentialPrivacyMixin, ClassifierMixin, BaseEstimator):
    """A differentially private forest: one DPDecisionTree per disjoint random part.

    Each record goes to one tree, drawn uniformly at random independently of its values
    and of the other records; each tree is a :class:`~skdp.tree.DPDecisionTree` (MAXGDDP
    by default, DiffGen with ``algorithm="diffgen"``) fitted on its part with the whole
    budget left after the forest's count, and ``predict_proba`` averages the trees'
    probabilities (a majority vote when they are one-hot). Unlike diffprivlib's forest of
    random splits, each tree chooses its splits from the data.

    Parameters
    ----------
    n_estimators : int or "auto", default="auto"
        The number of trees. ``"auto"`` releases a noisy record count ``n~`` (2% of
        epsilon) and grows ``clip(floor(n_low * eps_tree / 20000), 1, 10)`` trees, with
        ``n_low = n~ - ln(20) / eps_n`` (:func:`skdp.ensemble._partition.n_trees`): one
        tree on small data (a tree on a fraction of Iris or of Adult learns less than
        one tree on all of it), up to 10 on large data. An int grows that many (at
        most 1000) and spends nothing on a count.
    epsilon : float, default=1.0
        Privacy budget of the whole fit (> 0).
    algorithm : {"maxgddp", "diffgen"}, default="maxgddp"
        The trees' algorithm (:class:`~skdp.tree.DPDecisionTree`).
    n_levels : int or "auto", default="auto"
        Each tree's cap on its specializations, as in :class:`~skdp.tree.DPDecisionTree`
        (``"auto"`` follows each tree's own noisy count of its part).
    leaf_budget : float in (0, 1), default=0.3
        Each tree's share of its epsilon (after its count) for its cell counts (raised
        to 0.5 on small multiclass parts, as in :class:`~skdp.tree.DPDecisionTree`).
    n_split_points : int, default=15
        Candidate split points per interval of a column with bounds.
    bounds : None, tuple, dict or (lower, upper) arrays, default=None
        Public domains of the numeric columns, passed to every tree (values outside are
        clipped, with a :class:`~skdp.exceptions.ClippingWarning` from each tree). None
        costs nothing: the trees split such a column on the public scale-free grid.
    categorical_features : None or list of str/int, default=None
        Columns to treat as categorical besides pandas ``category``/object columns.
    categories : None or dict, default=None
        Public value lists per categorical column. A categorical column without them
        (nor a taxonomy nor a categorical dtype) takes its observed values once for the
        whole forest, with a :class:`~skdp.exceptions.PrivacyLeakWarning`.
    taxonomies : None or dict, default=None
        Public taxonomy trees per categorical column
        (:func:`skdp.datasets.load_taxonomies`).
    classes : None or array-like, default=None
        Public class labels. None takes them from ``y`` once, with a
        :class:`~skdp.exceptions.PrivacyLeakWarning`.
    n_jobs : int, default=None
        Trees fitted in parallel by joblib. The forest's ledger totals ``epsilon``
        either way (Notes).
    random_state : None, int or numpy.random.Generator, default=None
        None draws the partition and every tree's noise from fresh cryptographically
        secure generators; an int gives reproducible fits for experiments (not for
        releases).

    Attributes
    ----------
    estimators_ : list of DPDecisionTree
        The fitted trees, each with its own ``privacy_spent_`` of its part.
    n_estimators_ : int
        The number of trees grown.
    classes_ : ndarray of shape (n_classes,)
    epsilon_split_ : dict
        ``"n_samples"`` (the forest's count, 0 for an int ``n_estimators``) and
        ``"trees"`` (each tree's epsilon); they add up to ``epsilon``.
    privacy_spent_ : PrivacyBudget
        What the forest's ledger measured: ``epsilon``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    skdp.tree.DPDecisionTree : The base learner, and the better choice on small data.

    Notes
    -----
    Privacy: ``epsilon``-DP under add/remove-one-record neighbours. The forest's count
    ``n~`` (``"auto"`` only) has sensitivity 1 and takes 2% of epsilon through
    :func:`skdp.utils._bounds.estimate_public_inputs`; the number of trees ``T`` is a
    function of it and public values. Each record's tree is an independent uniform
    draw that reads no value. Given these draws, adding or removing one record changes
    the part of exactly one tree by that record, and each tree is ``eps_tree``-DP in
    its part (:class:`~skdp.tree.DPDecisionTree`, sensitivities derived there), so the
    trees cost ``eps_tree`` together (parallel composition), for any draw and so for
    their mixture; the count and the trees compose sequentially:
    ``epsilon = eps_n + eps_tree``. Equal blocks of a permutation (diffprivlib's
    partition) would not do: one record moves every block boundary.

    With ``T > 1`` each part also holds one public record (the middles of the declared
    bounds or 0, the first declared category, the first class): a part is then never
    empty (a tree needs one row), and as the record is the same in neighbouring data
    it changes no sensitivity. A forest of one tree is that tree on all the rows.

    Accounting: every fit runs in a :class:`~skdp.accounting.PrivacyLedger` with the
    trees in a :func:`~skdp.accounting.parallel_composition` block, one branch per
    tree. With ``n_jobs`` running one job the trees' mechanisms are measured there as
    they run. Otherwise each branch reserves the tree's epsilon before any tree is sent
    to a worker (so a :class:`~skdp.accounting.BudgetAccountant` cap refuses the fit
    before any tree draws noise), the trees run detached from every ledger, and each
    fitted tree's own measured ``privacy_spent_`` is checked against its reservation.

    Small budget: each tree follows the small-budget rule of
    :class:`~skdp.tree.DPDecisionTree` on its part (public random cuts and
    permute-and-flip leaf labels when its ``n * epsilon`` is under 25). ``"auto"``
    keeps at least 20,000 records x epsilon per tree, so small data or budgets give
    one tree, the best the measurements found (Iris at epsilon 1: one tree 0.934, 3
    to 10 trees 0.78 to 0.81; Adult at epsilon 2, 10 seeds: one tree 0.840, 10
    trees 0.816). Checked [D] against the spec: the i.i.d.
    assignment of section B7 of the design notes (not row-index blocks), the full
    epsilon per tree, classes and categories resolved once.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skdp.ensemble import RandomForestClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = RandomForestClassifier(
    ...     n_estimators=3, epsilon=5.0, classes=[0, 1], random_state=0
    ... ).fit(X, y)
    >>> forest.n_estimators_, forest.privacy_spent_.epsilon, forest.epsilon_split_
    (3, 5.0, {'n_samples': 0.0, 'trees': 5.0})
    >>> [tree.privacy_spent_.epsilon for tree in forest.estimators_]
    [5.0, 5.0, 5.0]
    """

    _parameter_constraints = {
        "n_estimators": [
            StrOptions({"auto"}),
            Interval(Integral, 1, MAX_ESTIMATORS, closed="both"),
        ],
        "epsilon": TREE_CONSTRAINTS["epsilon"],
        **{name: TREE_CONSTRAINTS[name] for name in _FORWARDED},
        "categories": TREE_CONSTRAINTS["categories"],
        "classes": TREE_CONSTRAINTS["classes"],
        "n_jobs": [None, Integral],
        "random_state": TREE_CONSTRAINTS["random_state"],
    }

    def __init__(
        self,
        n_estimators="auto",
        *,
        epsilon=1.0,
        algorithm="maxgddp",
        n_levels="auto",
        leaf_budget=0.3,
        n_split_points=15,
        bounds=None,
        categorical_features=None,
        categories=None,
        taxonomies=None,
        classes=None,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.epsilon = epsilon
        self.algorithm = algorithm
        self.n_levels = n_levels
        self.leaf_budget = leaf_budget
        self.n_split_points = n_split_points
        self.bounds = bounds
        self.categorical_features = categorical_features
        self.categories = categories
        self.taxonomies = taxonomies
        self.classes = classes
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y):
        """Partition the records at random and fit one private tree per part.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        if is_dask_collection(X) or is_dask_collection(y):
            raise TypeError("RandomForestClassifier takes numpy or pandas input, not dask.")
        frame = as_frame(X, "RandomForestClassifier")
        validate_data(self, X, reset=True, skip_check_array=True)
        classes, codes = resolve_classes(self.classes, y, estimator_name="RandomForestClassifier")
        check_consistent_length(frame, codes)
        from_frame = isinstance(X, pd.DataFrame)
        categories, numeric = shared_categories(self, frame, from_frame)
        for j in numeric:
            if not np.isfinite(np.asarray(frame.iloc[:, j], dtype=float)).all():
                raise ValueError("Input X contains NaN or infinity.")
        rng = check_random_state(self.random_state)
        epsilon = float(self.epsilon)
        with PrivacyLedger() as ledger:
            if self.n_estimators == "auto":
                public = estimate_public_inputs(
                    epsilon, n_samples=len(frame), need_count=True,
                    count_share=COUNT_SHARE_FOREST, random_state=rng,
                )  # fmt: skip
                count = public.epsilon_split["n_samples"]
                tree_epsilon = closing_share(epsilon, count)
                n_estimators = n_trees(public.n_samples, count, tree_epsilon)
            else:
                count, tree_epsilon, n_estimators = 0.0, epsilon, self.n_estimators
            trees = [
                self._tree(tree_epsilon, categories, classes, rng) for _ in range(n_estimators)
            ]
            parts = self._parts(X if from_frame else frame.to_numpy(), frame, classes, codes,
                                categories, numeric, n_estimators, rng)  # fmt: skip
            self.estimators_ = self._fit_trees(trees, parts)
        self.n_estimators_ = n_estimators
        self.classes_ = classes
        self.epsilon_split_ = {"n_samples": count, "trees": tree_epsilon}
        self.privacy_spent_ = ledger.total
        return self

    def _tree(self, epsilon, categories, classes, rng):
        seed = None if self.random_state is None else int(rng.integers(2**32))
        params = {name: getattr(self, name) for name in _FORWARDED}
        return DPDecisionTree(
            **params, epsilon=epsilon, categories=categories, classes=classes, random_state=seed
        )

    def _parts(self, data, frame, classes, codes, categories, numeric, n_estimators, rng):
        """``(X_t, y_t)`` per tree: its records, plus the public record when ``T > 1``.

        The draws are made here, the parts one at a time as the trees take them (a
        generator): the forest holds one part besides ``X``, not a second copy of it.
        """
        labels = classes[codes]
        if n_estimators == 1:
            return iter([(data, labels)])
        tree_of = assign(len(frame), n_estimators, rng)
        extra = public_record(frame, self.bounds, categories, self.taxonomies, numeric)
        if isinstance(data, pd.DataFrame):
            extra_rows = record_frame(extra, data)
        else:
            extra_rows = np.array([extra], dtype=data.dtype if data.dtype.kind == "O" else float)
        return (
            _part(data, labels, tree_of == t, extra_rows, classes[:1]) for t in range(n_estimators)
        )

    def _fit_trees(self, trees, parts):
        """Fit every tree in one parallel-composition block (class Notes)."""
        if effective_n_jobs(self.n_jobs) == 1:
            with parallel_composition() as group:
                for tree, (X_part, y_part) in zip(trees, parts, strict=True):
                    with group.branch():
                        tree.fit(X_part, y_part)
            return trees
        with parallel_composition() as group:
            for tree in trees:
                with group.branch():
                    record_spend(tree.epsilon, mechanism="DPDecisionTree (reserved for a worker)")
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_detached)(tree, X_part, y_part)
            for tree, (X_part, y_part) in zip(trees, parts, strict=True)
        )
        for tree in fitted:
            if tree.privacy_spent_.epsilon > tree.epsilon:
                raise RuntimeError("a tree spent more than its reservation")
        return fitted

    def predict_proba(self, X):
        """The trees' class probabilities, averaged.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        as_frame(X, "RandomForestClassifier")
        validate_data(self, X, reset=False, skip_check_array=True)
        return np.mean([tree.predict_proba(X) for tree in self.estimators_], axis=0)

    def predict(self, X):
        """The class of highest averaged probability (ties go to the first class).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        tags.input_tags.categorical = True  # DataFrame columns of categories or strings
        return tags


def _part(data, labels, mine, extra_rows, extra_label):
    """The records of one tree and the public record."""
    if isinstance(data, pd.DataFrame):
        rows = pd.concat([data[mine], extra_rows], ignore_index=True)
    else:
        rows = np.concatenate([data[mine], extra_rows])
    return rows, np.concatenate([labels[mine], extra_label])


def _fit_detached(tree, X, y):
    """A tree's fit outside every ledger (its epsilon was reserved in the caller)."""
    return contextvars.Context().run(tree.fit, X, y)
