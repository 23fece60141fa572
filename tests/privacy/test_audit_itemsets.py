"""Empirical privacy audit of the TDPS releases and DPFrequentItemsets (tdps-bins).

Three items, so ``2**3 = 8`` bins. The second database holds 17 transactions, none with
all three items (``max_length = 2`` is a true bound); the first one adds one transaction
``{0, 1}`` (bin 3). The extra transaction moves the bin ``{0, 1}`` by one and the
supports of ``{}``, ``{0}``, ``{1}`` and ``{0, 1}`` by one each.

* bins_release (sensitivity 1): the released support of ``{0, 1}``, a sum of two noisy
  bins, moves by one;
* signal_release (sensitivity ``2**2 = 4``): the support of ``{0, 1}`` alone moves by a
  quarter of the sensitivity, so the audit also uses the smallest of the four moved
  supports (centred on the second database's): the event "all four are up" has
  probability ratio exactly ``e**epsilon``, the worst case;
* omp_release: the support of the empty itemset (the number of transactions, the sum
  of the released coefficients);
* the estimator: the released count of ``{0, 1}`` (all 7 itemsets released), and
  whether ``{0, 1}`` makes the top 3 (it competes with the item ``{2}``).

Mutants that must be flagged: the bins noised at a quarter of the scale (4 epsilon),
in the release and in the estimator; the signal noised with sensitivity 1 instead of
``2**max_length`` (a quarter of the scale, invisible on a single support, caught by the
four); and omp releasing its least-squares coefficients without noise. Any statistic
is post-processing of the release, so the correct versions pass whatever it is.
"""

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import skdp.frequent_patterns._tdps as tdps
from skdp.frequent_patterns import DPFrequentItemsets
from skdp.frequent_patterns._bitmask import superset_sums
from skdp.utils._audit import audit

EPSILON = 1.0
MAX_LENGTH = 2
PAIR = 0b011  # the itemset {0, 1}, and the extra transaction
SECOND = np.array([5, 3, 2, 4, 1, 0, 2, 0])  # bins; bin 7 = {0, 1, 2} is empty
FIRST = SECOND + np.eye(8, dtype=np.int64)[PAIR]
MOVED = [0b000, 0b001, 0b010, 0b011]  # the supports the extra transaction is in


def as_rows(bins):
    """One boolean row per transaction: bin b holds rows with the items of mask b."""
    masks = np.repeat(np.arange(8), bins)
    return (masks[:, np.newaxis] >> np.arange(3) & 1).astype(bool)


FIRST_X, SECOND_X = as_rows(FIRST), as_rows(SECOND)


@pytest.fixture(autouse=True)
def _one_thread():
    """Thousands of tiny least-squares fits: BLAS threads only cost time."""
    with threadpool_limits(1):
        yield


def pair_support(supports):
    return float(supports[PAIR])


def total(supports):
    return float(supports[0])


def smallest_moved_support(supports):
    exact = superset_sums(SECOND)
    return float(min(supports[s] - exact[s] for s in MOVED))


def bins_mechanism(bins, rng):
    return tdps.bins_release(bins, epsilon=EPSILON, rng=rng)


def signal_mechanism(bins, rng):
    return tdps.signal_release(bins, epsilon=EPSILON, rng=rng, max_length=MAX_LENGTH)


def omp_mechanism(bins, rng):
    return tdps.omp_release(
        bins, epsilon=EPSILON, rng=rng, max_length=MAX_LENGTH, n_measurements=12, sparsity=2
    )


def count_of_pair(model):
    table = model.frequent_itemsets_
    [count] = table["count"][table["itemsets"] == frozenset({0, 1})]
    return float(count)


def pair_in_top_3(model):
    return float(frozenset({0, 1}) in set(model.frequent_itemsets_["itemsets"]))


def estimator_mechanism(top_k):
    def mechanism(X, rng):
        return DPFrequentItemsets(epsilon=EPSILON, top_k=top_k, random_state=rng).fit(X)

    return mechanism


RELEASES = {
    "bins/pair": (bins_mechanism, pair_support),
    "signal/pair": (signal_mechanism, pair_support),
    "signal/four-moved": (signal_mechanism, smallest_moved_support),
    "omp/total": (omp_mechanism, total),
}
ESTIMATOR_RELEASES = {
    "count-of-pair": (estimator_mechanism(7), count_of_pair),
    "pair-in-top-3": (estimator_mechanism(3), pair_in_top_3),
}


