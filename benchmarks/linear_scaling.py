"""Linear models on synthetic data: accuracy as n grows, and fit time against sklearn.

    python -m benchmarks linear_scaling [--sizes 1e4,1e5,1e6,1e7] [--n-features 10]
                                        [--epsilon 1] [--repeats 5]
    python -m benchmarks linear_scaling --timing [--timing-rows 1e6] [--timing-features 20]
                                        [--family linear|svm]

The data: features uniform in [-1, 1]^p (the public bounds), y = X w + N(0, 0.5^2) with a
fixed w, clipped to the public target bounds [-4, 4]; classification labels are
1{X w + logistic noise > 0}. The private models get the public bounds only.
"""

import argparse
import math
import warnings

import numpy as np
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import accuracy_score, r2_score
from sklearn.svm import LinearSVC

from benchmarks._harness import timed_fits
from benchmarks._report import spread_text
from skdp.exceptions import ClippingWarning
from skdp.linear_model import (
    FunctionalMechanismClassifier,
    FunctionalMechanismRegressor,
    ObjectivePerturbationLogistic,
)
from skdp.svm import PrivateSVM

TARGET_BOUNDS = (-4.0, 4.0)


def make_linear(n_samples, n_features, *, classification=False, seed=0):
    """Synthetic data in the public box; the same ``w`` for every seed."""
    w = np.random.default_rng(12345).uniform(-1, 1, n_features) * 2 / math.sqrt(n_features)
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n_samples, n_features))
    signal = X @ w
    if classification:
        return X, (signal + rng.logistic(scale=0.3, size=n_samples) > 0).astype(int)
    return X, np.clip(signal + rng.normal(scale=0.5, size=n_samples), *TARGET_BOUNDS)


def _regressor(epsilon, seed):
    return FunctionalMechanismRegressor(
        epsilon=epsilon, bounds=(-1.0, 1.0), bounds_y=TARGET_BOUNDS, random_state=seed
    )


def _classifiers(epsilon, seed, n_features):
    return {
        "ObjectivePerturbationLogistic": ObjectivePerturbationLogistic(
            epsilon=epsilon, data_norm=math.sqrt(n_features), classes=[0, 1], random_state=seed
        ),
        "FunctionalMechanismClassifier": FunctionalMechanismClassifier(
            epsilon=epsilon, bounds=(-1.0, 1.0), classes=[0, 1], random_state=seed
        ),
    }


def _mean_std(values):
    return spread_text(values, digits=4)


def accuracy_vs_n(sizes, n_features, epsilon, repeats):
    print(f"| n | FM regressor R^2 (eps={epsilon:g}) | LinearRegression R^2 | "
          "ObjPert accuracy | FM classifier accuracy | LogisticRegression accuracy |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    X_test, y_test = make_linear(100_000, n_features, seed=10**6)
    Xc_test, yc_test = make_linear(100_000, n_features, classification=True, seed=10**6)
    for n in sizes:
        r2, r2_np, acc = [], [], {}
        for seed in range(repeats):
            X, y = make_linear(n, n_features, seed=seed)
            r2.append(r2_score(y_test, _regressor(epsilon, seed).fit(X, y).predict(X_test)))
            if seed == 0:
                r2_np.append(r2_score(y_test, LinearRegression().fit(X, y).predict(X_test)))
            Xc, yc = make_linear(n, n_features, classification=True, seed=seed)
            for name, model in _classifiers(epsilon, seed, n_features).items():
                model.fit(Xc, yc)
                acc.setdefault(name, []).append(accuracy_score(yc_test, model.predict(Xc_test)))
            if seed == 0:
                base = LogisticRegression(max_iter=1000).fit(Xc, yc)
                acc["LogisticRegression"] = [accuracy_score(yc_test, base.predict(Xc_test))]
        cells = [_mean_std(r2), f"{r2_np[0]:.4f}"] + [
            _mean_std(acc[k])
            for k in ("ObjectivePerturbationLogistic", "FunctionalMechanismClassifier")
        ]
        cells.append(f"{acc['LogisticRegression'][0]:.4f}")
        print(f"| {n:,} | " + " | ".join(cells) + " |", flush=True)


def _svm(mechanism, n_features):
    def make(seed):
        return PrivateSVM(
            epsilon=1.0, C=0.1, mechanism=mechanism, data_norm=math.sqrt(n_features),
            classes=[0, 1], random_state=seed,
        )  # fmt: skip

    return make


def timing(n_rows, n_features, repeats, family="linear"):
    X, y = make_linear(n_rows, n_features, seed=0)
    Xc, yc = make_linear(n_rows, n_features, classification=True, seed=0)
    svm_pairs = [
        ("PrivateSVM(output)", _svm("output", n_features), Xc, yc),
        ("PrivateSVM(objective)", _svm("objective", n_features), Xc, yc),
        ("sklearn LinearSVC", lambda s: LinearSVC(C=0.1, random_state=s), Xc, yc),
    ]
    linear_pairs = [
        ("FunctionalMechanismRegressor", lambda s: _regressor(1.0, s), X, y),
        ("sklearn LinearRegression", lambda s: LinearRegression(), X, y),
        ("ObjectivePerturbationLogistic",
         lambda s: _classifiers(1.0, s, n_features)["ObjectivePerturbationLogistic"], Xc, yc),
        ("FunctionalMechanismClassifier",
         lambda s: _classifiers(1.0, s, n_features)["FunctionalMechanismClassifier"], Xc, yc),
        ("sklearn LogisticRegression", lambda s: LogisticRegression(max_iter=1000), Xc, yc),
    ]  # fmt: skip
    pairs = svm_pairs if family == "svm" else linear_pairs
    print(f"| {n_rows:,} x {n_features} | fit time (s), mean ± std over {repeats} |")
    print("|---|---|")
    for name, make, data, target in pairs:
        times = timed_fits(make, data, target, repeats)
        print(f"| {name} | {np.mean(times):.3f} ± {np.std(times):.3f} |", flush=True)


def main(argv=()):
    parser = argparse.ArgumentParser(prog="python -m benchmarks linear_scaling")
    parser.add_argument("--sizes", default="1e4,1e5,1e6,1e7")
    parser.add_argument("--n-features", type=int, default=10)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--timing", action="store_true", help="fit times instead")
    parser.add_argument("--timing-rows", type=float, default=1e6)
    parser.add_argument("--timing-features", type=int, default=20)
    parser.add_argument("--family", choices=("linear", "svm"), default="linear")
    args = parser.parse_args(list(argv))
    warnings.simplefilter("ignore", ClippingWarning)
    if args.timing:
        timing(int(args.timing_rows), args.timing_features, args.repeats, args.family)
    else:
        sizes = [int(float(s)) for s in args.sizes.split(",")]
        accuracy_vs_n(sizes, args.n_features, args.epsilon, args.repeats)
    return 0
