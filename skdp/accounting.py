"""Privacy budgets, the spending ledger, budget caps and ``privacy_spent``.

Every mechanism in :mod:`skdp.mechanisms` reports the epsilon it spends *before* it
draws its noise. The report goes to every :class:`PrivacyLedger` and
:class:`BudgetAccountant` that is active in the current context, so a spend is
measured where it happens, and a cap is enforced before anything is released.

Composition rules applied by the ledger:

* sequential composition (the default): epsilons and deltas add up;
* parallel composition (inside :func:`parallel_composition`): mechanisms that run on
  disjoint parts of the records, where the partition is public or was released
  earlier, cost the maximum over the parts, not the sum.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from numbers import Real

from skdp.exceptions import BudgetExceededError, PrivacyLeakWarning

__all__ = [
    "BudgetAccountant",
    "PrivacyBudget",
    "PrivacyLedger",
    "Spend",
    "parallel_composition",
    "privacy_spent",
    "record_spend",
]

_RTOL = 1e-9  # tolerance for float sums of budget shares (e.g. 3 * (eps / 3) vs eps)


@dataclass(frozen=True)
class PrivacyBudget:
    """An (epsilon, delta) differential-privacy budget.

    Parameters
    ----------
    epsilon : float
        Non-negative; ``inf`` stands for "no guarantee".
    delta : float, default=0.0
        In ``[0, 1]``; 0 for pure differential privacy.

    Examples
    --------
    >>> from skdp import PrivacyBudget
    >>> PrivacyBudget(0.5) + PrivacyBudget(0.25, 1e-6)
    PrivacyBudget(epsilon=0.75, delta=1e-06)
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self):
        epsilon, delta = float(self.epsilon), float(self.delta)
        if math.isnan(epsilon) or epsilon < 0:
            raise ValueError(f"epsilon must be >= 0, got {self.epsilon!r}")
        if math.isnan(delta) or not 0 <= delta <= 1:
            raise ValueError(f"delta must be in [0, 1], got {self.delta!r}")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)

    def __add__(self, other):
        other = _as_budget(other)
        return PrivacyBudget(self.epsilon + other.epsilon, min(1.0, self.delta + other.delta))

    def __radd__(self, other):  # lets sum() start from 0
        return self.__add__(other)

    def __mul__(self, times):
        return PrivacyBudget(self.epsilon * times, min(1.0, self.delta * times))

    __rmul__ = __mul__

    def fits_within(self, cap):
        """Whether this budget is no more than ``cap`` (up to float rounding of sums)."""
        cap = _as_budget(cap)
        return self.epsilon <= cap.epsilon * (1 + _RTOL) and self.delta <= cap.delta * (1 + _RTOL)


def _as_budget(value):
    if isinstance(value, PrivacyBudget):
        return value
    if isinstance(value, Real) and not isinstance(value, bool):
        return PrivacyBudget(value)
    raise TypeError(f"expected a PrivacyBudget or a number, got {type(value).__name__}")


def _maximum(a, b):
    return PrivacyBudget(max(a.epsilon, b.epsilon), max(a.delta, b.delta))


def _increase(new, old):
    return PrivacyBudget(max(0.0, new.epsilon - old.epsilon), max(0.0, new.delta - old.delta))


@dataclass(frozen=True)
class Spend:
    """One mechanism call as a ledger saw it."""

    mechanism: str
    epsilon: float
    delta: float = 0.0


_ZERO = PrivacyBudget(0.0)
_ACTIVE = ContextVar("skdp_active_privacy_frame", default=None)


class _Frame:
    """A node of the composition tree: sequential (sums) or parallel (maximum)."""

    def __init__(self, *, parallel=False, cap=None):
        self.parallel = parallel
        self.cap = cap
        self.total = _ZERO
        self.entries = []
        self.parent = None
        self._token = None

    def push(self):
        if self._token is not None:
            raise RuntimeError("this ledger is already active; create a new one")
        self.parent = _ACTIVE.get()
        self._token = _ACTIVE.set(self)

    def pop(self):
        _ACTIVE.reset(self._token)


