"""The number of runs of a private selection: its law and its arguments."""

import numpy as np
import pytest
from scipy.stats import chisquare

from skdp import PrivacyLedger
from skdp.mechanisms import truncated_negative_binomial


def _pmf(eta, gamma, k):
    """Papernot and Steinke's truncated negative binomial pmf on k = 1, 2, ..."""
    if eta == 0:  # the logarithmic law
        return (1 - gamma) ** k / (k * np.log(1 / gamma))
    return (1 - gamma) ** k * np.cumprod((k - 1 + eta) / k) / (gamma**-eta - 1)


@pytest.mark.parametrize("eta", [1.0, 0.0, 0.5, -0.5])
def test_draws_follow_the_truncated_negative_binomial_law(eta):
    gamma, rng = 0.3, np.random.default_rng(0)
    with PrivacyLedger() as ledger:  # data-independent: nothing is charged
        draws = np.array(
            [truncated_negative_binomial(eta, gamma, random_state=rng) for _ in range(3000)]
        )
    assert ledger.total.epsilon == 0
    k = np.arange(1, 11)
    pmf = _pmf(eta, gamma, k)
    observed = np.r_[[np.sum(draws == i) for i in k], np.sum(draws > 10)]
    expected = np.r_[pmf, 1 - pmf.sum()] * len(draws)
    assert draws.min() >= 1
    assert chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize(
    ("eta", "gamma"), [(-1.0, 0.3), (-1.5, 0.3), (np.inf, 0.3), (1.0, 0.0), (1.0, 1.0)]
)
def test_bad_arguments_are_refused(eta, gamma):
    with pytest.raises(ValueError, match=r"eta|gamma"):
        truncated_negative_binomial(eta, gamma, random_state=0)


def test_a_negative_shape_follows_its_law_into_the_tail():
    """eta = -0.5, gamma = 0.001: half the draws are 1, the rest spread past k = 496."""
    eta, gamma, rng = -0.5, 0.001, np.random.default_rng(1)
    draws = np.array(
        [truncated_negative_binomial(eta, gamma, random_state=rng) for _ in range(2000)]
    )
    edges = np.array([1, 2, 3, 5, 17, 49, 113, 241, 497, 1009])  # the walk's blocks: 16, 32, ...
    pmf = _pmf(eta, gamma, np.arange(1, edges[-1]))
    expected = np.r_[np.add.reduceat(pmf, edges[:-1] - 1), 1 - pmf.sum()] * len(draws)
    observed = np.r_[np.histogram(draws, bins=edges)[0], np.sum(draws >= edges[-1])]
    assert observed[-1] > 0 and observed[-2] > 0
    assert chisquare(observed, expected).pvalue > 1e-3
