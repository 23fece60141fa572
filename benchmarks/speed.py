"""Fit time and peak memory of every skdp estimator against its scikit-learn counterpart.

    python -m benchmarks speed [--sizes 1e4,1e5,1e6] [--repeats 3] [--estimators A,B]
                               [--variants declared,defaults] [--max-seconds 120]
                               [--no-rss] [--out benchmark_results/speed.csv]

Every public estimator (:func:`skdp.utils.discovery.all_estimators`) is fitted on
synthetic data of a fixed seed next to its non-private counterpart, at each size. The
repeats are interleaved (private, counterpart, private, ... so that a burst of load on a
shared machine hits both sides) and summarised by their min and median; the ratio is
private / counterpart, of wall-clock time and of CPU time (less sensitive to other
processes on a shared machine; it counts every thread, so BLAS threads add up). The
scaling exponent is the least-squares slope of log(median time) against log(rows) over
the sizes measured.

Peak memory has two columns, each from one untimed fit per side and size (see
:mod:`benchmarks._memory`). ``*_peak_mb``: the peak traced by :mod:`tracemalloc`
(numpy's buffers and Python objects; memory that compiled code allocates past Python's
allocator is not seen). ``*_rss_mb``: the peak increase of resident memory (RSS) over
the fit, which sees everything, liblinear's copy of ``X`` included; each side is fitted
in a fresh child process (after a warm-up fit on 1000 rows there, so that modules
imported on first use do not count), where the data are built before the measurement
starts. ``--no-rss`` leaves the RSS columns empty (NaN, as on systems without
``/proc``).

Variants: ``declared`` gives the private estimator its public inputs (bounds, classes,
norms), so the time is that of the algorithm, with a seeded generator; ``defaults``
runs the constructor's defaults (undeclared inputs estimated privately, and
``random_state=None``: the secure generator of a real release), where that is cheap.
Once a fit of an estimator takes more than ``--max-seconds``, its larger sizes are
skipped (the CSV says so). A variant ``<variant>@<data>`` runs an entry on another data set of its
``data_sets`` (PCA: ``@normal``, standard normal features, which the private bounds
and norm clip, where the default data lie inside the box). The load average of the
machine is recorded with every row: on a shared machine, rows measured under a load
above the number of cores are inflated.
"""

import argparse
import math
import os
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn import (
    cluster,
    decomposition,
    ensemble,
    linear_model,
    naive_bayes,
    preprocessing,
    svm,
    tree,
)
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, ShuffleSplit

from benchmarks._memory import in_fresh_process, rss_peak_mb, tracemalloc_peak_mb
from benchmarks._speed_data import (
    BOX,
    N_CODES,
    N_FEATURES,
    N_ITEMS,
    ExactItemsets,
    blob_data,
    categorical_data,
    classification_data,
    normal_data,
    regression_data,
    transaction_data,
)
from skdp.utils.discovery import all_estimators

COLUMNS = [
    "estimator", "variant", "counterpart", "n_samples", "n_features", "repeats",
    "private_min_s", "private_median_s", "baseline_min_s", "baseline_median_s",
    "ratio_min", "ratio_median", "private_cpu_median_s", "baseline_cpu_median_s",
    "ratio_cpu_median", "private_peak_mb", "baseline_peak_mb", "memory_ratio",
    "private_rss_mb", "baseline_rss_mb", "rss_ratio",
    "private_exponent", "baseline_exponent", "load_avg", "note",
]  # fmt: skip


@dataclass
class Spec:
    """One private estimator against its counterpart: ``private(variant, seed)`` builds
    the private model (``variant`` in ``variants``), ``baseline(seed)`` the other."""

    name: str
    data: callable
    private: callable
    baseline: callable
    counterpart: str
    variants: tuple = ("declared", "defaults")
    max_baseline_rows: float = math.inf
    reason: str = ""
    extra: dict = field(default_factory=dict)
    data_sets: dict = field(default_factory=dict)

    def data_for(self, variant):
        """The generator of ``variant``: ``data_sets[<data>]`` for ``<variant>@<data>``."""
        label = variant.partition("@")[2]
        return self.data_sets[label] if label else self.data


