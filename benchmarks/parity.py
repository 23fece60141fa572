"""Issue 24's done-when in one table: skdp against diffprivlib 0.6.6, cell by cell.

Runs the three comparisons and judges every cell: naive Bayes and the random forest
(``compare``: accuracy), PCA (``pca``: variance captured by 2 components and the
accuracy of a downstream classifier) and the statistics (``tools_compare``: absolute
error), on Iris, Wine and Adult at epsilon 0.1, 0.5, 1, 2 and 5, 10 seeds::

    python -m benchmarks parity              # runs all three, then judges
    python -m benchmarks parity --reuse      # judges the runs already under --out

A cell is met when skdp's mean *and* its worst seed are at least diffprivlib's (for
errors: at most); fewer failed seeds wins outright, and the mean and worst of the
seeds that ran are compared when both failed as often. Both libraries get the same
declared public inputs in each comparison. Writes ``parity.csv`` (every cell) and
``parity.md`` (the count per component and the cells not met) to ``--out``. diffprivlib
runs in its own environment (``benchmarks._env``, built on first use, as ``compare``).
"""

import argparse
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks import _env, compare, tools_compare

CHECKOUT = Path(__file__).resolve().parent.parent
DATASETS = ("iris", "wine", "adult")
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
# skdp's estimator in compare's runs, and diffprivlib's row beside it
PAIRS = {
    "GaussianNB": "diffprivlib GaussianNB",
    "RandomForestClassifier": "diffprivlib RandomForestClassifier",
}


def run_all(out, seeds, epsilons, env_dir):
    """Run the three comparisons into ``out/compare``, ``out/pca`` and ``out/tools``."""
    env_dir = env_dir or _env.default_env_dir()
    epsilons = ",".join(f"{e:g}" for e in epsilons)
    compare.main([
        "--tasks", ",".join(DATASETS), "--estimators", ",".join(PAIRS), "--epsilons",
        epsilons, "--repeats", str(seeds), "--out", str(out / "compare"), "--quiet",
        "--env-dir", str(env_dir),
    ])  # fmt: skip
    # PCA's diffprivlib side imports diffprivlib in the same process: run it all there
    python = _env.ensure_env(env_dir, CHECKOUT)
    command = [
        str(python), "-m", "benchmarks", "pca", "--datasets", ",".join(DATASETS),
        "--epsilons", epsilons, "--seeds", str(seeds), "--out", str(out / "pca"),
    ]  # fmt: skip
    subprocess.run(command, cwd=CHECKOUT, check=True)
    tools_compare.main([
        "--datasets", ",".join(DATASETS), "--epsilons", epsilons, "--seeds", str(seeds),
        "--out", str(out / "tools"), "--env-dir", str(env_dir),
    ])  # fmt: skip


def _cell(component, dataset, metric, epsilon, mine, theirs, *, lower_is_better=False):
    """One judged cell from skdp's and diffprivlib's per-seed values (NaN: failed)."""
    sign = -1.0 if lower_is_better else 1.0
    mine, theirs = sign * np.asarray(mine, float), sign * np.asarray(theirs, float)
    failed_mine, failed_theirs = int(np.isnan(mine).sum()), int(np.isnan(theirs).sum())
    a, b = mine[~np.isnan(mine)], theirs[~np.isnan(theirs)]
    if failed_mine != failed_theirs:  # fewer failed seeds wins; a failure is the worst
        met = failed_mine < failed_theirs
    else:
        met = bool(a.size == 0 or (a.mean() >= b.mean() and a.min() >= b.min()))

    def summary(values, failed):
        worst = -np.inf if failed else (values.min() if values.size else np.nan)
        return sign * (values.mean() if values.size else np.nan), sign * worst

    (mean_a, worst_a), (mean_b, worst_b) = summary(a, failed_mine), summary(b, failed_theirs)
    return {
        "component": component, "dataset": dataset, "metric": metric, "epsilon": epsilon,
        "skdp_mean": mean_a, "skdp_worst": worst_a, "skdp_failed": failed_mine,
        "diffprivlib_mean": mean_b, "diffprivlib_worst": worst_b,
        "diffprivlib_failed": failed_theirs, "seeds": min(mine.size, theirs.size), "met": met,
    }  # fmt: skip


