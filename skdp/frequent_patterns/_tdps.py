"""TDPS: noisy supports of every itemset over a public item set ``I`` (the complete trie).

Each release takes the exact bin counts ``bins[S]`` (transactions whose projection onto
``I`` is exactly ``S``, from :func:`~skdp.frequent_patterns._bitmask.mask_counts`) and
returns noisy supports of all ``2**q`` subsets of ``I``, indexed by mask, entry 0 (the
empty itemset) estimating the number of transactions. Neighbouring relation: add or
remove one transaction. A transaction whose projection holds ``t`` items lies in one bin
and in the supports of ``2**t`` itemsets (the empty one included); ``max_length`` is the
public bound on ``t`` that the caller enforced (by truncation, or ``t <= q``).

The seed paper's measurements use a public random matrix ``Phi`` (Rademacher entries
``±1/sqrt(m)``, drawn from the fixed public seed ``PHI_SEED``) and a sparsity basis of the
support signal ``S``. The seed uses Haar wavelets; here the basis is the bins themselves:
``S = Z b`` (``Z`` the superset-sum transform) and ``b`` is sparse, since a few
projections hold most transactions (20 of the 1024 bins of MSNBC over 10 categories hold
82% of them). On MSNBC (|I| = 10, epsilon 1.1) this raised the top-20 precision of the
measurement method from 0.33 with Haar to 0.68.
"""

import math

import numpy as np
from sklearn.linear_model import orthogonal_mp

from skdp.frequent_patterns._bitmask import superset_sums
from skdp.mechanisms import exponential, geometric, laplace

__all__ = [
    "bin_atoms",
    "bins_release",
    "measurement_release",
    "omp_release",
    "signal_release",
]

PHI_SEED = 20240917  # public: the measurement matrix never depends on the data


def bins_release(bins, *, epsilon, rng):
    """Noise the ``2**q`` bin counts once; every support is their superset sum.

    A transaction lies in exactly one bin, so the bins have L1 sensitivity 1: one
    :func:`~skdp.mechanisms.geometric` release at ``epsilon``. The supports (and the
    total, entry 0) are post-processing.
    """
    return superset_sums(geometric(bins, sensitivity=1, epsilon=epsilon, random_state=rng))


def signal_release(bins, *, epsilon, rng, max_length):
    """The seed's TDPS_LP on the signal: discrete Laplace on every support.

    A transaction of at most ``max_length`` items of ``I`` changes ``2**max_length``
    supports by one (the empty itemset's included): sensitivity ``2**max_length``.
    """
    supports = superset_sums(bins)
    return geometric(supports, sensitivity=2**max_length, epsilon=epsilon, random_state=rng)


def measurement_matrix(n_measurements, size):
    """The public ``Phi``: Rademacher ``±1/sqrt(m)``, columns of unit L2 norm."""
    signs = np.random.default_rng(PHI_SEED).integers(0, 2, size=(n_measurements, size))
    return (2.0 * signs - 1.0) / math.sqrt(n_measurements)


def bin_atoms(phi):
    """``Phi Z``, where ``S = Z b`` maps bin counts to supports (``Z[U, T] = [U ⊆ T]``).

    Row ``i`` of ``Phi Z`` is the subset-sum transform of row ``i`` of ``Phi``: the
    superset sums of the reversed row, reversed (reversal complements the masks).
    """
    return np.stack([superset_sums(row[::-1])[::-1] for row in phi])


def _unit_atoms(n_measurements, size):
    """``Phi``, the non-zero columns of ``Phi Z`` scaled to unit norm, their bins and norms.

    Matching pursuit compares atoms by inner products, which assumes unit norms; the
    columns of ``Phi Z`` have norms up to ``2**q``. All of it is public.
    """
    phi = measurement_matrix(n_measurements, size)
    atoms = bin_atoms(phi)
    norms = np.linalg.norm(atoms, axis=0)
    usable = np.flatnonzero(norms > 1e-12)
    return phi, atoms[:, usable] / norms[usable], usable, norms[usable]


