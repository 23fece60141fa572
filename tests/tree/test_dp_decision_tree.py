"""DPDecisionTree: budgets, full-product release, public candidates, data handling."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning, PrivacyLeakWarning
from skdp.tree import DPDecisionTree, _maxgddp
from skdp.tree._attributes import NumericAttribute
from skdp.tree._budget import COUNT_SHARE_TREE
from skdp.tree._specialization import Specializer

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
IRIS = {"bounds": (0.0, 8.0), "classes": [0, 1, 2]}


def _frame(n=300, seed=0):
    """``yes`` exactly for warm colours (3/4 of the rows) of size above 5."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "black"], size=n)
    size = rng.uniform(0, 10, size=n)
    y = np.where((size > 5) & (colour != "black"), "yes", "no")
    X = pd.DataFrame({"colour": pd.Categorical(colour), "size": size})
    return X, y


TAXONOMY = {"colour": {"Any": [{"warm": ["red", "green", "blue"]}, "black"]}}


@pytest.mark.parametrize("algorithm", ["maxgddp", "diffgen"])
@pytest.mark.parametrize("bounds", [(0.0, 8.0), None])
@pytest.mark.parametrize("n_levels", [4, "auto"])
def test_ledger_measures_exactly_epsilon(algorithm, bounds, n_levels):
    model = DPDecisionTree(
        algorithm, epsilon=5.0, n_levels=n_levels, bounds=bounds, classes=[0, 1, 2],
        random_state=0,
    ).fit(X_IRIS, Y_IRIS)  # fmt: skip
    assert model.privacy_spent_.epsilon == pytest.approx(5.0, rel=1e-12)
    assert sum(model.epsilon_split_.values()) == pytest.approx(5.0, rel=1e-12)
    # every fit releases the count of its depth plan; bounds never cost budget
    assert set(model.epsilon_split_) == {"n_samples", "selection", "counts"}
    assert model.epsilon_split_["n_samples"] == pytest.approx(5.0 * COUNT_SHARE_TREE)


def test_a_fit_inside_an_outer_ledger_is_charged_there():
    with PrivacyLedger() as ledger:
        DPDecisionTree(epsilon=0.5, n_levels=3, **IRIS, random_state=1).fit(X_IRIS, Y_IRIS)
    assert ledger.total.epsilon == pytest.approx(0.5)


def test_every_cell_is_noised_including_empty_ones(monkeypatch):
    import skdp.tree._fit_release as classes_module

    seen = {}
    real = classes_module.geometric

    def spy(value, **kwargs):
        seen["counts"] = np.array(value)
        return real(value, **kwargs)

    monkeypatch.setattr(classes_module, "geometric", spy)
    model = DPDecisionTree(epsilon=1.0, n_levels=6, **IRIS, random_state=0).fit(X_IRIS, Y_IRIS)
    sizes = [len(v) for v in (model.release_[c].cat.categories for c in ["x0", "x1", "x2", "x3"])]
    n_cells = int(np.prod(sizes))
    assert seen["counts"].shape == (n_cells, 3)
    assert len(model.release_) == n_cells * 3
    assert (seen["counts"] == 0).any()  # empty cells exist and went through the noise
    assert seen["counts"].sum() == len(Y_IRIS)
    np.testing.assert_array_equal(
        model.release_["count"].to_numpy() != 0, model.release_["count"] != 0
    )


def test_candidate_split_points_do_not_depend_on_the_data():
    def root_candidates(X, y):
        attributes = [NumericAttribute(f"x{j}", 0.0, 8.0, 7) for j in range(X.shape[1])]
        encoded = [X[:, j] for j in range(X.shape[1])]
        spec = Specializer(attributes, encoded, y, 3, 2**20)
        found, _ = _maxgddp.candidates(spec, "max")
        return found

    rng = np.random.default_rng(0)
    other = np.clip(X_IRIS + rng.normal(0, 1, X_IRIS.shape), 0, 8)
    assert root_candidates(X_IRIS, Y_IRIS) == root_candidates(other, rng.permutation(Y_IRIS))
    assert root_candidates(X_IRIS[:5], Y_IRIS[:5]) == root_candidates(X_IRIS, Y_IRIS)


