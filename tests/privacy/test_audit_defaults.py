"""End-to-end audits of estimators fitted on their private defaults.

``bounds=None`` (DPKMeans) and ``data_norm=None`` (ObjectivePerturbationLogistic): the
bounds or the row-norm bound are estimated privately inside ``fit``, with a share of
``epsilon``. The neighbours add one far-away record (at 1000) to twenty records in
``[-1, 1]``: exactly what a bound read from the data would give away. The released
statistic is a scalar projection of the model (the largest centre in absolute value;
the absolute coefficient), post-processing of the release.

Mutants read the bound from the data exactly (diffprivlib's behaviour: the data's
min/max, the largest row norm) and pass it as the public parameter: the far record then
moves every released value by orders of magnitude, and the audit must flag it.

The fits here are not about utility: with twenty records at epsilon 1 the private
bounds are mostly noise (the public fallback box, or a scan stopped early).
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from skdp.cluster import DPKMeans
from skdp.linear_model import ObjectivePerturbationLogistic
from skdp.utils._audit import audit

EPSILON = 1.0
X = np.r_[np.full(10, -1.0), np.full(10, 1.0)][:, np.newaxis]
Y = np.r_[np.zeros(10), np.ones(10)]
FAR = np.array([[1000.0]])
KMEANS_PAIR = (X, np.r_[X, FAR])
LOGISTIC_PAIR = ((X, Y), (np.r_[X, FAR], np.r_[Y, 1.0]))
SETTINGS = {"n_search": 100, "n_samples": 400, "random_state": 0}
MUTANT = {"n_search": 50, "n_samples": 200, "random_state": 0}

pytestmark = [
    pytest.mark.filterwarnings("ignore::UserWarning"),  # fallback box, clipping
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
]


@pytest.fixture(autouse=True)
def _one_thread():
    """Hundreds of tiny fits: one BLAS/OpenMP thread each."""
    with threadpool_limits(1):
        yield


def largest_centre(model):
    return float(np.abs(model.cluster_centers_).max())


def kmeans_release(exact_bounds=False):
    def release(data, rng):
        bounds = (data.min(axis=0), data.max(axis=0)) if exact_bounds else None
        model = DPKMeans(2, epsilon=EPSILON, bounds=bounds, random_state=rng).fit(data)
        return largest_centre(model)

    return release


def logistic_release(exact_norm=False):
    def release(data, rng):
        X, y = data
        norm = float(np.linalg.norm(X, axis=1).max()) if exact_norm else None
        model = ObjectivePerturbationLogistic(
            epsilon=EPSILON, data_norm=norm, classes=[0, 1], random_state=rng
        ).fit(X, y)
        return abs(float(model.coef_[0, 0]))

    return release


def test_kmeans_with_private_bounds_passes_audit():
    result = audit(kmeans_release(), *KMEANS_PAIR, epsilon=EPSILON, **SETTINGS)
    assert result.passed, str(result)


def test_kmeans_with_the_datas_bounds_is_flagged():
    result = audit(kmeans_release(exact_bounds=True), *KMEANS_PAIR, epsilon=EPSILON, **MUTANT)
    assert not result.passed, str(result)


def test_logistic_with_a_private_norm_passes_audit():
    result = audit(logistic_release(), *LOGISTIC_PAIR, epsilon=EPSILON, **SETTINGS)
    assert result.passed, str(result)


def test_logistic_with_the_datas_largest_norm_is_flagged():
    result = audit(logistic_release(exact_norm=True), *LOGISTIC_PAIR, epsilon=EPSILON, **MUTANT)
    assert not result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("release", [kmeans_release, logistic_release], ids=["kmeans", "logistic"])
def test_private_defaults_pass_a_large_audit(release):
    pair = KMEANS_PAIR if release is kmeans_release else LOGISTIC_PAIR
    result = audit(
        release(), *pair, epsilon=EPSILON, n_search=1000, n_samples=5000, random_state=1
    )
    assert result.passed, str(result)
