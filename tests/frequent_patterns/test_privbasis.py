"""PrivBasis (privbasis_top_k): budget, exactness at negligible noise, bases, cliques."""

import math
from itertools import combinations

import hypothesis.strategies as st
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings

import skdp.frequent_patterns._privbasis as privbasis_module
from skdp.accounting import PrivacyLedger
from skdp.frequent_patterns._mining import supports, top_itemsets
from skdp.frequent_patterns._privbasis import build_bases, maximal_cliques, privbasis_top_k
from tests.frequent_patterns.test_tf import X_PLANTED, fetch_or_skip


def record_calls(monkeypatch, name):
    """Wrap ``privbasis_module.<name>`` to keep every call's arguments and result."""
    calls, real = [], getattr(privbasis_module, name)

    def wrapper(*args, **kwargs):
        result = real(*args, **kwargs)
        calls.append((args, kwargs, result))
        return result

    monkeypatch.setattr(privbasis_module, name, wrapper)
    return calls


@pytest.mark.parametrize(
    ("k", "epsilon", "max_basis_length"),
    [(1, 0.1, 12), (5, 0.5, 12), (10, 1.0, 12), (20, 3.0, 3), (30, 1e6, 2), (15, 0.05, 12)],
)
def test_ledger_sees_exactly_epsilon(k, epsilon, max_basis_length):
    with PrivacyLedger() as ledger:
        itemsets, _ = privbasis_top_k(
            X_PLANTED,
            k=k,
            epsilon=epsilon,
            rng=np.random.default_rng(k),
            max_basis_length=max_basis_length,
        )
    assert ledger.total.epsilon == epsilon
    entries = ledger.entries
    assert [e.mechanism for e in entries] == ["exponential"] * (len(entries) - 1) + ["geometric"]
    assert entries[0].epsilon == pytest.approx(0.1 * epsilon)
    assert math.fsum(e.epsilon for e in entries[1:-1]) == pytest.approx(0.4 * epsilon)
    assert entries[-1].epsilon == pytest.approx(0.5 * epsilon, rel=1e-12)
    assert len(itemsets) <= k and len(set(itemsets)) == len(itemsets)


@pytest.mark.parametrize("k", [5, 10, 20, 30])
def test_negligible_noise_gives_the_exact_top_k(k):
    expected, expected_support = top_itemsets(X_PLANTED, k)
    itemsets, estimates = privbasis_top_k(
        X_PLANTED, k=k, epsilon=1e6, rng=np.random.default_rng(0)
    )
    assert itemsets == expected
    assert estimates.tolist() == expected_support.tolist()


def test_negligible_noise_gives_the_exact_top_50_of_mushroom():
    X = fetch_or_skip("mushroom")
    expected, expected_support = top_itemsets(X, 60)
    s_k = expected_support[49]
    itemsets, estimates = privbasis_top_k(X, k=50, epsilon=1e6, rng=np.random.default_rng(0))
    assert estimates.tolist() == expected_support[:50].tolist()
    assert supports(X, itemsets).tolist() == estimates.tolist()
    # the top 50 is unique up to the itemsets tied with the 50th
    assert {s for s, v in zip(expected, expected_support, strict=True) if v > s_k} <= set(itemsets)


def test_seeded_runs_reproduce():
    runs = [
        privbasis_top_k(X_PLANTED, k=10, epsilon=0.5, rng=np.random.default_rng(seed))
        for seed in (21, 21, 22)
    ]
    assert runs[0][0] == runs[1][0] and runs[0][1].tolist() == runs[1][1].tolist()
    assert (runs[0][0], runs[0][1].tolist()) != (runs[2][0], runs[2][1].tolist())


def test_lambda_above_max_basis_length_selects_pairs_and_builds_bases(monkeypatch):
    bases_calls = record_calls(monkeypatch, "build_bases")
    noise_calls = record_calls(monkeypatch, "geometric")
    with PrivacyLedger() as ledger:
        itemsets, estimates = privbasis_top_k(
            X_PLANTED, k=30, epsilon=1e6, rng=np.random.default_rng(0), max_basis_length=3
        )
    (items, pairs, _), _, bases = bases_calls[0]
    n_selected, n_pairs = len(items), len(pairs)
    assert n_selected > 3 and n_pairs > 0
    assert len(ledger.entries) == 1 + n_selected + n_pairs + 1
    assert all(1 <= len(b) <= 3 for b in bases)
    assert set().union(*map(set, bases)) == set(items)
    assert all({a, b} <= set(items) for a, b in pairs)
    # one geometric call over all bins, calibrated to the number of bases
    (bins,), kwargs, _ = noise_calls[0]
    assert len(noise_calls) == 1 and kwargs["sensitivity"] == len(bases)
    assert bins.size == sum(2 ** len(b) - 1 for b in bases)
    # every output itemset lies in a basis, and at negligible noise its estimate is exact
    assert all(any(set(s) <= set(b) for b in bases) for s in itemsets)
    assert estimates.tolist() == supports(X_PLANTED, itemsets).tolist()


