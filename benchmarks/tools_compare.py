"""skdp.tools and skdp's StandardScaler against diffprivlib 0.6.6: errors of the releases.

Each statistic of each numeric column (``mean``, ``var``, ``std``, ``sum``, ``median``,
the 25th and 75th percentiles, a 10-bin histogram) is released at the full ``epsilon``
by both libraries with the **same declared bounds**: each column's minimum and maximum
rounded outwards to the order of magnitude of its range (a stand-in for the domain
knowledge a user would declare; Iris sepal length gives ``[4, 8]``). The scalers fit
all columns at once (``epsilon`` in total) and their ``mean_`` and ``scale_`` are
scored. Errors are absolute errors against the exact statistic, divided by a scale
that makes columns comparable: the column's exact standard deviation ``sigma`` for
locations (mean, median, percentiles, ``std``, the scalers' ``mean_`` and ``scale_``),
``sigma**2`` for ``var``, ``n sigma`` for ``sum`` and ``n`` for the histogram's L1
error. Per seed they are averaged over the columns; the table gives the mean, std and
worst of the seeds, and the seeds on which a release raised (diffprivlib's quantiles
on Adult: its exponential mechanism's probabilities overflow to NaN on wide ranges)::

    python -m benchmarks tools_compare                  # Iris, Wine, Adult; 10 seeds
    python -m benchmarks tools_compare --datasets iris --seeds 3 --skdp-only

diffprivlib runs in its own environment (scikit-learn 1.7.2; ``benchmarks._env``,
built from the package registry on first use, or ``--env-dir`` to an existing one),
importing this checkout, so both sides load the same data (checked by a hash). Adult
(its six numeric columns, 45 222 rows without missing values) is read from
``$SKDP_DATA_HOME``. Writes ``runs.csv`` (one row per library, dataset, statistic,
epsilon and seed), ``tools_compare.csv`` (the summary) and ``tools_compare.md`` to
``--out``.
"""

import argparse
import hashlib
import math
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks import _env

CHECKOUT = Path(__file__).resolve().parent.parent
DATASETS = ("iris", "wine", "adult")
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
STATISTICS = ("mean", "var", "std", "sum", "median", "p25", "p75", "histogram")
SCALER_STATISTICS = ("scaler mean_", "scaler scale_")
ADULT_COLUMNS = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss",
                 "hours-per-week"]  # fmt: skip
LIBRARIES = ("skdp", "diffprivlib")


def load(name):
    """The dataset's numeric columns as a float array of shape (n, d)."""
    from sklearn import datasets

    if name == "iris":
        return datasets.load_iris().data.astype(float)
    if name == "wine":
        return datasets.load_wine().data.astype(float)
    if name == "adult":
        from skdp.datasets import fetch_adult

        frame = fetch_adult(drop_missing=True, download_if_missing=False).data
        return frame[ADULT_COLUMNS].to_numpy(dtype=float)
    raise ValueError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")


def declared_bounds(X):
    """Per column, min and max rounded outwards to the order of magnitude of the range."""
    low, high = X.min(axis=0), X.max(axis=0)
    unit = 10.0 ** np.floor(np.log10(np.maximum(high - low, 1e-12)))
    return np.floor(low / unit) * unit, np.ceil(high / unit) * unit


def fingerprint(X):
    """A short hash of the data both sides use."""
    return hashlib.sha256(np.ascontiguousarray(X).tobytes()).hexdigest()[:16]


def _releases(library):
    """``{statistic: release(x, epsilon, (lower, upper), seed)}`` for one library."""
    if library == "skdp":
        from skdp import tools

        def histogram(x, eps, b, seed):
            return tools.histogram(x, 10, b, epsilon=eps, random_state=seed)[0]
    else:
        from diffprivlib import tools

        def histogram(x, eps, b, seed):
            return tools.histogram(x, epsilon=eps, bins=10, range=b, random_state=seed)[0]

    def stat(name, *args):
        function = getattr(tools, name)
        return lambda x, eps, b, seed: function(x, *args, epsilon=eps, bounds=b, random_state=seed)

    return {
        **{name: stat(name) for name in ("mean", "var", "std", "sum", "median")},
        "p25": stat("percentile", 25),
        "p75": stat("percentile", 75),
        "histogram": histogram,
    }


