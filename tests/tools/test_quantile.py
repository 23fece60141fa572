"""skdp.tools.quantile: numpy-like private quantiles."""

import itertools

import numpy as np
import pandas as pd
import pytest

from skdp import PrivacyLedger
from skdp.mechanisms._joint import sequence_score
from skdp.tools import median, percentile, quantile
from skdp.tools._quantile import decimal_grid, snap_to_candidates
from skdp.utils._joint_quantiles import joint_inputs, joint_sensitivity

X = np.random.default_rng(0).normal(10.0, 3.0, size=3000)
LEVELS = np.linspace(0, 1, 12)[1:-1]  # ten evenly spaced levels


def ranks_missed(x, levels, estimates):
    """Values between each estimate and the true quantile, summed over the levels."""
    x = np.sort(x)
    truth = np.quantile(x, levels, method="lower")
    return int(np.abs((x[:, None] > truth).sum(0) - (x[:, None] > estimates).sum(0)).sum())


@pytest.mark.parametrize(
    "options",
    [{}, {"bounds": (-50, 50)}, {"bounds": (-50, 50), "method": "independent"}],
    ids=["unbounded", "joint", "independent"],
)
def test_spends_exactly_epsilon(options):
    with PrivacyLedger() as ledger:
        quantile(X, [0.1, 0.5, 0.9], epsilon=0.7, random_state=0, **options)
    assert ledger.total.epsilon == pytest.approx(0.7, abs=1e-12)


def test_joint_is_one_mechanism_call():
    with PrivacyLedger() as ledger:
        quantile(X, LEVELS, epsilon=1.0, bounds=(-50, 50), random_state=0)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("joint_exponential", 1.0)]


def test_shapes_follow_q():
    assert isinstance(quantile(X, 0.5, epsilon=1.0, random_state=0), float)
    assert quantile(X, [0.2, 0.8], epsilon=1.0, bounds=(0, 20), random_state=0).shape == (2,)
    grid = quantile(X, [[0.2, 0.4], [0.6, 0.8]], epsilon=1.0, random_state=0)
    assert grid.shape == (2, 2)


@pytest.mark.parametrize(
    "options", [{}, {"bounds": (-50, 50)}, {"bounds": (-50, 50), "method": "independent"}]
)
def test_non_decreasing_in_q_whatever_the_order_of_q(options):
    levels = np.array([0.9, 0.1, 0.5, 0.3])
    out = quantile(X, levels, epsilon=0.2, random_state=1, **options)
    order = np.argsort(levels)
    assert np.all(np.diff(out[order]) >= 0)


def test_repeated_levels_are_one_release():
    with PrivacyLedger() as ledger:
        out = quantile(X, [0.5, 0.25, 0.5], epsilon=1.0, bounds=(-50, 50), random_state=0)
    assert out[0] == out[2] and len(ledger.entries) == 1
    with PrivacyLedger() as ledger:
        quantile(X, [0.5, 0.5], epsilon=1.0, random_state=0)
    assert ledger.total.epsilon == pytest.approx(1.0)
    assert {e.epsilon for e in ledger.entries} == {0.5}  # one quantile: two scans of 0.5


@pytest.mark.parametrize("method", ["joint", "independent"])
def test_large_epsilon_recovers_the_quantiles_within_a_grid_step(method):
    bounds = (-50.0, 50.0)
    out = quantile(X, LEVELS, epsilon=1e5, bounds=bounds, method=method, random_state=0)
    step = 0.1  # the "auto" grid of [-50, 50]: 1001 candidates
    assert np.abs(out - np.quantile(X, LEVELS)).max() <= step
    assert np.all(np.isin(out, np.round(np.linspace(*bounds, 1001), 12)))


def test_unbounded_quantile_is_within_a_grid_step_at_large_epsilon():
    out = quantile(X, [0.25, 0.75], epsilon=1e4, random_state=0)
    ratio = out / np.quantile(X, [0.25, 0.75])
    assert np.all((ratio > 2**-0.5) & (ratio < 2**0.5))


def test_joint_beats_independent_on_ten_levels():
    """Gillenwater et al.'s setting: n = 1000, [-100, 100], epsilon = 1, ten levels."""
    rng = np.random.default_rng(3)
    missed = {"joint": [], "independent": []}
    for _ in range(6):
        x = rng.uniform(-5, 5, 1000)
        for method in missed:
            out = quantile(x, LEVELS, epsilon=1.0, bounds=(-100, 100), method=method,
                           random_state=rng)  # fmt: skip
            missed[method].append(ranks_missed(x, LEVELS, out))
    assert np.mean(missed["joint"]) < 0.6 * np.mean(missed["independent"]), missed


