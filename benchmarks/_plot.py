"""The utility-against-epsilon figure: one panel per estimator family and metric.

Each panel holds only its family's private estimators and their non-private baselines. A
private estimator and its baseline share a hue (the private line solid with markers, the
baseline a dashed horizontal line in a lighter shade); unrelated lines get different hues.
The shaded band of a private line runs from its worst seed to its mean, the one run an
unlucky user publishes. Legends sit under their panels, never over the curves, and a
caption under the figure explains the metrics.
"""

import math
import textwrap

import numpy as np
from matplotlib.colors import to_rgb

from benchmarks._report import KIND_ORDER, LOWER_IS_BETTER

# skdp subpackage -> panel title; a family not listed is titled by its package name
FAMILY_TITLES = {
    "tree": "Decision trees",
    "linear_model": "Linear models",
    "svm": "Support vector machines",
    "cluster": "Clustering",
    "frequent_patterns": "Frequent itemsets",
    "naive_bayes": "Naive Bayes",
    "decomposition": "Decomposition",
    "ensemble": "Ensembles",
}
# one hue per baseline group (tab10 without its grey): its shades tell the group's lines apart
HUES = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:red", "tab:cyan",
        "tab:pink", "tab:olive", "tab:brown")  # fmt: skip
MARKERS = ("o", "s", "^", "D", "v", "P")
BAND = "shaded band: from the worst seed to the mean"
DPI = 110
PANEL_WIDTH, PANEL_HEIGHT = 5.0, 3.3  # inches: three panels a row stay under 1,800 px


def estimator_family(estimator):
    """The skdp subpackage an estimator (or a Pipeline's last step) comes from.

    ``DPDecisionTree`` -> ``"tree"``; an estimator outside skdp gives its top package.
    """
    steps = getattr(estimator, "steps", None)
    if steps:
        estimator = steps[-1][1]
    parts = type(estimator).__module__.split(".")
    return parts[1].lstrip("_") if parts[0] == "skdp" and len(parts) > 1 else parts[0]


def estimator_groups(entries, tasks):
    """``{label: (family, baseline)}`` of every line the entries draw on the tasks.

    A private estimator, its diffprivlib counterpart and its non-private baseline share
    the baseline's name, which pairs their colours; the family comes from the private
    estimator's skdp subpackage (the task's name when it cannot be built).
    """
    groups = {}
    for task in tasks:
        for entry in (e for e in entries if e.applies_to(task)):
            try:
                family = estimator_family(entry.private(task, 1.0, 0))
            except Exception:  # a broken entry still gets a panel: its task's
                family = task.task
            baseline = entry.baseline_name or entry.name
            groups.setdefault(entry.name, (family, baseline))
            groups.setdefault(f"diffprivlib {baseline}", (family, baseline))
            if entry.baseline is not None:
                groups.setdefault(entry.baseline_name, (family, baseline))
    return groups


def _group_of(row, groups):
    """``(family, baseline)`` of a summary row; a swept label ``"Name k=v"`` is Name's."""
    name = row["estimator"]
    found = groups.get(name) or groups.get(name.split(" ", 1)[0])
    return found or (row["task"], name)


def _annotate(summary, groups):
    keys = [_group_of(row, groups or {}) for _, row in summary.iterrows()]
    return summary.assign(family=[k[0] for k in keys], pair=[k[1] for k in keys])


def metric_label(metric):
    """The y-axis label: the metric, and which way is better when lower is."""
    return f"{metric}  (lower is better)" if metric in LOWER_IS_BETTER else metric


def metric_note(metric):
    """One caption line explaining a metric, or None for a self-explaining one."""
    if metric == "NICV":
        return (
            "NICV: normalised intra-cluster variance, the mean squared distance of a test "
            "point to its nearest centre, features scaled to [-1, 1]; lower is better."
        )
    if metric == "ARI":
        return (
            "ARI: adjusted Rand index against the true classes (1 = same partition, 0 = chance)."
        )
    if metric.startswith("ARI vs "):
        reference = metric.removeprefix("ARI vs ")
        return (
            f"{metric}: adjusted Rand index against the clusters of the non-private "
            f"{reference} (1 = the same clusters as {reference})."
        )
    if metric == "R2":
        return "R2: coefficient of determination on the test split (1 = perfect)."
    return None


def shade(colour, amount):
    """``colour`` mixed towards black (``amount < 0``) or white (``amount > 0``).

    Either mix keeps the hue, so every shade of a group reads as the same colour.
    """
    rgb = np.asarray(to_rgb(colour))
    return tuple(rgb * (1 + amount) if amount < 0 else rgb + (1 - rgb) * amount)


def _styles(lines, hue):
    """``{(kind, estimator): (colour, marker)}`` for one baseline group of a panel."""
    order = lines.assign(_k=lines["kind"].map(KIND_ORDER)).sort_values("_k", kind="stable")
    keys = list(dict.fromkeys(zip(order["kind"], order["estimator"], strict=True)))
    drawn = [key for key in keys if key[0] != "non-private"]
    amounts = np.linspace(-0.45, 0.2, len(drawn)) if len(drawn) > 1 else [0.0] * len(drawn)
    style = {
        key: (shade(hue, a), MARKERS[i % len(MARKERS)])
        for i, (key, a) in enumerate(zip(drawn, amounts, strict=True))
    }
    for key in keys:
        if key[0] == "non-private":  # lighter than every private shade of its group
            style[key] = (shade(hue, 0.45), None)
    return style


