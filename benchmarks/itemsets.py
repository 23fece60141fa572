"""DPFrequentItemsets benchmarks: the seed paper's tables, large item sets, scaling.

    python -m benchmarks itemsets [--table 5|6|7|8|large|scaling] [--repeats 10]

- Tables 5-8 (seed 003, TDPS, on MSNBC with |I| = 10): the public item set is the first
  ten page categories in the file's order (the seed draws ten at random). TP is the
  number of released itemsets among the exact top k, accuracy TP / k. Table 5: epsilon
  1.1 and k = 20 ... 200; Table 6: k = 60 and epsilon 0.01 ... 1.5, for
  ``tdps-signal`` (seed's S), ``tdps-measurement`` (seed's R) and ``tdps-bins``;
  Tables 7 and 8: ``tdps-omp`` (seed's TDPS_EP) at epsilon 1 and at k = 60.
- ``large``: MSNBC with all 17 categories (tdps-bins, tf, privbasis), FIMI mushroom and
  retail (tf, privbasis): top-k precision and the median relative error of the released
  supports of the true positives, at epsilon 0.1, 0.5, 1 and k = 50, 100. TF on retail
  mines only itemsets of support >= 500 (a public choice of this benchmark; with 16,470
  items, support >= 1 means more than two million itemsets).
- ``scaling``: fit time and peak traced memory of tdps-bins against |I| (MSNBC, 10 to 17
  items; mushroom, 18 to 20 items) and against the number of transactions (MSNBC
  replicated 1 to 8 times).

Each utility cell is the mean ± std (worst seed, 10th percentile from the bad side) over
``--repeats`` fits with seeds 0, 1, ...; time and memory cells are mean ± std.
"""

import argparse
import time
import tracemalloc

import numpy as np
import scipy.sparse as sp

from benchmarks._report import spread_text
from skdp.datasets import fetch_fimi, fetch_msnbc
from skdp.frequent_patterns import DPFrequentItemsets
from skdp.frequent_patterns._bitmask import mask_counts, pack_transactions, superset_sums
from skdp.frequent_patterns._mining import supports, top_itemsets

SEED_TABLES = {
    "5": (("tdps-signal", "tdps-measurement", "tdps-bins"), [1.1], range(20, 201, 20)),
    "6": (("tdps-signal", "tdps-measurement", "tdps-bins"), [0.01, 0.05, 0.1, 0.5, 1.1, 1.5],
          [60]),
    "7": (("tdps-omp",), [1.0], range(20, 201, 20)),
    "8": (("tdps-omp",), [0.1, 0.5, 1.0, 5.0, 9.0, 15.0], [60]),
}  # fmt: skip
SEED_ITEMS = 10
RETAIL_TF_MIN_SUPPORT = 500


def exact_top_k_masks(X, n_items, k):
    """The exact top-k itemsets (as masks) over the first ``n_items`` columns."""
    supports = superset_sums(mask_counts(pack_transactions(X, range(n_items)), n_items))
    order = np.argsort(-supports[1:], kind="stable") + 1
    return {frozenset(j for j in range(n_items) if (m >> j) & 1) for m in order[:k]}


def _mean_std(values, lower_is_better=False):
    return spread_text(values, lower_is_better=lower_is_better)


def seed_table(table, X, repeats):
    methods, epsilons, ks = SEED_TABLES[table]
    items = list(range(SEED_ITEMS))
    print(f"\n**Table {table}** (MSNBC, |I| = {SEED_ITEMS}, {repeats} repeats)\n")
    print("| method | epsilon | k | TP | accuracy | fit s |\n|---|---|---|---|---|---|")
    for method in methods:
        for epsilon in epsilons:
            for k in ks:
                truth = exact_top_k_masks(X, SEED_ITEMS, k)
                hits, times = [], []
                for seed in range(repeats):
                    model = DPFrequentItemsets(
                        epsilon=epsilon, top_k=k, method=method, items=items, random_state=seed
                    )
                    start = time.perf_counter()
                    model.fit(X)
                    times.append(time.perf_counter() - start)
                    hits.append(len(truth & set(model.frequent_itemsets_["itemsets"])))
                accuracy = _mean_std(np.divide(hits, k))
                print(f"| {method} | {epsilon:g} | {k} | {_mean_std(hits)} | {accuracy} "
                      f"| {np.mean(times):.2f} |", flush=True)  # fmt: skip


