"""The four TDPS releases: budget, sensitivities, the public matrix, exactness at huge epsilon.

Every release maps the exact bin counts of ``q`` items (``2**q`` of them, indexed by
mask) to noisy supports of all ``2**q`` itemsets. The spies below wrap the mechanisms
that :mod:`skdp.frequent_patterns._tdps` imported, record what they were asked to
release, then call the real mechanism.
"""

import math
import warnings

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

import skdp.frequent_patterns._tdps as tdps
from skdp import PrivacyLedger
from skdp.frequent_patterns._bitmask import popcount, superset_differences, superset_sums
from skdp.frequent_patterns._tdps import (
    bin_atoms,
    bins_release,
    measurement_matrix,
    measurement_release,
    omp_release,
    signal_release,
)

HUGE = 1e9  # noise far below one count (and below the lattice step of laplace)


def random_bins(q, seed, max_length=None, n_nonzero=None, low=0, high=30):
    """Bin counts of ``q`` items; bins with more than ``max_length`` items stay empty."""
    rng = np.random.default_rng(seed)
    bins = rng.integers(low, high, size=2**q).astype(np.int64)
    if n_nonzero is not None:
        bins[:] = 0
        bins[rng.choice(np.arange(1, 2**q), n_nonzero, replace=False)] = rng.integers(
            10, 60, n_nonzero
        )
    if max_length is not None:
        bins[popcount(np.arange(2**q)) > max_length] = 0
    return bins


def release(name, bins, epsilon=1.0, seed=0, **options):
    """Run one release with the options it takes (small compressive settings)."""
    q = int(np.log2(len(bins)))
    kwargs = {"epsilon": epsilon, "rng": np.random.default_rng(seed)}
    if name != "bins":
        kwargs["max_length"] = options.pop("max_length", q)
    if name in ("measurement", "omp"):
        kwargs.update(n_measurements=options.pop("n_measurements", 40))
        kwargs.update(sparsity=options.pop("sparsity", 4))
    kwargs.update(options)
    function = {
        "bins": bins_release,
        "signal": signal_release,
        "measurement": measurement_release,
        "omp": omp_release,
    }[name]
    return function(bins, **kwargs)


class Spy:
    """Replace ``name`` in the _tdps module by a recorder that calls the real function."""

    def __init__(self, monkeypatch, name):
        self.real = getattr(tdps, name)
        self.calls = []
        monkeypatch.setattr(tdps, name, self)

    def __call__(self, value, *args, **kwargs):
        out = self.real(value, *args, **kwargs)
        self.calls.append({"value": np.array(value, copy=True), "out": out, **kwargs})
        return out


# budget ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bins", "signal", "measurement", "omp"])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.7])
def test_every_release_spends_exactly_its_epsilon(name, epsilon):
    bins = random_bins(4, seed=1)
    with PrivacyLedger() as ledger:
        out = release(name, bins, epsilon=epsilon)
    assert math.isclose(ledger.total.epsilon, epsilon, rel_tol=1e-12)
    assert ledger.total.delta == 0
    assert out.shape == (16,)
    assert ledger.entries, "nothing was charged"


@pytest.mark.parametrize("sparsity", [1, 3, 6])
def test_omp_splits_epsilon_between_the_selections_and_the_coefficients(sparsity):
    epsilon = 2.0
    with PrivacyLedger() as ledger:
        release("omp", random_bins(4, seed=2), epsilon=epsilon, sparsity=sparsity)
    mechanisms = [entry.mechanism for entry in ledger.entries]
    assert mechanisms == ["exponential"] * sparsity + ["laplace"]
    selections = [entry.epsilon for entry in ledger.entries[:-1]]
    assert selections == pytest.approx([epsilon / (2 * sparsity)] * sparsity, rel=1e-12)
    assert math.fsum(selections) == pytest.approx(epsilon / 2, rel=1e-12)
    assert ledger.entries[-1].epsilon == pytest.approx(epsilon / 2, rel=1e-12)
    assert math.isclose(ledger.total.epsilon, epsilon, rel_tol=1e-12)


# what each release noises, and with which sensitivity --------------------------------------


def test_bins_release_noises_every_bin_once_with_sensitivity_one(monkeypatch):
    q = 5
    bins = random_bins(q, seed=3, n_nonzero=6)
    spy = Spy(monkeypatch, "geometric")
    out = bins_release(bins, epsilon=0.5, rng=np.random.default_rng(0))
    [call] = spy.calls
    assert call["value"].shape == (2**q,)
    np.testing.assert_array_equal(call["value"], bins)  # the empty bins too
    assert np.count_nonzero(bins == 0) == 2**q - 6
    assert call["sensitivity"] == 1 and call["epsilon"] == 0.5
    # the supports are the superset sums of the one noisy release
    np.testing.assert_array_equal(out, superset_sums(call["out"]))
    # at epsilon 0.5 an empty bin stays 0 with probability tanh(0.25) ~ 0.24
    assert np.count_nonzero(np.asarray(call["out"])[bins == 0]) >= 10


