"""Default constructors on a user's own data, next to declared inputs and diffprivlib (#20).

Every public skdp classifier, regressor and clusterer is fitted three ways on plain
pandas data, at every epsilon and seed:

- ``default``: ``Est(epsilon=eps, random_state=seed)`` and nothing else (clusterers with
  an ``n_clusters`` also get the number of classes, as a user would give it);
- ``declared``: plus the inputs a knowledgeable user declares from public documentation,
  never from the rows: ``classes``, ``bounds``/``bounds_y`` and ``data_norm`` where the
  estimator has them;
- ``diffprivlib``: diffprivlib's model of the same kind with its defaults (numeric
  columns as numpy, no bounds: it reads them from the data with a PrivacyLeakWarning),
  when diffprivlib imports.

Classifiers get Iris, Wine, Breast cancer (scikit-learn's toy data) and Adult (a 15,000-row
sample of the rows without a missing value, as a plain DataFrame); the regressors get
diabetes; the clusterers cluster all rows of the three toy classification sets and are
scored by the adjusted Rand index against the labels. Classification and regression use a
70/30 split per seed (stratified for classification). Estimators without the categorical
input tag get the numeric columns only. Prints one table per dataset and metric (mean ± std
(worst seed, 10th percentile) over the seeds, next to the trivial baseline) and a summary;
writes every fit to ``--out`` (CSV) and the tables next to it (``.md``)::

    python -m benchmarks defaults
    python -m benchmarks defaults --datasets iris,adult --epsilons 1 --repeats 3
"""

import argparse
import math
import sys
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import ClassifierMixin, ClusterMixin, RegressorMixin
from sklearn.metrics import adjusted_rand_score, r2_score
from sklearn.model_selection import train_test_split

from benchmarks import _data, _harness, _registry, _report
from benchmarks.utility import _epsilons

DATASETS = ("iris", "wine", "breast_cancer", "diabetes", "adult")
DEFAULT_EPSILONS = "0.1,0.5,1,2,5"
# a transformer of transactions, not of these tables; searches (a GaussianNB run by default)
SKIPPED = ("DPFrequentItemsets", "PrivateGridSearchCV", "PrivateRandomizedSearchCV")
TEST_SIZE = 0.3
ADULT_ROWS = 15_000  # as the user's first try: a sample keeps Adult cheap
# load_diabetes' documentation: "Targets: integer 25 - 346"; its features are centred
# and scaled (each column has unit norm), documented practical range +-0.2
DIABETES_TARGET_BOUNDS = (25.0, 346.0)
# diffprivlib's model of the same kind, with its defaults
DIFFPRIVLIB_MODELS = {
    "DPDecisionTree": "DecisionTreeClassifier",
    "ObjectivePerturbationLogistic": "LogisticRegression",
    "FunctionalMechanismClassifier": "LogisticRegression",
    "PrivateSVM": "LogisticRegression",
    "FunctionalMechanismRegressor": "LinearRegression",
    "DPKMeans": "KMeans",
}
ERROR_WIDTH = 60
# the classifiers' target: the worst seed at least the majority class from this epsilon
MAJORITY_FROM_EPSILON = 1.0


# -- the data a user has, and what the documentation says about it ---------------------


def descr_bounds(bunch):
    """Per-feature ``(Min, Max)`` from the "Summary Statistics" table of a scikit-learn
    toy dataset's DESCR (its public documentation; the rows are never read).

    The table lists the features in column order; their names there differ from
    ``feature_names`` (no units, other capitals), so they are matched by position.
    """
    table = bunch.DESCR.split(":Summary Statistics:", 1)[1].splitlines()
    rules = [i for i, line in enumerate(table) if line.lstrip().startswith("====")]
    rows = [line for line in table[rules[1] + 1 : rules[2]] if line.strip()]
    if len(rows) != len(bunch.feature_names):
        n = len(bunch.feature_names)
        raise ValueError(f"the DESCR table lists {len(rows)} features, the data has {n}")
    low_high = [row.rpartition(":")[2].split()[:2] for row in rows]
    return {
        name: (float(low), float(high))
        for name, (low, high) in zip(bunch.feature_names, low_high, strict=True)
    }


def _toy(name):
    from sklearn import datasets

    bunch = getattr(datasets, f"load_{name}")(as_frame=True)
    if name == "diabetes":
        public = {
            "bounds": dict.fromkeys(bunch.feature_names, _data.DIABETES_FEATURE_BOUNDS),
            "target_bounds": DIABETES_TARGET_BOUNDS,
        }
        return "regression", bunch.data, bunch.target, public
    classes = list(range(len(bunch.target_names)))  # the documented label set
    public = {"bounds": descr_bounds(bunch), "classes": classes, "n_clusters": len(classes)}
    return "classification", bunch.data, bunch.target, public


