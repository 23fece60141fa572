"""The private spectral release of :class:`skdp.decomposition.PCA` (its Notes, 4-5)."""

import numpy as np
from scipy.linalg import null_space

from skdp.mechanisms import check_random_state, laplace
from skdp.mechanisms._bingham import sphere_exponential
from skdp.utils.validation import split_budget

__all__ = [
    "SPECTRUM_SPLIT",
    "covariance_sensitivity",
    "n_draws",
    "release_covariance",
    "release_spectrum",
    "spectrum_split",
]

# eigenvalues : eigenvectors (10% and 70% of PCA's budget; the reasons in its Notes)
SPECTRUM_SPLIT = {"eigenvalues": 1.0, "eigenvectors": 7.0}


def n_draws(n_components, n_features):
    """Directions drawn at a cost: the last of ``n_features`` is the complement's."""
    return min(n_components, n_features - 1)


def spectrum_split(epsilon, n_draws):
    """``SPECTRUM_SPLIT`` of ``epsilon``; all to the eigenvalues when nothing is drawn."""
    if n_draws == 0:
        return {"eigenvalues": epsilon, "eigenvectors": 0.0}
    return split_budget(epsilon, SPECTRUM_SPLIT)


def release_spectrum(
    scatter, n_components, *, epsilon_eigenvalues, epsilon_eigenvectors, random_state
):
    """The noisy eigenvalues and the drawn directions of a scatter matrix.

    The sampler of :meth:`PCA.fit` (its Notes, steps 4 and 5): ``scatter`` is ``C =
    Z^T Z`` for rows ``Z`` of L2 norm at most 1; all eigenvalues of ``C`` get Laplace noise at
    L1 sensitivity 1, then ``n_components`` directions are drawn one after another
    from ``exp(epsilon_i v^T P^T C P v)``, ``epsilon_i = epsilon_eigenvectors /
    n_draws(n_components, d)``, ``P`` a basis of the complement of the directions
    already drawn; the last of ``d`` directions is that complement, at no cost.
    ``epsilon_eigenvalues + epsilon_eigenvectors``-DP under add/remove of a row.
    """
    rng = check_random_state(random_state)
    eigenvalues = laplace(
        np.linalg.eigvalsh(scatter), sensitivity=1.0, epsilon=epsilon_eigenvalues,
        random_state=rng,
    )  # fmt: skip
    d = scatter.shape[0]
    basis = np.eye(d)
    components = np.empty((n_components, d))
    paid = n_draws(n_components, d)
    for i in range(n_components):
        if i < paid:
            v = sphere_exponential(
                basis.T @ scatter @ basis, epsilon=epsilon_eigenvectors / paid,
                sensitivity=1.0, monotonic=True, random_state=rng,
            )  # fmt: skip
        else:  # the complement is one line: nothing left to choose
            v = np.ones(1)
        u = basis @ v
        u /= np.linalg.norm(u)
        components[i] = u if u[np.argmax(np.abs(u))] > 0 else -u
        if i + 1 < n_components:
            basis = basis @ null_space(v[np.newaxis, :])
    return eigenvalues, components


def covariance_sensitivity(n_features):
    """L1 sensitivity of the upper triangle of ``Z^T Z`` (diagonal included), ``||z|| <= 1``.

    Adding ``z`` adds ``z_i z_j`` to entry ``(i, j)``: the upper triangle moves by
    ``sum_i z_i^2 + sum_{i<j} |z_i z_j| = (||z||_1^2 + ||z||_2^2) / 2 <= (d + 1) / 2``,
    since ``||z||_1 <= sqrt(d) ||z||_2`` (equality at ``|z_j| = 1 / sqrt(d)``).
    """
    return (n_features + 1) / 2.0


def release_covariance(scatter, n_components, *, epsilon, random_state):
    """Laplace noise on the upper triangle of a scatter matrix, then its eigenvectors.

    The covariance release of :meth:`PCA.fit` (its Notes, step 4'): ``scatter = Z^T Z``
    for rows of L2 norm at most 1; its ``d (d + 1) / 2`` distinct entries get
    :func:`~skdp.mechanisms.laplace` noise at L1 sensitivity
    :func:`covariance_sensitivity` (``epsilon``-DP under add/remove of a row). The
    noisy symmetric matrix is eigendecomposed (post-processing): its eigenvalues and
    the eigenvectors of its ``n_components`` largest, each signed so that its largest
    entry is positive.
    """
    rng = check_random_state(random_state)
    d = scatter.shape[0]
    upper = np.triu_indices(d)
    noisy = np.zeros((d, d))
    noisy[upper] = laplace(
        scatter[upper], sensitivity=covariance_sensitivity(d), epsilon=epsilon, random_state=rng
    )
    noisy = noisy + np.triu(noisy, 1).T
    eigenvalues, vectors = np.linalg.eigh(noisy)
    components = vectors[:, ::-1][:, :n_components].T.copy()
    rows = np.arange(n_components)
    flip = components[rows, np.argmax(np.abs(components), axis=1)] < 0
    components[flip] *= -1.0
    return eigenvalues, components
