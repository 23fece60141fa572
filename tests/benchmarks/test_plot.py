"""The main plot: one panel per family, legends outside, paired colours, a spread band."""

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb

from benchmarks import _data, _plot, _registry

EPSILONS = (0.1, 1.0, 5.0)
# label -> (family, baseline), as estimator_groups gives for the registered entries
GROUPS = {
    "DPDecisionTree(maxgddp)": ("tree", "DecisionTreeClassifier"),
    "DPDecisionTree(diffgen)": ("tree", "DecisionTreeClassifier"),
    "DecisionTreeClassifier": ("tree", "DecisionTreeClassifier"),
    "PrivateSVM(linear/output)": ("svm", "LinearSVC"),
    "LinearSVC": ("svm", "LinearSVC"),
    "PrivateSVM(rbf/output)": ("svm", "SVC(rbf)"),
    "SVC(rbf)": ("svm", "SVC(rbf)"),
    "diffprivlib SVC(rbf)": ("svm", "SVC(rbf)"),
    "DPKMeans(lloyd)": ("cluster", "KMeans"),
    "KMeans": ("cluster", "KMeans"),
}
PANELS = {
    ("tree", "accuracy"): ["DPDecisionTree(maxgddp)", "DPDecisionTree(diffgen)"],
    ("svm", "accuracy"): ["PrivateSVM(linear/output)", "PrivateSVM(rbf/output)"],
    ("cluster", "ARI vs KMeans"): ["DPKMeans(lloyd)"],
    ("cluster", "NICV"): ["DPKMeans(lloyd)"],
}


def _row(task, metric, kind, name, epsilon, mean):
    return {
        "dataset": "toy", "task": task, "metric": metric, "kind": kind, "estimator": name,
        "epsilon": epsilon, "mean": mean, "std": 0.05, "worst": mean - 0.2, "p10": mean - 0.1,
        "runs": 5, "fit_time_s": 0.01,
    }  # fmt: skip


def _summary():
    """A small results table: private lines over epsilon, one row per baseline."""
    rows = []
    for (family, metric), names in PANELS.items():
        task = "clustering" if family == "cluster" else "classification"
        for name in names:
            rows += [_row(task, metric, "skdp", name, e, 0.5 + 0.05 * e) for e in EPSILONS]
        baselines = dict.fromkeys(GROUPS[n][1] for n in names)
        rows += [_row(task, metric, "non-private", b, np.nan, 0.9) for b in baselines]
        if family == "svm":
            dpl = "diffprivlib SVC(rbf)"
            rows += [_row(task, metric, "diffprivlib", dpl, e, 0.4) for e in EPSILONS]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def fig():
    figure = _plot.figure(_summary(), "toy", GROUPS)
    figure.canvas.draw()
    yield figure
    plt.close(figure)


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible()]


def _lines(ax):
    """``{label: colour}`` of the panel's private, diffprivlib and baseline lines."""
    return {line.get_label(): to_rgb(line.get_color()) for line in ax.get_lines()}


def _caption(figure):
    return " ".join(figure.get_supxlabel().split())  # unwrapped


def _hue(rgb):
    return matplotlib.colors.rgb_to_hsv(rgb)[0]


def _hue_gap(a, b):
    gap = abs(_hue(a) - _hue(b))
    return min(gap, 1 - gap)  # hue is an angle: red sits at both ends


def test_one_panel_per_family_and_metric_with_only_its_estimators(fig):
    axes = _panels(fig)
    assert len(axes) == len(PANELS)
    titles = [ax.get_title() for ax in axes]
    assert titles == [
        "Decision trees: accuracy",
        "Support vector machines: accuracy",
        "Clustering: ARI vs KMeans",
        "Clustering: NICV",
    ]
    for ax, ((family, _), names) in zip(axes, PANELS.items(), strict=True):
        wanted = {n for n, (f, _) in GROUPS.items() if f == family}
        shown = {label.removesuffix(" (non-private)") for label in _lines(ax)}
        assert shown == wanted
        assert set(names) <= shown


def test_legends_sit_outside_the_axes(fig):
    renderer = fig.canvas.get_renderer()
    for ax in _panels(fig):
        legend = ax.get_legend()
        assert legend is not None
        box, area = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        assert box.y1 <= area.y0  # under the panel, not on its curves
        assert len(legend.get_texts()) == len(ax.get_lines())


