"""The composition tree behind ledgers and accountants, and the spend reports."""

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from skdp.accounting._budget import _ZERO, PrivacyBudget, Spend, _increase, _maximum
from skdp.accounting._spent import privacy_spent
from skdp.exceptions import BudgetExceededError

_ACTIVE = ContextVar("skdp_active_privacy_frame", default=None)
# Guards every read-check-write of frame totals and accountant spends: threads that share a
# context (asyncio.to_thread, copy_context().run) share its frames.
_LOCK = threading.RLock()


class _Frame:
    """A node of the composition tree: sequential (sums) or parallel (maximum).

    A frame's total is ``settled`` (its direct spends and the frames that ended inside
    it) composed with the totals of the frames still open inside it. Totals propagate
    upwards, not increments: ``parent = settled + child`` is what the child's own total
    was built from, so a fit that closes its budget on its ledger to the last bit is
    seen to the last bit by every ledger around it (increments ``new - old`` round).
    """

    def __init__(self, *, parallel=False, cap=None):
        self.parallel = parallel
        self.cap = cap
        self.settled = _ZERO
        self.open_children = []
        self.entries = []
        self.parent = None
        self._token = None

    def compose(self, settled, child_totals):
        """``settled`` composed with the children's totals, in the order they opened."""
        total = settled
        for child_total in child_totals:
            total = _maximum(total, child_total) if self.parallel else total + child_total
        return total

    def total_with(self, child=None, child_total=None, settled=None):
        """The total, with ``child`` at ``child_total`` and ``settled`` if given."""
        totals = [child_total if c is child else c.total for c in self.open_children]
        return self.compose(self.settled if settled is None else settled, totals)

    @property
    def total(self):
        return self.total_with()

    def push(self):
        with _LOCK:
            if self._token is not None:
                raise RuntimeError("this ledger is already active; create a new one")
            self.parent = _ACTIVE.get()
            if self.parent is not None:
                self.parent.open_children.append(self)
            self._token = _ACTIVE.set(self)

    def pop(self):
        with _LOCK:
            _ACTIVE.reset(self._token)
            parent = self.parent
            if parent is not None and self in parent.open_children:
                parent.open_children.remove(self)
                parent.settled = parent.compose(parent.settled, [self.total])


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

    Raises
    ------
    BudgetExceededError
        When the spend would take an active :class:`BudgetAccountant` past its cap;
        nothing is recorded then.

    Examples
    --------
    A mechanism written outside skdp reports its spend before it draws its noise:

    >>> from skdp import PrivacyLedger
    >>> from skdp.accounting import record_spend
    >>> with PrivacyLedger() as ledger:
    ...     record_spend(0.25, mechanism="my_mechanism")
    ...     record_spend(0.5, 1e-6, mechanism="my_mechanism")
    >>> ledger.total
    PrivacyBudget(epsilon=0.75, delta=1e-06)
    >>> len(ledger.entries)
    2
    """
    spend = PrivacyBudget(epsilon, delta)
    entry = Spend(mechanism, spend.epsilon, spend.delta)
    with _LOCK:
        frame = _ACTIVE.get()
        if frame is None:
            return
        # a direct call is a branch of its own in a parallel frame, a term in a sequential one
        plan, child, new_total = [], None, None
        while frame is not None:
            if child is None:
                settled = frame.compose(frame.settled, [spend])
                total = frame.total_with(settled=settled)
            elif child in frame.open_children:
                settled, total = frame.settled, frame.total_with(child, new_total)
            else:  # a child that ended here before this late call (a thread outliving it)
                late = new_total if frame.parallel else _increase(new_total, child.total)
                settled = frame.compose(frame.settled, [late])
                total = frame.total_with(settled=settled)
            if frame.cap is not None and not total.fits_within(frame.cap):
                raise BudgetExceededError(
                    f"{mechanism} would spend epsilon={spend.epsilon:g}, "
                    f"delta={spend.delta:g}, taking the budget to {total} past its cap "
                    f"{frame.cap}"
                )
            plan.append((frame, settled))
            child, new_total, frame = frame, total, frame.parent
        for frame, settled in plan:
            frame.settled = settled
            frame.entries.append(entry)


class PrivacyLedger:
    """Measure the privacy spent by everything run inside a ``with`` block.

    Ledgers nest: an estimator's own ledger inside ``fit`` and a user's ledger around
    a whole experiment both see the same calls. Ledgers live in the current context
    (``contextvars``). A private estimator cloned inside the block (as searches and
    ``cross_validate`` do) is charged to it wherever its fit runs: in a joblib thread,
    or when it is pickled for a worker process (``skdp.utils._clone``); other work
    sent to another thread or process is not seen: use :func:`privacy_spent` on the
    fitted objects for it.

    Attributes
    ----------
    total : PrivacyBudget
        The composed spend so far.
    entries : tuple of Spend
        Every mechanism call seen, in order.

    Notes
    -----
    Thread safety: each update is atomic (one lock guards every check and commit), so
    threads that report at the same time lose no spend. A ledger sees the calls of every
    thread that runs in its context: ``asyncio.to_thread`` and functions run through
    ``contextvars.copy_context().run`` from inside the ``with`` block. Threads started
    with a fresh context do not see it: a plain ``threading.Thread``, a
    ``concurrent.futures`` executor or ``loop.run_in_executor`` (without
    ``copy_context().run``) and joblib's threading backend. Entries of concurrent calls
    are in the order the calls were recorded.

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
        with _LOCK:
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

    Yields
    ------
    group : object
        Its ``group.branch()`` context manager groups several calls that act on the
        same part of the data (they compose sequentially within the branch), and
        ``group.total`` is the block's spend so far, a :class:`PrivacyBudget`.

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

    Two ways to use it:

    * ``accountant.spend(fitted)`` after fitting, with anything :func:`privacy_spent`
      takes (an estimator, a Pipeline, a fitted search, a number);
    * ``with accountant:`` around the fitting code: every mechanism call is charged as it
      happens and a call that would pass the cap raises
      :class:`~skdp.exceptions.BudgetExceededError` before it draws its noise.

    A ``spend`` made while a ``with`` block is open counts against the block too.

    Parameters
    ----------
    epsilon : float, default=inf
        The cap on the total epsilon.
    delta : float, default=0.0
        The cap on the total delta.

    Attributes
    ----------
    cap : PrivacyBudget
        ``PrivacyBudget(epsilon, delta)``.
    spent : PrivacyBudget
        The total spent so far, including an open ``with`` block.
    remaining : PrivacyBudget
        What may still be spent.

    Notes
    -----
    Thread safety: ``spend``, the charge of each mechanism call and the end of a ``with``
    block are atomic (each checks the cap and commits under one lock), so threads racing
    for the last of the budget never take it past the cap: a call that would pass it
    raises and records nothing. As for :class:`PrivacyLedger`, an open ``with`` block
    sees the threads that run in its context (``asyncio.to_thread``,
    ``contextvars.copy_context().run``), not the threads started with a fresh context
    (a plain ``threading.Thread``, joblib's threading backend).

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
        with _LOCK:
            return self._spent + (self._frame.total if self._frame is not None else _ZERO)

    @property
    def remaining(self):
        """What may still be spent."""
        return _increase(self.cap, self.spent)

    def check(self, obj):
        """Raise :class:`~skdp.exceptions.BudgetExceededError` if ``obj`` does not fit."""
        return self._check(privacy_spent(obj))

    def _check(self, cost):
        spent = self.spent
        if not (spent + cost).fits_within(self.cap):
            raise BudgetExceededError(
                f"spending {cost} would take the budget to {spent + cost}, past its cap {self.cap}"
            )
        return cost

    def spend(self, obj):
        """Record what ``obj`` spent (see :func:`privacy_spent`), refusing to pass the cap."""
        cost = privacy_spent(obj)  # may walk a whole search: outside the lock
        with _LOCK:
            self._spent = self._spent + self._check(cost)
            if self._frame is not None:  # an open block may now spend that much less
                self._frame.cap = _increase(self._frame.cap, cost)

    def __enter__(self):
        with _LOCK:
            if self._frame is not None:
                raise RuntimeError("this accountant is already active")
            self._frame = _Frame(cap=self.remaining)
            self._frame.push()
        return self

    def __exit__(self, *exc):
        with _LOCK:
            self._frame.pop()
            self._spent, self._frame = self._spent + self._frame.total, None
        return False
