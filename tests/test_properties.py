"""Property-based tests (hypothesis) of invariants the privacy proofs rely on."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skdp import PrivacyLedger
from skdp.accounting import parallel_composition
from skdp.mechanisms import geometric, laplace, lattice_step
from skdp.utils.validation import split_budget

positive = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(epsilon=positive, shares=st.lists(positive, min_size=1, max_size=8))
def test_split_budget_parts_are_positive_and_add_up(epsilon, shares):
    parts = split_budget(epsilon, shares)
    assert all(p > 0 for p in parts)
    assert math.isclose(math.fsum(parts), epsilon, rel_tol=1e-12)


@settings(max_examples=50, deadline=None)
@given(
    values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=20),
    sensitivity=st.floats(1e-3, 1e6),
    epsilon=st.floats(1e-3, 1e3),
    seed=st.integers(0, 2**32 - 1),
)
def test_laplace_output_is_on_the_public_lattice(values, sensitivity, epsilon, seed):
    out = laplace(values, sensitivity=sensitivity, epsilon=epsilon, random_state=seed)
    step = lattice_step(sensitivity, len(values), epsilon)
    assert np.all(out / step == np.round(out / step))


@settings(max_examples=30, deadline=None)
@given(branches=st.lists(st.lists(positive, min_size=1, max_size=3), min_size=1, max_size=5))
def test_parallel_block_costs_its_most_expensive_branch(branches):
    with PrivacyLedger() as ledger:
        with parallel_composition() as group:
            for spends in branches:
                with group.branch():
                    for epsilon in spends:
                        geometric(0, epsilon=epsilon, random_state=0)
    expected = max(math.fsum(spends) for spends in branches)
    assert math.isclose(ledger.total.epsilon, expected, rel_tol=1e-12)
