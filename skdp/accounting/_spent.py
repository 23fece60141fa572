"""``privacy_spent``: what a fitted object cost, composed over its parts."""

import math
import warnings
from numbers import Real

from skdp.accounting._budget import _ZERO, PrivacyBudget, _as_budget
from skdp.exceptions import PrivacyLeakWarning


def privacy_spent(obj):
    """The privacy spent to produce ``obj``.

    Parameters
    ----------
    obj : object
        One of:

        * a fitted skdp estimator: its measured ``privacy_spent_``;
        * a fitted :class:`~sklearn.pipeline.Pipeline`, ``ColumnTransformer`` or
          ``FeatureUnion``: the sum over its fitted parts (they all read the same
          records: sequential composition);
        * a fitted ``GridSearchCV`` / ``RandomizedSearchCV`` / successive-halving search:
          every fit it ran, ``n_splits_`` per row of ``cv_results_``, plus the refit;
        * the dict returned by ``cross_validate(..., return_estimator=True)``;
        * a :class:`PrivacyBudget` or a number.

        A step that learnt from the data without differential privacy (e.g. a
        ``StandardScaler``) costs ``inf`` and raises a ``PrivacyLeakWarning``. Steps whose
        fit learns nothing from the data cost nothing: stateless ones (e.g.
        ``FunctionTransformer``), ``OneHotEncoder`` / ``OrdinalEncoder`` given
        their ``categories`` (with no ``min_frequency`` or ``max_categories``) and
        :class:`~skdp.frequent_patterns.TransactionEncoder` given its ``items``.

    Returns
    -------
    PrivacyBudget
        The composed (epsilon, delta) spent.

    Examples
    --------
    >>> from skdp import privacy_spent
    >>> privacy_spent(0.5)
    PrivacyBudget(epsilon=0.5, delta=0.0)
    """
    if isinstance(obj, PrivacyBudget | Real) and not isinstance(obj, bool):
        return _as_budget(obj)
    if isinstance(obj, dict) and "estimator" in obj:
        return sum((privacy_spent(est) for est in obj["estimator"]), _ZERO)
    if hasattr(obj, "cv_results_") and hasattr(obj, "n_splits_"):
        return _search_spent(obj)
    return _composed(obj, _fitted_leaf)


def _search_spent(search):
    from sklearn.base import clone

    total = _ZERO
    for params in search.cv_results_["params"]:
        candidate = clone(search.estimator).set_params(**params)
        total = total + search.n_splits_ * _composed(candidate, _declared_leaf)
    if hasattr(search, "best_estimator_"):
        total = total + privacy_spent(search.best_estimator_)
    return total


def _composed(obj, leaf):
    """Sum over the parts of a Pipeline / ColumnTransformer / FeatureUnion."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import FeatureUnion, Pipeline

    if obj is None or (isinstance(obj, str) and obj in ("passthrough", "drop")):
        return _ZERO
    if isinstance(obj, Pipeline):
        parts = [step for _, step in obj.steps]
    elif isinstance(obj, ColumnTransformer):
        fitted = hasattr(obj, "transformers_")
        parts = [t for _, t, _ in (obj.transformers_ if fitted else obj.transformers)]
    elif isinstance(obj, FeatureUnion):
        parts = [t for _, t in obj.transformer_list]
    else:
        return leaf(obj)
    return sum((_composed(part, leaf) for part in parts), _ZERO)


def _fitted_leaf(estimator):
    if hasattr(estimator, "privacy_spent_"):
        return _as_budget(estimator.privacy_spent_)
    declared = _declared_budget(estimator)
    if declared is None:
        return _non_private_cost(estimator)
    if declared != _ZERO:
        raise ValueError(f"{type(estimator).__name__} is not fitted: it has spent nothing yet")
    return declared  # a fit that reads nothing from the data: nothing spent, fitted or not


def _declared_leaf(estimator):
    declared = _declared_budget(estimator)
    return _non_private_cost(estimator) if declared is None else declared


def _declared_budget(estimator):
    """What one fit with the current parameters spends, as the estimator declares it.

    An object that costs nothing says so itself: skdp estimators and public encodings
    (e.g. ``TransactionEncoder`` given its ``items``) define ``_privacy_budget()``; it
    returns None when the fit learns from the data without differential privacy.
    """
    declare = getattr(estimator, "_privacy_budget", None)
    return None if declare is None else declare()


def _non_private_cost(estimator):
    from sklearn.base import BaseEstimator
    from sklearn.utils import get_tags

    if not isinstance(estimator, BaseEstimator):
        raise TypeError(f"cannot tell the privacy spent by a {type(estimator).__name__}")
    if not get_tags(estimator).requires_fit or _encodes_public_categories(estimator):
        return _ZERO
    warnings.warn(
        f"{type(estimator).__name__} is not differentially private: it learnt from the "
        "data, so the privacy spent is unbounded (epsilon=inf).",
        PrivacyLeakWarning,
        stacklevel=3,
    )
    return PrivacyBudget(math.inf)


def _encodes_public_categories(estimator):
    """A scikit-learn encoder whose fitted state is its given category lists."""
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    if not isinstance(estimator, OneHotEncoder | OrdinalEncoder):
        return False
    params = estimator.get_params()
    return (
        not isinstance(params["categories"], str)
        and params.get("min_frequency") is None
        and params.get("max_categories") is None
    )
