"""Turn the run table into the three outputs: CSV, Markdown (mean +- std, worst seed and 10th
percentile) and a PNG plot (drawn by :mod:`benchmarks._plot`)."""

from pathlib import Path

import numpy as np
import pandas as pd

KIND_ORDER = {"skdp": 0, "diffprivlib": 1, "non-private": 2}
# metrics where a smaller score is better: their worst seed is the largest score
LOWER_IS_BETTER = frozenset({"NICV"})


def seed_spread(scores, metric="", *, lower_is_better=None):
    """Mean, std, worst seed and the 10th percentile (from the bad side) of one cell's runs.

    A user meets one run, not the mean: ``worst`` is the worst seed and ``p10`` the score
    that 90% of seeds beat. For a metric in :data:`LOWER_IS_BETTER` (or with
    ``lower_is_better=True``) the bad side is the top. NaN scores are left out.
    """
    scores = np.asarray(scores, dtype=float)
    scores = scores[~np.isnan(scores)]
    if scores.size == 0:
        return {"mean": np.nan, "std": np.nan, "worst": np.nan, "p10": np.nan}
    lower = metric in LOWER_IS_BETTER if lower_is_better is None else lower_is_better
    return {
        "mean": float(scores.mean()),
        "std": float(scores.std(ddof=1)) if scores.size > 1 else 0.0,
        "worst": float(scores.max() if lower else scores.min()),
        "p10": float(np.quantile(scores, 0.9 if lower else 0.1)),
    }


def spread_text(scores, *, lower_is_better=False, digits=3):
    """``"mean ± std (worst, p10)"`` of one cell's runs, for the benchmarks' tables."""
    cell = seed_spread(scores, lower_is_better=lower_is_better)
    mean, std, worst, p10 = (f"{cell[k]:.{digits}f}" for k in ("mean", "std", "worst", "p10"))
    return f"{mean} ± {std} ({worst}, {p10})"


def summarize(runs):
    """Mean, std, worst seed, 10th percentile and count of every (dataset, task, metric,
    kind, estimator, epsilon)."""
    ok = runs[runs["metric"] != "error"]
    if ok.empty:
        return pd.DataFrame()
    keys = ["dataset", "task", "metric", "kind", "estimator", "epsilon"]
    rows = []
    for key, part in ok.groupby(keys, dropna=False, sort=False):
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                **seed_spread(part["score"], metric=key[2]),
                "runs": len(part),
                "fit_time_s": part["fit_time_s"].mean(),
            }
        )
    return pd.DataFrame(rows)


def _cell(row):
    return f"{row.mean:.3f} ± {row.std:.3f} ({row.worst:.3f}, {row.p10:.3f})"


def markdown_tables(summary, epsilons):
    """One Markdown table per (dataset, task, metric): estimators x epsilon."""
    if summary.empty:
        return "(no successful runs)\n"
    blocks = []
    for (dataset, task, metric), part in summary.groupby(
        ["dataset", "task", "metric"], sort=False
    ):
        header = ["estimator", *[f"ε={e:g}" for e in epsilons], "non-private", "fit s"]
        lines = [
            f"**{dataset}: {task}, {metric}** (mean ± std (worst seed, 10th percentile) "
            "over repeats)",
            "",
            "| " + " | ".join(header) + " |",
            "|" + "---|" * len(header),
        ]
        order = part.assign(_k=part["kind"].map(KIND_ORDER)).sort_values(["_k"], kind="stable")
        for (kind, name), rows in order.groupby(["kind", "estimator"], sort=False):
            by_eps = {e: r for e, r in zip(rows["epsilon"], rows.itertuples(), strict=False)}
            cells = [name if kind != "non-private" else f"{name} (non-private)"]
            for eps in epsilons:
                r = by_eps.get(eps)
                cells.append(_cell(r) if r is not None else "")
            if kind == "non-private":
                cells.append(_cell(next(rows.itertuples())))
            else:
                cells.append("")
            cells.append(f"{rows['fit_time_s'].mean():.3g}")
            lines.append("| " + " | ".join(cells) + " |")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def ledger_check(runs, kinds=("skdp",)):
    """Rows of ``kinds`` where the measured privacy spend differs from the epsilon asked for."""
    skdp = runs[runs["kind"].isin(kinds) & (runs["metric"] != "error")]
    gap = (skdp["epsilon_spent"] - skdp["epsilon"]).abs()
    return skdp[~(gap <= 1e-9 * skdp["epsilon"].abs().clip(lower=1.0))]


def write_outputs(runs, summary, out_dir, *, epsilons, title, notes=(), groups=None):
    """Write ``runs.csv``, ``summary.md`` and ``utility_vs_epsilon.png``; return the text.

    ``groups`` (``{label: (family, baseline)}``, see :func:`benchmarks._plot.estimator_groups`)
    puts each estimator in its family's panel, in its baseline's colour.
    """
    from benchmarks import _plot  # it imports this module's metric conventions

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    text = f"# {title}\n\n" + "".join(f"- {note}\n" for note in notes) + "\n"
    text += markdown_tables(summary, epsilons)
    (out / "summary.md").write_text(text, encoding="utf-8")
    _plot.plot(summary, out / "utility_vs_epsilon.png", title, groups)
    return text