def measurement_release(bins, *, epsilon, rng, max_length, n_measurements, sparsity):
    """The seed's TDPS_LP on the measurements: Laplace on ``y = Phi S``, then OMP.

    One transaction changes ``S`` by a 0/1 vector ``delta`` with at most
    ``2**max_length`` ones, so ``||Phi delta||_1 <= sqrt(m) 2**max_length`` (every entry
    of ``Phi`` is ``±1/sqrt(m)``): that is the sensitivity of the
    :func:`~skdp.mechanisms.laplace` release. The recovery (orthogonal matching pursuit
    of at most ``sparsity`` bins over the unit-norm atoms, scikit-learn's
    ``orthogonal_mp``) is post-processing.
    """
    supports = superset_sums(bins).astype(np.float64)
    phi, atoms, usable, norms = _unit_atoms(n_measurements, supports.size)
    sensitivity = math.sqrt(n_measurements) * 2**max_length
    noisy = laplace(phi @ supports, sensitivity=sensitivity, epsilon=epsilon, random_state=rng)
    n_atoms = min(sparsity, usable.size, n_measurements)
    recovered = np.zeros(supports.size)
    recovered[usable] = orthogonal_mp(atoms, noisy, n_nonzero_coefs=n_atoms) / norms
    return superset_sums(recovered)


def omp_release(bins, *, epsilon, rng, max_length, n_measurements, sparsity):
    """The seed's TDPS_EP made private: randomized OMP, then noisy coefficients.

    The atoms ``a_j`` are the non-zero columns of ``Phi Z`` (one per bin) scaled to unit
    norm. Half of ``epsilon`` selects ``s = min(sparsity, #atoms)`` atoms, one
    exponential mechanism each (``epsilon / (2 s)``), scoring atom ``j`` by
    ``|a_j^T r|``, where ``r = (I - P) y`` is the residual of the least-squares fit on
    the atoms chosen so far (``P`` projects onto them, a public matrix once they are
    chosen). One transaction moves ``y = Phi S`` by ``Phi delta``, of L2 norm at most
    ``2**max_length`` (unit columns), ``r`` by no more, and each score by at most
    ``2**max_length``: the score sensitivity. The seed releases the least-squares
    coefficients of the clean ``y`` without noise, which is not private; here the
    other half of ``epsilon`` releases them with :func:`~skdp.mechanisms.laplace`, of
    L1 sensitivity ``sqrt(s) ||A_L^+||_2 2**max_length`` for the chosen atoms ``A_L``.
    """
    supports = superset_sums(bins).astype(np.float64)
    phi, atoms, usable, norms = _unit_atoms(n_measurements, supports.size)
    y = phi @ supports
    shift = 2.0**max_length
    n_atoms = min(sparsity, usable.size)
    chosen = []
    residual = y
    for _ in range(n_atoms):
        candidates = np.setdiff1d(np.arange(usable.size), chosen)
        pick = exponential(
            np.abs(atoms[:, candidates].T @ residual), sensitivity=shift,
            epsilon=epsilon / (2 * n_atoms), random_state=rng,
        )  # fmt: skip
        chosen.append(int(candidates[pick]))
        fit, *_ = np.linalg.lstsq(atoms[:, chosen], y, rcond=None)
        residual = y - atoms[:, chosen] @ fit
    pseudo_inverse = np.linalg.pinv(atoms[:, chosen])
    sensitivity = math.sqrt(len(chosen)) * np.linalg.norm(pseudo_inverse, 2) * shift
    noisy = laplace(
        pseudo_inverse @ y, sensitivity=sensitivity, epsilon=epsilon / 2, random_state=rng
    )
    recovered = np.zeros(supports.size)
    recovered[usable[chosen]] = noisy / norms[chosen]
    return superset_sums(recovered)
