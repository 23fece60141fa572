"""benchmarks.tools_compare: the skdp side runs and writes the summary CSV and table."""

import numpy as np
import pandas as pd

from benchmarks import tools_compare


def test_declared_bounds_round_outwards_to_the_range_magnitude():
    X = np.array([[4.3, 0.1, 1200.0], [7.9, 2.5, 98000.0]])
    lower, upper = tools_compare.declared_bounds(X)
    np.testing.assert_allclose(lower, [4, 0, 0])
    np.testing.assert_allclose(upper, [8, 3, 100000])


def test_skdp_side_writes_the_summary(tmp_path):
    code = tools_compare.main(
        ["--datasets", "iris", "--epsilons", "1,5", "--seeds", "2", "--skdp-only",
         "--out", str(tmp_path)]
    )  # fmt: skip
    assert code == 0
    summary = pd.read_csv(tmp_path / "tools_compare.csv")
    assert list(summary.columns) == [
        "dataset",
        "statistic",
        "epsilon",
        "library",
        "mean",
        "std",
        "worst",
        "seeds",
        "failures",
    ]
    statistics = [*tools_compare.STATISTICS, *tools_compare.SCALER_STATISTICS]
    assert len(summary) == 2 * len(statistics)
    assert set(summary["statistic"]) == set(statistics)
    assert set(summary["library"]) == {"skdp"} and set(summary["seeds"]) == {2}
    assert set(summary["failures"]) == {0}
    assert np.all(np.isfinite(summary["mean"])) and np.all(summary["worst"] >= summary["mean"])
    # more budget, smaller errors: the means at epsilon 5 are below those at 1 overall
    by_epsilon = summary.groupby("epsilon")["mean"].mean()
    assert by_epsilon[5.0] < by_epsilon[1.0]
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 2 * 2 * len(statistics) and runs["data_hash"].nunique() == 1
    assert "| iris | median | 1.0 | " in (tmp_path / "tools_compare.md").read_text()