def _seed(variant, seed):
    """``seed`` for the declared variant; None (a real release's secure generator) for
    the defaults."""
    return seed if variant.partition(":")[0].partition("@")[0] == "declared" else None


def _declared(declared, **public):
    return public if declared == "declared" else {}


def _search(kind):
    from skdp.linear_model import ObjectivePerturbationLogistic

    def private(v, s):
        inner = ObjectivePerturbationLogistic(**_declared(v, data_norm=math.sqrt(N_FEATURES)))
        grid = {"C": [0.1, 1.0]}
        s = _seed(v, s)
        if kind == "grid":
            return _skdp("PrivateGridSearchCV")(inner, grid, classes=[0, 1], random_state=s)
        return _skdp("PrivateRandomizedSearchCV")(
            inner, grid, n_iter=2, classes=[0, 1], random_state=s
        )

    def baseline(s):
        split = ShuffleSplit(n_splits=1, test_size=0.2, random_state=s)
        grid = {"C": [0.1, 1.0]}
        if kind == "grid":
            return GridSearchCV(linear_model.LogisticRegression(), grid, cv=split)
        return RandomizedSearchCV(
            linear_model.LogisticRegression(), grid, n_iter=2, cv=split, random_state=s
        )

    counterpart = "GridSearchCV" if kind == "grid" else "RandomizedSearchCV"
    return private, baseline, f"{counterpart}(LogisticRegression, 1 split)"


def _skdp(name):
    return dict(all_estimators())[name]


def _private(name, *args, public=None, public_for=None, **always):
    """``private(variant, seed)``: ``name(*args, **always)``, with ``public`` as well
    when the variant is ``declared`` (``declared:<mechanism>`` for PrivateSVM;
    ``declared@<data>`` takes ``public_for[<data>]`` instead)."""

    def make(variant, seed):
        head, _, label = variant.partition("@")
        declared, _, mechanism = head.partition(":")
        chosen = (public_for or {}).get(label, public) if label else public
        extra = dict(chosen or {}) if declared == "declared" else {}
        if mechanism:
            extra["mechanism"] = mechanism
        return _skdp(name)(*args, random_state=_seed(declared, seed), **always, **extra)

    return make


