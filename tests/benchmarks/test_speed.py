import itertools

import numpy as np
import pandas as pd
import pytest

from benchmarks import speed
from skdp.utils.discovery import all_estimators

LANDED = {
    "DPDecisionTree", "DPFrequentItemsets", "DPKMeans", "DPOPTICS",
    "FunctionalMechanismClassifier", "FunctionalMechanismRegressor", "GaussianNB",
    "MinMaxScaler", "ObjectivePerturbationLogistic", "PrivateSVM", "RobustScaler",
    "StandardScaler",
}  # fmt: skip


def test_every_public_estimator_has_an_entry_or_a_row_that_says_it_has_none(monkeypatch):
    public = {name for name, _ in all_estimators()}
    assert LANDED <= set(speed.specs()) <= public
    monkeypatch.setattr(speed, "specs", dict)
    frame = speed.run(["GaussianNB"], ["declared"], [100], 1, 60.0)
    assert frame["estimator"].tolist() == ["GaussianNB"]
    assert frame["note"].iloc[0] == "not measured: no entry in this benchmark"
    assert np.isnan(frame["ratio_median"].iloc[0])


def test_a_tiny_run_writes_one_sane_row_per_estimator_variant_and_size(tmp_path):
    out = tmp_path / "speed.csv"
    argv = ["--sizes", "200,400", "--repeats", "2", "--estimators", "GaussianNB,StandardScaler",
            "--variants", "declared", "--out", str(out)]  # fmt: skip
    assert speed.main(argv) == 0
    frame = pd.read_csv(out)
    assert list(frame.columns) == speed.COLUMNS
    assert sorted(zip(frame["estimator"], frame["n_samples"], strict=True)) == [
        ("GaussianNB", 200), ("GaussianNB", 400), ("StandardScaler", 200), ("StandardScaler", 400)
    ]  # fmt: skip
    assert (frame["variant"] == "declared").all() and (frame["repeats"] == 2).all()
    for side in ("private", "baseline"):
        assert (frame[f"{side}_min_s"] > 0).all()
        assert (frame[f"{side}_min_s"] <= frame[f"{side}_median_s"]).all()
        assert (frame[f"{side}_peak_mb"] > 0).all()
        assert (frame[f"{side}_rss_mb"] >= 0).all()  # NaN fails: measured in a child
        assert np.isfinite(frame[f"{side}_exponent"]).all()
    ratio = frame["private_median_s"] / frame["baseline_median_s"]
    np.testing.assert_allclose(frame["ratio_median"], ratio)
    cpu = frame["private_cpu_median_s"] / frame["baseline_cpu_median_s"]
    np.testing.assert_allclose(frame["ratio_cpu_median"], cpu)
    np.testing.assert_allclose(
        frame["memory_ratio"], frame["private_peak_mb"] / frame["baseline_peak_mb"]
    )
    rss = frame["private_rss_mb"] / frame["baseline_rss_mb"].where(frame["baseline_rss_mb"] > 0)
    np.testing.assert_allclose(frame["rss_ratio"], rss)
    assert (frame["load_avg"] >= 0).all()


def test_larger_sizes_are_skipped_with_a_note_once_a_fit_is_too_slow(tmp_path):
    out = tmp_path / "speed.csv"
    argv = ["--sizes", "100,200", "--repeats", "1", "--estimators", "StandardScaler",
            "--variants", "declared", "--max-seconds", "0", "--no-rss",
            "--out", str(out)]  # fmt: skip
    speed.main(argv)
    frame = pd.read_csv(out)
    assert frame["n_samples"].tolist() == [100, 200]
    assert frame["private_rss_mb"].isna().all() and frame["baseline_rss_mb"].isna().all()
    assert np.isfinite(frame["private_median_s"].iloc[0])
    assert np.isnan(frame["private_median_s"].iloc[1])
    assert frame["note"].iloc[1].startswith("skipped: a fit took over 0 s")


def test_exponent_is_the_log_log_slope():
    assert speed.exponent([1e4, 1e5, 1e6], [0.1, 1.0, 10.0]) == pytest.approx(1.0)
    assert speed.exponent([1e4, 1e6], [1.0, 100.0 * 100]) == pytest.approx(2.0)
    assert np.isnan(speed.exponent([1e4, 1e5], [0.1, np.nan]))


