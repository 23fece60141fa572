"""The joint exponential mechanism (skdp.mechanisms._joint), JointExp's sampler."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chi2

import skdp.mechanisms._joint_forward as forward_module
import skdp.mechanisms._range_sums as range_module
from skdp import PrivacyLedger
from skdp.mechanisms._joint import (
    _bernoulli_scaled_exp,
    _integer_weights,
    joint_exponential,
    joint_exponential_batch,
    sequence_score,
)
from skdp.mechanisms._joint_forward import block_scores, forward, forward_quadratic
from skdp.utils._audit import audit
from skdp.utils._audit_quantiles import (
    JOINT_CANDIDATES,
    JOINT_SENSITIVITY,
    JOINT_VALUES,
    joint_rank_inputs,
)

RANKS = np.array([0, 3, 3, 7, 9, 12])
TARGETS = np.array([4, 5, 3])
TOTAL = 12


def _forward_windowed(bounds, targets, total, rate, strict):
    """The windowed program on one row."""
    (out,) = forward_module.forward_windowed(
        (bounds[0][None], bounds[1][None]), np.asarray(targets)[None], np.array([total]),
        np.array([rate]), strict,
    )  # fmt: skip
    return out


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
        # about 3 s each: the tie and interval cases run by default, the rest with -m slow
        pytest.param(RANKS, None, TARGETS, TOTAL, False, 2.0, marks=pytest.mark.slow),
        pytest.param(RANKS, None, [6, 6], TOTAL, False, 3.0, marks=pytest.mark.slow),
        (np.array([0, 0, 1, 1, 2, 4]), None, [1, 1, 1, 1], 4, False, 4.0),  # three, ties
        (RANKS, RANKS + np.array([0, 2, 0, 1, 0, 0]), TARGETS, TOTAL, True, 2.0),  # intervals
        pytest.param(
            np.array([0, 1, 1, 3]),
            np.array([1, 1, 3, 4]),
            [1, 1, 1, 1],
            4,
            True,
            3.0,
            marks=pytest.mark.slow,
        ),
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
        ({"ranks": np.array([0, 2**50], dtype=np.int64)}, "ranks must stay below"),
        ({"ranks": np.array([-(2**62), 0], dtype=np.int64)}, "ranks must stay below"),
        ({"ranks": [0.0, 2.0**50]}, "ranks must stay below"),
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


def test_windowed_program_matches_the_pair_matrix():
    # the O(K log K) forward pass (sorted ranks) against the O(K**2) one: the same
    # messages, normaliser and last weights, to round-off, on ties, intervals, strict
    # and non-strict orders and rates from 0.01 to 50
    rng = np.random.default_rng(0)
    for _ in range(100):
        K, m = int(rng.integers(1, 30)), int(rng.integers(1, 5))
        lo = np.sort(rng.integers(0, 40, K))
        hi = np.maximum.accumulate(lo + rng.integers(0, 3, K) * (rng.random() < 0.5))
        targets, total = rng.integers(0, 15, m + 1), int(hi.max() + rng.integers(0, 4))
        strict, rate = bool(rng.random() < 0.5) and m <= K, float(rng.choice([0.01, 0.3, 50]))
        fast = _forward_windowed((lo, hi), targets, total, rate, strict)
        full = forward_quadratic((lo, hi), targets, total, rate, strict)
        for a, b in [(fast[0], full[0]), (fast[1], full[1])]:
            assert np.array_equal(np.isfinite(a), np.isfinite(b))
            finite = np.isfinite(b)
            np.testing.assert_allclose(a[finite], b[finite], rtol=1e-12, atol=1e-12)
        assert fast[2] == pytest.approx(full[2], rel=1e-12, abs=1e-12)
        assert fast[3] >= full[3]  # the proposal's slack covers at least as much


def _accumulated_table(v):
    """The range-sum table level by level, one ``logaddexp.accumulate`` per run."""
    rows, K = v.shape
    table = np.empty((max(1, (K - 1).bit_length()), rows, K))
    for level in range(table.shape[0]):
        half = 1 << level
        full = K // (2 * half) * 2 * half
        range_module._running_sums(v[:, :full], table[level, :, :full], half)
        for start in range(full, K, half):
            stop = min(start + half, K)
            range_module._running_sums(v[:, start:stop], table[level, :, start:stop],
                                         stop - start, reverse=start == full)  # fmt: skip
    return table


@pytest.mark.parametrize("terms_per_call", [1, 80, 10**9])
def test_range_sums_by_steps_are_those_of_one_accumulate_per_run(monkeypatch, terms_per_call):
    # the table's short levels advance all runs one term per call: the same floats,
    # bit for bit, as accumulating each run (1: every level by steps; 10**9: only
    # level 0), on -inf entries, empty rows and partial last blocks
    monkeypatch.setattr(range_module, "_TERMS_PER_CALL", terms_per_call)
    rng = np.random.default_rng(1)
    for case in range(150):
        v = _random_log_values(rng, case, 8, [1, 2, 3, 5, 8, 17, 64, 100, 257])
        sums = range_module._RangeLogSums(v)
        assert np.array_equal(sums.table, _accumulated_table(v))


def _random_log_values(rng, case, max_rows, widths):
    """Random rows of increasing log-values, some entries (every third case) and the
    first row (every tenth) -inf: the range-sum tables' test inputs."""
    rows, K = int(rng.integers(1, max_rows)), int(rng.choice(widths))
    v = np.cumsum(rng.normal(size=(rows, K)) * rng.choice([0.1, 3.0, 100.0]), axis=1)
    v[rng.random(v.shape) < (0.3 if case % 3 == 0 else 0.0)] = -np.inf
    if case % 10 == 0:
        v[0] = -np.inf
    return v


