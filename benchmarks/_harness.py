"""Fit every estimator x epsilon x repeat, score it, and collect one row per metric.

Runs are independent jobs (joblib, in parallel); each gets a seed derived from the base
seed and the repeat number only, so a rerun, on any number of workers, gives the same
rows (the fit times aside).
"""

import itertools
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.metrics import accuracy_score, adjusted_rand_score, r2_score

from skdp import privacy_spent

KINDS = ("skdp", "non-private", "diffprivlib")
# kinds whose estimators are not skdp's: their privacy spend is not measured
FOREIGN_KINDS = ("non-private", "diffprivlib")
COLUMNS = [
    "dataset", "task", "estimator", "kind", "epsilon", "repeat", "seed", "metric", "score",
    "fit_time_s", "epsilon_spent", "warnings", "error",
]  # fmt: skip


@dataclass(frozen=True)
class Job:
    kind: str
    label: str
    task_index: int
    epsilon: float
    params: tuple
    repeat: int
    seed: int


def repeat_seed(base_seed, repeat):
    """The seed of one repeat: the same for every estimator and epsilon of that repeat."""
    return int(np.random.SeedSequence([base_seed, repeat]).generate_state(1)[0])


def parse_param_grid(items):
    """``["n_levels=4,7", "score=max"]`` -> list of parameter tuples (their product)."""
    axes = []
    for item in items or ():
        key, sep, values = item.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise ValueError(f"--param expects KEY=V1,V2,...; got {item!r}")
        axes.append([(key.strip(), _literal(v.strip())) for v in values.split(",")])
    return [tuple(combo) for combo in itertools.product(*axes)] if axes else [()]


def _literal(text):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def _nicv(estimator, task):
    """Normalised intra-cluster variance on the public domain scaled to [-1, 1]^d."""
    centers = getattr(estimator, "cluster_centers_", None)
    bounds = task.public.get("bounds")
    if centers is None or not bounds:
        return {}
    low, high = (np.array([bounds[c][i] for c in task.X_test.columns]) for i in (0, 1))
    scale = lambda a: 2 * (np.asarray(a, dtype=float) - low) / (high - low) - 1  # noqa: E731
    X, C = scale(task.X_test), scale(centers)
    distances = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    return {"NICV": float(distances.min(axis=1).mean())}


def default_score(estimator, task):
    """The task's metrics: accuracy, R^2, ARI (+ NICV when there are centres)."""
    if task.task == "classification":
        return {"accuracy": accuracy_score(task.y_test, estimator.predict(task.X_test))}
    if task.task == "regression":
        return {"R2": r2_score(task.y_test, estimator.predict(task.X_test))}
    if task.task == "clustering":
        labels = estimator.predict(task.X_test)
        scores = {} if task.y_test is None else {"ARI": adjusted_rand_score(task.y_test, labels)}
        if task.reference_labels is not None:
            reference = f"ARI vs {task.reference_name}"
            scores[reference] = adjusted_rand_score(task.reference_labels, labels)
        return {**scores, **_nicv(estimator, task)}
    raise ValueError(f"task {task.task!r} has no default metric; give the entry a score")


def build_jobs(tasks, entries, epsilons, repeats, *, base_seed=0, param_grid=((),), dpl=False):
    """The list of jobs and the table ``label -> (factory, scorer)`` they refer to.

    Entries that share a baseline (or diffprivlib counterpart) share its runs on a task.
    """
    jobs, factories, planned = [], {}, set()

    def plan(kind, label, factory, scorer, t, eps_list, seed_base, params=()):
        if (t, kind, label) in planned:
            return
        planned.add((t, kind, label))
        factories[(kind, label)] = (factory, scorer, params)
        jobs.extend(
            Job(kind, label, t, eps, params, r, repeat_seed(seed_base, r))
            for eps in eps_list
            for r in range(repeats)
        )

    for t, task in enumerate(tasks):
        for entry in (e for e in entries if e.applies_to(task)):
            scorer = entry.score or default_score
            for params in param_grid:
                label = entry.name + "".join(f" {k}={v}" for k, v in params)
                plan("skdp", label, entry.private, scorer, t, epsilons, base_seed, params)
            if entry.baseline is not None:
                plan("non-private", entry.baseline_name, entry.baseline, scorer, t, [np.nan], 0)
            if dpl and entry.diffprivlib is not None:
                label = f"diffprivlib {entry.baseline_name or entry.name}"
                plan("diffprivlib", label, entry.diffprivlib, scorer, t, epsilons, base_seed)
    return jobs, factories


def _construct(kind, factory, task, job):
    if kind == "non-private":
        return factory(task, job.seed)
    estimator = factory(task, job.epsilon, job.seed)
    return estimator.set_params(**dict(job.params)) if job.params else estimator


def run_job(job, task, factory, scorer):
    """Fit and score one job; never raises: errors are recorded in the rows."""
    base = {
        "dataset": task.dataset,
        "task": task.task,
        "estimator": job.label,
        "kind": job.kind,
        "epsilon": job.epsilon,
        "repeat": job.repeat,
        "seed": job.seed,
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            estimator = _construct(job.kind, factory, task, job)
            start = time.perf_counter()
            estimator.fit(task.X_train, task.y_train)
            fit_time = time.perf_counter() - start
            scores = scorer(estimator, task)
        except Exception as error:
            message = f"{type(error).__name__}: {error}".splitlines()[0]
            return [{**base, "metric": "error", "score": np.nan, "error": message}]
    spent = privacy_spent(estimator).epsilon if job.kind not in FOREIGN_KINDS else np.nan
    messages = sorted({f"{w.category.__name__}: {w.message}"[:200] for w in caught})
    return [
        {
            **base,
            "metric": metric,
            "score": float(value),
            "fit_time_s": fit_time,
            "epsilon_spent": spent,
            "warnings": " | ".join(messages),
            "error": "",
        }
        for metric, value in scores.items()
    ]


def run(tasks, jobs, factories, *, n_jobs=1, progress=True):
    """Run the jobs (in parallel) and return one DataFrame row per job and metric."""
    if not jobs:
        return pd.DataFrame(columns=COLUMNS)

    def calls():
        for job in jobs:
            factory, scorer, _ = factories[(job.kind, job.label)]
            yield delayed(run_job)(job, tasks[job.task_index], factory, scorer)

    results = Parallel(n_jobs=n_jobs, return_as="generator")(calls())
    if progress:
        from tqdm.auto import tqdm

        results = tqdm(results, total=len(jobs), desc="fits", unit="fit", leave=False)
    rows = [row for result in results for row in result]
    frame = pd.DataFrame(rows).reindex(columns=COLUMNS)
    for column in ("warnings", "error"):
        frame[column] = frame[column].astype(object).fillna("").astype(str)
    order = {kind: i for i, kind in enumerate(KINDS)}
    return frame.sort_values(
        ["task", "kind", "estimator", "epsilon", "repeat", "metric"],
        key=lambda s: s.map(order) if s.name == "kind" else s,
        kind="stable",
        ignore_index=True,
    )


def timed_fits(make, X, y, repeats):
    """Wall-clock seconds of ``make(seed).fit(X, y)`` for seeds ``0 .. repeats - 1``."""
    times = []
    for seed in range(repeats):
        model = make(seed)
        start = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - start)
    return times