def test_exact_itemsets_are_the_most_frequent_singles_and_pairs():
    X, _ = speed.transaction_data(500, seed=1)
    model = speed.ExactItemsets(top_k=5).fit(X)
    supports = {frozenset([a]): X[:, a].mean() for a in range(X.shape[1])}
    for a, b in itertools.combinations(range(X.shape[1]), 2):
        supports[frozenset([a, b])] = (X[:, a] & X[:, b]).mean()
    best = sorted(supports.values(), reverse=True)[:5]
    np.testing.assert_allclose(model.supports_, best)
    assert [supports[s] for s in model.itemsets_] == pytest.approx(best)


def test_a_slow_counterpart_skips_nothing_where_it_is_not_run_any_more(monkeypatch):
    # DPOPTICS: scikit-learn's OPTICS takes minutes at 1e4 rows and is not run above 2e4
    def measure(spec, variant, n, repeats, *, baseline=True, rss=True):
        seconds = {"private_median_s": 1.0, "baseline_median_s": 100.0 if baseline else np.nan}
        return {"estimator": spec.name, "variant": variant, "n_samples": n, **seconds,
                "ratio_median": 0.01, "ratio_cpu_median": 0.01, "private_rss_mb": 1.0,
                "baseline_rss_mb": np.nan, "load_avg": 0.0}  # fmt: skip

    monkeypatch.setattr(speed, "measure", measure)
    spec = speed.specs()["StandardScaler"]
    spec.max_baseline_rows = 150
    rows = speed._variant_rows(spec, "declared", [100, 200, 300], 1, 10.0, lambda line: None)
    assert [row["n_samples"] for row in rows] == [100, 200, 300]
    assert all(row["private_median_s"] == 1.0 for row in rows)
    spec.max_baseline_rows = 250  # the counterpart would run at 200 rows: skipped there
    rows = speed._variant_rows(spec, "declared", [100, 200, 300], 1, 10.0, lambda line: None)
    assert [row.get("private_median_s") for row in rows] == [1.0, None, 1.0]
    assert rows[1]["note"].startswith("skipped: a fit took over 10 s at 1e+02 rows")


def test_fit_rss_is_the_peak_of_one_fit_of_the_chosen_side(monkeypatch):
    seen = []

    def peak(fit, model, X, y):
        seen.append((type(model).__module__.split(".")[0], len(X)))
        return 1.5

    monkeypatch.setattr(speed, "rss_peak_mb", peak)
    assert speed.fit_rss_mb("GaussianNB", "declared", "private", 3000) == 1.5
    assert speed.fit_rss_mb("GaussianNB", "declared", "baseline", 3000) == 1.5
    assert seen == [("skdp", 3000), ("sklearn", 3000)]  # after a warm-up fit on 1000 rows


def test_a_data_variant_runs_its_own_data_and_declared_inputs(tmp_path):
    spec = speed.specs()["PCA"]
    X, _ = spec.data_for("defaults@normal")(2000, seed=0)
    assert np.abs(X).max() > 2.0  # outside the default data's box [-1, 1]
    assert np.abs(spec.data_for("defaults")(2000, seed=0)[0]).max() <= 1.0
    assert spec.private("declared@normal", 0).bounds == (-4.0, 4.0)
    assert spec.private("declared", 0).bounds == speed.BOX
    assert spec.private("defaults@normal", 0).bounds is None
    assert spec.private("defaults", 3).random_state is None  # a real release's generator
    assert spec.private("declared", 3).random_state == 3
    out = tmp_path / "speed.csv"
    argv = ["--sizes", "300", "--repeats", "1", "--estimators", "PCA", "--variants",
            "defaults", "--no-rss", "--out", str(out)]  # fmt: skip
    speed.main(argv)
    frame = pd.read_csv(out)
    assert frame["variant"].tolist() == ["defaults", "defaults@normal"]
    assert np.isfinite(frame["ratio_median"]).all()
