"""The shares of epsilon that private public inputs take: rules on public values and n~.

Every function here reads ``epsilon``, the number of features and the released noisy
record count ``n~`` only, so what it decides is post-processing (see
:mod:`skdp.utils._bounds`, whose module docstring states the budget, and which
re-exports these names).
"""

__all__ = ["bounds_share", "margin_quantile", "norm_share", "rescan_budget"]

MIN_BOUNDS_SHARE, MAX_BOUNDS_SHARE = 0.1, 0.6
MIN_NORM_SHARE, MAX_NORM_SHARE = 0.05, 0.25
# n~ epsilon that one bounds scan needs: 30 keeps early stops below the data rare
# (the gap q n~ epsilon / 2 is ~11 noise units); tier 2 has two scans (one per sign)
TIER1_RECORDS, TIER2_RECORDS = 30.0, 60.0
NORM_RECORDS = 40.0
# Past the data the rank query exceeds its threshold by (1 - q) n records only: with
# (1 - q) n~ epsilon_scan < MARGIN_RECORDS a large threshold draw lets the scan run far
# past the data. The quantile is lowered (down to MIN_QUANTILE) to keep that margin.
MARGIN_RECORDS, MIN_QUANTILE = 6.0, 0.75
# the most the rescans of collapsed sparse columns take of what the estimates leave
SPARSE_BUDGET = 0.5


def bounds_share(n_noisy, epsilon, n_features):
    """``(share, tier)``: the share of epsilon private bounds take, and their tier.

    A function of public values and the noisy count only (:mod:`skdp.utils._bounds`).

    Examples
    --------
    >>> from skdp.utils._bounds import bounds_share
    >>> bounds_share(30000, 1.0, 6), bounds_share(105, 1.0, 4), bounds_share(10, 0.1, 4)
    ((0.1, 1), (0.5714285714285714, 2), (0.0, 3))
    """
    scale = max(n_noisy, 1) * epsilon
    per_feature = 2 * n_features * TIER1_RECORDS / scale
    if per_feature <= MAX_BOUNDS_SHARE:
        return max(per_feature, MIN_BOUNDS_SHARE), 1
    box = TIER2_RECORDS / scale
    if box <= MAX_BOUNDS_SHARE:
        return max(box, MIN_BOUNDS_SHARE), 2
    return 0.0, 3


def norm_share(n_noisy, epsilon):
    """The share of epsilon a private row-norm bound takes (:mod:`skdp.utils._bounds`)."""
    share = NORM_RECORDS / (max(n_noisy, 1) * epsilon)
    return min(max(share, MIN_NORM_SHARE), MAX_NORM_SHARE)


def margin_quantile(q, n_noisy, epsilon):
    """``q`` lowered so that ``(1 - q) n~ epsilon >= MARGIN_RECORDS`` (not below 0.75).

    A function of public values and the noisy count only; ``n_noisy=None`` keeps ``q``.

    Examples
    --------
    >>> from skdp.utils._bounds import margin_quantile
    >>> margin_quantile(0.98, 30000, 0.01), margin_quantile(0.98, 105, 0.3)
    (0.98, 0.8095238095238095)
    """
    if n_noisy is None:
        return q
    lowered = 1 - MARGIN_RECORDS / (max(n_noisy, 1) * epsilon)
    return min(q, max(lowered, MIN_QUANTILE))


def rescan_budget(epsilon, *spent, share=SPARSE_BUDGET):
    """The most the rescans of collapsed sparse columns may spend
    (:mod:`skdp.utils._bounds_sparse`): ``share`` of what ``epsilon`` leaves after the
    shares ``spent``, subtracted in order (public values and ``n~`` only).

    Examples
    --------
    >>> from skdp.utils._bounds import rescan_budget
    >>> rescan_budget(1.0, 0.25, 0.25), rescan_budget(1.0, 0.25, 0.25, share=0.1)
    (0.25, 0.05)
    """
    left = epsilon
    for part in spent:
        left -= part
    return share * left
