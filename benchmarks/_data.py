"""The benchmark datasets, split once, with their public metadata.

A :class:`Task` is one learning problem on one dataset: training and test data and the
*public* inputs a private estimator may use (bounds, classes, taxonomies, number of
clusters). Those public inputs are written here as constants from each dataset's
documentation or from domain knowledge; none of them is computed from the records, so
the benchmark measures what a careful user would get.

Splits are fixed (the dataset's standard split, or a seeded stratified split), so every
estimator sees the same data and a rerun gives the same table.
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.cluster import DBSCAN, KMeans
from sklearn.datasets import (
    load_diabetes,
    load_iris,
    load_wine,
    make_blobs,
    make_circles,
    make_moons,
)
from sklearn.model_selection import train_test_split

TASKS = ("classification", "regression", "clustering", "itemsets")
SPLIT_SEED = 0

# Iris, in cm. Anderson's measurements are recorded to 0.1 cm; these round domains hold
# every iris in the published data and are a statement about flowers, not about the rows.
IRIS_BOUNDS = {
    "sepal length (cm)": (4.0, 8.0),
    "sepal width (cm)": (2.0, 4.5),
    "petal length (cm)": (1.0, 7.0),
    "petal width (cm)": (0.0, 3.0),
}
# Wine (Forina et al.), round domains of each measurement for Italian wines of the three
# cultivars, wide enough for every wine in the published data: about wines, not the rows
WINE_BOUNDS = {
    "alcohol": (10.0, 16.0),
    "malic_acid": (0.0, 6.0),
    "ash": (1.0, 4.0),
    "alcalinity_of_ash": (10.0, 30.0),
    "magnesium": (60.0, 170.0),
    "total_phenols": (0.0, 4.0),
    "flavanoids": (0.0, 6.0),
    "nonflavanoid_phenols": (0.0, 1.0),
    "proanthocyanins": (0.0, 4.0),
    "color_intensity": (0.0, 14.0),
    "hue": (0.0, 2.0),
    "od280/od315_of_diluted_wines": (1.0, 4.0),
    "proline": (200.0, 1700.0),
}
# scikit-learn's diabetes features are centred and scaled to unit norm over 442 patients,
# so each lies within +-1 by construction; +-0.2 is the documented practical range. The
# target is a disease-progression score on a 0-400 scale.
DIABETES_FEATURE_BOUNDS = (-0.2, 0.2)
DIABETES_TARGET_BOUNDS = (0.0, 400.0)
# the regression task on Adult: weekly working hours from the other attributes
ADULT_REGRESSION_TARGET = "hours-per-week"
# the non-linear task: two noisy concentric circles, 20,000 points; the bounds hold the
# generator's support (radius 1 plus noise) and are known from how the data is made
CIRCLES_SAMPLES, CIRCLES_NOISE, CIRCLES_FACTOR = 20_000, 0.1, 0.5
CIRCLES_BOUNDS = (-1.5, 1.5)
# clustering on Gaussian blobs: 5 centres drawn in [-0.6, 0.6]^d, standard deviation
# 0.1, public box [-1, 1]^d (a statement about the generator, not about the rows)
BLOBS_SIZES, BLOBS_DIMENSIONS, BLOBS_CENTRES, BLOBS_STD = (1_000, 100_000), (2, 5, 10, 20), 5, 0.1
# clustering on Adult's numeric attributes (the money-like ones through log1p), each
# mapped to [-1, 1] by its public domain, as Su et al. normalise; k as for the blobs
ADULT_CLUSTERING_LOG = ("fnlwgt", "capital-gain", "capital-loss")
ADULT_CLUSTERS = 5
# density clustering (DPOPTICS): shapes in a public box, scored against the generator's
# labels and, up to DENSITY_REFERENCE_MAX rows, against scikit-learn's DBSCAN with the
# same eps and min_samples (public settings from the generator's scale)
DENSITY_SIZES, DENSITY_REFERENCE_MAX = (10_000, 1_000_000), 100_000
DENSITY_SHAPES = {
    # name: (bounds per feature, min_samples per 10^4 rows, DBSCAN eps)
    "dblobs2": ((-1.0, 1.0), 20, 0.1),
    "dblobs3": ((-1.0, 1.0), 20, 0.1),
    "moons": ((-1.5, 2.5), 20, 0.1),
    "dcircles": ((-1.5, 1.5), 20, 0.1),
}
# money amounts, mostly 0 with a long tail: the linear models' encoding takes log1p of
# them (a public transform; their public bounds are non-negative)
LOG_SCALED = {
    "adult": ["capital-gain", "capital-loss"],
    "census_income": [
        "wage_per_hour",
        "capital_gains",
        "capital_losses",
        "dividends_from_stocks",
    ],
}


@dataclass
class Task:
    """One learning problem: fixed train/test data plus the public inputs.

    Attributes
    ----------
    dataset, task : str
        Dataset name and one of ``TASKS``.
    X_train, y_train, X_test, y_test
        The fixed split. ``y_*`` are None for itemset tasks; clustering tasks carry the
        true labels in ``y_*`` for the adjusted Rand index only.
    public : dict
        Public, data-independent inputs: ``bounds`` (name -> (low, high)), ``classes``,
        ``categorical_features``, ``taxonomies``, ``n_clusters``, ``target_bounds``,
        ``log_scaled`` (numeric columns the linear models' encoding takes log1p of).
    note : str
        Where the data and the split come from, printed with the results.
    reference_labels : ndarray or None
        Clustering tasks: the labels a non-private reference (``reference_name``:
        scikit-learn's ``KMeans`` with 10 restarts, or ``DBSCAN``) gives ``X_test``,
        for the ARI against it. Not public.
    reference_name : str
    """

    dataset: str
    task: str
    X_train: object
    y_train: object
    X_test: object
    y_test: object
    public: dict = field(default_factory=dict)
    note: str = ""
    reference_labels: object = None
    reference_name: str = "KMeans"

    @property
    def n_train(self):
        return self.X_train.shape[0]


def _iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=1 / 3, stratify=y, random_state=SPLIT_SEED
    )
    public = {"bounds": dict(IRIS_BOUNDS), "classes": [0, 1, 2], "categorical_features": []}
    note = "scikit-learn's Iris, 100 train / 50 test (stratified, seed 0)"
    return [
        Task("iris", "classification", X_train, y_train, X_test, y_test, public, note),
        _clustering_task(
            "iris",
            X,
            y,
            {**public, "n_clusters": 3},
            "scikit-learn's Iris, all 150 rows clustered, ARI against the species",
        ),
    ]


def _wine():
    X, y = load_wine(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=1 / 3, stratify=y, random_state=SPLIT_SEED
    )
    public = {"bounds": dict(WINE_BOUNDS), "classes": [0, 1, 2], "categorical_features": []}
    note = "scikit-learn's Wine, 118 train / 60 test (stratified, seed 0)"
    return [Task("wine", "classification", X_train, y_train, X_test, y_test, public, note)]


def _clustering_task(name, X, y, public, note, X_test=None, y_test=None):
    """A clustering task scored on ``X_test`` (default: the training rows)."""
    X_test, y_test = (X, y) if X_test is None else (X_test, y_test)
    reference = KMeans(public["n_clusters"], n_init=10, random_state=SPLIT_SEED).fit(X)
    task = Task(name, "clustering", X, y, X_test, y_test, public, note)
    task.reference_labels = reference.predict(X_test)
    return task


def _density(shape, n_samples):
    """A density-clustering task: blobs (2-D, 3-D), moons or circles in a public box."""
    (low, high), min_samples, eps = DENSITY_SHAPES[shape]
    if shape.startswith("dblobs"):  # four blobs on alternate corners, 10 sd apart
        centres = {
            "dblobs2": [[-0.5, -0.5], [0.5, -0.5], [-0.5, 0.5], [0.5, 0.5]],
            "dblobs3": [[-0.5, -0.5, -0.5], [0.5, 0.5, -0.5], [0.5, -0.5, 0.5], [-0.5, 0.5, 0.5]],
        }[shape]
        X, y = make_blobs(n_samples, centers=centres, cluster_std=0.1, random_state=SPLIT_SEED)
    elif shape == "moons":
        X, y = make_moons(n_samples, noise=0.05, random_state=SPLIT_SEED)
    else:
        X, y = make_circles(n_samples, noise=0.05, factor=0.5, random_state=SPLIT_SEED)
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    scaled_min_samples = max(5, round(min_samples * n_samples / 10_000))
    public = {
        "bounds": dict.fromkeys(X.columns, (low, high)),
        "min_samples": scaled_min_samples,
        "eps": eps,
        "min_cluster_size": 0.05,
    }
    note = (
        f"{shape} ({n_samples:,} rows, seed 0) in the public box [{low}, {high}]^d, all rows "
        f"clustered; min_samples={scaled_min_samples}, DBSCAN eps={eps} (OPTICS max_eps), "
        "xi min_cluster_size=0.05"
    )
    task = Task(
        f"{shape}-n{n_samples}", "clustering", X, pd.Series(y), X, pd.Series(y), public, note
    )
    if n_samples <= DENSITY_REFERENCE_MAX:
        task.reference_labels = DBSCAN(eps=eps, min_samples=scaled_min_samples).fit_predict(X)
        task.reference_name = "DBSCAN"
    return [task]


def _blobs(n_features, n_samples):
    X, y = make_blobs(
        n_samples,
        n_features=n_features,
        centers=BLOBS_CENTRES,
        cluster_std=BLOBS_STD,
        center_box=(-0.6, 0.6),
        random_state=SPLIT_SEED,
    )
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(n_features)])
    public = {"bounds": dict.fromkeys(X.columns, (-1.0, 1.0)), "n_clusters": BLOBS_CENTRES}
    note = (
        f"make_blobs({n_samples:,}, n_features={n_features}, centers={BLOBS_CENTRES}, "
        f"cluster_std={BLOBS_STD}, center_box=(-0.6, 0.6), seed 0), all rows clustered, "
        "ARI against the generating blob"
    )
    name = f"blobs-d{n_features}-n{n_samples}"
    return [_clustering_task(name, X, pd.Series(y), public, note)]


def _adult_numeric(X, train, domains):
    """Adult's numeric columns mapped to [-1, 1] by their public domains."""
    columns = {}
    for column, (low, high) in domains.items():
        values = X[column].astype(float)
        if column in ADULT_CLUSTERING_LOG:
            values, low, high = np.log1p(values), np.log1p(low), np.log1p(high)
        columns[column] = 2 * (values - low) / (high - low) - 1
    frame = pd.DataFrame(columns)
    public = {"bounds": dict.fromkeys(frame.columns, (-1.0, 1.0)), "n_clusters": ADULT_CLUSTERS}
    note = (
        f"Adult's {len(columns)} numeric attributes ({', '.join(ADULT_CLUSTERING_LOG)} "
        "through log1p) scaled to [-1, 1] by their public domains; fit on the 30,162 "
        f"training rows, scored on the 15,060 test rows; k = {ADULT_CLUSTERS}; ARI only "
        "against scikit-learn's KMeans (there are no true clusters)"
    )
    return _clustering_task(
        "adult", frame[train], None, public, note, X_test=frame[~train], y_test=None
    )


def _diabetes():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=1 / 3, random_state=SPLIT_SEED
    )
    public = {
        "bounds": dict.fromkeys(X.columns, DIABETES_FEATURE_BOUNDS),
        "target_bounds": DIABETES_TARGET_BOUNDS,
    }
    note = "scikit-learn's diabetes, 294 train / 148 test (seed 0)"
    return [Task("diabetes", "regression", X_train, y_train, X_test, y_test, public, note)]


def _circles():
    X, y = make_circles(
        CIRCLES_SAMPLES, noise=CIRCLES_NOISE, factor=CIRCLES_FACTOR, random_state=SPLIT_SEED
    )
    X = pd.DataFrame(X, columns=["x0", "x1"])
    public = {
        "bounds": dict.fromkeys(X.columns, CIRCLES_BOUNDS),
        "classes": [0, 1],
        "categorical_features": [],
    }
    note = (
        f"make_circles({CIRCLES_SAMPLES:,}, noise={CIRCLES_NOISE}, factor={CIRCLES_FACTOR}): "
        "not linearly separable; split 2/3 train 1/3 test (stratified, seed 0)"
    )
    return _stratified("circles", _Bunch(X, pd.Series(y)), public, note)


@dataclass
class _Bunch:
    data: object
    target: object


def _tabular_public(bunch, domains_name):
    from skdp.datasets import load_numeric_domains, load_taxonomies

    categorical = [c for c in bunch.data.columns if bunch.data[c].dtype == "category"]
    domains = load_numeric_domains(domains_name)
    taxonomies = load_taxonomies(domains_name) if domains_name == "adult" else {}
    return {
        "bounds": {c: domains[c] for c in bunch.data.columns if c in domains},
        "classes": list(bunch.target.cat.categories),
        "categorical_features": categorical,
        "categories": {c: list(bunch.data[c].cat.categories) for c in categorical},
        "taxonomies": taxonomies,
        "log_scaled": list(LOG_SCALED.get(domains_name, [])),
    }


def _adult(data_home):
    from skdp.datasets import fetch_adult, load_numeric_domains

    bunch = fetch_adult(data_home=data_home, drop_missing=True, download_if_missing=True)
    train = np.asarray(bunch.split == "train")
    X, y = bunch.data, bunch.target
    note = (
        "UCI Adult without missing values (45,222 rows), the standard split: "
        "30,162 train / 15,060 test"
    )
    public = _tabular_public(bunch, "adult")
    target = ADULT_REGRESSION_TARGET
    features = [c for c in X.columns if c != target]
    regression_public = {
        **public,
        "bounds": {c: b for c, b in public["bounds"].items() if c != target},
        "target_bounds": public["bounds"][target],
    }
    return [
        Task("adult", "classification", X[train], y[train], X[~train], y[~train], public, note),
        Task(
            "adult",
            "regression",
            X.loc[train, features],
            X.loc[train, target].astype(float),
            X.loc[~train, features],
            X.loc[~train, target].astype(float),
            regression_public,
            f"{note}; target {target!r} from the other attributes (not the income class)",
        ),
        _adult_numeric(X, train, load_numeric_domains("adult")),
    ]


def _stratified(name, bunch, public, note):
    X_train, X_test, y_train, y_test = train_test_split(
        bunch.data,
        bunch.target,
        test_size=1 / 3,
        stratify=bunch.target,
        random_state=SPLIT_SEED,
    )
    return [Task(name, "classification", X_train, y_train, X_test, y_test, public, note)]


def _census_income(data_home):
    from skdp.datasets import fetch_census_income

    bunch = fetch_census_income(data_home=data_home, subset="test", download_if_missing=True)
    for column in bunch.data.columns:  # "?" (not in universe) is a documented answer here
        values = bunch.data[column]
        if isinstance(values.dtype, pd.CategoricalDtype) and values.isna().any():
            bunch.data[column] = values.cat.add_categories("?").fillna("?")
    note = (
        f"UCI Census-Income (KDD) test file ({bunch.data.shape[0]:,} rows), split 2/3 train "
        "1/3 test (stratified, seed 0); the instance weight is not a feature; missing "
        "categorical answers kept as the category '?'"
    )
    return _stratified("census_income", bunch, _tabular_public(bunch, "census_income"), note)


def _german_credit(data_home):
    from skdp.datasets import fetch_german_credit

    bunch = fetch_german_credit(data_home=data_home, download_if_missing=True)
    categorical = [c for c in bunch.data.columns if bunch.data[c].dtype == "category"]
    public = {
        "classes": list(bunch.target.cat.categories),
        "categorical_features": categorical,
        "categories": {c: list(bunch.data[c].cat.categories) for c in categorical},
    }
    note = "Statlog German credit (1,000 rows), split 2/3 train 1/3 test (stratified, seed 0)"
    return _stratified("german_credit", bunch, public, note)


def _transactions(name, data_home):
    from skdp.datasets import fetch_fimi, fetch_msnbc

    bunch = (
        fetch_msnbc(data_home=data_home)
        if name == "msnbc"
        else fetch_fimi(name, data_home=data_home)
    )
    public = {"items": list(bunch.feature_names)}
    note = f"{name}: {bunch.data.shape[0]:,} transactions over {bunch.data.shape[1]:,} items"
    return [Task(name, "itemsets", bunch.data, None, bunch.data, None, public, note)]


_LOADERS = {
    "iris": lambda data_home: _iris(),
    "wine": lambda data_home: _wine(),
    "diabetes": lambda data_home: _diabetes(),
    "circles": lambda data_home: _circles(),
    "adult": _adult,
    "census_income": _census_income,
    "german_credit": _german_credit,
    **{
        f"{shape}-n{n}": (lambda data_home, shape=shape, n=n: _density(shape, n))
        for shape in DENSITY_SHAPES
        for n in DENSITY_SIZES
    },
    **{
        f"blobs-d{d}-n{n}": (lambda data_home, d=d, n=n: _blobs(d, n))
        for d in BLOBS_DIMENSIONS
        for n in BLOBS_SIZES
    },
    **{
        name: (lambda data_home, name=name: _transactions(name, data_home))
        for name in ("msnbc", "mushroom", "chess", "retail", "T10I4D100K")
    },
}
DATASETS = tuple(_LOADERS)


def load_tasks(name, data_home=None):
    """The tasks of one benchmark dataset.

    Parameters
    ----------
    name : str
        One of ``DATASETS``.
    data_home : str or path-like, default=None
        Passed to the ``skdp.datasets`` loaders (default ``$SKDP_DATA_HOME``, else
        ``~/skdp_data``). Iris and diabetes ship with scikit-learn.

    Returns
    -------
    list of Task
    """
    if name not in _LOADERS:
        raise ValueError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    return _LOADERS[name](data_home)
