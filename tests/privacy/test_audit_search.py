"""Empirical privacy audit of the whole private search on neighbouring datasets.

Spec: /work/shared/docs/private_selection.md, section 7, A1 and M1. Two stub candidates,
"always predict 0" and "always predict 1" (their fits read nothing), on a validation part
that holds (almost) every row (``validation_fraction=0.999``): ten records of each label
in the first dataset, so the (correct, wrong) counts are (10, 10) for both stubs; the
neighbour adds one label-1 record, which moves the "predict 1" stub's correct count to
11. A run releases the margin ``c - i`` (at 0.9 of ``epsilon_run``) and the size ``c +
i`` (at 0.1); the search keeps the best margin. The release audited is the pair
(selected grid index, released noisy correct count ``(size~ + margin~) / 2``), read as
the scalar ``1000 * index + count``: the events "index 1 with count >= t" are the
sharpest ones. The fast audit uses the tightest law offered, the negative binomial of
shape -0.5 (claim ``1.5 * 0.5 = 0.75``); the slow one audits both.

A mutant that releases the exact counts (no noise) must be flagged: the count 11 for
index 1 never occurs on the first dataset and often on the second (infinite loss).
"""

from functools import partial

import numpy as np
import pytest

import skdp.model_selection._runs as runs_module
from skdp.model_selection import PrivateGridSearchCV
from skdp.utils._audit import audit
from tests.model_selection._stubs import ConstantClassifier

EPSILON_RUN = 0.5
LAWS = {"geometric": 3.0, ("negative_binomial", -0.5): 1.5}  # law: factor 2 + eta
TIGHTEST = ("negative_binomial", -0.5)
LABELS = np.r_[np.zeros(10, dtype=int), np.ones(10, dtype=int)]
FIRST = (np.zeros((20, 1)), LABELS)
SECOND = (np.zeros((21, 1)), np.r_[LABELS, 1])  # add one label-1 record


def release(data, rng, repetitions=TIGHTEST):
    X, y = data
    search = PrivateGridSearchCV(
        ConstantClassifier(), {"label": [0, 1]}, epsilon=LAWS[repetitions] * EPSILON_RUN,
        n_iter=2, repetitions=repetitions, validation_fraction=0.999, random_state=rng,
    ).fit(X, y)  # fmt: skip
    assert search.epsilon_run_ == EPSILON_RUN
    return 1000 * search.best_params_["label"] + search.cv_results_["noisy_correct_count"][0]


def audit_search(n_search, n_samples, random_state=0, repetitions=TIGHTEST):
    return audit(
        partial(release, repetitions=repetitions), FIRST, SECOND,
        epsilon=LAWS[repetitions] * EPSILON_RUN, n_search=n_search, n_samples=n_samples,
        random_state=random_state,
    )  # fmt: skip


def exact_counts(monkeypatch):
    """The mutant: the run's counts are released without noise."""

    def no_noise(value, **kwargs):
        return np.asarray(value, dtype=np.int64)

    monkeypatch.setattr(runs_module, "geometric", no_noise)


def test_the_extra_record_moves_the_predict_one_count():
    """The premise, at negligible noise: stub 1 scores 10 of 20, then 11 of 21."""
    counts = []
    for X, y in (FIRST, SECOND):
        search = PrivateGridSearchCV(
            ConstantClassifier(label=1),
            {"label": [1, 1]},
            epsilon=1e9,
            validation_fraction=0.999,
            random_state=0,
        ).fit(X, y)
        counts.append(search.cv_results_["noisy_correct_count"][0])
    assert counts == [10, 11]


def test_search_passes_audit():
    result = audit_search(n_search=60, n_samples=100)
    assert result.passed, str(result)


def test_audit_flags_exact_scores(monkeypatch):
    exact_counts(monkeypatch)
    result = audit_search(n_search=60, n_samples=100)
    assert not result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("repetitions", list(LAWS))
def test_search_passes_a_large_audit(repetitions):
    result = audit_search(n_search=1000, n_samples=5000, random_state=1, repetitions=repetitions)
    assert result.passed, str(result)


@pytest.mark.slow
def test_a_large_audit_flags_exact_scores(monkeypatch):
    exact_counts(monkeypatch)
    result = audit_search(n_search=1000, n_samples=5000, random_state=1)
    assert not result.passed, str(result)
