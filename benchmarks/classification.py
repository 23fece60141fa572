"""The classification estimators of the benchmark harness.

``ENTRIES`` lists every private classifier the harness runs (see
:class:`benchmarks._registry.Entry`). Run only this family with
``python -m benchmarks classification [options]`` (options as in ``benchmarks.utility``).
"""

from sklearn.compose import make_column_transformer
from sklearn.ensemble import RandomForestClassifier as SklearnRandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

from benchmarks import utility
from benchmarks._encoding import encoded, encoded_bounds, encoded_norm_bound, has_public_bounds
from benchmarks._registry import Entry
from skdp.ensemble import RandomForestClassifier
from skdp.linear_model import FunctionalMechanismClassifier, ObjectivePerturbationLogistic
from skdp.naive_bayes import GaussianNB
from skdp.svm import PrivateSVM
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
        (
            OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
            task.public.get("categorical_features", []),
        ),
        remainder="passthrough",
    )
    tree = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=0.002, random_state=seed)
    return make_pipeline(encode, tree)


def _diffprivlib_tree(task, epsilon, seed):
    from diffprivlib.models import DecisionTreeClassifier as DiffprivlibTree

    lower, upper = encoded_bounds(task)
    model = DiffprivlibTree(
        epsilon=epsilon,
        bounds=(lower, upper),
        classes=task.public["classes"],
        random_state=seed,
    )
    return encoded(task, model)


ENTRIES = [
    Entry(
        name=f"DPDecisionTree({algorithm})",
        task="classification",
        private=_tree(algorithm),
        baseline=_c45_like,
        baseline_name="DecisionTreeClassifier",
        diffprivlib=_diffprivlib_tree if algorithm == "maxgddp" else None,
        supports=lambda task: task.X_train.shape[1] > 0,
    )
    for algorithm in ("maxgddp", "diffgen")
]


def _objective_perturbation(task, epsilon, seed):
    # numeric features: their public domains (centred rows); one-hot columns would be
    # centred to +-1 and fill the sqrt(d) ball, so mixed data declares the norm bound
    if task.public.get("categorical_features"):
        declared = {"data_norm": encoded_norm_bound(task)}
    else:
        declared = {"bounds": encoded_bounds(task)}
    model = ObjectivePerturbationLogistic(
        epsilon=epsilon, classes=task.public["classes"], random_state=seed, **declared
    )
    return encoded(task, model)


def _functional_mechanism(task, epsilon, seed):
    model = FunctionalMechanismClassifier(
        epsilon=epsilon,
        bounds=encoded_bounds(task),
        classes=task.public["classes"],
        random_state=seed,
    )
    return encoded(task, model)


def _logistic(task, seed):
    return encoded(task, LogisticRegression(max_iter=2000, random_state=seed))


def _diffprivlib_logistic(task, epsilon, seed):
    from diffprivlib.models import LogisticRegression as DiffprivlibLogistic

    model = DiffprivlibLogistic(
        epsilon=epsilon, data_norm=encoded_norm_bound(task), random_state=seed
    )
    return encoded(task, model)


ENTRIES += [
    Entry(
        name=name,
        task="classification",
        private=private,
        baseline=_logistic,
        baseline_name="LogisticRegression",
        diffprivlib=_diffprivlib_logistic,
        supports=has_public_bounds,
    )
    for name, private in (
        ("ObjectivePerturbationLogistic", _objective_perturbation),
        ("FunctionalMechanismClassifier", _functional_mechanism),
    )
]


def _naive_bayes(task, epsilon, seed):
    model = GaussianNB(
        epsilon=epsilon, bounds=encoded_bounds(task), classes=task.public["classes"],
        random_state=seed,
    )  # fmt: skip
    return encoded(task, model)


def _sklearn_naive_bayes(task, seed):
    return encoded(task, SklearnGaussianNB())


