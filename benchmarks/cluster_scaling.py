"""Fit time of DPKMeans against scikit-learn's KMeans on large Gaussian blobs.

    python -m benchmarks cluster_scaling [--rows 1e6] [--n-features 10]
                                         [--n-clusters 8] [--repeats 5]

The data: ``make_blobs`` with the benchmark's blob settings (centres in [-0.6, 0.6]^d,
standard deviation 0.1, public box [-1, 1]^d), ``epsilon = 1``. scikit-learn's
``KMeans`` runs with its defaults (k-means++ and ``n_init="auto"``, i.e. one run to
convergence), which is what a user would call.
"""

import argparse
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from benchmarks._data import BLOBS_STD
from benchmarks._harness import timed_fits
from skdp.cluster import DPKMeans
from skdp.exceptions import ClippingWarning


def main(argv=()):
    parser = argparse.ArgumentParser(prog="python -m benchmarks cluster_scaling")
    parser.add_argument("--rows", default="1e6")
    parser.add_argument("--n-features", type=int, default=10)
    parser.add_argument("--n-clusters", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(list(argv))
    k = args.n_clusters
    print("| rows x features | estimator | fit time (s), mean ± std |\n|---|---|---|")
    for rows in (int(float(r)) for r in args.rows.split(",")):
        X, _ = make_blobs(
            rows, n_features=args.n_features, centers=k, cluster_std=BLOBS_STD,
            center_box=(-0.6, 0.6), random_state=0,
        )  # fmt: skip
        makers = {
            f"DPKMeans({method})": (
                lambda s, m=method: DPKMeans(k, bounds=(-1.0, 1.0), method=m, random_state=s)
            )
            for method in ("lloyd", "grid", "hybrid")
        }
        makers["sklearn KMeans"] = lambda s: KMeans(k, random_state=s)
        for name, make in makers.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ClippingWarning)
                times = timed_fits(make, X, None, args.repeats)
            print(f"| {rows:,} x {args.n_features} | {name} | "
                  f"{np.mean(times):.2f} ± {np.std(times):.2f} |")  # fmt: skip
    return 0