def _adult(data_home):
    from skdp.datasets import fetch_adult, load_numeric_domains

    bunch = fetch_adult(data_home=data_home, as_frame=True)
    X = bunch.data.dropna().sample(n=ADULT_ROWS, random_state=0)  # a plain DataFrame
    y = bunch.target.loc[X.index]
    domains = load_numeric_domains("adult")  # public domains shipped with skdp
    public = {
        "bounds": {c: domains[c] for c in X.columns if c in domains},
        "classes": list(y.cat.categories),
        "n_clusters": len(y.cat.categories),
    }
    return "classification", X, y, public


def load_dataset(name, data_home=None):
    """``(task, X, y, public)`` of one dataset: a plain DataFrame and its public inputs."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    return _adult(data_home) if name == "adult" else _toy(name)


# -- the estimators and how each variant builds them ------------------------------------


def kind_of(cls):
    for mixin, kind in (
        (ClassifierMixin, "classification"),
        (RegressorMixin, "regression"),
        (ClusterMixin, "clustering"),
    ):
        if issubclass(cls, mixin):
            return kind
    return None


def estimators(spec="all"):
    """``[(name, class)]`` of skdp's public classifiers, regressors and clusterers."""
    from skdp.utils.discovery import all_estimators

    found = [
        (name, cls)
        for name, cls in all_estimators()
        if name not in SKIPPED and kind_of(cls) is not None
    ]
    if spec.strip().lower() == "all":
        return found
    by_name = {name.lower(): (name, cls) for name, cls in found}
    wanted = [part.strip().lower() for part in spec.split(",") if part.strip()]
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        raise ValueError(
            f"no estimator named {', '.join(unknown)}; choose from "
            f"{', '.join(name for name, _ in found)}"
        )
    return [by_name[w] for w in dict.fromkeys(wanted)]


def _categorical(cls):
    """The estimator's categorical input tag: without it a user passes numeric columns."""
    try:
        return bool(cls().__sklearn_tags__().input_tags.categorical)
    except Exception:  # a tag that fails to build is no tag
        return False


def default(cls, task, epsilon, seed):
    """``Est(epsilon=eps, random_state=seed)`` (and ``n_clusters`` = number of classes)."""
    params = {"epsilon": epsilon, "random_state": seed}
    if "n_clusters" in cls().get_params():
        params["n_clusters"] = task.public["n_clusters"]
    return cls(**params)


def declared_inputs(estimator, task):
    """The public inputs ``estimator`` takes: classes, bounds, bounds_y, data_norm (only
    without bounds: an estimator that takes both wants one declaration of the domain)."""
    names = estimator.get_params()
    bounds = {c: b for c, b in task.public["bounds"].items() if c in task.X_train.columns}
    largest = [max(abs(low), abs(high)) for low, high in bounds.values()]
    candidates = {
        "classes": task.public.get("classes"),
        "bounds": bounds,
        "bounds_y": task.public.get("target_bounds"),
        "data_norm": math.hypot(*largest),  # L2 norm of the box's farthest corner
    }
    if "bounds" in names:
        del candidates["data_norm"]
    return {k: v for k, v in candidates.items() if k in names and v is not None}


def declared(cls, task, epsilon, seed):
    estimator = default(cls, task, epsilon, seed)
    return estimator.set_params(**declared_inputs(estimator, task))


def diffprivlib_default(model, task, epsilon, seed):
    from diffprivlib import models

    if model == "KMeans":
        return models.KMeans(task.public["n_clusters"], epsilon=epsilon, random_state=seed)
    return getattr(models, model)(epsilon=epsilon, random_state=seed)


def score(estimator, task):
    """Accuracy or R^2 on the test split; ARI of the fitted rows' labels vs the classes."""
    if task.task != "clustering":
        return _harness.default_score(estimator, task)
    labels = getattr(estimator, "labels_", None)
    if labels is None:
        labels = estimator.predict(task.X_train)
    return {"ARI": adjusted_rand_score(task.y_train, np.asarray(labels))}


def baseline(task):
    """The trivial model's score: the test split's majority class, the training mean's
    R^2, or one cluster's ARI (0)."""
    if task.task == "classification":
        return float(task.y_test.value_counts(normalize=True).max())
    if task.task == "regression":
        return float(r2_score(task.y_test, np.full(len(task.y_test), task.y_train.mean())))
    return 0.0


