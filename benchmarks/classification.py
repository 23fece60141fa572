"""The classification estimators of the benchmark harness.

``ENTRIES`` lists every private classification estimator the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks classification [options]`` (options as in ``benchmarks.utility``).
"""

from benchmarks import utility

ENTRIES = []


def main(argv=()):
    prog = "python -m benchmarks classification"
    return utility.main(argv, families=("classification",), prog=prog)
