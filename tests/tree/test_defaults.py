"""DPDecisionTree's defaults: auto depth, scale-free numeric grid, ordered categories,
and tiny or degenerate input."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

from skdp.exceptions import ClippingWarning, PrivacyLeakWarning
from skdp.tree import DPDecisionTree, _maxgddp
from skdp.tree._attributes import SIGNED_GRID, NumericAttribute, OrderedCategoricalAttribute
from skdp.tree._budget import AUTO_MAX, COUNT_SHARE_TREE, Plan, auto_levels, noise_floor, plan
from skdp.tree._release import fit_classifier
from skdp.tree._specialization import Specializer


def _quiet_fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return model.fit(X, y)


@pytest.mark.parametrize("load", [load_iris, load_wine, load_breast_cancer])
@pytest.mark.parametrize("algorithm", ["maxgddp", "diffgen"])
def test_default_constructor_fits_a_dataframe_for_exactly_epsilon(load, algorithm):
    X, y = load(return_X_y=True, as_frame=True)
    with pytest.warns(PrivacyLeakWarning, match="classes=None"):
        model = DPDecisionTree(algorithm, random_state=0).fit(X, y)
    assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)
    assert sum(model.epsilon_split_.values()) == pytest.approx(1.0, rel=1e-12)
    assert model.epsilon_split_["n_samples"] == pytest.approx(COUNT_SHARE_TREE)
    assert 1 <= model.n_levels_ <= AUTO_MAX
    assert model.bounds_ == dict.fromkeys(X.columns, (-np.inf, np.inf))
    # the median of three seeds: on Wine the diffgen tree at epsilon 1 is at the
    # majority rate, and a few percent of seeds pick a minority class instead
    scores = [model.score(X, y)] + [
        _quiet_fit(DPDecisionTree(algorithm, random_state=seed), X, y).score(X, y)
        for seed in (1, 2)
    ]
    assert np.median(scores) >= y.value_counts(normalize=True).max()


def test_auto_levels_is_monotone_clipped_and_defined_at_one_record():
    counts = np.unique(np.geomspace(1, 10**7, 300).astype(int))
    for eps_n, eps_counts, k in [(0.05, 0.475, 2), (0.005, 0.0475, 3), (0.25, 2.4, 10)]:
        levels = [auto_levels(n, eps_n, eps_counts, k) for n in counts]
        assert np.all(np.diff(levels) >= 0)
        assert min(levels) == 1 and max(levels) <= AUTO_MAX
    assert auto_levels(1, 0.05, 0.475, 2) == 1
    # the rule: 10500 - ln(20)/0.05 = 10440 records, 10440 * 0.475 / (4 * 2) = 620 -> 9
    assert auto_levels(10500, 0.05, 0.475, 2) == 9
    assert auto_levels(10500, 0.05, 0.475, 4) == 8  # more classes, fewer levels
    assert auto_levels(10**9, 1.0, 1.0, 2) == AUTO_MAX


def test_auto_depth_grows_with_the_data_and_an_int_is_an_upper_bound():
    X, y = load_iris(return_X_y=True)
    fitted = [
        DPDecisionTree(epsilon=2.0, classes=[0, 1, 2], random_state=0)
        .fit(np.tile(X, (reps, 1)), np.tile(y, reps))
        .n_levels_
        for reps in (1, 10, 100)
    ]
    assert fitted[0] < fitted[1] < fitted[2]
    fixed = DPDecisionTree(n_levels=3, classes=[0, 1, 2], random_state=0).fit(X, y)
    assert fixed.n_levels_ == 3
    assert fixed.epsilon_split_["n_samples"] == pytest.approx(COUNT_SHARE_TREE)
    # a budget too small for any selection: public cuts node by node, two levels of
    # three pieces for three classes, every column cut once on a path (so near the
    # thirds of its root, 8/3 and 16/3), all on labels
    tiny = DPDecisionTree(
        n_levels=5, epsilon=0.1, bounds=(0.0, 8.0), classes=[0, 1, 2], random_state=0
    )
    tiny.fit(X, y)
    assert tiny.n_levels_ == 2 and tiny.epsilon_split_["selection"] == 0.0
    assert tiny.epsilon_split_["labels"] == pytest.approx(0.1 * (1 - COUNT_SHARE_TREE))
    assert len(tiny.cuts_) == 4
    assert all(2.0 <= c["split"][0] <= 3.0 and 5.0 <= c["split"][1] <= 6.0 for c in tiny.cuts_)


def test_selected_depth_never_drops_below_k_minus_one_cuts():
    # 60 noisy records at epsilon 1: 60 - 1/0.05 = 40, 40 * 0.665 / 15 = 1.8 -> 1 level
    # by the selection rule, raised to the K - 1 = 2 cuts that tell 3 classes apart
    assert plan(5, 60, 0.05, 0.95, 0.3, 3).n_levels == 2
    assert plan(5, 60, 0.05, 0.95, 0.3, 2).n_levels == 1
    assert plan(1, 60, 0.05, 0.95, 0.3, 3).n_levels == 1  # an int stays an upper bound
    # "auto" on Iris's 105 rows: the count rule alone gives 1, the floor 2
    assert auto_levels(105, 0.05, 0.285, 3) == 1
    assert plan("auto", 105, 0.05, 0.95, 0.3, 3).n_levels == 2
    # below the selection threshold: the tree of public cuts, three binary levels for
    # two classes, two levels of three pieces for more (an int caps either)
    assert plan(5, 100, 0.005, 0.095, 0.3, 2) == Plan(3, 0.0, True, 1.0)
    assert plan(5, 100, 0.005, 0.095, 0.3, 3) == Plan(2, 0.0, True, 1.0)
    assert plan(5, 100, 0.005, 0.095, 0.3, 10) == Plan(2, 0.0, True, 1.0)
    assert plan(2, 100, 0.005, 0.095, 0.3, 2).n_levels == 2
    assert plan(1, 100, 0.005, 0.095, 0.3, 3).n_levels == 1


def test_the_k_minus_one_floor_gives_its_cells_half_the_budget_for_counts():
    # Iris's 100 rows at epsilon 0.5 in the forest (0.49 for the tree, 10% for its
    # count): the count rule gives one level, the floor two; their 12 counts at 30% of
    # the rest (0.132, noise scale 7.6 on cells of ~33 records) swapped two cells'
    # classes on a parity seed (0.28): the counts now take half
    floor = plan("auto", 100, 0.049, 0.441, 0.3, 3)
    assert floor.n_levels == 2 and floor.selection == pytest.approx(0.441 * 0.5)
    assert plan("auto", 100, 0.049, 0.441, 0.6, 3).selection == pytest.approx(0.441 * 0.4)
    # the count rule allows the floor: the leaf budget as given; an int depth as given
    assert plan("auto", 10_000, 0.1, 0.9, 0.3, 3).selection == pytest.approx(0.9 * 0.7)
    assert plan(2, 100, 0.049, 0.441, 0.3, 3).selection == pytest.approx(0.441 * 0.7)
    # two classes: the floor is one level, which the count rule always allows
    assert plan("auto", 100, 0.049, 0.441, 0.3, 2).selection == pytest.approx(0.441 * 0.7)
    # the scale-free grid's selections keep their share (the fit passes 0)
    unbounded = plan("auto", 100, 0.049, 0.441, 0.3, 3, floor_counts=0.0)
    assert unbounded.selection == pytest.approx(0.441 * 0.7)
    X, y = load_iris(return_X_y=True)
    X = X[:, 2:]  # the petals: two columns keep the fits fast
    tree = DPDecisionTree(epsilon=0.5, bounds=(0.0, 8.0), classes=[0, 1, 2], random_state=0)
    split = tree.fit(X, y).epsilon_split_
    assert split["counts"] > 0.45 * (split["counts"] + split["selection"])  # was 0.3
    split = tree.set_params(bounds=None).fit(X, y).epsilon_split_
    assert split["counts"] < 0.35 * (split["counts"] + split["selection"])


def test_scale_free_candidates_are_public_and_refine_inside_narrow_intervals():
    attribute = NumericAttribute("x", -np.inf, np.inf, 7)
    root = attribute.split_points(0)
    np.testing.assert_array_equal(root, SIGNED_GRID)
    assert 0.0 in root and 2.0**62 in root and -(2.0**-30) in root
    np.testing.assert_allclose(root[root > 0][1:] / root[root > 0][:-1], 2 ** (1 / 4))
    _, high = attribute.specialize(0, 1.0)
    assert attribute.split_points(high)[0] == 2 ** (1 / 4)
    # [1, 2**(1/4)) holds no grid point: 7 even points inside it
    narrow = attribute.specialize(high, 2 ** (1 / 4))[0]
    np.testing.assert_allclose(
        attribute.split_points(narrow), 1 + (2 ** (1 / 4) - 1) * np.arange(1, 8) / 8
    )
    top = NumericAttribute("x", -np.inf, np.inf, 7)
    beyond = top.specialize(0, 2.0**62)[1]
    assert not top.can_specialize(beyond)  # [2**62, inf): nothing left to split
    # the root candidates of two datasets are the same
    rng = np.random.default_rng(0)

    def root_candidates(X, y):
        attributes = [NumericAttribute(f"x{j}", -np.inf, np.inf, 15) for j in range(2)]
        spec = Specializer(attributes, [X[:, 0], X[:, 1]], y, 2, 2**20)
        return _maxgddp.candidates(spec, "max")[0]

    X = rng.normal(size=(50, 2))
    assert root_candidates(X, X[:, 0] > 0) == root_candidates(1e6 * X[:5], np.zeros(5, int))


def test_unbounded_columns_split_where_the_data_lie():
    # a threshold at 3.0e5 is found without any bounds (nearest grid point 2**18.25)
    rng = np.random.default_rng(1)
    income = rng.uniform(1e5, 5e5, 3000)
    X = pd.DataFrame({"income": income, "noise": rng.normal(size=3000)})
    y = (income > 3.0e5).astype(int)
    model = DPDecisionTree(epsilon=1e4, n_levels=3, classes=[0, 1], random_state=0).fit(X, y)
    assert model.cuts_[0]["feature"] == "income"
    assert 2.5e5 < model.cuts_[0]["split"] < 3.5e5
    assert model.score(X, y) > 0.95
    assert model.release_["income"].cat.categories[0].startswith("[-inf")


def test_a_dict_of_bounds_may_declare_some_columns():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(0, 10, 200), "b": rng.uniform(0, 10, 200)})
    y = (X["a"] > 5).astype(int)
    with pytest.warns(ClippingWarning, match="column 'a'"):
        model = DPDecisionTree(bounds={"a": (0.0, 8.0)}, classes=[0, 1], random_state=0).fit(X, y)
    assert model.bounds_ == {"a": (0.0, 8.0), "b": (-np.inf, np.inf)}
    with pytest.raises(ValueError, match=r"bounds names columns that X does not have: \['c'\]"):
        DPDecisionTree(bounds={"c": (0.0, 1.0)}, classes=[0, 1]).fit(X, y)


def test_categories_split_into_ranges_of_their_declared_order():
    values = ["a", "b", "c", "d", "e"]
    attribute = OrderedCategoricalAttribute("letter", values)
    np.testing.assert_array_equal(attribute.split_points(0), [0.5, 1.5, 2.5, 3.5])
    assert attribute.label(0) == "Any"
    left, right = attribute.specialize(0, 1.5)
    assert (attribute.label(left), attribute.label(right)) == ("{a, b}", "{c, d, e}")
    np.testing.assert_array_equal(attribute.split_points(right), [2.5, 3.5])
    assert attribute.label(attribute.specialize(left, 0.5)[1]) == "b"
    np.testing.assert_array_equal(attribute.encode(["e", "a"]), [4.0, 0.0])
    with pytest.raises(ValueError, match=r"not among its declared categories: \['z'\]"):
        attribute.encode(["a", "z"])
    assert not OrderedCategoricalAttribute("one", ["only"]).can_specialize(0)


def test_a_range_in_the_middle_of_the_order_is_isolated():
    # "yes" exactly for d..m: two boundaries (c|d, m|n) isolate it, where a flat
    # fan-out would multiply the cells by 26
    rng = np.random.default_rng(0)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    column = rng.choice(letters, size=3000)
    X = pd.DataFrame({"letter": pd.Categorical(column, categories=letters)})
    y = np.where(np.isin(column, letters[3:13]), "yes", "no")
    model = DPDecisionTree(epsilon=1e4, n_levels=2, classes=["no", "yes"], random_state=0)
    model.fit(X, y)
    assert sorted(c["split"] for c in model.cuts_) == [2.5, 12.5]
    assert model.score(X, y) == 1.0
    assert len(model.release_) == 3 * 2  # three ranges x two classes
    assert set(model.generalize(X)["letter"]) == {
        "{a, b, c}",
        "{" + ", ".join(letters[3:13]) + "}",
        "{" + ", ".join(letters[13:]) + "}",
    }
    flat = {"letter": {"Any": letters}}
    model = DPDecisionTree(epsilon=1e4, n_levels=1, taxonomies=flat, classes=["no", "yes"])
    assert len(model.fit(X, y).release_) == 26 * 2


def test_observed_categories_keep_their_natural_order():
    # codes declared categorical on an array: 2 comes before 10, so one boundary
    # separates codes below 6 from the rest (observed values warn, as before)
    X = np.c_[np.arange(60) % 12, np.zeros(60)]
    y = (X[:, 0] >= 6).astype(int)
    model = DPDecisionTree(
        categorical_features=[0], epsilon=1e4, n_levels=1, classes=[0, 1], random_state=0
    )
    with pytest.warns(PrivacyLeakWarning, match="observed values"):
        model.fit(X, y)
    assert model.cuts_[0]["children"][0] == "{0.0, 1.0, 2.0, 3.0, 4.0, 5.0}"
    assert model.score(X, y) == 1.0


@pytest.mark.parametrize("algorithm", ["maxgddp", "diffgen"])
@pytest.mark.parametrize("n_rows", [1, 2, 3, 5])
def test_tiny_data_never_raises(algorithm, n_rows):
    rng = np.random.default_rng(n_rows)
    X = pd.DataFrame(
        {
            "size": rng.normal(size=n_rows),
            "colour": pd.Categorical(rng.choice(["red", "blue"], n_rows), ["red", "blue"]),
        }
    )
    y = rng.choice(["no", "yes"], n_rows)
    model = DPDecisionTree(algorithm, classes=["no", "yes"], random_state=0).fit(X, y)
    assert model.n_levels_ == 1  # the lower clip of the auto rule
    assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)
    assert set(model.predict(X)) <= {"no", "yes"}
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


@pytest.mark.parametrize("algorithm", ["maxgddp", "diffgen"])
def test_degenerate_columns_and_targets_have_documented_results(algorithm):
    rng = np.random.default_rng(0)
    X = np.column_stack([np.full(60, 3.0), rng.normal(size=60)])  # a constant column
    y = (X[:, 1] > 0).astype(int)
    model = DPDecisionTree(algorithm, classes=[0, 1], random_state=0).fit(X, y)
    assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)
    # an all-equal target: fine with declared classes, a clear error without
    same = DPDecisionTree(algorithm, classes=[0, 1], random_state=0).fit(X, np.zeros(60, int))
    assert set(same.predict(X)) <= {0, 1}
    with pytest.raises(ValueError, match="at least 2 classes; got 1 class"):
        _quiet_fit(DPDecisionTree(algorithm), X, np.zeros(60, int))
    # values beyond the grid stay in its outer intervals
    huge = np.array([[1e300], [-1e300], [5.0], [7.0]])
    fitted = DPDecisionTree(algorithm, classes=[0, 1], random_state=0).fit(huge, [0, 1, 0, 1])
    assert fitted.predict(huge).shape == (4,)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_get_a_clear_error(bad):
    X = pd.DataFrame({"a": np.arange(10.0), "b": np.arange(10.0)})
    X.loc[3, "b"] = bad
    with pytest.raises(ValueError, match="NaN or infinity in column 'b'"):
        DPDecisionTree(classes=[0, 1]).fit(X, np.arange(10) % 2)


@pytest.mark.parametrize("kind", ["tree", "leaf"])
def test_a_one_cut_release_keeps_every_positive_count(kind):
    # Breast cancer at epsilon 0.1, one cut: the noisy counts (malignant, benign) of
    # the two cells were (0, 26) and (124, 51) (true 32 / 228 and 109 / 10). A floor
    # of 70 emptied the first cell whole and the tree on the release called every row
    # malignant (accuracy 0.37); 4 counts are under UNFLOORED_COUNTS: both cells keep
    # their own majority.
    attribute = NumericAttribute("perimeter", 43.0, 189.0, 15)
    before = [list(attribute.cut)]
    attribute.specialize(0, 97.75)
    history = [before, [list(attribute.cut)]]
    counts = np.array([[0, 26], [124, 51]])
    assert noise_floor(0.0265, counts.size, 280.0) == 0.0
    proba, tree, present = fit_classifier(
        kind, [attribute], history, counts, 0.0265, 280.0, np.random.default_rng(0)
    )
    if kind == "tree":
        labels = present[tree.predict(np.array([[0], [1]]))]
    else:
        labels = proba.argmax(axis=1)
    np.testing.assert_array_equal(labels, [1, 0])
    # an empty cell takes the coarser cell's frequencies (not 0 / 0)
    empty, _, _ = fit_classifier(
        "leaf", [attribute], history, np.array([[0, 0], [124, 51]]), 0.0265, 280.0,
        np.random.default_rng(0),
    )  # fmt: skip
    np.testing.assert_allclose(empty[0], [124 / 175, 51 / 175])
    # a larger release keeps its floor
    assert noise_floor(0.0265, 12, 280.0) == pytest.approx(280.0 / 12)
