"""The data side of private bounds: a Poisson subsample and the counts of each column.

:func:`skdp.utils._bounds.estimate_bounds` scans, for each feature, the rank of
``|x_j|`` over the public grid of :func:`skdp.utils._quantiles.scan_quantile` and
counts the signs of ``x_j``. The scans take both for every column from one pass over
the rows, without a sort (:func:`~skdp.utils._bounds_counts.feature_counts`,
re-exported here), equal to those of one sort of the signed column
(:func:`column_counts`, the reference the tests compare with):
``#{|x| < c} = #{x < c} - #{x <= -c}`` for ``c > 0``, exact in floating point
(negation is exact), so the queries are those of a sort of ``|x_j|``.

On many rows the scans run on a Poisson subsample (:func:`subsample_rate`,
:func:`poisson_subsample`): each row kept independently with a public probability
``r`` chosen from the already released noisy count. The subsample keeps at least
``SUBSAMPLE_RECORDS / epsilon_scan`` rows, so the scan's noise (scale
``2 / epsilon_scan`` records) stays within 0.2% of the rows it reads, and at least
``SUBSAMPLE_ROWS``. Privacy (add/remove neighbours ``X' = X + {x}``): couple the coins
of the rows the two datasets share; the subsamples are then equal (``x`` not kept,
probability ``1 - r``) or neighbours (``x`` kept). For any event ``E`` and a mechanism
``M`` that is ``epsilon``-DP under add/remove on its input,
``P[M(S(X')) in E] = (1 - r) P[M(S(X)) in E] + r E_S P[M(S + {x}) in E]``, and the
second term is within ``exp(+-epsilon)`` of ``P[M(S(X)) in E]``; so the mixture is
too, both ways: ``M`` on the subsample is ``epsilon``-DP. The rate is a function of
``n~``, ``epsilon`` and the number of features only, fixed before the scans run
(adaptive composition). The full ``epsilon`` is charged: the amplification to
``log(1 + r (exp(epsilon) - 1))`` is not claimed. The subsample's size is read only
inside the scans and sign histograms (part of their mechanisms); the quantile rule
reads the expected size ``r n~``; the number of generator draws (one per row) changes
no output's law.
"""

import math
from dataclasses import dataclass

import numpy as np

from skdp.mechanisms import above_threshold, geometric
from skdp.utils._bounds_counts import as_numeric, feature_counts
from skdp.utils._quantiles import _ANCHORED_GRID, _as_fraction

__all__ = [
    "SUBSAMPLE_RECORDS",
    "SUBSAMPLE_ROWS",
    "ScanCounts",
    "as_numeric",
    "column_counts",
    "feature_boxes",
    "feature_counts",
    "poisson_rows",
    "poisson_subsample",
    "present_sides",
    "scan_counts",
    "sided_box",
    "sign_sides",
    "subsample_rate",
]

# the fewest rows a subsample keeps, and the records-times-epsilon each scan reads
# at least: its noise (scale 2 / epsilon records) is then within 0.2% of the rows
SUBSAMPLE_ROWS, SUBSAMPLE_RECORDS = 2**16, 1000.0
# how many noise scales above the clipped share of the noisy total a side's count must
# be to count as present (sign_sides)
SIGN_SCALES = 2.0
_BLOCK = 2**16  # rows per block of coins


def subsample_rate(n_noisy, epsilon_scan):
    """The public probability with which each row enters the scans (1: all rows).

    ``min(1, keep / n~)`` with ``keep = max(SUBSAMPLE_ROWS, SUBSAMPLE_RECORDS /
    epsilon_scan)``; 1 when ``n_noisy`` is None. A function of public values and the
    noisy count only.

    Examples
    --------
    >>> from skdp.utils._bounds_scan import subsample_rate
    >>> subsample_rate(10**6, 0.0075), subsample_rate(10**5, 0.0075), subsample_rate(None, 1.0)
    (0.13333333333333333, 1.0, 1.0)
    """
    if n_noisy is None:
        return 1.0
    keep = max(SUBSAMPLE_ROWS, SUBSAMPLE_RECORDS / epsilon_scan)
    return min(1.0, keep / max(n_noisy, 1))


