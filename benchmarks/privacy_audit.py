"""Audit every mechanism and time it: the foundation's benchmark.

For each mechanism of :mod:`skdp.mechanisms`, on its tightest neighbouring pair, the
empirical auditor's lower bound on epsilon (claimed: 1.0), over several seeds
(mean +- std, and the maximum, which must stay <= the claim), and the wall time of
the samplers against numpy's textbook (floating-point, attackable) Laplace.

    python -m benchmarks privacy_audit [--samples N] [--seeds K]
"""

import argparse
import time

import numpy as np

from skdp.mechanisms import geometric, laplace, permute_and_flip, report_noisy_max
from skdp.utils._audit import mechanism_audit_cases


def audit_table(n_samples, seeds):
    rows = []
    for case in mechanism_audit_cases(epsilon=1.0):
        bounds = [
            case.run(
                n_search=n_samples // 5, n_samples=n_samples, random_state=s
            ).epsilon_lower_bound
            for s in seeds
        ]
        rows.append((case.name, case.epsilon, np.mean(bounds), np.std(bounds), max(bounds)))
    return rows


def _timed(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return np.mean(times), np.std(times)


def speed_table(repeats):
    rng = np.random.default_rng(0)
    values, counts = np.zeros(10**6), np.zeros(10**6, dtype=np.int64)
    scores = rng.uniform(0, 100, size=1000)
    cases = {
        "numpy textbook Laplace, 1e6 values (not private)": lambda: (
            values + rng.laplace(0, 1, values.size)
        ),
        "skdp laplace, 1e6 values": lambda: laplace(
            values, sensitivity=1, epsilon=1, random_state=rng
        ),
        "skdp geometric, 1e6 counts": lambda: geometric(counts, epsilon=1, random_state=rng),
        "skdp permute_and_flip, 1000 candidates": lambda: permute_and_flip(
            scores, sensitivity=1, epsilon=1, random_state=rng
        ),
        "skdp report_noisy_max laplace, 1000 candidates": lambda: report_noisy_max(
            scores, sensitivity=1, epsilon=1, noise="laplace", random_state=rng
        ),
        "skdp laplace, one scalar": lambda: laplace(
            1.0, sensitivity=1, epsilon=1, random_state=rng
        ),
    }
    return [(name, *_timed(f, repeats)) for name, f in cases.items()]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks privacy_audit")
    parser.add_argument("--samples", type=int, default=20000, help="runs per input")
    parser.add_argument("--seeds", type=int, default=3, help="audit repetitions")
    parser.add_argument("--repeats", type=int, default=5, help="timing repetitions")
    args = parser.parse_args(argv)
    seeds = list(range(args.seeds))
    print(
        f"## Privacy audit (claimed epsilon = 1; {args.samples} runs per input; "
        f"seeds {seeds}; Clopper-Pearson at confidence 0.999)\n"
    )
    print("| mechanism | claimed | lower bound mean +- std | max | verdict |")
    print("|---|---|---|---|---|")
    failed = False
    for name, claimed, mean, std, worst in audit_table(args.samples, seeds):
        verdict = "ok" if worst <= claimed else "VIOLATION"
        failed |= worst > claimed
        print(f"| {name} | {claimed:g} | {mean:.3f} +- {std:.3f} | {worst:.3f} | {verdict} |")
    print(f"\n## Sampler speed (mean +- std of {args.repeats} runs)\n")
    print("| task | seconds |")
    print("|---|---|")
    for name, mean, std in speed_table(args.repeats):
        print(f"| {name} | {mean:.4f} +- {std:.4f} |")
    return 1 if failed else 0
