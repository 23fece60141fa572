"""Private hyperparameter search against its alternatives at the same total budget (#25).

For each dataset, total epsilon and seed, the test accuracy of:

* ``private search``: :class:`skdp.model_selection.PrivateGridSearchCV` over a grid of
  12 ``DPDecisionTree`` candidates (``n_levels`` "auto" (the default), 2, 4, 6, 8, 12
  x ``algorithm`` maxgddp / diffgen) with ``epsilon`` = the total (Liu-Talwar, each
  run ``epsilon / 3``, ``E[K]`` = 24 runs, the winner's model released). The depths
  span what "auto" picks itself (2-3 on Iris, 8-12 on Adult at these budgets), so the
  grid holds the default and its neighbours on both data sets; it was not tuned to the
  results (session 5's grid, "auto", 2..6, stopped below Adult's own default depth);
* ``(a) default``: one ``DPDecisionTree`` with its default hyperparameters at the total;
* ``(b) divided GridSearchCV``: scikit-learn's ``GridSearchCV(cv=5)`` over the same grid
  with the total divided over every fit it runs (12 x 5 + 1 refit = 61 fits, each
  ``epsilon / 61``; its selection itself is not private);
* ``(c) non-private best``: scikit-learn's ``GridSearchCV(cv=5)`` of
  ``DecisionTreeClassifier`` (``max_depth`` None, 2..6 x ``criterion`` gini / entropy) on the
  public one-hot encoding.

``--grid`` picks another 12-candidate grid (the same on both data sets): ``tree-split-points``
(``DPDecisionTree`` ``n_split_points`` 3, 5, 7, 11, 15 (the default), 31 x the two
algorithms: the candidate thresholds per numeric feature, which decide how finely a
small budget is spread), or ``svm`` (``PrivateSVM``, linear, on the public encoding: ``C``
0.003 .. 1 (1 is the default) x ``mechanism`` objective / output, the regularisation a
user tunes first on a linear model) or ``svm-wide`` (the same with ``C`` 0.001, 0.01, ..., 100:
a decade apart, the default inside the grid). Session 10's survey adds ``svm-kernel``
(``PrivateSVM`` kernel linear / rbf x ``C`` 0.01, 0.1, 1 x mechanism), ``nb``
(``GaussianNB`` variances x ``var_smoothing``), ``forest`` (``RandomForestClassifier``
``n_estimators`` x ``n_levels``), ``tree-options`` (``DPDecisionTree`` ``leaf_budget`` x
``utility`` x ``classifier``), ``logistic`` (``ObjectivePerturbationLogistic`` ``C`` x
``fit_intercept``) and ``fm`` (``FunctionalMechanismClassifier`` ``regularization`` x
``fit_intercept``), each written before it was measured. (c) stays the non-private tree.

Every model gets the same public inputs (bounds, categories, taxonomies, classes)::

    python -m benchmarks model_selection                        # Adult and Iris
    python -m benchmarks model_selection --datasets iris --seeds 3
    python -m benchmarks model_selection --methods search --repetitions logarithmic --n-iter 12
    python -m benchmarks model_selection --methods search --eta -0.5   # factor 1.5
    python -m benchmarks model_selection --datasets iris --grid svm
    python -m benchmarks model_selection --datasets iris --validation-fraction 0.35
    python -m benchmarks model_selection --grid svm --candidates  # each point alone, at the total

The table is mean +- std / worst of the seeds.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.model_selection import GridSearchCV, ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier

from benchmarks import _data, _encoding
from benchmarks._encoding import encoded, encoded_bounds, encoded_norm_bound
from benchmarks.classification import rbf_gamma
from skdp import privacy_spent
from skdp.ensemble import RandomForestClassifier
from skdp.linear_model import FunctionalMechanismClassifier, ObjectivePerturbationLogistic
from skdp.model_selection import PrivateGridSearchCV
from skdp.naive_bayes import GaussianNB
from skdp.svm import PrivateSVM
from skdp.tree import DPDecisionTree

EPSILONS = (1.0, 2.0, 5.0)
DATASETS = ("adult", "iris")
# the default n_levels="auto" (chosen from a private row count) is one of the candidates;
# the depths span what "auto" itself picks (2-3 on Iris, 8-12 on Adult at epsilon 1-5),
# so that the search can reach the default's own regime on both data sets
GRID = {"n_levels": ["auto", 2, 4, 6, 8, 12], "algorithm": ["maxgddp", "diffgen"]}
SPLIT_POINTS_GRID = {"n_split_points": [3, 5, 7, 11, 15, 31], "algorithm": ["maxgddp", "diffgen"]}
SVM_GRID = {
    "model__C": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0],
    "model__mechanism": ["objective", "output"],
}
# the textbook log grid, a decade apart with the default C = 1 inside it: SVM_GRID stops
# at the default, so it cannot reach a C above it (fixed before any of it was measured)
SVM_WIDE_GRID = {
    "model__C": [0.001, 0.01, 0.1, 1.0, 10.0, 100.0],
    "model__mechanism": ["objective", "output"],
}
# session 10's survey (#25), each written before any of it was measured: other estimators
# and hyperparameters, each grid holding the estimator's defaults
NB_GRID = {  # GaussianNB on the public encoding
    "model__variances": ["pooled", "per_class"],
    "model__var_smoothing": [1e-6, 1e-4, 1e-3, 1e-2, 0.03, 0.1],
}
FOREST_GRID = {"n_estimators": ["auto", 3, 10], "n_levels": ["auto", 4, 8, 12]}
TREE_OPTIONS_GRID = {
    "leaf_budget": [0.15, 0.3, 0.5],
    "utility": ["max", "infogain"],
    "classifier": ["tree", "leaf"],
}
LOGISTIC_GRID = {
    "model__C": [0.01, 0.03, 0.1, 0.3, 1.0, 3.0],
    "model__fit_intercept": [True, False],
}
FM_GRID = {
    "model__regularization": ["auto", 0.01, 0.1, 1.0, 10.0, 100.0],
    "model__fit_intercept": [True, False],
}
SVM_KERNEL_GRID = {
    "model__kernel": ["linear", "rbf"],
    "model__C": [0.01, 0.1, 1.0],
    "model__mechanism": ["objective", "output"],
}
REPETITIONS = {"geometric": "geometric", "logarithmic": "logarithmic"}
METHODS = ("private search", "(a) default", "(b) divided GridSearchCV", "(c) non-private best")


def _task(name, data_home=None):
    return next(t for t in _data.load_tasks(name, data_home) if t.task == "classification")


def _tree(task, **params):
    public = task.public
    return DPDecisionTree(
        bounds=public.get("bounds") or None,
        categories=public.get("categories") or None,
        taxonomies=public.get("taxonomies") or None,
        classes=public["classes"],
        **params,
    )


def _declared(task):
    # as benchmarks.classification: numeric domains centre the rows; mixed data declares
    # the norm bound of the encoded row
    if task.public.get("categorical_features"):
        return {"data_norm": encoded_norm_bound(task)}
    return {"bounds": encoded_bounds(task)}


def _encoded(estimator, public=_declared):
    """A builder of ``estimator`` on the public encoding, given ``public(task)``'s inputs."""

    def make(task, epsilon=1.0, random_state=None):
        model = estimator(
            epsilon=epsilon, classes=task.public["classes"], random_state=random_state,
            **public(task),
        )  # fmt: skip
        return encoded(task, model)

    return make


