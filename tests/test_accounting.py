"""PrivacyBudget, the ledger, parallel composition, the accountant and privacy_spent."""

import math
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from skdp import (
    BudgetAccountant,
    BudgetExceededError,
    PrivacyBudget,
    PrivacyLeakWarning,
    PrivacyLedger,
    privacy_spent,
)
from skdp.accounting import parallel_composition, record_spend
from skdp.mechanisms import geometric, laplace
from tests._estimators import NoisyMeanRegressor

X = np.random.default_rng(0).uniform(size=(60, 2))
Y = X[:, 0]


def _model(epsilon=1.0):
    return NoisyMeanRegressor(epsilon=epsilon, bounds_y=(0, 1), random_state=0)


# PrivacyBudget -------------------------------------------------------------------------


def test_budget_arithmetic():
    total = PrivacyBudget(0.5, 1e-6) + PrivacyBudget(0.25) + 0.25
    assert total == PrivacyBudget(1.0, 1e-6)
    assert 3 * PrivacyBudget(0.5) == PrivacyBudget(1.5)
    assert sum([PrivacyBudget(0.1)] * 10).fits_within(1.0)
    assert not PrivacyBudget(1.01).fits_within(1.0)


@pytest.mark.parametrize(
    ("epsilon", "delta", "match"),
    [(-1, 0, "epsilon"), (math.nan, 0, "epsilon"), (1, 2, "delta"), (1, -0.1, "delta")],
)
def test_budget_rejects_invalid(epsilon, delta, match):
    with pytest.raises(ValueError, match=match):
        PrivacyBudget(epsilon, delta)


# ledger ----------------------------------------------------------------------------------


def test_ledger_records_every_mechanism_call_in_order():
    with PrivacyLedger() as ledger:
        laplace(1.0, sensitivity=1, epsilon=0.25, random_state=0)
        geometric([1, 2], epsilon=0.5, random_state=0)
    assert [e.mechanism for e in ledger.entries] == ["laplace", "geometric"]
    assert ledger.total == PrivacyBudget(0.75)


def test_nested_ledgers_both_see_calls():
    with PrivacyLedger() as outer:
        geometric(1, epsilon=0.5, random_state=0)
        with PrivacyLedger() as inner:
            geometric(1, epsilon=0.25, random_state=0)
    assert inner.total.epsilon == 0.25
    assert outer.total.epsilon == 0.75


def test_parallel_composition_counts_the_maximum_branch():
    with PrivacyLedger() as ledger:
        with parallel_composition() as group:
            for epsilon in (0.5, 0.25, 0.75):
                with group.branch():
                    geometric(1, epsilon=epsilon / 3, random_state=0)
                    geometric(1, epsilon=2 * epsilon / 3, random_state=0)
            geometric(1, epsilon=0.1, random_state=0)  # a branch of its own
        geometric(1, epsilon=1.0, random_state=0)
    assert ledger.total.epsilon == pytest.approx(1.75)
    assert len(ledger.entries) == 8


# spends whose running sums round: increments (new - old) passed up from the inner frame
# made the outer total differ from ``prior + inner`` in the last bit
ROUNDING_SPENDS = (0.283, 0.09, 0.954, 0.677)


def test_an_outer_ledger_sees_an_inner_total_to_the_last_bit():
    with PrivacyLedger() as outer:
        record_spend(0.7, mechanism="prior")
        with PrivacyLedger() as inner:
            for spend in ROUNDING_SPENDS:
                record_spend(spend, mechanism="m")
    assert outer.total.epsilon == 0.7 + inner.total.epsilon


def test_a_parallel_block_adds_its_maximum_to_the_last_bit():
    spends = (0.724, 0.171, 0.491, 0.499)
    with PrivacyLedger() as outer:
        record_spend(0.7, mechanism="prior")
        with parallel_composition() as group:
            for part in range(3):
                with group.branch():
                    for spend in spends:
                        record_spend(spend * (part + 1) / 3, mechanism="m")
    assert outer.total.epsilon == 0.7 + group.total.epsilon


def test_branch_outside_its_block_is_refused():
    with parallel_composition() as group, PrivacyLedger():
        with pytest.raises(RuntimeError, match="directly inside"):
            with group.branch():
                pass


def test_a_ledger_cannot_be_entered_twice():
    ledger = PrivacyLedger()
    with ledger:
        with pytest.raises(RuntimeError, match="already active"):
            ledger.__enter__()


def test_calls_outside_any_ledger_are_not_an_error():
    record_spend(1.0, mechanism="test")


# accountant ------------------------------------------------------------------------------


