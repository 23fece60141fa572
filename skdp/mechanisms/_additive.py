"""Additive noise: lattice Laplace for real values, discrete Laplace for integers."""

from fractions import Fraction

import numpy as np

from skdp.accounting import record_spend
from skdp.mechanisms._exact import check_noise_scale, discrete_laplace, power_of_two_at_most
from skdp.mechanisms._rng import check_random_state
from skdp.utils.validation import check_epsilon, check_sensitivity

__all__ = ["geometric", "laplace", "lattice_step"]

# The lattice step is at most this fraction of sensitivity / size (see lattice_step).
_LATTICE_PRECISION = 2.0**-12
_MAX_LATTICE_INDEX = 2.0**62
_MAX_LATTICE_NOISE = 2.0**50


def _as_finite_array(value, name):
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {value!r}") from exc
    if array.size == 0:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no nan or inf)")
    return array


def _shaped(out, like):
    return out[()] if like.ndim == 0 else out


def lattice_step(sensitivity, size, epsilon=None):
    """The lattice step ``g`` that :func:`laplace` rounds to.

    The largest power of two with ``g * size <= 2**-12 * sensitivity``, or, when
    ``epsilon`` is so small that the noise would span more than ``2**50`` lattice steps,
    the power of two just below ``sensitivity / (epsilon * 2**50)``, so that exact
    integer sampling stays in range. It depends only on public inputs.

    Parameters
    ----------
    sensitivity : float
        The sensitivity of the release (> 0).
    size : int
        Number of values released together.
    epsilon : float, optional
        The epsilon of the release; omit for the step at ordinary epsilons.

    Returns
    -------
    float
        The lattice step ``g``, a power of two.

    Examples
    --------
    >>> from skdp.mechanisms import lattice_step
    >>> lattice_step(1.0, 1) == 2.0**-12
    True
    """
    step = sensitivity * _LATTICE_PRECISION / size
    if epsilon is not None:
        step = max(step, sensitivity / (epsilon * _MAX_LATTICE_NOISE))
    return power_of_two_at_most(step)


def laplace(value, *, sensitivity, epsilon, random_state=None):
    """Release real values with Laplace noise, safe against floating-point attacks.

    The textbook sampler ``value - b * sign(U) * log(1 - 2|U|)`` leaks through the
    gaps in the floating-point numbers it can reach (Mironov, CCS 2012). This one
    works on a lattice instead: with the step ``g`` of :func:`lattice_step`, it
    rounds every value to the nearest multiple of ``g``, adds *exact* discrete Laplace
    noise in units of ``g`` and returns ``g * (round(value / g) + Z)``. The output is a
    function of an integer only, so no floating-point artefact can depend on the
    input.

    Privacy: for any ``value`` whose L1 sensitivity (over the whole array, for the
    neighbouring relation the caller analysed) is at most ``sensitivity``, the
    release is ``epsilon``-differentially private. Rounding moves each of the ``n``
    entries by at most ``g / 2``, so the rounded values have L1 sensitivity at most
    ``sensitivity + n * g`` and the integer noise is calibrated to exactly that
    (scale ``(sensitivity / g + n) / epsilon`` lattice steps, rounded up to a
    rational). The effective epsilon is therefore ``epsilon`` itself, with no
    correction term; the price is noise ``1 + n * g / sensitivity`` times the
    textbook scale ``sensitivity / epsilon`` (at most ``1 + 2**-12`` unless
    ``n / epsilon > 2**38``), and outputs on a grid of step ``g``. Values must stay
    below about ``2**49 * sensitivity / n`` in magnitude.

    Parameters
    ----------
    value : float or array-like of float
        Finite values.
    sensitivity : float
        L1 sensitivity of ``value`` (> 0).
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
    >>> from skdp.mechanisms import laplace
    >>> noisy = laplace([10.0, 20.0], sensitivity=1.0, epsilon=1.0, random_state=0)
    >>> noisy.shape
    (2,)
    """
    array = _as_finite_array(value, "value")
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    rng = check_random_state(random_state)
    step = lattice_step(sensitivity, array.size, epsilon)
    with np.errstate(over="ignore"):
        index = np.rint(array / step)
    if np.any(np.abs(index) >= _MAX_LATTICE_INDEX):
        raise ValueError(
            f"value is too large for its sensitivity: with sensitivity={sensitivity:g} and "
            f"{array.size} values, |value| must stay below {_MAX_LATTICE_INDEX * step:.3g}"
        )
    scale = (Fraction(sensitivity) / Fraction(step) + array.size) / Fraction(epsilon)
    check_noise_scale(scale)
    record_spend(epsilon, mechanism="laplace")
    noise = discrete_laplace(array.shape, scale, rng)
    return _shaped((index.astype(np.int64) + noise) * step, array)


