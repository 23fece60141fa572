"""The exponential mechanism on the unit sphere for a quadratic score: Bingham sampling.

:func:`sphere_exponential` draws a unit vector ``u`` with density proportional to
``exp(rate * u^T C u)`` (uniform base measure on the sphere), the eigenvector step of
Amin, Dick, Kulesza, Munoz Medina and Vassilvitskii (NeurIPS 2019). It samples the
Bingham distribution with the rejection sampler of Kent, Ganeiber and Mardia (J.
Comput. Graph. Stat. 27, 2018), whose proposal is the angular central Gaussian (ACG).

Kent et al.'s rule, for the target ``f(x) ~ exp(-x^T B x)`` with ``B`` positive
semi-definite and smallest eigenvalue 0, in ``q`` dimensions: choose ``b`` with
``sum_j 1 / (b + 2 lambda_j) = 1`` (``1 <= b <= q``), let ``Omega = I + 2 B / b``;
draw ``y ~ N(0, Omega^-1)``, ``x = y / ||y||`` (ACG density ``~ (x^T Omega x)^(-q/2)``);
accept with probability

    exp(-x^T B x) (x^T Omega x)^(q/2) / M,   M = exp(-(q - b) / 2) (q / b)^(q/2).

The bound holds because ``exp(-s) <= exp(-(q - b)/2) (q / b)^(q/2) (1 + 2 s / b)^(-q/2)``
for ``s = x^T B x >= 0`` (their inequality, with ``x^T Omega x = 1 + 2 s / b``).
diffprivlib 0.6.6 and OpenDP *divide* by ``(x^T Omega x)^(q/2)`` instead: their samples
follow ``exp(-s)(x^T Omega x)^(-q)``, not the Bingham density the privacy proof is
about (spec B5; ``tests/decomposition/test_bingham.py`` shows the moment test that
catches it).
"""

import math

import numpy as np
from scipy.optimize import brentq

from skdp.accounting import record_spend
from skdp.mechanisms._rng import check_random_state
from skdp.utils.validation import check_epsilon, check_sensitivity

__all__ = ["bingham", "sphere_exponential"]

_BATCH = 64  # proposals drawn at a time
_MAX_PROPOSALS = 10**8  # a guard: Kent et al.'s efficiency is far above 1e-6


def _kent_b(lam):
    """The ``b`` of Kent et al.: the root of ``sum 1 / (b + 2 lambda) = 1`` in ``[1, q]``."""
    q = lam.size
    if q == 1 or not np.any(lam > 0):
        return float(q)

    def excess(b):
        return float(np.sum(1.0 / (b + 2.0 * lam)) - 1.0)

    return brentq(excess, 1.0, float(q), xtol=1e-12, rtol=1e-12)


def _log_acceptance(s, omega_form, q, b):
    """``log`` of Kent et al.'s acceptance probability (at most 0 up to rounding)."""
    log_m = -(q - b) / 2.0 + (q / 2.0) * math.log(q / b)
    return -s + (q / 2.0) * np.log(omega_form) - log_m


def _bingham_diagonal(lam, rng, size):
    """``size`` draws from ``exp(-sum_j lam_j x_j^2)`` on the sphere (``lam >= 0``, min 0)."""
    q = lam.size
    b = _kent_b(lam)
    omega = 1.0 + 2.0 * lam / b
    out, drawn = [], 0
    while sum(len(x) for x in out) < size:
        if drawn > _MAX_PROPOSALS:  # pragma: no cover
            raise RuntimeError("the Bingham sampler accepted nothing")
        batch = max(_BATCH, 4 * (size - sum(len(x) for x in out)))
        y = rng.standard_normal((batch, q)) / np.sqrt(omega)
        norms = np.linalg.norm(y, axis=1)
        x = y[norms > 0] / norms[norms > 0, None]
        x2 = x**2
        log_accept = _log_acceptance(x2 @ lam, x2 @ omega, q, b)
        out.append(x[np.log(rng.uniform(size=x.shape[0])) < log_accept])
        drawn += batch
    return np.concatenate(out)[:size]


