"""Empirical privacy audit of the centred-sums primitive (skdp.utils._centred_sums).

Two groups, one feature in the public box ``[-1, 1]``: three records at 0 in group 0;
the extra record, at the upper bound ``1``, in group 1, and removed in the neighbour.
It moves group 1's count by 1, its centred sum ``T`` by 1 and its centred squares
``R = sum (t^2 - 1/2)`` by ``1/2``: each by its whole sensitivity (``d = 1``). Each
release is audited alone, with all the budget on it, against that budget, so the
audit is sharp (the squares are released only when audited: fewer calls).

Mutants that draw the sums' or squares' noise for 10x epsilon, or release an empty
group's count exactly (skipping the noise on empty cells), must be flagged.
"""

import numpy as np
import pytest

import skdp.utils._centred_sums as module
from skdp.utils._audit import audit
from tests._mutants import ten_times

EPSILON = 1.0
X = np.array([[0.0], [0.0], [0.0], [1.0]])
GROUPS = np.array([0, 0, 0, 1])
FIRST, SECOND = (X, GROUPS), (X[:-1], GROUPS[:-1])

RELEASES = {
    "count": lambda out: out.count[1],
    "sums": lambda out: out.sums[1, 0],
    "squares": lambda out: out.squares[1, 0] - out.n[1] / 2,  # R~, before adding n~ / 2
}


def release(name, epsilon=EPSILON):
    def run(data, rng):
        x, groups = data
        out = module.centred_sums(
            x, -1.0, 1.0, groups=groups, n_groups=2, epsilon_count=epsilon,
            epsilon_sums=epsilon, epsilon_squares=epsilon if name == "squares" else None,
            random_state=rng,
        )  # fmt: skip
        return RELEASES[name](out)

    return run


def run_audit(name, n_search, n_samples, random_state=0):
    return audit(
        release(name), FIRST, SECOND, epsilon=EPSILON, n_search=n_search,
        n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_the_extra_record_moves_each_release_by_its_whole_sensitivity():
    """The premise of the audit, at negligible noise."""
    rng = np.random.default_rng(0)
    for name, moved in (("count", 1), ("sums", 1), ("squares", 0.5)):
        first, second = (release(name, 1e9)(data, rng) for data in (FIRST, SECOND))
        assert first - second == pytest.approx(moved, abs=1e-6), name


@pytest.mark.parametrize("name", RELEASES)
def test_centred_sums_pass_the_audit(name):
    result = run_audit(name, n_search=100, n_samples=400)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("name", RELEASES)
def test_centred_sums_pass_a_large_audit(name):
    result = run_audit(name, n_search=2000, n_samples=20000, random_state=1)
    assert result.passed, str(result)


def too_little_noise(monkeypatch):
    ten_times(monkeypatch, module, "laplace")


def empty_group_not_noised(monkeypatch):
    real = module.geometric

    def geometric(value, **kwargs):
        counts = np.asarray(value)
        return np.where(counts == 0, 0, real(counts, **kwargs))

    monkeypatch.setattr(module, "geometric", geometric)


@pytest.mark.parametrize(
    "mutant, name",
    [(too_little_noise, "sums"), (too_little_noise, "squares"), (empty_group_not_noised, "count")],
)
def test_audit_flags_the_mutant(monkeypatch, mutant, name):
    mutant(monkeypatch)
    result = run_audit(name, n_search=40, n_samples=200)
    assert not result.passed, str(result)