def geometric(value, *, sensitivity=1, epsilon, per_row=False, random_state=None):
    """Release integers with exact discrete Laplace (two-sided geometric) noise.

    Adds ``Z`` with ``P[Z = z]`` proportional to ``exp(-epsilon * |z| / sensitivity)``,
    drawn exactly (Canonne, Kamath and Steinke 2020), so counts stay integers and no
    floating-point rounding enters. Every entry of ``value`` is noised, zeros
    included.

    Privacy: ``epsilon``-differentially private for any integer-valued ``value`` whose
    L1 sensitivity is at most ``sensitivity`` (a histogram under add/remove of one
    record: 1). The scale is rounded up to a rational, so the effective epsilon is at
    most ``epsilon`` (by a relative ``2**-48`` at most).

    With ``per_row=True`` each row of a 2-d ``value`` is its own release of
    ``epsilon`` (one histogram per feature, say): the noise of every entry has the law
    above, independently, so each row has exactly the law of a call on that row alone;
    the ledger records ``epsilon`` once per row (sequential composition). All rows are
    drawn in one call to the sampler (much faster than one call per row when there
    are many small rows); only the draws for a given ``random_state`` differ.

    Parameters
    ----------
    value : int or array-like of int
        Integer values (floats with integral values are accepted).
    sensitivity : float, default=1
        L1 sensitivity of ``value`` (> 0).
    epsilon : float
        Privacy budget spent (> 0), per row when ``per_row``.
    per_row : bool, default=False
        Treat each row of a 2-d ``value`` as a separate release of ``epsilon``.
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`check_random_state`; ``None`` for real releases.

    Returns
    -------
    int or ndarray of int64
        Same shape as ``value``.

    Examples
    --------
    >>> from skdp.mechanisms import geometric
    >>> geometric([0, 5, 12], epsilon=1.0, random_state=0).dtype
    dtype('int64')

    Three features' sign histograms, three releases of ``epsilon`` in one draw:

    >>> geometric([[4, 9], [0, 13], [7, 6]], epsilon=1.0, per_row=True,
    ...           random_state=0).shape
    (3, 2)
    """
    array = _as_finite_array(value, "value")
    if not np.all(array == np.round(array)):
        raise ValueError("value must be integer-valued; use laplace() for real values")
    if np.any(np.abs(array) >= _MAX_LATTICE_INDEX):
        raise ValueError(f"value must stay below {_MAX_LATTICE_INDEX:.3g} in magnitude")
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    rng = check_random_state(random_state)
    scale = Fraction(sensitivity) / Fraction(epsilon)
    check_noise_scale(scale)
    if per_row and array.ndim != 2:
        raise ValueError(f"per_row needs a 2-d value, got shape {array.shape}")
    for _ in range(array.shape[0] if per_row else 1):
        record_spend(epsilon, mechanism="geometric")
    noise = discrete_laplace(array.shape, scale, rng)
    return _shaped(array.astype(np.int64) + noise, array)
