"""TF: private top-k itemsets from truncated supports (Bhaskar et al., KDD 2010)."""

import math
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from skdp.frequent_patterns._counts import TransactionCounts
from skdp.frequent_patterns._mining import MAX_PATTERNS, n_itemsets
from skdp.mechanisms import exponential, geometric
from skdp.mechanisms._exact import _rational_at_most
from skdp.mechanisms._selection import _grid_scores
from skdp.utils.validation import closing_share

__all__ = ["tf_top_k"]

# log of the largest pattern domain: keeps every candidate within the exponential
# mechanism's 64-nat window (see the notes of tf_top_k)
MAX_LOG_DOMAIN = 56
# score floor, in nats below the log-sum-exp of all the weights
FLOOR_NATS = 63
# largest epsilon of a phase-1 round: the exponential mechanism's score grid (2**-20 of
# the sensitivity) is then 1/8 nat, fine enough for the 64-nat window
MAX_ROUND_EPSILON = 2.0**17
# levels with fewer itemsets than this are sampled by exact ranks, larger ones by rejection
_RANKED_LEVEL = 2**62


def _em_units(epsilon):
    """Padded sensitivity for :func:`exponential` and its log-weight per unit of score.

    ``exponential(monotonic=True)`` rounds scores to a grid of step ``g`` and weighs a
    candidate by ``exp(-a/d * gap)``, ``gap`` in grid units and ``a/d`` the rational just
    below ``epsilon / (sensitivity / g + 1)``. Returns ``1 + 4 g`` (see tf_top_k) and
    ``a / (d g)``, the exact log-weight of one unit of score.
    """
    _, units = _grid_scores(np.zeros(1), 1.0, epsilon)
    sensitivity = 1.0 + 4.0 * float(1 / (units - 1))
    _, units = _grid_scores(np.zeros(1), sensitivity, epsilon)
    step = Fraction(sensitivity) / (units - 1)
    numerator, denominator = _rational_at_most(Fraction(epsilon) / units)
    return sensitivity, float(Fraction(numerator, denominator) / step)


