"""Bad inputs over every public estimator: a clean error naming the problem, or a finite model.

Issue 22, group 4. Each case fits a fast configuration (tiny data, public bounds, a
large epsilon) and accepts exactly two outcomes: a ``ValueError`` / ``TypeError`` (or an
skdp exception) whose message holds a keyword of the problem, or a fitted model whose
outputs are finite and whose ledger spent exactly ``epsilon``. The regressions of the
issue's probes (numpy scalar epsilons, text and category columns, tiny epsilons, the xi
extraction, the resource guards) come first.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import is_classifier, is_regressor

from skdp.cluster import DPOPTICS, DPKMeans
from skdp.decomposition import PCA
from skdp.ensemble import RandomForestClassifier
from skdp.exceptions import BudgetExceededError
from skdp.frequent_patterns import DPFrequentItemsets
from skdp.linear_model import (
    FunctionalMechanismClassifier,
    FunctionalMechanismRegressor,
    ObjectivePerturbationLogistic,
)
from skdp.model_selection import PrivateGridSearchCV, PrivateRandomizedSearchCV
from skdp.naive_bayes import CategoricalNB, GaussianNB
from skdp.preprocessing import MinMaxScaler, RobustScaler, StandardScaler
from skdp.svm import PrivateSVM
from skdp.tree import DPDecisionTree
from skdp.utils._resources import ResourceLimitError
from skdp.utils.discovery import all_estimators
from skdp.utils.validation import MIN_EPSILON

# fast constructors: public bounds / norms / classes, so nothing is estimated privately
FAST = {
    DPDecisionTree: {"bounds": (-4.0, 4.0), "classes": [0, 1], "n_levels": 2},
    FunctionalMechanismRegressor: {"bounds": (-4.0, 4.0), "bounds_y": (-4.0, 4.0)},
    FunctionalMechanismClassifier: {"bounds": (-4.0, 4.0), "classes": [0, 1]},
    ObjectivePerturbationLogistic: {"data_norm": 7.0, "classes": [0, 1]},
    PrivateSVM: {"data_norm": 7.0, "classes": [0, 1]},
    DPKMeans: {"n_clusters": 2, "bounds": (-4.0, 4.0)},
    DPOPTICS: {"bounds": (-4.0, 4.0), "min_samples": 3},
    DPFrequentItemsets: {"top_k": 3},
    GaussianNB: {"bounds": (-4.0, 4.0), "classes": [0, 1]},
    CategoricalNB: {"bounds": (-4.0, 4.0), "classes": [0, 1]},
    # declared bounds are MinMaxScaler's answer at no spend: left undeclared to spend epsilon
    MinMaxScaler: {},
    StandardScaler: {"bounds": (-4.0, 4.0)},
    RobustScaler: {"bounds": (-4.0, 4.0)},
    PCA: {"bounds": (-4.0, 4.0), "data_norm": 7.0},
    PrivateGridSearchCV: {"classes": [0, 1]},  # estimator None: GaussianNB()
    PrivateRandomizedSearchCV: {"classes": [0, 1]},
    RandomForestClassifier: {"bounds": (-4.0, 4.0), "classes": [0, 1], "n_estimators": 2},
}
NUMERIC = [cls for cls in FAST if cls is not DPFrequentItemsets]
# take text and category columns as they are (the searches: around the tree, their default)
CATEGORICAL_INPUT = (
    DPDecisionTree,
    RandomForestClassifier,
    PrivateGridSearchCV,
    PrivateRandomizedSearchCV,
)
RNG = np.random.default_rng(0)
X_NUM = RNG.normal(size=(40, 3))
Y_CLS = (X_NUM[:, 0] > 0).astype(int)
Y_REG = X_NUM[:, 0] + 0.1 * X_NUM[:, 1]
X_BIN = (X_NUM > 0).astype(int)
# the only clean exceptions: a bad value or type (sklearn's InvalidParameterError and
# skdp's ResourceLimitError are ValueErrors), or skdp's own
CLEAN = (ValueError, TypeError, BudgetExceededError)


def test_fast_table_lists_every_public_estimator():
    assert {cls for _, cls in all_estimators()} == set(FAST)


def _make(cls, **params):
    return cls(**{**FAST[cls], "epsilon": 1e3, "random_state": 0, **params})


def _target(estimator, n):
    if is_classifier(estimator):
        return Y_CLS[:n] if n <= len(Y_CLS) else np.resize(Y_CLS, n)
    if is_regressor(estimator):
        return Y_REG[:n] if n <= len(Y_REG) else np.resize(Y_REG, n)
    return None


def _outputs(model, X):
    if isinstance(model, DPFrequentItemsets):
        return model.frequent_itemsets_["support"].to_numpy(dtype=float)
    if hasattr(model, "predict"):
        return np.asarray(model.predict(X), dtype=float)
    if hasattr(model, "labels_"):
        return np.asarray(model.labels_, dtype=float)
    return np.asarray(model.transform(X), dtype=float)


def fit_outcome(estimator, X, keywords, *, y="auto", n_rows=None):
    """Fit; return "error" (a clean one, naming a keyword) or "fitted" (finite, exact spend)."""
    if isinstance(y, str):
        y = _target(estimator, n_rows if n_rows is not None else _n_rows(X))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = estimator.fit(X) if y is None else estimator.fit(X, y)
            out = _outputs(model, X)
    except CLEAN as exc:
        message = str(exc).lower()
        assert any(k.lower() in message for k in keywords), (type(exc).__name__, message)
        return "error"
    assert np.all(np.isfinite(out)), out
    for name in ("coef_", "intercept_", "cluster_centers_"):
        if hasattr(model, name):
            assert np.all(np.isfinite(getattr(model, name))), name
    assert math.isclose(model.privacy_spent_.epsilon, float(estimator.epsilon), rel_tol=1e-12)
    return "fitted"


def _n_rows(X):
    shape = getattr(X, "shape", None)
    return shape[0] if shape else len(X)


# ---- the probes (each failed on the code before the fix) -------------------


@pytest.mark.parametrize(
    "estimator",
    [
        DPFrequentItemsets(method="tf", top_k=3, epsilon=np.float32(0.5), random_state=0),
        ObjectivePerturbationLogistic(epsilon=np.float32(0.5), classes=[0, 1], random_state=0),
        PrivateSVM(epsilon=np.float32(0.5), classes=[0, 1], random_state=0),
    ],
    ids=["itemsets-tf", "objective", "svm"],
)
def test_numpy_float32_epsilon_is_spent_exactly(estimator):
    # before: TypeError from fractions (tf); a spend of 0.4999999944 (float32 arithmetic)
    X = X_BIN if isinstance(estimator, DPFrequentItemsets) else X_NUM
    assert fit_outcome(estimator, X, []) == "fitted"  # the spend is 0.5 up to 1e-12


@pytest.mark.parametrize(
    "cls",
    [c for c in FAST if c not in CATEGORICAL_INPUT],
)
@pytest.mark.parametrize("kind", ["object", "category"])
def test_text_or_category_column_names_the_column(cls, kind):
    # before: "could not convert string to float: 'x'" from inside pandas
    frame = pd.DataFrame(X_BIN if cls is DPFrequentItemsets else X_NUM, columns=["a", "b", "c"])
    frame["city"] = pd.Series(np.resize(["x", "y"], len(frame)), dtype=kind)
    with pytest.raises(ValueError, match=r"'city' \((str|object|category)\).*OneHotEncoder"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _make(cls).fit(frame, _target(_make(cls), len(frame)))


def test_tiny_epsilon_names_epsilon_and_the_smallest_value():
    # before: a model of inf coefficients with a RuntimeWarning (declared data_norm)
    model = PrivateSVM(epsilon=1e-300, data_norm=7.0, classes=[0, 1], random_state=0)
    with pytest.raises(ValueError, match=r"'epsilon'.*\[1e-12, "):
        model.fit(X_NUM, Y_CLS)
    smallest = PrivateSVM(epsilon=MIN_EPSILON, data_norm=7.0, classes=[0, 1], random_state=0)
    assert fit_outcome(smallest, X_NUM, []) == "fitted"


@pytest.mark.parametrize("shape", [(4,), (2, 2)])
def test_xi_without_any_cluster_labels_every_cell_noise(shape):
    # sklearn's xi extraction returns an empty 1-d hierarchy here (before: IndexError)
    model = DPOPTICS(cluster_method="xi", min_samples=2)
    model.bounds_ = (np.zeros(len(shape)), np.ones(len(shape)))
    model.grid_shape_ = shape
    model.cluster_from_histogram(np.array([-1, 1, 0, 1]))
    assert model.cluster_hierarchy_.shape == (0, 2)
    assert np.all(model._grid_labels == -1)


@pytest.mark.parametrize(
    "estimator, keyword",
    [
        (DPKMeans(n_clusters=20000, bounds=(-4.0, 4.0)), "n_clusters=20000"),
        (DPKMeans(max_iter=10**6, method="lloyd", bounds=(-4.0, 4.0)), "max_iter=1000000"),
        (DPOPTICS(grid_size=100000, bounds=(-4.0, 4.0)), "grid_size=100000"),
        (PrivateSVM(kernel="rbf", n_components=10**7, classes=[0, 1]), "n_components=10000000"),
    ],
    ids=["kmeans-clusters", "kmeans-iterations", "optics-grid", "svm-features"],
)
def test_resource_guard_refuses_before_allocating(estimator, keyword):
    # before: minutes without a word (DPKMeans) or a MemoryError deep in numpy
    y = Y_CLS if is_classifier(estimator) else None
    with pytest.raises(ResourceLimitError, match=keyword) as caught:
        estimator.fit(X_NUM, y) if y is not None else estimator.fit(X_NUM)
    assert "skdp.utils._resources" in str(caught.value) or "MAX_CLUSTERS" in str(caught.value)
    assert isinstance(caught.value, MemoryError)


def test_more_clusters_than_noisy_records_warns():
    with pytest.warns(UserWarning, match="n_clusters=50 is more than the noisy number") as seen:
        DPKMeans(n_clusters=50, bounds=(-4.0, 4.0), random_state=0).fit(X_NUM[:20])
    assert {w.filename for w in seen if "n_clusters" in str(w.message)} == {__file__}


# ---- the matrix ----------------------------------------------------------------------


def _with(X, row, col, value):
    X = np.array(X, dtype=float)
    X[row, col] = value
    return X


X_CASES = {
    # name: (X, keywords of an error)
    "nan": (_with(X_NUM, 3, 1, np.nan), ["nan"]),
    "inf": (_with(X_NUM, 3, 1, np.inf), ["infinity", "inf"]),
    "empty": (X_NUM[:0], ["0 sample", "empty"]),
    "one-row": (X_NUM[:1], ["sample", "class", "row"]),
    "1-d": (X_NUM[:, 0], ["2d", "reshape"]),
    "3-d": (X_NUM.reshape(40, 3, 1), ["dim"]),
    "strings": (np.resize(np.array(["a", "b", "c"]), (40, 3)), ["numeric", "string"]),
    "category": (
        pd.DataFrame({"a": X_NUM[:, 0], "c": pd.Categorical(np.resize(["u", "v"], 40))}),
        ["'c' (category)"],
    ),
    "Int64": (pd.DataFrame((X_NUM * 10).astype(int)).astype("Int64"), []),
    "Int64-NA": (pd.DataFrame((X_NUM * 10).astype(int)).astype("Int64").mask(X_NUM > 2), ["nan"]),
    "Float64": (pd.DataFrame(X_NUM).astype("Float64"), []),
    "Float64-NA": (pd.DataFrame(X_NUM).astype("Float64").mask(X_NUM > 2), ["nan"]),
    "sparse": (sp.csr_matrix(X_NUM), ["sparse", "dense"]),
}


@pytest.mark.parametrize("case", list(X_CASES))
@pytest.mark.parametrize("cls", NUMERIC, ids=lambda c: c.__name__)
def test_bad_X(cls, case):
    X, keywords = X_CASES[case]
    outcome = fit_outcome(_make(cls), X, keywords)
    if case in ("nan", "inf", "empty", "1-d", "3-d", "Int64-NA", "Float64-NA"):
        assert outcome == "error"
    if case in ("Int64", "Float64"):
        assert outcome == "fitted"


ITEMSET_CASES = {
    "nan": (_with(X_BIN, 3, 1, np.nan), ["nan"]),
    "counts": (X_BIN * 3, [], 0.0),
    "empty": (X_BIN[:0], ["0 sample", "empty"]),
    "one-row": (X_BIN[:1], []),
    "1-d": (X_BIN[:, 0], ["2d", "reshape"]),
    "3-d": (X_BIN.reshape(40, 3, 1), ["dim"]),
    "strings": (np.resize(np.array(["a", "b"]), (40, 3)), ["numeric", "string"]),
    "bool": (X_BIN.astype(bool), []),
    "Int64-NA": (pd.DataFrame(X_BIN).astype("Int64").mask(X_NUM > 2), ["nan"]),
    "sparse": (sp.csr_matrix(X_BIN), []),
}


@pytest.mark.parametrize("case", list(ITEMSET_CASES))
def test_bad_transactions(case):
    X, keywords = ITEMSET_CASES[case][:2]
    outcome = fit_outcome(_make(DPFrequentItemsets), X, keywords)
    if case in ("nan", "empty", "1-d", "3-d", "strings", "Int64-NA"):
        assert outcome == "error"
    if case in ("counts", "bool", "sparse"):
        assert outcome == "fitted"


BAD_EPSILONS = [1e-300, 1e300, 0, -1, np.nan, np.inf, "1", None, True]


@pytest.mark.parametrize("epsilon", BAD_EPSILONS, ids=repr)
@pytest.mark.parametrize("cls", list(FAST), ids=lambda c: c.__name__)
def test_bad_epsilon_is_refused(cls, epsilon):
    X = X_BIN if cls is DPFrequentItemsets else X_NUM
    assert fit_outcome(_make(cls, epsilon=epsilon), X, ["epsilon"]) == "error"


@pytest.mark.parametrize("cls", list(FAST), ids=lambda c: c.__name__)
@pytest.mark.parametrize("epsilon", [1e-9, 1e9], ids=repr)
def test_extreme_valid_epsilon_gives_a_finite_model(cls, epsilon):
    X = X_BIN if cls is DPFrequentItemsets else X_NUM
    assert fit_outcome(_make(cls, epsilon=epsilon), X, []) == "fitted"


SCALARS = [np.float32(0.75), np.float64(0.75), np.int64(2), np.float16(0.5)]


@pytest.mark.parametrize("epsilon", SCALARS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("cls", list(FAST), ids=lambda c: c.__name__)
def test_numpy_scalar_epsilon_is_spent_exactly(cls, epsilon):
    X = X_BIN if cls is DPFrequentItemsets else X_NUM
    model = _make(cls, epsilon=epsilon)
    assert fit_outcome(model, X, []) == "fitted"  # the spend is float(epsilon) up to 1e-12


HUGE = {
    DPDecisionTree: [{"n_levels": 10**9}, {"n_split_points": 10**9}],
    FunctionalMechanismRegressor: [{"bounds": (-1e300, 1e300)}],
    FunctionalMechanismClassifier: [{"bounds": (-1e300, 1e300)}],
    ObjectivePerturbationLogistic: [{"data_norm": 1e300}, {"C": 1e300}],
    PrivateSVM: [{"data_norm": 1e300}, {"C": 1e300}],
    DPKMeans: [{"n_clusters": 10**9}, {"max_iter": 10**9}, {"bounds": (-1e300, 1e300)}],
    DPOPTICS: [{"grid_size": 10**6}, {"min_samples": 10**9}, {"bounds": (-1e300, 1e300)}],
    DPFrequentItemsets: [{"top_k": 10**9}, {"max_length": 10**9}, {"n_measurements": 10**9}],
}


@pytest.mark.parametrize(
    "cls, params",
    [(cls, p) for cls, options in HUGE.items() for p in options],
    ids=lambda v: v.__name__ if isinstance(v, type) else "-".join(map(str, v)),
)
def test_huge_parameter(cls, params):
    X = X_BIN if cls is DPFrequentItemsets else X_NUM
    fit_outcome(_make(cls, **params), X, list(params))


def _numpy_scalar(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isinf(value):
        return value
    return np.int64(value) if isinstance(value, int) else np.float32(value)


@pytest.mark.parametrize("cls", list(FAST), ids=lambda c: c.__name__)
def test_numpy_scalar_numeric_parameters(cls):
    # every int parameter as np.int64, every float one (epsilon too) as np.float32
    params = {**_make(cls).get_params(), "random_state": 0}
    scalars = {k: _numpy_scalar(v) for k, v in params.items() if k != "random_state"}
    if "bounds" in scalars and isinstance(scalars["bounds"], tuple):
        scalars["bounds"] = tuple(np.float32(b) for b in scalars["bounds"])
    X = X_BIN if cls is DPFrequentItemsets else X_NUM
    assert fit_outcome(cls(**{**params, **scalars}), X, []) == "fitted"