def test_table_of_its_queries_answers_as_the_complete_table():
    # only the cells the queries read are built (run prefixes): the same answers bit
    # for bit, on -inf entries, empty and one-value ranges, partial last blocks; the
    # complete table's max lies in the bounds, and a partial table refuses max()
    rng = np.random.default_rng(5)
    for case in range(200):
        v = _random_log_values(rng, case, 7, [1, 2, 3, 5, 17, 64, 100, 257, 513])
        rows, K = v.shape
        starts = rng.integers(0, K + 1, (rows, int(rng.integers(1, 3 * K))))
        stops = np.minimum(starts + rng.integers(0, K + 1, starts.shape), K)
        complete = range_module._RangeLogSums(v)
        partial = range_module._RangeLogSums(v, (starts, stops))
        assert np.array_equal(partial.answers(), complete(starts, stops))
        with pytest.raises(ValueError, match="answers"):
            partial(starts, stops)
        low, high = partial.max_bounds()
        exact = complete.max()
        assert np.all((low <= exact) & (exact <= high) | np.isneginf(exact))
        with pytest.raises(ValueError, match="its queries"):
            partial.max()


def test_table_max_is_skipped_only_where_it_cannot_raise_the_magnitude():
    # the windowed program's largest magnitude, max(covered, |complete table's max|),
    # is the same with the lazy answer, whether the bounds settle it or not
    rng = np.random.default_rng(6)
    for case in range(200):
        R, K = int(rng.integers(1, 5)), int(rng.choice([2, 17, 100, 257]))
        v = np.cumsum(rng.normal(size=(3 * R, K)) * rng.choice([0.01, 3.0, 100.0]), axis=1)
        v += rng.normal(size=(3 * R, 1)) * rng.choice([1.0, 1e3])
        if case % 7 == 0:
            v[0] = -np.inf
        top = range_module._RangeLogSums(v).max().reshape(3, R).max(axis=0)
        exact = np.abs(top, where=np.isfinite(top), out=np.zeros(R))
        covered = exact * rng.uniform(0.98, 1.02, R) + rng.choice([0.0, 5.0], R)
        sums = range_module._RangeLogSums(v, (np.zeros((3 * R, 1), int), np.ones((3 * R, 1), int)))
        found = forward_module._table_max_magnitude(sums, covered)
        assert np.array_equal(np.maximum(covered, found), np.maximum(covered, exact))


