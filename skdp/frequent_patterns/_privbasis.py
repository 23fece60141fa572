"""PrivBasis: private top-k itemsets through noisy basis bins (Li et al., PVLDB 2012)."""

import math
from collections import defaultdict
from functools import lru_cache
from numbers import Integral, Real

import numpy as np

from skdp.frequent_patterns._bitmask import MAX_BINS_ITEMS, superset_sums
from skdp.frequent_patterns._counts import TransactionCounts
from skdp.frequent_patterns._mining import select_without_replacement
from skdp.frequent_patterns._tidsets import upper_pairs
from skdp.mechanisms import exponential, geometric
from skdp.utils.validation import closing_share

__all__ = ["build_bases", "maximal_cliques", "privbasis_top_k"]

# budget shares of the authors' code: lambda, frequent items (and pairs), basis bins
ALPHA = (0.1, 0.4, 0.5)
# the authors' size of the bases made of left-over items
ORPHAN_GROUP = 3


def maximal_cliques(adjacency):
    """All maximal cliques of an undirected graph (Bron–Kerbosch with pivoting).

    Parameters
    ----------
    adjacency : dict of node to set of nodes
        Symmetric, without self-loops; every node is a key.

    Returns
    -------
    list of tuple
        Each clique sorted; the list sorted.

    Examples
    --------
    >>> from skdp.frequent_patterns._privbasis import maximal_cliques
    >>> maximal_cliques({0: {1, 2}, 1: {0, 2}, 2: {0, 1, 3}, 3: {2}})
    [(0, 1, 2), (2, 3)]
    """
    cliques = []

    def expand(clique, candidates, excluded):
        if not candidates and not excluded:
            cliques.append(tuple(sorted(clique)))
            return
        # the pivot's neighbours are reached through the branches of its non-neighbours
        pivot = max(sorted(candidates | excluded), key=lambda u: len(adjacency[u] & candidates))
        for node in sorted(candidates - adjacency[pivot]):
            expand([*clique, node], candidates & adjacency[node], excluded & adjacency[node])
            candidates = candidates - {node}
            excluded = excluded | {node}

    if adjacency:
        expand([], set(adjacency), set())
    return sorted(cliques)


def build_bases(items, pairs, max_basis_length):
    """The basis set of PrivBasis from the selected items and pairs (post-processing).

    The maximal cliques of the graph of the selected pairs are the first bases (a
    clique longer than ``max_basis_length`` is cut into consecutive pieces). Let
    ``L`` be the longest one. Repeatedly, the two bases with the largest intersection
    whose union has at most ``L`` items are merged. The selected items in no clique
    then fill the bases shorter than ``L`` up to ``L``, and the rest form bases of
    ``ORPHAN_GROUP = 3`` items, as in the authors' code (fewer if
    ``max_basis_length`` is smaller).

    Parameters
    ----------
    items : sequence of int
        The selected items.
    pairs : sequence of (int, int)
        The selected pairs, among ``items``.
    max_basis_length : int

    Returns
    -------
    list of tuple of int
        Sorted bases, covering every selected item.

    Examples
    --------
    >>> from skdp.frequent_patterns._privbasis import build_bases
    >>> build_bases([0, 1, 2, 3, 4, 5, 6], [(0, 1), (0, 2), (1, 2), (3, 4)], 12)
    [(0, 1, 2), (3, 4, 5), (6,)]
    """
    adjacency = defaultdict(set)
    for a, b in pairs:
        adjacency[a].add(b)
        adjacency[b].add(a)
    pieces = [
        clique[i : i + max_basis_length]
        for clique in maximal_cliques(dict(adjacency))
        for i in range(0, len(clique), max_basis_length)
    ]
    bases = [set(piece) for piece in sorted(pieces, key=lambda c: (-len(c), c))]
    target = max((len(basis) for basis in bases), default=0)
    while True:
        best = None
        for i in range(len(bases)):
            for j in range(i + 1, len(bases)):
                overlap = len(bases[i] & bases[j])
                if len(bases[i] | bases[j]) <= target and (best is None or overlap > best[0]):
                    best = (overlap, i, j)
        if best is None:
            break
        _, i, j = best
        bases[i] |= bases.pop(j)
    orphans = sorted(set(items) - set().union(*bases))
    for basis in bases:
        while len(basis) < target and orphans:
            basis.add(orphans.pop(0))
    group = min(ORPHAN_GROUP, max_basis_length)
    bases += [set(orphans[i : i + group]) for i in range(0, len(orphans), group)]
    return [tuple(sorted(basis)) for basis in bases]


def _n_pairs(eta_k, n_selected, n_pairs_available):
    """The paper's lambda_2 = (eta k - lambda) / sqrt(max(1, (eta k - lambda) / lambda))."""
    excess = eta_k - n_selected
    if excess <= 0:
        return 0
    return min(math.ceil(excess / math.sqrt(max(1.0, excess / n_selected))), n_pairs_available)