def _scaler(library, epsilon, bounds, seed):
    if library == "skdp":
        from skdp.preprocessing import StandardScaler
    else:
        from diffprivlib.models import StandardScaler
    return StandardScaler(epsilon=epsilon, bounds=bounds, random_state=seed)


def _exact(statistic, x, bounds):
    """The exact statistic and the divisor of its error."""
    n, sigma = x.size, float(np.std(x))
    exact = {  # only the one asked for is computed
        "mean": lambda: (np.mean(x), sigma),
        "var": lambda: (np.var(x), sigma**2),
        "std": lambda: (sigma, sigma),
        "sum": lambda: (np.sum(x), n * sigma),
        "median": lambda: (np.median(x), sigma),
        "p25": lambda: (np.percentile(x, 25), sigma),
        "p75": lambda: (np.percentile(x, 75), sigma),
        "histogram": lambda: (np.histogram(x, 10, bounds)[0], n),
    }
    return exact[statistic]()


def _error(estimate, exact, scale):
    return float(np.sum(np.abs(np.asarray(estimate, dtype=float) - exact)) / scale)


def run_side(library, datasets, epsilons, seeds, *, statistics=None, scalers=True, log=print):
    """Every release of ``library``: one row per dataset, statistic, epsilon and seed.

    ``statistics`` (default all of ``STATISTICS``) and ``scalers`` restrict the releases;
    the others' rows are the same either way (each release draws from its own seed).
    """
    releases = _releases(library)
    releases = {k: v for k, v in releases.items() if statistics is None or k in statistics}
    rows = []
    for dataset in datasets:
        X = load(dataset)
        lower, upper = declared_bounds(X)
        sigma = X.std(axis=0)
        started = time.perf_counter()
        columns = [(float(lower[j]), float(upper[j])) for j in range(X.shape[1])]
        # the exact values do not depend on epsilon or the seed: computed once
        exacts = {(statistic, j): _exact(statistic, X[:, j], bounds)
                  for statistic in releases for j, bounds in enumerate(columns)}  # fmt: skip
        for epsilon in epsilons:
            for seed in range(seeds):
                for statistic, release in releases.items():
                    errors = []
                    for j, bounds in enumerate(columns):
                        exact, scale = exacts[statistic, j]
                        try:
                            estimate = release(X[:, j], epsilon, bounds, seed)
                        except RuntimeError:  # diffprivlib's quantile on wide ranges
                            if library == "skdp":
                                raise
                            estimate = np.nan
                        errors.append(_error(estimate, exact, scale))
                    rows.append((dataset, statistic, epsilon, seed, np.mean(errors)))
                if not scalers:
                    continue
                scaler = _scaler(library, epsilon, (lower, upper), seed).fit(X)
                for statistic, fitted, exact in zip(
                    SCALER_STATISTICS, (scaler.mean_, scaler.scale_), (X.mean(axis=0), sigma),
                    strict=True,
                ):  # fmt: skip
                    rows.append((dataset, statistic, epsilon, seed,
                                 float(np.mean(np.abs(fitted - exact) / sigma))))  # fmt: skip
        log(f"{library}: {dataset} ({X.shape[0]} x {X.shape[1]}) in "
            f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    runs = pd.DataFrame(rows, columns=["dataset", "statistic", "epsilon", "seed", "error"])
    runs.insert(0, "library", library)
    runs["data_hash"] = runs["dataset"].map({d: fingerprint(load(d)) for d in datasets})
    return runs


def summarise(runs):
    """Mean, std and worst seed per library, dataset, statistic and epsilon."""
    keys = ["dataset", "statistic", "epsilon", "library"]
    grouped = runs.groupby(keys, sort=False)["error"]
    summary = grouped.agg(mean="mean", std="std", worst="max", seeds="size").reset_index()
    summary["failures"] = grouped.apply(lambda e: int(e.isna().sum())).to_numpy()
    return summary


def markdown(summary):
    """One table: per dataset, statistic and epsilon, both libraries side by side."""

    def text(row):
        if row.failures == row.seeds:
            return f"fails on {row.failures} of {row.seeds} seeds"
        shown = f"{row.mean:.4g} ± {0.0 if math.isnan(row.std) else row.std:.2g} ({row.worst:.4g})"
        return shown + (f", fails on {row.failures}" if row.failures else "")

    cell = summary.assign(text=[text(row) for row in summary.itertuples()])
    wide = cell.pivot_table(
        index=["dataset", "statistic", "epsilon"], columns="library", values="text",
        aggfunc="first", sort=False,
    )  # fmt: skip
    means = summary.pivot_table(
        index=["dataset", "statistic", "epsilon"], columns="library", values="mean", sort=False
    )
    failures = summary.pivot_table(
        index=["dataset", "statistic", "epsilon"], columns="library", values="failures", sort=False
    )
    libraries = [lib for lib in LIBRARIES if lib in wide.columns]
    header = ["dataset", "statistic", "epsilon", *libraries]
    if len(libraries) == 2:
        header.append("skdp ≤ diffprivlib")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for key, row in wide.iterrows():
        cells = [*map(str, key), *(row[lib] for lib in libraries)]
        if len(libraries) == 2:
            m = means.loc[key]
            failed = failures.loc[key, "diffprivlib"] > 0
            cells.append("yes" if failed or m["skdp"] <= m["diffprivlib"] else "**no**")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _diffprivlib_runs(args, log):
    python = _env.ensure_env(args.env_dir, CHECKOUT, log=log)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "runs.csv"
        command = [
            str(python), "-m", "benchmarks.tools_compare", "--side", "diffprivlib",
            "--datasets", ",".join(args.datasets), "--epsilons",
            ",".join(map(str, args.epsilons)), "--seeds", str(args.seeds), "--runs-out", str(out),
        ]  # fmt: skip
        done = subprocess.run(command, cwd=CHECKOUT, check=False)
        if done.returncode != 0:
            raise SystemExit(f"the diffprivlib side failed (exit {done.returncode})")
        return pd.read_csv(out)


def _csv_list(convert):
    def parse(text):
        try:
            return [convert(part) for part in text.split(",") if part.strip()]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc

    return parse


def parser(prog="python -m benchmarks tools_compare"):
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--datasets",
        type=_csv_list(str),
        default=list(DATASETS),
        help="comma-separated, from iris, wine, adult (default all three)",
    )
    p.add_argument(
        "--epsilons",
        type=_csv_list(float),
        default=list(EPSILONS),
        help="comma-separated (default 0.1,0.5,1,2,5)",
    )
    p.add_argument("--seeds", type=int, default=10, help="seeds per cell (default 10)")
    p.add_argument("--out", type=Path, default=Path("benchmark_results/tools_compare"))
    p.add_argument("--skdp-only", action="store_true", help="skip diffprivlib")
    p.add_argument(
        "--env-dir",
        type=Path,
        default=_env.default_env_dir(),
        help="diffprivlib's environment (default: %(default)s)",
    )
    p.add_argument("--side", choices=LIBRARIES, help=argparse.SUPPRESS)
    p.add_argument("--runs-out", type=Path, help=argparse.SUPPRESS)
    return p  # fmt: skip


