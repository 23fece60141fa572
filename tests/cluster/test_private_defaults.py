"""The clusterers' default constructors: private bounds and one noisy count, any input."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from threadpoolctl import threadpool_limits

import skdp.cluster._lloyd as lloyd
from skdp import PrivacyLedger
from skdp.cluster import DPOPTICS, DPKMeans
from skdp.cluster._preamble import capacity_count
from skdp.exceptions import ClippingWarning
from skdp.utils._bounds import COUNT_SHARE, bounds_share

DEFAULTS = [
    DPKMeans(random_state=0),
    DPKMeans(3, method="grid", random_state=0),
    DPKMeans(3, method="hybrid", random_state=0),
    DPOPTICS(random_state=0),
]
IDS = ["kmeans", "kmeans-grid", "kmeans-hybrid", "optics"]


@pytest.fixture(autouse=True)
def _quiet():
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)  # 98% quantile bounds clip a tail
        warnings.filterwarnings("ignore", message=".*public fallback", category=UserWarning)
        yield


@pytest.fixture(scope="module")
def iris():
    return load_iris(as_frame=True).data


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
@pytest.mark.parametrize("model", DEFAULTS, ids=IDS)
def test_bounds_none_spends_exactly_epsilon_with_one_shared_count(model, epsilon, iris):
    """One noisy count (5% of epsilon, released first) serves both the tier of the private
    bounds and the "auto" rules; the recorded split adds up to what the ledger charged."""
    model = clone(model).set_params(epsilon=epsilon)
    with PrivacyLedger() as ledger:
        model.fit(iris)
    assert math.isclose(ledger.total.epsilon, epsilon, rel_tol=1e-12)
    assert model.privacy_spent_ == ledger.total
    split = model.epsilon_split_
    assert math.isclose(math.fsum(split.values()), epsilon, rel_tol=1e-12)
    mechanisms = [e.mechanism for e in ledger.entries]
    first = ledger.entries[0]
    assert (first.mechanism, first.epsilon) == ("geometric", split["n_samples"])
    assert split["n_samples"] == pytest.approx(COUNT_SHARE * epsilon)
    n_noisy = model.n_samples_estimate_
    share, tier = bounds_share(n_noisy, epsilon, iris.shape[1])
    assert model.bounds_tier_ == tier and split["bounds"] == pytest.approx(share * epsilon)
    # tier 1: a scan of |x| per feature (one draw for all), then a sign histogram per
    # feature; tier 2: two scans
    d = iris.shape[1]
    released = {1: ["above_threshold"] * d + ["geometric"] * d, 2: ["above_threshold"] * 2}
    bounds_entries = released.get(tier, [])
    assert mechanisms[1 : 1 + len(bounds_entries)] == bounds_entries
    spent_on_bounds = math.fsum(e.epsilon for e in ledger.entries[1 : 1 + len(bounds_entries)])
    assert math.isclose(spent_on_bounds, split["bounds"], rel_tol=1e-12)  # no second count
    lower, upper = model.bounds_
    assert lower.shape == upper.shape == (4,) and np.all(lower < upper)
    assert np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))
    n_low = capacity_count(n_noisy, split["n_samples"])
    if isinstance(model, DPKMeans) and model.method == "lloyd":
        assert model.n_iter_ == lloyd.su_iterations(split["lloyd"], n_low, 8, 4)


def test_capacity_rules_read_a_lower_bound_of_the_count():
    assert capacity_count(1000, 0.05) == 940
    assert capacity_count(10, 0.05) == 1  # never below one record
    assert capacity_count(1000, 1.0) == 997


def test_noise_never_buys_iterations(monkeypatch):
    """With the count pushed up by noise, the rule sees n~ - 3 / epsilon_n."""
    seen = []
    real = lloyd.su_iterations

    def spy(epsilon, n, k, d):
        seen.append(n)
        return real(epsilon, n, k, d)

    monkeypatch.setattr("skdp.cluster._kmeans_methods.su_iterations", spy)
    X = np.random.default_rng(0).uniform(-1, 1, size=(200, 2))
    model = DPKMeans(3, epsilon=1.0, bounds=(-1, 1), method="lloyd", random_state=0).fit(X)
    assert seen == [model.n_samples_estimate_ - 3 / model.epsilon_split_["n_samples"]]


TINY = {
    "one-row": np.array([[1.0, 2.0]]),
    "two-rows": np.array([[1.0, 2.0], [3.0, 4.0]]),
    "constant-column": np.c_[np.full(40, 7.0), np.linspace(-1, 1, 40)],
    "all-equal": np.ones((30, 3)),
    "one-feature": np.linspace(0, 1, 25).reshape(-1, 1),
    "huge-values": np.array([[1e300, 1.0], [-1e300, 2.0], [0.0, 3.0]]),
}


@pytest.mark.parametrize("X", TINY.values(), ids=TINY.keys())
@pytest.mark.parametrize("model", DEFAULTS, ids=IDS)
def test_default_fit_never_raises_on_tiny_or_degenerate_data(model, X):
    """A documented result: finite, ordered bounds, finite centres, a label per row."""
    model = clone(model).fit(X)
    assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)
    lower, upper = model.bounds_
    assert np.all(np.isfinite(lower)) and np.all(lower < upper)
    labels = model.labels_
    assert labels.shape == (X.shape[0],) and labels.dtype.kind == "i"
    if isinstance(model, DPKMeans):
        assert np.all(np.isfinite(model.cluster_centers_))
        assert np.all((model.cluster_centers_ >= lower) & (model.cluster_centers_ <= upper))
    np.testing.assert_array_equal(model.predict(X), labels)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("model", DEFAULTS, ids=IDS)
def test_nan_and_inf_are_refused_by_name(model, bad):
    X = pd.DataFrame({"a": [1.0, 2.0, bad], "b": [0.0, 1.0, 2.0]})
    with pytest.raises(ValueError, match=r"NaN|infinity"):
        clone(model).fit(X)


@pytest.mark.parametrize("model", DEFAULTS, ids=IDS)
def test_no_rows_is_refused_by_name(model):
    with pytest.raises(ValueError, match="0 sample"):
        clone(model).fit(np.zeros((0, 2)))


def test_declared_bounds_and_no_rule_spend_nothing_before_clustering():
    X = np.random.default_rng(0).uniform(-1, 1, size=(100, 2))
    model = DPKMeans(2, bounds=(-1, 1), max_iter=2, method="lloyd", random_state=0)
    with PrivacyLedger() as ledger:
        model.fit(X)
    assert model.epsilon_split_["n_samples"] == model.epsilon_split_["bounds"] == 0
    assert model.n_samples_estimate_ is None and model.bounds_tier_ is None
    assert "above_threshold" not in [e.mechanism for e in ledger.entries]
