"""Empirical privacy audit of DPDecisionTree on a tiny dataset and its neighbour.

The released statistic combines the chosen split point and one noisy cell count, so an
event can catch a leak in either. A mutated tree (counts noised for 4x the budget) sits
next to the correct one to show that the audit bites.
"""

import numpy as np
import pytest

import skdp.tree._budget as budget
import skdp.tree._fit_release as tree_module
from skdp.tree import DPDecisionTree
from skdp.utils._audit import audit

EPSILON = 1.0
X = np.array([[0.5], [1.5], [2.5], [3.5], [0.7], [3.2], [1.2]])
Y = np.array([0, 0, 1, 1, 0, 1, 1])
FIRST, SECOND = (X, Y), (X[:-1], Y[:-1])  # add/remove the last record


def fit_and_release(algorithm):
    def release(data, rng):
        model = DPDecisionTree(
            algorithm, epsilon=EPSILON, n_levels=1, n_split_points=3, bounds=(0.0, 4.0),
            classes=[0, 1], classifier="leaf", leaf_budget=0.9, random_state=rng,
        ).fit(*data)  # fmt: skip
        count = model.release_["count"].iloc[1]  # first cell, class 1
        return 100.0 * model.cuts_[0]["split"] + np.clip(count, -40, 40)

    return release


@pytest.fixture
def selected_regime(monkeypatch):
    # seven records would take the small-budget regime (audited below); the plan is a
    # function of the noisy count and public values, so fixing it keeps the audit exact.
    # leaf_budget=0.9 puts most of epsilon on the counts, where the mutant under-noises
    monkeypatch.setattr(budget, "FREE_BELOW", 0.0)


def audit_tree(algorithm, n_search=200, n_samples=1000, random_state=0):
    return audit(
        fit_and_release(algorithm), FIRST, SECOND, epsilon=EPSILON,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


@pytest.mark.parametrize("algorithm", ["maxgddp", "diffgen"])
def test_tree_passes_audit(algorithm, selected_regime):
    result = audit_tree(algorithm, n_search=100, n_samples=500)
    assert result.passed, str(result)


def test_audit_flags_a_tree_that_under_noises_its_counts(monkeypatch, selected_regime):
    real = tree_module.geometric

    def too_little_noise(value, *, epsilon, **kwargs):
        return real(value, epsilon=4 * epsilon, **kwargs)

    monkeypatch.setattr(tree_module, "geometric", too_little_noise)
    result = audit_tree("maxgddp")
    assert not result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["maxgddp", "diffgen"])
def test_tree_passes_large_audit(algorithm, selected_regime):
    result = audit_tree(algorithm, n_search=5000, n_samples=25000, random_state=1)
    assert result.passed, str(result)


# MAXGDDP's first two levels chosen as one pair (skdp.tree._lookahead): the audited
# release is the pair itself, from the selection alone
def select_pair(epsilon_scale=1.0):
    from skdp.tree._attributes import NumericAttribute
    from skdp.tree._maxgddp import grow
    from skdp.tree._specialization import Specializer

    def release(data, rng):
        spec = Specializer([NumericAttribute("x", 0.0, 4.0, 3)], data[0], data[1], 2, 2**20)
        budget = EPSILON * epsilon_scale / 2
        grow(spec, budgets=[budget, budget], score="max", sensitivity=1.0,
             noise="exponential", rng=rng, pair=lambda m: True)  # fmt: skip
        (_, _, first, _), (_, _, second, _) = spec.history
        return 10.0 * first + second

    return release


# a pair release builds the tree twice over (about 6 ms): 1,200 releases per dataset keep
# each audit near 10 s on one core; the 6x mutant is still flagged
# (counts about 320 to 1). The large run is behind -m slow.
def test_pair_selection_passes_audit():
    result = audit(select_pair(), FIRST, SECOND, epsilon=EPSILON, n_search=100,
                   n_samples=500, random_state=0)  # fmt: skip
    assert result.passed, str(result)


def test_audit_flags_a_pair_selection_on_too_much_budget():
    result = audit(select_pair(6.0), FIRST, SECOND, epsilon=EPSILON, n_search=200,
                   n_samples=1000, random_state=0)  # fmt: skip
    assert not result.passed, str(result)


@pytest.mark.slow
def test_pair_selection_passes_large_audit():
    result = audit(select_pair(), FIRST, SECOND, epsilon=EPSILON, n_search=2000,
                   n_samples=10000, random_state=1)  # fmt: skip
    assert result.passed, str(result)


# the small-budget regime (skdp.tree._random_cuts): four records put the neighbour's
# leaf at counts (1, 1) against (1, 0), where permute-and-flip's ratio is exactly e**eps
# (the cut is drawn from 4/3, 2 and 8/3, the middle half of five candidates: at 2 or 8/3,
# two fits in three, the removed row at 1.5 shares the left leaf with the row at 0.5).
# The release is the prediction at a point of each leaf (either regime, as the noisy
# count picks one: the selected one on about 6% of fits here).
SMALL_X = np.array([[0.5], [3.0], [3.5], [1.5]])
SMALL_Y = np.array([0, 1, 1, 1])


def predict_small():
    def release(data, rng):
        model = DPDecisionTree(
            epsilon=EPSILON, n_levels=1, n_split_points=5, bounds=(0.0, 4.0),
            classes=[0, 1], random_state=rng,
        ).fit(*data)  # fmt: skip
        low, high = model.predict([[1.0], [3.0]])
        return 2.0 * low + high

    return release


def audit_small(monkeypatch=None, label_scale=1.0, n_search=200, n_samples=1000):
    if label_scale != 1.0:
        import skdp.tree._random_cuts as random_cuts

        real = random_cuts.permute_and_flip

        def too_much_budget(scores, *, epsilon, **kwargs):
            return real(scores, epsilon=label_scale * epsilon, **kwargs)

        monkeypatch.setattr(random_cuts, "permute_and_flip", too_much_budget)
    data = (SMALL_X, SMALL_Y), (SMALL_X[:-1], SMALL_Y[:-1])
    return audit(predict_small(), *data, epsilon=EPSILON, n_search=n_search,
                 n_samples=n_samples, random_state=0)  # fmt: skip


def test_small_budget_tree_passes_audit():
    result = audit_small(n_search=100, n_samples=500)
    assert result.passed, str(result)


def test_audit_flags_small_budget_labels_on_too_much_budget(monkeypatch):
    result = audit_small(monkeypatch, label_scale=4.0)
    assert not result.passed, str(result)


@pytest.mark.slow
def test_small_budget_tree_passes_large_audit():
    result = audit_small(n_search=2000, n_samples=10000)
    assert result.passed, str(result)
