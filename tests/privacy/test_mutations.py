"""Mutation tests: deliberately broken mechanisms must be flagged by the auditor.

Each broken variant sits next to its correct twin, audited on the same neighbours
with the same settings, so the test shows both that the auditor bites and that it
does not bite the correct version.
"""

import numpy as np
import pytest

from skdp.mechanisms import geometric, l2_laplace, laplace, report_noisy_max
from skdp.utils._audit import audit

EPSILON = 1.0
SETTINGS = {"n_search": 600, "n_samples": 3000, "random_state": 0}


def laplace_with_scale(fraction):
    """Laplace whose noise is `fraction` of the scale that EPSILON needs."""

    def release(value, rng):
        return laplace(value, sensitivity=1, epsilon=EPSILON / fraction, random_state=rng)

    return release


def noisy_max_assuming_monotone(monotonic):
    """Report-noisy-max with Laplace(sensitivity / epsilon) when `monotonic` is claimed."""

    def release(scores, rng):
        return report_noisy_max(
            scores,
            sensitivity=1,
            epsilon=EPSILON,
            monotonic=monotonic,
            noise="laplace",
            random_state=rng,
        )

    return release


def histogram_release(skip_empty_cells):
    """Release noisy cell counts; the broken version leaves empty cells at exactly 0."""

    def release(counts, rng):
        counts = np.asarray(counts)
        noised = counts > 0 if skip_empty_cells else np.ones(counts.shape, dtype=bool)
        out = counts.copy()
        out[noised] = geometric(counts[noised], epsilon=EPSILON, random_state=rng)
        return out

    return release


def l2_release(norm_is_gamma_of_dimension):
    """L2 Laplace release; the broken one draws the noise norm from Gamma(1), not Gamma(d)."""

    def release(value, rng):
        if norm_is_gamma_of_dimension:
            return l2_laplace(value, sensitivity=1, epsilon=EPSILON, random_state=rng)
        direction = rng.standard_normal(value.size)
        return value + rng.exponential(1 / EPSILON) * direction / np.linalg.norm(direction)

    return release


MUTATIONS = {
    "laplace with half the scale": (laplace_with_scale, 0.5, 1.0, 0.0, 1.0, None),
    "noisy max Lap(1/eps) on non-monotone scores": (
        noisy_max_assuming_monotone,
        True,
        False,
        [0.0, 2.0],
        [-1.0, 3.0],
        None,
    ),
    "l2 laplace noise norm from Gamma(1) in 5-d": (
        l2_release,
        False,
        True,
        np.zeros(5),
        np.eye(5)[0],
        lambda out: out[0],
    ),
    "count release skipping empty cells": (
        histogram_release,
        True,
        False,
        [1, 5],
        [0, 5],
        lambda out: out[0],
    ),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_auditor_flags_the_mutation_and_passes_the_original(name):
    make, broken, correct, first, second, statistic = MUTATIONS[name]
    flagged = audit(make(broken), first, second, epsilon=EPSILON, statistic=statistic, **SETTINGS)
    assert not flagged.passed, f"the auditor missed: {flagged}"
    original = audit(
        make(correct), first, second, epsilon=EPSILON, statistic=statistic, **SETTINGS
    )
    assert original.passed, f"the correct twin was flagged: {original}"