def _windowed_programs():
    rng = np.random.default_rng(8)
    found = []
    for case in range(80):
        R, K, m = int(rng.integers(1, 6)), int(rng.integers(48, 300)), int(rng.integers(1, 4))
        lo, hi, targets, totals = _random_rows(rng, R, K, m)
        rates = rng.choice([1e-4, 0.01, 0.3, 5.0], R)
        found.append(forward((lo, hi), targets, totals, rates, bool(case % 2)))
    return found


def test_windowed_program_is_that_of_the_complete_tables(monkeypatch):
    # the windowed program reads partial tables and skips the complete table's max
    # where the other magnitudes cover it: the same programs, bit for bit, as with
    # complete tables and their max (rates from tiny to huge, so both branches run)
    partial = _windowed_programs()
    table = forward_module._RangeLogSums

    def exact_max(sums, covered):
        top = sums.max().reshape(3, covered.size).max(axis=0)
        return np.abs(top, where=np.isfinite(top), out=np.zeros(covered.size))

    monkeypatch.setattr(
        forward_module, "_RangeLogSums", lambda v, queries: table(v, queries, complete=True)
    )
    monkeypatch.setattr(forward_module, "_table_max_magnitude", exact_max)
    for fast, full in zip(partial, _windowed_programs(), strict=True):
        for a, b in zip(fast, full, strict=True):
            assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _random_log_rows(rng, case):
    # 1-11 rows of up to 2999 log weights (random walks on three scales), a third
    # of them -inf in every fourth case
    R, K = int(rng.integers(1, 12)), int(rng.integers(1, 3000))
    X = np.cumsum(rng.normal(size=(R, K)) * rng.choice([0.1, 3.0, 100.0]), axis=1)
    X[rng.random(X.shape) < (0.3 if case % 4 == 0 else 0.0)] = -np.inf
    return X


def test_integer_weights_of_rows_are_those_of_each_row_alone():
    rng = np.random.default_rng(3)
    for case in range(100):
        x = _random_log_rows(rng, case)
        R, K = x.shape
        x[:, rng.integers(0, K)] = rng.normal()  # a finite entry in every row
        rows = _integer_weights(x, 50)
        assert all(np.array_equal(rows[r], _integer_weights(x[r], 50)) for r in range(R))