def test_error_shrinks_with_n():
    rng = np.random.default_rng(4)
    relative = {}
    for n in (300, 30000):
        x = rng.normal(0, 1, n)
        errors = [
            ranks_missed(x, [0.25, 0.75], quantile(x, [0.25, 0.75], epsilon=0.5,
                                                   bounds=(-10, 10), random_state=rng)) / n
            for _ in range(5)
        ]  # fmt: skip
        relative[n] = np.mean(errors)
    assert relative[30000] < relative[300] / 5, relative


@pytest.mark.parametrize("n", [0, 1])
@pytest.mark.parametrize(
    "options", [{}, {"bounds": (-1, 1)}, {"bounds": (-1, 1), "method": "independent"}]
)
def test_always_finite_even_with_no_or_one_value(n, options):
    out = quantile(np.full(n, 0.3), [0.2, 0.5, 0.7], epsilon=1.0, random_state=0, **options)
    assert np.all(np.isfinite(out))
    if "bounds" in options:
        assert np.all((out >= -1) & (out <= 1))


def test_values_outside_the_bounds_are_clipped_to_them():
    out = quantile(np.full(500, 1e9), 0.3, epsilon=5.0, bounds=(0, 1), random_state=0)
    assert out == 1.0


def test_a_level_can_sit_on_a_value_many_records_share():
    """40% of the values clipped to the upper bound, the 0.9 level inside them."""
    x = np.minimum(np.random.default_rng(5).integers(17, 91, 2000), 60).astype(float)
    for seed in range(5):
        out = quantile(x, [0.5, 0.9], epsilon=1.0, bounds=(0, 60), random_state=seed)
        assert out[1] == 60.0 and abs(out[0] - np.quantile(x, 0.5)) <= 1.5


def test_accepts_lists_and_series_and_leaves_them_alone():
    series = pd.Series(X[:100].copy())
    assert np.isfinite(quantile(series, 0.5, epsilon=1.0, random_state=0))
    assert series.equals(pd.Series(X[:100]))
    assert np.isfinite(quantile([1.0, 2.0, 3.0], 0.5, epsilon=1.0, random_state=0))


def test_seeded_calls_repeat():
    first = quantile(X, LEVELS, epsilon=1.0, bounds=(-50, 50), random_state=7)
    assert np.array_equal(first, quantile(X, LEVELS, epsilon=1.0, bounds=(-50, 50),
                                          random_state=7))  # fmt: skip