def test_large_epsilon_recovers_the_non_private_first_split():
    X, _ = _frame(2000)
    y = np.where(X["size"] > 5, "yes", "no")
    model = DPDecisionTree(
        epsilon=1e6, n_levels=1, bounds=(0.0, 10.0), taxonomies=TAXONOMY,
        classes=["no", "yes"], n_split_points=9, random_state=0,
    ).fit(X, y)  # fmt: skip
    # splitting size at 5 separates the classes: the unique best score
    assert model.cuts_[0]["feature"] == "size" and model.cuts_[0]["split"] == 5.0
    X, y = _frame(2000)
    accurate = DPDecisionTree(
        epsilon=1e6, n_levels=2, bounds=(0.0, 10.0), taxonomies=TAXONOMY,
        classes=["no", "yes"], n_split_points=9, random_state=0,
    ).fit(X, y)  # fmt: skip
    assert accurate.score(X, y) == 1.0


def test_max_scores_count_every_cell_so_unused_roots_do_not_win():
    # after splitting x0 at 4, only the interval [4, 8) still mixes classes 1 and 2; an
    # untouched root (x1) covers every record and, scored on its own cells only, would
    # beat the useful split of the narrower interval
    rng = np.random.default_rng(0)
    x0 = np.concatenate([rng.uniform(0, 4, 300), rng.uniform(4, 6, 200), rng.uniform(6, 8, 200)])
    y = np.repeat([0, 1, 2], [300, 200, 200])
    X = np.column_stack([x0, rng.uniform(0, 8, 700)])
    attributes = [NumericAttribute(f"x{j}", 0.0, 8.0, 1) for j in range(2)]
    spec = Specializer(attributes, [X[:, 0], X[:, 1]], y, 3, 2**20)
    spec.specialize(0, 0, 4.0)
    found, scores = _maxgddp.candidates(spec, "max")
    by_candidate = dict(zip(found, scores, strict=True))
    assert by_candidate[(0, 2, 6.0)] == 700  # both halves pure: every record right
    assert spec.correct == 500
    assert by_candidate[(0, 1, 2.0)] == 500  # [0, 4) is pure already: no gain
    assert spec.correct <= by_candidate[(1, 0, 4.0)] < 520  # noise gains a few at most
    model = DPDecisionTree(
        epsilon=1e6, n_levels=2, bounds=(0.0, 8.0), classes=[0, 1, 2], n_split_points=1,
        random_state=0,
    ).fit(X, y)  # fmt: skip
    assert [(c["feature"], c["split"]) for c in model.cuts_] == [("x0", 4.0), ("x0", 6.0)]
    assert model.score(X, y) == 1.0


def test_geometric_level_budgets_follow_the_seed_paper():
    budgets = _maxgddp.level_budgets(1.0, 5, "geometric")
    assert sum(budgets) == pytest.approx(1.0)
    np.testing.assert_allclose(np.diff(np.log(budgets)), np.log(3) / 3)
    assert _maxgddp.level_budgets(1.0, 4, "uniform") == pytest.approx([0.25] * 4)


def test_mixed_dataframe_with_taxonomy_generalizes_and_predicts():
    X, y = _frame()
    model = DPDecisionTree(
        epsilon=5.0, n_levels=3, bounds={"size": (0.0, 10.0)}, taxonomies=TAXONOMY,
        classes=["no", "yes"], random_state=0,
    ).fit(X, y)  # fmt: skip
    assert list(model.release_.columns) == ["colour", "size", "class", "count"]
    general = model.generalize(X.head(3))
    assert list(general.columns) == ["colour", "size"]
    assert set(general["colour"]) <= {"Any", "warm", "red", "green", "blue", "black"}
    assert model.transform(X).shape == (len(X), 2)
    assert set(model.predict(X)) <= {"no", "yes"}
    assert model.score(X, y) > 0.6