def test_each_basis_bins_count_the_transactions_touching_it(monkeypatch):
    noise_calls = record_calls(monkeypatch, "geometric")
    bases_calls = record_calls(monkeypatch, "build_bases")
    privbasis_top_k(X_PLANTED, k=30, epsilon=1e6, rng=np.random.default_rng(1), max_basis_length=4)
    bases = bases_calls[0][2]
    bins = noise_calls[0][0][0]
    dense = X_PLANTED.toarray()
    start = 0
    for basis in bases:
        size = 2 ** len(basis) - 1
        assert bins[start : start + size].sum() == dense[:, list(basis)].any(axis=1).sum()
        start += size


def test_fewer_than_k_when_the_bases_are_small():
    X = np.array([[1, 1]] * 10 + [[1, 0]] * 5, dtype=bool)
    itemsets, estimates = privbasis_top_k(X, k=10, epsilon=1e6, rng=np.random.default_rng(0))
    assert itemsets == [(0,), (0, 1), (1,)]
    assert estimates.tolist() == [15, 10, 10]


def brute_force_maximal_cliques(adjacency):
    nodes = sorted(adjacency)
    cliques = [
        set(c)
        for size in range(1, len(nodes) + 1)
        for c in combinations(nodes, size)
        if all(b in adjacency[a] for a, b in combinations(c, 2))
    ]
    return sorted(tuple(sorted(c)) for c in cliques if not any(c < other for other in cliques))


graphs = st.integers(1, 9).flatmap(
    lambda n: st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=30).map(
        lambda edges: {(min(e), max(e)) for e in edges if e[0] != e[1]}
    )
)


def adjacency_of(edges):
    adjacency = {node: set() for edge in edges for node in edge}
    for a, b in edges:
        adjacency[a].add(b)
        adjacency[b].add(a)
    return adjacency


@settings(max_examples=150, deadline=None)
@given(edges=graphs)
def test_bron_kerbosch_matches_brute_force(edges):
    adjacency = adjacency_of(edges)
    assert maximal_cliques(adjacency) == brute_force_maximal_cliques(adjacency)


@settings(max_examples=200, deadline=None)
@given(edges=graphs, extra=st.sets(st.integers(0, 15), max_size=6), length=st.integers(1, 6))
def test_build_bases_covers_items_and_pairs(edges, extra, length):
    items = sorted(extra | {node for edge in edges for node in edge})
    bases = build_bases(items, sorted(edges), length)
    assert all(1 <= len(b) <= length and list(b) == sorted(set(b)) for b in bases)
    assert set().union(*map(set, bases)) == set(items)
    cliques = maximal_cliques(adjacency_of(edges))
    if all(len(c) <= length for c in cliques):  # no clique was cut: every pair is covered
        assert all(any({a, b} <= set(basis) for basis in bases) for a, b in edges)


def test_build_bases_merges_and_fills_as_the_authors_code():
    pairs = [(0, 1), (0, 2), (1, 2), (2, 3), (1, 3), (4, 5)]
    # maximal cliques {0,1,2}, {1,2,3}, {4,5}; longest 3. No two have a union of at most
    # 3 items, so nothing merges; the orphan item 6 fills {4,5} up to 3
    assert build_bases(range(7), pairs, 12) == [(0, 1, 2), (1, 2, 3), (4, 5, 6)]
    # a clique longer than max_basis_length is cut into pieces
    pairs = list(combinations(range(5), 2))
    assert build_bases(range(5), pairs, 2) == [(0, 1), (2, 3), (4,)]


def test_bad_arguments_are_refused():
    rng = np.random.default_rng(0)
    for bad in ({"k": 0}, {"epsilon": 0.0}, {"eta": 0.5}, {"max_basis_length": 27},
                {"max_basis_length": 0}, {"k": 1.5}):  # fmt: skip
        arguments = {"k": 2, "epsilon": 1.0, **bad}
        with PrivacyLedger() as ledger, pytest.raises(ValueError):
            privbasis_top_k(X_PLANTED, rng=rng, **arguments)
        assert ledger.total.epsilon == 0
    with pytest.raises(ValueError, match="only 0/1"):
        privbasis_top_k(sp.csr_matrix(np.array([[3, 0]])), k=1, epsilon=1.0, rng=rng)
