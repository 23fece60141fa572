"""A cap holds and a ledger measures every fit, wherever joblib runs the fits."""

import joblib
import numpy as np
import pytest
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, cross_val_score, cross_validate
from sklearn.pipeline import Pipeline

from skdp import BudgetAccountant, PrivacyLedger, privacy_spent
from skdp.exceptions import BudgetExceededError
from skdp.linear_model import ObjectivePerturbationLogistic

_RNG = np.random.default_rng(0)
X = _RNG.uniform(-1, 1, size=(60, 2))  # row norms below the declared data_norm
Y = (X[:, 0] + 0.3 * _RNG.normal(size=60) > 0).astype(int)
EPSILON = 0.5


class _Counted(ObjectivePerturbationLogistic):
    """Records each fit that drew its noise (in this process: sequential and threads)."""

    ran = []

    def fit(self, X, y):
        super().fit(X, y)
        type(self).ran.append(self.privacy_spent_.epsilon)
        return self


def _model(cls=ObjectivePerturbationLogistic, **params):
    return cls(epsilon=EPSILON, data_norm=1.5, classes=[0, 1], random_state=0, **params)


def _fits(n):
    return Parallel(n_jobs=2)(delayed(clone(_model()).fit)(X, Y) for _ in range(n))


def test_ledger_measures_every_fit_of_a_threaded_grid_search():
    search = GridSearchCV(_model(), {"C": [0.5, 1.0, 2.0]}, cv=2, n_jobs=2)
    with joblib.parallel_backend("threading"), PrivacyLedger() as ledger:
        search.fit(X, Y)
    # 3 candidates x 2 folds in the workers, plus the refit here
    assert ledger.total.epsilon == pytest.approx(7 * EPSILON)
    assert ledger.total.epsilon == pytest.approx(privacy_spent(search).epsilon)


def test_cap_stops_a_threaded_grid_search_before_it_passes():
    _Counted.ran.clear()
    search = GridSearchCV(_model(_Counted), {"C": [0.5, 1.0, 2.0]}, cv=2, n_jobs=2)
    accountant = BudgetAccountant(epsilon=1.2)
    with pytest.raises(BudgetExceededError), joblib.parallel_backend("threading"):
        with accountant:
            search.fit(X, Y)
    assert len(_Counted.ran) <= 2  # what fits in 1.2 at 0.5 a fit
    assert accountant.spent.epsilon <= 1.2


def test_cap_stops_threaded_fits_of_clones():
    accountant = BudgetAccountant(epsilon=1.2)
    with pytest.raises(BudgetExceededError), joblib.parallel_backend("threading"):
        with accountant:
            _fits(7)
    assert accountant.spent.epsilon <= 1.2


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_ledger_measures_parallel_fits_of_clones(backend):
    with joblib.parallel_backend(backend), PrivacyLedger() as ledger:
        fitted = _fits(7)
    assert ledger.total.epsilon == pytest.approx(7 * EPSILON)
    assert sum(m.privacy_spent_.epsilon for m in fitted) == pytest.approx(7 * EPSILON)


def test_cross_val_score_in_worker_processes_is_measured():
    with PrivacyLedger() as ledger:
        cross_val_score(_model(), X, Y, cv=4, n_jobs=2)
    assert ledger.total.epsilon == pytest.approx(4 * EPSILON)


@pytest.mark.slow  # loky restarts its workers after the error; fast twin: the threaded one
def test_cap_stops_cross_val_score_in_worker_processes():
    with pytest.raises(BudgetExceededError), BudgetAccountant(epsilon=1.2) as accountant:
        cross_val_score(_model(), X, Y, cv=4, n_jobs=2)
    assert accountant.spent.epsilon <= 1.2


def test_threaded_cross_validate_is_capped_and_measured():
    _Counted.ran.clear()
    with joblib.parallel_backend("threading"):
        with pytest.raises(BudgetExceededError), BudgetAccountant(epsilon=1.2):
            cross_validate(_model(_Counted), X, Y, cv=4, n_jobs=2)
        assert len(_Counted.ran) <= 2
        with PrivacyLedger() as ledger:
            result = cross_validate(_model(), X, Y, cv=4, n_jobs=2, return_estimator=True)
    assert ledger.total.epsilon == pytest.approx(privacy_spent(result).epsilon)
    assert ledger.total.epsilon == pytest.approx(4 * EPSILON)


def test_sequential_fits_are_charged_once():
    _Counted.ran.clear()
    search = GridSearchCV(_model(_Counted), {"epsilon": [0.25, 1.0]}, cv=3)
    with PrivacyLedger() as ledger:
        search.fit(X, Y)
        scores = cross_val_score(_model(), X, Y, cv=3)
    assert np.isfinite(scores).all()
    true_spend = sum(_Counted.ran) + 3 * EPSILON
    assert true_spend == pytest.approx(3 * 1.25 + search.best_params_["epsilon"] + 1.5)
    assert ledger.total.epsilon == pytest.approx(true_spend)


def test_a_clone_fitted_twice_is_charged_twice():
    with PrivacyLedger() as ledger:
        model = clone(_model())
        model.fit(X, Y)
        model.fit(X, Y)
    assert ledger.total.epsilon == pytest.approx(2 * EPSILON)


def test_worker_processes_are_charged_for_the_candidate_parameters():
    # loky: the candidates' epsilon is set in the worker, after the clone was reserved
    search = GridSearchCV(_model(), {"epsilon": [0.25, 1.0]}, cv=2, n_jobs=2)
    with PrivacyLedger() as ledger:
        search.fit(X, Y)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    expected = 2 * (0.25 + 1.0) + search.best_params_["epsilon"]
    assert ledger.total.epsilon == pytest.approx(expected)


def test_worker_processes_refuse_a_fit_that_costs_more_than_its_reservation():
    # a step of a pipeline is priced with its own epsilon: the worker refuses more
    search = GridSearchCV(
        Pipeline([("model", _model())]), {"model__epsilon": [EPSILON, 1.0]}, cv=2, n_jobs=2
    )
    with PrivacyLedger() as ledger, pytest.warns(FitFailedWarning, match="largest a search"):
        search.fit(X, Y)
    assert np.isnan(search.cv_results_["mean_test_score"][1])
    # the folds at the reserved epsilon ran and were measured, and the refit
    assert ledger.total.epsilon == pytest.approx(4 * EPSILON + EPSILON)


def test_dask_backend_is_measured(dask_client):
    search = GridSearchCV(_model(), {"C": [0.5, 2.0]}, cv=2, n_jobs=2)
    with joblib.parallel_backend("dask"), PrivacyLedger() as ledger:
        search.fit(X, Y)
    assert ledger.total.epsilon == pytest.approx(5 * EPSILON)


@pytest.mark.slow  # fast twin: test_cap_stops_threaded_fits_of_clones
def test_cap_stops_fits_on_the_dask_backend(dask_client):
    with pytest.raises(BudgetExceededError), joblib.parallel_backend("dask"):
        with BudgetAccountant(epsilon=1.2) as accountant:
            _fits(5)
    assert accountant.spent.epsilon <= 1.2
