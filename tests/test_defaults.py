"""The user's first try: every public estimator with its default constructor.

``Est(random_state=0)`` and nothing else, on scikit-learn's toy data as DataFrames and
on awkward inputs: it fits, privately (the ledger sees exactly ``epsilon``), and warns
at most that classes were read from ``y``, that values were clipped to the bounds it
estimated, or that those bounds had to be one box for every feature (never the public
fallback box); truly wrong input is a ``ValueError`` that names the problem.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets
from sklearn.base import is_classifier, is_regressor

from skdp.exceptions import ClippingWarning, PrivacyLeakWarning, PublicBoundsWarning
from skdp.utils.discovery import all_estimators

ESTIMATORS = [cls for _, cls in all_estimators()]
ALLOWED_WARNINGS = (PrivacyLeakWarning, ClippingWarning, PublicBoundsWarning)


def _toy(name):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True, as_frame=True)
    return X, y


def _data_for(cls):
    if is_regressor(cls()):
        return ["diabetes"]
    return ["iris", "wine", "breast_cancer"]


def _fit(estimator, X, y, *, raw=False):
    if is_classifier(estimator) or is_regressor(estimator):
        return estimator.fit(X, y)
    if "binarize" in estimator.get_params() and not raw:  # transactions: above the median
        return estimator.fit(X > X.median())
    return estimator.fit(X)


def _fit_quietly(estimator, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _fit(estimator, X, y)
    unexpected = [
        w
        for w in caught
        if not issubclass(w.category, ALLOWED_WARNINGS)
        or (issubclass(w.category, PublicBoundsWarning) and "fallback" in str(w.message))
    ]
    assert not unexpected, [f"{w.category.__name__}: {w.message}" for w in unexpected]
    return estimator


@pytest.mark.parametrize(
    ("cls", "dataset"),
    [(cls, name) for cls in ESTIMATORS for name in _data_for(cls)],
    ids=lambda v: v if isinstance(v, str) else v.__name__,
)
def test_default_constructor_fits_toy_data_privately(cls, dataset):
    X, y = _toy(dataset)
    estimator = _fit_quietly(cls(random_state=0), X, y)
    assert estimator.privacy_spent_.epsilon == pytest.approx(estimator.epsilon, rel=1e-9)
    if hasattr(estimator, "predict") and (is_classifier(estimator) or is_regressor(estimator)):
        prediction = estimator.predict(X)
        assert prediction.shape == (len(X),)
        if is_regressor(estimator):
            assert np.all(np.isfinite(prediction))
        else:
            assert set(np.unique(prediction)) <= set(np.unique(y))


def _awkward_inputs(cls):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"])
    y = pd.Series(np.arange(40) % 2) if not is_regressor(cls()) else X["a"] * 2.0
    constant = X.assign(b=3.0)
    return {
        "one row": (X.iloc[:1], y.iloc[:1]),
        "two rows": (X.iloc[[0, 1]], y.iloc[[0, 1]]),
        "constant column": (constant, y),
        "all-equal target": (X, pd.Series(np.ones(len(X)), index=X.index)),
    }


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_awkward_inputs_fit_or_raise_a_clear_error(cls):
    for case, (X, y) in _awkward_inputs(cls).items():
        estimator = cls(random_state=0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyLeakWarning)
                warnings.simplefilter("ignore", ClippingWarning)
                _fit(estimator, X, y)
        except ValueError as exc:  # only a clear, named refusal is acceptable
            message = str(exc)
            assert len(message) > 20, (case, message)
            assert is_classifier(estimator) and case in ("one row", "all-equal target"), (
                case,
                message,
            )
            assert "class" in message, (case, message)
            continue
        assert estimator.privacy_spent_.epsilon == pytest.approx(estimator.epsilon, rel=1e-9)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_is_a_clear_error(cls, bad):
    X = np.random.default_rng(0).normal(size=(30, 2))
    X[3, 1] = bad
    y = (np.arange(30) % 2).astype(float if is_regressor(cls()) else int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match=r"(?i)nan|inf|finite"):
            _fit(cls(random_state=0), pd.DataFrame(X, columns=["a", "b"]), pd.Series(y), raw=True)