def main(argv=None):
    """Run the comparison; returns 0."""
    args = parser().parse_args(argv)
    unknown = sorted(set(args.datasets) - set(DATASETS))
    if unknown or args.seeds < 1 or not args.epsilons or min(args.epsilons) <= 0:
        raise SystemExit(f"bad options: datasets {unknown or 'ok'}, seeds {args.seeds}, "
                         f"epsilons {args.epsilons}")  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # diffprivlib's and skdp's advice, not results
        if args.side is not None:  # the worker inside diffprivlib's environment
            run_side(args.side, args.datasets, args.epsilons, args.seeds).to_csv(
                args.runs_out, index=False
            )
            return 0
        started = time.perf_counter()
        runs = [run_side("skdp", args.datasets, args.epsilons, args.seeds)]
    if not args.skdp_only:
        other = _diffprivlib_runs(args, print)
        mine = runs[0].groupby("dataset")["data_hash"].first()
        theirs = other.groupby("dataset")["data_hash"].first()
        if not mine.sort_index().equals(theirs.sort_index()):
            raise SystemExit(f"the two sides read different data: {dict(mine)} != {dict(theirs)}")
        runs.append(other)
    runs = pd.concat(runs, ignore_index=True)
    summary = summarise(runs)
    args.out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(args.out / "runs.csv", index=False)
    summary.to_csv(args.out / "tools_compare.csv", index=False)
    table = markdown(summary)
    (args.out / "tools_compare.md").write_text(table, encoding="utf-8")
    print(table)
    minutes = (time.perf_counter() - started) / 60
    print(f"wrote {args.out}/tools_compare.csv, .md and runs.csv in {minutes:.1f} min")
    return 0 if math.isfinite(minutes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