@pytest.mark.parametrize(("q", "max_length"), [(3, 3), (5, 2), (6, 1)])
def test_signal_release_noises_every_support_with_sensitivity_two_to_the_length(
    monkeypatch, q, max_length
):
    bins = random_bins(q, seed=4, max_length=max_length)
    bins[np.arange(2**q) >= 2 ** (q - 1)] = 0  # the last item is never bought
    spy = Spy(monkeypatch, "geometric")
    out = signal_release(bins, epsilon=0.7, rng=np.random.default_rng(0), max_length=max_length)
    [call] = spy.calls
    assert call["value"].shape == (2**q,)
    np.testing.assert_array_equal(call["value"], superset_sums(bins))
    assert call["sensitivity"] == 2**max_length and call["epsilon"] == 0.7
    np.testing.assert_array_equal(out, call["out"])
    zero = call["value"] == 0
    assert zero[2 ** (q - 1) :].all()  # zero supports are released too
    assert np.count_nonzero(out[zero]) >= zero.sum() // 4


@pytest.mark.parametrize(("q", "max_length", "m"), [(4, 2, 30), (5, 5, 17), (6, 3, 60)])
def test_measurement_release_noises_the_measurements_of_the_supports(
    monkeypatch, q, max_length, m
):
    bins = random_bins(q, seed=5, max_length=max_length)
    spy = Spy(monkeypatch, "laplace")
    measurement_release(
        bins, epsilon=0.9, rng=np.random.default_rng(0), max_length=max_length,
        n_measurements=m, sparsity=3,
    )  # fmt: skip
    [call] = spy.calls
    assert call["value"].shape == (m,)
    assert call["sensitivity"] == pytest.approx(math.sqrt(m) * 2**max_length, rel=1e-12)
    assert call["epsilon"] == 0.9
    expected = measurement_matrix(m, 2**q) @ superset_sums(bins)
    np.testing.assert_allclose(call["value"], expected, rtol=1e-12, atol=1e-9)


def test_measurement_sensitivity_bounds_the_l1_change_of_the_measurements():
    """||Phi delta||_1 <= sqrt(m) 2**t for every transaction of t <= max_length items."""
    q, m, max_length = 5, 23, 3
    phi = measurement_matrix(m, 2**q)
    bound = math.sqrt(m) * 2**max_length
    changes = []
    for b in np.flatnonzero(popcount(np.arange(2**q)) <= max_length):
        delta = superset_sums(np.eye(2**q, dtype=np.int64)[b])  # the supports it moves
        assert delta.sum() == 2 ** popcount([b])[0]
        changes.append(np.abs(phi @ delta).sum())
    assert max(changes) <= bound * (1 + 1e-12)
    assert max(changes) > bound / 4  # the bound is not vacuous


def test_the_measurement_matrix_is_public(monkeypatch):
    q, m = 5, 40
    spy = Spy(monkeypatch, "orthogonal_mp")
    first, second = random_bins(q, seed=6), random_bins(q, seed=7, high=500)
    assert not np.array_equal(first, second)
    for bins in (first, second):
        measurement_release(
            bins, epsilon=1.0, rng=np.random.default_rng(0), max_length=q,
            n_measurements=m, sparsity=3,
        )  # fmt: skip
    [one, two] = spy.calls
    np.testing.assert_array_equal(one["value"], two["value"])
    np.testing.assert_array_equal(one["value"], tdps._unit_atoms(m, 2**q)[1])
    atoms = bin_atoms(measurement_matrix(m, 2**q))
    np.testing.assert_allclose(one["value"], atoms / np.linalg.norm(atoms, axis=0))