def audit_release(name, n_search=250, n_samples=1250, random_state=0):
    mechanism, statistic = RELEASES[name]
    return audit(
        mechanism, FIRST, SECOND, epsilon=EPSILON, statistic=statistic,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def audit_estimator(name, n_search, n_samples, random_state=0):
    mechanism, statistic = ESTIMATOR_RELEASES[name]
    return audit(
        mechanism, FIRST_X, SECOND_X, epsilon=EPSILON, statistic=statistic,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_neighbours_differ_by_one_transaction_of_two_items():
    """The premise of the audits, at negligible noise."""
    assert FIRST.sum() == SECOND.sum() + 1 and FIRST[7] == SECOND[7] == 0
    moved = superset_sums(FIRST) - superset_sums(SECOND)
    assert np.flatnonzero(moved).tolist() == MOVED and set(moved[MOVED]) == {1}
    assert len(FIRST_X) == len(SECOND_X) + 1
    for X, bins in ((FIRST_X, FIRST), (SECOND_X, SECOND)):
        model = DPFrequentItemsets(epsilon=1e9, top_k=7, random_state=0).fit(X)
        exact = superset_sums(bins)
        assert count_of_pair(model) == exact[PAIR]
        assert model.n_transactions_estimate_ == len(X)
    # the top 3: items 1 and 0, then {0, 1} (support 5 or 4) against {2} (support 3)
    top = DPFrequentItemsets(epsilon=1e9, top_k=3, random_state=0).fit(SECOND_X)
    assert list(top.frequent_itemsets_["itemsets"]) == [{1}, {0}, {0, 1}]
    assert superset_sums(SECOND)[0b100] == 3


@pytest.mark.parametrize("name", RELEASES)
def test_tdps_release_passes_audit(name):
    result = audit_release(name)
    assert result.passed, str(result)


@pytest.mark.parametrize("name", ESTIMATOR_RELEASES)
def test_estimator_passes_audit(name):
    result = audit_estimator(name, n_search=150, n_samples=750)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", ESTIMATOR_RELEASES)
def test_estimator_passes_the_full_audit(name):
    result = audit_estimator(name, n_search=2000, n_samples=10000, random_state=1)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", RELEASES)
def test_tdps_release_passes_the_full_audit(name):
    result = audit_release(name, n_search=2000, n_samples=10000, random_state=1)
    assert result.passed, str(result)


# mutants --------------------------------------------------------------------------------------


def quarter_scale(monkeypatch):
    """Every geometric release of _tdps at 4 epsilon: a quarter of the noise scale."""
    real = tdps.geometric

    def too_little_noise(value, *, epsilon, **kwargs):
        return real(value, epsilon=4 * epsilon, **kwargs)

    monkeypatch.setattr(tdps, "geometric", too_little_noise)


def signal_sensitivity_one(monkeypatch):
    """The signal noised as if a transaction moved one support, not 2**max_length."""
    real = tdps.geometric

    def sensitivity_one(value, *, sensitivity, **kwargs):
        assert sensitivity == 2**MAX_LENGTH
        return real(value, sensitivity=1, **kwargs)

    monkeypatch.setattr(tdps, "geometric", sensitivity_one)


def clean_coefficients(monkeypatch):
    """The seed paper's TDPS_EP: the least-squares coefficients released without noise."""
    monkeypatch.setattr(tdps, "laplace", lambda value, **kwargs: np.asarray(value, float))


@pytest.mark.parametrize(
    ("mutant", "name"),
    [
        (quarter_scale, "bins/pair"),
        (signal_sensitivity_one, "signal/four-moved"),
        (clean_coefficients, "omp/total"),
    ],
    ids=["bins-quarter-scale", "signal-sensitivity-1", "omp-clean-coefficients"],
)
def test_audit_flags_the_release_mutant(monkeypatch, mutant, name):
    mutant(monkeypatch)
    result = audit_release(name, n_search=300, n_samples=1500)
    assert not result.passed, str(result)


def test_audit_flags_the_estimator_with_bins_at_a_quarter_scale(monkeypatch):
    quarter_scale(monkeypatch)
    result = audit_estimator("count-of-pair", n_search=200, n_samples=800)
    assert not result.passed, str(result)
