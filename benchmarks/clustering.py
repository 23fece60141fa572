"""The clustering estimators of the benchmark harness.

``ENTRIES`` lists every private clustering estimator the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks clustering [options]`` (options as in ``benchmarks.utility``),
e.g. ``python -m benchmarks clustering --dataset blobs-d5-n100000 --repeats 20``.
"""

import numpy as np
from sklearn.cluster import KMeans

from benchmarks import utility
from benchmarks._registry import Entry
from skdp.cluster import DPKMeans


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


def main(argv=()):
    return utility.main(argv, families=("clustering",), prog="python -m benchmarks clustering")
