"""The Pipeline promise: a private scaler and a private model spend the sum, and refit
learns everything again from the new data."""

import warnings

import joblib
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.pipeline import make_pipeline

from skdp import privacy_spent
from skdp.accounting import PrivacyLedger
from skdp.exceptions import PrivacyLeakWarning
from skdp.linear_model import ObjectivePerturbationLogistic
from skdp.preprocessing import MinMaxScaler, RobustScaler, StandardScaler

X, Y = make_classification(2000, 4, n_informative=3, n_redundant=0, class_sep=2.0, random_state=0)
FRAME = pd.DataFrame(X * [1, 10, 100, 1000] + [0, 50, -500, 2e4], columns=list("abcd"))


def _pipe(scaler_cls=StandardScaler):
    return make_pipeline(
        scaler_cls(epsilon=0.2, random_state=0),
        ObjectivePerturbationLogistic(epsilon=0.8, classes=[0, 1], random_state=0),
    ).set_output(transform="pandas")


def _fitted_state(step):
    return {k: v for k, v in vars(step).items() if k.endswith("_") and not k.startswith("_")}


SCALERS = [StandardScaler, MinMaxScaler, RobustScaler]


@pytest.mark.parametrize("scaler_cls", SCALERS)
def test_pipeline_on_a_dataframe_spends_the_sum(scaler_cls):
    pipe = _pipe(scaler_cls)
    assert privacy_spent(clone(pipe).fit(FRAME, Y)).epsilon == pytest.approx(1.0)
    with PrivacyLedger() as ledger, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipe.fit(FRAME, Y)
    assert not [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert ledger.total.epsilon == pytest.approx(1.0)
    assert privacy_spent(pipe).epsilon == pytest.approx(1.0)
    assert pipe.score(FRAME, Y) > 0.75  # non-private scaler and logistic: 0.81
    assert list(pipe[0].get_feature_names_out()) == list("abcd")


@pytest.mark.parametrize("scaler_cls", SCALERS)
def test_refit_reuses_nothing_learnt_from_the_first_data(scaler_cls):
    pipe = _pipe(scaler_cls)
    pipe.fit(FRAME, Y)
    first = joblib.hash(_fitted_state(pipe[0]))
    other = FRAME * 3 - 7
    pipe.fit(other, 1 - Y)
    fresh = _pipe(scaler_cls).fit(other, 1 - Y)  # a never-fitted pipeline, same seeds
    for refitted, new in zip(pipe, fresh, strict=True):
        assert joblib.hash(_fitted_state(refitted)) == joblib.hash(_fitted_state(new))
    assert joblib.hash(_fitted_state(pipe[0])) != first
    assert privacy_spent(pipe).epsilon == pytest.approx(1.0)


def test_the_issues_pipeline_spends_one_as_written():
    """Issue 24's line, defaults and all (classes taken from y, with its warning)."""
    pipe = make_pipeline(StandardScaler(epsilon=0.2), ObjectivePerturbationLogistic(epsilon=0.8))
    with PrivacyLedger() as ledger, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(X, Y)
        pipe.fit(X[:1000] * 2, Y[:1000])  # a refit spends again, as a new release
    assert ledger.total.epsilon == pytest.approx(2.0)
    assert privacy_spent(pipe).epsilon == pytest.approx(1.0)
    assert pipe[0].n_samples_seen_ < 1500  # learnt from the second data alone
