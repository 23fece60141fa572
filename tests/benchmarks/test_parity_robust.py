"""benchmarks.parity_robust: blocks judged as parity cells; the sum's scales and law."""

import numpy as np
import pandas as pd
import pytest

from benchmarks import _sum_law, parity, parity_robust, tools_compare
from skdp.tools import _statistics
from tests._mutants import ten_times


def _runs(component, metric, mine, theirs):
    rows = [("skdp", s, v) for s, v in enumerate(mine)]
    rows += [("diffprivlib", s, v) for s, v in enumerate(theirs)]
    return pd.DataFrame(
        [
            {"library": lib, "component": component, "dataset": "iris", "metric": metric,
             "epsilon": 1.0, "seed": s, "value": v}
            for lib, s, v in rows
        ]
    )  # fmt: skip


def test_each_block_is_judged_as_a_parity_cell():
    # block 0: better mean, worse worst (not met); block 1: met; block 2: worse mean
    mine = [0.1, 0.1, 0.5, 0.2, 0.2, 0.2, 0.4, 0.4, 0.4]
    theirs = [0.3, 0.3, 0.4, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]
    blocks = parity_robust.judge_blocks(_runs("tools", "mean", mine, theirs), block=3)
    assert list(blocks["block"]) == [0, 1, 2]
    assert list(blocks["worst_ok"]) == [False, True, False]
    assert list(blocks["mean_ok"]) == [True, True, False]
    assert list(blocks["met"]) == [False, True, False]
    (cell,) = parity.judge_tools(
        pd.DataFrame(
            {"dataset": "iris", "statistic": "mean", "epsilon": 1.0,
             "library": ["skdp"] * 3 + ["diffprivlib"] * 3, "error": mine[:3] + theirs[:3]}
        )
    )  # fmt: skip
    assert cell["met"] == blocks["met"].iloc[0]
    cells = parity_robust.summarise(blocks)
    (row,) = cells.to_dict("records")
    assert row["blocks"] == 3 and not row["block0_met"]
    assert row["p_met"] == pytest.approx(1 / 3) and row["p_mean_ok"] == pytest.approx(2 / 3)
    assert row["skdp_worst"] == pytest.approx((0.5 + 0.2 + 0.4) / 3)
    assert row["diffprivlib_mean"] == pytest.approx(np.mean(theirs))
    assert row["p_met_low"] < 1 / 3 < row["p_met_high"]


def test_accuracy_is_higher_is_better_and_seeds_must_match():
    runs = _runs("RandomForestClassifier", "accuracy", [0.9, 0.8, 0.7, 0.7], [0.6, 0.6, 0.6, 0.9])
    blocks = parity_robust.judge_blocks(runs, block=2)
    assert list(blocks["met"]) == [True, False] and list(blocks["mean_ok"]) == [True, False]
    assert list(blocks["worst_ok"]) == [True, True]
    runs.loc[runs.index[-1], "seed"] = 9
    with pytest.raises(ValueError, match="different seeds"):
        parity_robust.judge_blocks(runs, block=2)


def test_all_epsilons_met_needs_every_cell_of_the_block():
    one = parity_robust.judge_blocks(_runs("tools", "sum", [1, 1, 1, 1], [2, 2, 0, 0]), 2)
    two = parity_robust.judge_blocks(_runs("tools", "sum", [1, 1, 1, 1], [2, 2, 2, 2]), 2)
    both = pd.concat([one, two.assign(epsilon=5.0)], ignore_index=True)
    shares = parity_robust.all_epsilons_met(both)
    assert list(shares["p_all_met"]) == [0.5, 0.5] and list(shares["blocks"]) == [2, 2]
    assert list(shares["dataset"]) == ["iris", "all"]


def test_wilson_interval():
    low, high = parity_robust.wilson(50, 100)
    assert low == pytest.approx(1 - high) and 0.40 < low < 0.41
    assert parity_robust.wilson(0, 20)[0] == 0.0 and parity_robust.wilson(20, 20)[1] == 1.0


