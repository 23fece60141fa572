"""Run a benchmark: ``python -m benchmarks [name] [options]``.

Without a name, the main benchmark (``utility``): utility against epsilon of every
estimator on Iris, next to the non-private model. ``python -m benchmarks NAME --help``
lists a benchmark's options.
"""

import importlib
import sys

BENCHMARKS = [
    "utility",
    "classification",
    "regression",
    "clustering",
    "itemsets",
    "privacy_audit",
    "tree_scaling",
    "linear_scaling",
    "cluster_scaling",
    "optics_counts",
    "optics_scaling",
    "dask_scaling",
    "defaults",
    "small_data",
    "compare",
    "tools_compare",
    "pca",
    "speed",
    "model_selection",
    "parity",
    "parity_robust",
    "scaler_first_try",
]


def main(argv):
    name = argv[0] if argv and not argv[0].startswith("-") else BENCHMARKS[0]
    if name not in BENCHMARKS:
        sys.exit(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")
    options = argv[1:] if argv and argv[0] == name else argv
    return importlib.import_module(f"benchmarks.{name}").main(options)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