def judge_models(runs):
    """Cells of naive Bayes and the forest from ``compare``'s runs."""
    cells = []
    for mine, theirs in PAIRS.items():
        for (dataset, epsilon), part in runs.groupby(["dataset", "epsilon"]):
            a = part.loc[part["estimator"] == mine, "score"]
            b = part.loc[part["estimator"] == theirs, "score"]
            if len(a) and len(b):
                cells.append(_cell(mine, dataset, "accuracy", epsilon, a, b))
    return cells


def judge_pca(runs):
    """Cells of PCA (declared inputs on both sides) from ``pca``'s runs."""
    cells = []
    for (dataset, epsilon), part in runs.groupby(["dataset", "epsilon"]):
        for metric in ("var2", "accuracy"):
            a = part.loc[part["side"] == "skdp", metric]
            b = part.loc[part["side"] == "diffprivlib", metric]
            if len(a) and len(b):
                cells.append(_cell("PCA", dataset, metric, epsilon, a, b))
    return cells


def judge_tools(runs):
    """Cells of the statistics (absolute error) from ``tools_compare``'s runs."""
    cells = []
    for (dataset, statistic, epsilon), part in runs.groupby(["dataset", "statistic", "epsilon"]):
        a = part.loc[part["library"] == "skdp", "error"]
        b = part.loc[part["library"] == "diffprivlib", "error"]
        if len(a) and len(b):
            cells.append(_cell("tools", dataset, statistic, epsilon, a, b, lower_is_better=True))
    return cells


def report(cells):
    """The count of cells met per component, then every cell not met."""
    counts = cells.groupby("component", sort=False)["met"].agg(["sum", "size"])
    lines = ["| component | cells met |", "|---|---|"]
    lines += [
        f"| {name} | {int(row['sum'])} of {row['size']} |" for name, row in counts.iterrows()
    ]
    missed = cells[~cells["met"]]
    lines += ["", f"Cells not met ({len(missed)}): mean (worst seed), skdp / diffprivlib", ""]
    lines += ["| component | dataset | metric | epsilon | skdp | diffprivlib |", "|---" * 6 + "|"]
    for c in missed.itertuples():
        lines.append(
            f"| {c.component} | {c.dataset} | {c.metric} | {c.epsilon:g} | "
            f"{c.skdp_mean:.4g} ({c.skdp_worst:.4g}) | "
            f"{c.diffprivlib_mean:.4g} ({c.diffprivlib_worst:.4g}) |"
        )
    return "\n".join(lines) + "\n"


def judge(out):
    """Every cell from the runs under ``out``, as a DataFrame."""
    cells = judge_models(pd.read_csv(out / "compare" / "runs.csv"))
    cells += judge_pca(pd.read_csv(out / "pca" / "runs.csv"))
    cells += judge_tools(pd.read_csv(out / "tools" / "runs.csv"))
    return pd.DataFrame(cells)


def parser():
    p = argparse.ArgumentParser(
        prog="python -m benchmarks parity", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--seeds", type=int, default=10, help="seeds per cell (default 10)")
    p.add_argument(
        "--epsilons",
        type=lambda text: [float(e) for e in text.split(",")],
        default=list(EPSILONS),
        help="comma-separated (default 0.1,0.5,1,2,5)",
    )
    p.add_argument("--out", type=Path, default=Path("benchmark_results/parity"))
    p.add_argument("--reuse", action="store_true", help="judge the runs already in --out")
    p.add_argument("--env-dir", type=Path, default=None, help="the diffprivlib environment")
    return p


def main(argv=()):
    """Run (unless ``--reuse``) and judge; returns 0."""
    args = parser().parse_args(list(argv))
    if not args.reuse:
        run_all(args.out, args.seeds, args.epsilons, args.env_dir)
    cells = judge(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    cells.to_csv(args.out / "parity.csv", index=False)
    text = report(cells)
    (args.out / "parity.md").write_text(text, encoding="utf-8")
    print(text)
    return 0
