"""PrivateSVM(mechanism="objective") on dask collections: the same model as on numpy."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_classification, make_moons

from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning
from skdp.svm import PrivateSVM
from tests._dask import assert_same_linear_model

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")
dask = pytest.importorskip("dask", reason="dask is not installed (the dask extra)")

X_BIN, Y_BIN = make_classification(n_samples=300, n_features=4, random_state=0)
NORM_BIN = 8.0  # above every row norm of X_BIN
X_IRIS, Y_IRIS = load_iris(return_X_y=True)
X_MOONS, Y_MOONS = make_moons(n_samples=200, noise=0.2, random_state=0)


def model(**params):
    defaults = {
        "data_norm": NORM_BIN, "classes": [0, 1], "mechanism": "objective", "random_state": 0
    }  # fmt: skip
    return PrivateSVM(**{**defaults, **params})


@pytest.mark.filterwarnings("error::skdp.exceptions.ClippingWarning")  # no row beyond the norm
@pytest.mark.parametrize(
    ("params", "X", "y"),
    [
        ({"C": 10.0, "huber_width": 0.1}, X_BIN, Y_BIN),
        # three one-vs-rest problems; seed 4 needs the Huber-specific line search
        ({"data_norm": 12.0, "classes": [0, 1, 2], "random_state": 4}, X_IRIS, Y_IRIS),
        # 101 parameters: L-BFGS before the Newton steps; the features are made in the blocks
        ({"kernel": "rbf", "n_components": 100, "C": 10.0, "data_norm": None}, X_MOONS, Y_MOONS),
    ],
    ids=["linear", "one-vs-rest", "rbf"],
)
def test_dask_fit_gives_the_numpy_model(dask_client, params, X, y):
    local = model(**params).fit(X, y)
    remote = model(**params).fit(da.from_array(X, chunks=(70, -1)), da.from_array(y, chunks=50))
    assert_same_linear_model(remote, local)
    if params.get("kernel") == "rbf":
        np.testing.assert_array_equal(remote.random_frequencies_, local.random_frequencies_)


def test_dask_dataframe_and_lazy_predictions(dask_client):
    names = ["a", "b", "c", "d"]
    frame = dd.from_pandas(pd.DataFrame(X_BIN, columns=names).assign(y=Y_BIN), npartitions=3)
    remote = model().fit(frame[names], frame["y"])
    local = model().fit(X_BIN, Y_BIN)
    assert_same_linear_model(remote, local)
    np.testing.assert_array_equal(remote.feature_names_in_, names)
    X = da.from_array(X_BIN, chunks=(100, -1))
    scores = remote.decision_function(X)
    assert isinstance(scores, da.Array) and scores.shape == (300,)
    np.testing.assert_allclose(scores.compute(), local.decision_function(X_BIN), rtol=1e-8)
    np.testing.assert_array_equal(remote.predict(frame[names]).compute(), local.predict(X_BIN))
    assert not hasattr(remote, "predict_proba")


def test_rbf_lazy_predictions_apply_the_feature_map(dask_client):
    fitted = model(kernel="rbf", n_components=20, classes=[0, 1, 2], gamma=0.1).fit(X_IRIS, Y_IRIS)
    X = da.from_array(X_IRIS, chunks=(40, -1))
    scores = fitted.decision_function(X)
    assert scores.shape == (150, 3)
    np.testing.assert_allclose(scores.compute(), fitted.decision_function(X_IRIS), rtol=1e-10)
    np.testing.assert_array_equal(fitted.predict(X).compute(), fitted.predict(X_IRIS))


def test_dask_fit_clips_rows_with_a_warning(dask_client):
    params = {"epsilon": 1e12, "data_norm": 2.0}
    with pytest.warns(ClippingWarning, match=r"187 of 300 rows of X had an L2 norm above 2"):
        local = model(**params).fit(X_BIN, Y_BIN)
    with pytest.warns(ClippingWarning, match=r"187 of 300 rows of X had an L2 norm above 2"):
        remote = model(**params).fit(da.from_array(X_BIN, chunks=(70, -1)), Y_BIN)
    assert_same_linear_model(remote, local)


def test_output_perturbation_refuses_dask_input():
    X = da.from_array(X_BIN, chunks=(100, -1))
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match="mechanism='objective'"):
        model(mechanism="output").fit(X, Y_BIN)
    assert len(ledger.entries) == 0


def test_dask_fit_needs_public_classes_and_data_norm():
    X = da.from_array(X_BIN, chunks=(100, -1))
    with pytest.raises(ValueError, match=r"needs public classes.*Pass classes="):
        model(classes=None).fit(X, Y_BIN)
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match=r"needs public data_norm"):
        model(data_norm=None).fit(X, Y_BIN)
    assert not ledger.entries  # refused before any spend


def test_dask_bad_labels_are_named_before_any_spend():
    X = da.from_array(X_BIN, chunks=(100, -1))
    with dask.config.set(scheduler="synchronous"):
        with (
            PrivacyLedger() as ledger,
            pytest.raises(ValueError, match=r"not in classes: \['2'\]"),
        ):
            model().fit(X, np.where(np.arange(300) == 7, 2, Y_BIN))
    assert len(ledger.entries) == 0
