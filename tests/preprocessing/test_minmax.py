"""skdp.preprocessing.MinMaxScaler: private quantiles, declared bounds at no cost."""

import itertools
import warnings
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from skdp import privacy_spent
from skdp.accounting import PrivacyLedger
from skdp.preprocessing import MinMaxScaler

RNG = np.random.default_rng(0)


@contextmanager
def warnings_ignored():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


X = RNG.uniform([0.0, 10.0], [1.0, 50.0], size=(4000, 2))


def test_private_fit_spends_epsilon_and_finds_the_quantiles():
    with PrivacyLedger() as ledger:
        scaler = MinMaxScaler(epsilon=2.0, random_state=0).fit(X)
    assert ledger.total.epsilon == pytest.approx(2.0)
    assert scaler.privacy_spent_ == ledger.total
    assert sum(scaler.epsilon_split_.values()) == pytest.approx(2.0)
    assert set(scaler.epsilon_split_) == {"n_samples", "bounds", "quantiles"}
    exact = np.quantile(X, [0.01, 0.99], axis=0)
    tolerance = 0.02 * np.ptp(X, axis=0)
    assert np.all(np.abs(scaler.data_min_ - exact[0]) < tolerance), scaler.data_min_
    assert np.all(np.abs(scaler.data_max_ - exact[1]) < tolerance), scaler.data_max_
    assert np.all(scaler.data_range_ > 0)
    assert scaler.n_samples_seen_ >= 1 and isinstance(scaler.n_samples_seen_, int)


def test_the_exact_count_is_never_released():
    seen = {MinMaxScaler(random_state=seed).fit(X).n_samples_seen_ for seed in range(5)}
    assert len(seen) > 1  # a noisy count: the seeds disagree


def test_declared_bounds_are_the_answer_at_no_cost():
    with PrivacyLedger() as ledger:
        scaler = MinMaxScaler(epsilon=3.0, bounds=([0, 0], [2, 100])).fit(X)
    assert not ledger.entries
    assert scaler.privacy_spent_.epsilon == 0.0
    np.testing.assert_array_equal(scaler.data_min_, [0, 0])
    np.testing.assert_array_equal(scaler.data_max_, [2, 100])
    assert set(scaler.epsilon_split_.values()) == {0.0}
    assert scaler.n_samples_seen_ is None
    # a Pipeline and a search count 0 for it, fitted or not
    assert privacy_spent(make_pipeline(scaler)).epsilon == 0.0
    assert MinMaxScaler(bounds=(0, 1))._privacy_budget().epsilon == 0.0
    assert MinMaxScaler(epsilon=0.7)._privacy_budget().epsilon == 0.7


def test_feature_range_clip_and_inverse_transform():
    scaler = MinMaxScaler((-1, 1), bounds=([0.1, 20], [0.9, 40])).fit(X)
    Xt = scaler.transform(X)
    np.testing.assert_allclose(scaler.transform([[0.1, 20], [0.9, 40]]), [[-1, -1], [1, 1]])
    assert Xt.min() < -1 and Xt.max() > 1  # records beyond the range fall outside it
    np.testing.assert_allclose(scaler.inverse_transform(Xt), X)
    clipped = MinMaxScaler((-1, 1), bounds=([0.1, 20], [0.9, 40]), clip=True).fit(X)
    assert clipped.transform(X).min() == -1 and clipped.transform(X).max() == 1
    np.testing.assert_allclose(scaler.scale_, 2 / np.array([0.8, 20]))
    np.testing.assert_allclose(scaler.min_, -1 - np.array([0.1, 20]) * scaler.scale_)


def test_fit_and_transform_never_write_into_x():
    X_int = (X * 10).astype(np.int64)
    before, before_int = X.copy(), X_int.copy()
    scaler = MinMaxScaler(random_state=0)
    scaler.fit_transform(X)
    scaler.fit(X_int).transform(X_int)
    np.testing.assert_array_equal(X, before)
    np.testing.assert_array_equal(X_int, before_int)


def test_pandas_output_keeps_the_column_names():
    frame = pd.DataFrame(X, columns=["a", "b"])
    scaler = MinMaxScaler(bounds={"a": (0, 1), "b": (10, 50)}).set_output(transform="pandas")
    out = scaler.fit_transform(frame)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["a", "b"]
    assert list(scaler.get_feature_names_out()) == ["a", "b"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"feature_range": (1, 0)}, "feature range"),
        ({"quantile_range": (0.9, 0.1)}, "quantile_range"),
        ({"quantile_range": (0.0, 0.5)}, "quantile_range"),
        ({"bounds": (1, 0)}, "lower must be < upper"),
    ],
)
def test_bad_parameters_name_the_problem(params, message):
    with pytest.raises(ValueError, match=message):
        MinMaxScaler(**params).fit(X)


def test_one_row_and_a_constant_column_fit():
    with pytest.warns(UserWarning, match="too little"):
        one = MinMaxScaler(random_state=0).fit(X[:1])
    assert np.all(one.data_min_ < one.data_max_)
    constant = np.column_stack([X[:, 0], np.full(len(X), 5.0)])
    scaler = MinMaxScaler(random_state=0).fit(constant)
    assert np.all(np.isfinite(scaler.transform(constant)))


