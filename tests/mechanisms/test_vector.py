"""The L2 Laplace mechanism: arguments, accounting, distribution, lattice, reproducibility.

Distribution tests use fixed seeds, so every p-value is deterministic: a correct
sampler passes at ALPHA, and each test has a negative control that the same
statistic rejects at POWER.
"""

import math

import numpy as np
import pytest
from scipy import stats

from skdp import PrivacyLedger
from skdp.mechanisms import l2_laplace, l2_laplace_noise

ALPHA = 1e-4
POWER = 1e-6


def _noise(n_draws, dimension, sensitivity, epsilon, seed):
    rng = np.random.default_rng(seed)
    return np.array(
        [
            l2_laplace_noise(dimension, sensitivity=sensitivity, epsilon=epsilon, random_state=rng)
            for _ in range(n_draws)
        ]
    )


# ------------------------------------------------------------------------ arguments

CALLS = {
    "l2_laplace_noise": lambda **kw: l2_laplace_noise(
        kw.pop("dimension", 2), **{"sensitivity": 1.0, "epsilon": 1.0, **kw}
    ),
    "l2_laplace": lambda **kw: l2_laplace(
        kw.pop("value", [1.0, 2.0]), **{"sensitivity": 1.0, "epsilon": 1.0, **kw}
    ),
}


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("epsilon", [0, -1.0, math.nan, math.inf, "1", True])
def test_bad_epsilon_names_epsilon_and_charges_nothing(name, epsilon):
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match="epsilon"):
        CALLS[name](epsilon=epsilon, random_state=0)
    assert ledger.total.epsilon == 0


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("sensitivity", [0, -2.0, math.nan, math.inf])
def test_bad_sensitivity_names_sensitivity(name, sensitivity):
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match="sensitivity"):
        CALLS[name](sensitivity=sensitivity, random_state=0)
    assert ledger.total.epsilon == 0


@pytest.mark.parametrize("dimension", [0, -3, 1.5, 2.0, True, "3", None])
def test_bad_dimension_is_named(dimension):
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match="positive int"):
        l2_laplace_noise(dimension, sensitivity=1.0, epsilon=1.0, random_state=0)
    assert ledger.total.epsilon == 0


@pytest.mark.parametrize(
    ("value", "match"),
    [([], "empty"), ([1.0, math.nan], "finite"), ([math.inf], "finite"), (["a"], "numeric")],
)
def test_bad_values_are_named(value, match):
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match=match):
        l2_laplace(value, sensitivity=1.0, epsilon=1.0, random_state=0)
    assert ledger.total.epsilon == 0


def test_values_too_large_for_the_lattice_are_refused():
    with pytest.raises(ValueError, match="too large for its sensitivity"):
        l2_laplace([1e20, 0.0], sensitivity=1e-6, epsilon=1.0, random_state=0)


@pytest.mark.parametrize("name", CALLS)
def test_each_call_charges_its_epsilon_once(name):
    with PrivacyLedger() as ledger:
        CALLS[name](epsilon=0.3, random_state=0)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [(name, 0.3)]


# --------------------------------------------------------------------- distribution


@pytest.mark.parametrize(
    ("dimension", "sensitivity", "epsilon"), [(1, 1.0, 1.0), (3, 2.0, 0.5), (20, 1.0, 4.0)]
)
def test_noise_norm_is_gamma(dimension, sensitivity, epsilon):
    """||b|| ~ Gamma(d, sensitivity / epsilon) (KS); a 20% larger scale is rejected."""
    norms = np.linalg.norm(_noise(20_000, dimension, sensitivity, epsilon, seed=1), axis=1)
    scale = sensitivity / epsilon
    assert stats.kstest(norms, stats.gamma(dimension, scale=scale).cdf).pvalue > ALPHA
    assert stats.kstest(norms, stats.gamma(dimension, scale=1.2 * scale).cdf).pvalue < POWER


def test_noise_direction_is_uniform_on_the_sphere():
    """In 3-d each coordinate of a uniform direction is Uniform(-1, 1) (Archimedes)."""
    draws = _noise(20_000, 3, 1.0, 1.0, seed=2)
    directions = draws / np.linalg.norm(draws, axis=1, keepdims=True)
    for axis in range(3):
        assert stats.kstest(directions[:, axis], stats.uniform(-1, 2).cdf).pvalue > ALPHA
    # negative control: a direction biased along the first axis is rejected
    biased = directions + np.array([0.2, 0.0, 0.0])
    biased /= np.linalg.norm(biased, axis=1, keepdims=True)
    assert stats.kstest(biased[:, 0], stats.uniform(-1, 2).cdf).pvalue < POWER


def test_noise_in_one_dimension_is_laplace():
    draws = _noise(20_000, 1, 1.0, 2.0, seed=3)[:, 0]
    assert stats.kstest(draws, stats.laplace(scale=0.5).cdf).pvalue > ALPHA


def test_release_sits_on_the_lattice_and_carries_the_noise():
    """Outputs are multiples of a power-of-two step; output - value has the Gamma norm."""
    value = np.array([3.25, -1.5])
    rng = np.random.default_rng(4)
    out = np.array(
        [l2_laplace(value, sensitivity=1.0, epsilon=1.0, random_state=rng) for _ in range(20_000)]
    )
    step = 2.0**-13  # the largest power of two <= 2**-12 / sqrt(2)
    assert np.all(out / step == np.round(out / step))
    norms = np.linalg.norm(out - value, axis=1)
    assert stats.kstest(norms, stats.gamma(2, scale=1.0).cdf).pvalue > ALPHA
    assert stats.kstest(norms, stats.gamma(2, scale=1.2).cdf).pvalue < POWER


def test_release_keeps_the_shape():
    assert l2_laplace(1.0, sensitivity=1.0, epsilon=1.0, random_state=0).shape == ()
    assert l2_laplace(np.ones((2, 3)), sensitivity=1.0, epsilon=1.0, random_state=0).shape == (
        2,
        3,
    )


# ------------------------------------------------------------------ reproducibility


@pytest.mark.parametrize("name", CALLS)
def test_a_seed_reproduces_and_different_seeds_differ(name):
    first, again = CALLS[name](random_state=5), CALLS[name](random_state=5)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, CALLS[name](random_state=6))
    assert not np.array_equal(CALLS[name](random_state=None), CALLS[name](random_state=None))
