"""Tier-1 bounds of sparse columns: a second scan over the nonzero values.

Tier 1 of :func:`skdp.utils._bounds.estimate_bounds` scans the ``q`` quantile of
``|x_j|``. On a column where more than about a share ``q`` of the values are zero
(capital gains, pixel counts, indicators of rare events) that quantile is 0: the scan
stops on the grid's first points below the data, near ``2**-30``, every value is
clipped to about 0 and a scaler divides by that width. :func:`rescan_sparse` gives
such a column the box of its nonzero values instead.

A feature is *collapsed* when its released scan point is below ``SPARSE_LIMIT`` (1),
or its sign histogram judged both sides empty (the box ``[-0, 0]``: on a few hundred
nonzero values at a small ``epsilon_s``, the noise of the histogram can hide them),
and its released noisy number of nonzero values (the sum of its noisy sign counts) is
at most ``SPARSE_SHARE`` (half) of the expected number of rows read. When the share of
zeros is just below ``q`` (within a few noise scales of the scan), the scan does not
stop at the first point but anywhere on the grid below the nonzero values (Adult's
sample: capital-gain at 0.2, 13 or 76 for values from 114 to 99999); the limit at 1
rather than at the grid's first points catches the lower of those stops. Both are
released values: which features are rescanned, and everything after, is a function
of them and of public values. On data with no such column nothing below is run and
nothing is drawn: the bounds, and every draw after them, are those of tier 1 alone,
bit for bit.

For each of the ``k`` collapsed features, with ``B`` the public budget the caller
allows: ``SPARSE_BUDGET`` (half) of what its earlier estimates leave (the count,
the bounds' share and the norm in :func:`skdp.utils._bounds.estimate_public_inputs`),
a tenth (``RESCAN_SHARE``) in :mod:`skdp.linear_model._moments`:

1. a second noisy sign histogram ``(#{x_j < 0}, #{x_j > 0})`` at
   ``epsilon_c = min(COUNT_SCANS epsilon_scan, B / (2 k))`` (L1 sensitivity 1),
   combined with the first (``epsilon_s``) as the mean weighted by ``epsilon**2``
   (post-processing; its noise has the variance of one release at
   ``sqrt(epsilon_s**2 + epsilon_c**2)``): the number of nonzero values ``m~`` (at
   least 1) and the sides, by the rule of
   :func:`~skdp.utils._bounds_scan.present_sides`. A feature where neither side holds
   data (an all-zero column, or a few nonzero values that its budget cannot tell from
   none), or whose scan below would have ``m~ epsilon_j < LEAST_RECORDS`` (12), keeps
   its first, tiny box, and nothing more is spent on it;
2. else AboveThreshold over the same grid of the ``q_j`` quantile of ``|x_j|`` among
   the nonzero values, ``v #{0 < |x_j| < c} - u m`` (``m`` the exact number of
   nonzero values, inside the query as ``n`` is in the first scan), at
   ``epsilon_j = max(epsilon_scan, NONZERO_RECORDS / m~)`` (a scan of
   ``m~ epsilon_j >= 45`` records, as a tier-1 scan of ``n~`` rows gets), the features
   served by decreasing ``m~`` while ``B - k epsilon_c`` lasts (the last one served
   may get less), with ``q_j = margin_quantile(q, m~, epsilon_j)``. Its
   threshold is lowered by ``SLACK_SCALES`` (3) noise scales
   (:func:`~skdp.utils._bounds_scan.scan_counts`' ``slack``): the point is about
   ``6 / epsilon_j`` values (at most 13% of ``m~``) below the ``q_j`` point, and on
   values that are nearly all zero the scan stops on the grid's first points instead
   of anywhere up to ``2**62`` (where all queries are 0, AboveThreshold's stop is
   past the ``i``-th candidate with probability ``1 / (i + 1)``);
3. ``R_j`` becomes the larger of the two released points.

Privacy (add/remove one record): the histogram has L1 sensitivity 1 (a record is in
one cell at most, none if zero). Adding a record with ``x_j != 0`` moves
``#{0 < |x_j| < c}`` by 0 or 1 and ``m`` by 1, so each rank query moves by ``v - u`` or
``-u``; adding a zero moves nothing: every change lies in ``[-u, v - u]`` (add) or
``[u - v, u]`` (remove), so ``sensitivity=v`` as for the first scan
(:func:`~skdp.mechanisms.above_threshold`). Every epsilon, the set of collapsed
features, ``q_j`` and the grid are functions of released values and public ones,
fixed before the mechanism they configure runs: adaptive sequential composition
charges ``k epsilon_c + sum_j epsilon_j <= B`` (``epsilon_j = 0`` when skipped), which
the mechanisms record on the ledger and the caller adds to the bounds' share. On a
Poisson subsample the same rows are read as by the first scans (the argument of
:mod:`skdp.utils._bounds_scan`).
"""

import math

import numpy as np

from skdp.mechanisms import geometric
from skdp.utils._bounds_scan import present_sides, scan_counts
from skdp.utils._bounds_shares import margin_quantile

__all__ = [
    "COUNT_SCANS",
    "LEAST_RECORDS",
    "NONZERO_RECORDS",
    "SLACK_SCALES",
    "SPARSE_LIMIT",
    "SPARSE_SHARE",
    "collapsed",
    "rescan_sparse",
]

