"""The L2 Laplace mechanism: noise with density proportional to exp(-epsilon ||b||_2 / Delta)."""

from numbers import Integral

import numpy as np

from skdp.accounting import record_spend
from skdp.mechanisms._additive import _as_finite_array
from skdp.mechanisms._exact import power_of_two_at_most
from skdp.mechanisms._rng import check_random_state
from skdp.utils.validation import check_epsilon, check_sensitivity

__all__ = ["l2_laplace", "l2_laplace_noise"]

_LATTICE_PRECISION = 2.0**-12  # the lattice inflates the sensitivity by at most this fraction
_MAX_LATTICE_NOISE = 2.0**44  # the mean noise norm spans at most this many lattice steps
_MAX_LATTICE_INDEX = 2.0**50  # keeps value / step and the sums exact in float64


def _check_dimension(dimension):
    if isinstance(dimension, bool) or not isinstance(dimension, Integral) or dimension < 1:
        raise ValueError(f"dimension must be a positive int, got {dimension!r}")
    return int(dimension)


def _draw(dimension, scale, rng):
    """``dimension`` values with density proportional to ``exp(-||b||_2 / scale)``.

    In polar coordinates this density is ``r**(d - 1) exp(-r / scale)`` times the
    uniform measure on the sphere: the norm is Gamma(d, scale), the direction uniform.
    """
    direction = rng.standard_normal(dimension)
    norm = np.linalg.norm(direction)
    while norm == 0:  # probability ~2**-60 per coordinate; keeps the direction defined
        direction = rng.standard_normal(dimension)
        norm = np.linalg.norm(direction)
    return rng.gamma(shape=dimension, scale=scale) * direction / norm


def l2_laplace_noise(dimension, *, sensitivity, epsilon, random_state=None):
    """Draw a vector with density proportional to ``exp(-epsilon * ||b||_2 / sensitivity)``.

    The norm ``||b||_2`` is Gamma(shape=``dimension``, scale=``sensitivity / epsilon``)
    and the direction is uniform on the sphere (a normalised Gaussian vector).

    Privacy: for any vector-valued ``f`` whose L2 sensitivity (for the neighbouring
    relation the caller analysed) is at most ``sensitivity``, ``f(D) + b`` is
    ``epsilon``-DP: the noise densities at ``v - f(D)`` and ``v - f(D')`` differ by a
    factor ``exp(epsilon * | ||v - f(D)|| - ||v - f(D')|| | / sensitivity) <= exp(epsilon)``
    (triangle inequality). Objective perturbation (Chaudhuri, Monteleoni and Sarwate
    2011) uses the noise inside an optimisation, where only the density argument is
    needed.

    This is a **continuous** sampler in floating point (numpy's Gamma and Gaussian
    samplers), not protected against the floating-point attack on textbook Laplace
    (Mironov, CCS 2012) the way :func:`~skdp.mechanisms.laplace` is. A proof would
    need an exact sampler of a discrete analogue on a lattice (e.g. rejection
    sampling of lattice points with exact Bernoulli(exp(-x)) draws), and for
    objective perturbation also an analysis of the solver's rounding, which the
    change-of-variables proof (it needs a continuous density) does not cover. To
    release a noisy vector, prefer :func:`l2_laplace`, which puts the output on a
    lattice.

    Parameters
    ----------
    dimension : int
        Length of the vector (>= 1).
    sensitivity : float
        L2 sensitivity of what the noise protects (> 0).
    epsilon : float
        Privacy budget spent (> 0).
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`check_random_state`; ``None`` for real releases.

    Returns
    -------
    ndarray of shape (dimension,)
        The noise vector.

    Examples
    --------
    >>> from skdp.mechanisms import l2_laplace_noise
    >>> l2_laplace_noise(3, sensitivity=1.0, epsilon=1.0, random_state=0).shape
    (3,)
    """
    dimension = _check_dimension(dimension)
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    rng = check_random_state(random_state)
    record_spend(epsilon, mechanism="l2_laplace_noise")
    return _draw(dimension, sensitivity / epsilon, rng)


def l2_laplace(value, *, sensitivity, epsilon, random_state=None):
    """Release a vector with L2 Laplace noise, on a power-of-two lattice.

    Returns ``g * (round(value / g) + round(b / g))`` with ``b`` drawn as in
    :func:`l2_laplace_noise` and ``g`` a public power of two: the largest one below
    ``2**-12 * sensitivity / sqrt(d)``, or below ``d * sensitivity / (epsilon * 2**44)``
    if that is larger (so that ``b / g`` stays exactly representable).

    Privacy: ``epsilon``-DP for any ``value`` of L2 sensitivity at most
    ``sensitivity``. Rounding moves ``value`` by at most ``g * sqrt(d) / 2`` in L2, so
    the rounded values have L2 sensitivity at most ``sensitivity + g * sqrt(d)``, and
    ``b`` is calibrated to that (noise ``1 + 2**-12`` times the textbook scale, unless
    ``d**1.5 / epsilon > 2**32``). Each lattice point has the probability of its cell
    under the noise density, and shifting the cells by the rounded difference changes
    it by a factor ``exp(epsilon)`` at most. The rounded noise ``round(b / g)`` does not
    depend on the data, so the output depends on ``value`` only through an exact
    lattice shift: the porous set of floating-point outputs behind Mironov's attack
    cannot reveal the input. This is a heuristic hardening, not a proof: ``b`` itself
    comes from floating-point samplers, so the probabilities of the lattice points are
    only close to the exact cell integrals (an exact lattice sampler would be needed
    for a proof).

    Parameters
    ----------
    value : float or array-like of float
        Finite values; the L2 norm is taken over all of them.
    sensitivity : float
        L2 sensitivity of ``value`` (> 0).
    epsilon : float
        Privacy budget spent (> 0).
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`check_random_state`; ``None`` for real releases.

    Returns
    -------
    float or ndarray of float
        Same shape as ``value``.

    Examples
    --------
    >>> from skdp.mechanisms import l2_laplace
    >>> l2_laplace([1.0, 2.0], sensitivity=1.0, epsilon=1.0, random_state=0).shape
    (2,)
    """
    array = _as_finite_array(value, "value")
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    rng = check_random_state(random_state)
    d = array.size
    step = power_of_two_at_most(
        max(
            sensitivity * _LATTICE_PRECISION / np.sqrt(d),
            d * sensitivity / (epsilon * _MAX_LATTICE_NOISE),
        )
    )
    index = np.rint(array / step)
    if np.any(np.abs(index) >= _MAX_LATTICE_INDEX):
        raise ValueError(
            f"value is too large for its sensitivity: |value| must stay below "
            f"{_MAX_LATTICE_INDEX * step:.3g}"
        )
    inflated = sensitivity + step * np.sqrt(d)
    record_spend(epsilon, mechanism="l2_laplace")
    noise = np.rint(_draw(d, inflated / epsilon, rng) / step)
    return (index + noise.reshape(array.shape)) * step