def record_spend(epsilon, delta=0.0, *, mechanism):
    """Charge one mechanism call to every active ledger and accountant.

    Called by :mod:`skdp.mechanisms` before the noise is drawn. Checks every cap on
    the way up first and raises :class:`~skdp.exceptions.BudgetExceededError`
    without recording anything if one would be exceeded.

    Parameters
    ----------
    epsilon : float
        The epsilon the call spends.
    delta : float, default=0.0
        The delta the call spends.
    mechanism : str
        The mechanism's name, kept in the ledger's entries.
    """
    spend = PrivacyBudget(epsilon, delta)
    plan, child_total, frame = [], None, _ACTIVE.get()
    increment = spend
    while frame is not None:
        if frame.parallel:
            # a direct call is a branch of its own; a branch frame reports its new total
            branch_total = increment if child_total is None else child_total
            new_total = _maximum(frame.total, branch_total)
        else:
            new_total = frame.total + increment
        if frame.cap is not None and not new_total.fits_within(frame.cap):
            raise BudgetExceededError(
                f"{mechanism} would spend epsilon={spend.epsilon:g}, delta={spend.delta:g}, "
                f"taking the budget to {new_total} past its cap {frame.cap}"
            )
        plan.append((frame, new_total))
        increment, child_total = _increase(new_total, frame.total), new_total
        frame = frame.parent
    entry = Spend(mechanism, spend.epsilon, spend.delta)
    for frame, new_total in plan:
        frame.total = new_total
        frame.entries.append(entry)


class PrivacyLedger:
    """Measure the privacy spent by everything run inside a ``with`` block.

    Ledgers nest: an estimator's own ledger inside ``fit`` and a user's ledger around
    a whole experiment both see the same calls. Ledgers live in the current context
    (``contextvars``): work sent to other processes (``n_jobs=2``) is not seen by
    them; use :func:`privacy_spent` on the fitted objects instead.

    Attributes
    ----------
    total : PrivacyBudget
        The composed spend so far.
    entries : tuple of Spend
        Every mechanism call seen, in order.

    Examples
    --------
    >>> from skdp import PrivacyLedger
    >>> from skdp.mechanisms import geometric
    >>> with PrivacyLedger() as ledger:
    ...     noisy = geometric([3, 4], epsilon=0.5, random_state=0)
    ...     noisy = geometric([5], epsilon=0.25, random_state=1)
    >>> ledger.total
    PrivacyBudget(epsilon=0.75, delta=0.0)
    """

    def __init__(self):
        self._frame = _Frame()

    def __enter__(self):
        self._frame.push()
        return self

    def __exit__(self, *exc):
        self._frame.pop()
        return False

    @property
    def total(self):
        return self._frame.total

    @property
    def entries(self):
        return tuple(self._frame.entries)


class _ParallelGroup:
    def __init__(self, frame):
        self._frame = frame

    @contextmanager
    def branch(self) -> Iterator[None]:
        """Group several calls that act on the same part of the data."""
        if _ACTIVE.get() is not self._frame:
            raise RuntimeError("branch() must be entered directly inside its parallel block")
        frame = _Frame()
        frame.push()
        try:
            yield
        finally:
            frame.pop()

    @property
    def total(self):
        return self._frame.total


@contextmanager
def parallel_composition() -> Iterator[_ParallelGroup]:
    """Account the calls inside the block by parallel composition.

    Use it only when each call (or each ``group.branch()``) reads a part of the records
    disjoint from the others, and the partition is public or was itself released
    earlier under differential privacy. The block costs the maximum over its branches.

    Examples
    --------
    >>> from skdp import PrivacyLedger
    >>> from skdp.accounting import parallel_composition
    >>> from skdp.mechanisms import geometric
    >>> with PrivacyLedger() as ledger:
    ...     with parallel_composition() as group:
    ...         for part_count in [10, 20, 30]:
    ...             with group.branch():
    ...                 noisy = geometric(part_count, epsilon=1.0, random_state=0)
    >>> ledger.total.epsilon
    1.0
    """
    frame = _Frame(parallel=True)
    frame.push()
    try:
        yield _ParallelGroup(frame)
    finally:
        frame.pop()


