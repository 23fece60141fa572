"""Empirical privacy audit of RandomForestClassifier's partition and composition.

What the forest adds to its trees is the claim that one record reaches one tree, so
that the trees cost epsilon together (parallel composition). A forest fit costs
milliseconds of validation before any tree, too slow for the thousands of releases of
a fast audit, so the fast audits release what the forest's own partition
(``RandomForestClassifier._parts``: the draws, the parts and their public record)
gives four stand-in trees: each part's count of class 1 plus Laplace noise at the
forest's epsilon, summed over the trees. A forest that hands every record to every
tree (sharing the data without splitting epsilon) is flagged. The ``-m slow`` twin
audits whole forest fits with their real DPDecisionTrees (whose own mechanisms are
audited in test_audit_tree.py).
"""

import numpy as np
import pandas as pd
import pytest

import skdp.tree._budget as tree_budget
from skdp.ensemble import RandomForestClassifier
from skdp.utils._audit import audit

EPSILON = 1.0
N_TREES = 4
X = np.array([[0.5], [1.5], [2.5], [3.5], [0.7], [3.2], [1.2]])
Y = np.array([0, 0, 1, 1, 0, 1, 1])
FIRST, SECOND = (X, Y), (X[:-1], Y[:-1])  # add/remove the last record (class 1)
FRAMES = {len(X): pd.DataFrame(X), len(X) - 1: pd.DataFrame(X[:-1])}


class SharedDataForest(RandomForestClassifier):
    """Mutant: every tree gets every record, each still at the whole epsilon."""

    def _parts(self, data, frame, classes, codes, *args):
        return [(data, classes[codes])] * args[-2]


def partition_release(cls):
    def release(data, rng):
        X_data, y_data = data
        forest = cls(N_TREES, epsilon=EPSILON, bounds=(0.0, 4.0), classes=[0, 1])
        frame, classes = FRAMES[len(X_data)], np.array([0, 1])
        parts = forest._parts(X_data, frame, classes, y_data, None, [0], N_TREES, rng)
        counts = np.array([np.sum(labels == 1) for _, labels in parts], dtype=float)
        return float(np.sum(counts + rng.laplace(scale=1 / EPSILON, size=len(counts))))

    return release


def test_forest_partition_passes_audit():
    result = audit(partition_release(RandomForestClassifier), FIRST, SECOND,
                   epsilon=EPSILON, n_search=200, n_samples=1000, random_state=0)  # fmt: skip
    assert result.passed, str(result)


def test_audit_flags_a_forest_that_shares_every_record():
    result = audit(partition_release(SharedDataForest), FIRST, SECOND,
                   epsilon=EPSILON, n_search=200, n_samples=1000, random_state=0)  # fmt: skip
    assert not result.passed, str(result)


def release_of(attribute):
    def release(data, rng):
        model = RandomForestClassifier(
            N_TREES,
            epsilon=EPSILON,
            bounds=(0.0, 4.0),
            classes=[0, 1],
            n_levels=0,
            random_state=rng,
        )
        model.fit(*data)
        return float(sum(attribute(tree) for tree in model.estimators_))

    return release


def class_one_count(tree):
    # n_levels=0: the release is the root's noisy count per class
    return float(tree.release_["count"].iloc[1])


@pytest.mark.slow
def test_forest_of_real_trees_passes_large_audit(monkeypatch):
    # the selected regime (counts, not public cuts) at any size, as in test_audit_tree
    monkeypatch.setattr(tree_budget, "FREE_BELOW", 0.0)
    result = audit(release_of(class_one_count), FIRST, SECOND,
                   epsilon=EPSILON, n_search=200, n_samples=1000, random_state=1)  # fmt: skip
    assert result.passed, str(result)