def bingham(matrix, *, size=None, random_state=None):
    """Draw one unit vector with density proportional to ``exp(u^T A u)`` on the sphere.

    No privacy accounting: this is the sampler behind :func:`sphere_exponential`.

    Parameters
    ----------
    matrix : array-like of shape (q, q)
        The symmetric ``A`` (any sign).
    size : int or None, default=None
        Number of independent draws; None for one.
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`~skdp.mechanisms.check_random_state`.

    Returns
    -------
    ndarray of shape (q,) or (size, q)
        Unit vectors (``u`` and ``-u`` are equally likely).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.mechanisms._bingham import bingham
    >>> u = bingham(np.diag([50.0, 0.0]), random_state=0)
    >>> bool(abs(u[0]) > 0.8), round(float(np.linalg.norm(u)), 12)
    (True, 1.0)
    """
    rng = check_random_state(random_state)
    a = np.asarray(matrix, dtype=float)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise ValueError(f"matrix must be square and non-empty, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("matrix must be finite")
    values, vectors = np.linalg.eigh((a + a.T) / 2.0)
    # exp(u^T A u) = exp(max) exp(-u^T (max I - A) u) on the sphere: B >= 0, min 0
    lam = np.maximum(values.max() - values, 0.0)
    u = _bingham_diagonal(lam, rng, 1 if size is None else int(size)) @ vectors.T
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return u[0] if size is None else u


def sphere_exponential(matrix, *, epsilon, sensitivity=1.0, monotonic=True, random_state=None):
    """The exponential mechanism over unit vectors with the score ``u^T C u``.

    Draws ``u`` with density proportional to ``exp(rate * u^T C u)`` on the unit sphere,
    ``rate = epsilon / sensitivity`` for a monotone score, ``epsilon / (2 sensitivity)``
    otherwise (McSherry and Talwar, FOCS 2007), and records ``epsilon``.

    Privacy: ``epsilon``-DP whenever, for the neighbouring relation the caller
    analysed, ``|u^T C u - u^T C' u| <= sensitivity`` for every unit ``u``, and, with
    ``monotonic=True``, the score moves in the same direction for every ``u`` (as when
    adding a row ``z`` adds ``(u^T z)^2 >= 0``). The density ratio of a neighbour is
    then ``exp(rate Delta_u) Z' / Z`` with both factors on the same side of 1.

    The sampler is exact in real arithmetic (Kent et al. rejection sampling, module
    docstring) but runs in floating point (numpy's Gaussian and uniform draws, an
    eigendecomposition): an idealised continuous mechanism, like
    :func:`~skdp.mechanisms.l2_laplace_noise`, not protected against floating-point
    attacks as the lattice mechanisms are.

    Parameters
    ----------
    matrix : array-like of shape (q, q)
        The symmetric score matrix ``C`` (e.g. a scaled covariance).
    epsilon : float
        Privacy budget spent (> 0).
    sensitivity : float, default=1.0
        Bound on ``|u^T (C - C') u|`` over unit ``u`` (> 0).
    monotonic : bool, default=True
        Whether the score moves in one direction for all ``u`` between neighbours.
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`~skdp.mechanisms.check_random_state`; None for real releases.

    Returns
    -------
    ndarray of shape (q,)
        A unit vector.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.accounting import PrivacyLedger
    >>> from skdp.mechanisms._bingham import sphere_exponential
    >>> with PrivacyLedger() as ledger:
    ...     u = sphere_exponential(np.diag([100.0, 1.0]), epsilon=0.5, random_state=0)
    >>> ledger.total.epsilon, bool(abs(u[0]) > 0.9)
    (0.5, True)
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    rate = epsilon / sensitivity if monotonic else epsilon / (2.0 * sensitivity)
    a = np.asarray(matrix, dtype=float)
    rng = check_random_state(random_state)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or not np.all(np.isfinite(a)):
        raise ValueError("matrix must be a finite square array")
    record_spend(epsilon, mechanism="sphere_exponential")
    return bingham(rate * a, random_state=rng)