class BudgetAccountant:
    """A total privacy budget with a hard cap.

    Two ways to use it, one at a time:

    * ``accountant.spend(fitted)`` after fitting, with anything :func:`privacy_spent`
      takes (an estimator, a Pipeline, a fitted search, a number);
    * ``with accountant:`` around the fitting code: every mechanism call is charged as it
      happens and a call that would pass the cap raises
      :class:`~skdp.exceptions.BudgetExceededError` before it draws its noise.

    Parameters
    ----------
    epsilon : float, default=inf
        The cap on the total epsilon.
    delta : float, default=0.0
        The cap on the total delta.

    Examples
    --------
    >>> from skdp import BudgetAccountant
    >>> from skdp.mechanisms import laplace
    >>> accountant = BudgetAccountant(epsilon=1.0)
    >>> accountant.spend(0.75)
    >>> accountant.remaining
    PrivacyBudget(epsilon=0.25, delta=0.0)
    >>> with accountant:
    ...     laplace(1.0, sensitivity=1, epsilon=0.5, random_state=0)
    Traceback (most recent call last):
    ...
    skdp.exceptions.BudgetExceededError: laplace would spend epsilon=0.5, ...
    """

    def __init__(self, epsilon=math.inf, delta=0.0):
        self.cap = PrivacyBudget(epsilon, delta)
        self._spent = _ZERO
        self._frame = None

    def __repr__(self):
        return f"BudgetAccountant(cap={self.cap}, spent={self.spent})"

    @property
    def spent(self):
        """The total spent so far, including an open ``with`` block."""
        return self._spent + (self._frame.total if self._frame is not None else _ZERO)

    @property
    def remaining(self):
        """What may still be spent."""
        return _increase(self.cap, self.spent)

    def check(self, obj):
        """Raise :class:`~skdp.exceptions.BudgetExceededError` if ``obj`` does not fit."""
        cost = privacy_spent(obj)
        if not (self.spent + cost).fits_within(self.cap):
            raise BudgetExceededError(
                f"spending {cost} would take the budget to {self.spent + cost}, "
                f"past its cap {self.cap}"
            )
        return cost

    def spend(self, obj):
        """Record what ``obj`` spent (see :func:`privacy_spent`), refusing to pass the cap."""
        self._spent = self._spent + self.check(obj)

    def __enter__(self):
        if self._frame is not None:
            raise RuntimeError("this accountant is already active")
        self._frame = _Frame(cap=self.remaining)
        self._frame.push()
        return self

    def __exit__(self, *exc):
        self._frame.pop()
        self._spent, self._frame = self._spent + self._frame.total, None
        return False


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
        ``StandardScaler``) costs ``inf`` and raises a ``PrivacyLeakWarning``.

    Returns
    -------
    PrivacyBudget

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
    if hasattr(estimator, "_privacy_budget"):
        raise ValueError(f"{type(estimator).__name__} is not fitted: it has spent nothing yet")
    return _non_private_cost(estimator)


def _declared_leaf(estimator):
    if hasattr(estimator, "_privacy_budget"):
        return estimator._privacy_budget()
    return _non_private_cost(estimator)


def _non_private_cost(estimator):
    from sklearn.base import BaseEstimator
    from sklearn.utils import get_tags

    if not isinstance(estimator, BaseEstimator):
        raise TypeError(f"cannot tell the privacy spent by a {type(estimator).__name__}")
    if not get_tags(estimator).requires_fit:
        return _ZERO
    warnings.warn(
        f"{type(estimator).__name__} is not differentially private: it learnt from the "
        "data, so the privacy spent is unbounded (epsilon=inf).",
        PrivacyLeakWarning,
        stacklevel=3,
    )
    return PrivacyBudget(math.inf)
