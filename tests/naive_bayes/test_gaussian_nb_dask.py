"""GaussianNB on dask collections: the numpy fit's model, without loading the data."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from skdp.naive_bayes import GaussianNB

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")

X, Y = load_iris(return_X_y=True)
PUBLIC = {"epsilon": 2.0, "bounds": (0.0, 8.0), "classes": [0, 1, 2]}


def test_dask_fit_and_predictions_are_the_numpy_ones():
    """The blocks' exact statistics are summed, then noised on the driver in the same
    order: same random_state, same model (up to float summation order)."""
    in_memory = GaussianNB(random_state=0, **PUBLIC).fit(X, Y)
    lazy = GaussianNB(random_state=0, **PUBLIC).fit(
        da.from_array(X, chunks=40), da.from_array(Y, chunks=40)
    )
    np.testing.assert_array_equal(lazy.class_count_, in_memory.class_count_)
    np.testing.assert_allclose(lazy.theta_, in_memory.theta_, rtol=1e-9)
    np.testing.assert_allclose(lazy.var_, in_memory.var_, rtol=1e-9)
    assert lazy.privacy_spent_.epsilon == pytest.approx(2.0, rel=1e-12)
    predictions = lazy.predict(da.from_array(X, chunks=40))
    assert isinstance(predictions, da.Array)
    np.testing.assert_array_equal(predictions.compute(), in_memory.predict(X))
    np.testing.assert_allclose(
        lazy.predict_proba(da.from_array(X, chunks=40)).compute(), in_memory.predict_proba(X)
    )


def test_dask_dataframe_takes_bounds_by_column_name():
    frame = dd.from_pandas(pd.DataFrame(X[:, :2], columns=["length", "width"]), npartitions=3)
    bounds = {"length": (4.0, 8.0), "width": (2.0, 5.0)}
    model = GaussianNB(epsilon=2.0, bounds=bounds, classes=[0, 1, 2], random_state=0)
    model.fit(frame, dd.from_pandas(pd.Series(Y), npartitions=3))
    assert model.feature_names_in_.tolist() == ["length", "width"]
    assert model.predict(frame).compute().shape == (150,)


@pytest.mark.parametrize("missing", ["bounds", "classes"])
def test_dask_fit_needs_public_bounds_and_classes(missing):
    model = GaussianNB(random_state=0, **{**PUBLIC, missing: None})
    with pytest.raises(ValueError, match=f"needs public {missing}"):
        model.fit(da.from_array(X, chunks=40), da.from_array(Y, chunks=40))
