import numpy as np
import pandas as pd

from benchmarks import scaler_first_try


def test_a_row_reports_the_transformed_range_the_grid_and_the_errors():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.uniform([0, 10], [1, 50], size=(5000, 2)), columns=["a", "b"])
    row = scaler_first_try.measure("MinMaxScaler", frame, range(2))
    assert row["K"] == "257" and row["tier"] == "1"
    assert -0.1 < float(row["min"]) < 0 and 1 < float(row["max"]) < 1.1
    mean_outside, worst_outside = (float(v) for v in row["outside"].split(" / "))
    assert mean_outside == worst_outside == 0
    assert all(float(v) < 0.05 for v in row["q err max"].split(" / "))


def test_standard_and_robust_rows_compare_with_scikit_learn():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(3000, 2)) * [1, 10], columns=["a", "b"])
    for name in ("StandardScaler", "RobustScaler"):
        row = scaler_first_try.measure(name, frame, range(2))
        assert row["q err min"] == "" and "exact min / max" in row
        assert float(row["outside"].split(" / ")[1]) < 0.05, (name, row)
