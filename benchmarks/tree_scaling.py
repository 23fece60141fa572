"""Fit time of DPDecisionTree against scikit-learn's tree on Adult and replicated Adult.

    python -m benchmarks tree_scaling [--factors 1,10] [--repeats 3]

Adult (30,162 training rows without missing values) is replicated ``factor`` times to
show how the fit scales with the number of rows; ``n_levels=13``, ``epsilon=1``.
"""

import argparse

import numpy as np
import pandas as pd

from benchmarks._data import load_tasks
from benchmarks._harness import timed_fits
from benchmarks.classification import ENTRIES, _c45_like


def main(argv=()):
    parser = argparse.ArgumentParser(prog="python -m benchmarks tree_scaling")
    parser.add_argument("--factors", default="1,10")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args(list(argv))
    task = load_tasks("adult", args.data_home)[0]
    print("| rows | estimator | fit time (s), mean ± std |\n|---|---|---|")
    for factor in (int(f) for f in args.factors.split(",")):
        X = pd.concat([task.X_train] * factor, ignore_index=True)
        y = pd.concat([task.y_train] * factor, ignore_index=True)
        makers = {e.name: (lambda s, e=e: e.private(task, 1.0, s).set_params(n_levels=13))
                  for e in ENTRIES if e.name.startswith("DPDecisionTree")}  # fmt: skip
        makers["sklearn DecisionTreeClassifier"] = lambda s: _c45_like(task, s)
        for name, make in makers.items():
            times = timed_fits(make, X, y, args.repeats)
            mean, std = np.mean(times), np.std(times)
            print(f"| {len(X):,} | {name} | {mean:.2f} ± {std:.2f} |")
    return 0
