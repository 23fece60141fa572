"""``python -m benchmarks compare``: merging the two sides, reusing the diffprivlib
environment, the command line. Offline: no venv is created, no network is used."""

import json
import subprocess

import numpy as np
import pandas as pd
import pytest

from benchmarks import _data, _env, _harness, compare

GOOD = {
    "diffprivlib": "0.6.6",
    "scikit-learn": "1.7.2",
    "skdp_origin": str(compare.CHECKOUT / "skdp" / "__init__.py"),
    "python": "3.11.7",
}


def _runs(kind, estimator, scores, epsilon=1.0, dataset="iris"):
    rows = [
        {
            "dataset": dataset,
            "task": "classification",
            "estimator": estimator,
            "kind": kind,
            "epsilon": np.nan if kind == "non-private" else epsilon,
            "repeat": r,
            "seed": _harness.repeat_seed(0, r),
            "metric": "accuracy",
            "score": score,
            "fit_time_s": 0.1,
            "epsilon_spent": epsilon if kind == "skdp" else np.nan,
            "warnings": "",
            "error": "",
        }
        for r, score in enumerate(scores)
    ]
    return pd.DataFrame(rows).reindex(columns=_harness.COLUMNS)


def _sides(theirs=None):
    ours = pd.concat(
        [
            _runs("skdp", "ObjectivePerturbationLogistic", [0.8, 0.9, 0.6]),
            _runs("non-private", "LogisticRegression", [0.95, 0.95, 0.95]),
        ]
    )
    theirs = _runs("diffprivlib", "diffprivlib LogisticRegression", [0.5, 0.7, 0.9])
    return {
        "skdp": (ours, {"sklearn": "1.9.1"}),
        "diffprivlib": (theirs, {"sklearn": "1.7.2"}),
    }


def test_merge_summarises_both_sides_with_the_sklearn_each_row_ran_on():
    summary = compare.merged_summary(compare.merge_runs(_sides()))
    dpl = summary[summary["kind"] == "diffprivlib"].iloc[0]
    assert dpl["sklearn"] == "1.7.2"
    assert dpl[["mean", "worst", "p10", "runs"]].tolist() == pytest.approx([0.7, 0.5, 0.54, 3])
    ours = summary[summary["kind"] == "skdp"].iloc[0]
    assert ours["sklearn"] == "1.9.1"
    assert ours[["worst", "std"]].tolist() == pytest.approx([0.6, np.std([0.8, 0.9, 0.6], ddof=1)])

    text = compare.merged_markdown(summary, [compare.PRESETS["iris"]], ["a note"])
    table = text[text.index("| estimator") :]
    # one table: the three rows under the epsilons the preset runs
    assert "| estimator | ε=0.1 | ε=0.5 | ε=1 | ε=2 | ε=5 | non-private | fit s |" in table
    assert "| ObjectivePerturbationLogistic [sklearn 1.9.1] |  |  | 0.767 ± 0.153 (0.600," in table
    assert (
        "| diffprivlib LogisticRegression [sklearn 1.7.2] |  |  | 0.700 ± 0.200 (0.500, 0.540)"
        in (table)
    )
    assert "LogisticRegression [sklearn 1.9.1] (non-private)" in table
    assert "- a note\n" in text


def test_merge_refuses_sides_that_used_different_seeds():
    sides = _sides()
    theirs, info = sides["diffprivlib"]
    sides["diffprivlib"] = (theirs.assign(seed=theirs["seed"] + 1), info)
    with pytest.raises(ValueError, match="different seeds"):
        compare.merge_runs(sides)


def test_the_fingerprint_sees_a_changed_split():
    first, second = _data.load_tasks("iris"), _data.load_tasks("iris")
    assert [compare.fingerprint(t) for t in first] == [compare.fingerprint(t) for t in second]
    second[0].X_train.iloc[0, 0] += 0.1
    assert compare.fingerprint(second[0]) != compare.fingerprint(first[0])


def _fake_env(env_dir, versions):
    """An environment whose ``python`` answers any command with ``versions``'s probe."""
    python = _env.env_python(env_dir)
    python.parent.mkdir(parents=True, exist_ok=True)
    (env_dir / "probe.json").write_text(json.dumps(versions))
    python.write_text(f'#!/bin/sh\ncat "{env_dir / "probe.json"}"\n')
    python.chmod(0o755)
    return python


class FakePip:
    """Records the commands; ``fixes`` makes the environment right, as pip would."""

    def __init__(self, env_dir, returncode=0):
        self.env_dir, self.returncode, self.commands = env_dir, returncode, []

    def __call__(self, command, **kwargs):
        self.commands.append([str(part) for part in command])
        if self.returncode == 0:
            _fake_env(self.env_dir, GOOD)
        return subprocess.CompletedProcess(command, self.returncode)


