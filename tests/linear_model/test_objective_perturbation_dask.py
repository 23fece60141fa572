"""ObjectivePerturbationLogistic on dask collections: the same model as on numpy."""

import functools

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_classification

import skdp.utils._erm as erm
from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning
from skdp.linear_model import ObjectivePerturbationLogistic
from tests._dask import assert_same_linear_model

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")
dask = pytest.importorskip("dask", reason="dask is not installed (the dask extra)")

X_BIN, Y_BIN = make_classification(n_samples=300, n_features=4, random_state=0)
NORM_BIN = 8.0  # above every row norm of X_BIN
X_IRIS, Y_IRIS = load_iris(return_X_y=True)


def model(**params):
    defaults = {"data_norm": NORM_BIN, "classes": [0, 1], "random_state": 0}
    return ObjectivePerturbationLogistic(**{**defaults, **params})


@pytest.mark.filterwarnings("error::skdp.exceptions.ClippingWarning")  # no row beyond the norm
@pytest.mark.parametrize(
    ("params", "X", "y"),
    [
        ({"random_state": 3}, X_BIN, Y_BIN),
        ({"epsilon": 0.2, "fit_intercept": False}, X_BIN, Y_BIN),
        ({"data_norm": 12.0, "classes": [0, 1, 2]}, X_IRIS, Y_IRIS),
        ({"data_norm": 12.0, "classes": [0, 1, 2], "multi_class": "ovr"}, X_IRIS, Y_IRIS),
    ],
    ids=["binary", "no-intercept", "multinomial", "ovr"],
)
def test_dask_fit_gives_the_numpy_model(dask_client, params, X, y):
    local = model(**params).fit(X, y)
    remote = model(**params).fit(da.from_array(X, chunks=(70, -1)), da.from_array(y, chunks=50))
    assert_same_linear_model(remote, local)


def test_dask_solver_follows_the_numpy_iteration(monkeypatch):
    """One block sum per solver evaluation, as many evaluations as on numpy."""
    passes, real = [], erm.sum_blocks

    def counting(function, *arrays):
        if isinstance(function, functools.partial):  # a solver evaluation
            passes.append(function.keywords["hessian"])
        return real(function, *arrays)

    monkeypatch.setattr(erm, "sum_blocks", counting)
    model(C=5.0).fit(X_BIN, Y_BIN)
    local, passes[:] = list(passes), []
    with dask.config.set(scheduler="synchronous"):
        model(C=5.0).fit(da.from_array(X_BIN, chunks=(100, -1)), Y_BIN)
    assert passes == local
    # Newton only (5 parameters): a Hessian in every pass but the last, where the
    # rule stops as the quadratic rate predicted
    assert all(local[:-1]) and not local[-1]


def test_dask_rows_are_read_once():
    """The clipped rows are persisted: the source blocks are computed once per fit."""
    reads = []

    def source(block):
        if len(block):  # not dask's probe of the output type
            reads.append(len(block))
        return block

    X = da.from_array(X_BIN, chunks=(100, -1)).map_blocks(source, dtype=float)
    with dask.config.set(scheduler="synchronous"):
        model().fit(X, Y_BIN)
    assert sorted(reads) == [100, 100, 100]


def test_dask_dataframe_string_labels_and_lazy_predictions(dask_client):
    names = ["a", "b", "c", "d"]
    labels = np.where(Y_BIN == 1, "yes", "no")
    frame = pd.DataFrame(X_BIN, columns=names).assign(label=labels)
    lazy = dd.from_pandas(frame, npartitions=3)
    params = {"classes": ["no", "yes"], "random_state": 1}
    remote = model(**params).fit(lazy[names], lazy["label"])
    local = model(**params).fit(X_BIN, labels)
    assert_same_linear_model(remote, local)
    np.testing.assert_array_equal(remote.feature_names_in_, names)
    X = da.from_array(X_BIN, chunks=(100, -1))
    for method in ["predict_proba", "decision_function", "predict_log_proba"]:
        result = getattr(remote, method)(X)
        assert isinstance(result, da.Array)
        np.testing.assert_allclose(result.compute(), getattr(local, method)(X_BIN), rtol=1e-8)
    labels = remote.predict(X)
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), local.predict(X_BIN))
    np.testing.assert_array_equal(remote.predict(lazy[names]).compute(), local.predict(X_BIN))


def test_multinomial_lazy_predictions(dask_client):
    params = {"data_norm": 12.0, "classes": [0, 1, 2], "random_state": 2}
    fitted = model(**params).fit(X_IRIS, Y_IRIS)
    X = da.from_array(X_IRIS, chunks=(40, -1))
    np.testing.assert_array_equal(fitted.predict(X).compute(), fitted.predict(X_IRIS))
    proba = fitted.predict_proba(X)
    assert proba.shape == (150, 3)
    np.testing.assert_allclose(proba.compute(), fitted.predict_proba(X_IRIS), rtol=1e-12)


def test_dask_fit_clips_rows_with_a_warning(dask_client):
    params = {"epsilon": 1e12, "data_norm": 2.0}
    with pytest.warns(ClippingWarning, match=r"187 of 300 rows of X had an L2 norm above 2"):
        local = model(**params).fit(X_BIN, Y_BIN)
    with pytest.warns(ClippingWarning, match=r"187 of 300 rows of X had an L2 norm above 2"):
        remote = model(**params).fit(da.from_array(X_BIN, chunks=(70, -1)), Y_BIN)
    assert_same_linear_model(remote, local)


def test_dask_fit_needs_public_classes_and_data_norm():
    X = da.from_array(X_BIN, chunks=(100, -1))
    with pytest.raises(ValueError, match=r"needs public classes.*Pass classes="):
        model(classes=None).fit(X, Y_BIN)
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match=r"needs public data_norm"):
        model(data_norm=None).fit(X, Y_BIN)
    assert not ledger.entries  # refused before any spend
    with pytest.raises(ValueError, match="duplicates"):
        model(classes=[0, 0, 1]).fit(X, Y_BIN)


def test_dask_bad_data_is_named_before_any_spend():
    X = da.from_array(X_BIN, chunks=(100, -1))
    with dask.config.set(scheduler="synchronous"):
        with (
            PrivacyLedger() as ledger,
            pytest.raises(ValueError, match=r"not in classes: \['2'\]"),
        ):
            model().fit(X, np.where(np.arange(300) == 7, 2, Y_BIN))
        assert len(ledger.entries) == 0
        X_nan = X_BIN.copy()
        X_nan[3, 1] = np.nan
        with pytest.raises(ValueError, match="NaN"):
            model().fit(da.from_array(X_nan, chunks=(100, -1)), Y_BIN)
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            model().fit(X, Y_BIN[:-1])
        with pytest.raises(ValueError, match="0 sample"):
            model().fit(X[:0], Y_BIN[:0])
        fitted = model().fit(X, Y_BIN)
        with pytest.raises(ValueError, match="features"):
            fitted.predict(X[:, :3])