# -- the plan: one Task per (dataset, task, view, seed), one Job per fit ---------------


class _Plan:
    """Tasks (built on first use), jobs, factories and baselines for ``_harness.run``."""

    def __init__(self, base_seed):
        self.base_seed = base_seed
        self.tasks, self.jobs, self.factories = [], [], {}
        self.baselines = {}  # (dataset, task, repeat) -> the split's trivial score
        self._index, self._planned = {}, set()

    def task(self, dataset, data, task_kind, view, repeat):
        """The index of one split's Task in ``view``: "frame", "numeric" or "numpy"."""
        _, X, y, public = data
        numeric = X.select_dtypes("number")
        if view != "frame" or numeric.shape[1] == X.shape[1]:
            X, view = numeric, ("numeric" if view == "frame" else view)
        split = None if task_kind == "clustering" else repeat  # clusterers: every row
        key = (dataset, task_kind, view, split)
        if key not in self._index:
            self._index[key] = len(self.tasks)
            self.tasks.append(self._build(dataset, task_kind, X, y, public, view, split))
        self.baselines[(dataset, task_kind, repeat)] = baseline(self.tasks[self._index[key]])
        return self._index[key]

    def _build(self, dataset, task_kind, X, y, public, view, split):
        if split is None:
            X_train, X_test, y_train, y_test = X, X, y, y
        else:
            # the rows of a split depend on the seed and y only: every view shares them
            X_train, X_test, y_train, y_test = train_test_split(
                X,
                y,
                test_size=TEST_SIZE,
                random_state=_harness.repeat_seed(self.base_seed, split),
                stratify=y if task_kind == "classification" else None,
            )
        if view == "numpy":
            X_train, X_test = X_train.to_numpy(), X_test.to_numpy()
        note = "every row" if split is None else f"split of repeat {split}"
        return _data.Task(dataset, task_kind, X_train, y_train, X_test, y_test, public, note)

    def add(self, variant, label, factory, task_index, epsilon, repeat):
        """One fit; a fit planned already (a shared diffprivlib model) is not repeated."""
        if (variant, label, task_index, epsilon, repeat) in self._planned:
            return
        self._planned.add((variant, label, task_index, epsilon, repeat))
        self.factories[(variant, label)] = (factory, score, ())
        seed = _harness.repeat_seed(self.base_seed, repeat)
        self.jobs.append(_harness.Job(variant, label, task_index, epsilon, (), repeat, seed))


def tasks_of(kind, dataset, data_kind):
    """The tasks an estimator kind runs on a dataset of ``data_kind``."""
    if kind == "clustering":
        return ["clustering"] if data_kind == "classification" and dataset != "adult" else []
    return [kind] if kind == data_kind else []


def plan(data, chosen, epsilons, repeats, *, base_seed=0, dpl=False):
    """Every fit: the chosen estimators x variants x tasks x epsilons x repeats."""
    p = _Plan(base_seed)
    for dataset, dataset_data in data.items():
        for name, cls in chosen:
            view = "frame" if _categorical(cls) else "numeric"
            model = DIFFPRIVLIB_MODELS.get(name) if dpl else None
            for task_kind in tasks_of(kind_of(cls), dataset, dataset_data[0]):
                for epsilon in epsilons:
                    for r in range(repeats):
                        t = p.task(dataset, dataset_data, task_kind, view, r)
                        p.add("default", name, partial(default, cls), t, epsilon, r)
                        p.add("declared", name, partial(declared, cls), t, epsilon, r)
                        if model is not None:
                            t = p.task(dataset, dataset_data, task_kind, "numpy", r)
                            factory = partial(diffprivlib_default, model)
                            p.add("diffprivlib", f"diffprivlib {model}", factory, t, epsilon, r)
    return p


# -- the report -------------------------------------------------------------------------


def _error_text(message):
    text = message if len(message) <= ERROR_WIDTH else message[: ERROR_WIDTH - 1] + "…"
    return text.replace("|", "\\|")