@lru_cache(maxsize=32)
def _subset_positions(length):
    """The positions of the set bits of every mask ``1 .. 2**length - 1``."""
    return tuple(tuple(j for j in range(length) if mask >> j & 1) for mask in range(1, 2**length))


def _estimates(bases, noisy_bins):
    """Mean over the bases containing it of each itemset's estimated support."""
    totals = defaultdict(lambda: [0, 0])
    start = 0
    for basis in bases:
        size = 2 ** len(basis)
        estimate = superset_sums(
            np.concatenate(([0], noisy_bins[start : start + size - 1]))
        ).tolist()
        start += size - 1
        for positions, value in zip(_subset_positions(len(basis)), estimate[1:], strict=True):
            total = totals[tuple(basis[j] for j in positions)]
            total[0] += value
            total[1] += 1
    return {itemset: total / count for itemset, (total, count) in totals.items()}


def _check_parameters(k, epsilon, eta, max_basis_length):
    if not isinstance(k, Integral) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be an integer >= 1; got {k!r}.")
    if not isinstance(epsilon, Real) or not 0 < epsilon < math.inf:
        raise ValueError(f"epsilon must be a finite number > 0; got {epsilon!r}.")
    if not isinstance(eta, Real) or not 1 <= eta < math.inf:
        raise ValueError(f"eta must be a finite number >= 1; got {eta!r}.")
    if not isinstance(max_basis_length, Integral) or not 1 <= max_basis_length <= MAX_BINS_ITEMS:
        raise ValueError(
            f"max_basis_length must be an integer in [1, {MAX_BINS_ITEMS}]; "
            f"got {max_basis_length!r}."
        )


