"""The parity verdict: a cell is met only when skdp's mean and worst seed both are."""

import numpy as np
import pandas as pd

from benchmarks import parity


def _model_runs(mine, theirs):
    rows = [("GaussianNB", s) for s in mine] + [("diffprivlib GaussianNB", s) for s in theirs]
    return pd.DataFrame(
        [{"dataset": "iris", "epsilon": 1.0, "estimator": e, "score": s} for e, s in rows]
    )


def test_a_better_mean_with_a_worse_worst_seed_is_not_met():
    (cell,) = parity.judge_models(_model_runs([0.9, 0.9, 0.3], [0.6, 0.6, 0.5]))
    assert cell["skdp_mean"] > cell["diffprivlib_mean"] and not cell["met"]
    (cell,) = parity.judge_models(_model_runs([0.9, 0.8, 0.6], [0.6, 0.6, 0.5]))
    assert cell["met"] and cell["skdp_worst"] == 0.6


def test_errors_are_judged_lower_is_better_and_a_failed_seed_is_the_worst():
    runs = pd.DataFrame(
        {
            "dataset": "adult",
            "statistic": "mean",
            "epsilon": 0.1,
            "library": ["skdp"] * 3 + ["diffprivlib"] * 3,
            "error": [0.1, 0.2, 0.1, 0.5, np.nan, 0.4],
        }
    )
    (cell,) = parity.judge_tools(runs)
    assert cell["met"] and cell["diffprivlib_worst"] == np.inf
    runs.loc[[1, 2], "error"] = np.nan  # skdp fails on more seeds than diffprivlib
    (cell,) = parity.judge_tools(runs)
    assert not cell["met"] and cell["skdp_failed"] == 2


def test_report_counts_cells_and_lists_the_missed_ones():
    cells = pd.DataFrame(
        parity.judge_models(_model_runs([0.9, 0.3], [0.6, 0.5]))
        + parity.judge_models(_model_runs([0.9, 0.8], [0.6, 0.5]))
    )
    text = parity.report(cells)
    assert "| GaussianNB | 1 of 2 |" in text
    assert "Cells not met (1)" in text and "0.6 (0.3)" in text
