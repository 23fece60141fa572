"""What the private grid and randomized searches share: budget, runs, selection, refit."""

import warnings
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
    clone,
    is_classifier,
)
from sklearn.utils import get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_samples, check_is_fitted, indexable

from skdp.accounting import PrivacyBudget, PrivacyLedger, record_spend
from skdp.base import DifferentialPrivacyMixin
from skdp.exceptions import BudgetExceededError
from skdp.mechanisms import check_random_state
from skdp.model_selection._repetitions import run_law
from skdp.model_selection._runs import (
    declared_budget,
    detached_ledger,
    epsilon_keys,
    parts_of,
    random_states,
    run_candidate,
    scaled_epsilons,
    split_rows,
)
from skdp.utils.validation import EPSILON_CONSTRAINT, RANDOM_STATE_CONSTRAINT, check_epsilon

__all__ = ["BasePrivateSearch"]

# the only scorer: accuracy, from a noisy margin correct - wrong (sensitivity 1)
SCORERS = ("accuracy",)


def _delegated(attr):
    """Available when the winner (or, before fit, the estimator) has ``attr``."""

    def check(self):
        if hasattr(self, "best_estimator_"):
            getattr(self.best_estimator_, attr)
            return True
        if self.refit is False:
            raise AttributeError(f"refit=False: the search keeps no model to call {attr} on")
        getattr(self._base_estimator(), attr)
        return True

    return check