def specs():
    """The benchmark entry of every public skdp estimator, by name."""
    box, classes, norm = {"bounds": BOX}, {"classes": [0, 1]}, math.sqrt(N_FEATURES)
    items = {"items": list(range(N_ITEMS)), "max_transaction_length": N_ITEMS}
    entries = [
        Spec("DPDecisionTree", classification_data,
             _private("DPDecisionTree", n_levels=10, public={**box, **classes}),
             lambda s: tree.DecisionTreeClassifier(max_depth=10, random_state=s),
             "DecisionTreeClassifier(max_depth=10)"),
        Spec("CategoricalNB", categorical_data,
             _private("CategoricalNB", public={"categories": [N_CODES] * N_FEATURES, **classes}),
             lambda s: naive_bayes.CategoricalNB(), "CategoricalNB"),
        Spec("DPFrequentItemsets", transaction_data,
             _private("DPFrequentItemsets", top_k=20, max_length=2, public=items),
             lambda s: ExactItemsets(top_k=20),
             "exact top-20 itemsets of <= 2 items (numpy, X.T @ X)"),
        Spec("DPKMeans", blob_data, _private("DPKMeans", 3, public=box),
             lambda s: cluster.KMeans(3, random_state=s), "KMeans(3)"),
        Spec("DPOPTICS", blob_data, _private("DPOPTICS", min_samples=20, public=box),
             lambda s: cluster.OPTICS(min_samples=20), "OPTICS(min_samples=20)",
             max_baseline_rows=2e4,
             reason="scikit-learn's OPTICS takes minutes past 2e4 rows: not run there"),
        Spec("FunctionalMechanismClassifier", classification_data,
             _private("FunctionalMechanismClassifier", public={**box, **classes}),
             lambda s: linear_model.LogisticRegression(), "LogisticRegression"),
        Spec("FunctionalMechanismRegressor", regression_data,
             _private("FunctionalMechanismRegressor", public={**box, "bounds_y": (-4.0, 4.0)}),
             lambda s: linear_model.LinearRegression(), "LinearRegression"),
        Spec("GaussianNB", classification_data,
             _private("GaussianNB", public={**box, **classes}),
             lambda s: naive_bayes.GaussianNB(), "GaussianNB"),
        Spec("ObjectivePerturbationLogistic", classification_data,
             _private("ObjectivePerturbationLogistic", public={"data_norm": norm, **classes}),
             lambda s: linear_model.LogisticRegression(), "LogisticRegression"),
        Spec("PCA", regression_data,
             _private("PCA", 2, public={"data_norm": norm, **box},
                      public_for={"normal": {"data_norm": norm, "bounds": (-4.0, 4.0)}}),
             lambda s: decomposition.PCA(2), "PCA(2)",
             variants=("declared", "defaults", "declared@normal", "defaults@normal"),
             data_sets={"normal": normal_data}),
        Spec("RandomForestClassifier", classification_data,
             _private("RandomForestClassifier", n_levels=10, public={**box, **classes}),
             lambda s: ensemble.RandomForestClassifier(n_estimators=10, max_depth=10,
                                                       random_state=s),
             "RandomForestClassifier(n_estimators=10, max_depth=10)"),
        Spec("PrivateSVM", classification_data,
             _private("PrivateSVM", public={"data_norm": norm, **classes}),
             lambda s: svm.LinearSVC(random_state=s), "LinearSVC",
             variants=("declared:objective", "declared:output", "defaults:objective",
                       "defaults:output")),
    ]  # fmt: skip
    for name, counterpart in (("MinMaxScaler", "MinMaxScaler"),
                              ("RobustScaler", "RobustScaler"),
                              ("StandardScaler", "StandardScaler")):  # fmt: skip
        entries.append(Spec(
            name, regression_data, _private(name, public=box),
            lambda s, name=name: getattr(preprocessing, name)(), counterpart,
        ))  # fmt: skip
    for kind, name in (("grid", "PrivateGridSearchCV"), ("random", "PrivateRandomizedSearchCV")):
        private, baseline, counterpart = _search(kind)
        entries.append(Spec(name, classification_data, private, baseline, counterpart))
    public = {name for name, _ in all_estimators()}  # entries of estimators not landed: out
    return {spec.name: spec for spec in entries if spec.name in public}


def _fit(model, X, y):
    model.fit(X, y) if y is not None else model.fit(X)


def _fit_time(model, X, y):
    """Wall-clock and CPU seconds (this process, all its threads) of one fit."""
    start, cpu = time.perf_counter(), time.process_time()
    _fit(model, X, y)
    return time.perf_counter() - start, time.process_time() - cpu


def _side(spec, variant, side):
    """``make(seed)`` of one side: the private model or the counterpart."""
    return (lambda s: spec.private(variant, s)) if side == "private" else spec.baseline


