"""PrivateGridSearchCV / PrivateRandomizedSearchCV: accounting, releases, integration."""

import math
import warnings

import numpy as np
import pytest
from joblib import parallel_config
from scipy.stats import chisquare
from sklearn.datasets import load_iris
from sklearn.model_selection import cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler as SklearnScaler

import skdp.model_selection._repetitions as repetitions_module
import skdp.model_selection._runs as runs_module
from skdp import BudgetAccountant, PrivacyLedger, privacy_spent
from skdp.accounting import PrivacyBudget
from skdp.exceptions import BudgetExceededError
from skdp.linear_model import ObjectivePerturbationLogistic
from skdp.model_selection import PrivateGridSearchCV, PrivateRandomizedSearchCV
from skdp.model_selection._repetitions import run_law
from skdp.model_selection._runs import split_rows
from skdp.naive_bayes import GaussianNB
from skdp.preprocessing import StandardScaler
from tests.model_selection._stubs import ConstantClassifier

X, Y = load_iris(return_X_y=True)
NB = GaussianNB(bounds=(0.0, 8.0), classes=[0, 1, 2])
NB_GRID = {"var_smoothing": [1e-4, 1e-3, 1e-2, 1e-1]}
ALLOWED = {"params", "mean_test_score", "rank_test_score", "noisy_correct_count"}
ALLOWED |= {"noisy_incorrect_count"}


def _grid(size):
    return {"var_smoothing": list(np.geomspace(1e-4, 0.5, size))}


@pytest.mark.parametrize("size", [2, 12, 48])
@pytest.mark.parametrize(
    ("repetitions", "factor"),
    [("geometric", 3.0), ("logarithmic", 2.0), (("negative_binomial", -0.5), 1.5)],
)
def test_privacy_spent_is_the_theorem_bound(size, repetitions, factor):
    search = PrivateGridSearchCV(
        NB, _grid(size), epsilon=1.5, n_iter=3, repetitions=repetitions, random_state=0
    )
    with PrivacyLedger() as ledger:
        search.fit(X, Y)
    assert search.epsilon_run_ == pytest.approx(1.5 / factor, rel=1e-12)
    assert search.repetitions_["factor"] == factor
    bound = PrivacyBudget(factor * search.epsilon_run_)
    assert math.isclose(ledger.total.epsilon, bound.epsilon, rel_tol=1e-12)
    assert privacy_spent(search) == search.privacy_spent_ == ledger.total
    assert search.best_estimator_.epsilon == pytest.approx(search.epsilon_run_)


def test_cv_results_hold_the_winner_only_and_no_exact_score():
    search = PrivateGridSearchCV(NB, NB_GRID, epsilon=3.0, random_state=0).fit(X, Y)
    assert set(search.cv_results_) == ALLOWED | {"param_var_smoothing"}
    assert all(len(v) == 1 for v in search.cv_results_.values())
    correct = search.cv_results_["noisy_correct_count"][0]
    wrong = search.cv_results_["noisy_incorrect_count"][0]
    assert search.best_score_ == search.cv_results_["mean_test_score"][0]
    assert search.best_score_ == max(correct, 0) / max(max(correct, 0) + max(wrong, 0), 1)
    assert not hasattr(search, "n_splits_") and search.best_index_ == 0


def test_released_counts_are_noisy_not_exact():
    """Same fit part and model (a stub), fresh noise: the released counts vary."""
    y = np.r_[np.zeros(50, dtype=int), np.ones(50, dtype=int)]
    counts = {
        PrivateGridSearchCV(
            ConstantClassifier(label=1), {"label": [1, 1]}, epsilon=1.0, random_state=seed
        )
        .fit(np.zeros((100, 1)), y)
        .cv_results_["noisy_correct_count"][0]
        for seed in range(10)
    }
    assert len(counts) > 3


