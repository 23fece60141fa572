"""The defaults benchmark: default constructors, declared inputs and diffprivlib (#20)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

from benchmarks import _harness, _registry, defaults

DPL_OK = _registry.diffprivlib_status()[0]


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_breast_cancer])
def test_descr_bounds_are_the_documented_range_of_each_column(loader):
    bunch = loader(as_frame=True)
    bounds = defaults.descr_bounds(bunch)
    assert list(bounds) == list(bunch.feature_names)
    low, high = (np.array([bounds[c][i] for c in bunch.feature_names]) for i in (0, 1))
    assert (low < high).all()
    # the documented table is the data's range to its printed (rounded) precision, e.g.
    # Wine's colour intensity is printed 1.3 for a minimum of 1.28
    np.testing.assert_allclose(low, bunch.data.min().to_numpy(), atol=0.05)
    np.testing.assert_allclose(high, bunch.data.max().to_numpy(), atol=0.06, rtol=0.001)


def test_declared_inputs_are_the_public_ones_the_estimator_takes():
    from skdp.cluster import DPKMeans
    from skdp.linear_model import ObjectivePerturbationLogistic

    _, X, y, public = defaults.load_dataset("iris")
    task = defaults._data.Task("iris", "classification", X, y, X, y, public)
    from skdp.svm import PrivateSVM

    logistic = defaults.declared(ObjectivePerturbationLogistic, task, 1.0, 0)
    assert logistic.classes == [0, 1, 2]
    assert logistic.bounds == public["bounds"] and logistic.data_norm is None
    svm = defaults.declared(PrivateSVM, task, 1.0, 0)  # its bounds, as OPL's
    assert svm.bounds == public["bounds"] and svm.data_norm is None
    kmeans = defaults.declared(DPKMeans, task, 1.0, 0)
    assert kmeans.n_clusters == 3 and kmeans.bounds == public["bounds"]
    assert defaults.default(DPKMeans, task, 0.5, 7).get_params()["bounds"] is None


def test_main_prints_the_table_and_writes_every_fit(tmp_path, capsys):
    out = tmp_path / "runs.csv"
    argv = ["--datasets", "iris", "--epsilons", "1", "--repeats", "2", "--quiet"]
    argv += ["--estimators", "DPKMeans,ObjectivePerturbationLogistic"]
    assert defaults.main([*argv, "--n-jobs", "1", "--out", str(out)]) == 0

    printed = capsys.readouterr().out
    assert "**iris: classification, accuracy**" in printed
    assert "**iris: clustering, ARI vs the labels**" in printed
    assert "| estimator | inputs | ε=1 |" in printed
    for variant in ("default", "declared"):
        assert f"| ObjectivePerturbationLogistic | {variant} |" in printed
        assert f"| DPKMeans | {variant} |" in printed
    assert "baseline (majority class of the test split): 0.333" in printed
    assert "default fits that failed:" in printed
    assert "classifier cells at ε >= 1 with a seed below" in printed

    runs = pd.read_csv(out, keep_default_na=False)
    assert list(runs.columns) == [*_harness.COLUMNS, "baseline"]
    skdp = runs[runs["kind"].isin(["default", "declared"])]
    assert len(skdp) == 2 * 2 * 2  # estimators x variants x repeats, one metric each
    assert set(skdp["estimator"]) == {"DPKMeans", "ObjectivePerturbationLogistic"}
    assert set(runs["epsilon"]) == {1.0}
    assert set(runs["repeat"]) == {0, 1}
    scored = skdp[skdp["metric"] != "error"]
    assert set(scored["metric"]) <= {"accuracy", "ARI"}
    # the declared fits work and spend exactly epsilon
    declared = scored[scored["kind"] == "declared"]
    assert len(declared) == 4
    np.testing.assert_allclose(declared["epsilon_spent"].astype(float), 1.0)
    assert (skdp[skdp["metric"] == "error"]["error"] != "").all()
    accuracy = runs[runs["metric"] == "accuracy"]
    np.testing.assert_allclose(accuracy["baseline"].astype(float), 1 / 3)

    dpl = runs[runs["kind"] == "diffprivlib"]
    if DPL_OK:
        assert set(dpl["estimator"]) == {"diffprivlib LogisticRegression", "diffprivlib KMeans"}
        assert len(dpl) == 2 * 2
        assert "| ObjectivePerturbationLogistic | diffprivlib LogisticRegression | " in printed
    else:
        assert dpl.empty
        assert "| ObjectivePerturbationLogistic | diffprivlib LogisticRegression | - |" in printed
    assert out.with_suffix(".md").read_text(encoding="utf-8").strip() in printed


def test_a_failing_fit_is_a_cell_not_a_crash(tmp_path, capsys, monkeypatch):
    out = tmp_path / "runs.csv"
    argv = ["--datasets", "diabetes", "--epsilons", "0.5", "--repeats", "1", "--quiet"]
    argv += ["--estimators", "FunctionalMechanismRegressor", "--no-diffprivlib"]
    original = defaults.default

    def broken(cls, task, epsilon, seed):
        return original(cls, task, -epsilon, seed)  # an invalid epsilon raises in fit

    monkeypatch.setattr(defaults, "default", broken)
    assert defaults.main([*argv, "--n-jobs", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| FunctionalMechanismRegressor | default | ERROR " in printed
    assert "default fits that failed: 1 of 1" in printed
    runs = pd.read_csv(out, keep_default_na=False)
    assert runs.loc[runs["kind"] == "default", "metric"].tolist() == ["error"]


def test_unknown_names_exit_with_the_choices():
    with pytest.raises(SystemExit):
        defaults.main(["--datasets", "mnist"])
    with pytest.raises(SystemExit, match="choose from"):
        defaults.main(["--datasets", "iris", "--estimators", "Nope"])
