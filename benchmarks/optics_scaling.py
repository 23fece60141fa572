"""Fit time of DPOPTICS against scikit-learn's OPTICS on the 2-D density blobs.

    python -m benchmarks optics_scaling [--rows 1e4,1e5,1e6] [--repeats 5]
                                        [--sklearn-max-rows 1e5]

The data: the ``dblobs2`` benchmark task (four Gaussian blobs, sd 0.1, in the public box
[-1, 1]^2) at each size, ``min_samples`` 20 per 10^4 rows, ``epsilon = 1``. DPOPTICS
runs with the xi extraction (``max_eps`` 0.1) and the DBSCAN cut (``eps`` 0.1).
scikit-learn's ``OPTICS`` runs with the same ``min_samples`` and ``max_eps=0.1`` (and
with its default ``max_eps=inf`` at 10^4 rows only: it is quadratic), up to
``--sklearn-max-rows``.
"""

import argparse
import warnings

import numpy as np
from sklearn.cluster import OPTICS

from benchmarks._data import _density
from benchmarks._harness import timed_fits
from skdp.cluster import DPOPTICS
from skdp.exceptions import ClippingWarning

EPS = 0.1


def _makers(min_samples, rows, sklearn_max_rows):
    makers = {
        "DPOPTICS(xi)": lambda s: DPOPTICS(
            bounds=(-1.0, 1.0), min_samples=min_samples, max_eps=EPS,
            min_cluster_size=0.05, random_state=s,
        ),
        "DPOPTICS(dbscan)": lambda s: DPOPTICS(
            bounds=(-1.0, 1.0), min_samples=min_samples, cluster_method="dbscan", eps=EPS,
            random_state=s,
        ),
    }  # fmt: skip
    if rows <= sklearn_max_rows:
        makers["sklearn OPTICS(max_eps=0.1)"] = lambda s: OPTICS(
            min_samples=min_samples, max_eps=EPS, min_cluster_size=0.05
        )
    if rows <= 10_000:
        makers["sklearn OPTICS(max_eps=inf)"] = lambda s: OPTICS(
            min_samples=min_samples, min_cluster_size=0.05
        )
    return makers


def main(argv=()):
    parser = argparse.ArgumentParser(prog="python -m benchmarks optics_scaling")
    parser.add_argument("--rows", default="1e4,1e5,1e6")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sklearn-max-rows", default="1e5")
    args = parser.parse_args(list(argv))
    sklearn_max_rows = int(float(args.sklearn_max_rows))
    print("| rows | estimator | fit time (s), mean ± std | repeats |\n|---|---|---|---|")
    for rows in (int(float(r)) for r in args.rows.split(",")):
        X = _density("dblobs2", rows)[0].X_train.to_numpy()
        min_samples = max(5, round(20 * rows / 10_000))
        for name, make in _makers(min_samples, rows, sklearn_max_rows).items():
            repeats = args.repeats if name.startswith("DP") or rows <= 10_000 else 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ClippingWarning)
                times = timed_fits(make, X, None, repeats)
            print(f"| {rows:,} | {name} | {np.mean(times):.3f} ± {np.std(times):.3f} "
                  f"| {repeats} |", flush=True)  # fmt: skip
    return 0
