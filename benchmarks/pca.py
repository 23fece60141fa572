"""Private PCA against scikit-learn's and diffprivlib's: ``python -m benchmarks pca``.

On Iris, Wine and Adult's six numeric columns, split 70/30 (stratified, one split per
seed) and standardised with the training rows' mean and deviation (public for this
benchmark, the same on every side), every estimator fits ``n_components`` (Iris 2,
Wine 4, Adult 3) on the training rows. Two scores, on the held-out rows:

* ``var2`` / ``vark``: the share of the held-out (centred) variance captured by the
  first 2 / all ``n_components`` released directions;
* ``accuracy``: a non-private ``LogisticRegression`` fitted on the projected training
  rows, scored on the projected test rows.

Sides: ``skdp`` with declared ``bounds=(-3, 3)`` and ``data_norm=1.5 sqrt(d)``;
``skdp(default)`` with nothing declared (private bounds and norm); diffprivlib's
``PCA`` with the same declared ``bounds`` and ``data_norm`` (when it imports: run with
the Python of an environment that has it, e.g. the one ``python -m benchmarks
compare`` builds); scikit-learn's ``PCA``. Tables: mean ± std (worst seed, 10th
percentile) per epsilon. Adult needs ``SKDP_DATA_HOME``; without it the shipped
sample is used (``fetch_adult(sample="auto")``).
"""

import argparse
import signal
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_iris, load_wine
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from benchmarks import _registry
from benchmarks._report import spread_text

N_COMPONENTS = {"iris": 2, "wine": 4, "adult": 3}
ADULT_NUMERIC = [
    "age",
    "fnlwgt",
    "education-num",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
]
BOUND = 3.0  # declared box of the standardised features
NORM_FACTOR = 1.5  # declared data_norm = NORM_FACTOR * sqrt(d)
TIMEOUT_S = 120  # per fit: diffprivlib's sampler can stall (spec B5)


def load(name):
    """``(X, y)`` of one dataset, numeric."""
    if name == "iris":
        return load_iris(return_X_y=True)
    if name == "wine":
        return load_wine(return_X_y=True)
    from skdp.datasets import fetch_adult

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        bunch = fetch_adult(sample="auto")
    y = (bunch.target == ">50K").to_numpy().astype(int)
    return bunch.data[ADULT_NUMERIC].to_numpy(float), y


def splits(name, seeds):
    """Standardised train/test splits, one per seed."""
    X, y = load(name)
    for seed in seeds:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
        scaler = StandardScaler().fit(Xtr)
        yield seed, scaler.transform(Xtr), scaler.transform(Xte), ytr, yte


def models(k, d, epsilon, seed, dpl):
    """``{side: unfitted estimator}`` at one epsilon."""
    from skdp.decomposition import PCA

    lower, upper, norm = np.full(d, -BOUND), np.full(d, BOUND), NORM_FACTOR * np.sqrt(d)
    out = {
        "skdp": PCA(k, epsilon=epsilon, bounds=(lower, upper), data_norm=norm, random_state=seed),
        "skdp(default)": PCA(k, epsilon=epsilon, random_state=seed),
    }
    if dpl:
        from diffprivlib.models import PCA as DiffprivlibPCA

        out["diffprivlib"] = DiffprivlibPCA(
            k, epsilon=epsilon, bounds=(lower, upper), data_norm=norm, random_state=seed
        )
    return out


def captured(components, X):
    """Share of the centred variance of ``X`` in the span of ``components``."""
    centred = X - X.mean(axis=0)
    basis = np.linalg.qr(np.asarray(components).T)[0]
    return float(np.sum((centred @ basis) ** 2) / np.sum(centred**2))


def _timeout(*_):
    raise TimeoutError


def score(model, Xtr, Xte, ytr, yte):
    """The three scores and the fit time of one model (never writes to the arrays)."""
    start = time.perf_counter()
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _timeout)
        signal.alarm(TIMEOUT_S)
    try:
        model.fit(Xtr.copy())  # diffprivlib 0.6.6 subtracts its mean in place
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)
    seconds = time.perf_counter() - start
    V = model.components_
    lr = LogisticRegression(max_iter=2000).fit(model.transform(Xtr.copy()), ytr)
    return {
        "var2": captured(V[:2], Xte),
        "vark": captured(V, Xte),
        "accuracy": lr.score(model.transform(Xte.copy()), yte),
        "fit_s": seconds,
    }


def run(datasets, epsilons, seeds, dpl):
    rows = []
    for name in datasets:
        k = N_COMPONENTS[name]
        for seed, Xtr, Xte, ytr, yte in splits(name, seeds):
            base = score(SklearnPCA(k), Xtr, Xte, ytr, yte)
            rows.append(
                {"dataset": name, "side": "sklearn", "epsilon": np.inf, "seed": seed, **base}
            )
            for epsilon in epsilons:
                for side, model in models(k, Xtr.shape[1], epsilon, seed, dpl).items():
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            result = score(model, Xtr, Xte, ytr, yte)
                    except TimeoutError:
                        result = {"timeout": True}
                    rows.append(
                        {"dataset": name, "side": side, "epsilon": epsilon, "seed": seed, **result}
                    )
    return pd.DataFrame(rows)


def report(runs):
    """One Markdown table per dataset and score: sides in columns, epsilons in rows."""
    lines = []
    for name, data in runs.groupby("dataset", sort=False):
        for metric in ("var2", "vark", "accuracy"):
            sides = list(dict.fromkeys(data["side"]))
            lines += [f"\n{name}, {metric}: mean ± std (worst seed, p10)\n"]
            lines += ["| epsilon | " + " | ".join(sides) + " |"]
            lines += ["|---" * (len(sides) + 1) + "|"]
            for epsilon, cell in data.groupby("epsilon"):
                texts = []
                for side in sides:
                    scores = cell.loc[cell["side"] == side, metric].dropna()
                    texts.append(spread_text(scores) if len(scores) else "")
                lines += [f"| {epsilon:g} | " + " | ".join(texts) + " |"]
    return "\n".join(lines) + "\n"


def parser():
    p = argparse.ArgumentParser(
        prog="python -m benchmarks pca", description=__doc__.split("\n")[0]
    )
    p.add_argument("--datasets", default="iris,wine,adult")
    p.add_argument("--epsilons", default="0.1,0.5,1,2,5")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--no-diffprivlib", action="store_true")
    p.add_argument("--out", default="benchmark_results/pca")
    return p


def main(argv=()):
    args = parser().parse_args(list(argv))
    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    unknown = sorted(set(datasets) - set(N_COMPONENTS))
    if unknown:
        sys.exit(f"error: unknown datasets {unknown}; choose from {', '.join(N_COMPONENTS)}")
    dpl, info = (False, "skipped") if args.no_diffprivlib else _registry.diffprivlib_status()
    epsilons = [float(e) for e in args.epsilons.split(",")]
    runs = run(datasets, epsilons, range(args.seeds), dpl)
    text = report(runs) + f"\ndiffprivlib: {info}\n"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    (out / "summary.md").write_text(text, encoding="utf-8")
    print(text)
    return 0