def test_an_environment_with_the_pinned_versions_is_reused_as_it_is(tmp_path):
    python = _fake_env(tmp_path, GOOD)
    assert _env.reuse_problem(_env.probe(python), compare.CHECKOUT) is None
    pip = FakePip(tmp_path)
    assert _env.ensure_env(tmp_path, compare.CHECKOUT, run=pip, log=lambda _: None) == python
    assert pip.commands == []


def test_a_wrong_version_is_reinstalled_with_the_pins(tmp_path):
    python = _fake_env(tmp_path, {**GOOD, "scikit-learn": "1.9.1"})
    problem = _env.reuse_problem(_env.probe(python), compare.CHECKOUT)
    assert problem == "scikit-learn 1.9.1 (needs 1.7.2)"
    pip = FakePip(tmp_path)
    assert _env.ensure_env(tmp_path, compare.CHECKOUT, run=pip, log=lambda _: None) == python
    # the venv exists: only pip runs, with the pins and this checkout's bench extra
    [command] = pip.commands
    assert command[:4] == [str(python), "-m", "pip", "install"]
    assert {"scikit-learn==1.7.2", "diffprivlib==0.6.6", f"{compare.CHECKOUT}[bench]"} <= set(
        command
    )


def test_a_missing_environment_is_created_and_skdp_must_come_from_this_checkout(tmp_path):
    elsewhere = {**GOOD, "skdp_origin": "/site-packages/skdp/__init__.py"}
    assert "not from" in _env.reuse_problem(elsewhere, compare.CHECKOUT)
    assert _env.reuse_problem(None, compare.CHECKOUT) == "no working environment there"
    pip = FakePip(tmp_path / "env")
    _env.ensure_env(tmp_path / "env", compare.CHECKOUT, run=pip, log=lambda _: None)
    assert pip.commands[0][1:] == ["-m", "venv", str(tmp_path / "env")]
    assert pip.commands[1][2:4] == ["pip", "install"]


def test_without_the_registry_the_error_says_what_to_do(tmp_path):
    _fake_env(tmp_path, {**GOOD, "diffprivlib": None})
    pip = FakePip(tmp_path, returncode=1)
    with pytest.raises(_env.EnvError) as error:
        _env.ensure_env(tmp_path, compare.CHECKOUT, run=pip, log=lambda _: None)
    message = str(error.value)
    assert "needs the package registry" in message
    assert "diffprivlib==0.6.6" in message and f"--env-dir {tmp_path}" in message
    assert "build.log" in message


def test_the_default_tasks_are_the_ones_the_readme_cites():
    iris, adult = compare.presets(compare.parser().parse_args([]))
    assert (iris.dataset, iris.estimators, iris.epsilons) == ("iris", "all", (0.1, 0.5, 1, 2, 5))
    assert adult.dataset == "adult" and adult.families == ("classification",)
    assert adult.estimators == "ObjectivePerturbationLogistic,DPDecisionTree(maxgddp)"
    assert adult.epsilons == (0.1, 0.5, 1, 2)
    args = compare.parser().parse_args([])
    assert (args.repeats, args.seed) == (10, 0)


def test_flags_choose_the_tasks_and_the_child_runs_the_same(tmp_path):
    argv = ["--tasks", "adult,german_credit", "--epsilons", "2,0.5", "--repeats", "3"]
    args = compare.parser().parse_args([*argv, "--seed", "7", "--data-home", str(tmp_path)])
    chosen = compare.presets(args)
    assert [(p.dataset, p.epsilons) for p in chosen] == [
        ("adult", (0.5, 2.0)),
        ("german_credit", (0.5, 2.0)),
    ]
    child = compare.parser().parse_args(compare._child_argv(args))
    assert compare.presets(child) == chosen
    assert (child.repeats, child.seed, child.data_home) == (3, 7, str(tmp_path))


def test_an_unknown_task_is_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        compare.parser().parse_args(["--tasks", "iris,irsi"])
    assert "unknown task(s) irsi" in capsys.readouterr().err


def test_the_environment_lives_in_the_user_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _env.default_env_dir() == tmp_path / "skdp" / "bench-diffprivlib"
    assert compare.parser().parse_args(["--env-dir", "x"]).env_dir.name == "x"


def test_the_command_is_registered(capsys):
    from benchmarks import __main__

    with pytest.raises(SystemExit) as done:
        __main__.main(["compare", "--help"])
    assert done.value.code == 0
    assert "--env-dir" in capsys.readouterr().out
