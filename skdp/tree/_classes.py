"""DPDecisionTree: differentially private top-down specialization (MAXGDDP, DiffGen)."""

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils.validation import (
    check_is_fitted,
    validate_data,
)

from skdp.accounting import PrivacyLedger
from skdp.base import DifferentialPrivacyMixin
from skdp.mechanisms import check_random_state
from skdp.tree._budget import COUNT_SHARE_TREE, FLOOR_COUNTS_SHARE, plan
from skdp.tree._columns import as_frame, dask_input, dask_records, fit_input, split_columns
from skdp.tree._fit_release import release_random, release_selected
from skdp.tree._params import PARAMETER_CONSTRAINTS
from skdp.tree._predict import Model, lazy_apply, lazy_generalize
from skdp.tree._specialization import Specializer
from skdp.utils._bounds import estimate_public_inputs
from skdp.utils._stats import is_dask_collection


class DPDecisionTree(DifferentialPrivacyMixin, ClassifierMixin, TransformerMixin, BaseEstimator):
    """Differentially private decision data release and classifier (MAXGDDP or DiffGen).

    Generalizes the training table top-down along public taxonomy trees (categorical
    columns) and public intervals (numeric columns), choosing each specialization with
    a DP selection mechanism, then releases a noisy count for **every** cell x class of
    the final cuts (the full product, empty cells included). ``predict`` uses a
    classifier trained on that release only (post-processing).

    The defaults need nothing declared: a numeric column without bounds is split on a
    public scale-free grid, a categorical column without a taxonomy into ranges of its
    category order, and the number of specializations follows a noisy record count.
    See :mod:`skdp.tree._maxgddp` and :mod:`skdp.tree._diffgen` for what differs from
    the papers.

    Scale-out: ``fit`` also takes a dask DataFrame or array (with ``y`` a dask Series or
    array): the rows are encoded and kept where they live, each specialization level
    reads them once for the counts of all its candidates, and only counts reach the
    driver, so the release equals the numpy one for the same ``random_state``. The
    categories of the categorical columns and ``classes`` are then required.
    ``transform``, ``predict`` and ``generalize`` map dask input lazily.

    Parameters
    ----------
    algorithm : {"maxgddp", "diffgen"}, default="maxgddp"
        MAXGDDP: one report-noisy-max per level over all candidates including every grid
        split point, geometric level budgets. DiffGen: exponential mechanism, one split
        point per interval, the paper's budget split.
    epsilon : float, default=1.0
        Privacy budget of the whole fit (> 0).
    n_levels : int or "auto", default="auto"
        Most specializations ``h``. ``"auto"`` caps them by a noisy record count ``n~``
        (10% of epsilon): ``clip(floor(log2(n_low * eps_counts / (4 K))), 1, 12)`` with
        ``n_low = max(1, n~ - ln(20) / eps_n)`` (a 95% lower bound of the count),
        ``eps_counts`` the epsilon of the cell counts and ``K`` the number of classes
        (:func:`skdp.tree._budget.auto_levels`), raised to ``K - 1``. An int (at most
        64) is the cap itself. Either way the small-budget rule below (Notes) may make
        fewer.
    utility : {"max", "infogain"}, default="max"
        The score of a specialization (see :mod:`skdp.tree._specialization`).
    noise : {"exponential", "gumbel", "laplace"}, default="exponential"
        Selection noise: permute-and-flip, the exponential mechanism, or the seed
        paper's Laplace report-noisy-max.
    budget_schedule : {"geometric", "uniform"}, default="geometric"
        MAXGDDP's per-level budgets (ratio ``3**(1/3)``) or equal ones.
    leaf_budget : float in (0, 1), default=0.3
        Share of epsilon (after the count) for the cell counts; the rest goes to the
        selections. 0.3 measured better than 0.5 (DiffGen's paper spends half on the
        counts; pass 0.5 to reproduce it) on Iris, Wine, Breast cancer and Adult (worst
        of 20 seeds; Adult at epsilon 1: 0.828 against 0.820). With ``n_levels="auto"``
        it is raised to 0.5 when the noisy count allows fewer levels than the ``K - 1``
        that ``K`` classes need and every numeric column has bounds (small multiclass
        data: Iris at epsilon 0.5, worst of 20 seeds 0.28 -> 0.54;
        :func:`skdp.tree._budget.plan`).
    n_split_points : int, default=15
        Candidate split points per interval of a column with bounds (an even public
        grid inside it); at most 1024.
    bounds : None, tuple, dict or (lower, upper) arrays, default=None
        Public domains of the numeric columns (see
        :func:`skdp.utils.validation.resolve_bounds`; a dict may name only some
        columns); values outside are clipped with a
        :class:`~skdp.exceptions.ClippingWarning`. A column without bounds costs no
        budget: its root is ``(-inf, inf)`` and its candidate split points are the
        public scale-free grid ``0, +-2**(k/4)`` (``2**-30`` to ``2**62``) inside each
        interval, then ``n_split_points`` even points inside intervals narrower than
        one grid step.
    categorical_features : None or list of str/int, default=None
        Columns to treat as categorical besides pandas ``category``/object columns.
    categories : None or dict, default=None
        Public value lists per categorical column. A categorical column without a
        taxonomy is split into ranges of its category order (these lists, else the
        categorical dtype's categories): every boundary between neighbours is a
        candidate split, so put related categories next to each other. For the flat
        fan-out of the seed papers pass ``taxonomies={column: {"Any": values}}``.
    taxonomies : None or dict, default=None
        Public taxonomy trees per categorical column, in the format of
        :func:`skdp.datasets.load_taxonomies`.
    classes : None or array-like, default=None
        Public class labels. None takes them from ``y`` with a
        :class:`~skdp.exceptions.PrivacyLeakWarning`.
    classifier : {"tree", "leaf"}, default="tree"
        Post-processing classifier: a decision tree on the released cells weighted by
        their noisy counts (counts at or below the noise floor
        ``max(2, ln(n_counts) / 2) / epsilon_counts`` taken as empty, leaves of at least
        0.1% of the weight, as C4.5 prunes), or the cell's majority backed off to
        coarser cells when its total is under the floor.
    max_cells : int, default=2**20
        Public cap on cells x classes; specializations beyond it are not candidates.
    random_state : None, int or numpy.random.Generator, default=None
        None draws from a fresh cryptographically secure generator; an int gives
        reproducible fits for experiments (not for releases).

    Attributes
    ----------
    release_ : pandas.DataFrame
        The published table: a row per cell x class, the concept of each column, the
        class and its noisy count (may be negative; the classifiers clamp at 0). In the
        small-budget regime (Notes): a row per leaf, its concept of each column and its
        released class.
    cuts_ : list of dict
        The specializations in order (parents first): column, concept, split point (a
        list of points for a three-piece cut of the small-budget regime), children.
    bounds_ : dict
        ``{column: (lower, upper)}`` of the numeric columns: the declared bounds, or
        ``(-inf, inf)`` for a column split on the scale-free grid.
    epsilon_split_ : dict
        ``"n_samples"`` (the noisy count, 10%), ``"selection"`` and ``"counts"``
        (``"labels"`` in the small-budget regime); they add up to ``epsilon``.
    privacy_spent_ : PrivacyBudget
    classes_ : ndarray
    n_levels_ : int
        Specializations actually made (fewer than ``n_levels`` or the auto rule's
        number when no candidate is left); the depth of the tree in the small-budget
        regime.

    Notes
    -----
    Privacy: ``epsilon``-DP under add/remove-one-record neighbours, by sequential
    composition of (1) the noisy record count ``n~``, 10% of epsilon
    (:func:`skdp.utils._bounds.estimate_public_inputs`, sensitivity 1); the depth plan
    is a function of it and public values; (2) the selections, ``(1 - leaf_budget)``
    of the rest, each through :func:`skdp.mechanisms.report_noisy_max` with the
    score's sensitivity (Max: 1, monotone; InfoGain: ``log2 K``, a range bound),
    composed sequentially (DiffGen's split points of two sibling intervals in
    parallel); (3) the counts, the rest plus any unspent selection budget: each record
    lies in exactly one cell x class, so the count vector has L1 sensitivity 1 and
    :func:`skdp.mechanisms.geometric` makes it DP. No budget goes to bounds: the
    candidates (concepts of the released cuts, the even grid of declared bounds or the
    scale-free grid, boundaries of the declared category order, the ``max_cells`` cap)
    never depend on the records.

    The depth plan (:func:`skdp.tree._budget.plan`) reads public values and ``n~``
    only, with ``n_est = max(1, n~ - 1 / eps_n)``, ``S`` the selection budget and
    ``R`` the epsilon left after the count.

    Small budget, ``n_est * R < 25``: a selection cannot tell a useful split from a
    useless one (Iris's 100 rows at epsilon 0.1: they differ by ~30 records, the
    selection noise is ~60). The fit then reads no record to choose splits
    (:mod:`skdp.tree._random_cuts`): each node cuts a random column not yet cut on its
    path in two at a threshold drawn from the middle half of its public interval, or,
    for ``K >= 3`` classes, in three near its thirds (bounded interval, category range;
    taxonomy children; unbounded columns have no public middle), 3 binary or 2
    three-piece levels deep (at most an int ``n_levels``), and each leaf releases one
    class by permute-and-flip on all of ``R`` (one record changes one count of one leaf
    by 1; the leaves are disjoint: parallel composition). ``predict_proba`` is then
    one-hot and ``transform`` gives each column's position in the common refinement of
    the nodes' cuts. Iris (100 rows, public bounds) at epsilon 0.1, 1000 seeds: 0.668
    (worst 0.14) against 0.622 for diffprivlib's random tree; with no bounds the tree
    is one leaf, the noisy majority.

    Otherwise it makes at most ``max(K - 1, floor(n_est * S / 15))`` selected levels
    (``K`` classes): each level keeps about 15 / ``n_est`` epsilon, enough to prefer a
    split that moves a sizeable share of the records, and the depth never drops below
    the ``K - 1`` cuts that tell ``K`` classes apart (the count is too imprecise to
    decide that); the unspent selection budget goes to the counts. If ``m**2 * n_est <=
    2e7`` (``m`` first candidates), MAXGDDP selects its first two cuts as one pair by
    their joint Max score on both levels' budget (:mod:`skdp.tree._lookahead`).

    The classifiers take counts at or below ``min(max(2, ln(m) / 2) / eps_counts,
    n_est / m)`` (``m`` counts; 0 for ``m <= 8``) as empty, so a small release is
    never emptied whole;
    when nothing passes they predict the uniform distribution (ties go to the first
    class).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skdp.tree import DPDecisionTree
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> model = DPDecisionTree(epsilon=5.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    >>> model.n_levels_, model.privacy_spent_.epsilon, model.epsilon_split_["n_samples"]
    (4, 5.0, 0.5)
    >>> model.cuts_[0]["feature"], model.cuts_[0]["split"], model.cuts_[0]["children"]
    ('petal width (cm)', 1.0, ['[-inf, 1)', '[1, inf)'])
    """

    _parameter_constraints = PARAMETER_CONSTRAINTS

    _name = "DPDecisionTree"  # in error messages

    def __init__(
        self,
        algorithm="maxgddp",
        *,
        epsilon=1.0,
        n_levels="auto",
        utility="max",
        noise="exponential",
        budget_schedule="geometric",
        leaf_budget=0.3,
        n_split_points=15,
        bounds=None,
        categorical_features=None,
        categories=None,
        taxonomies=None,
        classes=None,
        classifier="tree",
        max_cells=2**20,
        random_state=None,
    ):
        self.algorithm = algorithm
        self.epsilon = epsilon
        self.n_levels = n_levels
        self.utility = utility
        self.noise = noise
        self.budget_schedule = budget_schedule
        self.leaf_budget = leaf_budget
        self.n_split_points = n_split_points
        self.bounds = bounds
        self.categorical_features = categorical_features
        self.categories = categories
        self.taxonomies = taxonomies
        self.classes = classes
        self.classifier = classifier
        self.max_cells = max_cells
        self.random_state = random_state

    def fit(self, X, y):
        """Specialize, release the noisy cell counts, and train the classifier on them.

        Parameters
        ----------
        X : array-like, DataFrame, or dask DataFrame / array of shape (n_samples, n_features)
            A dask collection is never loaded: its blocks are encoded where they live and
            kept there (persisted), and every specialization level reads them once for
            all its candidates' counts, the final cells once more; only counts come
            back. ``bounds`` (numeric columns), the categories of the categorical
            columns (``categories``, ``taxonomies`` or a categorical dtype with known
            categories) and ``classes`` must then be public. With the same
            ``random_state`` the fit equals the numpy one.
        y : array-like or dask Series / array of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        dask_fit = is_dask_collection(X)
        X, frame, classes, y_codes = fit_input(self, X, y)
        rng = check_random_state(self.random_state)
        with PrivacyLedger() as ledger:
            from_frame = isinstance(X, pd.DataFrame) or (dask_fit and hasattr(X, "columns"))
            columns, self.bounds_ = split_columns(
                self, frame, from_frame=from_frame, lazy=dask_fit
            )
            self._columns = columns
            if dask_fit:
                encoded, y_codes = dask_records(columns, X, y, classes)
            else:
                encoded = columns.encode_columns(frame, clip_warning=True)
            # the noisy record count of n_levels="auto" (nothing else is estimated)
            n_samples = encoded.shape[0] if dask_fit else len(frame)
            public = estimate_public_inputs(
                float(self.epsilon), n_samples=n_samples, need_count=True,
                count_share=COUNT_SHARE_TREE, random_state=rng,
            )  # fmt: skip
            spec = Specializer(columns.attributes, encoded, y_codes, len(classes), self.max_cells)
            scale_free = any(getattr(a, "scale_free", False) for a in columns.attributes)
            the_plan = plan(
                self.n_levels, public.n_samples, public.epsilon_split["n_samples"],
                public.remaining, self.leaf_budget, len(classes),
                floor_counts=0.0 if scale_free else FLOOR_COUNTS_SHARE,
            )  # fmt: skip
            release = release_random if the_plan.free else release_selected
            spent = release(self, spec, the_plan, ledger, classes, rng)
        self.epsilon_split_ = {"n_samples": public.epsilon_split["n_samples"], **spent}
        self.privacy_spent_ = ledger.total
        self.classes_ = classes
        return self

    def transform(self, X):
        """Generalize ``X`` to the released cuts: each column's concept index in its cut.

        Parameters
        ----------
        X : array-like, DataFrame, or dask DataFrame / array of shape (n_samples, n_features)
            A dask collection gives a lazy dask array (for a dask DataFrame, with unknown
            chunk sizes).

        Returns
        -------
        ndarray or dask.array.Array of shape (n_samples, n_features), int
        """
        check_is_fitted(self)
        return self._apply("positions", X, np.int64, self.n_features_in_)

    def generalize(self, X):
        """``X`` with every value replaced by the label of its concept in the cuts.

        Parameters
        ----------
        X : array-like, DataFrame, or dask DataFrame / array of shape (n_samples, n_features)
            A dask collection gives a lazy dask DataFrame.

        Returns
        -------
        pandas.DataFrame or dask.dataframe.DataFrame
        """
        model = self._model()
        if not is_dask_collection(X):
            return model.generalize(self._frame(X))
        return lazy_generalize(model, dask_input(self, X, reset=False)[0])

    def predict_proba(self, X):
        """Class probabilities from the classifier trained on the release.

        Parameters
        ----------
        X : array-like, DataFrame, or dask DataFrame / array of shape (n_samples, n_features)
            A dask collection gives a lazy dask array.

        Returns
        -------
        ndarray or dask.array.Array of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        return self._apply("proba", X, np.float64, len(self.classes_))

    def predict(self, X):
        """Most probable class of each row.

        Parameters
        ----------
        X : array-like, DataFrame, or dask DataFrame / array of shape (n_samples, n_features)
            A dask collection gives a lazy dask array.

        Returns
        -------
        ndarray or dask.array.Array of shape (n_samples,)
        """
        check_is_fitted(self)
        return self._apply("labels", X, self.classes_.dtype, None)

    def _frame(self, X):
        check_is_fitted(self)
        frame = as_frame(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        return frame

    def _model(self):
        """The fitted cuts and classifier as a small object that dask ships to workers."""
        check_is_fitted(self)
        return Model(
            self._columns, self._leaf_proba, self._tree, self._tree_classes,
            self.classes_, self._random_cuts,
        )  # fmt: skip

    def _apply(self, method, X, dtype, columns):
        """``Model.<method>`` on the rows of ``X``: numpy in, numpy out; dask, lazy dask."""
        function = getattr(self._model(), method)
        if not is_dask_collection(X):
            return function(self._frame(X))
        X, _ = dask_input(self, X, reset=False)
        return lazy_apply(function, X, dtype=dtype, columns=columns, classes=self.classes_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        tags.input_tags.categorical = True  # DataFrame columns of categories or strings
        tags.transformer_tags.preserves_dtype = []  # transform returns integer cut positions
        return tags
