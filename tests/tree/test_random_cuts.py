"""DPDecisionTree's small-budget regime: public cuts node by node, one label per leaf."""

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import skdp.tree._budget as budget
from skdp.tree import DPDecisionTree

IRIS_BOUNDS = {0: (4.0, 8.0), 1: (2.0, 4.5), 2: (1.0, 7.0), 3: (0.0, 3.0)}
TAXONOMY = {"colour": {"Any": [{"warm": ["red", "orange"]}, {"cold": ["blue", "green"]}]}}


def iris_tree(two_classes=False, **params):
    X, y = load_iris(return_X_y=True)
    if two_classes:  # versicolor and virginica: binary cuts
        X, y = X[y > 0], y[y > 0]
    bounds = (np.array([b[0] for b in IRIS_BOUNDS.values()]),
              np.array([b[1] for b in IRIS_BOUNDS.values()]))  # fmt: skip
    classes = [1, 2] if two_classes else [0, 1, 2]
    params = {"epsilon": 0.1, "bounds": bounds, "classes": classes, **params}
    return DPDecisionTree(**params).fit(X, y), X, y


def interval(label):
    low, high = (float(v) for v in re.findall(r"-?[\d.]+(?:e[-+]?\d+)?|-?inf", label))
    return low, high


def points(cut):
    return cut["split"] if isinstance(cut["split"], list) else [cut["split"]]


def assert_near_public_points(cut):
    """Cut j of k pieces lies within 1/8 (binary) or 1/16 (three pieces) of j / k of its
    interval, plus the grid's rounding (1/16 of it)."""
    low, high = interval(cut["concept"])
    cuts = points(cut)
    k = len(cuts) + 1
    for j, point in enumerate(cuts, start=1):
        slack = (high - low) * (1 / (8 * (k - 1)) + 1 / 16)
        assert abs(point - (low + (high - low) * j / k)) <= slack + 1e-12
    assert cuts == sorted(cuts) and len(cut["children"]) == k


def test_a_small_budget_grows_public_cuts_and_spends_all_on_labels():
    model, X, _ = iris_tree(random_state=0)
    assert model.epsilon_split_["selection"] == 0.0
    assert model.privacy_spent_.epsilon == pytest.approx(0.1)
    assert sum(model.epsilon_split_.values()) == pytest.approx(0.1)
    # three classes: every node cuts its column into three pieces, two levels deep
    assert model.n_levels_ == 2 and len(model.cuts_) == 4
    for cut in model.cuts_:
        assert len(points(cut)) == 2
        assert_near_public_points(cut)
    # one row per leaf: the leaf's interval of each column and its released class
    assert model.release_.shape == (9, 5) and model.release_.columns[-1] == "class"
    proba = model.predict_proba(X)
    assert set(np.unique(proba)) <= {0.0, 1.0} and np.all(proba.sum(axis=1) == 1.0)


def test_two_classes_take_binary_cuts_three_levels_deep():
    model, _, _ = iris_tree(two_classes=True, random_state=0)
    assert model.epsilon_split_["selection"] == 0.0
    assert model.n_levels_ == 3 and len(model.cuts_) == 7 and len(model.release_) == 8
    for cut in model.cuts_:
        low, high = interval(cut["concept"])
        assert low + (high - low) / 4 <= cut["split"] <= high - (high - low) / 4


def test_cuts_are_drawn_near_the_public_points_not_at_them():
    # Iris is recorded to 0.1 cm and round public points of its bounds (the middles 6,
    # 3.25, 4, 1.5; thirds such as 3 and 5 cm of [1, 7]) are recorded values: a cut there
    # sends every row on it to one side. The cuts are drawn near those points instead.
    roots = {}
    for seed in range(12):
        model, _, _ = iris_tree(random_state=seed)
        if model.epsilon_split_["selection"] > 0:
            continue  # the noisy count took the selected regime
        root = model.cuts_[0]
        roots.setdefault(root["feature"], set()).add(tuple(points(root)))
        for cut in model.cuts_:
            assert_near_public_points(cut)
    assert any(len(splits) > 1 for splits in roots.values())


def test_nodes_cutting_the_same_concept_share_its_split():
    # two columns, two levels: the three children of the root cut the other column's
    # whole interval, and they share one drawn split (one common refinement of it)
    X, y = load_iris(return_X_y=True)
    bounds = (np.array([4.0, 1.0]), np.array([8.0, 7.0]))
    shared = set()
    for seed in range(6):
        model = DPDecisionTree(
            epsilon=0.1, n_levels=2, bounds=bounds, classes=[0, 1, 2], random_state=seed
        ).fit(X[:, [0, 2]], y)
        if model.epsilon_split_["selection"] > 0:
            continue  # the noisy count took the selected regime
        root, *kids = model.cuts_
        assert len(kids) == 3 and root["concept"] not in {k["concept"] for k in kids}
        assert len({k["concept"] for k in kids}) == 1
        assert len({tuple(k["split"]) for k in kids}) == 1
        shared.add(tuple(kids[0]["split"]))
        assert len(model.release_) == 9
    assert len(shared) > 1  # drawn anew on every fit