def test_quantiles_inside_declared_bounds_spend_epsilon():
    with PrivacyLedger() as ledger:
        scaler = MinMaxScaler(
            epsilon=2.0, bounds=([-10, -100], [10, 100]), quantile_range=(0.05, 0.95),
            random_state=0,
        ).fit(X)  # fmt: skip
    assert ledger.total.epsilon == pytest.approx(2.0) == scaler.privacy_spent_.epsilon
    assert scaler.epsilon_split_ == {"n_samples": 0.0, "bounds": 0.0, "quantiles": 2.0}
    exact = np.quantile(X, [0.05, 0.95], axis=0)
    assert np.all(np.abs(scaler.data_min_ - exact[0]) < [0.2, 2]), scaler.data_min_
    assert np.all(np.abs(scaler.data_max_ - exact[1]) < [0.2, 2]), scaler.data_max_
    assert scaler._privacy_budget().epsilon == 2.0


@pytest.mark.parametrize("levels", [(0.01, 0.99), (0.25, 0.5, 0.75)])
def test_the_batched_draws_are_those_of_one_draw_per_feature(levels):
    # feature_quantiles draws the d features in one JointExp batch: the same
    # quantiles and ledger records as joint_draw called feature by feature
    from skdp.preprocessing._base import feature_quantiles
    from skdp.utils._joint_quantiles import grid_ranks, joint_draw

    data = np.random.default_rng(3).normal(size=(6000, 4)) * [1.0, 5.0, 0.1, 30.0]
    lower, upper = np.array([-3.0, -9.0, -0.5, -50.0]), np.array([3.0, 20.0, 0.2, 80.0])
    fractions = [Fraction(level).limit_denominator(100) for level in levels]
    with PrivacyLedger() as batched:
        found = feature_quantiles(
            data, fractions, lower, upper, n_candidates=257, epsilon=0.8, ledger=batched,
            budget=0.8, rng=np.random.default_rng(9),
        )  # fmt: skip
    below, at_or_below = grid_ranks(data, lower, upper, 257)
    rng, expected = np.random.default_rng(9), []
    with PrivacyLedger() as looped:
        for j in range(4):
            candidates = np.linspace(lower[j], upper[j], 257)
            expected.append(joint_draw(below[j], at_or_below[j], 6000, fractions,
                                       candidates, 0.2, rng))  # fmt: skip
    assert np.array_equal(found, np.array(expected).T)
    assert [e.epsilon for e in batched.entries] == pytest.approx(
        [e.epsilon for e in looped.entries]
    )
    assert len(batched.entries) == 4 and batched.total.epsilon == pytest.approx(0.8)


def test_the_first_try_on_small_data_stays_in_a_sensible_range():
    # Wine (178 x 13) at the defaults: one private box for every feature, ~0.05 of
    # epsilon per feature; on 257 candidates JointExp strayed (alcohol's data_min_ at
    # 1000 for values in [11, 15], training values mapped to -247)
    from sklearn.datasets import load_wine

    wine = load_wine().data
    for seed in range(5):
        with pytest.warns(UserWarning, match="one private range"):
            scaler = MinMaxScaler(random_state=seed).fit(wine)
        Z = scaler.transform(wine)
        assert scaler.n_candidates_ < 257
        assert -1 < Z.min() and Z.max() < 2.5, (seed, Z.min(), Z.max())
        assert np.mean((Z < -0.5) | (Z > 1.5)) < 0.01


def test_the_grid_is_a_function_of_public_values_and_the_draw_is_jointexp_on_it():
    from skdp.preprocessing._base import affordable_candidates, feature_quantiles
    from skdp.preprocessing._minmax import _quantile_levels
    from skdp.utils._bounds import estimate_public_inputs

    data = np.random.default_rng(5).normal(size=(300, 6)) * [1, 2, 3, 50, 0.1, 7]
    levels = _quantile_levels((0.01, 0.99))
    for seed in range(4):
        with warnings_ignored():
            scaler = MinMaxScaler(random_state=seed).fit(data)
            rng = np.random.default_rng(seed)
            found = estimate_public_inputs(1.0, n_samples=300, columns=data, random_state=rng)
        k = affordable_candidates(found.n_samples, found.remaining / 6, levels, 257, 6)
        assert scaler.n_candidates_ == k and scaler.n_samples_seen_ == found.n_samples
        with PrivacyLedger() as ledger:
            expected = feature_quantiles(
                data, levels, *found.bounds, n_candidates=k, epsilon=found.remaining,
                ledger=ledger, budget=found.remaining, rng=rng,
            )  # fmt: skip
        np.testing.assert_array_equal(scaler.data_min_, expected[0])
        np.testing.assert_array_equal(scaler.data_max_, expected[1])
        grid = np.linspace(scaler.bounds_[0], scaler.bounds_[1], k)
        assert np.all(np.isclose(grid, scaler.data_min_).any(axis=0))
        assert scaler.privacy_spent_.epsilon == pytest.approx(1.0)


def test_affordable_candidates_grow_with_the_noisy_count_up_to_the_cap():
    from skdp.preprocessing._base import affordable_candidates
    from skdp.preprocessing._minmax import _quantile_levels

    levels = _quantile_levels((0.01, 0.99))
    sizes = [affordable_candidates(n, 0.05, levels, 257, 10) for n in range(1, 3000, 7)]
    assert sizes[0] == 2 and sizes[-1] == 257 and any(2 < k < 257 for k in sizes)
    assert all(a <= b for a, b in itertools.pairwise(sizes))
    # three levels never get fewer than three candidates
    quartiles = [Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)]
    assert affordable_candidates(1, 0.01, quartiles, 513) == 3
