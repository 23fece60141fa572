"""DPDecisionTree: differentially private top-down specialization (MAXGDDP, DiffGen)."""

import math
from functools import partial
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    validate_data,
)

from skdp.accounting import PrivacyLedger
from skdp.base import DifferentialPrivacyMixin
from skdp.mechanisms import check_random_state, geometric
from skdp.tree import _diffgen, _maxgddp
from skdp.tree._columns import as_frame, dask_input, dask_records, split_columns
from skdp.tree._predict import (
    Model,
    as_frame_partition,
    as_series_partition,
    keep_index,
    label_dtype,
)
from skdp.tree._release import (
    cell_positions,
    fit_tree_on_release,
    leaf_probabilities,
    release_frame,
)
from skdp.tree._specialization import SCORES, Specializer
from skdp.utils._stats import is_dask_collection, map_rows, require_public
from skdp.utils.validation import (
    EPSILON_CONSTRAINT,
    RANDOM_STATE_CONSTRAINT,
    resolve_classes,
)


class DPDecisionTree(DifferentialPrivacyMixin, ClassifierMixin, TransformerMixin, BaseEstimator):
    """Differentially private decision data release and classifier (MAXGDDP or DiffGen).

    Generalizes the training table top-down along public taxonomy trees (categorical
    columns) and public intervals (numeric columns), choosing each specialization with
    a DP selection mechanism, then releases a noisy count for **every** cell x class of
    the final cuts (the full product, empty cells included). ``predict`` uses a
    classifier trained on that release only (post-processing).

    Privacy: ``epsilon``-DP under add/remove-one-record neighbours. The budget is spent
    on (1) numeric bounds when ``bounds=None`` (``BOUNDS_SHARE * epsilon`` = 0.1 epsilon,
    :func:`skdp.utils._bounds.estimate_bounds`), (2) the selections, each through
    :func:`skdp.mechanisms.report_noisy_max` with the score's sensitivity (Max: 1,
    monotone; InfoGain: ``log2 K``, a range bound), composed sequentially (DiffGen's
    split points of two sibling intervals in parallel), and (3) the counts: each record
    lies in exactly one cell x class, so the count vector has L1 sensitivity 1 and
    :func:`skdp.mechanisms.geometric` at the remaining budget makes it DP. Candidates
    (concepts of the released cuts, public grid split points, the ``max_cells`` cap)
    never depend on the records. See :mod:`skdp.tree._maxgddp` and
    :mod:`skdp.tree._diffgen` for what differs from the papers.

    Scale-out: ``fit`` also takes a dask DataFrame or array (with ``y`` a dask Series or
    array): the rows are encoded and kept where they live, each specialization level
    reads them once for the counts of all its candidates, and only counts reach the
    driver, so the release equals the numpy one for the same ``random_state``. Public
    ``bounds``, categories and ``classes`` are then required. ``transform``, ``predict``
    and ``generalize`` map dask input lazily.

    Parameters
    ----------
    algorithm : {"maxgddp", "diffgen"}, default="maxgddp"
        MAXGDDP: one report-noisy-max per level over all candidates including every grid
        split point, geometric level budgets. DiffGen: exponential mechanism, one split
        point per interval, the paper's budget split.
    epsilon : float, default=1.0
        Privacy budget of the whole fit (> 0).
    n_levels : int, default=10
        Number of specializations ``h``.
    utility : {"max", "infogain"}, default="max"
        The score of a specialization (see :mod:`skdp.tree._specialization`).
    noise : {"exponential", "gumbel", "laplace"}, default="exponential"
        Selection noise: permute-and-flip, the exponential mechanism, or the seed
        paper's Laplace report-noisy-max.
    budget_schedule : {"geometric", "uniform"}, default="geometric"
        MAXGDDP's per-level budgets (ratio ``3**(1/3)``) or equal ones.
    leaf_budget : float in (0, 1), default=0.5
        Share of epsilon (after bounds) for the cell counts.
    n_split_points : int, default=15
        Candidate split points per numeric interval (an even public grid inside it).
    bounds : None, tuple, dict or (lower, upper) arrays, default=None
        Public domains of the numeric columns (see
        :func:`skdp.utils.validation.resolve_bounds`); values outside are clipped with a
        :class:`~skdp.exceptions.ClippingWarning`. None estimates them privately.
    categorical_features : None or list of str/int, default=None
        Columns to treat as categorical besides pandas ``category``/object columns.
    categories : None or dict, default=None
        Public value lists per categorical column (flat taxonomy ``Any -> values``).
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
        class and its noisy count (may be negative; the classifiers clamp at 0).
    cuts_ : list of dict
        The specializations in order: column, concept, split point, children.
    epsilon_split_ : dict
    privacy_spent_ : PrivacyBudget
    classes_ : ndarray
    n_levels_ : int
        Specializations actually made (fewer when no candidate is left).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skdp.tree import DPDecisionTree
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DPDecisionTree(epsilon=1.0, n_levels=5, bounds=(0.0, 8.0),
    ...                        classes=[0, 1, 2], random_state=0).fit(X, y)
    >>> model.privacy_spent_.epsilon
    1.0
    """

    _parameter_constraints = {
        "algorithm": [StrOptions({"maxgddp", "diffgen"})],
        "epsilon": EPSILON_CONSTRAINT,
        "n_levels": [Interval(Integral, 0, None, closed="left")],
        "utility": [StrOptions(set(SCORES))],
        "noise": [StrOptions({"exponential", "gumbel", "laplace"})],
        "budget_schedule": [StrOptions({"geometric", "uniform"})],
        "leaf_budget": [Interval(Real, 0, 1, closed="neither")],
        "n_split_points": [Interval(Integral, 1, None, closed="left")],
        "bounds": [None, tuple, list, dict, np.ndarray],
        "categorical_features": [None, list, tuple, np.ndarray],
        "categories": [None, dict],
        "taxonomies": [None, dict],
        "classes": ["array-like", None],
        "classifier": [StrOptions({"tree", "leaf"})],
        "max_cells": [Interval(Integral, 2, None, closed="left")],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    _name = "DPDecisionTree"  # in error messages

    def __init__(
        self,
        algorithm="maxgddp",
        *,
        epsilon=1.0,
        n_levels=10,
        utility="max",
        noise="exponential",
        budget_schedule="geometric",
        leaf_budget=0.5,
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
        if dask_fit:
            X, frame = dask_input(self, X, reset=True)
            require_public(self.classes, "classes", self)
            # the checks of the public labels (y is read in the blocks)
            classes, _ = resolve_classes(self.classes, self.classes, estimator_name=self._name)
        elif is_dask_collection(y):
            raise TypeError("DPDecisionTree takes a dask y only with a dask X.")
        else:
            frame = as_frame(X)
            validate_data(self, X, reset=True, skip_check_array=True)
            classes, y_codes = resolve_classes(self.classes, y, estimator_name=self._name)
            check_consistent_length(frame, y_codes)
        rng = check_random_state(self.random_state)
        with PrivacyLedger() as ledger:
            from_frame = isinstance(X, pd.DataFrame) or (dask_fit and hasattr(X, "columns"))
            columns = split_columns(self, frame, from_frame=from_frame, rng=rng, lazy=dask_fit)
            self._columns = columns
            attributes = columns.attributes
            if dask_fit:
                encoded, y_codes = dask_records(columns, X, y, classes)
            else:
                encoded = columns.encode(frame, clip_warning=True)
            spec = Specializer(attributes, encoded, y_codes, len(classes), self.max_cells)
            remaining = self.epsilon - columns.bounds_epsilon
            selection = remaining * (1 - self.leaf_budget)
            sensitivity = 1.0 if self.utility == "max" else math.log2(len(classes))
            with PrivacyLedger() as selecting:
                self.n_levels_ = self._grow(spec, selection, sensitivity, rng)
            counts_epsilon = self.epsilon - columns.bounds_epsilon - selecting.total.epsilon
            noisy = geometric(spec.cell_counts(), epsilon=counts_epsilon, random_state=rng)
        self.epsilon_split_ = {
            "bounds": columns.bounds_epsilon,
            "selection": selecting.total.epsilon,
            "counts": counts_epsilon,
        }
        self.privacy_spent_ = ledger.total
        self.classes_ = classes
        self.cuts_ = [
            {
                "feature": columns.names[a],
                "concept": attributes[a].label(concept),
                "split": split,
                "children": [attributes[a].label(c) for c in children],
            }
            for a, concept, split, children in spec.history
        ]
        self.release_ = release_frame(attributes, columns.names, noisy, classes)
        self._fit_classifier(np.clip(noisy, 0, None), spec.cut_history, counts_epsilon, rng)
        return self

    def _grow(self, spec, selection, sensitivity, rng):
        options = {"score": self.utility, "sensitivity": sensitivity, "noise": self.noise}
        if self.n_levels == 0:
            return 0
        if self.algorithm == "maxgddp":
            budgets = _maxgddp.level_budgets(selection, self.n_levels, self.budget_schedule)
            return _maxgddp.grow(spec, budgets=budgets, rng=rng, **options)
        n_numeric = sum(a.kind == "numeric" for a in spec.attributes)
        step = selection / (n_numeric + 2 * self.n_levels)
        return _diffgen.grow(spec, n_levels=self.n_levels, epsilon_step=step, rng=rng, **options)

    def _fit_classifier(self, counts, history, counts_epsilon, rng):
        self._cut_history = history
        self._leaf_proba = None
        self._tree = None
        # counts under the floor are taken as empty: about the largest noise among the
        # square root of the number of counts, and at least 1.4 noise standard deviations
        noise_floor = max(2.0, np.log(counts.size) / 2) / counts_epsilon
        if self.classifier == "leaf":
            self._leaf_proba = leaf_probabilities(
                self._columns.attributes, history, counts, noise_floor
            )
            return
        positions = cell_positions([len(a.cut) for a in self._columns.attributes])
        seed = int(rng.integers(2**31 - 1))
        self._tree, self._tree_classes = fit_tree_on_release(positions, counts, noise_floor, seed)

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
        import dask.dataframe as dd

        X, _ = dask_input(self, X, reset=False)
        if not isinstance(X, dd.DataFrame):
            X = dd.from_dask_array(X)
        # the dtype pandas gives to labels (object, or str from pandas 3 on)
        meta = pd.DataFrame({name: ["label"] for name in model.columns.names}).iloc[:0]
        return X.map_partitions(partial(keep_index, model.generalize), meta=meta)

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
            self._columns, self._leaf_proba, self._tree, getattr(self, "_tree_classes", None),
            self.classes_,
        )  # fmt: skip

    def _apply(self, method, X, dtype, columns):
        """``Model.<method>`` on the rows of ``X``: numpy in, numpy out; dask, lazy dask."""
        function = getattr(self._model(), method)
        if not is_dask_collection(X):
            return function(self._frame(X))
        import dask.dataframe as dd

        X, _ = dask_input(self, X, reset=False)
        if not isinstance(X, dd.DataFrame):
            return map_rows(function, X, dtype=dtype, columns=columns)
        if columns is None:  # the labels; strings as objects, as dask arrays hold them
            meta = pd.Series(self.classes_, dtype=label_dtype(self.classes_)).iloc[:0]
            return X.map_partitions(
                partial(as_series_partition, function), meta=meta
            ).to_dask_array()
        meta = pd.DataFrame({j: pd.Series(dtype=dtype) for j in range(columns)})
        return X.map_partitions(partial(as_frame_partition, function), meta=meta).to_dask_array()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        tags.transformer_tags.preserves_dtype = []  # transform returns integer cut positions
        return tags