def test_the_cuts_do_not_depend_on_the_records():
    X, y = load_iris(return_X_y=True)
    params = {"epsilon": 0.1, "bounds": (0.0, 8.0), "classes": [0, 1, 2], "random_state": 4}
    first = DPDecisionTree(**params).fit(X, y)
    other = DPDecisionTree(**params).fit(X[::-1] * 0.5, np.roll(y, 7))
    assert first.cuts_ == other.cuts_
    assert first.release_.drop(columns="class").equals(other.release_.drop(columns="class"))


def test_every_row_gets_the_label_of_the_leaf_box_holding_it():
    model, X, _ = iris_tree(random_state=1, n_levels=5)
    release = model.release_
    boxes = [[interval(release.iloc[r, j]) for j in range(4)] for r in range(len(release))]
    # Iris lies strictly inside the bounds, so every row is in one half-open box
    predicted = model.predict(X)
    for row, label in zip(X, predicted, strict=True):
        holding = [r for r, box in enumerate(boxes)
                   if all(lo <= v < hi for v, (lo, hi) in zip(row, box, strict=True))]  # fmt: skip
        assert len(holding) == 1
        assert release["class"].iloc[holding[0]] == label
    # transform: each column's position in the common refinement of the nodes' cuts
    positions = model.transform(X)
    assert positions.shape == X.shape and positions.min() >= 0


def test_labels_are_the_leaf_majority_when_the_noise_vanishes(monkeypatch):
    # the regime forced at a huge epsilon: permute-and-flip then picks each leaf's majority
    monkeypatch.setattr(budget, "FREE_BELOW", np.inf)
    model, X, y = iris_tree(epsilon=1e6, random_state=2)
    leaves = model._random_cuts.leaf_of(model.transform(X))
    majorities = 0
    for leaf in np.unique(leaves):
        counts = np.bincount(y[leaves == leaf], minlength=3)
        assert counts[model._random_cuts.label[leaf]] == counts.max()
        majorities += counts.max()
    # the training accuracy is that of the leaf majorities, well above chance
    assert (model.predict(X) == y).sum() == majorities > 0.6 * len(y)


def test_categorical_columns_split_into_taxonomy_children_and_category_ranges():
    rng = np.random.default_rng(0)
    n = 12
    X = pd.DataFrame({
        "colour": rng.choice(["red", "orange", "blue", "green"], size=n),
        "grade": pd.Categorical(rng.choice(list("abcd"), size=n), categories=list("abcd")),
        "size": rng.uniform(0, 10, size=n),
    })  # fmt: skip
    y = rng.integers(0, 2, size=n)
    model = DPDecisionTree(
        epsilon=1.0, taxonomies=TAXONOMY, bounds={"size": (0.0, 10.0)}, classes=[0, 1],
        random_state=0,
    ).fit(X, y)  # fmt: skip
    assert model.epsilon_split_["selection"] == 0.0 and model.n_levels_ == 3
    assert {c["feature"] for c in model.cuts_} == {"colour", "grade", "size"}
    colour = [c for c in model.cuts_ if c["feature"] == "colour"]
    assert all(c["children"] in (["warm", "cold"], ["red", "orange"], ["blue", "green"])
               for c in colour)  # fmt: skip
    assert model.predict(X).shape == (n,)
    assert model.generalize(X).shape == X.shape


def test_unbounded_columns_are_not_cut_so_the_release_is_the_noisy_majority():
    X, y = load_iris(return_X_y=True)
    model = DPDecisionTree(epsilon=0.1, classes=[0, 1, 2], random_state=0).fit(X, y)
    assert model.cuts_ == [] and model.n_levels_ == 0 and len(model.release_) == 1
    assert len(set(model.predict(X))) == 1


def test_the_dask_fit_gives_the_numpy_release(dask_client):
    da = pytest.importorskip("dask.array")
    X, y = load_iris(return_X_y=True)
    params = {"epsilon": 0.1, "bounds": (0.0, 8.0), "classes": [0, 1, 2], "random_state": 5}
    local = DPDecisionTree(**params).fit(X, y)
    remote = DPDecisionTree(**params).fit(da.from_array(X, chunks=(40, 4)),
                                          da.from_array(y, chunks=40))  # fmt: skip
    assert remote.cuts_ == local.cuts_ and remote.epsilon_split_ == local.epsilon_split_
    pd.testing.assert_frame_equal(remote.release_, local.release_)
    np.testing.assert_array_equal(remote.predict(X), local.predict(X))
    lazy = local.predict(da.from_array(X, chunks=50))
    np.testing.assert_array_equal(lazy.compute(), local.predict(X))
