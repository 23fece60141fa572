"""The clustering estimators of the benchmark harness.

``ENTRIES`` lists every private clustering estimator the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks clustering [options]`` (options as in ``benchmarks.utility``),
e.g. ``python -m benchmarks clustering --dataset blobs-d5-n100000 --repeats 20``.
"""

import numpy as np
from sklearn.cluster import DBSCAN, OPTICS, KMeans

from benchmarks import utility
from benchmarks._registry import Entry
from skdp.cluster import DPOPTICS, DPKMeans


def _dp_kmeans(method):
    def build(task, epsilon, seed):
        return DPKMeans(
            task.public["n_clusters"],
            epsilon=epsilon,
            bounds=task.public["bounds"],
            method=method,
            random_state=seed,
        )

    return build


def _kmeans(task, seed):
    return KMeans(task.public["n_clusters"], random_state=seed)


def _diffprivlib_kmeans(task, epsilon, seed):
    from diffprivlib.models import KMeans as DiffprivlibKMeans

    columns = task.X_train.columns
    lower, upper = (np.array([task.public["bounds"][c][i] for c in columns]) for i in (0, 1))
    return DiffprivlibKMeans(
        task.public["n_clusters"], epsilon=epsilon, bounds=(lower, upper), random_state=seed
    )


def _has_clusters(task):
    return "n_clusters" in task.public and "bounds" in task.public


ENTRIES = [
    Entry(
        name=f"DPKMeans({method})",
        task="clustering",
        private=_dp_kmeans(method),
        baseline=_kmeans,
        baseline_name="KMeans",
        diffprivlib=_diffprivlib_kmeans,
        supports=_has_clusters,
    )
    for method in ("lloyd", "grid", "hybrid")
]


def _dp_optics(method):
    def build(task, epsilon, seed):
        return DPOPTICS(
            epsilon=epsilon,
            bounds=task.public["bounds"],
            min_samples=task.public["min_samples"],
            cluster_method=method,
            # the grid resolves the DBSCAN eps; xi and eom clusters have at least 5% of
            # the records
            eps=task.public["eps"] if method == "dbscan" else None,
            max_eps=task.public["eps"] if method != "dbscan" else np.inf,
            min_cluster_size=task.public["min_cluster_size"] if method != "dbscan" else None,
            random_state=seed,
        )

    return build


def _too_large_for_sklearn(task):
    if task.n_train > 100_000:
        raise ValueError("scikit-learn's exact density clustering is not run above 10^5 rows")


def _optics(task, seed):
    _too_large_for_sklearn(task)
    return OPTICS(
        min_samples=task.public["min_samples"],
        max_eps=task.public["eps"],
        min_cluster_size=task.public["min_cluster_size"],
    )


def _dbscan(task, seed):
    _too_large_for_sklearn(task)
    return _Predicting(DBSCAN(eps=task.public["eps"], min_samples=task.public["min_samples"]))


class _Predicting:
    """sklearn's density clusterers have no predict: score their training labels."""

    def __init__(self, model):
        self.model = model

    def fit(self, X, y=None):
        self.labels_ = self.model.fit_predict(X)
        return self

    def predict(self, X):
        return self.labels_


def _density_task(task):
    return "min_samples" in task.public and "bounds" in task.public


def _optics_baseline(task, seed):
    return _Predicting(_optics(task, seed))


ENTRIES += [
    Entry(
        name=f"DPOPTICS({method})",
        task="clustering",
        private=_dp_optics(method),
        baseline=_dbscan if method == "dbscan" else _optics_baseline,
        baseline_name="DBSCAN" if method == "dbscan" else "OPTICS",
        supports=_density_task,
    )
    for method in ("eom", "xi", "dbscan")
]


def main(argv=()):
    return utility.main(argv, families=("clustering",), prog="python -m benchmarks clustering")