def poisson_rows(n_rows, rate, rng):
    """The indices of the rows kept, each independently with probability ``rate``.

    None (every row, no draw) when ``rate >= 1``. The coins are drawn in blocks of
    ``2**16`` rows (the same stream as one draw), so no ``n``-sized temporary is held.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds_scan import poisson_rows
    >>> poisson_rows(8, 0.5, np.random.default_rng(0))
    array([1, 2, 3])
    """
    if rate >= 1:
        return None
    blocks = [
        start + np.flatnonzero(rng.random(min(_BLOCK, n_rows - start)) < rate)
        for start in range(0, n_rows, _BLOCK)
    ]
    return np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.intp)


def poisson_subsample(X, rate, rng):
    """The rows of ``X`` each kept independently with probability ``rate``.

    ``X`` itself (no copy, no draw) when ``rate >= 1`` (:func:`poisson_rows`).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds_scan import poisson_subsample
    >>> X = np.zeros((100_000, 2))
    >>> poisson_subsample(X, 0.25, np.random.default_rng(0)).shape
    (25015, 2)
    """
    rows = poisson_rows(X.shape[0], rate, rng)
    return X if rows is None else X[rows]


def column_counts(column, candidates=_ANCHORED_GRID, *, overwrite=False):
    """``(below, negative, positive)`` of one column, from one sort.

    ``below[i] = #{|x| < candidates[i]}`` (candidates increasing, the first one 0 or
    more), ``negative = #{x < 0}`` and ``positive = #{x > 0}``. ``overwrite=True``
    sorts ``column`` itself (a contiguous array of the caller's) instead of a copy.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds_scan import column_counts
    >>> below, negative, positive = column_counts(
    ...     np.array([-3.0, -0.5, 0.0, 2.0]), np.array([0.0, 1.0, 4.0]))
    >>> below.tolist(), negative, positive
    ([0, 2, 4], 2, 1)
    """
    if overwrite:
        column.sort()
    ordered = column if overwrite else np.sort(column)
    positive_candidates = candidates > 0
    below = np.zeros(candidates.size, dtype=np.int64)
    c = candidates[positive_candidates]
    below[positive_candidates] = np.searchsorted(ordered, c, side="left") - np.searchsorted(
        ordered, -c, side="right"
    )
    negative = int(np.searchsorted(ordered, 0.0, side="left"))
    positive = ordered.size - int(np.searchsorted(ordered, 0.0, side="right"))
    return below, negative, positive


def scan_counts(
    below, n_values, q, *, epsilon, random_state, candidates=_ANCHORED_GRID, slack=0.0
):
    """:func:`~skdp.utils._quantiles.scan_quantile` from counts ``below[i] = #{x < c_i}``.

    The same AboveThreshold on the same rank queries ``v below - u n`` (``q = u / v``),
    for counts already taken (:func:`column_counts`); returns a candidate. A 2-d
    ``below`` (one row of counts per feature) runs one scan per row, all drawn at once
    (:func:`~skdp.mechanisms.above_threshold`), and returns one candidate per row.
    ``slack`` noise scales (public) lower the threshold from 0 to
    ``-ceil(slack 2 v / epsilon)``: the scan stops about ``2 slack / epsilon`` values
    before the ``q`` point, and at once (not at a uniform stop) when every query is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds_scan import column_counts, scan_counts
    >>> ages = np.random.default_rng(0).integers(17, 91, size=5000).astype(float)
    >>> below, _, _ = column_counts(ages)
    >>> float(scan_counts(below, ages.size, 0.98, epsilon=0.1, random_state=0))
    90.50966799187809
    """
    u, v = _as_fraction(q)
    queries = v * below - u * int(n_values)
    threshold = -math.ceil(slack * 2 * v / epsilon) if slack else 0
    stop = above_threshold(
        queries, threshold, sensitivity=v, epsilon=epsilon, random_state=random_state
    )
    released = candidates[np.minimum(stop, len(candidates) - 1)]
    return float(released) if np.ndim(released) == 0 else released


def present_sides(noisy, epsilon, *, clip_share):
    """The side rule of :func:`sign_sides` on released noisy counts (post-processing).

    ``noisy`` holds one row ``(negative, positive)`` of noisy counts per feature, each
    entry's noise of scale ``1 / epsilon`` (or a weighted mean of such releases with
    the same variance); a side counts as present when its count exceeds
    ``clip_share`` of the row's total plus ``SIGN_SCALES`` noise scales.
    """
    total = np.maximum(noisy.sum(axis=1), 1)
    threshold = clip_share * total + SIGN_SCALES / epsilon
    return noisy[:, 0] > threshold, noisy[:, 1] > threshold


