"""The classification estimators of the benchmark harness.

``ENTRIES`` lists every private classifier the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks classification [options]`` (options as in ``benchmarks.utility``).
"""

from sklearn.compose import make_column_transformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder
from sklearn.tree import DecisionTreeClassifier

from benchmarks import utility
from benchmarks._registry import Entry
from skdp.tree import DPDecisionTree

# the number of specializations the seed paper reports best per dataset (override with
# --param n_levels=...)
PAPER_LEVELS = {"iris": 5, "adult": 13, "census_income": 10}


def _tree(algorithm):
    def make(task, epsilon, seed):
        public = task.public
        return DPDecisionTree(
            algorithm,
            epsilon=epsilon,
            n_levels=PAPER_LEVELS.get(task.dataset, 10),
            bounds=public.get("bounds") or None,
            categories=public.get("categories") or None,
            taxonomies=public.get("taxonomies") or None,
            classes=public["classes"],
            random_state=seed,
        )

    return make


def _c45_like(task, seed):
    # the papers' baseline is C4.5 on the raw data: an entropy tree, pruned C4.5-style by
    # leaves of at least 0.2% of the training rows (60 on Adult, 1 on Iris)
    encode = make_column_transformer(
        (OrdinalEncoder(), task.public.get("categorical_features", [])),
        remainder="passthrough",
    )
    tree = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=0.002, random_state=seed)
    return make_pipeline(encode, tree)


ENTRIES = [
    Entry(
        name=f"DPDecisionTree({algorithm})",
        task="classification",
        private=_tree(algorithm),
        baseline=_c45_like,
        baseline_name="DecisionTreeClassifier",
        supports=lambda task: task.X_train.shape[1] > 0,
    )
    for algorithm in ("maxgddp", "diffgen")
]


def main(argv=()):
    prog = "python -m benchmarks classification"
    return utility.main(argv, families=("classification",), prog=prog)