@pytest.mark.parametrize(
    ("a", "q", "options", "match"),
    [
        ([1.0, np.nan], 0.5, {}, "NaN or infinite"),
        ([1.0, np.inf], 0.5, {"bounds": (0, 1)}, "NaN or infinite"),
        (np.ones((3, 2)), 0.5, {}, "1-d"),
        (["a", "b"], 0.5, {}, "a must be numeric"),
        ([1.0], 1.0, {}, r"q must be .* in \(0, 1\)"),
        ([1.0], [], {}, "non-empty"),
        ([1.0], 0.5, {"bounds": (1, 1)}, "bounds must be"),
        ([1.0], 0.5, {"bounds": (0, np.inf)}, "bounds must be"),
        ([1.0], 0.5, {"bounds": 3}, "bounds must be"),
        ([1.0], [0.2, 0.4], {"method": "joint"}, "needs public bounds"),
        ([1.0], 0.5, {"method": "exact"}, "method must be"),
        ([1.0], [0.2, 0.4], {"bounds": (0, 1), "n_candidates": 5000}, "n_candidates"),
        ([1.0], 0.5, {"bounds": (0, 1), "n_candidates": 1}, "n_candidates"),
        ([1.0], [0.2, 0.4, 0.6], {"bounds": (0, 1), "n_candidates": 2}, "distinct levels"),
        ([1.0], 0.5, {"epsilon": 0}, "epsilon"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(a, q, options, match):
    arguments = {"epsilon": 1.0} | options
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match=match):
        quantile(a, q, random_state=0, **arguments)
    assert not ledger.entries


def enumerate_sensitivity(rule, n_trials=150, seed=0):
    """The largest score change over random tiny datasets, added values and outputs,
    against the claimed sensitivity (candidates 0..4, values on and between them)."""
    rng = np.random.default_rng(seed)
    candidates, grid = np.arange(5.0), np.arange(0, 4.5, 0.5)
    largest = 0.0
    for _ in range(n_trials):
        V = int(rng.choice([2, 3, 4, 5, 6, 10]))
        m = int(rng.integers(1, min(V, 4)))
        numerators = sorted(rng.choice(np.arange(1, V), m, replace=False).tolist())
        X = rng.choice(grid, int(rng.integers(0, 7)))
        scores, claimed = rule(X, numerators, V, candidates)
        for x in grid:
            changed, _ = rule(np.append(X, x), numerators, V, candidates)
            assert np.abs(changed - scores).max() <= claimed
            largest = max(largest, np.abs(changed - scores).max() / claimed)
    return largest


def tie_aware_rule(X, numerators, V, candidates):
    """skdp's joint score (strictly increasing outputs) and its claimed sensitivity."""
    ranks, upper, targets, total, sensitivity = joint_inputs(X, numerators, V, candidates)
    outputs = itertools.combinations(range(candidates.size), len(numerators))
    scores = [sequence_score((ranks, upper), targets, total, np.array(o)) for o in outputs]
    return np.array(scores), sensitivity


def paper_rule(X, numerators, V, candidates):
    """The paper's ``[o_{j-1}, o_j)`` counts (non-decreasing outputs), ``2 (1 - min w)``."""
    gaps = np.diff([0, *numerators, V])
    ranks = V * np.searchsorted(np.sort(X), candidates, side="left")
    outputs = itertools.combinations_with_replacement(range(candidates.size), len(numerators))
    scores = [
        sequence_score((ranks, ranks), X.size * gaps, X.size * V, np.array(o)) for o in outputs
    ]
    return np.array(scores), 2 * (V - gaps.min())


@pytest.mark.parametrize("rule", [tie_aware_rule, paper_rule])
def test_the_joint_sensitivity_holds_and_is_reached(rule):
    assert enumerate_sensitivity(rule) == 1.0


def test_joint_sensitivity_of_evenly_spaced_levels():
    # units of 1 / V: the paper's 2 (1 - 1/3) = 4/3 vs 3 - 4/3 = 5/3 for two levels
    assert joint_sensitivity([1, 1, 1], 3) == 5
    assert joint_sensitivity([1] * 11, 11) == 33 - 4  # 2.64 against the paper's 1.82
    assert joint_sensitivity([1, 1], 2) == 2  # one median: 2 max(q, 1 - q) = 1


@pytest.mark.parametrize(
    ("bounds", "n_candidates"),
    [((0, 128), 641), ((17, 91), 741), ((4, 8), 801), ((-100, 100), 1001), ((0, 1.5e6), 751),
     ((0, 3.14159), 1025), ((0.3333, 1.7777), 1025)],
)  # fmt: skip
def test_the_auto_grid_is_round_when_the_bounds_allow(bounds, n_candidates):
    assert decimal_grid(bounds) == n_candidates


def test_values_equal_to_a_candidate_up_to_rounding_are_snapped_to_it():
    candidates = np.linspace(17, 91, 741)
    values = np.array([37.0, 37.05, 90.99999999999, 16.0, 50.3])
    snapped = snap_to_candidates(values, (17.0, 91.0), 741)
    assert snapped[0] == candidates[200] and snapped[2] == candidates[-1]
    np.testing.assert_array_equal(snapped[[1, 3]], values[[1, 3]])  # not near a candidate
    assert snapped[4] == candidates[333]


def test_median_and_quartiles_of_integer_data_land_on_the_shared_values():
    """Integer ages, ~70 records per value: the exact median and quartiles are values
    many records share. The old default (a 1025-point grid that missed them, and a
    score counting ties on neither side) released 53.75 or 53.8 for a median of 54 at
    every epsilon; now they are released exactly at moderate epsilon."""
    ages = np.random.default_rng(0).integers(17, 91, size=5000)
    medians = [median(ages, epsilon=1.0, bounds=(0, 128), random_state=s) for s in range(10)]
    assert medians.count(float(np.median(ages))) >= 9, medians
    quartiles = percentile(ages, [25, 75], epsilon=1.0, bounds=(0, 128), random_state=0)
    np.testing.assert_array_equal(quartiles, np.percentile(ages, [25, 75]))
