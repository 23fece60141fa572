"""DPOPTICS on dask collections: the same model as on numpy, without loading the data."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from skdp.cluster import DPOPTICS
from skdp.exceptions import ClippingWarning

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(n_samples=3000, centers=[[-1, -1], [1, 1]], cluster_std=0.2, random_state=0)
    return X


@pytest.mark.parametrize("seed", [0, 1])
def test_dask_fit_gives_the_numpy_model(dask_client, blobs, seed):
    params = {"epsilon": 1.0, "bounds": (-2.0, 2.0), "min_samples": 20, "random_state": seed}
    local = DPOPTICS(**params).fit(blobs)
    remote = DPOPTICS(**params).fit(da.from_array(blobs, chunks=(700, 2)))
    np.testing.assert_array_equal(remote.histogram_, local.histogram_)
    np.testing.assert_array_equal(remote.ordering_, local.ordering_)
    np.testing.assert_array_equal(remote.reachability_, local.reachability_)
    np.testing.assert_array_equal(remote.cluster_counts_, local.cluster_counts_)
    assert remote.noise_count_ == local.noise_count_
    assert remote.privacy_spent_ == local.privacy_spent_
    np.testing.assert_array_equal(remote.labels_.compute(), local.labels_)
    assert local.labels_.max() >= 1  # two clusters found: the comparison is not vacuous


def test_dask_dataframe_and_predict(dask_client, blobs):
    frame = dd.from_array(blobs, columns=["x", "y"], chunksize=1000)
    model = DPOPTICS(epsilon=1.0, bounds=(-2.0, 2.0), min_samples=20, random_state=0)
    model.fit(frame)
    assert list(model.feature_names_in_) == ["x", "y"]
    lazy = model.predict(da.from_array(blobs, chunks=500))
    np.testing.assert_array_equal(lazy.compute(), model.predict(blobs))


def test_dask_fit_warns_about_clipped_values(dask_client, blobs):
    X = blobs.copy()
    X[:3, 0] = 5.0
    with pytest.warns(ClippingWarning, match="3 of 6000 values"):
        DPOPTICS(epsilon=1.0, bounds=(-2.0, 2.0), random_state=0).fit(
            da.from_array(X, chunks=(1000, 2))
        )


def test_dask_fit_needs_public_bounds(blobs):
    with pytest.raises(ValueError, match="needs public bounds"):
        DPOPTICS(epsilon=1.0, random_state=0).fit(da.from_array(blobs, chunks=1000))