def test_blocks_reuse_the_parity_seeds_and_bounds(tmp_path):
    """Block 0 of the tools is tools_compare's own 10-seed run (same data, bounds, seeds)."""
    runs, hashes = parity_robust.tools_runs("skdp", ["iris"], [1.0], ["mean", "sum"], 4)
    parity_runs = tools_compare.run_side("skdp", ["iris"], [1.0], 2, log=lambda _: None)
    for metric in ("mean", "sum"):
        want = parity_runs.loc[parity_runs["statistic"] == metric, "error"].to_numpy()
        got = runs.loc[runs["metric"] == metric, "value"].to_numpy()
        np.testing.assert_array_equal(got[:2], want)
        assert len(got) == 4 and len(set(got)) == 4
    assert hashes == {"iris": parity_runs["data_hash"].iloc[0]}
    code = parity_robust.main(
        ["--tools-blocks", "2", "--forest-blocks", "1", "--block", "2", "--datasets", "iris",
         "--epsilons", "1", "--law-seeds", "20", "--skdp-only", "--out", str(tmp_path)]
    )  # fmt: skip
    assert code == 0
    written = pd.read_csv(tmp_path / "runs.csv")
    forest = written[written["component"] == "RandomForestClassifier"]
    assert list(forest["seed"]) == [0, 1] and forest["value"].between(0, 1).all()
    assert len(written[written["component"] == "tools"]) == 2 * 4
    law = pd.read_csv(tmp_path / "sum_law.csv")
    assert len(law) == 2 * 4 and set(law["first_seed"]) == {0, 20, 40, 60}


def test_sum_scales_are_the_two_sensitivities():
    table = _sum_law.scales(["iris"])
    # Iris's declared bounds: [4, 8], [2, 5], [1, 7], [0, 3]
    np.testing.assert_allclose(table["ratio"], [2.0, 5 / 3, 7 / 6, 1.0])
    sigma = tools_compare.load("iris").std(axis=0)
    expected = np.sum([8, 5, 7, 3] / sigma) / np.sum([4, 3, 6, 3] / sigma)
    assert table["error_ratio"].iloc[0] == pytest.approx(expected)


def test_sum_error_follows_its_law_and_a_mutant_does_not():
    table = _sum_law.check(["iris"], [0.5], 300, disjoint=True)
    assert np.all(np.abs(table["z"]) < 4.5)
    assert table["law"].to_numpy() == pytest.approx(1 + 2**-12)
    assert np.all(table["ratio"].between(0.8, 1.2))


def test_sum_law_check_catches_too_little_noise(monkeypatch):
    ten_times(monkeypatch, _statistics, "laplace")
    table = _sum_law.check(["iris"], [0.5], 300, disjoint=True)
    assert np.all(table["ratio"] < 0.2) and np.all(table["z"] < -10)


def test_sum_block_probabilities_are_exact_for_exponential_errors():
    assert _sum_law.block_probabilities(1.0, 10) == pytest.approx((0.5, 0.5))
    # one seed, twice the scale: P(2 X <= Y) = 1/3 for i.i.d. exponentials, both ways
    assert _sum_law.block_probabilities(2.0, 1) == pytest.approx((1 / 3, 1 / 3))
    rng = np.random.default_rng(0)
    mine, theirs = (
        1.3 * np.abs(rng.laplace(size=(20000, 10))),
        np.abs(rng.laplace(size=(20000, 10))),
    )
    worst, mean = _sum_law.block_probabilities(1.3, 10)
    assert np.mean(mine.max(1) <= theirs.max(1)) == pytest.approx(worst, abs=0.015)
    assert np.mean(mine.mean(1) <= theirs.mean(1)) == pytest.approx(mean, abs=0.015)


def test_reuse_judges_the_runs_under_out(tmp_path):
    runs = _runs("tools", "mean", [0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.2, 0.2])
    runs.to_csv(tmp_path / "runs.csv", index=False)
    (tmp_path / "run.json").write_text('["a note"]')
    assert parity_robust.main(["--reuse", "--block", "2", "--out", str(tmp_path)]) == 0
    cells = pd.read_csv(tmp_path / "cells.csv")
    assert list(cells["blocks"]) == [2] and cells["p_met"].iloc[0] == 0.5
    text = (tmp_path / "parity_robust.md").read_text()
    assert "- a note" in text and "| tools | iris | mean | 1 | 2 |" in text