def _diffprivlib_naive_bayes(task, epsilon, seed):
    from diffprivlib.models import GaussianNB as DiffprivlibGaussianNB

    # diffprivlib 0.6.6's GaussianNB takes no class list: it reads the labels from y
    model = DiffprivlibGaussianNB(epsilon=epsilon, bounds=encoded_bounds(task), random_state=seed)
    return encoded(task, model)


ENTRIES.append(
    Entry(
        name="GaussianNB",
        task="classification",
        private=_naive_bayes,
        baseline=_sklearn_naive_bayes,
        baseline_name="GaussianNB",
        diffprivlib=_diffprivlib_naive_bayes,
        supports=has_public_bounds,
    )
)


def rbf_gamma(task):
    """A public RBF width: scikit-learn's ``gamma="scale"`` computed on the public box.

    ``1 / (p * Var)`` with the variance of a uniform on [-1/2, 1/2] (1/12) in place of
    the data's, which ``"scale"`` would read.
    """
    return 12.0 / len(task.X_train.columns)


def _svm(kernel, mechanism):
    def make(task, epsilon, seed):
        # linear: as _objective_perturbation (the numeric domains centre the rows; mixed
        # data declares the norm bound); rbf: features of norm 1, neither is used
        if kernel == "linear" and not task.public.get("categorical_features"):
            declared = {"bounds": encoded_bounds(task)}
        else:
            declared = {"data_norm": encoded_norm_bound(task)}
        model = PrivateSVM(
            epsilon=epsilon,
            kernel=kernel,
            mechanism=mechanism,
            gamma=rbf_gamma(task),
            classes=task.public["classes"],
            random_state=seed,
            **declared,
        )
        return encoded(task, model)

    return make


def _linear_svc(task, seed):
    return encoded(task, LinearSVC(random_state=seed))


def _rbf_svc(task, seed):
    return encoded(task, SVC(gamma=rbf_gamma(task)))


def _small_numeric(task):
    # the random-feature SVM solves an n x n_components problem: numeric tasks only
    return has_public_bounds(task) and not task.public.get("categorical_features")


ENTRIES += [
    Entry(
        name=f"PrivateSVM({kernel}/{mechanism})",
        task="classification",
        private=_svm(kernel, mechanism),
        baseline=_linear_svc if kernel == "linear" else _rbf_svc,
        baseline_name="LinearSVC" if kernel == "linear" else "SVC(rbf)",
        supports=has_public_bounds if kernel == "linear" else _small_numeric,
    )
    for kernel in ("linear", "rbf")
    for mechanism in ("output", "objective")
]


def main(argv=()):
    prog = "python -m benchmarks classification"
    return utility.main(argv, families=("classification",), prog=prog)


def _forest(task, epsilon, seed):
    public = task.public
    return RandomForestClassifier(
        epsilon=epsilon,
        bounds=public.get("bounds") or None,
        categories=public.get("categories") or None,
        taxonomies=public.get("taxonomies") or None,
        classes=public["classes"],
        random_state=seed,
    )


def _sklearn_forest(task, seed):
    # the C4.5 baseline's ordinal encoding, a forest in the tree's place
    forest = SklearnRandomForestClassifier(random_state=seed)
    return _c45_like(task, seed).set_params(decisiontreeclassifier=forest)


def _diffprivlib_forest(task, epsilon, seed):
    from diffprivlib.models import RandomForestClassifier as DiffprivlibForest

    model = DiffprivlibForest(
        epsilon=epsilon, bounds=encoded_bounds(task), classes=task.public["classes"],
        random_state=seed,
    )  # fmt: skip
    return encoded(task, model)


ENTRIES.append(
    Entry(
        name="RandomForestClassifier",
        task="classification",
        private=_forest,
        baseline=_sklearn_forest,
        baseline_name="RandomForestClassifier",
        diffprivlib=_diffprivlib_forest,
        supports=has_public_bounds,
    )
)