class BasePrivateSearch(
    DifferentialPrivacyMixin, ClassifierMixin, MetaEstimatorMixin, BaseEstimator
):
    """Private selection from private candidates (see the public subclasses)."""

    _parameter_constraints = {
        "estimator": [None, HasMethods(["fit", "predict"])],
        "epsilon": EPSILON_CONSTRAINT,
        "scoring": [None, StrOptions(set(SCORERS))],
        "repetitions": [str, tuple],  # checked by run_law, which names Poisson
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "refit": ["boolean", StrOptions({"full"})],
        "refit_epsilon": [None, Interval(Real, 0, None, closed="neither")],
        "classes": [None, "array-like"],
        "n_jobs": [None, Integral],
        "random_state": RANDOM_STATE_CONSTRAINT,
    }

    def _base_estimator(self):
        if self.estimator is None:
            # the tree needs no declared bounds (a scale-free split grid) and takes
            # categorical columns: the default that works on most tables as they come
            from skdp.tree import DPDecisionTree

            return DPDecisionTree()
        return self.estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = get_tags(self._base_estimator())
        tags.classifier_tags = sub.classifier_tags
        tags.input_tags = sub.input_tags
        tags.target_tags = sub.target_tags
        # the search sets every run's random_state from its own: only its own counts
        return tags

    # ---- what the subclasses define ------------------------------------------------
    def _space(self):
        """The candidate space: ``.size`` (None if infinite), ``.draw(rng)``, ``.values(key)``."""
        raise NotImplementedError

    def _expected_runs(self, size):
        raise NotImplementedError

    # ---- budget --------------------------------------------------------------------
    def _budget_plan(self, space, template):
        """``(epsilon_run, selection, refit, factor, law, scale)``: the whole accounting."""
        epsilon = check_epsilon(self.epsilon)
        law = (
            None if space.size == 1 else run_law(self.repetitions, self._expected_runs(space.size))
        )
        factor = 1.0 if law is None else law.factor
        searched = [k for k in epsilon_keys(template) if space.searches(k)]
        full = self.refit == "full"
        if not searched:  # the common use: fix the total, search the rest
            refit = (self.refit_epsilon or epsilon / (factor + 1)) if full else 0.0
            if refit >= epsilon:
                raise ValueError(f"refit_epsilon={refit} leaves nothing of epsilon={epsilon}")
            selection = epsilon - refit
            return selection / factor, selection, refit, factor, law, True
        # epsilon is searched: each run is a mixture, charged at the largest candidate
        with detached_ledger():  # pricing clones, never fitted
            largest = max(
                declared_budget(clone(template).set_params(**p)).epsilon
                for p in space.extremes(searched)
            )
        refit = largest if full else 0.0
        total = factor * largest + refit
        if total > epsilon * (1 + 1e-12):
            raise ValueError(
                f"the grid's largest epsilon {largest:g} costs {factor:g} x {largest:g}"
                + (f" + {refit:g} (refit)" if full else "")
                + f" = {total:g}, more than epsilon={epsilon:g}; fix the total and search "
                "the other hyperparameters instead (leave epsilon out of the grid)"
            )
        warnings.warn(
            f"epsilon is searched: every run is charged at the largest candidate epsilon "
            f"{largest:g}, so the search costs {total:g} whatever the grid holds. The common "
            "use is to fix the total (this search's epsilon) and search the other "
            "hyperparameters.",
            UserWarning,
            stacklevel=4,
        )
        return largest, factor * largest, refit, factor, law, False

    def _public_classes(self, template):
        keys = [
            k for k in template.get_params(deep=True) if k == "classes" or k.endswith("__classes")
        ]
        if not keys:
            raise ValueError(f"{type(template).__name__} has no classes parameter to set")
        return dict.fromkeys(keys, self.classes)

    def _privacy_budget(self):
        return PrivacyBudget(self.epsilon)

    # ---- fit -----------------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None):
        """Run the private search.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, passed as it is to the candidates (a Pipeline may take a
            DataFrame).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        X, y = indexable(X, y)
        n = _num_samples(X)
        if n < 2:
            raise ValueError(
                f"Found array with {n} sample(s) while a minimum of 2 is required by "
                f"{type(self).__name__}: its rows are split into a fit part and a validation "
                "part, and one sample cannot give a class to both"
            )
        base = self._base_estimator()
        if not is_classifier(base):
            raise ValueError(
                "the private search scores accuracy (a noisy margin of correct predictions): "
                f"it needs a classifier, got {type(base).__name__}"
            )
        rng = check_random_state(self.random_state)
        space = self._space()
        with detached_ledger():  # templates: clones held by no caller's budget
            template = clone(base)
        if self.classes is not None:
            template.set_params(**self._public_classes(template))
        epsilon_run, selection, refit, factor, law, scale = self._budget_plan(space, template)
        with PrivacyLedger() as ledger:
            # the bounds are charged before anything runs, so a cap refuses the search
            record_spend(selection, mechanism="private_selection")
            if refit:  # at most refit whichever candidate wins: charged before it is known
                record_spend(refit, mechanism="private_selection_refit")
            if law is None and not refit:  # one candidate: nothing to select, all rows
                params, counts = space.draw(rng), None
                model = self._refit(template, params, X, y, epsilon_run, scale, rng)
            else:
                winner = self._select(X, y, n, template, space, law, epsilon_run, scale, rng)
                model, params, counts = winner
            if refit:
                model = self._refit(template, params, X, y, refit, scale, rng)
        self._release(model, params, counts, epsilon_run, selection, refit, factor, law)
        self.privacy_spent_ = ledger.total
        return self

    def _select(self, X, y, n, template, space, law, epsilon_run, scale, rng):
        parts = parts_of(X, y, split_rows(n, self.validation_fraction, rng))
        n_runs = 1 if law is None else law.sample(rng)
        draws = [space.draw(rng) for _ in range(n_runs)]
        run_params = draws
        if scale:  # each candidate's epsilon is set from the total (once per point)
            memo = {}
            with detached_ledger():
                for p in draws:
                    key = repr(sorted(p.items()))
                    if key not in memo:
                        candidate = clone(template).set_params(**p)
                        memo[key] = {**p, **scaled_epsilons(candidate, epsilon_run)}
            run_params = [memo[repr(sorted(p.items()))] for p in draws]
        seeds = [None if self.random_state is None else int(rng.integers(2**31)) for _ in draws]
        jobs = (
            delayed(run_candidate)(template, p, parts, epsilon_run, s)
            for p, s in zip(run_params, seeds, strict=True)
        )
        if self.n_jobs in (None, 1):
            results = [function(*args, **kwargs) for function, args, kwargs in jobs]
        else:
            results = Parallel(n_jobs=self.n_jobs)(jobs)
        for _, _, _, spent in results:  # measured, per run: nothing is released otherwise
            if spent.delta > 0 or spent.epsilon > epsilon_run * (1 + 1e-9):
                raise BudgetExceededError(
                    f"a run spent {spent}, more than its epsilon_run={epsilon_run:g}"
                )
        # the best noisy margin c - i (the same validation rows for every run), then the tie key
        best = max(range(n_runs), key=lambda i: (results[i][1][0], results[i][2]))
        return results[best][0], draws[best], results[best][1]

    def _refit(self, template, params, X, y, refit, scale, rng):
        """Fit ``params`` on all rows, measured in its own ledger against ``refit``.

        The winner's refit, or the only candidate of a one-point grid (nothing to
        select: it gets every row and the whole budget).
        """
        with detached_ledger() as ledger:
            model = clone(template).set_params(**params)
            if scale:
                model.set_params(**scaled_epsilons(model, refit))
            seed = None if self.random_state is None else int(rng.integers(2**31))
            model.set_params(**random_states(model, seed)).fit(X, y)
        if ledger.total.delta > 0 or ledger.total.epsilon > refit * (1 + 1e-9):
            raise BudgetExceededError(f"the refit spent {ledger.total}, more than {refit:g}")
        return model

    def _release(self, model, params, counts, epsilon_run, selection, refit, factor, law):
        if counts is None:  # one candidate fitted on all rows: no score was released
            score, counts_shown = float("nan"), {}
        else:  # post-processing of the released margin c - i and size c + i
            margin, size = counts
            correct, wrong = (size + margin) / 2, (size - margin) / 2
            score = max(correct, 0) / max(max(correct, 0) + max(wrong, 0), 1)
            counts_shown = {
                "noisy_correct_count": np.array([correct]),
                "noisy_incorrect_count": np.array([wrong]),
            }
        shown = dict(params)
        self.best_params_ = shown
        self.best_score_ = score
        self.best_index_ = 0
        self.cv_results_ = {
            "params": [shown],
            **{f"param_{k}": np.array([v], dtype=object) for k, v in shown.items()},
            "mean_test_score": np.array([score]),
            "rank_test_score": np.array([1], dtype=np.int32),
            **counts_shown,
        }
        if self.refit:
            self.best_estimator_ = model
        self.epsilon_run_ = epsilon_run
        self.repetitions_ = {"law": "single run", "factor": 1.0} if law is None else {
            **law.as_dict(), "factor": factor,
        }  # fmt: skip
        self.epsilon_split_ = {"selection": selection, "refit": refit}

    # ---- delegation ----------------------------------------------------------------
    @property
    def classes_(self):
        """The winner's class labels."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.classes_

    @property
    def n_features_in_(self):
        """Number of features seen by the winner."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.n_features_in_

    @property
    def feature_names_in_(self):
        """The winner's feature names (DataFrame input only)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.feature_names_in_

    def _call(self, method, X):
        check_is_fitted(self, "best_estimator_")
        return getattr(self.best_estimator_, method)(X)

    @available_if(_delegated("predict"))
    def predict(self, X):
        """Predict with the selected model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted labels.
        """
        return self._call("predict", X)

    @available_if(_delegated("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the selected model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probabilities.
        """
        return self._call("predict_proba", X)

    @available_if(_delegated("predict_log_proba"))
    def predict_log_proba(self, X):
        """Log class probabilities of the selected model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log probabilities.
        """
        return self._call("predict_log_proba", X)

    @available_if(_delegated("decision_function"))
    def decision_function(self, X):
        """Decision function of the selected model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray
            The selected model's decision values.
        """
        return self._call("decision_function", X)

    @available_if(_delegated("predict"))
    def score(self, X, y, sample_weight=None):
        """Accuracy of the selected model on ``(X, y)`` (not private: your data).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test data.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        float
            The accuracy.
        """
        return super().score(X, y, sample_weight=sample_weight)
