"""The clustering estimators of the benchmark harness.

``ENTRIES`` lists every private clustering estimator the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks clustering [options]`` (options as in ``benchmarks.utility``).
"""

from benchmarks import utility

ENTRIES = []


def main(argv=()):
    return utility.main(argv, families=("clustering",), prog="python -m benchmarks clustering")