def cells(runs):
    """One row per (dataset, task, estimator, variant, epsilon): the cell's statistics.

    Columns ``mean``, ``std``, ``worst``, ``p10``, ``fits``, ``failed``, ``error`` (the first
    failure) and ``below`` (seeds under their split's baseline, failures included).
    """
    keys = ["dataset", "task", "estimator", "kind", "epsilon"]
    rows = []
    for key, part in runs.groupby(keys, sort=False):
        scores = part.loc[part["metric"] != "error", "score"]
        errors = part.loc[part["metric"] == "error", "error"]
        ok = part[part["metric"] != "error"]
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                **_report.seed_spread(scores),
                "fits": len(part),
                "failed": len(errors),
                "error": errors.iloc[0] if len(errors) else "",
                "below": int((ok["score"] < ok["baseline"]).sum()) + len(errors),
            }
        )
    return pd.DataFrame(rows)


def _number(value):
    """Three decimals; three significant digits once a score runs away (R^2 of -1e22)."""
    return f"{value:.3f}" if abs(value) < 1000 else f"{value:.3g}"


def _cell_text(cell):
    if cell is None:
        return "-"
    if cell["failed"] == cell["fits"]:
        return f"ERROR {_error_text(cell['error'])}"
    text = (
        f"{_number(cell['mean'])} ± {_number(cell['std'])} "
        f"({_number(cell['worst'])}, {_number(cell['p10'])})"
    )
    if cell["failed"]:
        text += f" [{cell['failed']}/{cell['fits']} failed: {_error_text(cell['error'])}]"
    return text


METRIC = {"classification": "accuracy", "regression": "R^2", "clustering": "ARI vs the labels"}
BASELINE = {
    "classification": "majority class of the test split",
    "regression": "R^2 of the training mean",
    "clustering": "one cluster",
}


def tables(runs, table, names, epsilons):
    """The Markdown tables: per (dataset, task), estimator x variant rows, epsilon columns."""
    blocks = []
    lookup = {
        (r["dataset"], r["task"], r["estimator"], r["kind"], r["epsilon"]): r
        for r in table.to_dict("records")
    }
    groups = dict(list(runs.groupby(["dataset", "task"], sort=False)))
    order = [(d, t) for d in DATASETS for t in METRIC if (d, t) in groups]
    for dataset, task in order:
        part = groups[(dataset, task)]
        header = ["estimator", "inputs", *[f"ε={e:g}" for e in epsilons]]
        lines = [
            f"**{dataset}: {task}, {METRIC[task]}** (mean ± std (worst seed, 10th "
            f"percentile) over {part['repeat'].nunique()} seeds)",
            "",
            "| " + " | ".join(header) + " |",
            "|" + "---|" * len(header),
        ]
        present = [n for n in names if n in set(part["estimator"])]
        for name in present:
            model = DIFFPRIVLIB_MODELS.get(name)
            variants = [("default", name), ("declared", name)]
            if model is not None:
                variants.append(("diffprivlib", f"diffprivlib {model}"))
            for variant, label in variants:
                shown = label if variant == "diffprivlib" else variant
                found = [lookup.get((dataset, task, label, variant, e)) for e in epsilons]
                row = [name, shown, *map(_cell_text, found)]
                lines.append("| " + " | ".join(row) + " |")
        base = part.drop_duplicates("repeat")["baseline"]
        lines.append("")
        lines.append(
            f"baseline ({BASELINE[task]}): {base.mean():.3f} ± "
            f"{(base.std(ddof=1) if len(base) > 1 else 0.0):.3f} ({base.min():.3f})"
        )
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) if blocks else "(no fits)\n"


def _listing(cells, most=12):
    if not cells:
        return ""
    more = f", and {len(cells) - most} more" if len(cells) > most else ""
    return f" ({', '.join(cells[:most])}{more})"


def _where(cell):
    return f"{cell['dataset']}/{cell['estimator']}/ε={cell['epsilon']:g}"


