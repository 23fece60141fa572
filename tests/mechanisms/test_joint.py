"""The joint exponential mechanism (skdp.mechanisms._joint), JointExp's sampler."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chi2

from skdp import PrivacyLedger
from skdp.mechanisms._joint import _bernoulli_scaled_exp, joint_exponential, sequence_score

RANKS = np.array([0, 3, 3, 7, 9, 12])
TARGETS = np.array([4, 5, 3])
TOTAL = 12


def exact_law(ranks, upper, targets, total, strict, sensitivity, epsilon):
    """Every admissible sequence and its probability, by enumeration."""
    m, K = len(targets) - 1, len(ranks)
    pick = itertools.combinations if strict else itertools.combinations_with_replacement
    outputs = list(pick(range(K), m))
    upper = ranks if upper is None else upper
    scores = np.array(
        [sequence_score((ranks, upper), targets, total, np.array(o)) for o in outputs]
    )
    weights = np.exp(-epsilon * (scores - scores.min()) / (2 * sensitivity))
    return outputs, weights / weights.sum()


@pytest.mark.parametrize(
    ("ranks", "upper", "targets", "total", "strict", "epsilon"),
    [
        (RANKS, None, TARGETS, TOTAL, False, 2.0),  # two indices, the paper's score
        (RANKS, None, [6, 6], TOTAL, False, 3.0),  # one index: the exponential mechanism
        (np.array([0, 0, 1, 1, 2, 4]), None, [1, 1, 1, 1], 4, False, 4.0),  # three, ties
        (RANKS, RANKS + np.array([0, 2, 0, 1, 0, 0]), TARGETS, TOTAL, True, 2.0),  # intervals
        (np.array([0, 1, 1, 3]), np.array([1, 1, 3, 4]), [1, 1, 1, 1], 4, True, 3.0),
    ],
)
def test_draws_follow_the_exponential_mechanism_exactly(
    ranks, upper, targets, total, strict, epsilon
):
    outputs, probability = exact_law(
        ranks, upper, np.asarray(targets), total, strict, 2.0, epsilon
    )
    rng = np.random.default_rng(0)
    n = 2500
    counts = dict.fromkeys(outputs, 0)
    for _ in range(n):
        draw = joint_exponential(
            ranks, targets, total=total, sensitivity=2.0, epsilon=epsilon,
            upper_ranks=upper, strict=strict, random_state=rng,
        )  # fmt: skip
        counts[tuple(draw)] += 1
    observed = np.array([counts[o] for o in outputs])
    expected = probability * n
    # pool the rare outputs so the chi-square approximation holds
    rare = expected < 5
    observed = np.r_[observed[~rare], observed[rare].sum()]
    expected = np.r_[expected[~rare], expected[rare].sum()]
    keep = expected > 0
    statistic = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert chi2.sf(statistic, keep.sum() - 1) > 1e-3, (observed, expected.round(1))


@pytest.mark.parametrize("strict", [False, True])
def test_output_is_an_increasing_index_sequence(strict):
    ranks = np.arange(0, 200, 2)
    for seed in range(10):
        out = joint_exponential(
            ranks, [10, 50, 100, 38], total=198, sensitivity=4, epsilon=0.5, strict=strict,
            random_state=seed,
        )  # fmt: skip
        assert out.dtype == np.int64 and out.shape == (3,)
        assert np.all(np.diff(out) >= (1 if strict else 0))
        assert 0 <= out.min() and out.max() < ranks.size


def test_strict_order_needs_enough_candidates():
    out = joint_exponential([0, 1, 2], [1, 1, 1], total=3, sensitivity=2, epsilon=1.0,
                            strict=True, random_state=0)  # fmt: skip
    assert out[0] < out[1]
    with pytest.raises(ValueError, match="strictly increasing"):
        joint_exponential([0, 1], [1, 1, 1, 1], total=3, sensitivity=2, epsilon=1.0,
                          strict=True)  # fmt: skip


def test_large_epsilon_finds_the_best_sequence():
    ranks = np.arange(101)  # candidate i has i values below it
    out = joint_exponential(
        ranks, [25, 50, 26], total=101, sensitivity=2, epsilon=1e4, random_state=0
    )
    assert out.tolist() == [25, 75]


def test_charges_epsilon_once():
    with PrivacyLedger() as ledger:
        joint_exponential(RANKS, TARGETS, total=TOTAL, sensitivity=2, epsilon=0.3, random_state=0)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("joint_exponential", 0.3)]


def test_bad_arguments_are_refused_before_any_charge():
    cases = [
        ({"ranks": [0.5, 1]}, "ranks must be finite integers"),
        ({"ranks": [0, np.nan]}, "ranks must be finite integers"),
        ({"targets": [3]}, "targets must hold"),
        ({"ranks": np.zeros(5000)}, "candidates"),
        ({"upper_ranks": [0, 1]}, "same"),
        ({"sensitivity": 0}, "sensitivity"),
        ({"epsilon": -1.0}, "epsilon"),
    ]
    for change, match in cases:
        arguments = {"ranks": RANKS, "targets": TARGETS, "total": TOTAL}
        arguments |= {"sensitivity": 2, "epsilon": 1.0} | change
        with PrivacyLedger() as ledger, pytest.raises(ValueError, match=match):
            joint_exponential(arguments.pop("ranks"), arguments.pop("targets"), **arguments)
        assert not ledger.entries


@pytest.mark.parametrize(("rho", "y"), [(Fraction(5, 2), Fraction(3, 2)), (Fraction(1), 0)])
def test_the_acceptance_coin_is_exact(rho, y):
    rng = np.random.default_rng(1)
    heads = sum(_bernoulli_scaled_exp(rho, Fraction(y), rng) for _ in range(4000))
    p = float(rho) * math.exp(-float(y))
    assert abs(heads / 4000 - p) < 4 * math.sqrt(p * (1 - p) / 4000) + 1e-9