def fit_rss_mb(name, variant, side, n):
    """Peak RSS increase (MiB) of one fit of ``side`` of entry ``name`` on ``n`` rows.

    Meant for a fresh process (:func:`benchmarks._memory.in_fresh_process`): the data
    and a warm-up fit on their first 1000 rows come before the measurement.
    """
    spec = specs()[name]
    make = _side(spec, variant, side)
    X, y = spec.data_for(variant)(int(n), seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _fit(make(0), X[:1000], None if y is None else y[:1000])
        return rss_peak_mb(_fit, make(0), X, y)


def measure(spec, variant, n, repeats, *, baseline=True, rss=True):
    """One row (a dict of ``COLUMNS`` but the exponents) for ``spec`` at ``n`` rows."""
    X, y = spec.data_for(variant)(int(n), seed=0)
    times = {"private": [], "baseline": []}
    cpu = {"private": [], "baseline": []}
    sides = {side: _side(spec, variant, side) for side in ("private", "baseline")[: 1 + baseline]}
    for r in range(repeats):  # interleaved, the order alternating
        for side in sorted(sides, reverse=bool(r % 2)):
            wall, seconds = _fit_time(sides[side](r), X, y)
            times[side].append(wall)
            cpu[side].append(seconds)
    peaks = {side: tracemalloc_peak_mb(_fit, make(0), X, y) for side, make in sides.items()}
    rss_mb = {side: in_fresh_process(fit_rss_mb, spec.name, variant, side, n) if rss else np.nan
              for side in sides}  # fmt: skip
    row = {"estimator": spec.name, "variant": variant, "counterpart": spec.counterpart,
           "n_samples": int(n), "n_features": X.shape[1], "repeats": repeats,
           "load_avg": round(os.getloadavg()[0], 2), "note": ""}  # fmt: skip
    for side in ("private", "baseline"):
        found = times[side]
        row[f"{side}_min_s"] = min(found) if found else np.nan
        row[f"{side}_median_s"] = float(np.median(found)) if found else np.nan
        row[f"{side}_peak_mb"] = peaks.get(side, np.nan)
        row[f"{side}_rss_mb"] = rss_mb.get(side, np.nan)
        row[f"{side}_cpu_median_s"] = float(np.median(cpu[side])) if cpu[side] else np.nan
    row["ratio_min"] = row["private_min_s"] / row["baseline_min_s"]
    row["ratio_median"] = row["private_median_s"] / row["baseline_median_s"]
    row["ratio_cpu_median"] = row["private_cpu_median_s"] / row["baseline_cpu_median_s"]
    row["memory_ratio"] = row["private_peak_mb"] / row["baseline_peak_mb"]
    # a fit on a few rows may touch no new page: no ratio then
    row["rss_ratio"] = (
        row["private_rss_mb"] / row["baseline_rss_mb"] if row["baseline_rss_mb"] else np.nan
    )
    if not baseline:
        row["note"] = spec.reason
    return row


def exponent(sizes, seconds):
    """Least-squares slope of log(seconds) against log(sizes); NaN under two points."""
    sizes, seconds = np.asarray(sizes, float), np.asarray(seconds, float)
    ok = np.isfinite(seconds) & (seconds > 0)
    if ok.sum() < 2:
        return np.nan
    return float(np.polyfit(np.log(sizes[ok]), np.log(seconds[ok]), 1)[0])


def _variant_rows(spec, variant, sizes, repeats, max_seconds, progress, *, rss=True):
    """The rows of one estimator and variant, in size order; exponents over the measured."""
    rows, measured = [], []
    for n in sizes:
        # the counterpart counts only where it runs at this size too
        sides = ("private", "baseline") if n <= spec.max_baseline_rows else ("private",)
        slowest = max(measured[-1][f"{side}_median_s"] for side in sides) if measured else 0.0
        if slowest > max_seconds:
            rows.append({"estimator": spec.name, "variant": variant, "n_samples": int(n),
                         "note": f"skipped: a fit took over {max_seconds:g} s at "
                                 f"{measured[-1]['n_samples']:.0e} rows"})  # fmt: skip
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row = measure(spec, variant, n, repeats, baseline=n <= spec.max_baseline_rows, rss=rss)
        rows.append(row)
        measured.append(row)
        progress(_line(row))
    for side in ("private", "baseline"):
        sizes_found = [r["n_samples"] for r in measured]
        slope = exponent(sizes_found, [r[f"{side}_median_s"] for r in measured])
        for row in measured:
            row[f"{side}_exponent"] = slope
    return rows


def run(names, variants, sizes, repeats, max_seconds, progress=print, *, rss=True):
    """The rows of every chosen estimator, variant and size, exponents filled in (the
    RSS columns NaN unless ``rss``)."""
    table = specs()
    rows = []
    for name in names:
        if name not in table:
            rows.append({"estimator": name, "note": "not measured: no entry in this benchmark"})
            continue
        spec = table[name]
        for variant in spec.variants:
            if variant.partition("@")[0].split(":")[0] not in variants:
                continue
            rows += _variant_rows(spec, variant, sizes, repeats, max_seconds, progress, rss=rss)
    return pd.DataFrame(rows, columns=COLUMNS)


def _line(row):
    return (f"{row['estimator']} [{row['variant']}] n={row['n_samples']:.0e}: "
            f"{row['private_median_s']:.3g} s vs {row['baseline_median_s']:.3g} s, "
            f"ratio {row['ratio_median']:.2f}, CPU {row['ratio_cpu_median']:.2f}, peak RSS "
            f"{row['private_rss_mb']:.3g} vs {row['baseline_rss_mb']:.3g} MiB "
            f"(load {row['load_avg']})")  # fmt: skip


def markdown(frame):
    """The table as Markdown: times in seconds, memory in MiB."""
    head = ("| estimator | variant | rows | private s (min / median) | counterpart s "
            "(min / median) | ratio (min / median) | CPU ratio | tracemalloc peak MiB (private / "
            "counterpart) | peak RSS MiB (private / counterpart) | exponent (private / "
            "counterpart) | load | note |")  # fmt: skip
    lines = [head, "|" + "---|" * 12]
    for r in frame.itertuples():
        lines.append(
            f"| {r.estimator} | {r.variant} | {r.n_samples:.0e} | {r.private_min_s:.3g} / "
            f"{r.private_median_s:.3g} | {r.baseline_min_s:.3g} / {r.baseline_median_s:.3g} | "
            f"{r.ratio_min:.2f} / {r.ratio_median:.2f} | {r.ratio_cpu_median:.2f} | "
            f"{r.private_peak_mb:.3g} / {r.baseline_peak_mb:.3g} | {r.private_rss_mb:.3g} / "
            f"{r.baseline_rss_mb:.3g} | {r.private_exponent:.2f} / {r.baseline_exponent:.2f} "
            f"| {r.load_avg} | {'' if pd.isna(r.note) else r.note} |"
        )
    return "\n".join(lines)


def main(argv=()):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks speed", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--sizes", default="1e4,1e5,1e6", help="rows, comma-separated")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved fits per side")
    parser.add_argument("--estimators", default="", help="names, comma-separated (all)")
    parser.add_argument("--variants", default="declared,defaults")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=120.0,
        help="skip an estimator's larger sizes once a fit took longer",
    )
    parser.add_argument("--no-rss", action="store_true", help="skip the peak RSS fits")
    parser.add_argument("--out", default=os.path.join("benchmark_results", "speed.csv"))
    args = parser.parse_args(list(argv))  # fmt: skip
    public = sorted(name for name, _ in all_estimators())
    names = [n for n in args.estimators.split(",") if n] or public
    unknown = sorted(set(names) - set(public))
    if unknown:
        parser.error(f"unknown estimators {unknown}; choose from {public}")
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    start = time.perf_counter()
    frame = run(names, args.variants.split(","), sizes, args.repeats, args.max_seconds,
                rss=not args.no_rss)  # fmt: skip
    if os.path.dirname(args.out):
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
    frame.to_csv(args.out, index=False)
    print(markdown(frame))
    load = os.getloadavg()[0]
    print(f"\n{len(frame)} rows in {time.perf_counter() - start:.0f} s; {os.cpu_count()} "
          f"cores, load average now {load:.2f}; wrote {args.out}")  # fmt: skip
    return 0
