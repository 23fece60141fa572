"""Utility against epsilon, next to the non-private model: skdp's main benchmark.

For every registered estimator that fits the dataset's task(s), every epsilon and every
repeat, fit on the training split and score on the test split; do the same for the
non-private counterpart and, when it imports, diffprivlib's. Writes ``runs.csv`` (every
run, with its fit time and the privacy spend the ledger measured), ``summary.md`` (mean
+- std) and ``utility_vs_epsilon.png`` to ``--out``, and prints the table::

    python -m benchmarks                                   # Iris, every estimator
    python -m benchmarks --dataset adult --repeats 10      # one flag away
    python -m benchmarks classification --dataset adult --param n_levels=4,7,10
"""

import argparse
import sys

from benchmarks import _data, _harness, _plot, _registry, _report

DEFAULT_EPSILONS = "0.1,0.25,0.5,1,2,5"


def _epsilons(text):
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"epsilons must be numbers, got {text!r}") from None
    if not values or any(not v > 0 for v in values):
        raise argparse.ArgumentTypeError(f"epsilons must be positive, got {text!r}")
    return sorted(set(values))


def parser(prog="python -m benchmarks"):
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default="iris", help=f"one of: {', '.join(_data.DATASETS)}")
    p.add_argument("--estimators", default="all", help="'all' or comma-separated names")
    p.add_argument("--epsilons", type=_epsilons, default=_epsilons(DEFAULT_EPSILONS))
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=V1,V2",
        help="sweep a parameter of the private estimators (repeatable)",
    )
    p.add_argument(
        "--out", default=None, help="output folder (default benchmark_results/<dataset>)"
    )
    p.add_argument("--n-jobs", type=int, default=-1, help="parallel fits (joblib)")
    p.add_argument("--seed", type=int, default=0, help="base seed of the repeats")
    p.add_argument("--data-home", default=None, help="default $SKDP_DATA_HOME or ~/skdp_data")
    p.add_argument("--no-diffprivlib", action="store_true", help="skip diffprivlib runs")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv=(), families=_registry.FAMILIES, prog="python -m benchmarks"):
    args = parser(prog).parse_args(list(argv))
    if args.repeats < 1:
        sys.exit("--repeats must be at least 1")
    try:
        entries = _registry.select_entries(args.estimators, families)
        param_grid = _harness.parse_param_grid(args.param)
        tasks = _data.load_tasks(args.dataset, args.data_home)
    except (ValueError, OSError) as error:
        sys.exit(f"error: {error}")
    tasks = [t for t in tasks if t.task in families]

    dpl_ok, dpl_info = (False, "skipped (--no-diffprivlib)")
    if not args.no_diffprivlib:
        dpl_ok, dpl_info = _registry.diffprivlib_status()
    jobs, factories = _harness.build_jobs(
        tasks,
        entries,
        args.epsilons,
        args.repeats,
        base_seed=args.seed,
        param_grid=param_grid,
        dpl=dpl_ok,
    )
    runs = _harness.run(tasks, jobs, factories, n_jobs=args.n_jobs, progress=not args.quiet)

    private = {e.name for e in entries if any(e.applies_to(t) for t in tasks)}
    notes = [t.note for t in tasks]
    notes.append(
        f"{args.repeats} repeats (seeds from base seed {args.seed}); "
        f"private estimators: {', '.join(sorted(private)) or 'none registered yet'}"
    )
    notes.append(f"diffprivlib: {dpl_info}" if not dpl_ok else f"diffprivlib {dpl_info}: compared")
    out = args.out or f"benchmark_results/{args.dataset}"
    title = f"skdp utility vs epsilon on {args.dataset}"
    summary = _report.summarize(runs)
    groups = _plot.estimator_groups(entries, tasks)
    text = _report.write_outputs(
        runs, summary, out, epsilons=args.epsilons, title=title, notes=notes, groups=groups
    )
    print(text)
    failed = runs[runs["metric"] == "error"] if not runs.empty else runs
    mismatched = _report.ledger_check(runs) if not runs.empty else runs
    for _, row in failed.drop_duplicates(["estimator", "error"]).iterrows():
        print(f"FAILED {row['kind']} {row['estimator']}: {row['error']}")
    if len(mismatched):
        print(f"LEDGER MISMATCH in {len(mismatched)} runs: spent != epsilon")
    print(f"wrote {out}/runs.csv, {out}/summary.md, {out}/utility_vs_epsilon.png")
    own_failures = failed[failed["kind"] == "skdp"] if len(failed) else failed
    return 1 if len(own_failures) or len(mismatched) else 0
