"""The itemsets estimators of the benchmark harness.

``ENTRIES`` lists every private itemsets estimator the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks itemsets [options]`` (options as in ``benchmarks.utility``).
"""

from benchmarks import utility

ENTRIES = []


def main(argv=()):
    return utility.main(argv, families=("itemsets",), prog="python -m benchmarks itemsets")