def large_universe(repeats):
    datasets = {
        "msnbc": (fetch_msnbc().data, ("tdps-bins", "tf", "privbasis"), 1),
        "mushroom": (fetch_fimi("mushroom").data, ("tf", "privbasis"), 1),
        "retail": (fetch_fimi("retail").data, ("tf", "privbasis"), RETAIL_TF_MIN_SUPPORT),
    }
    print("\n**Large item sets** (top-k precision; median relative support error)\n")
    print("| data | method | epsilon | k | precision | median rel. error | fit s |")
    print("|---|---|---|---|---|---|---|")
    for name, (X, methods, min_support) in datasets.items():
        X = sp.csr_matrix(X, dtype=bool)
        for k in (50, 100):
            truth = {frozenset(found) for found in top_itemsets(X, k)[0]}
            for method in methods:
                for epsilon in (0.1, 0.5, 1.0):
                    precision, errors, times = [], [], []
                    for seed in range(repeats):
                        model = DPFrequentItemsets(
                            epsilon=epsilon, top_k=k, method=method, min_support=min_support,
                            random_state=seed,
                        )  # fmt: skip
                        start = time.perf_counter()
                        model.fit(X)
                        times.append(time.perf_counter() - start)
                        released = model.frequent_itemsets_
                        hit = released["itemsets"].isin(truth).to_numpy()
                        precision.append(hit.sum() / k)
                        exact = supports(X, [sorted(s) for s in released["itemsets"][hit]])
                        noisy = released["count"].to_numpy()[hit]
                        errors.append(np.median(np.abs(noisy - exact) / exact) if hit.any()
                                      else np.nan)  # fmt: skip
                    cells = f"{_mean_std(precision)} | {_mean_std(errors, lower_is_better=True)}"
                    print(f"| {name} | {method} | {epsilon:g} | {k} | {cells} "
                          f"| {np.mean(times):.2f} |", flush=True)  # fmt: skip


def scaling(repeats):
    msnbc = sp.csr_matrix(fetch_msnbc().data, dtype=bool)
    mushroom = sp.csr_matrix(fetch_fimi("mushroom").data, dtype=bool)
    print("\n**Scaling of tdps-bins** (fit time, peak traced memory)\n")
    print("| data | transactions | items | fit s | peak MiB |\n|---|---|---|---|---|")
    cases = [("msnbc", msnbc, q) for q in range(10, 18)]
    cases += [("mushroom", mushroom, q) for q in (18, 19, 20)]
    cases += [(f"msnbc x{r}", sp.vstack([msnbc] * r).tocsr(), 17) for r in (2, 4, 8)]
    for name, X, q in cases:
        times, peaks = [], []
        for seed in range(repeats):
            model = DPFrequentItemsets(items=list(range(q)), random_state=seed)
            tracemalloc.start()
            start = time.perf_counter()
            model.fit(X)
            times.append(time.perf_counter() - start)
            peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
            tracemalloc.stop()
        print(f"| {name} | {X.shape[0]:,} | {q} | {np.mean(times):.3f} ± {np.std(times):.3f} "
              f"| {np.mean(peaks):.0f} |", flush=True)  # fmt: skip


ENTRIES = []  # the harness's generic utility loop does not score itemsets: see main


def main(argv=()):
    parser = argparse.ArgumentParser(prog="python -m benchmarks itemsets")
    parser.add_argument("--table", default="5", choices=[*SEED_TABLES, "large", "scaling"])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args(list(argv))
    if args.table in SEED_TABLES:
        seed_table(args.table, sp.csr_matrix(fetch_msnbc().data, dtype=bool), args.repeats)
    elif args.table == "large":
        large_universe(args.repeats)
    else:
        scaling(args.repeats)
    return 0