def summary_lines(runs, table):
    """The closing summary: failures, skdp below diffprivlib, worst seeds below majority."""
    default = table[table["kind"] == "default"]
    failed = int(runs.loc[runs["kind"] == "default", "metric"].eq("error").sum())
    n_default = int((runs["kind"] == "default").sum())
    lines = [f"default fits that failed: {failed} of {n_default}"]
    for variant in ("declared", "diffprivlib"):
        part = runs[runs["kind"] == variant]
        if len(part):
            n_failed = int(part["metric"].eq("error").sum())
            lines.append(f"{variant} fits that failed: {n_failed} of {len(part)}")

    keys = ["dataset", "task", "estimator", "epsilon"]
    dpl = table[table["kind"] == "diffprivlib"].set_index(keys)
    below, compared = [], 0
    for cell in default.to_dict("records"):
        model = DIFFPRIVLIB_MODELS.get(cell["estimator"])
        key = (cell["dataset"], cell["task"], f"diffprivlib {model}", cell["epsilon"])
        if model is None or key not in dpl.index or np.isnan(dpl.loc[key, "mean"]):
            continue
        compared += 1
        if np.isnan(cell["mean"]) or cell["mean"] < dpl.loc[key, "mean"]:
            below.append(_where(cell))
    lines.append(
        f"cells where skdp default < diffprivlib default (mean; a failed cell counts): "
        f"{len(below)} of {compared}{_listing(below)}"
    )

    target = default[
        (default["task"] == "classification") & (default["epsilon"] >= MAJORITY_FROM_EPSILON)
    ]
    under = target[target["below"] > 0]
    listed = [_where(c) for c in under.to_dict("records")]
    lines.append(
        f"classifier cells at ε >= {MAJORITY_FROM_EPSILON:g} with a seed below its split's "
        f"majority class (a failed seed counts): {len(under)} of {len(target)}{_listing(listed)}"
    )
    mismatched = _report.ledger_check(runs, kinds=("default", "declared"))
    if len(mismatched):
        lines.append(f"LEDGER MISMATCH in {len(mismatched)} fits: privacy spent != epsilon")
    return lines


# -- the command line -------------------------------------------------------------------


def _names(text):
    values = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [v for v in values if v not in DATASETS]
    if not values or unknown:
        raise argparse.ArgumentTypeError(f"datasets must be among {', '.join(DATASETS)}")
    return values


def parser(prog="python -m benchmarks defaults"):
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", type=_names, default=list(DATASETS), help=", ".join(DATASETS))
    p.add_argument("--epsilons", type=_epsilons, default=_epsilons(DEFAULT_EPSILONS))
    p.add_argument("--repeats", type=int, default=10, help="seeds per cell")
    p.add_argument("--estimators", default="all", help="'all' or comma-separated class names")
    p.add_argument("--out", default="benchmark_results/defaults.csv", help="CSV of every fit")
    p.add_argument("--n-jobs", type=int, default=-1, help="parallel fits (joblib)")
    p.add_argument("--seed", type=int, default=0, help="base seed of the repeats")
    p.add_argument("--data-home", default=None, help="default $SKDP_DATA_HOME or ~/skdp_data")
    p.add_argument("--no-diffprivlib", action="store_true", help="skip diffprivlib")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv=()):
    args = parser().parse_args(list(argv))
    if args.repeats < 1:
        sys.exit("--repeats must be at least 1")
    try:
        chosen = estimators(args.estimators)
        data = {name: load_dataset(name, args.data_home) for name in args.datasets}
    except (ValueError, OSError) as error:
        sys.exit(f"error: {error}")
    dpl_ok, dpl_info = False, "skipped (--no-diffprivlib)"
    if not args.no_diffprivlib:
        dpl_ok, dpl_info = _registry.diffprivlib_status()

    p = plan(data, chosen, args.epsilons, args.repeats, base_seed=args.seed, dpl=dpl_ok)
    runs = _harness.run(p.tasks, p.jobs, p.factories, n_jobs=args.n_jobs, progress=not args.quiet)
    keys = zip(runs["dataset"], runs["task"], runs["repeat"], strict=True)
    runs["baseline"] = [p.baselines[key] for key in keys]
    table = cells(runs) if len(runs) else pd.DataFrame()

    names = [name for name, _ in chosen]
    text = "# skdp default constructors vs declared inputs vs diffprivlib (issue 20)\n\n"
    text += (
        f"- datasets: {', '.join(args.datasets)} (Adult: {ADULT_ROWS:,} rows without a missing "
        f"value, numeric columns for estimators without the categorical input tag); "
        f"{int(TEST_SIZE * 100)}% test split per seed, clusterers fit every row\n"
        f"- {args.repeats} seeds (base seed {args.seed}); "
        "cells: mean ± std (worst seed, 10th percentile)\n"
        f"- diffprivlib: {dpl_info if not dpl_ok else dpl_info + ', its defaults on numpy'}\n\n"
    )
    text += tables(runs, table, names, args.epsilons) if len(runs) else "(no fits)\n"
    summary = summary_lines(runs, table) if len(runs) else ["no fits"]
    text += "\n" + "".join(f"- {line}\n" for line in summary)
    print(text)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out, index=False)
    out.with_suffix(".md").write_text(text, encoding="utf-8")
    print(f"wrote {out} ({len(runs)} rows) and {out.with_suffix('.md')}")
    return 0
