"""PrivateSVM's interface: the RBF kernel's random features, shapes, input types, seeds,
classes, clipping and bad input (the mechanisms are tested in test_private_svm.py)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_moons
from sklearn.svm import SVC

from skdp.exceptions import ClippingWarning, PrivacyLeakWarning
from skdp.svm._private_svm import random_fourier_features
from tests.svm.test_private_svm import X_BIN, X_IRIS, Y_BIN, Y_IRIS, model

# ---------------------------------------------------------------- random Fourier features

X_MOONS, Y_MOONS = make_moons(n_samples=200, noise=0.2, random_state=0)


def rbf(**params):
    return model(**{"kernel": "rbf", "data_norm": None, **params})


def test_random_frequencies_do_not_depend_on_the_data():
    other_X = np.random.default_rng(5).normal(size=(50, 2)) * 10
    other_y = np.arange(50) % 2
    first = rbf(n_components=60, gamma=0.5).fit(X_MOONS, Y_MOONS)
    second = rbf(n_components=60, gamma=0.5).fit(other_X, other_y)
    np.testing.assert_array_equal(first.random_frequencies_, second.random_frequencies_)
    assert first.random_frequencies_.shape == (30, 2)
    reseeded = rbf(n_components=60, gamma=0.5, random_state=1).fit(X_MOONS, Y_MOONS)
    assert not np.array_equal(first.random_frequencies_, reseeded.random_frequencies_)


def test_rbf_model_holds_no_training_points():
    fitted = rbf(n_components=60).fit(X_MOONS, Y_MOONS)
    assert fitted.random_frequencies_.shape == (30, 2)
    assert fitted.coef_.shape == (1, 60) and fitted.intercept_.shape == (1,)
    assert not hasattr(fitted, "support_vectors_") and not hasattr(fitted, "dual_coef_")
    # no training row is among the released arrays
    released = np.vstack([fitted.random_frequencies_, fitted.coef_.reshape(-1, 2)])
    assert not (released[:, None, :] == X_MOONS[None, :, :]).all(axis=2).any()


def test_random_features_have_norm_one_and_approximate_the_rbf_kernel():
    X = np.random.default_rng(0).normal(size=(6, 3))
    fitted = rbf(n_components=8000, gamma=0.7).fit(X, [0, 1] * 3)
    features = random_fourier_features(X, fitted.random_frequencies_)
    np.testing.assert_allclose(np.linalg.norm(features, axis=1), 1.0, rtol=1e-12)
    kernel = np.exp(-0.7 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    # 4000 frequencies: the error of each entry has standard deviation below 0.016
    np.testing.assert_allclose(features @ features.T, kernel, atol=0.07)


def test_rbf_ignores_data_norm():
    fitted = rbf(n_components=40).fit(X_MOONS, Y_MOONS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        tiny_norm = rbf(n_components=40, data_norm=1e-3).fit(X_MOONS, Y_MOONS)
    np.testing.assert_array_equal(fitted.coef_, tiny_norm.coef_)
    np.testing.assert_array_equal(fitted.intercept_, tiny_norm.intercept_)


@pytest.mark.parametrize("mechanism", ["output", "objective"])
def test_rbf_at_large_epsilon_is_close_to_sklearn_svc(mechanism):
    X_test, y_test = make_moons(n_samples=2000, noise=0.2, random_state=1)
    fitted = rbf(
        epsilon=1e12, C=10.0, gamma=1.0, n_components=400, mechanism=mechanism
    ).fit(X_MOONS, Y_MOONS)  # fmt: skip
    reference = SVC(kernel="rbf", gamma=1.0, C=10.0).fit(X_MOONS, Y_MOONS)
    accuracy = fitted.score(X_test, y_test)
    assert accuracy > 0.9
    assert abs(accuracy - reference.score(X_test, y_test)) <= 0.05


def test_rbf_decision_function_shapes_and_predict():
    binary = rbf(n_components=40).fit(X_MOONS, Y_MOONS)
    scores = binary.decision_function(X_MOONS)
    assert scores.shape == (200,)
    np.testing.assert_array_equal(binary.predict(X_MOONS), (scores > 0).astype(int))
    three = rbf(n_components=40, classes=[0, 1, 2], gamma=0.1).fit(X_IRIS, Y_IRIS)
    scores = three.decision_function(X_IRIS)
    assert scores.shape == (150, 3)
    np.testing.assert_array_equal(three.predict(X_IRIS), scores.argmax(axis=1))
    assert three.random_frequencies_.shape == (20, 4) and three.coef_.shape == (3, 40)


@pytest.mark.parametrize(("n_components", "n_frequencies"), [(41, 21), (1, 1), (2, 1)])
def test_odd_n_components_gets_one_more_feature(n_components, n_frequencies):
    fitted = rbf(n_components=n_components).fit(X_MOONS, Y_MOONS)
    assert fitted.random_frequencies_.shape == (n_frequencies, 2)
    assert fitted.coef_.shape == (1, 2 * n_frequencies)
    assert fitted.decision_function(X_MOONS).shape == (200,)


# -------------------------------------------------------------------------------- API


@pytest.mark.parametrize("mechanism", ["output", "objective"])
def test_binary_shapes_and_accuracy_at_moderate_epsilon(mechanism):
    fitted = model(epsilon=2.0, C=0.1, mechanism=mechanism).fit(X_BIN, Y_BIN)
    assert fitted.coef_.shape == (1, 4) and fitted.intercept_.shape == (1,)
    assert fitted.decision_function(X_BIN).shape == (300,)
    assert fitted.score(X_BIN, Y_BIN) > 0.8


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_pandas_input_gives_the_same_model_and_keeps_feature_names(kernel):
    params = {"kernel": kernel, "n_components": 20}
    frame = pd.DataFrame(X_BIN, columns=["a", "b", "c", "d"])
    fitted = model(**params).fit(frame, Y_BIN)
    from_numpy = model(**params).fit(X_BIN, Y_BIN)
    np.testing.assert_array_equal(fitted.feature_names_in_, ["a", "b", "c", "d"])
    np.testing.assert_array_equal(fitted.coef_, from_numpy.coef_)
    np.testing.assert_array_equal(fitted.intercept_, from_numpy.intercept_)
    np.testing.assert_array_equal(fitted.predict(frame), from_numpy.predict(X_BIN))
    assert not hasattr(from_numpy, "feature_names_in_")


@pytest.mark.parametrize(
    "params", [{}, {"mechanism": "objective"}, {"noise": "laplace"}, {"kernel": "rbf"}]
)
def test_seed_reproduces_and_other_seeds_differ(params):
    params = {"n_components": 20, **params}
    first = model(random_state=3, **params).fit(X_BIN, Y_BIN)
    again = model(random_state=3, **params).fit(X_BIN, Y_BIN)
    other = model(random_state=4, **params).fit(X_BIN, Y_BIN)
    np.testing.assert_array_equal(first.coef_, again.coef_)
    np.testing.assert_array_equal(first.intercept_, again.intercept_)
    assert not np.array_equal(first.coef_, other.coef_)


@pytest.mark.parametrize(
    "params", [{}, {"mechanism": "objective"}, {"kernel": "rbf", "n_components": 20}]
)
def test_inputs_are_not_mutated(params):
    X, y = X_BIN.copy(), Y_BIN.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        fitted = model(data_norm=2.0, **params).fit(X, y)  # rows get clipped
        fitted.predict(X)
    np.testing.assert_array_equal(X, X_BIN)
    np.testing.assert_array_equal(y, Y_BIN)


def test_public_class_order_is_kept():
    labels = np.where(Y_BIN == 1, "no", "yes")
    fitted = model(epsilon=1e6, classes=["yes", "no"]).fit(X_BIN, labels)
    np.testing.assert_array_equal(fitted.classes_, ["yes", "no"])
    assert (fitted.predict(X_BIN) == labels).mean() > 0.9


def test_classes_from_y_warn_of_the_leak():
    with pytest.warns(PrivacyLeakWarning, match="classes=None"):
        fitted = model(classes=None).fit(X_BIN, Y_BIN)
    np.testing.assert_array_equal(fitted.classes_, [0, 1])


def test_rows_beyond_data_norm_are_clipped_with_a_warning():
    params = {"epsilon": 1e12, "data_norm": 2.0, "mechanism": "objective"}
    with pytest.warns(ClippingWarning, match=r"rows of X had an L2 norm above 2"):
        clipped = model(**params).fit(X_BIN, Y_BIN)
    # the clipped fit is the fit on the clipped rows
    norms = np.linalg.norm(X_BIN, axis=1, keepdims=True)
    X_clipped = X_BIN * np.minimum(1, 2.0 / norms) * (1 - 2.0**-50)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        reference = model(**params).fit(X_clipped, Y_BIN)
        model().fit(X_BIN, Y_BIN)  # every row within NORM_BIN: no warning
    np.testing.assert_allclose(clipped.coef_, reference.coef_, rtol=1e-8)
    np.testing.assert_allclose(clipped.intercept_, reference.intercept_, rtol=1e-8)


# -------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"data_norm": 0.0}, "'data_norm' parameter"),
        ({"data_norm": -1.0}, "'data_norm' parameter"),
        ({"kernel": "poly"}, "'kernel' parameter"),
        ({"mechanism": "foo"}, "'mechanism' parameter"),
        ({"noise": "gaussian"}, "'noise' parameter"),
        ({"tol": 0.0}, "'tol' parameter"),
        ({"tol": 1.5}, "'tol' parameter"),
        ({"C": 0.0}, "'C' parameter"),
        ({"C": math.inf}, "'C' parameter"),
        ({"gamma": 0.0}, "'gamma' parameter"),
        ({"huber_width": 0.0}, "'huber_width' parameter"),
        ({"n_components": 0}, "'n_components' parameter"),
        ({"epsilon": 0.0}, "'epsilon' parameter"),
        ({"classes": [0, 0, 1]}, "duplicates"),
    ],
)
def test_bad_parameters_are_named(params, match):
    with pytest.raises(ValueError, match=match):
        model(**params).fit(X_BIN, Y_BIN)


def test_bad_data_is_named():
    X_nan = X_BIN.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model().fit(X_nan, Y_BIN)
    with pytest.raises(ValueError, match=r"labels not in classes: \['2'\]"):
        model().fit(X_BIN, np.where(np.arange(300) == 7, 2, Y_BIN))
    fitted = model().fit(X_BIN, Y_BIN)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X_BIN[:, :3])
    fitted = rbf(n_components=20).fit(X_BIN, Y_BIN)
    with pytest.raises(ValueError, match="features"):
        fitted.decision_function(X_BIN[:, :3])