def test_a_run_releases_the_margin_and_the_size_and_the_search_ranks_by_the_margin(
    monkeypatch,
):
    """c - i at 0.9 epsilon_run (sharp ranking), c + i at 0.1 (the accuracy only)."""
    calls, noise = [], iter([0, 0, 50, -40])  # run 1: margin, size; run 2: margin, size

    def recorded(value, *, epsilon, random_state=None):
        calls.append((int(value), epsilon))
        return int(value) + next(noise)

    monkeypatch.setattr(runs_module, "geometric", recorded)
    monkeypatch.setattr(PrivateGridSearchCV, "_expected_runs", lambda self, size: 2.0)
    monkeypatch.setattr(repetitions_module, "truncated_negative_binomial", lambda *a, **k: 2)
    y = np.r_[np.zeros(30, dtype=int), np.ones(10, dtype=int)]
    search = PrivateGridSearchCV(
        ConstantClassifier(), {"label": [0, 1]}, epsilon=1.5, validation_fraction=0.999,
        repetitions="logarithmic", random_state=3,
    ).fit(np.zeros((40, 1)), y)  # fmt: skip
    (m1, e1), (s1, f1), (m2, e2), (s2, f2) = calls
    assert e1 == e2 == pytest.approx(0.9 * 0.75) and f1 == f2 == pytest.approx(0.1 * 0.75)
    assert abs(m1) == abs(m2) == 20 and s1 == s2 == 40  # 30 against 10, either way round
    # the noise lifts run 2's margin by 50: it wins, whatever its candidate
    correct, wrong = (s2 - 40 + m2 + 50) / 2, (s2 - 40 - m2 - 50) / 2
    assert search.cv_results_["noisy_correct_count"][0] == correct
    assert search.cv_results_["noisy_incorrect_count"][0] == wrong
    assert search.best_score_ == max(correct, 0) / max(max(correct, 0) + max(wrong, 0), 1)


def test_one_candidate_is_fitted_on_every_row_with_the_whole_budget():
    """Nothing to select: no validation part, no score, the default's full budget."""
    y = np.r_[np.zeros(50, dtype=int), np.ones(50, dtype=int)]
    search = PrivateGridSearchCV(ConstantClassifier(label=1), epsilon=2.0, random_state=0)
    with PrivacyLedger() as ledger:
        search.fit(np.zeros((100, 1)), y)
    assert search.best_estimator_.n_rows_seen_ == 100
    assert search.best_estimator_.epsilon == 2.0 == ledger.total.epsilon
    assert math.isnan(search.best_score_) and "noisy_correct_count" not in search.cv_results_


def test_a_run_that_spends_more_than_its_epsilon_is_refused():
    overspending = ConstantClassifier(label=1, spend=2.0)
    search = PrivateGridSearchCV(overspending, {"label": [0, 1]}, random_state=0)
    with pytest.raises(BudgetExceededError, match="epsilon_run"):
        search.fit(np.zeros((40, 1)), np.arange(40) % 2)


def test_the_cap_is_checked_before_any_run():
    overspending = ConstantClassifier(label=1, spend=2.0)  # would raise if it ran
    search = PrivateGridSearchCV(overspending, {"label": [0, 1]}, epsilon=2.0, random_state=0)
    with BudgetAccountant(epsilon=1.0), pytest.raises(BudgetExceededError, match="cap"):
        search.fit(np.zeros((40, 1)), np.arange(40) % 2)


def test_pipeline_candidates_keep_their_ratio_and_refit_full_is_counted():
    pipe = make_pipeline(
        StandardScaler(bounds=(0.0, 8.0)), ObjectivePerturbationLogistic(data_norm=3.0)
    )
    grid = {"objectiveperturbationlogistic__C": [0.1, 1.0, 10.0]}
    search = PrivateGridSearchCV(
        pipe, grid, epsilon=4.0, refit="full", classes=[0, 1, 2], random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, Y)
    assert search.epsilon_split_ == pytest.approx({"selection": 3.0, "refit": 1.0})
    model = search.best_estimator_
    params = model.get_params()
    assert params["standardscaler__epsilon"] == pytest.approx(0.5)
    assert params["objectiveperturbationlogistic__epsilon"] == pytest.approx(0.5)
    assert params["objectiveperturbationlogistic__classes"] == [0, 1, 2]
    assert privacy_spent(search) == PrivacyBudget(4.0) == privacy_spent(model) + 3.0


def test_inside_a_pipeline_and_under_cross_validate():
    pipe = make_pipeline(
        StandardScaler(bounds=(0.0, 8.0), epsilon=0.5),
        PrivateGridSearchCV(
            NB.set_params(bounds=(-4.0, 4.0)), NB_GRID, n_iter=2, random_state=0
        ),  # two runs on average: the integration, not the selection, is tested here
    )
    pipe.fit(X, Y)
    assert privacy_spent(pipe) == PrivacyBudget(1.5)
    assert pipe.predict(X).shape == (150,) and pipe.score(X, Y) > 0.3
    with PrivacyLedger() as ledger:
        result = cross_validate(pipe, X, Y, cv=3, return_estimator=True)
    assert privacy_spent(result) == ledger.total == PrivacyBudget(4.5)
    assert np.all(result["test_score"] > 0.3)


