"""Statistical tests: every sampler in skdp.mechanisms matches its exact distribution.

All draws use fixed seeds, so each p-value is deterministic. A correct sampler gives
p > ALPHA; every family also has a negative control showing that the same statistic
rejects (p < POWER) a distribution that is 20% off.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from skdp import PrivacyLedger
from skdp.mechanisms import (
    _exact,
    check_random_state,
    exponential,
    geometric,
    laplace,
    lattice_step,
    permute_and_flip,
    report_noisy_max,
)
from skdp.mechanisms._exact import (
    _all_heads,
    _first_failures,
    bernoulli_exp_neg,
    discrete_laplace,
)

ALPHA = 1e-4  # a correct sampler must pass at this level
POWER = 1e-6  # a 20% wrong distribution must be rejected at this level
N_SELECT = 10_000  # draws per selection case (each call costs ~0.1-0.25 ms)


# --------------------------------------------------------------------------- helpers


def _dlap_cdf(z, scale):
    """P[Z <= z] for the discrete Laplace with P[Z = z] proportional to exp(-|z| / scale)."""
    q = math.exp(-1.0 / scale)
    z = np.asarray(z, dtype=float)
    neg = q ** np.abs(np.minimum(z, -1)) / (1 + q)
    pos = 1 - q ** (np.maximum(z, 0) + 1) / (1 + q)
    return np.where(z < 0, neg, pos)


def _dlap_chisquare(samples, scale, reference_scale=None):
    """Chi-square p-value of integer samples against the discrete Laplace(scale).

    Bins are -K..K with the tails pooled into the end bins, K the largest value whose
    expected count (under ``reference_scale``, default ``scale``) is at least 5.
    """
    n = samples.size
    ref = scale if reference_scale is None else reference_scale
    q = math.exp(-1.0 / ref)
    pmf0 = (1 - q) / (1 + q)
    k = max(1, math.floor(math.log(5 / (n * pmf0)) / math.log(q)))
    edges = np.arange(-k, k)  # bin i is (edges[i-1], edges[i]], outermost bins open
    probs = np.diff(np.concatenate([[0.0], _dlap_cdf(edges, scale), [1.0]]))
    counts = np.bincount(np.clip(samples, -k, k) + k, minlength=2 * k + 1)
    return stats.chisquare(counts, n * probs / probs.sum()).pvalue


def _selection_chisquare(draws, probs):
    counts = np.bincount(draws, minlength=len(probs))
    probs = np.asarray(probs) / np.sum(probs)
    return stats.chisquare(counts, len(draws) * probs).pvalue


def _exponential_probs(scores, sensitivity, epsilon, monotonic):
    """Closed form of the exponential mechanism: softmax(eps u / (2 Delta)) or eps u / Delta."""
    u = np.asarray(scores, dtype=float)
    rate = epsilon / (sensitivity if monotonic else 2 * sensitivity)
    w = np.exp(rate * (u - u.max()))
    return w / w.sum()


def _permute_and_flip_probs(scores, sensitivity, epsilon, monotonic):
    """Closed form of permute-and-flip by enumerating all visiting orders."""
    u = np.asarray(scores, dtype=float)
    rate = epsilon / (sensitivity if monotonic else 2 * sensitivity)
    p = np.exp(rate * (u - u.max()))
    probs = np.zeros(u.size)
    perms = list(itertools.permutations(range(u.size)))
    for perm in perms:
        survive = 1.0
        for r in perm:
            probs[r] += survive * p[r]
            survive *= 1 - p[r]
    return probs / len(perms)


def _laplace_noisy_max_probs(scores, sensitivity, epsilon, monotonic):
    """Report-noisy-max with continuous Laplace noise, by numerical integration."""
    u = np.asarray(scores, dtype=float)
    b = (sensitivity if monotonic else 2 * sensitivity) / epsilon
    dist = stats.laplace(scale=b)
    lo, hi = u.min() - 60 * b, u.max() + 60 * b
    probs = []
    for i in range(u.size):
        others = np.delete(u, i)

        def integrand(x, i=i, others=others):
            return dist.pdf(x - u[i]) * np.prod(dist.cdf(x - others))

        value, _ = integrate.quad(integrand, lo, hi, points=np.unique(u), limit=200)
        probs.append(value)
    return np.array(probs)


# ------------------------------------------------------------------ exact Bernoulli


@pytest.fixture(params=["few", "many"])
def sampler_path(request, monkeypatch):
    """Run a test through the samplers' small-array passes ("few": blocks of coins per
    pass) and their large-array passes ("many": one step or one coin per pass)."""
    monkeypatch.setattr(_exact, "_MANY", 10**9 if request.param == "few" else 0)
    return request.param


@pytest.mark.parametrize(
    ("numerator", "denominator"),
    [(3, 10), (1, 1), (5, 2), (70, 10), (round(0.3 * 2**55), 2**55)],
    ids=["0.3", "1", "2.5", "7", "0.3-big-denominator"],
)
def test_bernoulli_exp_neg_frequency(numerator, denominator):
    """Frequency of True matches exp(-num/den) (binomial test); 20% larger gamma is rejected."""
    n = 200_000
    gamma = numerator / denominator
    draws = bernoulli_exp_neg(np.full(n, numerator), denominator, np.random.default_rng(1))
    assert draws.dtype == bool and draws.shape == (n,)
    hits = int(draws.sum())
    assert stats.binomtest(hits, n, math.exp(-gamma)).pvalue > ALPHA
    assert stats.binomtest(hits, n, math.exp(-1.2 * gamma)).pvalue < POWER


def test_bernoulli_exp_neg_zero_and_shape():
    """gamma = 0 is always True; mixed numerators keep their shape and own frequencies."""
    rng = np.random.default_rng(2)
    assert bernoulli_exp_neg(np.zeros(10_000, dtype=int), 7, rng).all()
    numerators = np.tile([[0], [3], [25]], (1, 50_000))  # gamma 0, 0.3, 2.5 by row
    draws = bernoulli_exp_neg(numerators, 10, rng)
    assert draws.shape == numerators.shape
    assert draws[0].all()
    for row, gamma in ((1, 0.3), (2, 2.5)):
        hits = int(draws[row].sum())
        assert stats.binomtest(hits, draws.shape[1], math.exp(-gamma)).pvalue > ALPHA


@pytest.mark.parametrize("depth", [1, 3, 20], ids=["depth1", "depth3", "depth20"])
@pytest.mark.parametrize("fraction", [None, 0, 3, 9, 10], ids=lambda f: f"g={f}")
def test_first_failure_has_the_exact_law(depth, fraction, sampler_path):
    """P[J > j] = g**j / j! for the first failure J of Bernoulli(g / k), k = 1, 2, ...

    ``depth`` 1 and 3 send most runs (and every run past 3 steps) through the
    step-by-step continuation; None is the g = 1 path (exp(-1) coins). Chi-square on
    J over 1..6 (tail pooled); the law of g / 1.2 is rejected.
    """
    n, rng = 200_000, np.random.default_rng(21)
    g = 1.0 if fraction is None else fraction / 10
    draws = _first_failures(n if fraction is None else np.full(n, fraction), 10, rng, depth=depth)

    def probs(g):
        tail = np.array([g**j / math.factorial(j) for j in range(0, 7)])  # P[J > j]
        return np.append(tail[:-1] - tail[1:], tail[-1])  # P[J = 1..6], P[J > 6]

    counts = np.bincount(np.minimum(draws, 7) - 1, minlength=7)
    assert counts.sum() == n and draws.min() >= 1
    expected = probs(g)
    used = expected > 0
    assert np.all(counts[~used] == 0)
    if used.sum() > 1:
        assert stats.chisquare(counts[used], n * expected[used]).pvalue > ALPHA
        if g < 1:
            wrong = probs(g / 1.2)
            assert (
                stats.chisquare(counts[used], n * wrong[used] / wrong[used].sum()).pvalue < POWER
            )


@pytest.mark.parametrize("depth", [2, 20])
def test_whole_parts_and_fractions_together_have_the_exact_law(depth, sampler_path):
    """exp(-w - f) for mixed integer parts 0..6 and fractions, one call (binomial per value)."""
    rng = np.random.default_rng(22)
    numerators = np.repeat([0, 7, 10, 23, 40, 45, 60], 60_000)  # denominator 10
    draws = bernoulli_exp_neg(numerators, 10, rng, depth=depth)
    for value in np.unique(numerators):
        hits = draws[numerators == value]
        p = math.exp(-value / 10)
        assert stats.binomtest(int(hits.sum()), hits.size, p).pvalue > ALPHA
        if value:
            assert (
                stats.binomtest(int(hits.sum()), hits.size, math.exp(-1.2 * value / 10)).pvalue
                < POWER
            )
    assert _all_heads(np.zeros(5, dtype=np.int64), rng).all()  # exp(0): no draw needed


# ----------------------------------------------------------------- discrete Laplace


@pytest.mark.parametrize("scale", [0.3, 1, 2.5, 40])
def test_discrete_laplace_pmf(scale):
    """Chi-square against (1-q)/(1+q) q^|z|; the same test rejects a 20% larger scale."""
    samples = discrete_laplace(200_000, scale, np.random.default_rng(3))
    assert samples.dtype == np.int64 and samples.shape == (200_000,)
    assert _dlap_chisquare(samples, scale) > ALPHA
    assert _dlap_chisquare(samples, 1.2 * scale, reference_scale=scale) < POWER


@pytest.mark.parametrize("scale", [0.3, 2.5])
def test_discrete_laplace_symmetric(scale):
    """P[Z > 0] = P[Z < 0] (binomial test on the non-zero draws)."""
    samples = discrete_laplace(200_000, scale, np.random.default_rng(4))
    nonzero = samples[samples != 0]
    assert stats.binomtest(int((nonzero > 0).sum()), nonzero.size, 0.5).pvalue > ALPHA


@pytest.mark.parametrize("shape", [(), 5, (3, 4), (2, 0)])
def test_discrete_laplace_shape(shape):
    """Output has the requested shape and dtype int64."""
    out = discrete_laplace(shape, 1.5, np.random.default_rng(5))
    assert out.shape == np.empty(shape).shape
    assert out.dtype == np.int64


# ------------------------------------------------------------------------ geometric


@pytest.mark.parametrize(("sensitivity", "epsilon"), [(1, 1.0), (2, 0.5), (3, 2.0)])
def test_geometric_noise_distribution(sensitivity, epsilon):
    """output - value is discrete Laplace(sensitivity/epsilon); a 20% larger scale is rejected."""
    n = 100_000
    value = np.arange(n) % 37 - 10
    out = geometric(value, sensitivity=sensitivity, epsilon=epsilon, random_state=6)
    assert out.dtype == np.int64 and out.shape == value.shape
    noise = out - value
    scale = sensitivity / epsilon
    assert _dlap_chisquare(noise, scale) > ALPHA
    assert _dlap_chisquare(noise, 1.2 * scale, reference_scale=scale) < POWER


def test_geometric_zeros_and_shapes():
    """Zeros are noised too; integral floats give int64; scalars stay 0-d, 2-d stays 2-d."""
    out = geometric(np.zeros(1000), epsilon=1.0, random_state=7)
    assert out.dtype == np.int64
    assert np.any(out != 0)
    scalar = geometric(4, epsilon=1.0, random_state=7)
    assert np.ndim(scalar) == 0 and isinstance(scalar, np.integer)
    assert geometric(np.ones((3, 4)), epsilon=1.0, random_state=7).shape == (3, 4)


def test_geometric_per_row_is_one_release_per_row_with_the_same_law():
    """per_row: each row of a 2-d value is charged once; every entry's noise is
    discrete Laplace(sensitivity/epsilon) (1.2x rejected), as one call per row."""
    value = np.arange(40_000).reshape(2, 20_000) % 11
    with PrivacyLedger() as ledger:
        out = geometric(value, epsilon=0.5, per_row=True, random_state=8)
    assert [(e.mechanism, e.epsilon) for e in ledger.entries] == [("geometric", 0.5)] * 2
    noise = (out - value).ravel()
    assert _dlap_chisquare(noise, 2.0) > ALPHA
    assert _dlap_chisquare(noise, 2.4, reference_scale=2.0) < POWER
    with pytest.raises(ValueError, match="per_row needs a 2-d value"):
        geometric([1, 2], epsilon=1.0, per_row=True)


# -------------------------------------------------------------------------- laplace


@pytest.mark.parametrize(
    ("size", "sensitivity", "epsilon"), [(20_000, 1.0, 1.0), (50_000, 3.7, 0.4)]
)
def test_laplace_noise_distribution(size, sensitivity, epsilon):
    """KS test of the noise against Laplace((sensitivity + size * g) / epsilon); 1.2x rejected."""
    value = np.random.default_rng(8).uniform(-50, 50, size)
    out = laplace(value, sensitivity=sensitivity, epsilon=epsilon, random_state=9)
    g = lattice_step(sensitivity, size)
    scale = (sensitivity + size * g) / epsilon
    noise = out - np.rint(value / g) * g  # exactly g * Z, Z the integer noise
    assert np.all(np.abs(out - value - noise) <= g / 2)
    assert stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue > ALPHA
    assert stats.kstest(noise, stats.laplace(scale=1.2 * scale).cdf).pvalue < POWER


@pytest.mark.parametrize("size", [1, 3, 1000, 12_345])
def test_laplace_outputs_on_lattice(size):
    """Every output is an exact integer multiple of lattice_step(sensitivity, size)."""
    value = np.random.default_rng(10).normal(0, 1e3, size)
    out = laplace(value, sensitivity=2.5, epsilon=0.3, random_state=11)
    units = out / lattice_step(2.5, size)
    assert np.all(units == np.round(units))


@pytest.mark.parametrize(
    ("sensitivity", "size"), [(1.0, 1), (2.5, 3), (1e-3, 1000), (1e6, 7), (0.1, 2**20)]
)
def test_lattice_step_is_largest_fitting_power_of_two(sensitivity, size):
    """g is a power of two with g * size <= 2**-12 * sensitivity < 2 * g * size."""
    g = lattice_step(sensitivity, size)
    assert math.frexp(g)[0] == 0.5
    assert g * size <= 2**-12 * sensitivity < 2 * g * size


def test_laplace_shapes():
    """A scalar comes back as a 0-d numpy float; a 2-d array keeps its shape."""
    scalar = laplace(3.0, sensitivity=1.0, epsilon=1.0, random_state=12)
    assert np.ndim(scalar) == 0 and isinstance(scalar, np.floating)
    matrix = laplace(np.ones((3, 4)), sensitivity=1.0, epsilon=1.0, random_state=12)
    assert matrix.shape == (3, 4) and matrix.dtype == float


# ------------------------------------------------------------------------ selection

_SCORES_A = [0.0, 1.3, 2.1, 3.0]
_SCORES_B = [0.5, 1.0, 1.0, 2.0]  # with a tie
_SCORES_C = [0.0, 4.0, 6.5, 8.0, 8.6, 9.0, 9.0]  # one leads; gaps of several units

_EM, _PF, _LAP = _exponential_probs, _permute_and_flip_probs, _laplace_noisy_max_probs
_RNM = report_noisy_max

SELECTION_CASES = [
    # (mechanism, extra kwargs, closed form, scores, sensitivity, epsilon, monotonic)
    (exponential, {}, _EM, _SCORES_A, 1.0, 1.5, False),
    (exponential, {}, _EM, _SCORES_B, 2.0, 3.0, True),
    (exponential, {}, _EM, _SCORES_C, 1.0, 2.0, False),  # integer parts up to 9
    (permute_and_flip, {}, _PF, _SCORES_C[:5], 1.0, 2.0, False),
    (permute_and_flip, {}, _PF, _SCORES_A, 1.0, 1.5, False),
    (permute_and_flip, {}, _PF, _SCORES_B, 2.0, 3.0, True),
    (_RNM, {"noise": "gumbel"}, _EM, _SCORES_A, 0.5, 0.6, False),
    (_RNM, {"noise": "exponential"}, _PF, _SCORES_B, 1.0, 1.0, True),
    (_RNM, {"noise": "laplace"}, _LAP, _SCORES_A, 1.0, 1.5, False),
    (_RNM, {"noise": "laplace"}, _LAP, _SCORES_B, 2.0, 3.0, True),
]


@pytest.mark.parametrize(
    ("mechanism", "kwargs", "closed_form", "scores", "sensitivity", "epsilon", "monotonic"),
    SELECTION_CASES,
    ids=[
        f"{case[0].__name__}-{case[1].get('noise', '')}-mono={case[6]}" for case in SELECTION_CASES
    ],
)
def test_selection_frequencies(
    mechanism, kwargs, closed_form, scores, sensitivity, epsilon, monotonic
):
    """Selection frequencies match the closed form; the form at 1.2 * epsilon is rejected."""
    rng = np.random.default_rng(13)
    draws = np.array(
        [
            mechanism(
                scores,
                sensitivity=sensitivity,
                epsilon=epsilon,
                monotonic=monotonic,
                random_state=rng,
                **kwargs,
            )
            for _ in range(N_SELECT)
        ]
    )
    assert draws.min() >= 0 and draws.max() < len(scores)
    probs = closed_form(scores, sensitivity, epsilon, monotonic)
    assert _selection_chisquare(draws, probs) > ALPHA
    wrong = closed_form(scores, sensitivity, 1.2 * epsilon, monotonic)
    assert _selection_chisquare(draws, wrong) < POWER


def test_exponential_small_epsilon_keeps_its_rate():
    """At epsilon = 1e-10 the worse of two candidates 2*sens/eps apart has weight ~exp(-1).

    Regression: with a fixed 2**-20 grid the exponent kept only a few bits (P = 0.361
    instead of 0.269, i.e. ~57% of epsilon); the coarser grid for tiny epsilon costs ~1%.
    """
    sensitivity, epsilon = 1000.0, 1e-10
    scores = [0.0, 2 * sensitivity / epsilon]
    rng = np.random.default_rng(14)
    draws = [
        exponential(scores, sensitivity=sensitivity, epsilon=epsilon, random_state=rng)
        for _ in range(4000)
    ]
    worse = draws.count(0)
    p = _exponential_probs(scores, sensitivity, epsilon, False)[0]  # e^-1 / (1 + e^-1)
    assert stats.binomtest(worse, len(draws), p).pvalue > ALPHA


@pytest.mark.parametrize("mechanism", [exponential, permute_and_flip])
def test_selection_tiny_epsilon_does_not_crash(mechanism):
    """A tiny (valid) epsilon gives an almost uniform choice.

    Regression: below epsilon ~1.5e-11, max_gap overflowed int64 (OverflowError).
    """
    assert mechanism([0.0, 1.0, 2.0], sensitivity=1.0, epsilon=1e-12, random_state=0) in range(3)


def test_selection_closed_forms_agree_with_known_identities():
    """Sanity of the reference formulas: probabilities sum to 1 and respect ties."""
    for form in (_exponential_probs, _permute_and_flip_probs, _laplace_noisy_max_probs):
        probs = form(_SCORES_B, 2.0, 3.0, True)
        assert probs.sum() == pytest.approx(1, abs=1e-8)
        assert probs[1] == pytest.approx(probs[2], rel=1e-8)
    # with two candidates, permute-and-flip picks the worse one w.p. p / 2
    p = math.exp(-0.5)
    assert _permute_and_flip_probs([0, 1], 1, 1, False)[0] == pytest.approx(p / 2)


# ---------------------------------------------------------------- check_random_state


def test_check_random_state_int_seed_reproducible():
    """The same int seed gives the same stream."""
    a = check_random_state(42).integers(0, 2**62, size=10)
    b = check_random_state(42).integers(0, 2**62, size=10)
    np.testing.assert_array_equal(a, b)


def test_check_random_state_none_is_fresh():
    """None gives a new, unpredictable generator on every call."""
    a = check_random_state(None).integers(0, 2**62, size=4)
    b = check_random_state(None).integers(0, 2**62, size=4)
    assert not np.array_equal(a, b)


def test_check_random_state_none_is_aes_counter_mode_or_chacha(monkeypatch):
    """None is AES-128-CTR where the processor has AES instructions, else ChaCha20."""
    from skdp.mechanisms import _rng

    name = type(check_random_state(None).bit_generator).__name__
    assert name == ("AESCounter" if _rng._AES else "ChaCha")
    monkeypatch.setattr(_rng, "_AES", False)
    fallback = check_random_state(None)
    assert type(fallback.bit_generator).__name__ == "ChaCha"
    assert fallback.integers(0, 2**62) != check_random_state(None).integers(0, 2**62)


def test_check_random_state_generator_passthrough_and_legacy():
    """A Generator is returned as is; a RandomState seeds reproducibly."""
    rng = np.random.default_rng(0)
    assert check_random_state(rng) is rng
    a = check_random_state(np.random.RandomState(3)).integers(0, 2**62, size=4)
    b = check_random_state(np.random.RandomState(3)).integers(0, 2**62, size=4)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("bad", [-1, "0", 1.5, True])
def test_check_random_state_rejects(bad):
    """Negative ints, strings, floats and bools raise ValueError."""
    with pytest.raises(ValueError, match="random_state"):
        check_random_state(bad)
