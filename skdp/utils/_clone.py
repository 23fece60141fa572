"""Cloning a private estimator: a fresh noise stream and a budget paid before dispatch.

``sklearn.base.clone`` calls :meth:`DifferentialPrivacyMixin.__sklearn_clone__`, which
runs :func:`clone_private` here. Two things happen on top of scikit-learn's default clone.

**Noise is never reused.** A ``numpy.random.Generator`` given as ``random_state`` would
be deep-copied, so every clone (every fold, every grid point) would draw the same noise
and two models fitted on neighbouring folds could be subtracted to cancel it. The clone
gets a child stream instead: ``Generator.spawn`` (a new child of the generator's
``SeedSequence`` each time, so the clones differ from each other and a run started from
the same seeded generator is reproducible), or, for a legacy ``RandomState``, a
``RandomState`` seeded from a draw of the original's. An int seed or ``None`` is kept
as is: ``None`` draws fresh secure noise in every fit, an int seed is for experiments.

**The budget is reserved in the caller.** Fits that a joblib backend sends to another
thread or process do not see the caller's :class:`~skdp.accounting.PrivacyLedger` or
:class:`~skdp.accounting.BudgetAccountant` (they live in the caller's ``contextvars``
context). When one is active where the clone is made, the clone's declared cost
(``_privacy_budget()``) is charged there at once, through
:func:`~skdp.accounting.record_spend`: a clone that would pass a cap raises
:class:`~skdp.exceptions.BudgetExceededError` *before* the work is dispatched, and a
ledger around the search measures every fit. The clone is marked prepaid (a private
attribute, not a parameter, that travels with it to a worker process); its ``fit``
consumes the mark and runs detached from the caller's ledgers, so a fit that runs in the
caller's context after all (``n_jobs=None``) is not charged twice, and a second ``fit`` of
the same object is charged as usual.

What is covered, and what is not:

* ``GridSearchCV``, ``RandomizedSearchCV``, ``cross_validate``, ``cross_val_score`` and
  any ``Parallel`` call whose tasks are ``clone(estimator)`` made in the caller, on the
  sequential, threading, loky and dask backends. joblib makes the clones of later
  batches in its own callback thread, which has no context; such a clone is charged to
  the ledgers that were active when its source was last cloned by the caller.
* A search clones its estimator once as a template it never fits, then clones the
  template for each fit: the first clone of a prepaid, unfitted template takes over its
  reservation instead of reserving again, so nothing is counted twice.
* Parameters set *after* cloning (a search's candidate parameters are set in the
  worker): a fit whose declared cost exceeds its reservation charges the difference when
  the caller's ledgers are reachable (same process), and refuses with
  ``BudgetExceededError`` in another process, where they are not. A candidate that costs
  less than the reservation leaves the difference charged (the count errs high). For a
  search over ``epsilon`` on a process backend, set the estimator's own ``epsilon`` to
  the largest value of the grid.
* Not covered: a fit in a worker of an estimator that was not cloned in the caller
  (e.g. a function that builds or fits the model inside the worker), and work started
  in another thread before any clone of its source was made in the caller's context.
  Such fits are measured by their own ``privacy_spent_``; check them with
  ``accountant.spend(...)`` or keep them out of the parallel part.
* Every clone made while a ledger is active is charged, fitted or not: clone an
  estimator outside the ``with`` block when you only want to inspect it.
"""

import functools
import sys
import threading
import weakref

import numpy as np
from joblib import Parallel
from sklearn.base import _clone_parametrized

from skdp.accounting._budget import _ZERO, _increase
from skdp.accounting._ledger import _ACTIVE, record_spend
from skdp.exceptions import BudgetExceededError

__all__ = ["child_random_state", "clone_private", "prepaid_fit", "reserve_departure"]

_PREPAID = "_skdp_prepaid"
# unfitted clone -> the frame of the ledgers it is charged to (in this process only)
_CALLER = weakref.WeakKeyDictionary()
# source estimator -> (frame, thread) of the last clone made of it in a live context
_CLONED_IN = weakref.WeakKeyDictionary()
# unfitted clone -> its declared cost, held against the caps until it is charged
_PENDING = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
# (frame, thread) of the last clone made in a live context, for a source never cloned there
_LAST_SEEN = [None]


def child_random_state(random_state):
    """A child of ``random_state`` for a clone: never the same stream twice."""
    if isinstance(random_state, np.random.Generator):
        try:
            return random_state.spawn(1)[0]
        except (AttributeError, TypeError):  # numpy < 1.25, or no SeedSequence
            return np.random.default_rng(random_state.integers(0, 2**32, size=8))
    if isinstance(random_state, np.random.RandomState):
        return np.random.RandomState(random_state.randint(0, 2**32, size=8, dtype=np.int64))
    return random_state


