"""
==========================================
Scaling out on Dask: data and model search
==========================================

skdp estimators read their training records only through a few exact aggregates
(counts per grid cell, per-cluster sums, ``X^T X``, ...). On a dask collection those
aggregates are computed block by block where the blocks live; only the small results
come back, and the noise is added once, on the driver, exactly as for a numpy array.
With the same ``random_state``, the numpy fit and the dask fit release the same model.

This example starts a small local cluster (two workers in this process, so that the
example runs anywhere; in production, connect a :class:`distributed.Client` to your
cluster's scheduler instead), fits
:class:`~skdp.cluster.DPOPTICS` on a dask array that is never loaded into the driver,
and runs a :class:`~sklearn.model_selection.GridSearchCV` over ``epsilon`` on joblib's
dask backend, with :func:`skdp.privacy_spent` counting every fit the workers ran.
"""

# %%
# A local cluster
# ---------------
import dask.array as da
import joblib
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster
from sklearn.datasets import make_blobs, make_classification
from sklearn.model_selection import GridSearchCV

from skdp import PrivacyLedger, privacy_spent
from skdp.cluster import DPOPTICS
from skdp.linear_model import ObjectivePerturbationLogistic

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
client = Client(cluster)

# %%
# Fitting on a dask array
# -----------------------
# 200,000 points in 20 blocks. In real use the blocks would come from files
# (``da.from_zarr``, ``dask.dataframe.read_parquet``, a memory-mapped ``.npy``...).
# The bounds are public (a dask fit refuses to estimate them from the data), so
# nothing about the output's shape is read from the records.
X, _ = make_blobs(
    n_samples=200_000, centers=[[-1, -1], [1, 1], [-1, 1]], cluster_std=0.25, random_state=0
)
X_dask = da.from_array(X, chunks=(10_000, 2))
params = {"epsilon": 0.5, "bounds": (-2.5, 2.5), "min_samples": 200, "random_state": 0}

on_cluster = DPOPTICS(**params).fit(X_dask)
in_memory = DPOPTICS(**params).fit(X)
same = np.array_equal(on_cluster.histogram_, in_memory.histogram_)
print(f"same noisy histogram as the numpy fit: {same}")
print(f"noisy records per cluster: {on_cluster.cluster_counts_}")

# %%
# ``labels_`` of a dask fit is itself a lazy dask array: compute it (or write it out)
# when you need it.
labels = on_cluster.labels_.compute()
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
left.scatter(X[::20, 0], X[::20, 1], c=labels[::20], s=2, cmap="viridis")
left.set_title("DPOPTICS fitted on a dask array")
reach = on_cluster.reachability_
reach = np.where(np.isfinite(reach), reach, np.nan)  # the first cell of each run is inf
right.bar(range(reach.size), reach, width=1.0)
right.set_title("reachability of the grid cells")
fig.tight_layout()

# %%
# A grid search over epsilon on the cluster
# -----------------------------------------
# scikit-learn's searches run their fits through joblib; joblib's ``"dask"`` backend
# sends them to the cluster's workers. Nothing in skdp needs to know. The privacy cost
# is counted from the fitted search itself, so it includes the fits that ran on the
# workers: a :class:`~skdp.PrivacyLedger` sees only the mechanism calls made in its own
# thread, here the refit.
Xc, yc = make_classification(n_samples=5000, n_features=6, random_state=0)
search = GridSearchCV(
    ObjectivePerturbationLogistic(data_norm=8.0, classes=[0, 1], random_state=0),
    {"epsilon": [0.25, 0.5, 1.0, 2.0]},
    cv=3,
    n_jobs=-1,
)
with PrivacyLedger() as here, joblib.parallel_backend("dask"):
    search.fit(Xc, yc)
print(f"best: {search.best_params_}")
print(f"spent by the whole search: {privacy_spent(search)}")
print(f"seen by a ledger in this thread (the refit only): {here.total}")

# %%
# The search spent far more than the model it returns. Remember, too, that the
# cross-validation scores in ``cv_results_`` are computed exactly on private held-out
# rows: they are not a private release (see the privacy model page).

client.close()
cluster.close()
