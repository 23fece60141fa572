"""Private hyperparameter search against its alternatives at the same total budget (#25).

For each dataset, total epsilon and seed, the test accuracy of:

* ``private search``: :class:`skdp.model_selection.PrivateGridSearchCV` over a grid of
  12 ``DPDecisionTree`` candidates (``n_levels`` "auto" (the default), 2..6 x
  ``algorithm`` maxgddp / diffgen) with ``epsilon`` = the total (Liu-Talwar, each
  run ``epsilon / 3``, ``E[K]`` = 24 runs, the winner's model released);
* ``(a) default``: one ``DPDecisionTree`` with its default hyperparameters at the total;
* ``(b) divided GridSearchCV``: scikit-learn's ``GridSearchCV(cv=5)`` over the same grid
  with the total divided over every fit it runs (12 x 5 + 1 refit = 61 fits, each
  ``epsilon / 61``; its selection itself is not private);
* ``(c) non-private best``: scikit-learn's ``GridSearchCV(cv=5)`` of
  ``DecisionTreeClassifier`` (``max_depth`` None, 2..6 x ``criterion`` gini / entropy) on the
  public one-hot encoding.

Every model gets the same public inputs (bounds, categories, taxonomies, classes)::

    python -m benchmarks model_selection                        # Adult and Iris
    python -m benchmarks model_selection --datasets iris --seeds 3
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier

from benchmarks import _data, _encoding
from skdp import privacy_spent
from skdp.model_selection import PrivateGridSearchCV
from skdp.tree import DPDecisionTree

EPSILONS = (1.0, 2.0, 5.0)
DATASETS = ("adult", "iris")
# the default n_levels="auto" (chosen from a private row count) is one of the candidates
GRID = {"n_levels": ["auto", 2, 3, 4, 5, 6], "algorithm": ["maxgddp", "diffgen"]}
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


def _accuracy(model, task):
    return float(np.mean(np.asarray(model.predict(task.X_test)) == np.asarray(task.y_test)))


def run_one(task, epsilon, seed):
    """``{method: test accuracy}`` and the epsilon each method spent, for one seed."""
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = PrivateGridSearchCV(_tree(task), GRID, epsilon=epsilon, random_state=seed)
        start = time.perf_counter()
        search.fit(task.X_train, task.y_train)
        rows.append(("private search", search, time.perf_counter() - start))
        default = _tree(task, epsilon=epsilon, random_state=seed)
        start = time.perf_counter()
        rows.append(("(a) default", default.fit(task.X_train, task.y_train), 0.0))
        rows[-1] = (*rows[-1][:2], time.perf_counter() - start)
        per_fit = epsilon / (len(GRID["n_levels"]) * len(GRID["algorithm"]) * 5 + 1)
        divided = GridSearchCV(_tree(task, epsilon=per_fit, random_state=seed), GRID, cv=5)
        start = time.perf_counter()
        rows.append(("(b) divided GridSearchCV", divided.fit(task.X_train, task.y_train), 0.0))
        rows[-1] = (*rows[-1][:2], time.perf_counter() - start)
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
        }
        for method, model, seconds in rows
    ]


def non_private_best(task):
    grid = {"model__max_depth": [None, 2, 3, 4, 5, 6], "model__criterion": ["gini", "entropy"]}
    model = Pipeline(
        [("encode", _encoding.public_encoder(task)), ("model", DecisionTreeClassifier())]
    )
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
            cells.append(f"{scores.mean():.3f} / {scores.min():.3f}")
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
    args = parser.parse_args(list(argv))
    epsilons = [float(e) for e in args.epsilons.split(",")]
    tasks = [_task(name, args.data_home) for name in args.datasets.split(",")]
    # seed by seed, so that an interrupted run still has every epsilon for its first seeds
    jobs = [(t, e, s) for s in range(args.seeds) for t in tasks for e in epsilons]
    out, rows = Path(args.out), []
    results = Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(run_one)(*job) for job in jobs
    )
    for job_rows in results:  # written as they arrive
        rows += job_rows
        pd.DataFrame(rows).to_csv(out, index=False)
    frame = pd.DataFrame(rows)
    reference = {t.dataset: non_private_best(t) for t in tasks}
    print("test accuracy, mean / worst of", args.seeds, "seeds (same total epsilon)")
    print(_markdown(frame, reference))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