def _caller_frame(source):
    """The ledger frame the clone of ``source`` is made under, if any."""
    frame, here = _ACTIVE.get(), threading.get_ident()
    if frame is not None:
        _CLONED_IN[source] = _LAST_SEEN[0] = (frame, here)
        return frame
    seen = _CLONED_IN.get(source) or _LAST_SEEN[0]
    if seen is None:
        return None
    if seen[1] == here:  # the caller's own thread, now outside its ledgers
        _CLONED_IN.pop(source, None)
        if _LAST_SEEN[0] is not None and _LAST_SEEN[0][1] == here:
            _LAST_SEEN[0] = None
        return None
    if not _in_parallel_call(seen[1]):  # the block may have closed: charge nothing
        return None
    return seen[0]  # a joblib callback thread dispatching the caller's work


def _in_parallel_call(thread_id):
    """Is that thread inside ``joblib.Parallel.__call__`` (so still in its ``with`` block)?"""
    code = Parallel.__call__.__code__
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def _charge(frame, budget, mechanism):
    token = _ACTIVE.set(frame)
    try:
        record_spend(budget.epsilon, budget.delta, mechanism=mechanism)
    finally:
        _ACTIVE.reset(token)


def _hold(clone, frame, budget, name):
    """Refuse a clone whose fit would not fit in a cap, counting the clones not yet charged.

    Conservative: the cost is added at every level, as sequential composition does.
    """
    with _LOCK:
        pending = [(c, b) for c, (f, b) in _PENDING.items() if c is not clone]
        level = frame
        while level is not None:
            held = sum((b for c, b in pending if _under(_PENDING[c][0], level)), _ZERO)
            new_total = level.total + held + budget
            if level.cap is not None and not new_total.fits_within(level.cap):
                raise BudgetExceededError(
                    f"a clone of {name} would spend {budget}, taking the budget (with the "
                    f"clones already dispatched) to {new_total}, past its cap {level.cap}; "
                    "refused before dispatch"
                )
            level = level.parent
        _PENDING[clone] = (frame, budget)


def _under(frame, level):
    while frame is not None:
        if frame is level:
            return True
        frame = frame.parent
    return False


def _release(estimator):
    with _LOCK:
        _PENDING.pop(estimator, None)
        return _CALLER.pop(estimator, None)


def clone_private(estimator):
    """``sklearn.base.clone`` for a private estimator (see the module docstring)."""
    clone = _clone_parametrized(estimator)
    if hasattr(estimator, "random_state"):
        clone.random_state = child_random_state(estimator.random_state)
    frame = _caller_frame(estimator)
    _release(estimator)  # a clone that is cloned is a template: it will not be fitted
    if frame is not None:
        try:
            budget = clone._privacy_budget()
        except (TypeError, ValueError):  # an invalid epsilon: fit refuses it, no noise
            return clone
        _hold(clone, frame, budget, type(estimator).__name__)
        _CALLER[clone] = frame
    return clone


def reserve_departure(estimator, state):
    """Pickling an unfitted clone made under a ledger: it leaves for a worker process.

    Charge its declared cost to the caller's ledgers now and send the reservation
    along in ``state``; the worker's ``fit`` checks it.
    """
    frame = _release(estimator)
    if frame is not None and _PREPAID not in state:
        budget = estimator._privacy_budget()
        _charge(frame, budget, f"reserved: {type(estimator).__name__} clone sent to a worker")
        state[_PREPAID] = budget
    return state


def prepaid_fit(fit):
    """Wrap ``fit``: charge the caller's ledgers once, wherever the fit runs."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        prepaid = self.__dict__.pop(_PREPAID, None)
        frame = _release(self)
        if prepaid is not None:  # paid in the caller before it was sent here
            budget = self._privacy_budget()
            if _increase(budget, prepaid) != _ZERO:
                raise BudgetExceededError(
                    f"{type(self).__name__} was sent to a worker with {prepaid} reserved "
                    f"in the caller's budget, but its parameters now declare {budget}; "
                    "set the estimator's own epsilon to the largest a search will try, "
                    "or run it with n_jobs=None or the threading backend"
                )
            frame = None  # detached: measured by its own ledger only
        elif frame is None or _ACTIVE.get() is not None:
            return fit(self, *args, **kwargs)
        # a thread without the caller's context (joblib's threading backend): charge
        # the caller's ledgers as if the fit ran there
        token = _ACTIVE.set(frame)
        try:
            return fit(self, *args, **kwargs)
        finally:
            _ACTIVE.reset(token)

    wrapper._skdp_prepaid_aware = True
    return wrapper
