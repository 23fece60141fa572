"""Empirical privacy audit of skdp.naive_bayes.CategoricalNB on tiny neighbouring datasets.

One feature with the public categories ``{0, 1}``, public classes ``[0, 1]``: three
records of category 0 in class 0, two of category 1 in class 1 and the extra record,
category 1 in class 1 (removed in the neighbour; the third of its class, so that the
class count, 3 or 2, is not hidden by the floor at 1). The extra record moves class
1's count by 1 (at ``epsilon / 2``: ``d = 1``) and the cell (class 1, category 1) by 1
(at ``epsilon / 2``). Audited:

* ``class_count_[1]``: the inverse-variance average of both releases (all of epsilon);
* ``category_count_[0][1, 1]``: the noisy count of the cell, clipped at 0
  (``feature_log_prob_`` is its post-processing; on so few records the feature is set
  aside as mostly noise, so its probabilities would not show the count).

A mutant whose category counts are drawn for 10x the epsilon they record must be
flagged; the estimator, audited on the same neighbours, must pass.
"""

import contextvars

import numpy as np
import pytest

import skdp.naive_bayes._counts as counts_module
from skdp.accounting import record_spend
from skdp.naive_bayes import CategoricalNB
from skdp.utils._audit import audit

EPSILON = 1.0
X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [1.0]])
Y = np.array([0, 0, 0, 1, 1, 1])
FIRST, SECOND = (X, Y), (X[:-1], Y[:-1])

RELEASES = {
    "count": lambda model: model.class_count_[1],
    "cell": lambda model: model.category_count_[0][1, 1],
}


def release(name, epsilon=EPSILON):
    def fit(data, rng):
        model = CategoricalNB(epsilon=epsilon, categories=[2], classes=[0, 1], random_state=rng)
        return RELEASES[name](model.fit(*data))

    return fit


def run_audit(name, n_search, n_samples, random_state=0):
    return audit(
        release(name), FIRST, SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_extra_record_moves_class_one():
    """The premise, at negligible noise: class 1 holds three records of category 1, then two."""
    rng = np.random.default_rng(0)
    first = [release(name, 1e9)(FIRST, rng) for name in RELEASES]
    second = [release(name, 1e9)(SECOND, rng) for name in RELEASES]
    assert first[0] == pytest.approx(3.0) and second[0] == pytest.approx(2.0)
    assert first[1] == 3 and second[1] == 2


def test_categorical_nb_passes_the_audit():
    """The category counts; the slow twin audits the class count too, larger."""
    result = run_audit("cell", n_search=30, n_samples=100)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", RELEASES)
def test_categorical_nb_passes_a_large_audit(name):
    result = run_audit(name, n_search=500, n_samples=5000, random_state=1)
    assert result.passed, str(result)


def _too_little_noise(monkeypatch):
    """Counts drawn at 10x the epsilon that the ledger is told."""
    real = counts_module.geometric

    def geometric(value, *, epsilon, **kwargs):
        drawn = contextvars.Context().run(real, value, epsilon=10 * epsilon, **kwargs)
        record_spend(epsilon, mechanism="geometric")
        return drawn

    monkeypatch.setattr(counts_module, "geometric", geometric)


def test_audit_flags_counts_with_too_little_noise(monkeypatch):
    _too_little_noise(monkeypatch)
    result = run_audit("cell", n_search=30, n_samples=150)
    assert not result.passed, str(result)


@pytest.mark.slow
def test_audit_flags_counts_with_too_little_noise_large(monkeypatch):
    _too_little_noise(monkeypatch)
    result = run_audit("count", n_search=500, n_samples=5000, random_state=1)
    assert not result.passed, str(result)
