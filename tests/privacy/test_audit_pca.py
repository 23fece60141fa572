"""Empirical privacy audit of skdp.decomposition.PCA on tiny neighbouring datasets.

Two features in the public box ``[-1, 1]``, ``data_norm=1``, one component: nine
records at ``(-0.1, 0)`` and the extra record at ``(0.9, 0)`` (removed in the
neighbour). With it, the centred scatter is about ``diag(0.9, 0)``: the extra record
moves the score of every direction by up to its full sensitivity (1) and pulls the
drawn direction towards ``e_0``; without it the scatter is about 0 and the direction
is uniform. The released statistic is ``components_[0, 0]^2`` (post-processing of the
first direction, after the noisy mean; the spectrum takes 90% of the budget).

The estimator, audited on these neighbours, must pass (``method="auto"`` takes the
covariance release here; the ``-m slow`` twins audit both releases). The fits cost a few
milliseconds each (exact lattice noise for the mean), so the fast mutant test audits
the spectral release (:func:`skdp.decomposition._spectrum.release_spectrum`, the noisy
eigenvalues and the first direction) on scaled rows ``Z`` with and without an extra
unit row, where more runs fit in the time; a mutant whose mechanisms use 10x the
epsilon they record must be flagged there, and (``-m slow``) on the whole fit. The
covariance release (the worst-case added row) and the sampler alone are audited too,
each with a mutant at 10x its epsilon or rate.
"""

import warnings

import numpy as np
import pytest

import skdp.decomposition._centring as centring_module
import skdp.decomposition._spectrum as spectrum_module
import skdp.mechanisms._bingham as bingham_module
from skdp.decomposition import PCA
from skdp.decomposition._spectrum import release_covariance, release_spectrum
from skdp.exceptions import ClippingWarning
from skdp.mechanisms._bingham import sphere_exponential
from skdp.utils._audit import audit
from tests._mutants import ten_times

EPSILON = 2.0
X = np.vstack([np.tile([-0.1, 0.0], (9, 1)), [[0.9, 0.0]]])
FIRST, SECOND = X, X[:-1]