def test_row_searchsorted_is_one_search_per_row():
    rng = np.random.default_rng(4)
    for _ in range(200):  # 2**61: shifts that could overflow, one search per row
        R, K = int(rng.integers(1, 9)), int(rng.integers(1, 60))
        scale = int(rng.choice([3, 1000, 2**49, 2**61]))
        rows = np.sort(rng.integers(-scale, scale, (R, K)), axis=1)
        values = rng.integers(-scale, scale, (R, K))
        values[:, : K // 3] = rows[:, : K // 3]  # ties with the sorted rows
        for side in ("left", "right"):
            found = forward_module._row_searchsorted(rows, values, side)
            for r in range(R):
                assert np.array_equal(found[r], np.searchsorted(rows[r], values[r], side=side))


def test_row_log_sums_are_those_of_each_row_as_a_column():
    rng = np.random.default_rng(2)
    for case in range(200):
        X = _random_log_rows(rng, case)
        R = X.shape[0]
        if case % 10 == 0:
            X[0] = -np.inf
        rows = forward_module._log_row_sums(X)
        for r in range(R):
            column = forward_module._log_column_sums(X[r, :, np.newaxis])[0]
            assert rows[r] == column or (np.isneginf(rows[r]) and np.isneginf(column))


def test_windowed_program_gives_the_exact_law():
    # the backward draw's conditional laws, multiplied out from the windowed messages,
    # against enumeration: equal to ~1e-12
    ranks, targets, total = np.arange(0, 40, 2), np.array([8, 12, 10, 9]), 39
    bounds, rate = (ranks, ranks), 0.2
    for strict in (False, True):
        outputs, law = exact_law(ranks, None, targets, total, strict, 1.0, 2 * rate)
        ell, last, log_z, _ = _forward_windowed(bounds, targets, total, rate, strict)
        probability = np.exp(last - log_z)[[o[-1] for o in outputs]]
        for j in range(len(targets) - 2, 0, -1):
            following = (ranks[[o[j] for o in outputs]],) * 2
            x = ell[j - 1][:, None] - rate * block_scores(bounds, following, targets[j])
            x[np.arange(20)[:, None] >= np.array([o[j] for o in outputs]) + (not strict)] = -np.inf
            x -= np.logaddexp.reduce(x, axis=0)
            probability *= np.exp(x[[o[j - 1] for o in outputs], np.arange(len(outputs))])
        np.testing.assert_allclose(probability, law, rtol=1e-11, atol=1e-300)
        assert probability.sum() == pytest.approx(1, abs=1e-12)


def _audited_release(factor):
    """JointExp of the quantile audit case, drawn for ``factor`` times its epsilon."""

    def release(inputs, rng):
        ranks, upper, targets, total = inputs
        out = joint_exponential(
            ranks, targets, total=total, sensitivity=JOINT_SENSITIVITY, epsilon=factor * 1.0,
            upper_ranks=upper, strict=True, random_state=rng,
        )  # fmt: skip
        return float(out[0] * JOINT_CANDIDATES.size + out[1])

    return release


@pytest.mark.slow
@pytest.mark.parametrize(("factor", "passes"), [(1, True), (2, False)])
def test_windowed_sampler_passes_the_audit_and_its_mutant_is_flagged(monkeypatch, factor, passes):
    # the quantile audit case (tests/privacy) on the windowed program: it has 5
    # candidates, so force the program on it. Slow only: in the default run the
    # windowed messages are checked equal to the pair matrix's (above), and the
    # sampler after them is the one the default audit covers
    monkeypatch.setattr(forward_module, "_WINDOWED_FROM", 1)
    inputs = [joint_rank_inputs(values) for values in JOINT_VALUES]
    result = audit(_audited_release(factor), *inputs, epsilon=1.0, n_search=1000,
                   n_samples=5000, random_state=0)  # fmt: skip
    assert result.passed is passes, str(result)


def test_huge_rates_fall_back_to_the_pair_matrix_and_still_draw():
    # epsilon 1e9 on 100 candidates: the windowed slack would make acceptances rare
    ranks = np.arange(100)
    out = joint_exponential(ranks, [25, 50, 25], total=100, sensitivity=2, epsilon=1e9,
                            random_state=0)  # fmt: skip
    assert out.tolist() == [25, 75]


def _random_rows(rng, R, K, m):
    """``R`` quantile-like problems on ``K`` candidates: sorted ranks, some intervals."""
    lo = np.sort(rng.integers(0, 60, (R, K)), axis=1)
    hi = np.maximum.accumulate(lo + rng.integers(0, 3, (R, K)) * (rng.random() < 0.5), axis=1)
    totals = hi.max(axis=1) + rng.integers(0, 4, R)
    targets = rng.integers(0, 25, (R, m + 1))
    return lo, hi, targets, totals


@pytest.mark.parametrize(("windowed_from", "table_entries"), [(1, 2**16), (48, 2**16), (1, 1)])
def test_batch_is_bit_for_bit_a_loop_of_single_draws(monkeypatch, windowed_from, table_entries):
    # programs and draws of every row of one batched call against single calls on the
    # rows in order from the same generator: the same floats and the same indices
    # (windowed_from=1 runs every row through the batched windowed program;
    # table_entries=1 splits the batch into one row at a time)
    monkeypatch.setattr(forward_module, "_WINDOWED_FROM", windowed_from)
    monkeypatch.setattr(forward_module, "_TABLE_ENTRIES", table_entries)
    rng = np.random.default_rng(0)
    for case in range(60):
        R, K, m = int(rng.integers(1, 6)), int(rng.integers(2, 90)), int(rng.integers(1, 4))
        lo, hi, targets, totals = _random_rows(rng, R, K, m)
        if case % 5 == 0:
            lo[0] = lo[0][::-1].copy()  # an unsorted row takes the pair matrix
            hi[0] = lo[0]
        rates = rng.choice([0.01, 0.3, 5.0], R)
        strict = bool(case % 2) and m <= K
        batch = forward((lo, hi), targets, totals, rates, strict)
        for r in range(R):
            (single,) = forward((lo[r : r + 1], hi[r : r + 1]), targets[r : r + 1],
                                totals[r : r + 1], rates[r : r + 1], strict)  # fmt: skip
            for a, b in zip(batch[r], single, strict=True):
                assert np.array_equal(a, b)
        epsilons, sensitivities = rng.uniform(0.1, 5, R), rng.uniform(1, 3, R)
        drawn = joint_exponential_batch(
            lo, targets, totals=totals, sensitivities=sensitivities, epsilons=epsilons,
            upper_ranks=hi, strict=strict, random_state=case,
        )  # fmt: skip
        generator = np.random.default_rng(case)
        loop = [
            joint_exponential(lo[r], targets[r], total=totals[r], sensitivity=sensitivities[r],
                              epsilon=epsilons[r], upper_ranks=hi[r], strict=strict,
                              random_state=generator)
            for r in range(R)
        ]  # fmt: skip
        assert np.array_equal(drawn, np.array(loop))


def test_batched_rows_follow_their_exact_laws(monkeypatch):
    # two rows of different problems drawn together through the windowed program,
    # each against its own enumerated law
    monkeypatch.setattr(forward_module, "_WINDOWED_FROM", 1)
    tied = np.array([0, 0, 1, 1, 2, 4])
    ranks, uppers = np.stack([RANKS, tied]), np.stack([RANKS + np.array([0, 2, 0, 1, 0, 0]), tied])
    targets, totals, epsilons = np.array([[4, 5, 3], [1, 2, 1]]), np.array([12, 4]), [2.0, 4.0]
    n = 2500
    drawn = [
        joint_exponential_batch(ranks, targets, totals=totals, sensitivities=2.0,
                                epsilons=epsilons, upper_ranks=uppers, strict=True,
                                random_state=seed)
        for seed in range(n)
    ]  # fmt: skip
    for r in range(2):
        outputs, probability = exact_law(
            ranks[r], uppers[r], targets[r], totals[r], True, 2.0, epsilons[r]
        )
        counts = dict.fromkeys(outputs, 0)
        for draw in drawn:
            counts[tuple(draw[r])] += 1
        observed, expected = np.array([counts[o] for o in outputs]), probability * n
        rare = expected < 5
        observed = np.r_[observed[~rare], observed[rare].sum()]
        expected = np.r_[expected[~rare], expected[rare].sum()]
        keep = expected > 0
        statistic = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
        assert chi2.sf(statistic, keep.sum() - 1) > 1e-3, (r, observed, expected.round(1))


def test_batch_charges_each_row_once_in_order():
    ranks = np.stack([RANKS, RANKS])
    with PrivacyLedger() as ledger:
        out = joint_exponential_batch(ranks, TARGETS, totals=TOTAL, sensitivities=2,
                                      epsilons=[0.25, 0.5], random_state=0)  # fmt: skip
    assert out.shape == (2, 2)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [
        ("joint_exponential", 0.25),
        ("joint_exponential", 0.5),
    ]


def test_batch_refuses_mismatched_rows_before_any_charge():
    ranks = np.stack([RANKS, RANKS])
    cases = [
        ({"targets": np.ones((3, 3))}, "targets must hold"),
        ({"upper_ranks": RANKS[None]}, "same"),
        ({"epsilons": [1.0, 1.0, 1.0]}, "broadcast"),
        ({"epsilons": [1.0, -1.0]}, "epsilon"),
    ]
    for change, match in cases:
        arguments = {"targets": TARGETS, "totals": TOTAL, "sensitivities": 2, "epsilons": 1.0}
        with PrivacyLedger() as ledger, pytest.raises(ValueError, match=match):
            joint_exponential_batch(ranks, **(arguments | change))
        assert not ledger.entries