@pytest.mark.parametrize("classifier", ["tree", "leaf"])
def test_both_post_processing_classifiers_learn_iris(classifier):
    scores = [
        DPDecisionTree(epsilon=20.0, n_levels=4, classifier=classifier, **IRIS, random_state=s)
        .fit(X_IRIS, Y_IRIS)
        .score(X_IRIS, Y_IRIS)
        for s in range(3)
    ]
    assert np.mean(scores) > 0.85
    proba = (
        DPDecisionTree(classifier=classifier, **IRIS, random_state=0)
        .fit(X_IRIS, Y_IRIS)
        .predict_proba(X_IRIS)
    )
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_observed_categories_and_classes_warn():
    X, y = _frame()
    X = X.astype({"colour": object})
    with pytest.warns(PrivacyLeakWarning, match="observed values"):
        DPDecisionTree(bounds=(0.0, 10.0), classes=["no", "yes"]).fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="classes=None"):
        DPDecisionTree(
            bounds=(0.0, 10.0), categories={"colour": ["red", "green", "blue", "black"]}
        ).fit(X, y)


def test_bad_input_gets_a_clear_error():
    X, y = _frame()
    public = {"bounds": (0.0, 10.0), "classes": ["no", "yes"]}
    missing = X.copy()
    missing.loc[0, "colour"] = np.nan
    with pytest.raises(ValueError, match="'colour' has missing values"):
        DPDecisionTree(**public).fit(missing, y)
    with pytest.raises(ValueError, match=r"not leaves of its taxonomy: \['black'\]"):
        DPDecisionTree(**public, taxonomies={"colour": {"Any": ["red", "green", "blue"]}}).fit(
            X, y
        )
    with pytest.raises(ValueError, match=r"labels not in classes: \['yes'\]"):
        DPDecisionTree(bounds=(0.0, 10.0), classes=["no", "maybe"]).fit(X, y)
    with pytest.raises(ValueError, match="unknown columns"):
        DPDecisionTree(**public, categories={"shape": ["round"]}).fit(X, y)
    numbers = X.assign(size=X["size"].where(X.index != 3, np.inf))
    with pytest.raises(ValueError, match="NaN or infinity in column 'size'"):
        DPDecisionTree(**public).fit(numbers, y)


def test_values_outside_public_bounds_are_clipped_with_a_warning():
    with pytest.warns(ClippingWarning, match="lay outside the public bounds"):
        DPDecisionTree(bounds=(0.0, 5.0), classes=[0, 1, 2], random_state=0).fit(X_IRIS, Y_IRIS)


def test_max_cells_caps_the_release():
    model = DPDecisionTree(n_levels=12, max_cells=48, **IRIS, random_state=0).fit(X_IRIS, Y_IRIS)
    assert len(model.release_) <= 48
    assert model.n_levels_ < 12
    assert model.privacy_spent_.epsilon == pytest.approx(1.0)


def test_stopping_early_gives_the_unused_selection_budget_to_the_counts():
    # 200 records: enough for the selected regime (20 would take the small-budget one)
    X = np.array([[0.0], [1.0]] * 100)
    y = np.array([0, 1] * 100)
    model = DPDecisionTree(
        n_levels=5, n_split_points=1, max_cells=4, bounds=(0.0, 2.0), classes=[0, 1],
        random_state=0,
    ).fit(X, y)  # fmt: skip
    assert model.n_levels_ == 1
    assert model.epsilon_split_["counts"] > 0.5
    assert model.privacy_spent_.epsilon == pytest.approx(1.0)


@pytest.mark.parametrize("algorithm", ["maxgddp", "diffgen"])
@pytest.mark.filterwarnings("ignore")
def test_more_features_than_numpy_has_dimensions(algorithm):
    """The cell table has one dimension per attribute: 80 is past numpy's 64 (32 on numpy 1)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 80))
    y = (X[:, 0] > 0).astype(int)
    model = DPDecisionTree(algorithm=algorithm, epsilon=5.0, random_state=0).fit(X, y)
    assert model.predict_proba(X).shape == (3000, 2)
    assert model.score(X, y) > 0.8  # the informative first feature is found