def _draw_panel(ax, part, hues):
    for pair in dict.fromkeys(part["pair"]):
        lines = part[part["pair"] == pair]
        style = _styles(lines, hues[pair])
        for (kind, name), (colour, marker) in style.items():
            rows = lines[(lines["kind"] == kind) & (lines["estimator"] == name)]
            if kind == "non-private":
                ax.axhline(
                    rows["mean"].iloc[0], color=colour, ls="--", lw=1.6,
                    label=f"{name} (non-private)",
                )  # fmt: skip
                continue
            rows = rows.sort_values("epsilon")
            ax.fill_between(
                rows["epsilon"], rows["worst"], rows["mean"], color=colour, alpha=0.14, lw=0
            )
            ax.plot(
                rows["epsilon"], rows["mean"], color=colour, marker=marker, ms=5, lw=1.8,
                ls="-" if kind == "skdp" else ":", label=name,
            )  # fmt: skip
    epsilons = sorted(part["epsilon"].dropna().unique())
    ax.set_xscale("log")
    if epsilons:
        ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
        ax.minorticks_off()
    else:
        ax.text(
            0.5, 0.5, "no private estimator for this task yet", ha="center", va="center",
            transform=ax.transAxes, color="grey",
        )  # fmt: skip
    ax.set_xlabel("epsilon (log scale)")
    ax.grid(True, alpha=0.3)
    entries = part.groupby(["kind", "estimator"]).ngroups
    ax.legend(
        fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False,
        ncols=2 if entries > 2 else 1, columnspacing=1.0, handlelength=2.2,
    )  # fmt: skip


def _hues(panels):
    """``{pair: colour}``: one hue per baseline group over the whole figure, so a family
    keeps its colours across its panels; never twice in one panel."""
    hues = {}
    for _, part in panels:
        taken = {hues[p] for p in part["pair"].unique() if p in hues}
        for pair in dict.fromkeys(part["pair"]):
            if pair not in hues:
                free = [h for h in HUES if h not in taken] or list(HUES)
                used = list(hues.values())
                hues[pair] = min(free, key=lambda h: (used.count(h), HUES.index(h)))
                taken.add(hues[pair])
    return hues


def _caption(summary, metrics):
    """The lines under the figure: how to read the lines and bands, then the metrics."""
    if summary.empty:
        return ["No successful runs: every fit failed (see runs.csv)."]
    dotted = (summary["kind"] == "diffprivlib").any()
    first = (
        f"Solid lines: private estimators, mean over {int(summary['runs'].max())} seeds; "
        f"{BAND} (what an unlucky user gets). Dashed: the non-private baseline, in a lighter "
        "shade of its private estimators' colour."
        + (" Dotted: diffprivlib's counterpart." if dotted else "")
    )
    notes = dict.fromkeys(metric_note(metric) for metric in metrics)
    return [first, *(note for note in notes if note)]


def figure(summary, title, groups=None):
    """The figure: one panel per (family, metric) of ``summary``, up to three a row.

    ``groups`` maps an estimator label to ``(family, baseline)`` (see
    :func:`estimator_groups`); a label it does not know is its task's, in a hue of its own.
    """
    import matplotlib.pyplot as plt

    summary = _annotate(summary, groups) if not summary.empty else summary
    panels = list(summary.groupby(["family", "metric"], sort=False)) if not summary.empty else []
    n = max(len(panels), 1)
    ncols = 2 if n == 4 else min(n, 3)  # four panels: a square, not 3 + 1
    nrows = math.ceil(n / ncols)
    most = max((p.groupby(["kind", "estimator"]).ngroups for _, p in panels), default=1)
    caption = _caption(summary, [metric for (_, metric), _ in panels])
    width = PANEL_WIDTH * ncols + 0.6
    height = nrows * (PANEL_HEIGHT + 0.17 * math.ceil(most / 2) + 0.5) + 0.25 * len(caption) + 0.6
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(width, height), squeeze=False, layout="constrained"
    )
    hues = _hues(panels)
    for ax, ((family, metric), part) in zip(axes.flat, panels, strict=False):
        _draw_panel(ax, part, hues)
        ax.set_ylabel(metric_label(metric))
        ax.set_title(f"{FAMILY_TITLES.get(family, family)}: {metric}", fontweight="bold")
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=14)
    wrap = int(width * 15)
    fig.supxlabel(
        "\n".join(textwrap.fill(line, wrap) for line in caption), x=0.01, ha="left",
        fontsize=9, color="0.25",
    )  # fmt: skip
    return fig


def plot(summary, path, title, groups=None):
    """Write :func:`figure` to ``path`` (PNG) and close it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = figure(summary, title, groups)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
