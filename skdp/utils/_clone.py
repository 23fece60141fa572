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

**The budget is held in the caller.** Fits that a joblib backend sends to another
thread or process do not see the caller's :class:`~skdp.accounting.PrivacyLedger` or
:class:`~skdp.accounting.BudgetAccountant` (they live in the caller's ``contextvars``
context), so a cap did not hold and a ledger missed them. Now, when one is active where
the clone is made, the clone's declared cost (``_privacy_budget()``) is checked against
the caps before the clone is dispatched, and the fit is charged to the caller's ledgers
wherever it runs, once.

How the caller's ledgers see a clone made under them:

* the clone is *held* against every cap at once: a clone whose fit would not fit in a
  cap, counting the clones already held, raises ``BudgetExceededError`` before it is
  dispatched (the check adds the cost at every level, as sequential composition does,
  so inside ``parallel_composition`` it may refuse early);
* such a clone gets an instance-level ``fit`` (:func:`fit` here, consumed by the call;
  a second fit of the same object is an ordinary fit); every other fit is untouched;
* a fit in the caller's context (``n_jobs=None``) is charged as it runs, as always;
* a fit in a joblib thread (no context there) is charged to the caller's ledgers as it
  runs, so its cap is enforced before the noise is drawn;
* a clone pickled for a worker process (loky, multiprocessing, dask) is charged when it
  is pickled and carries the reservation (a private attribute, not a parameter); its
  ``fit`` consumes it, runs detached from any ledger of the worker's and refuses to
  spend more than was reserved.

What is covered, and what is not:

* ``GridSearchCV``, ``RandomizedSearchCV``, the successive-halving searches,
  ``cross_validate``, ``cross_val_score`` and any ``Parallel`` call whose tasks fit a
  ``clone(estimator)`` made in the caller, on the sequential, threading, loky and dask
  backends. joblib makes the clones of later batches in its own callback thread, which
  has no context; such a clone is charged to the ledgers of the caller whose
  ``Parallel`` call is running (the one that last cloned its source, or else the last
  one that cloned any private estimator).
* A search clones its estimator once as a template it never fits: cloning a clone
  releases the template's hold. A search sets each candidate's parameters in the
  worker; the reservation is priced with them (read from scikit-learn's dispatch
  loop). For a private step of a ``Pipeline`` searched over on a process backend the
  step's own parameters price it, and a candidate that costs more is refused in the
  worker (``BudgetExceededError``, reported by the search as a failed fit): set the
  step's own ``epsilon`` to the largest of the grid, or use the threading backend.
* Not covered: a fit in a worker of an estimator that was not cloned in the caller
  (e.g. a function that builds or fits the model inside the worker). Such fits are
  measured by their own ``privacy_spent_``; check them with ``accountant.spend(...)``.
* Every clone made under a ledger and then pickled is charged, fitted or not (and so
  is a ``deepcopy`` of an unfitted one): clone outside the ``with`` block what you only
  want to inspect or save.
"""

import sys
import threading
import types
import weakref

import numpy as np
from joblib import Parallel
from sklearn.base import _clone_parametrized

from skdp.accounting._budget import _ZERO, _increase
from skdp.accounting._ledger import _ACTIVE, record_spend
from skdp.exceptions import BudgetExceededError

__all__ = ["arrival", "child_random_state", "clone_private", "departure_state"]

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
    """Drop the hold on ``estimator``; return its frame and the budget held."""
    with _LOCK:
        held = _PENDING.pop(estimator, (None, None))[1]
        return _CALLER.pop(estimator, None), held


def _search_candidate(estimator, clone):
    """The clone priced with the candidate parameters a search will set in the worker.

    scikit-learn's searches clone their template in a generator that also holds the
    candidate's ``parameters``; the worker sets them after the clone arrives. Reading
    them here prices the reservation at what the fit will really spend. Anything else
    is priced with its own parameters.
    """
    frame = sys._getframe(2)
    for _ in range(4):
        if frame is None:
            break
        names = frame.f_locals if frame.f_code.co_name == "<genexpr>" else {}
        if names.get("base_estimator") is estimator and isinstance(names.get("parameters"), dict):
            return _clone_parametrized(clone).set_params(**names["parameters"])
        frame = frame.f_back
    return clone


def clone_private(estimator):
    """``sklearn.base.clone`` for a private estimator (see the module docstring)."""
    clone = _clone_parametrized(estimator)
    if hasattr(estimator, "random_state"):
        clone.random_state = child_random_state(estimator.random_state)
    frame = _caller_frame(estimator)
    _release(estimator)  # a clone that is cloned is a template: it will not be fitted
    if frame is not None:
        try:
            budget = _search_candidate(estimator, clone)._privacy_budget()
        except (TypeError, ValueError):  # an invalid epsilon: fit refuses it, no noise
            return clone
        _hold(clone, frame, budget, type(estimator).__name__)
        _CALLER[clone] = frame
        # only these clones get a wrapped fit: every other fit keeps its frames, so
        # the warnings' stacklevels still point at the caller's line
        clone.fit = types.MethodType(fit, clone)
    return clone


def fit(self, *args, **kwargs):
    """The ``fit`` of a clone made under a ledger: charged to that ledger, once.

    Set on the instance (named ``fit`` so that a bound ``clone.fit`` sent to a worker
    pickles and unpickles as itself). Consumed by the call: a second fit is ordinary.
    """
    self.__dict__.pop("fit", None)
    prepaid = self.__dict__.pop(_PREPAID, None)
    frame = _release(self)[0]
    if prepaid is not None:  # paid in the caller before it was sent here
        budget = self._privacy_budget()
        if _increase(budget, prepaid) != _ZERO:
            raise BudgetExceededError(
                f"{type(self).__name__} was sent to a worker with {prepaid} reserved in "
                f"the caller's budget, but its parameters now declare {budget}; set the "
                "estimator's own epsilon to the largest a search will try, or run it "
                "with n_jobs=None or the threading backend"
            )
        return _run_under(None, type(self).fit, self, *args, **kwargs)  # detached: paid
    if frame is None or _ACTIVE.get() is not None:  # the caller's own context
        return type(self).fit(self, *args, **kwargs)
    # a thread without the caller's context (joblib's threading backend): charge the
    # caller's ledgers as if the fit ran there, its caps checked before any noise
    return _run_under(frame, type(self).fit, self, *args, **kwargs)


def _run_under(frame, function, *args, **kwargs):
    token = _ACTIVE.set(frame)
    try:
        return function(*args, **kwargs)
    finally:
        _ACTIVE.reset(token)


def departure_state(estimator, state):
    """``__getstate__``: an unfitted clone made under a ledger leaves for a worker.

    Charge its cost to the caller's ledgers now and send the reservation along in
    ``state``; the copy's ``fit`` checks it. A fitted estimator travels clean.
    """
    state = dict(state)  # object.__getstate__ hands out the instance's own __dict__
    state.pop("fit", None)
    if "privacy_spent_" in state:
        state.pop(_PREPAID, None)
        return state
    frame, held = _release(estimator)
    if frame is not None and _PREPAID not in state:
        # a search candidate is priced with the parameters the worker will set
        budget = held if held is not None else estimator._privacy_budget()
        _charge(frame, budget, f"reserved: {type(estimator).__name__} clone sent to a worker")
        state[_PREPAID] = budget
    return state


def arrival(estimator):
    """``__setstate__``: a prepaid copy gets the ``fit`` that checks its reservation."""
    if _PREPAID in estimator.__dict__:
        estimator.fit = types.MethodType(fit, estimator)
