"""GaussianNB at small budgets: one release of the class counts, pooled variances and
uniform priors (skdp.naive_bayes._budget, skdp.naive_bayes._small_budget)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import train_test_split

from skdp import PrivacyLedger
from skdp.naive_bayes import GaussianNB
from skdp.naive_bayes._budget import SQUARES_FLOOR_LIMIT, squares_floor
from skdp.naive_bayes._small_budget import means_are_noise
from skdp.utils._centred_sums import CentredSums

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
PUBLIC = {"bounds": (0.0, 8.0), "classes": [0, 1, 2]}


def test_bounds_none_releases_the_class_counts_once():
    """The class counts come first and their total sizes the private bounds: no
    separate record count, and centred_sums reuses them (one geometric release)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # clipping to the private 98% quantiles
        with PrivacyLedger() as ledger:
            model = GaussianNB(epsilon=2.0, classes=[0, 1, 2], random_state=0)
            model.fit(X_IRIS, Y_IRIS)
    counts = [entry for entry in ledger.entries if entry.mechanism == "geometric"]
    assert len(counts) == 1 and counts[0].epsilon == pytest.approx(0.2)
    assert model.epsilon_split_["n_samples"] == 0.0
    assert model.epsilon_split_["counts"] == pytest.approx(0.2)


@pytest.mark.parametrize("seed", range(5))
def test_a_budget_too_small_for_the_data_gets_uniform_priors_and_keeps_its_means(seed):
    model = GaussianNB(epsilon=0.02, random_state=seed, **PUBLIC).fit(X_IRIS, Y_IRIS)
    assert model.fallback_
    np.testing.assert_array_equal(model.class_prior_, np.full(3, 1 / 3))
    # the released class means, not one pooled mean; the variances pooled
    assert not np.all(model.theta_ == model.theta_[0]) and np.all(model.var_ == model.var_[0])
    assert np.all((model.theta_ >= 0.0) & (model.theta_ <= 8.0))
    # declared priors are kept
    declared = GaussianNB(epsilon=0.02, random_state=seed, priors=[0.5, 0.3, 0.2], **PUBLIC)
    np.testing.assert_array_equal(declared.fit(X_IRIS, Y_IRIS).class_prior_, [0.5, 0.3, 0.2])


def test_priors_are_the_noisy_counts_when_the_means_carry_signal():
    model = GaussianNB(epsilon=5.0, random_state=0, **PUBLIC).fit(X_IRIS, Y_IRIS)
    np.testing.assert_allclose(model.class_prior_, model.class_count_ / model.class_count_.sum())


def test_small_budget_accuracy_beats_the_noisy_majority_in_expectation():
    """Iris (100 train / 50 test) at epsilon 0.2, where the rule fires on most fits:
    the kept means carry signal, 100 seeds average well above one class in three
    (0.43; predicting the noisy majority class gave 0.33)."""
    X_train, X_test, y_train, y_test = train_test_split(
        X_IRIS, Y_IRIS, test_size=1 / 3, stratify=Y_IRIS, random_state=0
    )
    scores, fired = [], []
    for seed in range(100):
        model = GaussianNB(epsilon=0.2, random_state=seed, **PUBLIC).fit(X_train, y_train)
        scores.append(model.score(X_test, y_test))
        fired.append(model.fallback_)
    assert np.mean(fired) > 0.5
    assert np.mean(scores) > 0.38


def test_no_fallback_when_the_means_carry_signal():
    model = GaussianNB(epsilon=5.0, random_state=0, **PUBLIC).fit(X_IRIS, Y_IRIS)
    assert not model.fallback_
    assert len(set(model.predict(X_IRIS))) == 3 and model.score(X_IRIS, Y_IRIS) > 0.85


