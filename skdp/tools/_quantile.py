"""``skdp.tools.quantile``: numpy-like private quantiles, one or several at once."""

import math
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from skdp.mechanisms import check_random_state
from skdp.utils._joint_quantiles import joint_quantiles
from skdp.utils._quantiles import _as_fraction, bounded_quantile, unbounded_quantile
from skdp.utils.validation import check_epsilon, split_budget

__all__ = ["quantile"]

# the joint method's cost is O(m n_candidates**2)
MAX_JOINT_CANDIDATES = 4097
METHODS = ("joint", "independent")
# n_candidates="auto": at most this many, at least MIN_AUTO_STEPS + 1 (decimal_grid)
AUTO_CANDIDATES = 1025
MIN_AUTO_STEPS = 100


def _check_values(a):
    try:
        values = np.asarray(a, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a must be numeric, got {type(a).__name__}: {exc}") from exc
    if values.ndim > 1:
        raise ValueError(
            f"a must be 1-d (one value per record), got shape {values.shape}; pass one "
            "column at a time and split epsilon between the columns"
        )
    values = values.reshape(-1)
    if not np.all(np.isfinite(values)):
        raise ValueError(
            "a holds NaN or infinite values; drop or impute them before taking a private quantile"
        )
    return values


def _check_q(q):
    try:
        levels = np.asarray(q, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"q must be a float or an array of floats in (0, 1): {exc}") from exc
    if levels.size == 0 or not np.all((levels > 0) & (levels < 1)):
        raise ValueError(f"q must be a float or a non-empty array of floats in (0, 1), got {q!r}")
    return levels


def _check_bounds(bounds):
    if bounds is None:
        return None
    try:
        lower, upper = bounds
        ok = isinstance(lower, Real) and isinstance(upper, Real)
        ok = ok and math.isfinite(lower) and math.isfinite(upper) and lower < upper
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(
            f"bounds must be None or a public (lower, upper) pair of finite numbers with "
            f"lower < upper, got {bounds!r}"
        )
    return float(lower), float(upper)


def _aligned(value, step):
    ratio = value / step
    return abs(ratio - round(ratio)) <= 1e-9 * max(1.0, abs(ratio))


def decimal_grid(bounds):
    """``n_candidates="auto"``: the most evenly spaced candidates that hit round values.

    The finest step ``s`` in ``{1, 2, 5} x 10**k`` with at most ``AUTO_CANDIDATES - 1``
    steps in the public range, and at least ``MIN_AUTO_STEPS``, such that both bounds
    are multiples of ``s``; then ``(upper - lower) / s + 1`` candidates. Such a grid
    holds every multiple of ``10 s``, so values recorded to that precision (ages in
    years, lengths in tenths) are candidates and a quantile can land on them. A public
    function of the bounds only; 1025 when no such step exists.
    """
    lower, upper = bounds
    width = upper - lower
    exponent = math.floor(math.log10(width / (AUTO_CANDIDATES - 1)))
    for k in range(exponent, exponent + 4):
        for mantissa in (1, 2, 5):
            step = mantissa * 10.0**k
            steps = width / step
            if steps > AUTO_CANDIDATES - 1 + 1e-9:
                continue
            if steps < MIN_AUTO_STEPS:
                return AUTO_CANDIDATES
            if _aligned(lower, step) and _aligned(upper, step):
                return round(steps) + 1
    return AUTO_CANDIDATES


def snap_to_candidates(values, bounds, n_candidates):
    """Values within rounding error of a public candidate, set to it exactly.

    ``np.linspace`` may put a candidate at ``36.99999999999999`` where the data hold
    ``37.0``; the quantile scores count values *equal* to a candidate on neither side
    (or either side, jointly), so the tie must be exact. A fixed map applied to each
    value on its own, so neighbouring data stay neighbouring (no privacy cost).
    """
    lower, upper = bounds
    candidates = np.linspace(lower, upper, n_candidates)
    step = (upper - lower) / (n_candidates - 1)
    nearest = np.clip(np.rint((values - lower) / step), 0, n_candidates - 1).astype(np.int64)
    close = np.abs(values - candidates[nearest]) <= 1e-9 * step
    return np.where(close, candidates[nearest], values)


def _check_n_candidates(n_candidates, method, bounds):
    most = MAX_JOINT_CANDIDATES if method == "joint" else np.inf
    if isinstance(n_candidates, str) and n_candidates == "auto":
        return AUTO_CANDIDATES if bounds is None else decimal_grid(bounds)
    if isinstance(n_candidates, bool) or not isinstance(n_candidates, Integral):
        raise ValueError(f"n_candidates must be 'auto' or an int, got {n_candidates!r}")
    if not 2 <= n_candidates <= most:
        raise ValueError(
            f"n_candidates must be at least 2 (at most {MAX_JOINT_CANDIDATES} for "
            f"method='joint'), got {n_candidates!r}"
        )
    return int(n_candidates)


def _independent(values, fractions, bounds, n_candidates, epsilon, rng):
    """One private quantile per level, ``epsilon / m`` each, sorted (post-processing)."""
    estimates = []
    for level, share in zip(fractions, split_budget(epsilon, [1.0] * len(fractions)), strict=True):
        if bounds is None:
            estimate = unbounded_quantile(values, float(level), epsilon=share, random_state=rng)
        else:
            estimate = bounded_quantile(
                values, float(level), bounds, epsilon=share, n_candidates=n_candidates,
                random_state=rng,
            )  # fmt: skip
        estimates.append(estimate)
    return sorted(estimates)  # non-decreasing in q, like numpy's


def quantile(a, q, *, epsilon, bounds=None, method=None, n_candidates="auto", random_state=None):
    """Private ``q``-th quantile(s) of ``a``, like :func:`numpy.quantile`.

    Without ``bounds`` each quantile is Durfee's unbounded estimate
    (:func:`skdp.utils._quantiles.unbounded_quantile`: two AboveThreshold scans of
    the public geometric grid ``0, 2**-30 .. 2**62``, steps of a factor ``2**0.25``),
    which needs no range and no sign. With public ``bounds = (lower, upper)`` the
    values are clipped to the range and the quantiles, one or several, are drawn at
    once among evenly spaced public candidates by JointExp (``method="joint"``,
    below), or each by its own exponential mechanism (``method="independent"``,
    :func:`skdp.utils._quantiles.bounded_quantile`). By default
    (``n_candidates="auto"``) the candidates are a round grid of the bounds: step
    ``1``, ``2`` or ``5`` times a power of 10, 101 to 1025 candidates
    (:func:`skdp.tools._quantile.decimal_grid`; 1025 when the bounds fit no such
    grid), so values recorded to a round precision, e.g. integer ages or lengths in
    tenths, are candidates themselves. Many records often share the exact quantile;
    on a grid that misses it the release could only land in the gap beside it (an
    error floor of about half the recording precision at any ``epsilon``).

    Several ``q`` share ``epsilon``: ``"independent"`` gives each distinct level
    ``epsilon / m`` and sorts the results (post-processing, so the output is
    non-decreasing in ``q`` like numpy's); ``"joint"`` (JointExp: Gillenwater, Joseph
    and Kulesza, ICML 2021, on the public candidates) spends all of ``epsilon`` on one
    exponential mechanism over increasing candidate sequences ``o_1 < ... < o_m``,
    drawn exactly (:func:`skdp.mechanisms._joint.joint_exponential`), with score
    ``u(o) = -sum_{j=1..m+1} dist((q_j - q_{j-1}) n, [N_j, N_j + A_{j-1} + A_j])``:
    ``N_j`` counts the values strictly between ``o_{j-1}`` and ``o_j`` (``o_0``,
    ``o_{m+1}`` the two bounds, ``q_0 = 0``, ``q_{m+1} = 1``) and ``A_j`` those equal
    to ``o_j``, which either neighbouring gap may count. This tie rule (our variant of
    the paper's ``[o_{j-1}, o_j)`` counts) lets a quantile sit on a value many records
    share, e.g. values clipped to a bound.

    Privacy: ``epsilon``-DP under add/remove of one element of ``a`` (each element is
    one record; for records holding several values, split ``epsilon`` yourself). The
    scans and the single-quantile mechanism carry their own proofs. The joint score
    moves by at most ``max(2 (1 - min_j w_j), max_j g(w_j, w_{j+1}))`` with
    ``w_j = q_j - q_{j-1}``, ``g(a, b) = 3 - 2 (a + b)`` if ``a, b <= 1/2`` else
    ``2 - 2 min(a, b)``: a value added between two outputs raises one ``N_j`` by 1 and
    every target by ``w_j``, which moves the sum by at most ``2 (1 - w_j)``; a value
    added at an output ``o_j`` widens the two intervals next to it, which can only
    lower their distances, each by at most ``max(w, 1 - w)``, while the other gaps
    move by at most ``w`` each
    (:func:`skdp.utils._joint_quantiles.joint_sensitivity`; the paper's bound
    ``2 (1 - min_j w_j)`` holds for its ``[o_{j-1}, o_j)`` counts; both are checked by
    enumeration in the tests). For evenly spaced levels this is 1.25 (``m = 2``) to
    1.45 (``m >= 10``) times the paper's. The candidates and the grid are public; the
    ledger records ``epsilon`` in total.

    Error: in ranks, independent of ``n``, so the error as a fraction of ``n``
    shrinks like ``1 / (n epsilon)``. A scan's rank error is ``O(ln(K) / epsilon)``
    values for the ``K`` grid points it passes, plus one grid step (19%) in value; a
    bounded quantile's is at most ``2 max(q, 1 - q) ln(1025 / beta) / epsilon`` values
    with probability ``1 - beta``, plus one grid step in value (none when the
    quantile is a value on the grid). With
    ``m`` levels the independent errors grow like ``m``, the joint method's more
    slowly: at ``n = 1000``, ``epsilon = 1``, bounds ``[-100, 100]`` and evenly spaced
    levels, the values missed in total (mean of 50 draws on U(-5, 5) / N(0, 5) data)
    are 9.6 / 8.1 (``m = 2``) and 93 / 83 (``m = 10``) jointly against 9.7 / 8.2 and
    252 / 204 independently (the grid step alone costs about 5 values per level on
    these data). The joint method is weak when
    several levels fall inside one value held by many records (few distinct values,
    or many values clipped to a bound): outputs must differ, so all but one of those
    levels land beside it; prefer ``"independent"`` there. With ``n epsilon`` of a few
    units or less the output is close to uniform on the candidates (bounded) or near
    0 (unbounded).

    Always returns finite values, for any finite ``a``, also with 0 or 1 elements:
    there is no data-dependent failure.

    Parameters
    ----------
    a : array-like of shape (n,)
        Finite values, one per record.
    q : float or array-like of float
        Levels in ``(0, 1)``, rounded to the nearest fraction with denominator at most
        1000 (and, for the joint method, put on one denominator of at most 10000).
    epsilon : float
        Privacy budget of the whole call (> 0).
    bounds : None or (float, float), default=None
        A public range ``lower < upper`` known to hold the values (values outside are
        clipped to it), or None (no range needed).
    method : {"joint", "independent"} or None, default=None
        None: ``"joint"`` when ``bounds`` is given (also for a single level: its score
        lets the quantile sit on a value many records share, where the independent
        mechanism's score, which counts such values on neither side, prefers the gap
        beside it), else ``"independent"``. ``"joint"`` needs ``bounds``.
    n_candidates : "auto" or int, default="auto"
        With ``bounds``: the number of evenly spaced public candidates (at least 2; at
        most 4097 for the joint method, whose time grows like ``m n_candidates**2``).
        ``"auto"``: the round grid above (a function of the bounds only).
        More candidates cut the grid's rounding error and add a little to the
        selection error (it grows like ``ln(n_candidates)``).
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`skdp.mechanisms.check_random_state`; ``None`` for real releases.

    Returns
    -------
    float or ndarray of float
        A float for a scalar ``q``, else an array of the shape of ``q``.

    Raises
    ------
    ValueError
        For NaN or infinite values in ``a``, ``a`` with more than one dimension,
        levels outside ``(0, 1)``, bad ``bounds`` or ``method``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.tools import quantile
    >>> ages = np.random.default_rng(0).integers(17, 91, size=5000)
    >>> float(np.median(ages))
    54.0

    Without bounds, the first point of the grid ``2**(k/4)`` that reaches the median:

    >>> float(quantile(ages, 0.5, epsilon=0.5, random_state=0))
    64.0

    With public bounds, the quartiles jointly, on candidates ``0, 0.2, ..., 128``:

    >>> quantile(ages, [0.25, 0.75], epsilon=0.5, bounds=(0, 128), random_state=0)
    array([35., 73.])
    """
    values, levels = _check_values(a), _check_q(q)
    epsilon, bounds = check_epsilon(epsilon), _check_bounds(bounds)
    fractions = [Fraction(*_as_fraction(level)) for level in levels.reshape(-1)]
    distinct = sorted(set(fractions))
    if method is None:
        method = "joint" if bounds is not None else "independent"
    if method not in METHODS:
        raise ValueError(f"method must be None, 'joint' or 'independent', got {method!r}")
    if method == "joint" and bounds is None:
        raise ValueError("method='joint' needs public bounds=(lower, upper)")
    n_candidates = _check_n_candidates(n_candidates, method, bounds)
    if method == "joint" and len(distinct) > n_candidates:
        raise ValueError(
            f"method='joint' puts the {len(distinct)} distinct levels on distinct "
            f"candidates: n_candidates must be at least {len(distinct)}, got {n_candidates}"
        )
    rng = check_random_state(random_state)
    if bounds is not None:
        values = snap_to_candidates(values, bounds, n_candidates)
    if method == "joint":
        estimates = joint_quantiles(values, distinct, bounds, n_candidates, epsilon, rng)
    else:
        estimates = _independent(values, distinct, bounds, n_candidates, epsilon, rng)
    # candidates as numpy's linspace computes them, printed as written (53.8, not
    # 53.800000000000004): a change below 1e-12 relative, post-processing
    found = {f: float(f"{e:.12g}") for f, e in zip(distinct, estimates, strict=True)}
    result = np.array([found[f] for f in fractions], dtype=float).reshape(levels.shape)
    return float(result) if result.ndim == 0 else result
