"""Private quantiles that always return a value: with or without a public range.

* :func:`unbounded_quantile`: AboveThreshold over a public geometric grid anchored at
  zero (Durfee, NeurIPS 2023), two scans (upwards and downwards) for data of unknown
  sign. No range is needed; the cost of not knowing it is logarithmic in the number
  of grid points passed.
* :func:`bounded_quantile`: the exponential mechanism over public candidates in a
  public ``[lower, upper]`` (Smith, STOC 2011, in OpenDP's finite-candidate form),
  sampled exactly.

Both are total functions: every finite input, one row or none included, gives a
finite grid point; the errors shrink with ``n * epsilon`` (see each docstring).
Quantiles are taken as the rational ``u / v`` nearest to ``q`` with ``v <= 1000``,
so every score is an integer and floating point cannot leak the data.
"""

from fractions import Fraction

import numpy as np

from skdp.mechanisms import above_threshold, check_random_state, exponential
from skdp.utils.validation import check_epsilon

__all__ = [
    "GEOMETRIC_GRID",
    "bounded_quantile",
    "rank_queries",
    "scan_quantile",
    "unbounded_quantile",
]

# The public positive grid: powers of two from 2^-30 to 2^-5, then 2^(k/4) up to 2^62
# (steps of 19%). Coarse below 1/16, where few features live: every candidate below
# the data is one more chance for a scan to stop early.
GEOMETRIC_GRID = np.concatenate([2.0 ** np.arange(-30, -4), 2.0 ** (np.arange(-16, 249) / 4)])
# the scan's candidates: the anchor 0, then the grid
_ANCHORED_GRID = np.concatenate([[0.0], GEOMETRIC_GRID])


def _as_fraction(q):
    if not 0 < q < 1:
        raise ValueError(f"q must be in (0, 1), got {q!r}")
    fraction = Fraction(q).limit_denominator(1000)
    if not 0 < fraction < 1:  # q within 1/1000 of 0 or 1
        fraction = Fraction(1, 1000) if q < 0.5 else Fraction(999, 1000)
    return fraction.numerator, fraction.denominator


def _finite_1d(values):
    values = np.asarray(values, dtype=float).ravel()
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite (no nan or inf) to take a private quantile")
    return values


def rank_queries(values, candidates, q):
    """``v #{x < c} - u n`` for each candidate ``c``, with ``q = u / v``; and ``v``.

    Parameters
    ----------
    values : ndarray of shape (n,)
    candidates : ndarray of shape (n_candidates,), increasing
    q : float in (0, 1)

    Returns
    -------
    queries : ndarray of int64
    v : int
        The queries' sensitivity for :func:`~skdp.mechanisms.above_threshold`.
    """
    u, v = _as_fraction(q)
    below = np.searchsorted(np.sort(values), candidates, side="left")
    return v * below.astype(np.int64) - u * values.size, v


def scan_quantile(values, q, *, epsilon, candidates=_ANCHORED_GRID, random_state=None):
    """The first public candidate whose noisy rank reaches ``q``: one AboveThreshold.

    Scans ``candidates`` upwards and returns the first ``c`` at which
    ``#{x < c}`` (noisy) reaches ``q n`` (noisy), or the last candidate when none does.
    Values below the first candidate count as below every candidate; the result is
    never below ``candidates[0]``.

    Privacy: ``epsilon``-DP under add/remove of one value (and under substitution):
    the rank queries of :func:`rank_queries` have sensitivity ``v`` for
    :func:`~skdp.mechanisms.above_threshold`, which charges ``epsilon`` once.

    Utility: with ``K`` candidates scanned, the rank error is ``O(ln(K) / epsilon)``
    values with high probability; past the quantile each step stops with probability
    at least about one half, so the overshoot is a few grid steps. With
    ``n q epsilon`` of a few units or less the scan may stop early, near the first
    candidate.

    Parameters
    ----------
    values : array-like of shape (n,)
        Finite values.
    q : float in (0, 1)
    epsilon : float
    candidates : ndarray, increasing, default=0 then 2**-30 .. 2**62 (292 points)
        Public.
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    float
        One of ``candidates``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._quantiles import scan_quantile
    >>> ages = np.random.default_rng(0).integers(17, 91, size=5000)
    >>> float(scan_quantile(ages, 0.98, epsilon=0.1, random_state=0))
    90.50966799187809
    """
    values = _finite_1d(values)
    queries, v = rank_queries(values, candidates, q)
    stop = above_threshold(queries, 0, sensitivity=v, epsilon=epsilon, random_state=random_state)
    return float(candidates[min(stop, len(candidates) - 1)])