@pytest.mark.parametrize(("m", "size"), [(1, 2), (40, 32), (800, 1024)])
def test_measurement_matrix_is_fixed_rademacher_with_unit_columns(m, size):
    phi = measurement_matrix(m, size)
    assert phi.shape == (m, size)
    np.testing.assert_array_equal(phi, measurement_matrix(m, size))
    np.testing.assert_allclose(np.abs(phi), 1 / math.sqrt(m), rtol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(phi, axis=0), 1.0, rtol=1e-12)
    if m * size > 2:
        assert (phi > 0).any() and (phi < 0).any()
    if m >= 40:
        # random signs: the columns are nearly orthogonal, not copies of each other
        gram = phi.T @ phi
        assert np.abs(gram - np.eye(size)).max() < 0.8


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 5).flatmap(
        lambda q: st.tuples(
            hnp.arrays(np.int64, 2**q, elements=st.integers(-20, 60)),
            hnp.arrays(np.int64, (3, 2**q), elements=st.integers(-3, 3)),
        )
    )
)
def test_bin_atoms_map_bins_to_the_measurements_of_their_supports(data):
    bins, phi = data
    np.testing.assert_array_equal(bin_atoms(phi) @ bins, phi @ superset_sums(bins))
    public = measurement_matrix(7, bins.size)
    np.testing.assert_allclose(
        bin_atoms(public) @ bins, public @ superset_sums(bins), rtol=1e-12, atol=1e-9
    )


def test_bin_atoms_by_hand():
    """q = 1: Z = [[1, 1], [0, 1]] (bin 1 also counts towards the empty itemset)."""
    phi = np.array([[2.0, 3.0], [5.0, -7.0]])
    np.testing.assert_array_equal(bin_atoms(phi), [[2.0, 5.0], [5.0, -2.0]])


# exactness at huge epsilon -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["bins", "signal"])
@pytest.mark.parametrize("q", [1, 4, 7])
def test_bins_and_signal_are_exact_at_huge_epsilon(name, q):
    bins = random_bins(q, seed=q)
    out = release(name, bins, epsilon=HUGE)
    np.testing.assert_array_equal(out, superset_sums(bins))
    assert out[0] == bins.sum()


@pytest.mark.parametrize("name", ["measurement", "omp"])
def test_compressive_releases_are_exact_when_every_bin_is_an_atom(name):
    """With m >= 2**q measurements and sparsity 2**q, the least-squares fit on all atoms
    is the exact bin vector whatever the selection order. The tolerance is real: with
    one atom fewer than the non-empty bins, or at epsilon 1, the supports are off."""
    q, m = 5, 60
    bins = random_bins(q, seed=1, n_nonzero=5)
    exact = superset_sums(bins)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # sklearn: "ended prematurely"
        out = release(name, bins, epsilon=HUGE, n_measurements=m, sparsity=2**q)
        short = release(name, bins, epsilon=HUGE, n_measurements=m, sparsity=4)
        noisy = release(name, bins, epsilon=1.0, n_measurements=m, sparsity=2**q)
    assert np.abs(out - exact).max() < 0.05
    np.testing.assert_allclose(superset_differences(out), bins, atol=0.05)
    assert np.abs(short - exact).max() > 1
    assert np.abs(noisy - exact).max() > 1


def single_bin_recovered(name, q=6, m=60):
    recovered = []
    for b in range(2**q):
        bins = np.zeros(2**q, dtype=np.int64)
        bins[b] = 100  # 100 identical transactions
        out = release(name, bins, epsilon=HUGE, n_measurements=m, sparsity=1)
        recovered.append(np.abs(out - superset_sums(bins)).max() < 0.05)
    return np.array(recovered)


@pytest.mark.parametrize("name", ["measurement", "omp"])
def test_one_non_empty_bin_is_recovered_with_sparsity_one(name):
    """A database of identical transactions: y is a multiple of one atom a_b; with
    unit-norm atoms |<a_j / ||a_j||, a_b>| is largest at j = b (with raw atoms, only 20
    of the 64 bins were)."""
    recovered = single_bin_recovered(name)
    assert recovered.all(), f"bins not recovered: {np.flatnonzero(~recovered).tolist()}"


