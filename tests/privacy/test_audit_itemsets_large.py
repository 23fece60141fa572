"""Empirical privacy audits of the large-universe itemset miners (TF and PrivBasis).

Each case is a pair of tiny transaction databases that differ by one added transaction,
chosen so that one statistic of the output carries (nearly) a whole step's privacy loss
(claimed epsilon 2):

* **TF selection**: four items, each in 5 transactions of its own, ``max_length=1``,
  ``k=3``; the neighbour adds ``{0}``. Phase 1 releases three of the four items: item
  0's score rises by 1 and the statistic is whether item 0 is released. Three rounds of
  ``epsilon / 6`` move it by a factor of about ``e^0.4``; the mutant that spends the
  full ``epsilon`` in every round moves it by about ``e^3.5``.
* **TF supports**: three items and ``max_length=3`` (7 itemsets), ``k=7``: phase 1
  releases the whole domain, and the neighbour adds ``{0, 1, 2}``, raising all seven
  supports by 1. Phase 2 noises them with sensitivity ``k = 7``; the mutant calibrates
  it to sensitivity 1. The statistic counts the released supports above their exact
  value on the first database: ``s = 7`` needs every coordinate pushed up, an event
  whose probability ratio is that of the whole vector.
* **PrivBasis bins**: ``max_basis_length=1``, six items and supports (300 for items
  0-4, 100 for item 5 and every pair) that put ``theta`` at ``f_(6)``, so ``lambda = 6``
  (all items) with probability ``1 - 1e-8``: six one-item bases, and the bins are the
  item supports with noise of sensitivity ``w = 6``. The neighbour adds all six items,
  raising every bin; the statistic counts the raised supports, as above. The mutant
  calibrates the bins to sensitivity 1.

The correct functions must pass on the same neighbours and statistics; the mutants
must be flagged. A statistic is post-processing of the release, so a pass never
depends on choosing it well.
"""

import numpy as np
import pytest

import skdp.frequent_patterns._privbasis as privbasis_module
import skdp.frequent_patterns._tf as tf_module
from skdp.frequent_patterns._mining import top_itemsets
from skdp.frequent_patterns._privbasis import privbasis_top_k
from skdp.frequent_patterns._tf import tf_top_k
from skdp.utils._audit import audit

# about 200 s of audits (10^4 releases of whole miners): run with -m slow; CI runs the
# small itemset audits (tests/privacy/test_audit_itemsets.py) and the mechanisms'
pytestmark = pytest.mark.slow


def with_extra(X, transaction):
    return np.vstack([X, np.asarray([transaction], dtype=bool)])


SELECTION = np.repeat(np.eye(4, dtype=bool), 5, axis=0)
TRIPLES = np.array([[1, 1, 1]] * 3 + [[1, 0, 0]] * 4 + [[0, 1, 1]] * 2 + [[0, 0, 1]] * 5, bool)
# 100 transactions of all six items, 200 of each single item 0..4
BASES = np.vstack([np.ones((100, 6), dtype=bool), np.repeat(np.eye(6, dtype=bool)[:5], 200, 0)])


def tf_selection(epsilon):
    def mechanism(data, rng):
        itemsets, _ = tf_top_k(data, k=3, max_length=1, epsilon=epsilon, rng=rng)
        return float((0,) in itemsets)

    return mechanism


def raised(itemsets, noisy, exact):
    """How many released supports exceed their exact value on the database ``exact``.

    An added transaction pushes every coordinate up by one, and ``s >= j`` is a union
    of events on the whole vector: for ``j`` = all of them, the ratio of the
    per-coordinate ratios multiplied together."""
    table = dict(zip(*top_itemsets(exact, 100), strict=True))
    return float(sum(value > table.get(s, 0) for s, value in zip(itemsets, noisy, strict=True)))


def tf_supports(epsilon):
    def mechanism(data, rng):
        itemsets, noisy = tf_top_k(data, k=7, max_length=3, epsilon=epsilon, rng=rng)
        return raised(itemsets, noisy, TRIPLES)

    return mechanism


