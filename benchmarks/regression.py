"""The regression estimators of the benchmark harness.

``ENTRIES`` lists every private regression estimator the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks regression [options]`` (options as in ``benchmarks.utility``).
"""

from sklearn.linear_model import LinearRegression

from benchmarks import utility
from benchmarks._encoding import encoded, encoded_bounds, has_public_bounds
from benchmarks._registry import Entry
from skdp.linear_model import FunctionalMechanismRegressor


def _functional_mechanism(task, epsilon, seed):
    model = FunctionalMechanismRegressor(
        epsilon=epsilon,
        bounds=encoded_bounds(task),
        bounds_y=task.public["target_bounds"],
        random_state=seed,
    )
    return encoded(task, model)


def _linear(task, seed):
    return encoded(task, LinearRegression())


def _diffprivlib_linear(task, epsilon, seed):
    from diffprivlib.models import LinearRegression as DiffprivlibLinear

    model = DiffprivlibLinear(
        epsilon=epsilon,
        bounds_X=encoded_bounds(task),
        bounds_y=task.public["target_bounds"],
        random_state=seed,
    )
    return encoded(task, model)


ENTRIES = [
    Entry(
        name="FunctionalMechanismRegressor",
        task="regression",
        private=_functional_mechanism,
        baseline=_linear,
        baseline_name="LinearRegression",
        diffprivlib=_diffprivlib_linear,
        supports=lambda task: has_public_bounds(task) and "target_bounds" in task.public,
    )
]


def main(argv=()):
    return utility.main(argv, families=("regression",), prog="python -m benchmarks regression")
