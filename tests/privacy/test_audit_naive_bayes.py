"""Empirical privacy audit of skdp.naive_bayes.GaussianNB on tiny neighbouring datasets.

One feature in the public box ``[-1, 1]``, public classes ``[0, 1]``: sixty records at 0
in class 0 (enough that the fit releases the squares: their noise floor is under
``0.05 h^2``) and the extra record, at the upper bound 1, in class 1 (removed in the
neighbour, which leaves class 1 empty). The extra record moves class 1's count by 1,
its centred sum by ``h = 1`` and its centred squares by ``h^2 / 2`` (the whole
sensitivity of each, ``d = 1``). The released statistics audited against the fit's
``epsilon``:

* ``theta_[1, 0]``: post-processing of the noisy count and sum of class 1;
* ``var_[1, 0]``: post-processing of the noisy count, sum and squares of class 1;
* ``class_count_[1]``: the noisy count alone.

A mutant whose mechanisms draw the noise for 10x the epsilon they record must be
flagged; the estimator, audited on the same neighbours, must pass.
"""

import warnings

import numpy as np
import pytest

import skdp.naive_bayes._budget as budget_module
import skdp.utils._centred_sums as centred_sums_module
from skdp.naive_bayes import GaussianNB
from skdp.utils._audit import audit
from tests._mutants import draws_for, ten_times

EPSILON = 1.0
X = np.array([[0.0]] * 60 + [[1.0]])
Y = np.array([0] * 60 + [1])
FIRST, SECOND = (X, Y), (X[:-1], Y[:-1])

RELEASES = {
    "theta": lambda model: model.theta_[1, 0],
    "var": lambda model: model.var_[1, 0],
    "count": lambda model: model.class_count_[1],
}


def release(name, epsilon=EPSILON):
    def fit(data, rng):
        model = GaussianNB(epsilon=epsilon, bounds=(-1.0, 1.0), classes=[0, 1], random_state=rng)
        return RELEASES[name](model.fit(*data))

    return fit


def run_audit(name, n_search, n_samples, random_state=0):
    return audit(
        release(name), FIRST, SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_extra_record_moves_class_one():
    """The premise of the audit, at negligible noise: class 1 holds the record at 1,
    then nothing (its count floors at 1 and its mean at the noisy 0 sum: the centre)."""
    rng = np.random.default_rng(0)
    first = [release(name, 1e9)(FIRST, rng) for name in RELEASES]
    second = [release(name, 1e9)(SECOND, rng) for name in RELEASES]
    assert first[0] == pytest.approx(1.0, abs=1e-6) and second[0] == pytest.approx(0.0, abs=1e-6)
    assert first[2] == 1 and second[2] == 1  # max(n~, 1): the counts 1 and 0 both show 1


def test_gaussian_nb_passes_the_audit():
    """The mean (count and sum); the slow twin audits every release, larger."""
    result = run_audit("theta", n_search=50, n_samples=200)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", RELEASES)
def test_gaussian_nb_passes_a_large_audit(name):
    result = run_audit(name, n_search=500, n_samples=5000, random_state=1)
    assert result.passed, str(result)


def test_audit_flags_noise_for_ten_times_epsilon(monkeypatch):
    for module, mechanism in [
        (centred_sums_module, "geometric"), (centred_sums_module, "laplace"),
        (budget_module, "geometric"),
    ]:  # fmt: skip
        ten_times(monkeypatch, module, mechanism)
    result = run_audit("theta", n_search=30, n_samples=150)
    assert not result.passed, str(result)


# bounds=None: the class counts are released first (skdp.naive_bayes._budget) and reused
# by the sums; on six records the private bounds fall back to the public box (tier 3,
# nothing spent), so the count takes 10% of epsilon. The extra record is the third of
# class 1, so the released count (3 or 2) is not hidden by the floor at 1.
X_NONE = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [1.0]])
Y_NONE = np.array([0, 0, 0, 1, 1, 1])
FIRST_NONE, SECOND_NONE = (X_NONE, Y_NONE), (X_NONE[:-1], Y_NONE[:-1])


def count_without_bounds(data, rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the public fallback box
        model = GaussianNB(epsilon=EPSILON, classes=[0, 1], random_state=rng).fit(*data)
    return model.class_count_[1]


def test_the_shared_count_passes_the_audit():
    result = audit(
        count_without_bounds, FIRST_NONE, SECOND_NONE, epsilon=EPSILON, n_search=30,
        n_samples=150, random_state=0,
    )  # fmt: skip
    assert result.passed, str(result)


@pytest.mark.slow
def test_the_shared_count_passes_a_large_audit():
    result = audit(
        count_without_bounds, FIRST_NONE, SECOND_NONE, epsilon=EPSILON, n_search=500,
        n_samples=5000, random_state=1,
    )  # fmt: skip
    assert result.passed, str(result)


def test_audit_flags_a_shared_count_with_too_little_noise(monkeypatch):
    """The count drawn for 50x its epsilon (5, not 0.1) is flagged against epsilon 1."""
    monkeypatch.setattr(budget_module, "geometric", draws_for(50, budget_module.geometric))
    result = audit(
        count_without_bounds, FIRST_NONE, SECOND_NONE, epsilon=EPSILON, n_search=30,
        n_samples=150, random_state=0,
    )  # fmt: skip
    assert not result.passed, str(result)
