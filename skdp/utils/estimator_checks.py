"""skdp's own estimator checks, run on top of scikit-learn's.

Each check takes an estimator *instance* (unfitted, seeded, configured for the test)
and raises ``AssertionError`` when the estimator breaks one of skdp's rules
(``architecture.md`` section 3): the ledger measures exactly ``epsilon``, the privacy
metadata is set, nothing the user passed in is mutated, a seed reproduces the model,
``random_state=None`` really is random, and fitted models pickle.

>>> from skdp.utils.estimator_checks import skdp_checks
>>> [check.__name__ for check in skdp_checks()][:2]
['check_ledger_equals_epsilon', 'check_privacy_metadata']
"""

import copy
import math
import pickle

import joblib
import numpy as np
from sklearn.base import clone, is_classifier, is_regressor

from skdp.accounting import PrivacyBudget, PrivacyLedger

__all__ = [
    "check_inputs_not_mutated",
    "check_ledger_equals_epsilon",
    "check_params_not_mutated",
    "check_pickle_roundtrip",
    "check_privacy_metadata",
    "check_seed_reproducible",
    "check_unseeded_fits_differ",
    "make_check_data",
    "skdp_checks",
]


def make_check_data(estimator, n_samples=200, n_features=3, random_state=0):
    """Data in ``[0, 1]`` fitting the estimator's kind: ``(X, y)``, ``y`` may be None.

    An estimator that needs other data defines ``_skdp_check_data(self)`` returning
    ``(X, y)``.
    """
    if hasattr(estimator, "_skdp_check_data"):
        return estimator._skdp_check_data()
    rng = np.random.default_rng(random_state)
    X = rng.uniform(size=(n_samples, n_features))
    if is_classifier(estimator):
        return X, (X[:, 0] + X[:, 1] > 1).astype(int)
    if is_regressor(estimator):
        return X, 0.5 * X[:, 0] + 0.25 * X[:, 1] + 0.1 * rng.uniform(size=n_samples)
    return X, None


def _fit(estimator, X, y):
    return estimator.fit(X) if y is None else estimator.fit(X, y)


def _use(estimator, X):
    """Call whatever the fitted estimator offers on new data."""
    for method in ("predict", "transform", "decision_function", "predict_proba"):
        if hasattr(estimator, method):
            return getattr(estimator, method)(X)
    return None


def _fitted_state(estimator):
    return {k: v for k, v in vars(estimator).items() if k.endswith("_") and not k.startswith("_")}


def check_ledger_equals_epsilon(estimator):
    """The mechanisms called during ``fit`` spend exactly ``epsilon``, as recorded."""
    X, y = make_check_data(estimator)
    with PrivacyLedger() as ledger:
        _fit(estimator, X, y)
    assert ledger.entries, "fit called no mechanism"
    assert math.isclose(ledger.total.epsilon, estimator.epsilon, rel_tol=1e-9), (
        f"fit spent epsilon={ledger.total.epsilon!r}, but epsilon={estimator.epsilon!r}"
    )
    assert estimator.privacy_spent_ == ledger.total, "privacy_spent_ is not what was spent"


def check_privacy_metadata(estimator):
    """``privacy_spent_`` is a PrivacyBudget; ``epsilon_split_`` adds up to ``epsilon``."""
    X, y = make_check_data(estimator)
    _fit(estimator, X, y)
    assert isinstance(estimator.privacy_spent_, PrivacyBudget)
    split = estimator.epsilon_split_
    assert isinstance(split, dict) and split, "epsilon_split_ must be a non-empty dict"
    assert math.isclose(math.fsum(split.values()), estimator.epsilon, rel_tol=1e-9), split


def check_params_not_mutated(estimator):
    """``fit`` leaves every constructor parameter exactly as the user set it."""
    X, y = make_check_data(estimator)
    before = joblib.hash(estimator.get_params(deep=True))
    _fit(estimator, X, y)
    assert joblib.hash(estimator.get_params(deep=True)) == before, "fit changed a parameter"


def check_inputs_not_mutated(estimator):
    """Neither ``fit`` nor prediction writes into the arrays passed in."""
    X, y = make_check_data(estimator)
    X_copy, y_copy = copy.deepcopy(X), copy.deepcopy(y)
    _fit(estimator, X, y)
    _use(estimator, X)
    np.testing.assert_array_equal(X, X_copy, err_msg="X was modified")
    if y is not None:
        np.testing.assert_array_equal(y, y_copy, err_msg="y was modified")


def check_seed_reproducible(estimator):
    """Two fits with the same integer seed give the same model and predictions."""
    X, y = make_check_data(estimator)
    first = _fit(clone(estimator).set_params(random_state=7), X, y)
    second = _fit(clone(estimator).set_params(random_state=7), X, y)
    assert joblib.hash(_fitted_state(first)) == joblib.hash(_fitted_state(second))
    output = _use(first, X)
    if output is not None:
        np.testing.assert_array_equal(output, _use(second, X))


def check_unseeded_fits_differ(estimator, attempts=5):
    """With ``random_state=None`` fits draw different noise (a fresh secure generator).

    Discrete noise at a large epsilon can repeat by chance, so up to ``attempts``
    further fits may be compared with the first; one must differ.
    """
    X, y = make_check_data(estimator)
    first = joblib.hash(_fitted_state(_fit(clone(estimator).set_params(random_state=None), X, y)))
    for _ in range(attempts):
        again = _fit(clone(estimator).set_params(random_state=None), X, y)
        if joblib.hash(_fitted_state(again)) != first:
            return
    raise AssertionError(
        f"{attempts + 1} unseeded fits gave the same model: is the noise really drawn?"
    )


def check_pickle_roundtrip(estimator):
    """A fitted estimator survives pickling with the same state and predictions."""
    X, y = make_check_data(estimator)
    _fit(estimator, X, y)
    restored = pickle.loads(pickle.dumps(estimator))
    assert joblib.hash(_fitted_state(restored)) == joblib.hash(_fitted_state(estimator))
    output = _use(estimator, X)
    if output is not None:
        np.testing.assert_array_equal(output, _use(restored, X))


def skdp_checks():
    """All of skdp's estimator checks, in order."""
    return [
        check_ledger_equals_epsilon,
        check_privacy_metadata,
        check_params_not_mutated,
        check_inputs_not_mutated,
        check_seed_reproducible,
        check_unseeded_fits_differ,
        check_pickle_roundtrip,
    ]
