"""skdp against diffprivlib 0.6.6: the same tasks and seeds, one merged table.

diffprivlib does not import on scikit-learn >= 1.8, so its rows run in an environment of
their own (diffprivlib 0.6.6, scikit-learn 1.7.2 and this checkout; built from the
package registry on first use, then reused: see ``benchmarks._env``), while skdp and the
non-private baselines run here. Both sides build the same jobs (the harness's seeds
depend only on ``--seed`` and the repeat) on the same split (checked by a fingerprint of
the data); the merged runs, ``comparison.csv`` (mean, std, worst seed, 10th percentile
per estimator, dataset and epsilon, with the scikit-learn version of each row) and
``comparison.md`` go to ``--out``::

    python -m benchmarks compare                       # the README's tasks (Iris, Adult)
    python -m benchmarks compare --tasks iris --repeats 3
    python -m benchmarks compare --env-dir /tmp/dpl    # another place for the environment

Adult is read from ``$SKDP_DATA_HOME`` (else ``~/skdp_data``, downloaded when missing).
"""

import argparse
import hashlib
import json
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from benchmarks import _data, _env, _harness, _registry, _report
from benchmarks.utility import _epsilons

CHECKOUT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Preset:
    """One task of the comparison: a dataset, its estimators and epsilons."""

    dataset: str
    estimators: str = "all"
    families: tuple = _registry.FAMILIES
    epsilons: tuple = (0.1, 0.5, 1.0, 2.0, 5.0)


# the tasks the README's "Against diffprivlib and OpenDP" table cites
PRESETS = {
    "iris": Preset("iris"),
    "adult": Preset(
        "adult",
        "ObjectivePerturbationLogistic,DPDecisionTree(maxgddp)",
        ("classification",),
        (0.1, 0.5, 1.0, 2.0),
    ),
}


def _task_names(text):
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in PRESETS and n not in _data.DATASETS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown task(s) {', '.join(unknown) or repr(text)}; choose from the presets "
            f"{', '.join(PRESETS)} or a dataset: {', '.join(_data.DATASETS)}"
        )
    return names


