"""skdp.naive_bayes.CategoricalNB: budget, public categories, every cell noised, encodings."""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB as SklearnCategoricalNB

from skdp import PrivacyLedger
from skdp.exceptions import ClippingWarning
from skdp.naive_bayes import CategoricalNB

RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, size=600)
# feature 0 depends on the class, feature 1 is noise; category 3 of feature 1 never occurs
X = np.column_stack([(Y + RNG.integers(0, 2, 600)) % 3, RNG.integers(0, 3, 600)])
PUBLIC = {"categories": [3, 4], "classes": [0, 1]}


def _fit(**params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # clipping and the fallback box at small epsilon
        return CategoricalNB(**{"random_state": 0, **params}).fit(X, Y)


@pytest.mark.parametrize(
    "params", [PUBLIC, {"bounds": (0, 3), "classes": [0, 1]}, {"classes": [0, 1]}]
)
@pytest.mark.parametrize("epsilon", [0.05, 1.0])
def test_the_fit_spends_epsilon_exactly(params, epsilon):
    with PrivacyLedger() as outer:
        model = _fit(epsilon=epsilon, **params)
    assert model.privacy_spent_.epsilon == pytest.approx(epsilon, rel=1e-12)
    assert outer.total.epsilon == pytest.approx(epsilon, rel=1e-12)
    split = model.epsilon_split_
    assert set(split) == {"bounds", "class_counts", "category_counts"}
    assert sum(split.values()) == pytest.approx(epsilon, rel=1e-12)
    assert split["class_counts"] == pytest.approx(epsilon / 3)  # epsilon / (d + 1)
    if "classes" in params and len(params) == 1:
        assert split["bounds"] > 0 or epsilon == 0.05  # tier 3 at 0.05: nothing spent
    else:
        assert split["bounds"] == 0.0
        assert split["category_counts"] == pytest.approx(2 * epsilon / 3)


def test_large_epsilon_gives_scikit_learns_model():
    model = _fit(epsilon=1e6, **PUBLIC)
    reference = SklearnCategoricalNB(min_categories=[3, 4]).fit(X.astype(int), Y)
    for ours, theirs in zip(model.feature_log_prob_, reference.feature_log_prob_, strict=True):
        np.testing.assert_allclose(ours, theirs, atol=1e-3)
    np.testing.assert_allclose(model.class_count_, reference.class_count_, atol=0.5)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-3)


def test_every_cell_is_noised_including_absent_categories():
    """Category 3 of feature 1 never occurs: its released counts still vary by seed."""
    fits = [_fit(epsilon=0.5, random_state=seed, **PUBLIC) for seed in range(20)]
    absent = [model.category_count_[1][:, 3] for model in fits]
    assert np.count_nonzero(np.concatenate(absent)) >= 5
    # and the exact total is never what comes out: the class counts are noisy
    totals = {_fit(epsilon=0.5, random_state=s, **PUBLIC).class_count_.sum() for s in range(10)}
    assert len(totals) == 10 and X.shape[0] not in totals


def test_the_categories_come_from_the_public_domain_not_the_data():
    """With declared categories or bounds, the fitted domain is the same on data that
    uses fewer categories; a declared domain rejects values outside it."""
    few = X.copy()
    few[:, 0] = np.minimum(few[:, 0], 1)
    for params in (PUBLIC, {"bounds": (0, 3), "classes": [0, 1]}):
        a, b = _fit(**params), CategoricalNB(random_state=0, **params).fit(few, Y)
        np.testing.assert_array_equal(a.n_categories_, b.n_categories_)
    with pytest.raises(ValueError, match="outside its declared categories"):
        CategoricalNB(categories=[2, 4], classes=[0, 1]).fit(X, Y)
    with pytest.raises(ValueError, match="bounds must be None"):
        CategoricalNB(categories=[3, 4], bounds=(0, 3), classes=[0, 1]).fit(X, Y)


