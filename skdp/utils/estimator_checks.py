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

    Parameters
    ----------
    estimator : estimator instance
        Its kind (classifier, regressor, other) sets ``y``.
    n_samples : int, default=200
        Number of rows of ``X``.
    n_features : int, default=3
        Number of columns of ``X``.
    random_state : int, default=0
        Seed of the data.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Uniform on ``[0, 1]``.
    y : ndarray of shape (n_samples,) or None
        Labels ``0``/``1`` (``x0 + x1 > 1``) for a classifier, a noisy linear target
        in ``[0, 0.85]`` for a regressor, None otherwise.

    Examples
    --------
    >>> from skdp.cluster import DPKMeans
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import make_check_data
    >>> X, y = make_check_data(FunctionalMechanismRegressor(), n_samples=50)
    >>> X.shape, y.shape
    ((50, 3), (50,))
    >>> X, y = make_check_data(DPKMeans())
    >>> X.shape, y is None
    ((200, 3), True)
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
    """The mechanisms called during ``fit`` spend exactly ``epsilon``, as recorded.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted skdp estimator, seeded and configured for the test. It is
        fitted in place.

    Raises
    ------
    AssertionError
        When ``fit`` calls no mechanism, the ledger's total is not ``epsilon``, or
        ``privacy_spent_`` differs from it.

    Examples
    --------
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import check_ledger_equals_epsilon
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> check_ledger_equals_epsilon(model)  # passes: no output
    >>> model.privacy_spent_
    PrivacyBudget(epsilon=1.0, delta=0.0)
    """
    X, y = make_check_data(estimator)
    with PrivacyLedger() as ledger:
        _fit(estimator, X, y)
    assert ledger.entries, "fit called no mechanism"
    assert math.isclose(ledger.total.epsilon, estimator.epsilon, rel_tol=1e-9), (
        f"fit spent epsilon={ledger.total.epsilon!r}, but epsilon={estimator.epsilon!r}"
    )
    assert estimator.privacy_spent_ == ledger.total, "privacy_spent_ is not what was spent"


def check_privacy_metadata(estimator):
    """``privacy_spent_`` is a PrivacyBudget; ``epsilon_split_`` adds up to ``epsilon``.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted skdp estimator, seeded and configured for the test. It is
        fitted in place.

    Raises
    ------
    AssertionError
        When either attribute is missing or wrong after ``fit``.

    Examples
    --------
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import check_privacy_metadata
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> check_privacy_metadata(model)  # passes: no output
    >>> model.epsilon_split_
    {'n_samples': 0.0, 'bounds': 0.0, 'moments': 1.0}
    """
    X, y = make_check_data(estimator)
    _fit(estimator, X, y)
    assert isinstance(estimator.privacy_spent_, PrivacyBudget)
    split = estimator.epsilon_split_
    assert isinstance(split, dict) and split, "epsilon_split_ must be a non-empty dict"
    assert math.isclose(math.fsum(split.values()), estimator.epsilon, rel_tol=1e-9), split


def check_params_not_mutated(estimator):
    """``fit`` leaves every constructor parameter exactly as the user set it.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted skdp estimator, seeded and configured for the test. It is
        fitted in place.

    Raises
    ------
    AssertionError
        When ``get_params(deep=True)`` changed during ``fit``.

    Examples
    --------
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import check_params_not_mutated
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> check_params_not_mutated(model)  # passes: no output
    >>> model.get_params()["bounds"]
    (0.0, 1.0)
    """
    X, y = make_check_data(estimator)
    before = joblib.hash(estimator.get_params(deep=True))
    _fit(estimator, X, y)
    assert joblib.hash(estimator.get_params(deep=True)) == before, "fit changed a parameter"


def check_inputs_not_mutated(estimator):
    """Neither ``fit`` nor prediction writes into the arrays passed in.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted skdp estimator, seeded and configured for the test. It is
        fitted in place.

    Raises
    ------
    AssertionError
        When ``X`` or ``y`` was modified.

    Examples
    --------
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import check_inputs_not_mutated
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> check_inputs_not_mutated(model)  # passes: no output
    >>> model.coef_.shape
    (3,)
    """
    X, y = make_check_data(estimator)
    X_copy, y_copy = copy.deepcopy(X), copy.deepcopy(y)
    _fit(estimator, X, y)
    _use(estimator, X)
    np.testing.assert_array_equal(X, X_copy, err_msg="X was modified")
    if y is not None:
        np.testing.assert_array_equal(y, y_copy, err_msg="y was modified")


def check_seed_reproducible(estimator):
    """Two fits with the same integer seed give the same model and predictions.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted skdp estimator, seeded and configured for the test. It is not
        modified: the fits are made on clones.

    Raises
    ------
    AssertionError
        When the two fitted states or their outputs differ.

    Examples
    --------
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import check_seed_reproducible
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> check_seed_reproducible(model)  # passes: no output
    >>> hasattr(model, "coef_")  # the fits were made on clones
    False
    """
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

    Parameters
    ----------
    estimator : estimator instance
        An unfitted skdp estimator, configured for the test. It is not modified: the
        fits are made on clones with ``random_state=None``.
    attempts : int, default=5
        How many further fits may be compared with the first.

    Raises
    ------
    AssertionError
        When all ``attempts + 1`` fits gave the same fitted state.

    Examples
    --------
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import check_unseeded_fits_differ
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> check_unseeded_fits_differ(model)  # passes: no output
    >>> hasattr(model, "coef_")  # the fits were made on clones
    False
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
    """A fitted estimator survives pickling with the same state and predictions.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted skdp estimator, seeded and configured for the test. It is
        fitted in place.

    Raises
    ------
    AssertionError
        When the unpickled copy has another fitted state or other outputs.

    Examples
    --------
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import check_pickle_roundtrip
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> check_pickle_roundtrip(model)  # passes: no output
    >>> model.privacy_spent_.epsilon
    1.0
    """
    X, y = make_check_data(estimator)
    _fit(estimator, X, y)
    restored = pickle.loads(pickle.dumps(estimator))
    assert joblib.hash(_fitted_state(restored)) == joblib.hash(_fitted_state(estimator))
    output = _use(estimator, X)
    if output is not None:
        np.testing.assert_array_equal(output, _use(restored, X))


def skdp_checks():
    """All of skdp's estimator checks, in order.

    Returns
    -------
    checks : list of callable
        Each takes an estimator instance and raises ``AssertionError`` when it fails.

    Examples
    --------
    >>> from sklearn.base import clone
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> from skdp.utils.estimator_checks import skdp_checks
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> for check in skdp_checks():
    ...     check(clone(model))  # each on a fresh copy; all pass
    >>> [check.__name__ for check in skdp_checks()]  # doctest: +NORMALIZE_WHITESPACE
    ['check_ledger_equals_epsilon', 'check_privacy_metadata', 'check_params_not_mutated',
     'check_inputs_not_mutated', 'check_seed_reproducible', 'check_unseeded_fits_differ',
     'check_pickle_roundtrip']
    """
    return [
        check_ledger_equals_epsilon,
        check_privacy_metadata,
        check_params_not_mutated,
        check_inputs_not_mutated,
        check_seed_reproducible,
        check_unseeded_fits_differ,
        check_pickle_roundtrip,
    ]