def release(data, rng, epsilon=EPSILON, method="auto"):
    model = PCA(
        1, epsilon=epsilon, bounds=(-1.0, 1.0), data_norm=1.0, method=method, random_state=rng
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        model.fit(data)
    return model.components_[0, 0] ** 2


def run_audit(n_search, n_samples, random_state=0, method="auto"):
    return audit(
        lambda data, rng: release(data, rng, method=method), FIRST, SECOND, epsilon=EPSILON,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


@pytest.mark.parametrize("method", ["covariance", "sampler"])
def test_the_extra_record_moves_the_release(method):
    """The premise, at negligible noise: e_0 with the record, not without it (the
    sampler: any direction; the covariance of nine equal rows is 0: e_1 by eigh)."""
    rng = np.random.default_rng(0)
    assert release(FIRST, rng, 1e6, method) > 0.999
    without = [release(SECOND, rng, 1e6, method) for _ in range(10)]
    assert min(without) < 0.5 and (method == "covariance" or max(without) > 0.5)


def test_pca_passes_the_audit():
    result = run_audit(n_search=40, n_samples=120)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["covariance", "sampler"])
def test_pca_passes_a_large_audit(method):
    result = run_audit(n_search=500, n_samples=4000, random_state=1, method=method)
    assert result.passed, str(result)


def _mutate_fit(monkeypatch):
    ten_times(monkeypatch, spectrum_module, "laplace", "sphere_exponential")
    ten_times(monkeypatch, centring_module, "laplace")


@pytest.mark.slow
@pytest.mark.parametrize("method", ["covariance", "sampler"])
def test_audit_flags_a_fit_noised_for_ten_times_epsilon(monkeypatch, method):
    _mutate_fit(monkeypatch)
    result = run_audit(n_search=200, n_samples=1000, method=method)
    assert not result.passed, str(result)


# the spectral release: nine zero rows, and an extra unit row along e_0
Z_SECOND = np.zeros((9, 2))
Z_FIRST = np.vstack([Z_SECOND, [[1.0, 0.0]]])
SPECTRUM_SPLIT = {"epsilon_eigenvalues": 0.5, "epsilon_eigenvectors": 1.0}


def spectrum(Z, rng):
    values, components = release_spectrum(Z.T @ Z, 1, random_state=rng, **SPECTRUM_SPLIT)
    return max(values.max(), 0.0) * components[0, 0] ** 2


def audit_spectrum(n_search, n_samples, random_state=0):
    return audit(
        spectrum, Z_FIRST, Z_SECOND, epsilon=sum(SPECTRUM_SPLIT.values()), n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_spectrum_passes_the_audit():
    result = audit_spectrum(n_search=30, n_samples=150)
    assert result.passed, str(result)


@pytest.mark.slow
def test_spectrum_passes_a_large_audit():
    result = audit_spectrum(n_search=1000, n_samples=10000, random_state=1)
    assert result.passed, str(result)


def test_audit_flags_a_spectrum_noised_for_ten_times_epsilon(monkeypatch):
    ten_times(monkeypatch, spectrum_module, "laplace", "sphere_exponential")
    result = audit_spectrum(n_search=60, n_samples=300)
    assert not result.passed, str(result)


# the covariance release: nine zero rows, and an extra row z = (1, 1) / sqrt(2), the
# worst case of its sensitivity (d + 1) / 2 = 1.5: it moves all three entries of the
# upper triangle by 1/2. The statistic is the sum of the three noisy entries,
# rebuilt from the released eigenvalues and (all) eigenvectors.
W_SECOND = np.zeros((9, 2))
W_FIRST = np.vstack([W_SECOND, [[1.0, 1.0]] / np.sqrt(2.0)])


def covariance(W, rng, epsilon=EPSILON):
    values, components = release_covariance(W.T @ W, 2, epsilon=epsilon, random_state=rng)
    noisy = components.T @ np.diag(values[::-1]) @ components
    return noisy[0, 0] + noisy[1, 1] + noisy[0, 1]


def audit_covariance(n_search, n_samples, random_state=0):
    return audit(
        covariance, W_FIRST, W_SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


@pytest.mark.slow
def test_covariance_release_passes_a_large_audit():
    result = audit_covariance(n_search=2000, n_samples=20000, random_state=1)
    assert result.passed, str(result)


def test_audit_flags_a_covariance_noised_for_ten_times_epsilon(monkeypatch):
    ten_times(monkeypatch, spectrum_module, "laplace")
    result = audit_covariance(n_search=30, n_samples=150)
    assert not result.passed, str(result)


# the sampler alone: C and C + z z^T with ||z|| = 1, the statistic u_0^2
SCATTER = np.diag([0.0, 0.0, 0.0])
ADDED = SCATTER + np.diag([1.0, 0.0, 0.0])


def draw(matrix, rng):
    return sphere_exponential(matrix, epsilon=EPSILON, random_state=rng)[0] ** 2


def test_sphere_exponential_passes_the_audit():
    result = audit(draw, ADDED, SCATTER, epsilon=EPSILON, n_search=200, n_samples=600,
                   random_state=0)  # fmt: skip
    assert result.passed, str(result)


@pytest.mark.slow
def test_sphere_exponential_passes_a_large_audit():
    result = audit(draw, ADDED, SCATTER, epsilon=EPSILON, n_search=3000, n_samples=20000,
                   random_state=1)  # fmt: skip
    assert result.passed, str(result)


def test_audit_flags_the_sampler_at_ten_times_its_rate(monkeypatch):
    real = bingham_module.bingham
    monkeypatch.setattr(
        bingham_module, "bingham", lambda a, **kwargs: real(10 * np.asarray(a), **kwargs)
    )
    result = audit(draw, ADDED, SCATTER, epsilon=EPSILON, n_search=200, n_samples=600,
                   random_state=0)  # fmt: skip
    assert not result.passed, str(result)