def _box(task):
    return {"bounds": encoded_bounds(task)}


def _forest(task, **params):
    public = task.public
    return RandomForestClassifier(
        bounds=public.get("bounds") or None,
        categories=public.get("categories") or None,
        taxonomies=public.get("taxonomies") or None,
        classes=public["classes"],
        **params,
    )


# name: (the estimator with its defaults, built for a task, and the grid searched)
GRIDS = {
    "tree": (_tree, GRID),
    "tree-split-points": (_tree, SPLIT_POINTS_GRID),
    "svm": (_encoded(PrivateSVM), SVM_GRID),
    "svm-wide": (_encoded(PrivateSVM), SVM_WIDE_GRID),
    "svm-kernel": (
        _encoded(PrivateSVM, lambda t: {**_declared(t), "gamma": rbf_gamma(t)}),
        SVM_KERNEL_GRID,
    ),
    "nb": (_encoded(GaussianNB, _box), NB_GRID),
    "forest": (_forest, FOREST_GRID),
    "tree-options": (_tree, TREE_OPTIONS_GRID),
    "logistic": (_encoded(ObjectivePerturbationLogistic), LOGISTIC_GRID),
    "fm": (_encoded(FunctionalMechanismClassifier, _box), FM_GRID),
}


def _accuracy(model, task):
    return float(np.mean(np.asarray(model.predict(task.X_test)) == np.asarray(task.y_test)))