def test_each_private_line_shares_its_baselines_hue_and_no_other(fig):
    for ax in _panels(fig):
        colours = _lines(ax)
        assert len(set(colours.values())) == len(colours)  # no two lines the same colour
        for label, colour in colours.items():
            name = label.removesuffix(" (non-private)")
            baseline = to_rgb(colours[f"{GROUPS[name][1]} (non-private)"])
            assert _hue_gap(colour, baseline) < 0.01
        by_group = {}
        for label, colour in colours.items():
            by_group.setdefault(GROUPS[label.removesuffix(" (non-private)")][1], []).append(colour)
        for a, b in itertools.combinations(by_group.values(), 2):
            assert _hue_gap(a[0], b[0]) > 0.1  # unrelated groups: different hues


def test_baseline_is_dashed_and_lighter_than_its_private_line(fig):
    ax = _panels(fig)[2]
    lines = {line.get_label(): line for line in ax.get_lines()}
    private, baseline = lines["DPKMeans(lloyd)"], lines["KMeans (non-private)"]
    assert baseline.get_linestyle() == "--" and private.get_linestyle() == "-"
    assert sum(to_rgb(baseline.get_color())) > sum(to_rgb(private.get_color()))


def test_band_runs_from_the_worst_seed_to_the_mean_without_error_bars(fig):
    ax = _panels(fig)[0]
    assert not ax.containers  # no error bars
    bands = ax.collections
    assert len(bands) == 2  # one per private estimator
    worst = _summary().query("estimator == 'DPDecisionTree(maxgddp)'")["worst"]
    low = min(path.vertices[:, 1].min() for path in bands[0].get_paths())
    assert low == pytest.approx(worst.min())
    assert "worst seed to the mean" in _caption(fig)
    dpl = {line.get_label(): line for line in _panels(fig)[1].get_lines()}["diffprivlib SVC(rbf)"]
    assert dpl.get_linestyle() == ":" and "Dotted: diffprivlib" in _caption(fig)


def test_lower_is_better_and_the_clustering_metrics_are_explained(fig):
    ylabels = [ax.get_ylabel() for ax in _panels(fig)]
    assert ylabels[-1] == "NICV  (lower is better)"
    assert ylabels[0] == "accuracy"
    caption = _caption(fig)
    assert "NICV: normalised intra-cluster variance" in caption
    assert "ARI vs KMeans: adjusted Rand index against the clusters of the non-private" in caption


def test_figure_fits_a_laptop_screen(fig):
    width, height = fig.get_size_inches() * _plot.DPI
    assert 1000 <= width <= 1800 and height <= 1300


def test_registered_entries_fall_into_their_skdp_family():
    tasks = _data.load_tasks("iris")
    groups = _plot.estimator_groups(_registry.all_entries(), tasks)
    assert groups["DPDecisionTree(maxgddp)"] == ("tree", "DecisionTreeClassifier")
    assert groups["ObjectivePerturbationLogistic"] == ("linear_model", "LogisticRegression")
    assert groups["PrivateSVM(rbf/output)"] == ("svm", "SVC(rbf)")  # a Pipeline's last step
    assert groups["KMeans"] == ("cluster", "KMeans")
    assert groups["diffprivlib LinearSVC"] == ("svm", "LinearSVC")


def test_a_swept_label_joins_its_estimators_panel_and_an_unknown_one_its_tasks():
    summary = _summary()
    swept = summary.query("estimator == 'DPDecisionTree(diffgen)'").assign(
        estimator="DPDecisionTree(diffgen) n_levels=4"
    )
    stranger = summary.query("estimator == 'DPKMeans(lloyd)'").assign(estimator="Other")
    figure = _plot.figure(pd.concat([summary, swept, stranger]), "toy", GROUPS)
    try:
        titles = [ax.get_title() for ax in _panels(figure)]
        tree = _panels(figure)[0]
        assert "DPDecisionTree(diffgen) n_levels=4" in _lines(tree)
        assert "clustering: NICV" in titles  # its task names the panel
    finally:
        plt.close(figure)


def test_a_table_without_successful_runs_still_gives_a_figure():
    figure = _plot.figure(pd.DataFrame(), "toy")
    try:
        assert not _panels(figure)
        assert "No successful runs" in _caption(figure)
    finally:
        plt.close(figure)
