"""Ledger and accountant updates are atomic: threads sharing one context lose no spend."""

import asyncio
import contextvars
import sys
import threading

import pytest

from skdp import BudgetAccountant, BudgetExceededError, PrivacyLedger
from skdp.accounting import record_spend
from skdp.mechanisms import laplace

N_THREADS, N_CALLS = 8, 2000
N_DRAWS = 150  # laplace calls per asyncio task
EPSILON = 2.0**-10  # sums of it are exact in floating point


@pytest.fixture(autouse=True)
def _frequent_thread_switches():
    """Switch threads every microsecond so that a race shows on every run."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def _spend(n_calls, successes, spend=lambda: record_spend(EPSILON, mechanism="probe")):
    """Call ``spend`` ``n_calls`` times; append how many calls the caps let through."""
    done = 0
    for _ in range(n_calls):
        try:
            spend()
        except BudgetExceededError:
            continue
        done += 1
    successes.append(done)


def _run_in_threads(target, *args):
    """Run ``target`` in threads that all share the caller's context (a copy each)."""
    threads = [
        threading.Thread(target=contextvars.copy_context().run, args=(target, *args))
        for _ in range(N_THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_ledger_loses_no_spend_across_threads():
    successes = []
    with PrivacyLedger() as ledger:
        _run_in_threads(_spend, N_CALLS, successes)
    assert successes == [N_CALLS] * N_THREADS
    assert len(ledger.entries) == N_THREADS * N_CALLS
    assert ledger.total.epsilon == N_THREADS * N_CALLS * EPSILON


def test_nested_ledgers_in_threads_report_to_the_shared_one():
    """Each thread's own ledger (as inside a fit) sees its calls; the shared one all."""
    inner_totals = []

    def fit_like(successes):
        with PrivacyLedger() as inner:
            _spend(N_CALLS, successes)
        inner_totals.append(inner.total.epsilon)

    successes = []
    with PrivacyLedger() as outer:
        _run_in_threads(fit_like, successes)
    assert inner_totals == [N_CALLS * EPSILON] * N_THREADS
    assert outer.total.epsilon == N_THREADS * N_CALLS * EPSILON
    assert len(outer.entries) == N_THREADS * N_CALLS


def test_accountant_cap_holds_across_threads():
    """Threads race past the cap: the calls let through spend exactly the cap, no more."""
    cap_calls = N_THREADS * N_CALLS // 3
    accountant = BudgetAccountant(epsilon=cap_calls * EPSILON)
    successes = []
    with PrivacyLedger() as ledger, accountant:
        _run_in_threads(_spend, N_CALLS, successes)
    assert sum(successes) == cap_calls
    assert accountant.spent.epsilon == sum(successes) * EPSILON == accountant.cap.epsilon
    assert ledger.total == accountant.spent
    assert len(ledger.entries) == cap_calls


def test_accountant_spend_is_atomic_across_threads():
    cap_calls = N_THREADS * N_CALLS // 3
    accountant = BudgetAccountant(epsilon=cap_calls * EPSILON)
    successes = []
    _run_in_threads(_spend, N_CALLS, successes, lambda: accountant.spend(EPSILON))
    assert sum(successes) == cap_calls
    assert accountant.spent.epsilon == cap_calls * EPSILON


def test_spend_inside_an_open_block_shrinks_its_cap():
    """``accountant.spend`` while a ``with accountant`` block runs counts against the block."""
    accountant = BudgetAccountant(epsilon=1.0)
    with accountant:
        record_spend(0.25, mechanism="probe")
        accountant.spend(0.5)
        with pytest.raises(BudgetExceededError, match="past its cap"):
            record_spend(0.5, mechanism="probe")
        record_spend(0.25, mechanism="probe")
    assert accountant.spent.epsilon == 1.0


async def _gather(n_calls, successes, spend):
    await asyncio.gather(
        *(asyncio.to_thread(_spend, n_calls, successes, spend) for _ in range(N_THREADS))
    )


def test_asyncio_to_thread_tasks_lose_no_spend():
    async def main():
        successes = []
        with PrivacyLedger() as ledger:
            await _gather(N_CALLS, successes, lambda: record_spend(EPSILON, mechanism="probe"))
        return ledger, successes

    ledger, successes = asyncio.run(main())
    assert successes == [N_CALLS] * N_THREADS
    assert ledger.total.epsilon == N_THREADS * N_CALLS * EPSILON
    assert len(ledger.entries) == N_THREADS * N_CALLS


def test_asyncio_to_thread_laplace_draws_respect_the_cap():
    cap_calls = N_THREADS * N_DRAWS * 2 // 3
    accountant = BudgetAccountant(epsilon=cap_calls * EPSILON)

    def draw():
        laplace(0.0, sensitivity=1, epsilon=EPSILON, random_state=0)

    async def main():
        successes = []
        with PrivacyLedger() as ledger, accountant:
            await _gather(N_DRAWS, successes, draw)
        return ledger, successes

    ledger, successes = asyncio.run(main())
    assert sum(successes) == cap_calls
    assert accountant.spent.epsilon == sum(successes) * EPSILON == accountant.cap.epsilon
    assert ledger.total == accountant.spent
    assert [entry.mechanism for entry in ledger.entries] == ["laplace"] * cap_calls