def test_accountant_spend_and_remaining():
    accountant = BudgetAccountant(epsilon=1.0)
    accountant.spend(0.4)
    accountant.spend(PrivacyBudget(0.6))
    assert accountant.spent.epsilon == pytest.approx(1.0)
    assert accountant.remaining.epsilon == pytest.approx(0.0)
    with pytest.raises(BudgetExceededError, match="past its cap"):
        accountant.spend(0.01)
    assert accountant.spent.epsilon == pytest.approx(1.0), "a refused spend is not recorded"


def test_accountant_context_refuses_before_noise_is_drawn():
    accountant = BudgetAccountant(epsilon=1.0)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with accountant:
        geometric(5, epsilon=0.75, random_state=0)
        with pytest.raises(BudgetExceededError):
            laplace(1.0, sensitivity=1, epsilon=0.5, random_state=rng)
    assert rng.bit_generator.state == state, "noise was drawn before the refusal"
    assert accountant.spent.epsilon == pytest.approx(0.75)


def test_accountant_cap_applies_to_a_whole_fit():
    accountant = BudgetAccountant(epsilon=1.5)
    with accountant:
        _model(1.0).fit(X, Y)
        with pytest.raises(BudgetExceededError):
            _model(1.0).fit(X, Y)
    assert accountant.spent.epsilon <= 1.5


# privacy_spent ---------------------------------------------------------------------------


def test_privacy_spent_of_estimator_and_pipeline():
    model = _model(0.5).fit(X, Y)
    assert privacy_spent(model) == PrivacyBudget(0.5)
    pipe = make_pipeline(FunctionTransformer(), _model(0.75)).fit(X, Y)
    assert privacy_spent(pipe) == PrivacyBudget(0.75)


def test_non_private_step_costs_infinity_with_a_warning():
    pipe = make_pipeline(StandardScaler(), _model()).fit(X, Y)
    with pytest.warns(PrivacyLeakWarning, match="StandardScaler"):
        assert privacy_spent(pipe).epsilon == math.inf


def test_unfitted_estimator_is_an_error():
    with pytest.raises(ValueError, match="not fitted"):
        privacy_spent(_model())


def test_privacy_spent_rejects_unknown_objects():
    with pytest.raises(TypeError):
        privacy_spent("epsilon")


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grid_search_over_epsilon_counts_every_fit(n_jobs):
    """Every (candidate, fold) fit plus the refit, also across worker processes."""
    grid = [0.25, 0.5, 1.0]
    search = GridSearchCV(_model(), {"epsilon": grid}, cv=3, n_jobs=n_jobs).fit(X, Y)
    expected = 3 * sum(grid) + search.best_estimator_.epsilon
    assert privacy_spent(search).epsilon == pytest.approx(expected)
    accountant = BudgetAccountant(epsilon=expected)
    accountant.spend(search)
    with pytest.raises(BudgetExceededError):
        BudgetAccountant(epsilon=expected - 0.1).spend(search)


def test_grid_search_measured_in_process_matches_privacy_spent():
    """The ledger around an n_jobs=1 search sees exactly what privacy_spent reports."""
    with PrivacyLedger() as ledger:
        search = GridSearchCV(_model(), {"epsilon": [0.5, 2.0]}, cv=2).fit(X, Y)
    assert ledger.total.epsilon == pytest.approx(privacy_spent(search).epsilon)


def test_pipeline_search_uses_step_parameters():
    pipe = make_pipeline(FunctionTransformer(), _model())
    param_grid = {"noisymeanregressor__epsilon": [0.5, 1.0]}
    search = GridSearchCV(pipe, param_grid, cv=2, refit=False).fit(X, Y)
    assert privacy_spent(search).epsilon == pytest.approx(2 * 1.5)


def test_clone_and_cross_validation_keep_the_spend_measurable():
    model = _model(0.5)
    assert not hasattr(clone(model.fit(X, Y)), "privacy_spent_"), "clone starts unspent"
    with PrivacyLedger() as ledger:
        cross_val_score(model, X, Y, cv=4)
    assert ledger.total.epsilon == pytest.approx(4 * 0.5)
    results = cross_validate(model, X, Y, cv=4, n_jobs=2, return_estimator=True)
    assert privacy_spent(results).epsilon == pytest.approx(4 * 0.5)


def test_stateless_steps_cost_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert privacy_spent(make_pipeline(FunctionTransformer())).epsilon == 0


def test_encoders_given_their_categories_cost_nothing():
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    colours = np.array([["red"], ["blue"], ["red"]])
    for encoder in (OneHotEncoder, OrdinalEncoder):
        public = encoder(categories=[["blue", "red", "green"]]).fit(colours)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert privacy_spent(make_column_transformer((public, [0]))).epsilon == 0
        for learnt in (encoder(), encoder(categories=[["blue", "red"]], max_categories=2)):
            learnt.fit(colours)
            with pytest.warns(PrivacyLeakWarning, match=encoder.__name__):
                assert privacy_spent(learnt).epsilon == math.inf
