"""The benchmark harness: jobs, seeds, scoring, the three outputs and the CLI."""

import numpy as np
import pandas as pd
import pytest
from sklearn.dummy import DummyRegressor

from benchmarks import _data, _harness, _registry, _report, utility
from tests._estimators import NoisyMeanRegressor

ENTRY = _registry.Entry(
    name="NoisyMeanRegressor",
    task="regression",
    private=lambda task, epsilon, seed: NoisyMeanRegressor(
        epsilon=epsilon, bounds_y=task.public["target_bounds"], random_state=seed
    ),
    baseline=lambda task, seed: DummyRegressor(),
    baseline_name="DummyRegressor",
)
BROKEN = _registry.Entry(
    name="Broken",
    task="regression",
    private=lambda task, epsilon, seed: NoisyMeanRegressor(epsilon=-1.0),
)


@pytest.fixture(scope="module")
def diabetes():
    return _data.load_tasks("diabetes")


def test_jobs_cover_every_estimator_epsilon_and_repeat(diabetes):
    jobs, factories = _harness.build_jobs(diabetes, [ENTRY], [0.5, 1.0], 3)
    private = [j for j in jobs if j.kind == "skdp"]
    assert sorted((j.epsilon, j.repeat) for j in private) == [
        (e, r) for e in (0.5, 1.0) for r in range(3)
    ]
    assert [j.repeat for j in jobs if j.kind == "non-private"] == [0, 1, 2]
    # a repeat's seed is shared across epsilons, and differs between repeats
    seeds = {(j.epsilon, j.repeat): j.seed for j in private}
    assert seeds[(0.5, 1)] == seeds[(1.0, 1)] != seeds[(0.5, 2)]
    assert set(factories) == {("skdp", "NoisyMeanRegressor"), ("non-private", "DummyRegressor")}


def test_entries_sharing_a_baseline_share_its_runs_on_every_task(diabetes):
    twin = _registry.Entry(**{**ENTRY.__dict__, "name": "Twin"})
    two_tasks = [diabetes[0], diabetes[0]]
    jobs, _ = _harness.build_jobs(two_tasks, [ENTRY, twin], [1.0], 2)
    baseline_runs = sorted((j.task_index, j.repeat) for j in jobs if j.kind == "non-private")
    assert baseline_runs == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert len([j for j in jobs if j.kind == "skdp"]) == 2 * 2 * 2


def test_entries_only_run_on_their_task():
    iris = _data.load_tasks("iris")
    jobs, _ = _harness.build_jobs(iris, [ENTRY], [1.0], 2)
    assert jobs == []


def test_parameter_grid_is_a_product_with_typed_values():
    grid = _harness.parse_param_grid(["n_levels=4,7", "score=max,infogain", "flag=true"])
    assert len(grid) == 4
    assert grid[0] == (("n_levels", 4), ("score", "max"), ("flag", True))
    assert _harness.parse_param_grid([]) == [()]
    with pytest.raises(ValueError, match="KEY=V1"):
        _harness.parse_param_grid(["n_levels"])


def test_run_is_reproducible_and_measures_the_ledger(diabetes):
    jobs, factories = _harness.build_jobs(diabetes, [ENTRY], [0.5, 4.0], 3, base_seed=7)
    first = _harness.run(diabetes, jobs, factories, n_jobs=2, progress=False)
    second = _harness.run(diabetes, jobs, factories, n_jobs=1, progress=False)
    pd.testing.assert_series_equal(first["score"], second["score"])
    private = first[first["kind"] == "skdp"]
    assert len(private) == 6 and (private["metric"] == "R2").all()
    np.testing.assert_allclose(private["epsilon_spent"], private["epsilon"])
    assert (first["fit_time_s"] > 0).all()
    assert _report.ledger_check(first).empty
    # a different base seed gives different noise
    jobs_b, _ = _harness.build_jobs(diabetes, [ENTRY], [0.5, 4.0], 3, base_seed=8)
    other = _harness.run(diabetes, jobs_b, factories, n_jobs=1, progress=False)
    assert not np.allclose(other["score"][other["kind"] == "skdp"], private["score"])


def test_a_failing_fit_is_recorded_not_raised(diabetes):
    jobs, factories = _harness.build_jobs(diabetes, [BROKEN], [1.0], 1)
    runs = _harness.run(diabetes, jobs, factories, progress=False)
    assert list(runs["metric"]) == ["error"]
    assert "epsilon" in runs["error"].iloc[0]


