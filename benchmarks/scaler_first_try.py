"""The private scalers' first try: default constructors on small public data sets.

A user's first ``MinMaxScaler().fit(X)`` (``epsilon=1``, nothing declared) on a toy
data set should give transformed training data in a sensible range. For every data
set (Iris, Wine, Breast cancer, diabetes ``X``, digits, and the numeric columns of
Adult, all as DataFrames; Adult from ``SKDP_DATA_HOME``, else its packaged sample: the
``n x d`` column says which) and every seed, this fits the scaler with its defaults and
``random_state=seed`` and reports, over the seeds:

- ``min`` / ``max``: the smallest and largest transformed training value of the worst
  seeds (over all columns);
- ``outside``: the share of transformed training values outside ``[-0.5, 1.5]``
  (MinMaxScaler) or more than 0.5 away from scikit-learn's exact scaler
  (StandardScaler, RobustScaler), mean / worst seed;
- ``span``: the median over the seeds and columns of the 1%-99% spread of each
  transformed column, and its 10th percentile (about 1 for MinMaxScaler when the
  scaling follows the data; near 0 when a column is squeezed into a sliver);
- ``q err``: MinMaxScaler's ``max_j |data_min_j - q01_j| / (q99_j - q01_j)`` against
  the exact 1% and 99% quantiles it estimates (the same for ``data_max_``), median /
  worst seed;
- ``K``: the grids' sizes (``n_candidates_``), ``tier``: the private box's tiers;
  ``CPU ms``: the median ``time.process_time`` of a fit.

::

    python -m benchmarks scaler_first_try
    python -m benchmarks scaler_first_try --estimators MinMaxScaler --seeds 3
"""

import argparse
import sys
import time
import warnings

import numpy as np
import sklearn.preprocessing as sk_preprocessing
from sklearn import datasets as sk_datasets

import skdp.preprocessing as dp_preprocessing
from skdp.datasets import fetch_adult

ESTIMATORS = ("MinMaxScaler", "StandardScaler", "RobustScaler")
TOYS = ("iris", "wine", "breast_cancer", "diabetes", "digits")


def frames(data_home=None):
    """``{name: DataFrame}`` of the six data sets' numeric columns."""
    out = {name: getattr(sk_datasets, f"load_{name}")(as_frame=True).data for name in TOYS}
    # the full file from the data home, else the packaged sample (with a warning)
    adult = fetch_adult(data_home=data_home, sample="auto").data
    out["adult_numeric"] = adult.select_dtypes("number")
    return out


def measure(name, X, seeds):
    """One row of the table: :mod:`benchmarks.scaler_first_try`'s figures over ``seeds``."""
    values = X.to_numpy(dtype=float)
    exact = None if name == "MinMaxScaler" else getattr(sk_preprocessing, name)().fit_transform(X)
    q = np.quantile(values, [0.01, 0.99], axis=0)
    width = np.where(q[1] > q[0], q[1] - q[0], 1.0)
    varying = np.ptp(values, axis=0) > 0
    low, high, outside, spans, err_min, err_max, cpu = [], [], [], [], [], [], []
    sizes, tiers = set(), set()
    for seed in seeds:
        start = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scaler = getattr(dp_preprocessing, name)(random_state=seed).fit(X)
        cpu.append(time.process_time() - start)
        Z = np.asarray(scaler.transform(X), dtype=float)
        low.append(Z.min())
        high.append(Z.max())
        if exact is None:
            outside.append(np.mean((Z < -0.5) | (Z > 1.5)))
            err_min.append(np.max(np.abs(scaler.data_min_ - q[0]) / width))
            err_max.append(np.max(np.abs(scaler.data_max_ - q[1]) / width))
        else:
            outside.append(np.mean(np.abs(Z - exact) > 0.5))
        spread = np.quantile(Z, [0.01, 0.99], axis=0)
        spans.extend((spread[1] - spread[0])[varying])
        sizes.add(getattr(scaler, "n_candidates_", None))
        tiers.add(scaler.bounds_tier_)
    row = {
        "min": f"{min(low):.3g}",
        "max": f"{max(high):.3g}",
        "outside": f"{np.mean(outside):.4f} / {max(outside):.4f}",
        "span": f"{np.median(spans):.3g} / {np.quantile(spans, 0.1):.3g}",
        "q err min": f"{np.median(err_min):.3g} / {max(err_min):.3g}" if err_min else "",
        "q err max": f"{np.median(err_max):.3g} / {max(err_max):.3g}" if err_max else "",
        "K": _listed(sizes),
        "tier": _listed(tiers),
        "CPU ms": f"{1e3 * np.median(cpu):.1f}",
    }
    if exact is not None:
        row["exact min / max"] = f"{exact.min():.3g} / {exact.max():.3g}"
    return row


def _listed(values):
    return ",".join(str(v) for v in sorted(values, key=lambda v: (v is None, v or 0)))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks scaler_first_try", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--estimators", default=",".join(ESTIMATORS))
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 (default 10)")
    parser.add_argument("--data-home", default=None, help="for fetch_adult")
    args = parser.parse_args(argv)
    data = frames(args.data_home)
    for name in args.estimators.split(","):
        rows = {key: measure(name, X, range(args.seeds)) for key, X in data.items()}
        columns = list(next(iter(rows.values())))
        print(f"\n{name}(), defaults, seeds 0-{args.seeds - 1}\n")
        print("| data | n x d | " + " | ".join(columns) + " |")
        print("|---" * (len(columns) + 2) + "|")
        for key, row in rows.items():
            shape = "x".join(map(str, data[key].shape))
            print(f"| {key} | {shape} | " + " | ".join(row.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
