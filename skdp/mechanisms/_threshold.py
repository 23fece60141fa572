"""AboveThreshold (the sparse vector technique) on integer queries, drawn exactly."""

from fractions import Fraction

import numpy as np

from skdp.accounting import record_spend
from skdp.mechanisms._exact import check_noise_scale, discrete_laplace
from skdp.mechanisms._rng import check_random_state
from skdp.utils.validation import check_epsilon, check_sensitivity

__all__ = ["above_threshold"]

_MAX_QUERY = 2**60
_CHUNK = 64  # the queries of a 2-d call's first draw (the bounds' scans mostly stop there)


def above_threshold(queries, threshold=0, *, sensitivity, epsilon, random_state=None):
    """The index of the first query whose noisy value reaches a noisy threshold.

    Draws ``rho`` and one ``nu_i`` per query from the exact discrete Laplace law of
    scale ``2 sensitivity / epsilon`` and returns the first ``i`` with
    ``queries[i] + nu_i >= threshold + rho``, or ``len(queries)`` when no query does.
    The whole scan is one mechanism: the ledger records ``epsilon`` once, however many
    queries it reads.

    A 2-d ``queries`` runs one independent scan per row, all of them drawn in one call
    to the noise sampler a chunk of queries at a time (much faster than one call per
    scan when there are many short scans, as in per-feature bounds): row ``r`` gets its
    own ``rho_r`` and ``nu_{r,i}``, i.i.d. from the same law as above, so each row's
    answer has exactly the law of a 1-d call on that row, independently of the other
    rows. Each row is one mechanism of
    ``epsilon``: the ledger records ``epsilon`` once per row (sequential composition).
    Only the draws for a given ``random_state`` differ from one call per row.

    Privacy: ``epsilon``-DP when, for every pair of neighbouring datasets, the changes
    ``f_i(X') - f_i(X)`` of all the queries lie in one interval ``[-a, b]`` with
    ``a, b >= 0`` and ``a + b <= sensitivity`` (the threshold is public). Proof: the
    event "first crossing at ``k``" for ``X`` maps to the same event for ``X'`` by
    shifting ``rho`` by ``b`` and ``nu_k`` by ``a + b``, which costs at most
    ``b epsilon / (2 sensitivity) + (a + b) epsilon / (2 sensitivity) <= epsilon``;
    "no crossing" needs the ``rho`` shift only. For queries that may each move by
    ``s`` in either direction, pass ``sensitivity=2 s``; for the rank queries of a
    quantile, ``v #{x < c_i} - u n`` with ``q = u / v``, every change lies in
    ``[-u, v - u]`` (add) or ``[u - v, u]`` (remove), so ``sensitivity=v`` (Lyu, Su
    and Li's monotone case; Durfee 2023 uses it for unbounded quantiles).

    Parameters
    ----------
    queries : array-like of int, shape (n_queries,) or (n_scans, n_queries)
        The exact query values, in the public order of the scan; one scan per row.
    threshold : int, default=0
        The public threshold.
    sensitivity : float
        The width bound above (> 0).
    epsilon : float
        Privacy budget spent (> 0).
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`check_random_state`; ``None`` for real releases.

    Returns
    -------
    int or ndarray of int, shape (n_scans,)
        The first crossing index, or ``n_queries`` when none crosses (per row for 2-d
        ``queries``).

    Examples
    --------
    >>> from skdp.mechanisms import above_threshold
    >>> above_threshold([0, 0, 50, 100], 75, sensitivity=1, epsilon=1.0, random_state=0)
    3
    >>> above_threshold([[0, 90], [0, 0]], 75, sensitivity=1, epsilon=1.0, random_state=0)
    array([1, 2])
    """
    array = np.asarray(queries, dtype=float)
    if array.ndim not in (1, 2):
        raise ValueError(f"queries must be 1-d or 2-d, got shape {array.shape}")
    if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
        raise ValueError("queries must be finite integers")
    if not float(threshold).is_integer():
        raise ValueError(f"threshold must be an integer, got {threshold!r}")
    if np.any(np.abs(array) >= _MAX_QUERY) or abs(threshold) >= _MAX_QUERY:
        raise ValueError(f"queries and threshold must stay below {_MAX_QUERY:.3g}")
    sensitivity = check_sensitivity(sensitivity)
    epsilon = check_epsilon(epsilon)
    rng = check_random_state(random_state)
    scale = 2 * Fraction(sensitivity) / Fraction(epsilon)
    check_noise_scale(scale)
    if array.ndim == 2:
        return _scans(array.astype(np.int64), int(threshold), epsilon, scale, rng)
    record_spend(epsilon, mechanism="above_threshold")
    rho = int(discrete_laplace((), scale, rng))
    noisy = array.astype(np.int64) + discrete_laplace(array.shape, scale, rng)
    crossed = np.flatnonzero(noisy >= int(threshold) + rho)
    return int(crossed[0]) if crossed.size else int(array.size)


def _scans(queries, threshold, epsilon, scale, rng):
    """One AboveThreshold per row of ``queries``, the noise drawn for all rows at once a
    chunk of queries at a time: ``rho`` and the first ``_CHUNK`` ``nu`` of every row in
    one draw, then chunks twice as long for the rows still scanning. The same law as
    drawing every ``nu`` up front: each ``nu_{r,i}`` a scan reads is drawn once, i.i.d.
    from the same law and independent of what came before, and those it never reads do
    not change its answer (only the draws for a given generator differ)."""
    n_scans, n_queries = queries.shape
    for _ in range(n_scans):
        record_spend(epsilon, mechanism="above_threshold")
    stops = np.full(n_scans, n_queries, dtype=np.intp)
    width = min(_CHUNK, n_queries)
    noise = discrete_laplace((n_scans, 1 + width), scale, rng)
    if not n_queries:
        return stops
    levels, nu = threshold + noise[:, :1], noise[:, 1:]
    alive, start = np.arange(n_scans), 0
    while True:
        crossed = queries[alive, start : start + width] + nu >= levels
        hit = crossed.any(axis=1)
        stops[alive[hit]] = start + np.argmax(crossed[hit], axis=1)
        alive, levels, start = alive[~hit], levels[~hit], start + width
        if not alive.size or start >= n_queries:
            return stops
        width = min(2 * width, n_queries - start)
        nu = discrete_laplace((alive.size, width), scale, rng)