def test_ledger_check_flags_a_mismatch():
    runs = pd.DataFrame(
        {
            "kind": ["skdp", "skdp"],
            "metric": ["R2"] * 2,
            "epsilon": [1.0, 1.0],
            "epsilon_spent": [1.0, 1.5],
        }
    )
    assert list(_report.ledger_check(runs).index) == [1]


def test_summary_is_mean_and_std_per_epsilon(diabetes):
    jobs, factories = _harness.build_jobs(diabetes, [ENTRY], [1.0], 4)
    runs = _harness.run(diabetes, jobs, factories, progress=False)
    summary = _report.summarize(runs)
    row = summary[summary["kind"] == "skdp"].iloc[0]
    scores = runs[runs["kind"] == "skdp"]["score"]
    assert row["runs"] == 4
    assert row["mean"] == pytest.approx(scores.mean())
    assert row["std"] == pytest.approx(scores.std())
    table = _report.markdown_tables(summary, [1.0])
    assert f"{scores.mean():.3f} ± {scores.std():.3f}" in table
    assert "DummyRegressor (non-private)" in table


def test_seed_spread_reports_the_worst_seed_from_the_bad_side():
    scores = np.arange(1.0, 11.0)  # ten seeds scoring 1..10
    higher = _report.seed_spread(scores, metric="accuracy")
    lower = _report.seed_spread(scores, metric="NICV")
    assert higher["worst"] == 1.0 and lower["worst"] == 10.0
    assert higher["p10"] == pytest.approx(np.quantile(scores, 0.1))
    assert lower["p10"] == pytest.approx(np.quantile(scores, 0.9))
    assert higher["mean"] == lower["mean"] == 5.5


def test_table_cells_carry_the_worst_seed_and_tenth_percentile(diabetes):
    jobs, factories = _harness.build_jobs(diabetes, [ENTRY], [1.0], 5)
    runs = _harness.run(diabetes, jobs, factories, progress=False)
    scores = runs[runs["kind"] == "skdp"]["score"]
    table = _report.markdown_tables(_report.summarize(runs), [1.0])
    p10 = np.quantile(scores, 0.1)
    assert f"({scores.min():.3f}, {p10:.3f})" in table


def test_cli_writes_csv_markdown_and_plot(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("benchmarks.regression.ENTRIES", [ENTRY])
    code = utility.main(
        [
            "--dataset",
            "diabetes",
            "--epsilons",
            "0.5,2",
            "--repeats",
            "2",
            "--out",
            str(tmp_path),
            "--quiet",
            "--n-jobs",
            "1",
        ]
    )
    assert code == 0
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert set(runs["kind"]) == {"skdp", "non-private"}
    assert len(runs[runs["kind"] == "skdp"]) == 4
    png = (tmp_path / "utility_vs_epsilon.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    summary = (tmp_path / "summary.md").read_text()
    assert "ε=0.5" in summary and "ε=2" in summary
    assert "NoisyMeanRegressor" in capsys.readouterr().out


def test_cli_fails_when_a_private_fit_fails(tmp_path, monkeypatch):
    monkeypatch.setattr("benchmarks.regression.ENTRIES", [BROKEN])
    code = utility.main(
        ["--dataset", "diabetes", "--repeats", "1", "--out", str(tmp_path), "--quiet"]
    )
    assert code == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--dataset", "nope"], "unknown dataset 'nope'"),
        (["--estimators", "NoSuchModel"], "no estimator named 'nosuchmodel'"),
    ],
)
def test_cli_rejects_bad_arguments(argv, message, tmp_path):
    with pytest.raises(SystemExit, match=message):
        utility.main([*argv, "--out", str(tmp_path), "--quiet"])


def test_cli_rejects_non_positive_epsilons(capsys):
    with pytest.raises(SystemExit):
        utility.main(["--epsilons", "0,1"])
    assert "epsilons must be positive" in capsys.readouterr().err


def test_select_entries_by_prefix(monkeypatch):
    a = _registry.Entry(name="Tree(maxgddp)", task="classification", private=None)
    b = _registry.Entry(name="Tree(diffgen)", task="classification", private=None)
    monkeypatch.setattr("benchmarks.classification.ENTRIES", [a, b])
    assert _registry.select_entries("tree") == [a, b]
    assert _registry.select_entries("tree(diffgen)") == [b]
    assert _registry.select_entries("all", ("classification",)) == [a, b]