def _models(task, epsilon, seed, repetitions, n_iter=None, grid="tree", validation_fraction=0.2):
    """``{method: unfitted model}``: the search and its baselines (a), (b)."""
    make, grid = GRIDS[grid]
    per_fit = epsilon / (len(ParameterGrid(grid)) * 5 + 1)
    return {
        "private search": PrivateGridSearchCV(
            make(task),
            grid,
            epsilon=epsilon,
            repetitions=repetitions,
            n_iter=n_iter,
            validation_fraction=validation_fraction,
            random_state=seed,
        ),
        "(a) default": make(task, epsilon=epsilon, random_state=seed),
        "(b) divided GridSearchCV": GridSearchCV(
            make(task, epsilon=per_fit, random_state=seed), grid, cv=5
        ),
    }


def run_one(
    task,
    epsilon,
    seed,
    repetitions="geometric",
    methods=METHODS[:3],
    n_iter=None,
    grid="tree",
    validation_fraction=0.2,
):
    """``{method: test accuracy}`` and the epsilon each method spent, for one seed."""
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = _models(task, epsilon, seed, repetitions, n_iter, grid, validation_fraction)
        for method, model in models.items():
            if method not in methods:
                continue
            start = time.perf_counter()
            model.fit(task.X_train, task.y_train)
            rows.append((method, model, time.perf_counter() - start))
    return [
        {
            "dataset": task.dataset,
            "epsilon": epsilon,
            "seed": seed,
            "method": method,
            "accuracy": _accuracy(model, task),
            "spent": privacy_spent(model).epsilon,
            "seconds": seconds,
            "chosen": getattr(model, "best_params_", None),
            "repetitions": str(repetitions) if method == "private search" else "",
            "grid": grid,
            "validation_fraction": validation_fraction if method == "private search" else "",
        }
        for method, model, seconds in rows
    ]


def candidates_alone(task, epsilon, seed, grid="tree"):
    """Every grid point fitted alone at the whole ``epsilon`` on all training rows.

    What (a) does for the default: the most a selection could gain if it cost nothing.
    """
    make, points = GRIDS[grid]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for point in ParameterGrid(points):
            model = make(task, epsilon=epsilon, random_state=seed).set_params(**point)
            model.fit(task.X_train, task.y_train)
            params = repr({k.removeprefix("model__"): v for k, v in point.items()})
            rows.append(
                {"dataset": task.dataset, "epsilon": epsilon, "seed": seed,
                 "candidate": params, "accuracy": _accuracy(model, task)}
            )  # fmt: skip
    return rows


def non_private_best(task):
    grid = {"model__max_depth": [None, 2, 3, 4, 5, 6], "model__criterion": ["gini", "entropy"]}
    tree = DecisionTreeClassifier(random_state=0)  # seeded: the same (c) on every run
    model = Pipeline([("encode", _encoding.public_encoder(task)), ("model", tree)])
    search = GridSearchCV(model, grid, cv=5).fit(task.X_train, task.y_train)
    return _accuracy(search, task)


