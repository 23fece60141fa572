"""The regression estimators of the benchmark harness.

``ENTRIES`` lists every private regression estimator the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks regression [options]`` (options as in ``benchmarks.utility``).
"""

from benchmarks import utility

ENTRIES = []


def main(argv=()):
    return utility.main(argv, families=("regression",), prog="python -m benchmarks regression")
