"""skdp.preprocessing.StandardScaler: private mean and variance, one noisy count."""

import numpy as np
import pandas as pd
import pytest

from skdp.accounting import PrivacyLedger
from skdp.exceptions import ClippingWarning
from skdp.preprocessing import StandardScaler

X = np.random.default_rng(0).normal([10.0, -3.0], [2.0, 0.5], size=(5000, 2))
BOUNDS = ([0.0, -6.0], [20.0, 0.0])


def test_declared_bounds_split_one_two_two_and_recover_the_moments():
    with PrivacyLedger() as ledger:
        scaler = StandardScaler(epsilon=1.0, bounds=BOUNDS, random_state=0).fit(X)
    assert scaler.privacy_spent_ == ledger.total
    assert ledger.total.epsilon == pytest.approx(1.0)
    split = scaler.epsilon_split_
    assert [split[k] for k in ("count", "sums", "squares")] == pytest.approx([0.2, 0.4, 0.4])
    assert split["n_samples"] == split["bounds"] == 0.0
    # one count, one sums and one squares release: three mechanism calls in all
    assert len(ledger.entries) == 3
    np.testing.assert_allclose(scaler.mean_, X.mean(axis=0), atol=0.05)
    np.testing.assert_allclose(scaler.scale_, X.std(axis=0), rtol=0.05)
    np.testing.assert_allclose(scaler.var_, scaler.scale_**2)


def test_undeclared_bounds_are_estimated_with_a_recorded_share():
    with PrivacyLedger() as ledger:
        scaler = StandardScaler(epsilon=2.0, random_state=0).fit(X)
    split = scaler.epsilon_split_
    assert split["n_samples"] > 0 and split["bounds"] > 0
    assert sum(split.values()) == pytest.approx(2.0)
    assert ledger.total.epsilon == pytest.approx(2.0)
    assert scaler.bounds_tier_ == 1
    np.testing.assert_allclose(scaler.mean_, X.mean(axis=0), atol=0.1)
    np.testing.assert_allclose(scaler.scale_, X.std(axis=0), rtol=0.1)
    Xt = scaler.transform(X)
    np.testing.assert_allclose(Xt.mean(axis=0), 0, atol=0.1)
    np.testing.assert_allclose(Xt.std(axis=0), 1, atol=0.1)


def test_the_count_is_noisy():
    seen = {StandardScaler(bounds=BOUNDS, random_state=s).fit(X).n_samples_seen_ for s in range(5)}
    assert len(seen) > 1 and min(seen) >= 1


def test_with_mean_and_with_std_choose_what_is_released():
    centred = StandardScaler(bounds=BOUNDS, with_std=False, random_state=0).fit(X)
    assert centred.var_ is None and centred.scale_ is None
    assert centred.epsilon_split_["squares"] == 0.0
    assert centred.epsilon_split_["count"] == pytest.approx(1 / 3)
    np.testing.assert_allclose(centred.transform(X), X - centred.mean_)
    scaled = StandardScaler(bounds=BOUNDS, with_mean=False, random_state=0).fit(X)
    assert scaled.mean_ is not None  # the variance needs it
    np.testing.assert_allclose(scaled.transform(X), X / scaled.scale_)
    with PrivacyLedger() as ledger:
        nothing = StandardScaler(with_mean=False, with_std=False).fit(X)
    assert not ledger.entries and nothing.privacy_spent_.epsilon == 0.0
    assert nothing._privacy_budget().epsilon == 0.0
    np.testing.assert_array_equal(nothing.transform(X), X)


def test_inverse_transform_and_values_outside_the_box():
    scaler = StandardScaler(bounds=([9.0, -3.5], [11.0, -2.5]), random_state=0)
    with pytest.warns(ClippingWarning):
        scaler.fit(X)
    assert np.all(np.abs(scaler.mean_ - [10, -3]) <= [1, 0.5])  # inside the box
    Xt = scaler.transform(X)  # transform never clips
    np.testing.assert_allclose(scaler.inverse_transform(Xt), X)


def test_fit_never_writes_into_x_and_copy_false_scales_in_place():
    before = X.copy()
    scaler = StandardScaler(bounds=BOUNDS, random_state=0)
    out = scaler.fit_transform(X)
    np.testing.assert_array_equal(X, before)
    inplace = X.copy()
    result = (
        StandardScaler(bounds=BOUNDS, copy=False, random_state=0).fit(inplace).transform(inplace)
    )
    assert result is inplace
    np.testing.assert_allclose(inplace, out)


def test_pandas_output():
    frame = pd.DataFrame(X, columns=["height", "offset"])
    scaler = StandardScaler(
        bounds={"height": (0, 20), "offset": (-6, 0)}, random_state=0
    ).set_output(transform="pandas")
    out = scaler.fit_transform(frame)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["height", "offset"]


def test_noise_dominated_fits_shrink_to_the_box_prior_not_to_its_edge():
    # n epsilon / d = 2: the squares' noise floor is near h^2 and used to pin var_
    # there (scale_ near 4 for a unit variance in a box of half-width 5), the mean
    # anywhere in the box; the shrunk moments stay near the uniform prior
    X = np.random.default_rng(0).normal(size=(200, 10))
    errors = []
    for seed in range(5):
        scaler = StandardScaler(epsilon=0.1, bounds=(-5, 5), random_state=seed).fit(X)
        errors.append((np.abs(scaler.scale_ - 1).mean(), np.abs(scaler.mean_).mean()))
    scale_error, mean_error = np.mean(errors, axis=0)
    assert scale_error < 2.3  # 2.0 (the prior's sqrt(25 / 3) = 2.9 or below); 2.8 before
    assert mean_error < 1.0  # 0.4; 3.3 before


def test_shrinkage_vanishes_when_the_noise_is_small():
    X = np.random.default_rng(1).normal([3.0, -2.0], [1.0, 0.2], size=(20000, 2))
    scaler = StandardScaler(epsilon=2.0, bounds=([-5, -4], [11, 0]), random_state=0).fit(X)
    np.testing.assert_allclose(scaler.mean_, [3.0, -2.0], atol=0.01)
    np.testing.assert_allclose(scaler.scale_, [1.0, 0.2], rtol=0.02)
