"""Per-cluster counts of DPOPTICS: homoscedastic against heteroscedastic budgets.

    python -m benchmarks optics_counts [--repeats 20] [--epsilons 0.1,0.3,...]

The seed paper's Figure 2 experiment (DP-OPTICS): the relative error of the released
per-cluster counts when dense and sparse clusters get the same epsilon
(``sparse_budget_ratio=1``) or sparse ones 1/20 of it (``sparse_budget_ratio=0.05``).
The data: 2-D Gaussian blobs of 4000, 3000, 400, 200 and 100 records (sd 0.05) in the
public box [-1, 1]^2; DPOPTICS with the DBSCAN cut at eps 0.1 and ``min_samples`` 10.
Both settings run on the same seed, so they share the noisy histogram and clustering and
differ only in the counts. The exact count of a cluster is the number of records in its
cells (what ``cluster_counts_`` estimates); the relative error is
``|noisy - exact| / exact``, averaged over the clusters with less noisy mass than the
median cluster (sparse) and over the others (dense), then over the repeats.
"""

import argparse
import warnings

import numpy as np
from sklearn.datasets import make_blobs

from skdp.cluster import DPOPTICS
from skdp.exceptions import ClippingWarning

SIZES = (4000, 3000, 400, 200, 100)
CENTRES = [[-0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [0.5, -0.5], [0.0, 0.0]]
SEED_EPSILONS = "0.1,0.3,0.5,1.0,1.2,1.3,1.5"


def blob_errors(model, blobs):
    """Relative count error of the cluster holding most of each blob (nan: not found).

    A blob is found when one cluster holds at least half of its records; the error is
    that cluster's ``|noisy - exact| / exact``.
    """
    exact = np.bincount(model.labels_[model.labels_ >= 0], minlength=model.cluster_counts_.size)
    errors = np.full(len(SIZES), np.nan)
    for blob in range(len(SIZES)):
        labels = model.labels_[blobs == blob]
        held = np.bincount(labels[labels >= 0], minlength=exact.size)
        if held.size and held.max() >= labels.size / 2:
            cluster = held.argmax()
            errors[blob] = abs(model.cluster_counts_[cluster] - exact[cluster]) / exact[cluster]
    return errors


def main(argv=()):
    parser = argparse.ArgumentParser(prog="python -m benchmarks optics_counts")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--epsilons", default=SEED_EPSILONS)
    args = parser.parse_args(list(argv))
    X, blobs = make_blobs(list(SIZES), centers=CENTRES, cluster_std=0.05, random_state=0)
    dense = np.asarray(SIZES) >= 1000
    print("| epsilon | budgets | sparse blobs (400, 200, 100) | dense blobs (4000, 3000) "
          "| blobs found | clusters |\n|---|---|---|---|---|---|")  # fmt: skip
    for epsilon in (float(e) for e in args.epsilons.split(",")):
        for label, ratio in (("homoscedastic", 1.0), ("heteroscedastic 1:20", 0.05)):
            errors, clusters = [], []
            for seed in range(args.repeats):
                model = DPOPTICS(
                    epsilon=epsilon, bounds=(-1.0, 1.0), min_samples=10,
                    cluster_method="dbscan", eps=0.1, sparse_budget_ratio=ratio,
                    random_state=seed,
                )  # fmt: skip
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ClippingWarning)
                    model.fit(X)
                errors.append(blob_errors(model, blobs))
                clusters.append(model.cluster_counts_.size)
            errors = np.array(errors)
            cells = [
                f"{np.nanmean(errors[:, group]):.4f} ± {np.nanstd(errors[:, group]):.4f}"
                for group in (~dense, dense)
            ]
            print(f"| {epsilon:g} | {label} | {cells[0]} | {cells[1]} "
                  f"| {np.isfinite(errors).mean():.0%} | {np.mean(clusters):.1f} |")  # fmt: skip
    return 0
