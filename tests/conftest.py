"""Fixtures shared by the test packages."""

import pytest


@pytest.fixture(scope="session")
def dask_client():
    """A loopback dask cluster of two worker processes (skipped without the dask extra)."""
    pytest.importorskip("dask.array", reason="dask is not installed (the dask extra)")
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