@pytest.mark.parametrize("name", ["measurement", "omp"])
def test_five_non_empty_bins_are_recovered_with_the_default_sparsity(name):
    """5 non-empty bins of q = 6 items, 60 measurements, sparsity 20 >= 5, 20 databases.
    OMP with normalised atoms recovers 19 of them exactly (it is greedy: not all); with
    raw atoms 14 were."""
    errors = []
    for seed in range(20):
        bins = random_bins(6, seed=seed, n_nonzero=5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out = release(name, bins, epsilon=HUGE, n_measurements=60, sparsity=20)
        errors.append(np.abs(out - superset_sums(bins)).max())
    assert np.count_nonzero(np.array(errors) < 0.05) >= 18, np.round(errors, 3).tolist()


# omp: the sensitivities it derives hold on neighbouring bins --------------------------------


@st.composite
def neighbouring_bins(draw):
    """Bins whose transactions hold at most max_length items, and one more transaction."""
    q = draw(st.integers(1, 5))
    max_length = draw(st.integers(1, q))
    small = np.flatnonzero(popcount(np.arange(2**q)) <= max_length)
    bins = np.zeros(2**q, dtype=np.int64)
    bins[small] = draw(hnp.arrays(np.int64, small.size, elements=st.integers(0, 40)))
    extra = draw(st.sampled_from(small.tolist()))
    neighbour = bins.copy()
    neighbour[extra] += 1
    return q, max_length, bins, neighbour


@settings(max_examples=60, deadline=None)
@given(neighbouring_bins(), st.integers(5, 40))  # m <= 4: see the zero-atom test below
def test_first_omp_scores_move_by_at_most_the_score_sensitivity(case, m):
    """The scores of the first step (r = y) are |a_j^T y| over unit-norm atoms; one more
    transaction moves them by at most 2**max_length, the sensitivity omp_release uses."""
    q, max_length, bins, neighbour = case
    raw = bin_atoms(measurement_matrix(m, 2**q))
    atoms = tdps._unit_atoms(m, 2**q)[1]
    bound = 2.0**max_length
    first_calls = []
    for data in (bins, neighbour):
        with pytest.MonkeyPatch.context() as patch:  # not the fixture: hypothesis reruns
            spy = Spy(patch, "exponential")
            omp_release(
                data, epsilon=1.0, rng=np.random.default_rng(0), max_length=max_length,
                n_measurements=m, sparsity=1,
            )  # fmt: skip
        [call] = spy.calls
        first_calls.append(call)
    one, two = first_calls
    assert one["sensitivity"] == pytest.approx(bound, rel=1e-12)
    y = raw @ bins  # = Phi S
    np.testing.assert_allclose(one["value"], np.abs(atoms.T @ y), rtol=1e-9, atol=1e-9)
    moved = raw @ neighbour  # y + a_b: the transaction's own atom
    np.testing.assert_allclose(two["value"], np.abs(atoms.T @ moved), rtol=1e-9, atol=1e-9)
    change = np.abs(two["value"] - one["value"])
    assert change.max() <= bound * (1 + 1e-9)


def test_omp_release_survives_a_zero_atom():
    """n_measurements=4 is a legal parameter; on the empty database every score is 0,
    the selection is uniform and picks the zero atom 4 one time in eight."""
    atoms = bin_atoms(measurement_matrix(4, 8))
    assert np.flatnonzero(np.linalg.norm(atoms, axis=0) == 0).tolist() == [4]
    for seed in range(20):
        out = omp_release(
            np.zeros(8, dtype=np.int64), epsilon=1.0, rng=np.random.default_rng(seed),
            max_length=3, n_measurements=4, sparsity=1,
        )  # fmt: skip
        assert out.shape == (8,)


@pytest.mark.parametrize("seed", range(5))
def test_omp_coefficients_move_by_at_most_their_sensitivity(monkeypatch, seed):
    """With the chosen atoms fixed (public), one more transaction moves the
    least-squares coefficients by at most sqrt(s) ||A_L^+||_2 2**max_length in L1."""
    q, m, max_length, sparsity = 4, 30, 2, 5
    rng = np.random.default_rng(seed)
    bins = random_bins(q, seed=seed, max_length=max_length)
    extra = rng.choice(np.flatnonzero(popcount(np.arange(2**q)) == max_length))
    neighbour = bins.copy()
    neighbour[extra] += 1
    monkeypatch.setattr(tdps, "exponential", lambda scores, **kwargs: 0)  # first candidate
    spy = Spy(monkeypatch, "laplace")
    options = {"max_length": max_length, "n_measurements": m, "sparsity": sparsity}
    outs = [
        omp_release(data, epsilon=HUGE, rng=np.random.default_rng(0), **options)
        for data in (bins, neighbour)
    ]
    one, two = spy.calls
    raw = bin_atoms(measurement_matrix(m, 2**q))
    _, atoms, usable, _ = tdps._unit_atoms(m, 2**q)
    assert usable.tolist() == list(range(2**q))  # no zero atom at m = 30
    pseudo_inverse = np.linalg.pinv(atoms[:, :sparsity])  # bins 0..4 were chosen
    expected = math.sqrt(sparsity) * np.linalg.norm(pseudo_inverse, 2) * 2**max_length
    assert one["sensitivity"] == pytest.approx(expected, rel=1e-9)
    assert one["epsilon"] == HUGE / 2
    np.testing.assert_allclose(one["value"], pseudo_inverse @ raw @ bins, rtol=1e-9, atol=1e-6)
    change = np.abs(two["value"] - one["value"]).sum()
    assert 0 < change <= one["sensitivity"] * (1 + 1e-9)
    # only the chosen bins are non-zero in the release
    for out in outs:
        assert np.abs(superset_differences(out)[sparsity:]).max() < 1e-6
