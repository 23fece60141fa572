"""DPKMeans on dask collections: the same model as on numpy, without loading the data."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from skdp.cluster import DPKMeans
from skdp.exceptions import ClippingWarning

da = pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
dd = pytest.importorskip("dask.dataframe", reason="dask is not installed (the dask extra)")

BOUNDS = (-4.0, 4.0)


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(
        n_samples=3000, centers=[[-2, -2], [2, 2], [-2, 2]], cluster_std=0.4, random_state=0
    )
    return X


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("method", ["lloyd", "grid", "hybrid"])
def test_dask_fit_gives_the_numpy_model(dask_client, blobs, method, seed):
    params = {"epsilon": 1.0, "bounds": BOUNDS, "method": method, "random_state": seed}
    local = DPKMeans(3, **params).fit(blobs)
    remote = DPKMeans(3, **params).fit(da.from_array(blobs, chunks=(700, 2)))
    np.testing.assert_allclose(remote.cluster_centers_, local.cluster_centers_, rtol=1e-9)
    np.testing.assert_array_equal(remote.cluster_counts_, local.cluster_counts_)
    assert remote.n_iter_ == local.n_iter_
    assert remote.grid_shape_ == local.grid_shape_
    assert remote.n_samples_estimate_ == local.n_samples_estimate_
    assert remote.privacy_spent_ == local.privacy_spent_
    assert isinstance(remote.labels_, da.Array)
    np.testing.assert_array_equal(remote.labels_.compute(), local.labels_)
    # the comparison is not vacuous: the three blobs are found
    assert np.abs(np.sort(local.cluster_centers_[:, 0])[[0, -1]]).min() > 1.0


def test_dask_dataframe_sets_feature_names_and_takes_bounds_by_name(dask_client, blobs):
    frame = dd.from_array(blobs, columns=["x", "y"], chunksize=1000)
    by_name = {"y": BOUNDS, "x": BOUNDS}
    model = DPKMeans(3, epsilon=1.0, bounds=by_name, max_iter=2, random_state=0).fit(frame)
    np.testing.assert_array_equal(model.feature_names_in_, ["x", "y"])
    same = DPKMeans(3, epsilon=1.0, bounds=BOUNDS, max_iter=2, random_state=0).fit(blobs)
    np.testing.assert_allclose(model.cluster_centers_, same.cluster_centers_, rtol=1e-9)


def test_predict_transform_score_on_dask(dask_client, blobs):
    model = DPKMeans(3, epsilon=1.0, bounds=BOUNDS, max_iter=2, random_state=0).fit(blobs)
    lazy = da.from_array(blobs, chunks=(800, 2))
    labels, distances = model.predict(lazy), model.transform(lazy)
    assert isinstance(labels, da.Array) and isinstance(distances, da.Array)
    assert labels.dtype == np.int64 and distances.shape == (len(blobs), 3)
    np.testing.assert_array_equal(labels.compute(), model.predict(blobs))
    np.testing.assert_allclose(distances.compute(), model.transform(blobs), rtol=1e-12)
    assert model.score(lazy) == pytest.approx(model.score(blobs), rel=1e-9)
    weights = np.random.default_rng(0).uniform(0, 2, size=len(blobs))
    expected = model.score(blobs, sample_weight=weights)
    assert model.score(lazy, sample_weight=weights) == pytest.approx(expected, rel=1e-9)
    dask_weights = da.from_array(weights, chunks=500)
    assert model.score(lazy, sample_weight=dask_weights) == pytest.approx(expected, rel=1e-9)
    with pytest.raises(ValueError, match="features"):
        model.predict(da.from_array(np.ones((10, 3)), chunks=5))


def test_dask_fit_warns_about_clipped_values(dask_client, blobs):
    X = blobs.copy()
    X[:3, 0], X[1000, 1] = 5.0, -7.0
    with pytest.warns(ClippingWarning, match="^4 of 6000 values of X"):
        DPKMeans(3, epsilon=1.0, bounds=BOUNDS, max_iter=1, random_state=0).fit(
            da.from_array(X, chunks=(1000, 2))
        )


def test_dask_fit_needs_public_bounds(blobs):
    with pytest.raises(ValueError, match="needs public bounds"):
        DPKMeans(3, epsilon=1.0, random_state=0).fit(da.from_array(blobs, chunks=1000))


def test_one_dask_computation_per_lloyd_iteration(blobs):
    """Counts and sums of one iteration come back together: every iteration adds exactly
    one computation to a fixed preamble (the clipped rows persisted, the clipped count),
    and the grid is one computation too."""
    import dask
    from dask.callbacks import Callback

    class Computations(Callback):
        def __init__(self):
            super().__init__()
            self.count = 0

        def _start(self, dsk):
            self.count += 1

    def computations(**params):
        counter = Computations()
        with dask.config.set(scheduler="sync"), counter:
            model = DPKMeans(3, epsilon=1.0, bounds=BOUNDS, random_state=0, **params)
            model.fit(da.from_array(blobs, chunks=(700, 2)))
        return counter.count

    preamble = computations(method="lloyd", max_iter=1) - 1
    assert computations(method="lloyd", max_iter=4) == preamble + 4
    assert computations(method="grid") == preamble + 1
    # the hybrid: one computation per level of its tree histogram, then per iteration
    assert computations(method="hybrid", max_iter=2) == preamble + 2 + 2