def sign_sides(counts, epsilon, rng, *, clip_share):
    """Whether the negative and the positive side of each feature hold data, privately.

    ``counts`` holds one row ``(#{x < 0}, #{x > 0})`` per feature; each row is one
    noisy histogram (``epsilon``-DP: L1 sensitivity 1), all drawn in one call
    (:func:`~skdp.mechanisms.geometric` with ``per_row=True``: the same law as one
    call per feature, ``epsilon`` recorded per feature). A side counts as present
    when its noisy count exceeds the share ``clip_share`` (2%) of the feature's noisy
    total that the bound may clip anyway, plus ``SIGN_SCALES`` noise scales
    (:func:`present_sides`): an
    absent side (ages, counts) is kept on at most ``exp(-SIGN_SCALES) / 2`` (7%) of
    runs, and the side of centred data is dropped on under 1% of runs at the smallest
    tier-1 budget. Returns two boolean arrays of shape ``(n_features,)`` and the noisy
    counts (shape ``(n_features, 2)``).
    """
    released = geometric(np.asarray(counts), epsilon=epsilon, per_row=True, random_state=rng)
    return (*present_sides(released, epsilon, clip_share=clip_share), released)


def feature_boxes(X, rows, q, *, scan_epsilon, sign_epsilon, clip_share, rng):
    """Tier 1 of :func:`skdp.utils._bounds.estimate_bounds` on the ``rows`` it reads.

    For each feature: :func:`scan_counts` of the ``q`` quantile of ``|x_j|`` and
    :func:`sign_sides` (``scan_epsilon`` and ``sign_epsilon``), both from the
    column's counts on ``rows``; the box is ``[-R_j, R_j]`` with
    an absent side set to 0. The ``d`` scans are drawn in one call (one row of
    queries per feature: the same laws as ``d`` calls, a fifth of the time at ten
    features), then the ``d`` sign histograms (one call too). All counts come from
    one pass over the rows read (:func:`feature_counts`): every row when ``rows`` is
    None, else the subsample, gathered a block at a time (no copy of a column or of
    the subsample). Returns ``(lower, upper, counts)``: ``counts`` is a
    :class:`ScanCounts` (the exact counts and the released values), for the rescan of
    sparse columns (:mod:`skdp.utils._bounds_sparse`).
    """
    n_values = X.shape[0] if rows is None else rows.size
    below, negative, positive = feature_counts(X, rows)
    signs = np.stack([negative, positive], axis=1)
    magnitudes = scan_counts(below, n_values, q, epsilon=scan_epsilon, random_state=rng)
    negative, positive, noisy = sign_sides(signs, sign_epsilon, rng, clip_share=clip_share)
    lower, upper = sided_box(magnitudes, negative, positive)
    sides = np.stack([negative, positive], axis=1)
    return lower, upper, ScanCounts(below, signs, n_values, magnitudes, noisy, sides)


def sided_box(magnitudes, negative, positive):
    """``(lower, upper)``: ``[-R_j, R_j]`` with a side judged absent at 0 (``-0.0``
    below)."""
    return np.where(negative, -magnitudes, -0.0), np.where(positive, magnitudes, 0.0)


@dataclass
class ScanCounts:
    """What tier 1 counted on the rows it read, and what it released from the counts.

    Attributes
    ----------
    below : ndarray of shape (n_features, n_candidates)
        ``#{|x_j| < c}`` for each grid candidate (exact).
    signs : ndarray of shape (n_features, 2)
        ``(#{x_j < 0}, #{x_j > 0})`` (exact).
    n_values : int
        The number of rows read (exact).
    magnitudes : ndarray of shape (n_features,)
        The scans' released grid points.
    noisy : ndarray of shape (n_features, 2)
        The released noisy sign counts.
    sides : ndarray of bool, shape (n_features, 2)
        Whether the negative and the positive side were judged present from them.
    """

    below: np.ndarray
    signs: np.ndarray
    n_values: int
    magnitudes: np.ndarray
    noisy: np.ndarray
    sides: np.ndarray
