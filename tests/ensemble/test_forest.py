"""RandomForestClassifier: the partition, the budget, the workers and small data."""

import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import skdp.ensemble._forest as forest_module
from skdp import BudgetAccountant, PrivacyLedger
from skdp.ensemble import RandomForestClassifier
from skdp.ensemble._partition import MAX_AUTO_TREES, assign, n_trees
from skdp.exceptions import BudgetExceededError, PrivacyLeakWarning
from skdp.tree import DPDecisionTree

RNG = np.random.default_rng(0)
X = RNG.uniform(0, 4, size=(120, 2))
Y = (X[:, 0] > 2).astype(int)
PUBLIC = {"bounds": (0.0, 4.0), "classes": [0, 1]}


@pytest.fixture
def parts_seen(monkeypatch):
    """The rows each tree is fitted on, in the order the trees are fitted."""
    seen, real = [], DPDecisionTree.fit

    def recording(self, X_part, y_part):
        seen.append((np.asarray(X_part), np.asarray(y_part)))
        return real(self, X_part, y_part)

    monkeypatch.setattr(DPDecisionTree, "fit", recording)
    return seen


@pytest.mark.parametrize("epsilon", [0.1, 0.3, 1.0, 7.0])
@pytest.mark.parametrize("n_estimators", ["auto", 3])
def test_ledger_totals_epsilon_exactly(epsilon, n_estimators):
    model = RandomForestClassifier(n_estimators, epsilon=epsilon, **PUBLIC, random_state=0)
    with PrivacyLedger() as ledger:
        model.fit(X, Y)
    # the forest's shares add up exactly; a DPDecisionTree's own total may be one
    # rounding off its epsilon (0.3 -> 0.30000000000000004): one ulp allowed there
    assert model.epsilon_split_["n_samples"] + model.epsilon_split_["trees"] == epsilon
    assert model.privacy_spent_.epsilon == pytest.approx(epsilon, rel=1e-15, abs=0)
    assert ledger.total == model.privacy_spent_
    assert [tree.privacy_spent_.epsilon for tree in model.estimators_] == pytest.approx(
        [model.epsilon_split_["trees"]] * model.n_estimators_, rel=1e-15, abs=0
    )


def test_every_record_is_in_exactly_one_tree(parts_seen):
    ids = np.column_stack([np.arange(len(X)) / 100.0, X[:, 1]])  # first column: row id
    model = RandomForestClassifier(4, epsilon=2.0, bounds=(0.0, 4.0), classes=[0, 1],
                                   random_state=1).fit(ids, Y)  # fmt: skip
    assert model.n_estimators_ == len(parts_seen) == 4
    # each part: its records, then the one public record (the middles, the first class)
    for rows, labels in parts_seen:
        np.testing.assert_array_equal(rows[-1], [2.0, 2.0])
        assert labels[-1] == 0
    records = np.concatenate([rows[:-1, 0] for rows, _ in parts_seen])
    np.testing.assert_array_equal(np.sort(records), ids[:, 0])


def test_the_partition_reads_no_value_and_a_new_record_moves_no_other():
    first = assign(50, 5, np.random.default_rng(3))
    longer = assign(51, 5, np.random.default_rng(3))
    np.testing.assert_array_equal(longer[:50], first)
    assert set(first) <= set(range(5))


def test_the_partition_is_the_same_for_any_values(parts_seen):
    fit = RandomForestClassifier(3, epsilon=1.0, **PUBLIC, random_state=5)
    fit.fit(X, Y)
    sizes = [len(rows) for rows, _ in parts_seen]
    parts_seen.clear()
    fit.fit(4.0 - X, 1 - Y)
    assert [len(rows) for rows, _ in parts_seen] == sizes


def test_auto_grows_one_tree_on_small_data_and_more_on_large():
    assert n_trees(100, 0.02, 0.98) == 1
    assert n_trees(1, 0.02, 0.98) == 1
    counts = [n_trees(n, 0.02, 0.98) for n in (1e4, 5e4, 1e5, 1e7)]
    assert counts == sorted(counts) and counts[0] < counts[-1] == MAX_AUTO_TREES


def test_default_constructor_learns_iris():
    X_iris, y_iris = load_iris(return_X_y=True)
    model = RandomForestClassifier(classes=[0, 1, 2], random_state=0).fit(X_iris, y_iris)
    assert model.n_estimators_ == 1
    assert model.score(X_iris, y_iris) > 0.8


def test_an_empty_part_still_gives_a_tree():
    model = RandomForestClassifier(10, epsilon=1.0, **PUBLIC, random_state=0)
    model.fit(X[:4], Y[:4])
    assert len(model.estimators_) == 10
    assert model.predict_proba(X).shape == (len(X), 2)


def test_predict_proba_averages_the_trees():
    model = RandomForestClassifier(3, epsilon=50.0, n_levels=1, **PUBLIC, random_state=0).fit(X, Y)
    expected = np.mean([tree.predict_proba(X) for tree in model.estimators_], axis=0)
    np.testing.assert_allclose(model.predict_proba(X), expected)
    np.testing.assert_array_equal(model.predict(X), np.argmax(expected, axis=1))
    assert model.score(X, Y) > 0.8


def test_classes_and_categories_are_read_once_for_the_forest():
    frame = pd.DataFrame({"x": X[:, 0], "colour": np.where(Y == 1, "red", "blue")})
    model = RandomForestClassifier(3, epsilon=5.0, bounds={"x": (0.0, 4.0)}, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(frame, Y)
    leaks = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert len(leaks) == 2  # the classes, then the column's observed values
    assert all(tree.categories == {"colour": ["blue", "red"]} for tree in model.estimators_)
    assert model.predict(frame.iloc[:5]).shape == (5,)


@pytest.mark.parametrize(
    "backend",
    # the same code path: loky only adds worker start-up (~20 s on 2 cores), so -m slow
    ["threading", pytest.param("loky", marks=pytest.mark.slow)],
)
def test_workers_give_the_sequential_forest_and_the_ledger_totals_epsilon(backend):
    sequential = RandomForestClassifier(3, epsilon=1.0, **PUBLIC, random_state=0).fit(X, Y)
    parallel = RandomForestClassifier(3, epsilon=1.0, **PUBLIC, n_jobs=2, random_state=0)
    with joblib.parallel_backend(backend), PrivacyLedger() as ledger:
        parallel.fit(X, Y)
    assert ledger.total.epsilon == 1.0 == parallel.privacy_spent_.epsilon
    np.testing.assert_array_equal(parallel.predict_proba(X), sequential.predict_proba(X))


def test_a_cap_stops_the_forest_before_any_worker_draws_noise(monkeypatch):
    sent = []
    monkeypatch.setattr(forest_module, "_fit_detached", lambda *args: sent.append(args))
    model = RandomForestClassifier(3, epsilon=1.0, **PUBLIC, n_jobs=2, random_state=0)
    with pytest.raises(BudgetExceededError), BudgetAccountant(epsilon=0.5) as accountant:
        model.fit(X, Y)
    assert sent == [] and accountant.spent.epsilon == 0.0


def test_the_forest_builds_one_part_at_a_time():
    # the parts were all built before the first tree (a second copy of X): about 345
    # bytes a record here; one part at a time, about 120
    import tracemalloc

    rng = np.random.default_rng(0)
    X_big = rng.uniform(0, 4, size=(5_000, 10))
    y_big = (X_big[:, 0] > 2).astype(int)
    model = RandomForestClassifier(4, n_levels=2, **PUBLIC, random_state=0)
    tracemalloc.start()
    try:
        model.fit(X_big, y_big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak / len(X_big) < 220