def test_the_rule_lowers_the_noisy_total_by_its_noise():
    """13 features, class counts released at 0.02 (noise scale 50), one of them 428 for
    41 rows: the average of the released counts, 161.7, would give a mean noise of
    sqrt(2) 13 / (0.1 161.7) = 1.14 half-ranges and pass; lowered by three noise
    scales of the total (3 sqrt(3) / 0.02) it is 75 (2.45 half-ranges) and the rule
    fires. With a precise count (epsilon 10) the same release does not."""
    d, n = 13, np.array([428.0, 22.0, 35.0])
    stats = CentredSums(
        count=n.astype(np.int64), n=n, sums=np.zeros((3, d)), squares=np.ones((3, d)),
        mean=np.arange(3.0)[:, None] * np.ones(d), var=np.ones((3, d)),
        centre=np.zeros(d), half=np.ones(d),
    )  # fmt: skip
    assert np.sqrt(2) * d / (0.1 * n.mean()) < 1.5
    assert means_are_noise(stats, epsilon_sums=0.1, epsilon_counts=0.02)
    assert not means_are_noise(stats, epsilon_sums=0.1, epsilon_counts=10.0)


def test_pooled_variances_are_the_within_class_variance():
    model = GaussianNB(epsilon=1e6, random_state=0, **PUBLIC).fit(X_IRIS, Y_IRIS)
    sizes = np.bincount(Y_IRIS)
    within = sum(sizes[k] * X_IRIS[Y_IRIS == k].var(axis=0) for k in range(3)) / sizes.sum()
    np.testing.assert_allclose(model.var_, np.tile(within, (3, 1)), rtol=1e-3)


def test_per_class_variances_on_request():
    model = GaussianNB(epsilon=1e6, variances="per_class", random_state=0, **PUBLIC)
    model.fit(X_IRIS, Y_IRIS)
    exact = np.array([X_IRIS[Y_IRIS == k].var(axis=0) for k in range(3)])
    np.testing.assert_allclose(model.var_, exact, rtol=1e-3)
    with pytest.raises(ValueError, match="variances"):
        GaussianNB(variances="tied", **PUBLIC).fit(X_IRIS, Y_IRIS)


def test_squares_that_would_be_noise_are_not_released_and_the_sums_get_their_share():
    """Iris at epsilon 0.5: the pooled variance's noise floor sqrt(3) 4 / (2 0.2 150)
    = 0.12 h^2 is above the limit: no squares, 0.8 epsilon on the sums (their noise
    halves) and the uniform box's variance h^2 / 3 for every class and feature."""
    with PrivacyLedger() as ledger:
        model = GaussianNB(epsilon=0.5, random_state=0, **PUBLIC).fit(X_IRIS, Y_IRIS)
    assert squares_floor(model.class_count_, 4, 0.2) >= SQUARES_FLOOR_LIMIT
    assert model.epsilon_split_["squares"] == 0.0
    assert model.epsilon_split_["sums"] == pytest.approx(0.4)
    assert [entry.mechanism for entry in ledger.entries] == ["geometric", "laplace"]
    assert model.privacy_spent_.epsilon == 0.5
    np.testing.assert_array_equal(model.var_, np.full((3, 4), 16.0 / 3))


def test_squares_are_released_when_their_noise_floor_is_small():
    model = GaussianNB(epsilon=7.0, random_state=0, **PUBLIC).fit(X_IRIS, Y_IRIS)
    assert model.epsilon_split_["squares"] == pytest.approx(2.8)
    assert len(np.unique(model.var_)) == 4  # one pooled variance per feature


def test_the_sums_share_of_the_squares_lifts_small_budget_accuracy():
    """Wine (13 features, 124 training rows) at epsilon 2 with declared bounds: the
    squares' noise floor sqrt(3) 13 / (2 0.8 124) = 0.11 h^2 is above every feature's
    within-class variance; their share on the sums takes the mean test accuracy over
    10 seeds from 0.70 (squares released) to 0.84."""
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    public = {"bounds": (X.min(axis=0), X.max(axis=0)), "classes": [0, 1, 2]}
    scores = [
        GaussianNB(epsilon=2.0, random_state=seed, **public)
        .fit(X_train, y_train)
        .score(X_test, y_test)
        for seed in range(10)
    ]
    assert np.mean(scores) > 0.78, scores
