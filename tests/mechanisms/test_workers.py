"""Unseeded noise is never shared between forked or spawned workers."""

import multiprocessing

import pytest
from joblib import Parallel, delayed

from skdp.mechanisms import check_random_state, laplace


def _draw(_):
    # Snapped Laplace draws sit on a grid, so two single draws can coincide by
    # chance (about 1 in 150 for eight); eight draws per worker cannot.
    return tuple(float(laplace(0.0, sensitivity=1.0, epsilon=1.0)) for _ in range(8))


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
def test_forked_workers_draw_different_noise():
    check_random_state(None)  # a generator made in the parent must not leak into children
    with multiprocessing.get_context("fork").Pool(4) as pool:
        draws = pool.map(_draw, range(8))
    assert len(set(draws)) == len(draws)


def test_joblib_workers_draw_different_noise():
    draws = Parallel(n_jobs=2)(delayed(_draw)(i) for i in range(8))
    assert len(set(draws)) == len(draws)
