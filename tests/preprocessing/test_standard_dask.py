"""StandardScaler on dask input: the numpy model for the same seed, nothing loaded."""

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from skdp.preprocessing import StandardScaler

X = np.random.default_rng(0).normal([10.0, -3.0], [2.0, 0.5], size=(3000, 2))
BOUNDS = ([0.0, -6.0], [20.0, 0.0])


def test_dask_fit_is_the_numpy_fit_and_transform_is_lazy():
    local = StandardScaler(bounds=BOUNDS, random_state=0).fit(X)
    remote = StandardScaler(bounds=BOUNDS, random_state=0).fit(da.from_array(X, chunks=700))
    np.testing.assert_allclose(remote.mean_, local.mean_, rtol=1e-12)
    np.testing.assert_allclose(remote.var_, local.var_, rtol=1e-12)
    assert remote.n_samples_seen_ == local.n_samples_seen_
    assert remote.privacy_spent_ == local.privacy_spent_
    out = remote.transform(da.from_array(X, chunks=700))
    assert isinstance(out, da.Array)
    np.testing.assert_allclose(out.compute(), local.transform(X))
    back = remote.inverse_transform(out)
    np.testing.assert_allclose(back.compute(), X)


def test_dask_dataframe_keeps_names_and_needs_declared_bounds():
    frame = dd.from_pandas(pd.DataFrame(X, columns=["a", "b"]), npartitions=3)
    scaler = StandardScaler(bounds={"a": (0, 20), "b": (-6, 0)}, random_state=0).fit(frame)
    assert list(scaler.feature_names_in_) == ["a", "b"]
    with pytest.raises(ValueError, match="needs public bounds"):
        StandardScaler(random_state=0).fit(frame)