def unbounded_quantile(values, q, *, epsilon, random_state=None):
    """The ``q``-quantile of values with no known range or sign (Durfee 2023).

    Two scans of :func:`scan_quantile`, ``epsilon / 2`` each, both anchored at zero
    on the grid ``0, 2**-30 .. 2**62`` (steps of a factor ``2**0.25`` above
    ``2**-4``, of 2 below): upwards for
    ``q`` and, on the negated values, for ``1 - q``. The upward result is kept when
    it left the anchor, else the negated downward one.

    Privacy: ``epsilon``-DP under add/remove of one value (two ``epsilon / 2``
    AboveThreshold scans, see :func:`scan_quantile`).

    Parameters
    ----------
    values : array-like of shape (n,)
        Finite values; any scale, any sign, any length (also 0 or 1).
    q : float in (0, 1)
    epsilon : float
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    float
        A grid point (or its negative), within ``+-2**62``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._quantiles import unbounded_quantile
    >>> x = np.random.default_rng(0).normal(-40.0, 5.0, size=2000)
    >>> float(unbounded_quantile(x, 0.5, epsilon=1.0, random_state=0))
    -45.254833995939045
    """
    epsilon = check_epsilon(epsilon)
    values, rng = _finite_1d(values), check_random_state(random_state)
    up = scan_quantile(values, q, epsilon=epsilon / 2, random_state=rng)
    down = scan_quantile(-values, 1 - q, epsilon=epsilon / 2, random_state=rng)
    return up if up > 0 else -down


def bounded_quantile(values, q, bounds, *, epsilon, n_candidates=1025, random_state=None):
    """The ``q``-quantile on a public ``[lower, upper]``: exponential mechanism.

    Candidates are ``n_candidates`` evenly spaced public points of ``[lower, upper]``;
    values are clipped to the range first. Candidate ``c`` scores
    ``-|v #{x < c} - u (n - #{x = c})|`` (``q = u / v``; values equal to ``c`` count on
    neither side), selected by :func:`~skdp.mechanisms.exponential`.

    Privacy: ``epsilon``-DP under add/remove of one value: adding ``x`` moves the
    score's inside by ``v - u`` (``x < c``), ``0`` (``x = c``) or ``-u`` (``x > c``),
    so the sensitivity is ``max(u, v - u)``.

    Utility: with probability ``1 - beta`` the rank error is at most
    ``2 max(q, 1 - q) ln(n_candidates / beta) / epsilon`` values, plus the grid step
    ``(upper - lower) / (n_candidates - 1)``.

    Parameters
    ----------
    values : array-like of shape (n,)
        Finite values.
    q : float in (0, 1)
    bounds : (float, float)
        The public range, ``lower < upper``.
    epsilon : float
    n_candidates : int, default=1025
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    float
        One of the candidates.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._quantiles import bounded_quantile
    >>> ages = np.random.default_rng(0).integers(17, 91, size=5000)
    >>> float(bounded_quantile(ages, 0.5, (0, 128), epsilon=0.1, random_state=0))
    53.75
    """
    values = _finite_1d(values)
    lower, upper = (float(b) for b in bounds)
    if not (np.isfinite(lower) and np.isfinite(upper) and lower < upper):
        raise ValueError(f"bounds must be finite with lower < upper, got {bounds!r}")
    if int(n_candidates) < 2:
        raise ValueError(f"n_candidates must be >= 2, got {n_candidates!r}")
    u, v = _as_fraction(q)
    candidates = np.linspace(lower, upper, int(n_candidates))
    ordered = np.sort(np.clip(values, lower, upper))
    below = np.searchsorted(ordered, candidates, side="left")
    equal = np.searchsorted(ordered, candidates, side="right") - below
    scores = -np.abs(v * below - u * (values.size - equal))
    index = exponential(
        scores, sensitivity=max(u, v - u), epsilon=epsilon, random_state=random_state
    )
    return float(candidates[index])
