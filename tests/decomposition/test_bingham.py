"""The Bingham sampler behind skdp.decomposition.PCA against exact moments.

Spec B5: diffprivlib 0.6.6 and OpenDP divide Kent et al.'s acceptance probability by
``(x^T Omega x)^(q/2)`` instead of multiplying, and sample another distribution. The
moment tests below compare ``E[u_j^2]`` with quadratures of the Bingham density in 2
and 3 dimensions; the last test shows that they catch the divided rule.
"""

import math

import numpy as np
import pytest

import skdp.mechanisms._bingham as bingham_module
from skdp.accounting import PrivacyLedger
from skdp.mechanisms._bingham import bingham, sphere_exponential

N_DRAWS = 40000


def exact_second_moments(a):
    """``E[u_j^2]`` under ``exp(u^T diag(a) u)`` on the sphere, by quadrature."""
    a = np.asarray(a, dtype=float)
    if a.size == 2:
        theta = np.linspace(0, 2 * np.pi, 20001)[:-1]
        u = np.stack([np.cos(theta), np.sin(theta)], axis=1)
        weight = np.ones_like(theta)
    else:  # 3-D: midpoint rule in (polar, azimuth), with the sin(polar) Jacobian
        polar = (np.arange(300) + 0.5) * np.pi / 300
        azimuth = (np.arange(600) + 0.5) * 2 * np.pi / 600
        p, z = np.meshgrid(polar, azimuth, indexing="ij")
        u = np.stack([np.sin(p) * np.cos(z), np.sin(p) * np.sin(z), np.cos(p)], axis=-1)
        u, weight = u.reshape(-1, 3), np.sin(p).ravel()
    density = weight * np.exp((u**2) @ a)
    return (density @ u**2) / density.sum()


@pytest.mark.parametrize(
    "a", [[0.0, -2.0], [5.0, 0.0], [0.0, 0.0], [3.0, 1.0, 0.0], [-4.0, 0.0, 6.0]]
)
def test_second_moments_match_the_bingham_density(a):
    u = bingham(np.diag(a), size=N_DRAWS, random_state=0)
    assert np.allclose(np.linalg.norm(u, axis=1), 1.0)
    # standard error of a mean of u_j^2 in [0, 1] is below 0.5 / sqrt(N) = 0.0025
    assert np.allclose((u**2).mean(axis=0), exact_second_moments(a), atol=0.012)


def test_the_spec_value_in_two_dimensions():
    """Spec B5: A = diag(0, -2) has E[u_1^2] = 0.277 (the divided rule gives 0.10)."""
    assert exact_second_moments([0.0, -2.0])[1] == pytest.approx(0.277, abs=1e-3)
    u = bingham(np.diag([0.0, -2.0]), size=N_DRAWS, random_state=1)
    assert (u[:, 1] ** 2).mean() == pytest.approx(0.277, abs=0.01)


def test_a_rotated_matrix_gives_rotated_draws():
    rotation, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(3, 3)))
    a = np.array([3.0, 1.0, 0.0])
    u = bingham(rotation @ np.diag(a) @ rotation.T, size=N_DRAWS, random_state=2)
    assert np.allclose(((u @ rotation) ** 2).mean(axis=0), exact_second_moments(a), atol=0.012)


def test_the_moment_test_catches_the_divided_acceptance_rule(monkeypatch):
    def divided(s, omega_form, q, b):  # diffprivlib 0.6.6 / OpenDP: divide, not multiply
        log_m = -(q - b) / 2.0 + (q / 2.0) * math.log(q / b)
        return -s - (q / 2.0) * np.log(omega_form) - log_m

    monkeypatch.setattr(bingham_module, "_log_acceptance", divided)
    u = bingham(np.diag([0.0, -2.0]), size=N_DRAWS, random_state=1)
    assert abs((u[:, 1] ** 2).mean() - 0.277) > 0.1  # about 0.10


def test_sphere_exponential_records_epsilon_and_uses_the_monotone_rate():
    c = np.diag([2.0, 0.5, 0.0])
    with PrivacyLedger() as ledger:
        u = sphere_exponential(c, epsilon=0.7, random_state=3)
        v = sphere_exponential(c, epsilon=0.7, monotonic=False, random_state=4)
    assert ledger.total.epsilon == pytest.approx(1.4)
    assert np.array_equal(u, bingham(0.7 * c, random_state=3))
    assert np.array_equal(v, bingham(0.35 * c, random_state=4))


@pytest.mark.parametrize("bad", [np.ones((2, 3)), np.array([[np.nan, 0], [0, 1]]), np.ones(3)])
def test_bad_matrices_are_refused(bad):
    with pytest.raises(ValueError, match="matrix"):
        sphere_exponential(bad, epsilon=1.0, random_state=0)