def _markdown(frame, reference):
    lines = [
        "| dataset | epsilon | " + " | ".join(METHODS) + " |",
        "|---|---|" + "---|" * len(METHODS),
    ]
    for (dataset, epsilon), part in frame.groupby(["dataset", "epsilon"]):
        cells = []
        for method in METHODS[:3]:
            scores = part.loc[part["method"] == method, "accuracy"]
            mean, std, worst = scores.mean(), scores.std(ddof=0), scores.min()
            cells.append(
                f"{mean:.3f} ± {std:.3f} / {worst:.3f} ({len(scores)})" if len(scores) else "-"
            )
        cells.append(f"{reference[dataset]:.3f}")
        lines.append(f"| {dataset} | {epsilon:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=()):
    parser = argparse.ArgumentParser(prog="python -m benchmarks model_selection")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--epsilons", default=",".join(str(e) for e in EPSILONS))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--data-home", default=None)
    parser.add_argument("--out", default="model_selection.csv")
    parser.add_argument("--repetitions", choices=sorted(REPETITIONS), default="geometric")
    parser.add_argument(
        "--eta",
        type=float,
        default=None,
        help="a negative binomial shape > -1 for K (overrides --repetitions; factor 2 + eta)",
    )
    parser.add_argument("--grid", choices=sorted(GRIDS), default="tree")
    parser.add_argument("--n-iter", type=int, default=None, help="E[K]; default twice the grid")
    parser.add_argument("--validation-fraction", type=float, default=0.2)
    parser.add_argument(
        "--candidates",
        action="store_true",
        help="instead: each grid point alone at the whole epsilon on all training rows",
    )
    parser.add_argument(
        "--methods",
        default="search,a,b",
        help="which of search, a, b to run (c is always run: one non-private search)",
    )
    args = parser.parse_args(list(argv))
    epsilons = [float(e) for e in args.epsilons.split(",")]
    tasks = [_task(name, args.data_home) for name in args.datasets.split(",")]
    if args.candidates:
        return _candidates_table(tasks, epsilons, args)
    # seed by seed, so that an interrupted run still has every epsilon for its first seeds
    short = dict(zip(("search", "a", "b"), METHODS[:3], strict=True))
    methods = tuple(short[m] for m in args.methods.split(","))
    repetitions = (
        REPETITIONS[args.repetitions] if args.eta is None else ("negative_binomial", args.eta)
    )
    jobs = [
        (t, e, s, repetitions, methods, args.n_iter, args.grid, args.validation_fraction)
        for s in range(args.seeds)
        for t in tasks
        for e in epsilons
    ]
    out, rows = Path(args.out), []
    results = Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(run_one)(*job) for job in jobs
    )
    for job_rows in results:  # written as they arrive
        rows += job_rows
        pd.DataFrame(rows).to_csv(out, index=False)
    frame = pd.DataFrame(rows)
    reference = {t.dataset: non_private_best(t) for t in tasks}
    print("test accuracy, mean ± std / worst (seeds) of", args.seeds, "seeds, same total epsilon")
    print(_markdown(frame, reference))
    print(f"wrote {args.out}")
    return 0


def _candidates_table(tasks, epsilons, args):
    jobs = [(t, e, s, args.grid) for s in range(args.seeds) for t in tasks for e in epsilons]
    results = Parallel(n_jobs=args.n_jobs)(delayed(candidates_alone)(*job) for job in jobs)
    frame = pd.DataFrame([row for rows in results for row in rows])
    frame.to_csv(args.out, index=False)
    table = frame.groupby(["dataset", "epsilon", "candidate"], sort=False)["accuracy"]
    print(f"each candidate alone at the whole epsilon, mean ± std / worst of {args.seeds} seeds")
    for (dataset, epsilon, candidate), scores in table:
        mean, std, worst = scores.mean(), scores.std(ddof=0), scores.min()
        print(f"| {dataset} | {epsilon:g} | {candidate} | {mean:.3f} ± {std:.3f} / {worst:.3f} |")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