def test_declared_category_values_and_predict_of_unknown_values():
    labels = np.where(X == 0, -1.5, np.where(X == 1, 2.0, 7.0))
    model = CategoricalNB(
        epsilon=1e6, categories=[[-1.5, 2.0, 7.0], [-1.5, 2.0, 7.0, 9.0]], classes=[0, 1],
        random_state=0,
    ).fit(labels, Y)  # fmt: skip
    np.testing.assert_array_equal(model.predict(labels), _fit(epsilon=1e6, **PUBLIC).predict(X))
    with pytest.raises(ValueError, match="declared categories"):
        model.predict([[0.0, 2.0]])


def test_the_default_encodes_any_finite_input():
    """Integer codes when the box holds 2..max_categories integers, ten bins otherwise;
    out-of-box values are clipped with a warning."""
    wide = np.column_stack([X[:, 0], 1000.0 * RNG.normal(size=600), 0.01 * RNG.normal(size=600)])
    with pytest.warns(ClippingWarning):
        box = [(0, -3000, -0.03), (3, 3000, 0.03)]
        model = CategoricalNB(bounds=box, classes=[0, 1], random_state=0).fit(wide, Y)
    assert model.encoding_ == ["integer", "bins", "bins"]
    np.testing.assert_array_equal(model.n_categories_, [4, 10, 10])
    np.testing.assert_array_equal(model.categories_[0], [0, 1, 2, 3])
    np.testing.assert_allclose(model.categories_[1][[0, -1]], [-2700, 2700])
    assert set(model.predict(np.array([[-1e9, 1e9, np.pi]]))) <= {0, 1}
    default = _fit(classes=[0, 1], epsilon=1.0)
    assert default.encoding_ == ["integer", "integer"] and default.bounds_ is not None


def test_refit_estimates_again():
    model = _fit(classes=[0, 1], epsilon=2.0)
    first = model.n_categories_.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X * 20, Y)
    assert model.categories is None and model.bounds is None
    assert np.all(model.n_categories_ != first)


def test_priors():
    assert np.allclose(np.exp(_fit(fit_prior=False, **PUBLIC).class_log_prior_), 0.5)
    model = _fit(class_prior=[0.9, 0.1], **PUBLIC)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [0.9, 0.1])
    with pytest.raises(ValueError, match="sum of the priors"):
        _fit(class_prior=[0.9, 0.9], **PUBLIC)


def test_features_drowned_in_noise_are_set_aside():
    """At epsilon 0.02 the average cell of these 600 records (100 and 75 of them) is
    below the noise scale (150): both features are ignored and every row goes to the
    class of largest noisy count; at epsilon 5 none is."""
    small = _fit(epsilon=0.02, **PUBLIC)
    assert small.ignored_features_.tolist() == [True, True]
    assert np.ptp(small.feature_log_prob_[0], axis=0).max() == 0  # the same for all classes
    majority = small.classes_[np.argmax(small.class_count_)]
    assert np.all(small.predict(X) == majority)
    large = _fit(epsilon=5.0, **PUBLIC)
    assert not large.ignored_features_.any()
    assert len(set(large.predict(X))) == 2


def _peak_bytes(fit):
    tracemalloc.start()
    try:
        fit()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_integer_codes_are_counted_without_a_copy_of_x():
    """Integer X is read one column at a time in its own dtype, into one-byte codes:
    the fit holds less than one copy of X (3.3 copies before: a float64 copy, int64
    codes and an n x d flat index), and gives the model that float X gives."""
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 8, size=(40_000, 10)), rng.integers(0, 2, size=40_000)
    model = CategoricalNB(categories=[8] * 10, classes=[0, 1], random_state=0)
    assert _peak_bytes(lambda: model.fit(X, y)) < X.nbytes
    floats = CategoricalNB(categories=[8] * 10, classes=[0, 1], random_state=0)
    floats.fit(X.astype(float), y)
    np.testing.assert_array_equal(model.class_count_, floats.class_count_)
    for found, expected in zip(model.category_count_, floats.category_count_, strict=True):
        np.testing.assert_array_equal(found, expected)
    np.testing.assert_array_equal(model.predict_proba(X[:50]), floats.predict_proba(X[:50]))
