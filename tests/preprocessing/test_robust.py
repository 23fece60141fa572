"""skdp.preprocessing.RobustScaler: private median and interquartile range."""

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

from skdp import privacy_spent
from skdp.accounting import PrivacyLedger
from skdp.preprocessing import RobustScaler

RNG = np.random.default_rng(0)
# heavy tails and a far outlier: the range is useless, the quartiles are not
X = np.column_stack([RNG.standard_t(2, 4000) * 3 + 10, RNG.exponential(5.0, 4000)])
X[0] = [1e6, -1e6]
EXACT = np.percentile(X, [25, 50, 75], axis=0)


def test_private_fit_spends_epsilon_and_finds_median_and_iqr():
    with PrivacyLedger() as ledger:
        scaler = RobustScaler(epsilon=2.0, random_state=0).fit(X)
    assert ledger.total.epsilon == pytest.approx(2.0)
    assert scaler.privacy_spent_ == ledger.total
    assert sum(scaler.epsilon_split_.values()) == pytest.approx(2.0)
    assert scaler.epsilon_split_["bounds"] > 0 and scaler.bounds_tier_ is not None
    iqr = EXACT[2] - EXACT[0]
    assert np.all(np.abs(scaler.center_ - EXACT[1]) < 0.1 * iqr), scaler.center_
    assert np.all(np.abs(scaler.scale_ - iqr) < 0.15 * iqr), scaler.scale_
    assert scaler.quantiles_.shape == (3, 2) and np.all(np.diff(scaler.quantiles_, axis=0) > 0)
    assert scaler.n_samples_seen_ >= 1 and isinstance(scaler.n_samples_seen_, int)
    Xt = scaler.transform(X[1:])
    assert np.all(np.abs(np.median(Xt, axis=0)) < 0.15)
    np.testing.assert_allclose(scaler.inverse_transform(Xt), X[1:])


def test_declared_bounds_spend_everything_on_the_quantiles():
    with PrivacyLedger() as ledger:
        scaler = RobustScaler(epsilon=1.0, bounds=([-50, 0], [50, 50]), random_state=0).fit(X)
    assert ledger.total.epsilon == pytest.approx(1.0)
    assert scaler.epsilon_split_ == {"n_samples": 0.0, "bounds": 0.0, "quantiles": 1.0}
    assert scaler.n_samples_seen_ is None and scaler.bounds_tier_ is None
    assert np.all(np.abs(scaler.center_ - EXACT[1]) < [0.5, 0.5]), scaler.center_


def test_with_centering_or_scaling_off_releases_less():
    only_median = RobustScaler(with_scaling=False, bounds=(-50, 50), random_state=0).fit(X)
    assert only_median.scale_ is None and only_median.quantiles_.shape == (1, 2)
    np.testing.assert_allclose(only_median.transform(X), X - only_median.center_)
    only_iqr = RobustScaler(with_centering=False, bounds=(-50, 50), random_state=0).fit(X)
    assert only_iqr.center_ is None and only_iqr.quantiles_.shape == (2, 2)
    np.testing.assert_allclose(only_iqr.transform(X), X / only_iqr.scale_)
    with PrivacyLedger() as ledger:
        nothing = RobustScaler(with_centering=False, with_scaling=False).fit(X)
    assert not ledger.entries and nothing.privacy_spent_.epsilon == 0.0
    np.testing.assert_array_equal(nothing.transform(X), X)
    assert privacy_spent(make_pipeline(RobustScaler(with_centering=False, with_scaling=False)))\
        .epsilon == 0.0  # fmt: skip


def test_quantile_range_and_unit_variance_as_in_scikit_learn():
    normal = RNG.normal(0.0, 4.0, size=(20000, 1))
    scaler = RobustScaler(
        epsilon=5.0, bounds=(-20, 20), quantile_range=(10.0, 90.0), unit_variance=True,
        random_state=0,
    ).fit(normal)  # fmt: skip
    assert scaler.scale_[0] == pytest.approx(4.0, rel=0.05)  # the normal's sigma
    assert scaler.transform(normal).std() == pytest.approx(1.0, rel=0.05)


def test_the_exact_count_is_never_released():
    seen = {RobustScaler(random_state=seed).fit(X).n_samples_seen_ for seed in range(5)}
    assert len(seen) > 1


def test_fit_never_writes_into_x():
    before = X.copy()
    RobustScaler(random_state=0).fit_transform(X)
    np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"quantile_range": (75.0, 25.0)}, "quantile_range"),
        ({"quantile_range": (0.0, 50.0)}, "quantile_range"),
        ({"quantile_range": (25.0, 25.01)}, "rounds to one level"),
        ({"bounds": (1, 0)}, "lower must be < upper"),
    ],
)
def test_bad_parameters_name_the_problem(params, message):
    with pytest.raises(ValueError, match=message):
        RobustScaler(**params).fit(X)


def test_one_row_and_a_constant_column_fit():
    with pytest.warns(UserWarning, match="too little"):
        one = RobustScaler(random_state=0).fit(X[:1])
    assert np.all(one.scale_ > 0)
    constant = np.column_stack([X[:, 1], np.full(len(X), 5.0)])
    scaler = RobustScaler(random_state=0).fit(constant)
    assert np.all(scaler.scale_ > 0) and np.all(np.isfinite(scaler.transform(constant)))


def test_the_first_try_on_small_data_does_not_stray():
    # Wine at the defaults: on 513 candidates of the one private box the three
    # quartiles were drawn above all the data for some features (transformed values
    # down to -17); the grid is now cut to what the noisy count affords
    import warnings

    from sklearn.datasets import load_wine

    wine = load_wine().data
    for seed in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scaler = RobustScaler(random_state=seed).fit(wine)
        Z = scaler.transform(wine)
        assert scaler.n_candidates_ < 513
        assert np.all(scaler.quantiles_[0] <= np.median(wine, axis=0))
        assert np.all(scaler.quantiles_[2] >= np.median(wine, axis=0))
        assert -1 < Z.min() and Z.max() < 2, (seed, Z.min(), Z.max())