def _uniform_below(rng, upper):
    """A uniform integer in ``[0, upper)`` for a Python int of any size (exact)."""
    if upper <= 2**62:
        return int(rng.integers(upper))
    n_bits = upper.bit_length()
    while True:
        value = int.from_bytes(rng.bytes((n_bits + 7) // 8), "little") >> (-n_bits % 8)
        if value < upper:
            return value


def _colex_ranks(level, n_items):
    """Rank of each sorted row among the ``len(row)``-subsets (sum of C(c_i, i))."""
    length = level.shape[1]
    table = np.array(
        [[min(math.comb(c, i), 2**62) for i in range(length + 1)] for c in range(n_items)],
        dtype=np.int64,
    )
    return table[level, np.arange(1, length + 1)].sum(axis=1)


def _colex_unrank(rank, length, n_items):
    items = []
    for i in range(length, 0, -1):
        low, high = i - 1, n_items - 1  # the largest c with C(c, i) <= rank
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if math.comb(middle, i) <= rank else (low, middle - 1)
        items.append(low)
        rank -= math.comb(low, i)
    return tuple(sorted(items))


class _Block:
    """The unmined patterns: all itemsets of length <= max_length outside the mined set."""

    def __init__(self, levels, n_items, max_length):
        self.n_items = n_items
        self.mined = {level.shape[1]: level for level, _ in levels}
        self.sizes = {
            j: math.comb(n_items, j) - len(self.mined.get(j, ()))
            for j in range(1, min(max_length, n_items) + 1)
        }
        self.excluded = {}  # length -> sorted ranks, or set of tuples, built on first use

    @property
    def size(self):
        return sum(self.sizes.values())

    def _excluded(self, length):
        if length not in self.excluded:
            mined = self.mined.get(length, np.zeros((0, length), dtype=np.intp))
            if math.comb(self.n_items, length) < _RANKED_LEVEL:
                self.excluded[length] = np.sort(_colex_ranks(mined, self.n_items))
            else:
                self.excluded[length] = set(map(tuple, mined.tolist()))
        return self.excluded[length]

    def draw(self, rng):
        """Remove a uniformly random pattern of the block and return it."""
        position = _uniform_below(rng, self.size)
        for length in self.sizes:
            if position < self.sizes[length]:
                break
            position -= self.sizes[length]
        excluded = self._excluded(length)
        if isinstance(excluded, set):  # astronomically many: rejection, accepted ~always
            while True:
                pattern = tuple(sorted(rng.choice(self.n_items, length, replace=False).tolist()))
                if pattern not in excluded:
                    excluded.add(pattern)
                    break
        else:  # the position-th rank that is not excluded
            shifted = excluded - np.arange(excluded.size)
            rank = position + int(np.searchsorted(shifted, position, side="right"))
            pattern = _colex_unrank(rank, length, self.n_items)
            self.excluded[length] = np.insert(excluded, np.searchsorted(excluded, rank), rank)
        self.sizes[length] -= 1
        return pattern


def _log_sum_exp(values, extra):
    """``log(sum(exp(values)) + exp(extra))``, computed stably."""
    top = max(float(values.max()) if values.size else -math.inf, extra)
    return top + math.log(float(np.exp(values - top).sum()) + math.exp(extra - top))


def _check_parameters(k, max_length, epsilon, rho, min_support):
    for name, value in {"k": k, "max_length": max_length, "min_support": min_support}.items():
        if not isinstance(value, Integral) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {value!r}.")
    for name, value in {"epsilon": epsilon, "rho": rho}.items():
        if not isinstance(value, Real) or not 0 < value < math.inf:
            raise ValueError(f"{name} must be a finite number > 0; got {value!r}.")
    if rho >= 1:
        raise ValueError(f"rho is a failure probability in (0, 1); got {rho!r}.")


def tf_top_k(X, *, k, max_length, epsilon, rng, rho=0.1, min_support=1, max_patterns=MAX_PATTERNS):
    """The ``k`` most frequent itemsets of length ``1..max_length`` and their supports.

    TF (Bhaskar, Laxman, Smith and Thakurta, KDD 2010) over the domain ``U`` of all
    ``m = sum_j C(n_items, j)``, ``j <= max_length``, itemsets, in counts. With ``s_K``
    the ``k``-th largest support in ``U`` and
    ``gamma = (4 k / epsilon) (ln(k / rho) + ln m)``, every pattern gets the truncated
    score ``score(p) = max(supp(p), s_K - gamma, min_support - 1)``.

    * **Phase 1** (``epsilon / 2``): ``k`` rounds of the exponential mechanism without
      replacement, ``epsilon / (2 k)`` each, weights ``exp(epsilon / (2 k) * score)``.
      The patterns with support above ``t = max(s_K - gamma, min_support - 1)`` are
      mined exactly and are candidates of their own; the ``B`` others all score ``t``
      and stand as one block candidate of score ``t + ln(B) / rate`` (``rate``: the
      mechanism's exact log-weight per unit of score), i.e. the weight of ``B``
      candidates. When the block wins, a uniformly random unmined, unchosen pattern is
      drawn (exact ranks in each length; rejection for levels above ``2**62``).
    * **Phase 2** (``epsilon / 2``): the exact supports of the ``k`` chosen patterns with
      discrete Laplace noise, one :func:`~skdp.mechanisms.geometric` call of sensitivity
      ``k``.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_transactions, n_items) or \
TransactionCounts
        Boolean transactions; the columns are the public item universe. The exact
        supports are read through :class:`~skdp.frequent_patterns._counts.TransactionCounts`
        (given, e.g. over a dask array, or built on ``X``): one pass for the item
        supports, one per level for ``s_K`` and for the mined itemsets, one for the
        patterns drawn from the block.
    k : int
        Number of itemsets released, at most ``m``.
    max_length : int
        Longest itemset of the domain (public).
    epsilon : float
        Total privacy budget.
    rng : numpy.random.Generator
        From :func:`skdp.mechanisms.check_random_state`.
    rho : float in (0, 1), default=0.1
        The failure probability of the paper's utility guarantee; sets ``gamma``.
    min_support : int, default=1
        Public floor on the mined supports: the truncation level is at least
        ``min_support - 1``, so only itemsets with support ``>= min_support`` are ever
        mined. Raise it when mining fails with the ``max_patterns`` error.
    max_patterns : int, default=MAX_PATTERNS
        Public cap (2e6) on the mined itemsets; beyond it a ValueError asks to raise
        ``min_support`` or lower ``max_length``. The algorithm is never altered.

    Returns
    -------
    itemsets : list of tuple of int
        ``k`` itemsets (sorted column indices), by decreasing noisy support.
    supports : ndarray of shape (k,), int64
        Their noisy supports.

    Notes
    -----
    **Privacy**: ``epsilon``-DP under add/remove one transaction. Adding a transaction
    raises each of ``supp(p)``, ``s_K`` (an order statistic of supports) and the
    constant by 0 or 1, so ``score`` is monotone with sensitivity 1 and each round is
    the monotone exponential mechanism on ``U`` minus the patterns already released;
    the truncation level, the mined set and ``B`` are only a way to sample it. Phase 2:
    one transaction changes each chosen support by at most 1, L1 sensitivity ``k``.
    Budget: ``k * epsilon / (2 k) + epsilon / 2`` (the last share closes the float sum,
    so the ledger sees exactly ``epsilon``). A round never takes more than
    ``MAX_ROUND_EPSILON = 2**17``; beyond it (``epsilon > 2**18 k``) the remainder goes
    to phase 2 and ``gamma`` uses the capped round's epsilon, since the mechanism's
    score grid would be coarser than the 64-nat window below, and a round at ``2**17``
    already weighs a support one lower by ``exp(-2**17)``.

    Two exact-sampling details, both valid score changes rather than approximations:
    the mechanism rounds each score to a grid of step ``g`` (``2**-20``); the block's
    rounding moves every unmined pattern's effective score by up to ``g / 2`` in a way
    that need not be monotone, which the sensitivity ``1 + 4 g`` passed instead of 1
    pays for. And the mechanism gives every candidate more than 64 nats below the best
    the weight of one at 64 nats, which would be wrong for the block (it stands for
    ``B`` patterns); so every pattern's score is floored at ``LSE - 63 / rate``, ``LSE``
    the log-sum-exp of all weights in score units (monotone, sensitivity 1), which keeps
    all candidates inside the window while ``ln m <= 56`` (else a ValueError).

    **Differences from the paper**: the domain is all lengths up to ``max_length``, not
    one length; counts instead of frequencies (the same mechanism, scaled by ``n``);
    the public ``min_support`` floor inside ``score`` (with ``min_support=1`` it is the
    paper's score, as supports are non-negative); discrete Laplace noise in phase 2 and
    exact sampling in phase 1; the score floor above, which only changes weights below
    ``exp(-63)`` of the total; the cap on a round's epsilon.

    References
    ----------
    R. Bhaskar, S. Laxman, A. Smith and A. Thakurta, "Discovering frequent patterns in
    sensitive data", KDD 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.frequent_patterns._tf import tf_top_k
    >>> X = np.array([[1, 1, 0]] * 30 + [[1, 0, 1]] * 10 + [[0, 1, 0]] * 5)
    >>> itemsets, noisy = tf_top_k(X, k=2, max_length=2, epsilon=100.0,
    ...                            rng=np.random.default_rng(0))
    >>> itemsets
    [(0,), (1,)]
    """
    counts = X if isinstance(X, TransactionCounts) else TransactionCounts(X)
    _check_parameters(k, max_length, epsilon, rho, min_support)
    n_items = counts.n_items
    domain = n_itemsets(n_items, max_length)
    if k > domain:
        raise ValueError(f"k={k} exceeds the {domain} itemsets of length <= {max_length}.")
    log_domain = math.log(domain)
    if log_domain > MAX_LOG_DOMAIN:
        raise ValueError(
            f"The domain of itemsets of length <= {max_length} over {n_items} items has "
            f"e^{log_domain:.1f} > e^{MAX_LOG_DOMAIN} patterns: lower max_length."
        )
    s_k = counts.nth_support(k, max_length)
    round_epsilon = min(epsilon / (2 * k), MAX_ROUND_EPSILON)
    gamma = 2 / round_epsilon * (math.log(k / rho) + log_domain)  # (4k / eps)(...) uncapped
    truncation = max(s_k - gamma, min_support - 1.0)
    levels = counts.mine_levels(math.floor(truncation) + 1, max_length, max_patterns=max_patterns)
    mined_support = np.concatenate([s for _, s in levels] + [np.zeros(0, np.int64)])
    offsets = np.cumsum([0] + [len(s) for _, s in levels])
    block = _Block(levels, n_items, max_length)

    sensitivity, rate = _em_units(round_epsilon)
    alive = np.arange(mined_support.size)
    chosen, chosen_support, drawn, spent = [], [], [], 0.0
    for _ in range(k):
        scores = mined_support[alive].astype(float)
        n_block = block.size
        log_block = math.log(n_block) if n_block else -math.inf
        floor = _log_sum_exp(rate * scores, rate * truncation + log_block) / rate
        floor -= FLOOR_NATS / rate
        candidates = np.maximum(scores, floor)
        if n_block:
            candidates = np.r_[candidates, max(truncation, floor) + log_block / rate]
        pick = exponential(
            candidates,
            sensitivity=sensitivity,
            epsilon=round_epsilon,
            monotonic=True,
            random_state=rng,
        )
        spent += round_epsilon
        if pick == alive.size:
            drawn.append(len(chosen))
            chosen.append(block.draw(rng))
            chosen_support.append(0)  # counted after the rounds, in one pass
        else:
            index = int(alive[pick])
            level = int(np.searchsorted(offsets, index, side="right")) - 1
            chosen.append(tuple(levels[level][0][index - offsets[level]].tolist()))
            chosen_support.append(int(mined_support[index]))
            alive = np.delete(alive, pick)

    chosen_support = np.asarray(chosen_support, dtype=np.int64)
    chosen_support[drawn] = counts.supports([chosen[i] for i in drawn])
    noisy = geometric(
        chosen_support,
        sensitivity=k,
        epsilon=closing_share(epsilon, spent),
        random_state=rng,
    )
    order = np.argsort(-noisy, kind="stable")
    return [chosen[i] for i in order], noisy[order].astype(np.int64)