def privbasis_top_k(X, *, k, epsilon, rng, eta=1.1, max_basis_length=12):
    """The ``k`` itemsets of largest estimated support and their estimates, by PrivBasis.

    1. ``lambda`` (``0.1 epsilon``): ``theta`` is the support of the ``ceil(eta k)``-th
       most frequent itemset (mined exactly) and ``f_(1) >= f_(2) >= ...`` the sorted
       item supports; :func:`~skdp.mechanisms.exponential` picks ``lambda`` in
       ``1..n_items`` with utility ``-|f_(lambda) - theta|``, sensitivity 1.
    2. Frequent items (``0.4 epsilon``): if ``lambda <= max_basis_length``, ``lambda``
       rounds of the monotone exponential mechanism without replacement on the item
       supports, ``0.4 epsilon / lambda`` each; the items are the one basis. Otherwise
       ``lambda_2 = ceil((eta k - lambda) / sqrt(max(1, (eta k - lambda) / lambda)))``
       (0 if ``lambda >= eta k``), ``beta_1 = 0.4 lambda / (lambda + lambda_2)``,
       ``beta_2 = 0.4 - beta_1``: ``lambda`` items with ``beta_1 epsilon`` (split over
       the rounds), then ``lambda_2`` pairs among the selected items' pairs with
       ``beta_2 epsilon``, by the same loop on the pair supports.
    3. Bases: :func:`build_bases` on the selected items and pairs (post-processing).
    4. Bins (``0.5 epsilon``): for each basis ``B_i`` and each non-empty ``S ⊆ B_i`` the
       number of transactions whose items in ``B_i`` are exactly ``S``; all bins of all
       ``w`` bases in one :func:`~skdp.mechanisms.geometric` call of sensitivity ``w``.
    5. The support of every non-empty subset of a basis is the sum of the noisy bins of
       its supersets in the basis, averaged over the bases that contain it; the top
       ``k`` by this estimate are returned.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_transactions, n_items) or \
TransactionCounts
        Boolean transactions; the columns are the public item universe. The exact
        counts are read through :class:`~skdp.frequent_patterns._counts.TransactionCounts`
        (given, e.g. over a dask array, or built on ``X``): one pass for the item
        supports, one per level for ``theta``, one for the pair supports, one for the
        bins.
    k : int
        Number of itemsets wanted.
    epsilon : float
        Total privacy budget.
    rng : numpy.random.Generator
        From :func:`skdp.mechanisms.check_random_state`.
    eta : float, default=1.1
        Over-selection factor of the paper.
    max_basis_length : int, default=12
        Longest basis (``2**max_basis_length - 1`` bins each), at most 26.

    Returns
    -------
    itemsets : list of tuple of int
        Sorted column indices, by decreasing estimate (ties: lexicographic). Fewer than
        ``k`` only when the bases have fewer than ``k`` non-empty subsets in all.
    supports : ndarray of int64
        The estimates, rounded to integers.

    Notes
    -----
    **Privacy**: ``epsilon``-DP under add/remove one transaction. Step 1: adding a
    transaction raises every item support, hence every order statistic ``f_(lambda)``,
    and ``theta`` (an order statistic of itemset supports) by 0 or 1, so the utility
    has sensitivity 1 but is not monotone (``monotonic=False``). Step 2: item and pair
    supports rise by 0 or 1 together (monotone, sensitivity 1); the candidate pairs
    depend only on the items released before. Step 4: a transaction falls in exactly
    one bin of each basis (the empty one, which is not released, included), so the
    bins have L1 sensitivity ``w``; the bases are a function of released outputs only.
    Budget: ``0.1 + 0.4 + 0.5`` of ``epsilon``; the last share closes the float sum so
    the ledger sees exactly ``epsilon``.

    **Differences from the paper and the authors' code**: step 1 spends ``0.1
    epsilon`` (the authors' code uses the full ``epsilon`` in that exponent, spending
    ``1.9 epsilon`` in all); ``lambda_2`` is an integer number of rounds and each round
    spends ``beta_2 epsilon / lambda_2`` (the code ran ``ceil(lambda_2)`` rounds of
    ``beta_2 epsilon / lambda_2`` for a fractional ``lambda_2``); exact selection and
    discrete Laplace noise instead of floats clipped at ``exp(500)`` and
    ``np.random.laplace``; cliques longer than ``max_basis_length`` are cut into
    pieces; estimates are plain means over bases, as in the code (the paper weighs them).

    References
    ----------
    N. Li, W. Qardaji, D. Su and J. Cao, "PrivBasis: Frequent itemset mining with
    differential privacy", PVLDB 5(11), 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.frequent_patterns._privbasis import privbasis_top_k
    >>> X = np.array([[1, 1, 0]] * 30 + [[1, 0, 1]] * 10 + [[0, 1, 0]] * 5)
    >>> itemsets, noisy = privbasis_top_k(X, k=3, epsilon=100.0,
    ...                                   rng=np.random.default_rng(0))
    >>> itemsets
    [(0,), (1,), (0, 1)]
    """
    counts = X if isinstance(X, TransactionCounts) else TransactionCounts(X)
    _check_parameters(k, epsilon, eta, max_basis_length)
    item_support = counts.item_supports()
    n_theta = math.ceil(eta * k)
    theta = counts.nth_support(n_theta)

    epsilon_lambda = ALPHA[0] * epsilon
    ranked = np.sort(item_support)[::-1]
    n_selected = 1 + exponential(
        -np.abs(ranked - theta), sensitivity=1, epsilon=epsilon_lambda, random_state=rng
    )
    spent = epsilon_lambda
    pairs = []
    if n_selected <= max_basis_length:
        round_epsilon = ALPHA[1] * epsilon / n_selected
        items = select_without_replacement(
            item_support, n_selected, epsilon=round_epsilon, rng=rng
        ).tolist()
        spent = _add_rounds(spent, round_epsilon, n_selected)
        bases = [tuple(sorted(items))]
    else:
        n_pairs = _n_pairs(eta * k, n_selected, n_selected * (n_selected - 1) // 2)
        beta_items = ALPHA[1] * n_selected / (n_selected + n_pairs)
        round_epsilon = beta_items * epsilon / n_selected
        items = sorted(
            select_without_replacement(
                item_support, n_selected, epsilon=round_epsilon, rng=rng
            ).tolist()
        )
        spent = _add_rounds(spent, round_epsilon, n_selected)
        if n_pairs:
            first, second = upper_pairs(n_selected)
            pair_support = counts.pair_support_values(items)
            round_epsilon = (ALPHA[1] - beta_items) * epsilon / n_pairs
            picks = select_without_replacement(
                pair_support, n_pairs, epsilon=round_epsilon, rng=rng
            )
            spent = _add_rounds(spent, round_epsilon, n_pairs)
            pairs = [(items[first[p]], items[second[p]]) for p in picks]
        bases = build_bases(items, pairs, max_basis_length)

    noisy_bins = geometric(
        counts.basis_bins(bases),
        sensitivity=len(bases),
        epsilon=closing_share(epsilon, spent),
        random_state=rng,
    )
    estimates = _estimates(bases, noisy_bins)
    ranked_itemsets = sorted(estimates, key=lambda itemset: (-estimates[itemset], itemset))[:k]
    values = np.array([estimates[s] for s in ranked_itemsets], dtype=float)
    return ranked_itemsets, np.rint(values).astype(np.int64)


def _add_rounds(spent, round_epsilon, n_rounds):
    """The ledger's running total after ``n_rounds`` calls of ``round_epsilon``."""
    for _ in range(n_rounds):
        spent += round_epsilon
    return spent