# a scan point below this on a column at least half zeros: collapsed
SPARSE_LIMIT = 1.0
# the largest share of nonzero values (noisy, of the expected rows) of a collapsed column
SPARSE_SHARE = 0.5
# records times epsilon of the rescan when the budget allows (a tier-1 scan's least)
NONZERO_RECORDS = 45.0
# the second sign histogram's epsilon, in first scans
COUNT_SCANS = 2.0
# noise scales by which the rescan's threshold is lowered (scan_counts' slack)
SLACK_SCALES = 3.0
# the least m~ epsilon_j a rescan is run at: its slack is then at most half of m~
LEAST_RECORDS = 4 * SLACK_SCALES


def collapsed(magnitudes, noisy, expected_rows, empty=None):
    """The features whose tier-1 box collapsed: a boolean array (released values only).

    A scan point below ``SPARSE_LIMIT``, or ``empty`` (both sides judged absent, when
    given), on a feature whose noisy nonzero count is at most ``SPARSE_SHARE`` of
    ``expected_rows``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds_sparse import collapsed
    >>> noisy = np.array([[0, 30], [0, 900], [0, 40]])
    >>> collapsed(np.array([2.0**-30, 2.0**-30, 8.0]), noisy, 1000)
    array([ True, False, False])
    >>> collapsed(np.array([0.2]), np.array([[-133, 359]]), 570)  # noise below 0 on a side
    array([False])
    """
    # a side's noisy count below 0 says "about none", not fewer: counted as 0
    nonzero = np.maximum(np.asarray(noisy), 0).sum(axis=1)
    small = np.asarray(magnitudes) < SPARSE_LIMIT
    if empty is not None:
        small = small | empty
    return small & (nonzero <= SPARSE_SHARE * expected_rows)


def rescan_sparse(found, q, *, scan_epsilon, sign_epsilon, clip_share, budget, expected_rows,
                  rng):  # fmt: skip
    """Magnitudes and sides of the collapsed features from their nonzero values.

    Parameters
    ----------
    found : skdp.utils._bounds_scan.ScanCounts
        Tier 1's counts and releases (:func:`~skdp.utils._bounds_scan.feature_boxes`).
    q : float
        Tier 1's target quantile (before :func:`margin_quantile`).
    scan_epsilon, sign_epsilon : float
        Each feature's first scan and sign histogram epsilons.
    clip_share : float
        Of :func:`~skdp.utils._bounds_scan.present_sides`.
    budget : float
        The most the rescans may spend in all (public); 0: nothing is run.
    expected_rows : float
        The public expected number of rows read.
    rng : numpy.random.Generator

    Returns
    -------
    features : ndarray of int
        The collapsed features (empty: nothing run, nothing drawn, nothing spent).
    magnitudes, negative, positive : ndarray of shape (len(features),)
        Their new ``R_j`` and sides.
    spent : float
        The epsilon the rescans spent (recorded on the ledger by the mechanisms).
    """
    features = np.zeros(0, dtype=np.intp)
    if budget > 0:
        empty = ~found.sides.any(axis=1)
        features = np.flatnonzero(collapsed(found.magnitudes, found.noisy, expected_rows, empty))
    k = features.size
    if not k:
        nothing = np.zeros(0, dtype=bool)
        return features, np.zeros(0), nothing, nothing, 0.0
    count_epsilon = min(COUNT_SCANS * scan_epsilon, budget / (2 * k))
    signs = found.signs[features]
    fresh = geometric(signs, epsilon=count_epsilon, per_row=True, random_state=rng)
    weights = np.array([sign_epsilon, count_epsilon]) ** 2
    combined = (weights[0] * found.noisy[features] + weights[1] * fresh) / weights.sum()
    negative, positive = present_sides(combined, math.sqrt(weights.sum()), clip_share=clip_share)
    nonzero = np.maximum(combined.sum(axis=1), 1.0)
    spends = _scan_spends(nonzero, negative | positive, scan_epsilon, budget - k * count_epsilon)
    magnitudes = found.magnitudes[features]  # a copy (integer indices)
    for i, j in enumerate(features):
        if not spends[i]:  # too few nonzero values to scan: the first, tiny box stands
            continue
        m = int(signs[i].sum())
        zeros = found.n_values - m
        # #{0 < |x| < c}: every zero is below each positive candidate, none below 0
        below = np.maximum(found.below[j] - zeros, 0)
        level = margin_quantile(q, nonzero[i], spends[i])
        point = scan_counts(
            below, m, level, epsilon=spends[i], random_state=rng, slack=SLACK_SCALES
        )
        magnitudes[i] = max(magnitudes[i], point)
    return features, magnitudes, negative, positive, k * count_epsilon + math.fsum(spends)


def _scan_spends(nonzero, present, scan_epsilon, available):
    """Each collapsed feature's scan epsilon (0: not scanned), from released values.

    Greedy by noisy nonzero count, largest first: a feature with a side present takes
    ``max(scan_epsilon, NONZERO_RECORDS / m~)``, or what is left of ``available`` if
    less, and is skipped when that leaves ``m~ epsilon_j < LEAST_RECORDS`` (its scan's
    slack, ``6 / epsilon_j`` values, would then pass half of them and stop at once).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds_sparse import _scan_spends
    >>> _scan_spends(np.array([450.0, 900.0, 40.0]), np.array([True, True, True]), 0.01, 0.3)
    [0.1, 0.05, 0.0]
    """
    spends, left = [0.0] * len(nonzero), available
    for i in np.argsort(-np.asarray(nonzero), kind="stable"):
        spend = float(min(max(scan_epsilon, NONZERO_RECORDS / nonzero[i]), left))
        if present[i] and nonzero[i] * spend >= LEAST_RECORDS:
            spends[i], left = spend, left - spend
    return spends
