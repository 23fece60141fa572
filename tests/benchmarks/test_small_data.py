import pandas as pd
import pytest

from benchmarks import small_data


def _summary(rows):
    columns = ["task", "estimator", "kind", "epsilon", "mean", "std", "worst", "p10", "failed"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["trivial"] = frame["task"].map({"logistic": 0.34, "tree": 0.34}).fillna(0.0)
    return frame


def test_targets_flag_a_worst_seed_below_the_baseline_and_a_loss_to_diffprivlib():
    summary = _summary(
        [
            (
                "logistic",
                "ObjectivePerturbationLogistic(bounds=(0, 1))",
                "skdp",
                1.0,
                0.75,
                0.1,
                0.2,
                0.5,
                0,
            ),
            ("logistic", "diffprivlib LogisticRegression", "diffprivlib", 1.0, 0.8, 0.1, 0, 0, 0),
        ]
    )
    checks = {target: met for target, _, met in small_data.targets(summary)}
    assert checks["logistic: mean >= 0.70 at ε=1"]
    assert not checks[
        "ObjectivePerturbationLogistic(bounds=(0, 1)) >= diffprivlib LogisticRegression at ε=1"
    ]
    assert not checks["no skdp worst seed below the trivial baseline at ε >= 1"]


def test_targets_pass_when_every_line_is_met():
    summary = _summary(
        [
            ("kmeans", "DPKMeans(3, bounds=(0, 8))", "skdp", 1.0, 0.65, 0.1, 0.35, 0.4, 0),
            ("optics", "DPOPTICS on moons", "skdp", 1.0, 0.95, 0.01, 0.9, 0.92, 0),
        ]
    )
    checks = small_data.targets(summary)
    assert [met for _, _, met in checks] == [True, True, True]


@pytest.mark.parametrize("task", ["kmeans", "logistic"])
def test_cli_writes_the_table_and_targets(tmp_path, capsys, task):
    options = ["--tasks", task, "--epsilons", "1", "--repeats", "2", "--n-jobs", "1"]
    code = small_data.main([*options, "--no-diffprivlib", "--out", str(tmp_path)])
    text = (tmp_path / "summary.md").read_text()
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert code in (0, 1)
    assert len(runs) == 2 * runs["estimator"].nunique() and set(runs["seed"]) == {0, 1}
    assert (runs["epsilon_spent"] - 1.0).abs().max() < 1e-9
    assert "**Targets (issue 21)**" in text and "(worst seed, 10th percentile)" in text
    assert text in capsys.readouterr().out
