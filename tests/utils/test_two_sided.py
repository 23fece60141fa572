"""Private means from the distances to both bounds (skdp.utils._two_sided)."""

import warnings

import dask.array as da
import numpy as np
import pytest

from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning
from skdp.utils._two_sided import two_sided_mean

RNG = np.random.default_rng(0)
X = np.c_[RNG.uniform(0, 10, 600), RNG.normal(100, 5, 600)]
GROUPS = (np.arange(600) % 3).astype(np.int64)
LOWER, UPPER = np.array([0.0, 80.0]), np.array([10.0, 120.0])


def test_one_release_of_epsilon_over_all_groups():
    """Groups compose in parallel: one Laplace call, 5 groups cost what one does."""
    with PrivacyLedger() as ledger:
        two_sided_mean(X, LOWER, UPPER, groups=GROUPS, n_groups=5, epsilon=0.7, random_state=0)
    assert ledger.total.epsilon == pytest.approx(0.7, rel=1e-12)
    assert [entry.mechanism for entry in ledger.entries] == ["laplace"]


def test_large_epsilon_recovers_the_exact_group_means():
    out = two_sided_mean(X, LOWER, UPPER, groups=GROUPS, n_groups=3, epsilon=1e9, random_state=0)
    assert out.shape == (3, 2)
    for k in range(3):
        np.testing.assert_allclose(out[k], X[GROUPS == k].mean(axis=0), rtol=1e-6)


@pytest.mark.parametrize("position, d", [(0.1, 1), (0.5, 1), (0.05, 3)])
def test_error_law_matches_the_docstring(position, d):
    """The noise law: n records at the fraction ``p`` of the box [0, 1] in each of ``d``
    columns; the error of a column's mean has variance ``(d^2 + d q^2) / (epsilon n)^2``,
    ``q = |2 p - 1|``: Laplace noise of scale d / epsilon on each A and B, the count
    pooled over the columns (a release at sensitivity 1, or an unpooled count, would
    give another variance)."""
    n, epsilon, draws = 1000, 1.0, 8000
    data = np.full((n, d), position)
    errors = np.array([
        two_sided_mean(data, 0.0, 1.0, epsilon=epsilon, random_state=seed)[0, 0] - position
        for seed in range(draws)
    ])  # fmt: skip
    q = abs(2 * position - 1)
    expected = (d**2 + d * q**2) / (epsilon * n) ** 2
    assert errors.var() == pytest.approx(expected, rel=0.1)
    assert abs(errors.mean()) < 4 * np.sqrt(expected / draws) + 1e-6


def test_one_column_is_the_ratio_of_the_noisy_distances():
    """For one column the pooled form is ``l + (u - l) A~ / (A~ + B~)``: the mean of
    records all at the lower bound stays there unless the noisy A is positive."""
    data = np.full((20, 1), -3.0)
    outs = np.array(
        [two_sided_mean(data, -3.0, 5.0, epsilon=1.0, random_state=s)[0, 0] for s in range(200)]
    )
    assert np.all((outs >= -3.0) & (outs <= 5.0))
    assert 0.3 < np.mean(outs == -3.0) < 0.7  # A~ = Laplace noise alone: <= 0 half the time


def test_every_group_is_noised_even_an_empty_one():
    """An empty group's A and B are pure noise: its mean is anywhere in the box, not a
    fixed value that would tell it is empty."""
    outs = np.array([
        two_sided_mean(X, LOWER, UPPER, groups=GROUPS, n_groups=4, epsilon=1.0,
                       random_state=seed)[3]
        for seed in range(100)
    ])  # fmt: skip
    assert np.unique(outs[:, 0]).size > 30  # a quarter at the midpoint (both parts <= 0)
    assert np.all((outs >= LOWER) & (outs <= UPPER))


def test_rows_are_clipped_to_the_bounds_first():
    data = np.array([[-50.0], [50.0], [5.0], [5.0]] * 250)
    with pytest.warns(ClippingWarning, match="500 of 1000"):
        out = two_sided_mean(data, 0.0, 10.0, epsilon=1e9, random_state=0)
    assert out[0, 0] == pytest.approx(5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        two_sided_mean(X, LOWER, UPPER, epsilon=1.0, random_state=0)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="lower < upper"):
        two_sided_mean(X, UPPER, LOWER, epsilon=1.0)
    with pytest.raises(ValueError, match="2-D"):
        two_sided_mean(X[:, 0], 0.0, 10.0, epsilon=1.0)
    with pytest.raises(ValueError, match="groups"):
        two_sided_mean(X, LOWER, UPPER, groups=GROUPS, n_groups=2, epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        two_sided_mean(X, LOWER, UPPER, epsilon=0.0)


def test_a_dask_array_gives_the_numpy_release():
    remote = da.from_array(X, chunks=(100, 2))
    groups = da.from_array(GROUPS, chunks=100)
    np.testing.assert_allclose(
        two_sided_mean(remote, LOWER, UPPER, groups=groups, n_groups=3, epsilon=1.0,
                       random_state=0),
        two_sided_mean(X, LOWER, UPPER, groups=GROUPS, n_groups=3, epsilon=1.0, random_state=0),
        rtol=1e-12,
    )  # fmt: skip
