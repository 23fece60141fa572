"""DPDecisionTree on dask collections: the same release as on numpy, without loading."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import skdp.tree._specialization as specialization
from skdp.exceptions import ClippingWarning
from skdp.tree import DPDecisionTree

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")

TAXONOMY = {"colour": {"Any": [{"warm": ["red", "green", "blue"]}, "black"]}}
FRAME_PUBLIC = {
    "bounds": {"size": (0.0, 10.0), "weight": (-5.0, 15.0)},
    "classes": ["no", "yes"],
}


@pytest.fixture(scope="module")
def mixed():
    """Categorical (declared categories) + two numeric columns, string labels."""
    rng = np.random.default_rng(0)
    n = 1500
    colour = rng.choice(["red", "green", "blue", "black"], size=n)
    size = rng.uniform(0, 10, size=n)
    weight = rng.normal(5, 3, size=n)
    y = np.where((size > 5) & (colour != "black"), "yes", "no")
    y[rng.random(n) < 0.1] = "no"
    colours = pd.CategoricalDtype(["red", "green", "blue", "black"])
    X = pd.DataFrame({"colour": colour, "size": size, "weight": weight}).astype(
        {"colour": colours}
    )
    return X, y


def _dask_frame(X, y):
    return dd.from_pandas(X, npartitions=4), dd.from_pandas(pd.Series(y), npartitions=3)


def assert_same_fit(remote, local):
    assert remote.cuts_ == local.cuts_
    pd.testing.assert_frame_equal(remote.release_, local.release_)
    assert remote.n_levels_ == local.n_levels_
    assert remote.epsilon_split_ == local.epsilon_split_
    assert remote.privacy_spent_ == local.privacy_spent_


@pytest.mark.parametrize(
    ("algorithm", "utility", "taxonomy", "epsilon"),
    [("maxgddp", "max", False, 20.0), ("diffgen", "infogain", True, 50.0)],
)
def test_dask_dataframe_fit_gives_the_numpy_release(
    dask_client, mixed, algorithm, utility, taxonomy, epsilon
):
    X, y = mixed
    public = {**FRAME_PUBLIC, "taxonomies": TAXONOMY if taxonomy else None}
    params = {"epsilon": epsilon, "n_levels": 5, "utility": utility, "random_state": 3, **public}
    local = DPDecisionTree(algorithm, **params).fit(X, y)
    remote = DPDecisionTree(algorithm, **params).fit(*_dask_frame(X, y))
    assert_same_fit(remote, local)
    assert list(remote.feature_names_in_) == ["colour", "size", "weight"]
    assert len({c["feature"] for c in local.cuts_}) >= 2  # not vacuous
    np.testing.assert_array_equal(remote.predict(X), local.predict(X))


@pytest.mark.parametrize("algorithm", ["maxgddp", "diffgen"])
def test_dask_array_fit_gives_the_numpy_release(dask_client, algorithm):
    X, y = load_iris(return_X_y=True)
    X, y = np.tile(X, (4, 1)), np.tile(y, 4)
    params = {"epsilon": 3.0, "n_levels": 4, "bounds": (0.0, 8.0), "classes": [0, 1, 2]}
    local = DPDecisionTree(algorithm, **params, random_state=5).fit(X, y)
    remote = DPDecisionTree(algorithm, **params, random_state=5).fit(
        da.from_array(X, chunks=(170, 4)), da.from_array(y, chunks=250)
    )
    assert_same_fit(remote, local)
    assert remote.n_features_in_ == 4 and not hasattr(remote, "feature_names_in_")


def test_dask_default_fit_without_bounds_gives_the_numpy_release(dask_client, mixed):
    # no bounds and the auto depth: the scale-free grid and a count of the blocks' rows
    X, y = mixed
    params = {"classes": ["no", "yes"], "random_state": 2}
    local = DPDecisionTree(**params).fit(X, y)
    remote = DPDecisionTree(**params).fit(*_dask_frame(X, y))
    assert_same_fit(remote, local)
    assert local.epsilon_split_["n_samples"] > 0 and local.n_levels_ >= 1
    assert remote.bounds_ == {"size": (-np.inf, np.inf), "weight": (-np.inf, np.inf)}


def test_sparse_count_tensors_give_the_same_release(dask_client, mixed, monkeypatch):
    # counts beyond DENSE_LIMIT travel as (key, count) pairs, merged over the blocks
    X, y = mixed
    params = {"epsilon": 2.0, "n_levels": 3, "random_state": 0, **FRAME_PUBLIC}
    local = DPDecisionTree(**params).fit(X, y)
    monkeypatch.setattr(specialization, "DENSE_LIMIT", 0)
    remote = DPDecisionTree(**params).fit(*_dask_frame(X, y))
    assert_same_fit(remote, local)


def test_predict_and_transform_on_dask_are_lazy_and_match(dask_client, mixed):
    X, y = mixed
    model = DPDecisionTree(epsilon=2.0, n_levels=4, random_state=0, **FRAME_PUBLIC).fit(X, y)
    frame = dd.from_pandas(X, npartitions=3)
    for method in ["predict", "predict_proba", "transform"]:
        lazy = getattr(model, method)(frame)
        assert isinstance(lazy, da.Array)
        np.testing.assert_array_equal(lazy.compute(), getattr(model, method)(X))
    general = model.generalize(frame)
    assert isinstance(general, dd.DataFrame)
    pd.testing.assert_frame_equal(general.compute().reset_index(drop=True), model.generalize(X))
    X_iris, y_iris = load_iris(return_X_y=True)
    model = DPDecisionTree(n_levels=4, bounds=(0.0, 8.0), classes=[0, 1, 2], random_state=0)
    model.fit(X_iris, y_iris)
    lazy = model.predict(da.from_array(X_iris, chunks=40))
    assert isinstance(lazy, da.Array) and lazy.chunks == ((40, 40, 40, 30),)
    np.testing.assert_array_equal(lazy.compute(), model.predict(X_iris))
    with pytest.raises(ValueError, match="expecting 4 features"):
        model.predict(da.ones((5, 3)))


def test_dask_fit_warns_about_clipped_values(dask_client, mixed):
    X, y = mixed
    X = X.assign(size=X["size"].where(X.index >= 4, 12.0))
    with pytest.warns(ClippingWarning, match="4 of 1500 values of column 'size'") as caught:
        DPDecisionTree(n_levels=0, random_state=0, **FRAME_PUBLIC).fit(*_dask_frame(X, y))
    assert caught[0].filename == __file__


def test_dask_fit_needs_public_categories_and_classes(mixed):
    X, y = mixed
    frame, target = _dask_frame(X, y)
    with pytest.raises(ValueError, match="needs public classes"):
        DPDecisionTree(bounds=FRAME_PUBLIC["bounds"]).fit(frame, target)
    unknown = frame.assign(colour=frame["colour"].cat.as_unknown())
    with pytest.raises(ValueError, match="public categories of column 'colour'"):
        DPDecisionTree(**FRAME_PUBLIC).fit(unknown, target)
    strings = frame.assign(colour=frame["colour"].astype(str))
    with pytest.raises(ValueError, match="public categories of column 'colour'"):
        DPDecisionTree(**FRAME_PUBLIC).fit(strings, target)
    # declared categories make the string column usable
    DPDecisionTree(
        n_levels=0, categories={"colour": ["red", "green", "blue", "black"]}, **FRAME_PUBLIC
    ).fit(strings, target)
    with pytest.raises(TypeError, match="dask y only with a dask X"):
        DPDecisionTree(**FRAME_PUBLIC).fit(X, target)


def test_dask_fit_reports_bad_rows_and_labels(mixed):
    X, y = mixed
    params = {"n_levels": 0, **FRAME_PUBLIC}
    frame, target = _dask_frame(X, y)
    with pytest.raises(ValueError, match=r"labels not in classes: \['yes'\]"):
        DPDecisionTree(**{**params, "classes": ["no", "maybe"]}).fit(frame, target)
    with pytest.raises(ValueError, match=r"not leaves of its taxonomy: \['black'\]"):
        taxonomy = {"colour": {"Any": ["red", "green", "blue"]}}
        DPDecisionTree(**params, taxonomies=taxonomy).fit(frame, target)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        DPDecisionTree(**params).fit(frame, target.head(100, compute=False))