def test_searching_epsilon_is_charged_at_the_largest_value():
    search = PrivateGridSearchCV(NB, {"epsilon": [0.25, 1.0]}, epsilon=5.0, random_state=0)
    with pytest.warns(UserWarning, match="largest candidate epsilon"):
        search.fit(X, Y)
    assert search.privacy_spent_ == PrivacyBudget(3.0)
    assert search.best_params_["epsilon"] in (0.25, 1.0)
    with pytest.warns(UserWarning, match="largest"):  # the refit too, whichever wins
        search.set_params(refit="full").fit(X, Y)
    assert search.privacy_spent_ == PrivacyBudget(4.0)
    assert search.best_estimator_.epsilon == search.best_params_["epsilon"]
    with pytest.raises(ValueError, match="more than epsilon"):
        search.set_params(epsilon=2.0).fit(X, Y)


def test_parallel_runs_match_sequential_runs():
    """joblib threads have no context: each run's detached ledger still measures it."""
    search = PrivateGridSearchCV(NB, NB_GRID, epsilon=3.0, random_state=0)
    sequential = search.fit(X, Y).cv_results_
    with PrivacyLedger() as ledger, parallel_config(backend="threading"):
        parallel = search.set_params(n_jobs=2).fit(X, Y).cv_results_
    assert parallel["params"] == sequential["params"]
    assert parallel["noisy_correct_count"] == sequential["noisy_correct_count"]
    assert ledger.total == PrivacyBudget(3.0)


def test_randomized_search_draws_from_distributions():
    from scipy.stats import loguniform

    search = PrivateRandomizedSearchCV(
        NB, {"var_smoothing": loguniform(1e-4, 1e-1)}, epsilon=2.0, n_iter=5, random_state=0
    ).fit(X, Y)
    assert 1e-4 <= search.best_params_["var_smoothing"] <= 1e-1
    assert search.privacy_spent_ == PrivacyBudget(2.0)
    assert search.repetitions_["mean"] == 5


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"repetitions": "poisson"}, "Poisson"),
        ({"repetitions": ("negative_binomial", -0.999)}, "cannot reach"),
        ({"scoring": "roc_auc"}, "scoring"),
        (
            {
                "estimator": make_pipeline(SklearnScaler(), NB),
                "param_grid": {"gaussiannb__var_smoothing": [0.1, 0.2]},
            },
            "without differential privacy",
        ),
        ({"refit": "full", "refit_epsilon": 3.0}, "leaves nothing"),
    ],
)
def test_refusals(params, match):
    search = PrivateGridSearchCV(NB, NB_GRID, epsilon=3.0, random_state=0).set_params(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=match):
            search.fit(X, Y)


def test_the_number_of_runs_is_drawn_through_skdp_mechanisms(monkeypatch):
    """The search's K sampler is the mechanism (architecture: noise only there)."""
    calls = []

    def recorded(eta, gamma, *, random_state=None):
        calls.append((eta, gamma))
        return 3

    monkeypatch.setattr(repetitions_module, "truncated_negative_binomial", recorded)
    law = run_law(("negative_binomial", 0.5), 4.0)
    assert law.sample(np.random.default_rng(0)) == 3
    assert calls == [(0.5, law.gamma)] and abs(law.expected_runs() - 4.0) < 1e-9


def test_candidates_are_drawn_uniformly():
    grid = {"label": [0, 1, 2, 3]}
    space = PrivateGridSearchCV(ConstantClassifier(), grid)._space()
    rng = np.random.default_rng(0)
    drawn = [space.draw(rng)["label"] for _ in range(4000)]
    assert chisquare(np.bincount(drawn, minlength=4)).pvalue > 1e-3


def test_the_split_reads_no_data_and_an_added_row_moves_no_other_row():
    first = split_rows(100, 0.2, np.random.default_rng(7))
    second = split_rows(101, 0.2, np.random.default_rng(7))
    assert np.array_equal(first, second[:100])
    assert 0.1 < first.mean() < 0.3


@pytest.mark.slow  # a dask round trip per run: 38 s on the loaded 2-core machine
def test_runs_on_the_dask_backend_are_measured_where_they_run(dask_client):
    """Each run's ledger lives in the worker process; the search charges the bound once."""
    search = PrivateGridSearchCV(NB, NB_GRID, epsilon=3.0, random_state=0)
    local = search.fit(X, Y).cv_results_
    with PrivacyLedger() as ledger, parallel_config(backend="dask"):
        remote = search.set_params(n_jobs=-1).fit(X, Y).cv_results_
    assert ledger.total == search.privacy_spent_ == PrivacyBudget(3.0)
    assert remote["params"] == local["params"]
    assert remote["noisy_correct_count"] == local["noisy_correct_count"]