def parser(prog="python -m benchmarks compare"):
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--tasks",
        type=_task_names,
        default=list(PRESETS),
        help="comma-separated (default iris,adult: the README's tasks): the presets iris "
        "(every estimator, epsilons 0.1-5) and adult (ObjectivePerturbationLogistic, "
        "DPDecisionTree(maxgddp), epsilons 0.1-2), or any benchmark dataset (every estimator)",
    )
    p.add_argument("--epsilons", type=_epsilons, default=None, help="override every task's")
    p.add_argument("--estimators", default=None, help="override every task's ('all' or names)")
    p.add_argument("--repeats", type=int, default=10, help="seeds per cell (default 10)")
    p.add_argument("--seed", type=int, default=0, help="base seed of the repeats")
    p.add_argument(
        "--out", default="benchmark_results/compare", help="output folder (default %(default)s)"
    )
    p.add_argument(
        "--env-dir",
        type=Path,
        default=None,
        help="the diffprivlib environment, built on first use, then reused "
        f"(default {_env.default_env_dir()})",
    )
    p.add_argument("--data-home", default=None, help="default $SKDP_DATA_HOME or ~/skdp_data")
    p.add_argument("--n-jobs", type=int, default=-1, help="parallel fits (joblib)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    # internal: run one side only and write its runs (what the diffprivlib environment runs)
    p.add_argument("--side", choices=("skdp", "diffprivlib"), help=argparse.SUPPRESS)
    p.add_argument("--runs-out", help=argparse.SUPPRESS)
    return p


def presets(args):
    """The tasks to run, with the command line's overrides applied."""
    chosen = []
    for name in args.tasks:
        preset = PRESETS.get(name, Preset(name))
        chosen.append(
            Preset(
                preset.dataset,
                args.estimators or preset.estimators,
                preset.families,
                tuple(args.epsilons or preset.epsilons),
            )
        )
    return chosen


def fingerprint(task):
    """A short hash of a task's split (and reference labels): equal on both sides."""
    digest = hashlib.sha256()
    for part in (task.X_train, task.y_train, task.X_test, task.y_test, task.reference_labels):
        text = "" if part is None else pd.DataFrame(part).to_csv()
        digest.update(text.encode())
    return digest.hexdigest()[:16]


def environment_info():
    """Versions of what produced one side's rows."""
    import sklearn

    import skdp

    ok, dpl = _registry.diffprivlib_status()
    return {
        "python": platform.python_version(),
        "sklearn": sklearn.__version__,
        "skdp": skdp.__version__,
        "diffprivlib": dpl if ok else None,
    }


def load_tasks(preset, data_home=None):
    """The tasks of a preset's dataset that its families solve."""
    tasks = _data.load_tasks(preset.dataset, data_home)
    return [t for t in tasks if t.task in preset.families]


def run_side(side, chosen, args, kinds=None):
    """The runs of one side (``"skdp"``: skdp and non-private; ``"diffprivlib"``) and the
    fingerprint of every task's data; ``kinds`` keeps only the jobs of those kinds."""
    frames, prints = [], {}
    for preset in chosen:
        entries = _registry.select_entries(preset.estimators, preset.families)
        tasks = load_tasks(preset, args.data_home)
        prints.update({f"{t.dataset}/{t.task}": fingerprint(t) for t in tasks})
        jobs, factories = _harness.build_jobs(
            tasks, entries, list(preset.epsilons), args.repeats,
            base_seed=args.seed, dpl=side == "diffprivlib",
        )  # fmt: skip
        wanted = ("diffprivlib",) if side == "diffprivlib" else ("skdp", "non-private")
        jobs = [j for j in jobs if j.kind in wanted and (kinds is None or j.kind in kinds)]
        frames.append(
            _harness.run(tasks, jobs, factories, n_jobs=args.n_jobs, progress=not args.quiet)
        )
    return pd.concat(frames, ignore_index=True), prints


def merge_runs(sides):
    """One run table from ``{name: (runs, info)}``, each row tagged with its side's
    scikit-learn version; raises ValueError when the sides used different seeds."""
    frames = [runs.assign(sklearn=info["sklearn"]) for runs, info in sides.values()]
    merged = pd.concat(frames, ignore_index=True)
    private = merged[merged["kind"] != "non-private"]
    seeds = private.groupby(["dataset", "repeat"])["seed"].nunique()
    if (seeds > 1).any():
        raise ValueError(f"the sides used different seeds for {list(seeds[seeds > 1].index)}")
    for column in ("warnings", "error"):
        merged[column] = merged[column].astype(object).fillna("").astype(str)
    return merged


def merged_summary(runs):
    """Mean, std, worst seed, 10th percentile per (dataset, task, metric, kind, estimator,
    epsilon), with the scikit-learn version the rows ran on."""
    summary = _report.summarize(runs)
    versions = runs.drop_duplicates(["kind", "estimator"]).set_index(["kind", "estimator"])
    keys = list(zip(summary["kind"], summary["estimator"], strict=True))
    return summary.assign(sklearn=[versions.loc[key, "sklearn"] for key in keys])


def merged_markdown(summary, chosen, notes):
    """The comparison as Markdown: notes, then one table per dataset, task and metric."""
    labelled = summary.assign(
        estimator=summary["estimator"] + " [sklearn " + summary["sklearn"].astype(str) + "]"
    )
    text = "# skdp against diffprivlib: same tasks, same seeds\n\n"
    text += "".join(f"- {note}\n" for note in notes) + "\n"
    for preset in chosen:
        part = labelled[labelled["dataset"] == preset.dataset]
        text += _report.markdown_tables(part, list(preset.epsilons)) + "\n"
    return text


def _worker(args, chosen):
    runs, prints = run_side(args.side, chosen, args)
    runs.to_csv(args.runs_out, index=False)
    info = {**environment_info(), "fingerprints": prints}
    Path(args.runs_out).with_suffix(".json").write_text(json.dumps(info), encoding="utf-8")
    return 0


def _child_argv(args):
    argv = ["--tasks", ",".join(args.tasks), "--repeats", str(args.repeats)]
    argv += ["--seed", str(args.seed), "--n-jobs", str(args.n_jobs), "--quiet"]
    if args.epsilons:
        argv += ["--epsilons", ",".join(f"{e:g}" for e in args.epsilons)]
    if args.estimators:
        argv += ["--estimators", args.estimators]
    if args.data_home:
        argv += ["--data-home", str(Path(args.data_home).resolve())]
    return argv


def _diffprivlib_side(python, args, scratch):
    runs_out = Path(scratch) / "diffprivlib_runs.csv"
    command = [str(python), "-m", "benchmarks", "compare", *_child_argv(args)]
    command += ["--side", "diffprivlib", "--runs-out", str(runs_out)]
    done = subprocess.run(command, cwd=CHECKOUT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the diffprivlib side failed (exit {done.returncode})")
    info = json.loads(runs_out.with_suffix(".json").read_text(encoding="utf-8"))
    return pd.read_csv(runs_out), info


def main(argv=()):
    args = parser().parse_args(list(argv))
    if args.repeats < 1:
        sys.exit("--repeats must be at least 1")
    chosen = presets(args)
    try:
        for preset in chosen:  # fail on a bad name or missing data before any build
            _registry.select_entries(preset.estimators, preset.families)
        if args.side:
            return _worker(args, chosen)
        prints = {
            f"{t.dataset}/{t.task}": fingerprint(t)
            for p in chosen
            for t in load_tasks(p, args.data_home)
        }
        env_dir = args.env_dir or _env.default_env_dir()
        clock = {}
        start = time.perf_counter()
        python = _env.ensure_env(env_dir, CHECKOUT)
        clock["environment (build or reuse)"] = time.perf_counter() - start
        with tempfile.TemporaryDirectory(prefix="skdp-compare-") as scratch:
            start = time.perf_counter()
            theirs, their_info = _diffprivlib_side(python, args, scratch)
            clock["diffprivlib side"] = time.perf_counter() - start
        start = time.perf_counter()
        ours, _ = run_side("skdp", chosen, args)
        clock["skdp side"] = time.perf_counter() - start
    except (ValueError, OSError, RuntimeError) as error:  # EnvError is a RuntimeError
        sys.exit(f"error: {error}")
    differ = {k for k in prints if their_info["fingerprints"].get(k) != prints[k]}
    if differ:
        sys.exit(f"error: the two environments built different data for {sorted(differ)}")
    our_info = environment_info()
    runs = merge_runs({"skdp": (ours, our_info), "diffprivlib": (theirs, their_info)})
    summary = merged_summary(runs)
    notes = [
        f"skdp {our_info['skdp']} and the non-private baselines: scikit-learn "
        f"{our_info['sklearn']}, Python {our_info['python']} (the calling environment)",
        f"diffprivlib {their_info['diffprivlib']}: scikit-learn {their_info['sklearn']}, "
        f"Python {their_info['python']} ({env_dir})",
        f"{args.repeats} repeats, seeds from base seed {args.seed}, the same on both sides; "
        f"the same split on both sides (fingerprints {', '.join(sorted(prints))} match)",
        "each cell: mean ± std (worst seed, 10th percentile from the bad side)",
        "took " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in clock.items()),
        "command: python -m benchmarks compare " + " ".join(argv),
    ]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    summary.to_csv(out / "comparison.csv", index=False)
    text = merged_markdown(summary, chosen, notes)
    (out / "comparison.md").write_text(text, encoding="utf-8")
    print(text)
    failed = runs[(runs["metric"] == "error") & (runs["kind"] == "skdp")]
    for _, row in runs[runs["metric"] == "error"].drop_duplicates(["estimator"]).iterrows():
        print(f"FAILED {row['kind']} {row['estimator']}: {row['error']}")
    mismatched = _report.ledger_check(runs)
    if len(mismatched):
        print(f"LEDGER MISMATCH in {len(mismatched)} runs: spent != epsilon")
    print(f"wrote {out}/comparison.md, {out}/comparison.csv, {out}/runs.csv")
    return 1 if len(failed) or len(mismatched) else 0