def privbasis_bins(epsilon):
    def mechanism(data, rng):
        itemsets, estimates = privbasis_top_k(
            data, k=6, epsilon=epsilon, rng=rng, max_basis_length=1
        )
        return raised(itemsets, estimates, BASES)

    return mechanism


CASES = {  # release, first, second (one more transaction), claimed epsilon
    "tf-selection": (tf_selection, SELECTION, with_extra(SELECTION, [1, 0, 0, 0]), 2.0),
    "tf-supports": (tf_supports, TRIPLES, with_extra(TRIPLES, [1, 1, 1]), 2.0),
    "privbasis-bins": (privbasis_bins, BASES, with_extra(BASES, [1] * 6), 2.0),
}
SIZES = {"tf-selection": (500, 3000), "tf-supports": (200, 1000), "privbasis-bins": (200, 1000)}


def run_audit(name, n_search, n_samples, random_state=0):
    release, first, second, epsilon = CASES[name]
    return audit(
        release(epsilon), first, second, epsilon=epsilon,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_neighbours_move_what_the_audits_look_at():
    """The premises above, checked on the exact data and at negligible noise."""
    rng = np.random.default_rng(0)
    first, second = CASES["tf-supports"][1:3]
    assert len(top_itemsets(first, 8)[0]) == 7
    assert (top_itemsets(second, 7)[1] - top_itemsets(first, 7)[1]).tolist() == [1] * 7
    for name in ("tf-supports", "privbasis-bins"):
        release, first, second, _ = CASES[name]
        exact = [release(1e9)(data, rng) for data in (first, second)]  # noise-free
        assert exact == [0.0, {"tf-supports": 7.0, "privbasis-bins": 6.0}[name]]
    itemsets, _ = privbasis_top_k(BASES, k=6, epsilon=2.0, rng=rng, max_basis_length=1)
    assert sorted(itemsets) == [(j,) for j in range(6)]
    first, second = CASES["tf-selection"][1:3]
    assert top_itemsets(first, 4)[1].tolist() == [5, 5, 5, 5]
    assert top_itemsets(second, 4)[0][0] == (0,)  # the extra transaction makes item 0 first
    assert all(tf_selection(1e9)(second, rng) == 1.0 for _ in range(20))


@pytest.mark.parametrize("name", CASES)
def test_itemset_miners_pass_audit(name):
    result = run_audit(name, *SIZES[name])
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_itemset_miners_pass_a_large_audit(name):
    result = run_audit(name, n_search=2000, n_samples=20000, random_state=1)
    assert result.passed, str(result)


def tf_full_epsilon_per_round(monkeypatch):
    """Every phase-1 round spends the whole epsilon instead of epsilon / (2 k)."""
    real = tf_module.exponential

    def too_little_noise(scores, *, epsilon, **kwargs):
        return real(scores, epsilon=CASES["tf-selection"][3], **kwargs)

    monkeypatch.setattr(tf_module, "exponential", too_little_noise)


def sensitivity_one(module):
    def mutant(monkeypatch):
        """The supports (bins) noised as if one transaction moved only one of them."""
        real = module.geometric

        def too_little_noise(value, *, sensitivity, **kwargs):
            return real(value, sensitivity=1, **kwargs)

        monkeypatch.setattr(module, "geometric", too_little_noise)

    return mutant


@pytest.mark.parametrize(
    ("mutant", "name"),
    [
        (tf_full_epsilon_per_round, "tf-selection"),
        (sensitivity_one(tf_module), "tf-supports"),
        (sensitivity_one(privbasis_module), "privbasis-bins"),
    ],
    ids=["tf-em-full-epsilon", "tf-phase2-sensitivity-1", "privbasis-bins-sensitivity-1"],
)
def test_audit_flags_the_mutant(monkeypatch, mutant, name):
    mutant(monkeypatch)
    result = run_audit(name, *SIZES[name])
    assert not result.passed, str(result)
