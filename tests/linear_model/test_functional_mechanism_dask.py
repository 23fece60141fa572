"""The functional mechanism on dask collections: the numpy model, without loading the data."""

import numpy as np
import pandas as pd
import pytest

from skdp.exceptions import ClippingWarning
from skdp.linear_model import FunctionalMechanismClassifier, FunctionalMechanismRegressor

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")

REGRESSOR = {"bounds": (-1.0, 1.0), "bounds_y": (-3.0, 3.0)}
CLASSIFIER = {"bounds": (-2.0, 2.0), "classes": ["a", "b", "c"]}
PREDICTIONS = ["decision_function", "predict", "predict_proba", "predict_log_proba"]


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(2000, 3))
    y = X @ np.array([1.0, -0.5, 0.25]) + 0.2 * rng.normal(size=2000)
    return X, np.clip(y, -3, 3)


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(1)
    codes = rng.integers(3, size=2000)
    centres = np.array([[-1.0, -1.0], [1.0, 1.0], [1.0, -1.0]])
    X = np.clip(centres[codes] + 0.4 * rng.normal(size=(2000, 2)), -2, 2)
    return X, np.array(["a", "b", "c"])[codes]


def _assert_same_model(remote, local):
    np.testing.assert_allclose(remote.coef_, local.coef_, rtol=1e-9)
    np.testing.assert_allclose(remote.intercept_, local.intercept_, rtol=1e-9)
    assert remote.privacy_spent_ == local.privacy_spent_
    assert remote.epsilon_split_ == local.epsilon_split_
    for remote_bound, local_bound in zip(remote.bounds_, local.bounds_, strict=True):
        np.testing.assert_array_equal(remote_bound, local_bound)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_dask_regressor_is_the_numpy_model(dask_client, regression, fit_intercept):
    X, y = regression
    params = {**REGRESSOR, "fit_intercept": fit_intercept, "random_state": 0}
    local = FunctionalMechanismRegressor(**params).fit(X, y)
    remote = FunctionalMechanismRegressor(**params).fit(
        da.from_array(X, chunks=(700, 3)), da.from_array(y, chunks=500)
    )
    _assert_same_model(remote, local)
    assert remote.bounds_y_ == local.bounds_y_
    assert np.abs(local.coef_ - [1.0, -0.5, 0.25]).max() < 0.3  # not a vacuous comparison


def test_dask_classifier_is_the_numpy_model(dask_client, blobs):
    X, y = blobs
    params = {**CLASSIFIER, "random_state": 0}
    local = FunctionalMechanismClassifier(**params).fit(X, y)
    remote = FunctionalMechanismClassifier(**params).fit(
        da.from_array(X, chunks=(600, 2)), da.from_array(y, chunks=900)
    )
    _assert_same_model(remote, local)
    np.testing.assert_array_equal(remote.classes_, local.classes_)
    assert (local.predict(X) == y).mean() > 0.8


# dask turns pandas' string labels into objects, and says so
@pytest.mark.filterwarnings("ignore:Dask currently has limited support:UserWarning")
def test_dask_dataframe_series_and_dict_bounds(dask_client, blobs):
    X, y = blobs
    frame = pd.DataFrame(X, columns=["u", "v"])
    bounds = {"u": (-2.0, 2.0), "v": (-2.0, 2.0)}
    params = {"bounds": bounds, "classes": ["a", "b", "c"], "random_state": 0}
    local = FunctionalMechanismClassifier(**params).fit(frame, y)
    remote = FunctionalMechanismClassifier(**params).fit(
        dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=2)
    )
    assert list(remote.feature_names_in_) == ["u", "v"]
    _assert_same_model(remote, local)


def test_in_memory_y_with_dask_X_and_binary_classes(dask_client, blobs):
    X, y = blobs
    binary = (y == "a").astype(int)
    params = {"bounds": (-2.0, 2.0), "classes": [0, 1], "random_state": 0}
    local = FunctionalMechanismClassifier(**params).fit(X, binary)
    remote = FunctionalMechanismClassifier(**params).fit(da.from_array(X, chunks=700), binary)
    _assert_same_model(remote, local)
    assert remote.coef_.shape == (1, 2)


def test_dask_predictions_are_lazy_and_equal(dask_client, regression, blobs):
    X, y = regression
    model = FunctionalMechanismRegressor(**REGRESSOR, random_state=0).fit(X, y)
    lazy = model.predict(da.from_array(X, chunks=(600, 3)))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), model.predict(X), rtol=1e-12)

    X, y = blobs
    frame = pd.DataFrame(X, columns=["u", "v"])
    binary = np.where(y == "a", y, "other")
    for classes, labels in ((["a", "b", "c"], y), (["a", "other"], binary)):
        model = FunctionalMechanismClassifier(bounds=(-2.0, 2.0), classes=classes, random_state=0)
        model.fit(frame, labels)
        remote = dd.from_pandas(frame, npartitions=3)
        for method in PREDICTIONS:
            lazy = getattr(model, method)(remote)
            assert isinstance(lazy, da.Array), method
            expected = getattr(model, method)(frame)
            if method == "predict":
                np.testing.assert_array_equal(lazy.compute(), expected)
            else:
                np.testing.assert_allclose(lazy.compute(), expected, rtol=1e-12)


def test_dask_fit_warns_about_clipped_values(dask_client, regression):
    X, y = regression[0].copy(), regression[1].copy()
    X[:3, 0] = 5.0
    y[:2] = -10.0
    model = FunctionalMechanismRegressor(**REGRESSOR, random_state=0)
    with (
        pytest.warns(ClippingWarning, match="3 of 6000 values of X"),
        pytest.warns(ClippingWarning, match="2 of 2000 values of y"),
    ):
        model.fit(da.from_array(X, chunks=(700, 3)), da.from_array(y, chunks=700))


@pytest.mark.parametrize(
    "kind, missing",
    [("regressor", "bounds"), ("regressor", "bounds_y"), ("classifier", "bounds")],
)
def test_dask_fit_needs_public_bounds(regression, kind, missing):
    X, y = regression
    if kind == "regressor":
        model = FunctionalMechanismRegressor(**{**REGRESSOR, missing: None})
    else:
        model, y = FunctionalMechanismClassifier(classes=[0, 1]), (y > 0).astype(int)
    with pytest.raises(ValueError, match=f"needs public {missing}"):
        model.fit(da.from_array(X, chunks=1000), y)


def test_dask_fit_needs_public_classes(blobs):
    X, y = blobs
    model = FunctionalMechanismClassifier(bounds=(-2.0, 2.0))
    with pytest.raises(ValueError, match="needs the public classes"):
        model.fit(da.from_array(X, chunks=1000), da.from_array(y, chunks=1000))


def test_dask_labels_outside_classes_are_refused(blobs):
    X, y = blobs
    model = FunctionalMechanismClassifier(bounds=(-2.0, 2.0), classes=["a", "b"])
    with pytest.raises(ValueError, match=r"y has labels not in classes: \['c'\]"):
        model.fit(da.from_array(X, chunks=1000), da.from_array(y, chunks=1000))


def test_dask_inconsistent_lengths_are_refused(regression):
    X, y = regression
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        FunctionalMechanismRegressor(**REGRESSOR).fit(
            da.from_array(X, chunks=1000), da.from_array(y[:-1], chunks=1000)
        )
