"""Private public inputs: a record count, feature bounds and a row-norm bound.

What an estimator spends when the user leaves ``bounds=None`` or ``data_norm=None``
(or an ``"auto"`` rule needs the number of records). Every estimate is a private
quantile (:mod:`skdp.utils._quantiles`) or a noisy count, with a share of epsilon
that depends only on ``epsilon``, the number of features and the already released
noisy count, and every estimate always returns finite, ordered values: there is no
data-dependent failure, only a warning when the budget is too small to learn
anything and a public fallback is used.

Budget (add/remove neighbours; all shares post-process earlier releases):

* ``n_samples``: ``COUNT_SHARE`` (5%) of epsilon, the noisy count ``n~`` (sensitivity 1);
* ``bounds``: a share ``s`` of epsilon, by tier, for ``d`` features:

  1. ``s1 = 2 d TIER1_RECORDS / (n~ epsilon) <= MAX_BOUNDS_SHARE``: per feature
     ``j``, ``s epsilon / d`` with ``s = max(s1, MIN_BOUNDS_SHARE)``: an upward scan
     for the ``BOUNDS_QUANTILE`` quantile ``R_j`` of ``|x_j|`` (``1 - SIGN_SHARE`` of
     it) and a noisy histogram of the signs ``(#{x_j < 0}, #{x_j > 0})`` (the rest;
     L1 sensitivity 1, a record is in one cell at most). The box is ``[-R_j, R_j]``,
     with a side set to 0 when its noisy count is negligible
     (:func:`skdp.utils._bounds_scan.sign_sides`).
     Scanning ``|x_j|`` rather than ``x_j`` and ``-x_j`` keeps the scan's gap at its
     full ``q n`` on centred data: upwards from 0 on ``x_j`` the half of the values
     below 0 already count, and the scan stopped near 0 on most runs;
  2. else ``s2 = TIER2_RECORDS / (n~ epsilon) <= MAX_BOUNDS_SHARE``: one box for every
     feature, ``[-R-, R+]`` with ``R+`` the quantile of ``max_j max(x_ij, 0)`` and
     ``R-`` that of ``max_j max(-x_ij, 0)`` (one record moves each statistic by one
     value), ``s epsilon / 2`` each with ``s = max(s2, MIN_BOUNDS_SHARE)``;
  3. else nothing is spent and the box is ``[-FALLBACK_BOUND, FALLBACK_BOUND]``, with a
     :class:`~skdp.exceptions.PublicBoundsWarning` asking for ``bounds=`` (tier 2 with
     several features warns too: one box serves features of every scale).

  Each scan targets the ``BOUNDS_QUANTILE`` (98%) point, lowered by
  :func:`margin_quantile` (not below 75%) when its ``n~ epsilon_scan`` is small, so that
  a large threshold draw cannot carry it far past the data.

* sparse columns (:mod:`skdp.utils._bounds_sparse`): at tier 1, a feature whose scan
  stopped below 1 while its noisy signs count at most half of the rows as nonzero
  (a released fact) gets a second sign histogram and a scan of its nonzero values,
  charged on top of the bounds' share (added to ``epsilon_split["bounds"]``), at
  most ``SPARSE_BUDGET`` (half) of what the count, the bounds and the norm leave;
  nothing is drawn or spent when no column collapses.

* ``data_norm``: ``clip(NORM_RECORDS / (n~ epsilon), 0.05, 0.25)`` of epsilon on the
  ``NORM_QUANTILE`` (90%) quantile of the row L2 norms (one scan, sensitivity one
  value), lowered the same way.

On many rows (``n~`` large against what a scan needs) the bounds and norm scans read a
Poisson subsample, with a public rate from ``n~`` and the scan's epsilon, and charge
their full share (:mod:`skdp.utils._bounds_scan`: the privacy argument).
"""

import math
from dataclasses import dataclass, field

import numpy as np

from skdp.mechanisms import check_random_state, geometric
from skdp.utils._bounds_scan import (
    as_numeric,
    feature_boxes,
    poisson_rows,
    poisson_subsample,
    sided_box,
    subsample_rate,
)
from skdp.utils._bounds_shares import (  # noqa: F401 (the rules' constants, re-exported)
    MARGIN_RECORDS,
    MAX_BOUNDS_SHARE,
    MAX_NORM_SHARE,
    MIN_BOUNDS_SHARE,
    MIN_NORM_SHARE,
    MIN_QUANTILE,
    NORM_RECORDS,
    SPARSE_BUDGET,
    TIER1_RECORDS,
    TIER2_RECORDS,
    bounds_share,
    margin_quantile,
    norm_share,
    rescan_budget,
)
from skdp.utils._bounds_sparse import rescan_sparse
from skdp.utils._bounds_warn import FALLBACK_BOUND, warn_public_bounds
from skdp.utils._quantiles import scan_quantile
from skdp.utils.validation import check_epsilon

__all__ = [
    "BOUNDS_QUANTILE",
    "COUNT_SHARE",
    "FALLBACK_BOUND",
    "NORM_QUANTILE",
    "PublicEstimates",
    "bounds_share",
    "estimate_bounds",
    "estimate_bounds_spending",
    "estimate_public_inputs",
    "margin_quantile",
    "noisy_count",
    "norm_share",
    "rescan_budget",
    "warn_public_bounds",
]

COUNT_SHARE = 0.05
BOUNDS_QUANTILE = 0.98
NORM_QUANTILE = 0.9
# tier 1: the share of a feature's budget its sign histogram takes
SIGN_SHARE = 0.25
# the narrowest box: wider than any grid step near zero
_MIN_WIDTH = 2.0**-30


def noisy_count(n_samples, *, epsilon, random_state=None):
    """``max(n + discrete Laplace(1 / epsilon), 1)``: epsilon-DP (sensitivity 1).

    Examples
    --------
    >>> from skdp.utils._bounds import noisy_count
    >>> noisy_count(1000, epsilon=0.05, random_state=0)
    1012
    """
    return max(int(geometric(int(n_samples), epsilon=epsilon, random_state=random_state)), 1)


def _upper(values, epsilon, n_noisy, rng):
    q = margin_quantile(BOUNDS_QUANTILE, n_noisy, epsilon)
    return scan_quantile(values, q, epsilon=epsilon, random_state=rng)


def _expected(n_noisy, rate):
    """The subsample's expected size ``rate n~`` (public), for :func:`margin_quantile`."""
    return None if n_noisy is None else rate * max(n_noisy, 1)


def estimate_bounds(X, *, epsilon, tier=1, n_noisy=None, random_state=None, finite=False):
    """Per-feature ``(lower, upper)`` from private high quantiles, never failing.

    ``tier=1``: for each of the ``d`` features, ``epsilon / d``: a
    :func:`~skdp.utils._quantiles.scan_quantile` of the ``BOUNDS_QUANTILE`` (98%)
    quantile of ``|x_j|`` upwards from 0 (the quantile lowered by
    :func:`margin_quantile` when ``n_noisy`` is given and the scan is small) and a
    noisy sign histogram that drops a side holding too little data (module
    docstring). ``tier=2``: one box for all
    features (module docstring), ``epsilon / 2`` per side. ``tier=3``: the public
    fallback box, no spend.

    With ``n_noisy`` above what a scan needs, the scans and histograms read a Poisson
    subsample of the rows, each kept with the public probability
    :func:`~skdp.utils._bounds_scan.subsample_rate` of ``n_noisy`` and the scan's
    epsilon (at least ``2**16`` rows and ``1000 / epsilon_scan``: 133,333 rows for an
    estimator at ``epsilon = 1`` on 10 features, whose bounds take 10% and each scan
    ``0.0075``); the quantile rule then reads the expected size
    ``rate n~``. One pass over the rows read gives every column's scan ranks and
    sign counts (:func:`~skdp.utils._bounds_counts.feature_counts`, no sort).

    Privacy: ``epsilon``-DP under add/remove of one row (sequential composition of the
    scans and histograms; one row moves each scanned statistic by one value and each
    sign histogram by one count). The candidates are
    public: ``0`` then ``2**(k/4)`` for ``k = -120..248``. The subsample keeps this:
    its rate is a function of the released ``n~``, ``epsilon`` and ``d`` only, fixed
    before it is drawn, and with the coins of shared rows coupled, neighbours give
    equal or neighbouring subsamples, so a mechanism that is ``epsilon``-DP on its
    input is ``epsilon``-DP on the subsample (proof in :mod:`skdp.utils._bounds_scan`;
    the full ``epsilon`` is charged, no amplification is claimed). The subsample's
    size enters only the scans' and histograms' own queries.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or (n_samples,)
        Finite values.
    epsilon : float
        The budget this estimate spends (unused at tier 3).
    tier : {1, 2, 3}, default=1
    n_noisy : int, optional
        The released noisy record count, for :func:`margin_quantile` and the
        subsample's rate (None: every row is read).
    random_state : None, int or numpy.random.Generator, default=None
    finite : bool, default=False
        True: the caller has checked ``X`` finite (validated input), and the check
        here (two passes over ``X``, 4 ms at 10^6 x 10) is skipped.

    Returns
    -------
    lower, upper : ndarray of shape (n_features,)
        Grid points, ``lower <= 0 <= upper`` and ``upper - lower >= 2**-30``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds import estimate_bounds
    >>> ages = np.random.default_rng(0).integers(17, 91, size=5000).astype(float)
    >>> estimate_bounds(ages, epsilon=0.5, random_state=0)
    (array([-0.]), array([90.50966799]))
    """
    return _bounds_and_rows(X, epsilon, tier, n_noisy, random_state, finite)[:2]


def estimate_bounds_spending(X, *, epsilon, tier, n_noisy, sparse_budget, random_state=None,
                             finite=False):  # fmt: skip
    """:func:`estimate_bounds` with the rescans of collapsed sparse columns.

    For a caller that splits its own budget: at tier 1, a feature whose box collapsed
    on a column of mostly zeros (:mod:`skdp.utils._bounds_sparse`, decided from
    released values) is rescanned over its nonzero values, spending at most
    ``sparse_budget`` on top of ``epsilon``; the caller adds the ``spent`` to its
    bounds' share. Without such a column it draws and returns exactly what
    :func:`estimate_bounds` does, with ``spent = 0``.

    Returns
    -------
    lower, upper : ndarray of shape (n_features,)
    spent : float
        The epsilon the rescans spent (recorded on the ledger by their mechanisms).
    """
    lower, upper, _, _, spent = _bounds_and_rows(  # tiers 2 and 3 rescan nothing
        X, epsilon, tier, n_noisy, random_state, finite, sparse_budget=sparse_budget
    )
    return lower, upper, spent


def _bounds_and_rows(X, epsilon, tier, n_noisy, random_state, finite, sparse_budget=0.0):
    """:func:`estimate_bounds`, the rows its tier-1 scans read (None: every row, or
    another tier), their rate (:attr:`PublicEstimates.rows`) and the epsilon spent on
    top of ``epsilon`` by the rescans of collapsed sparse columns, at most
    ``sparse_budget`` (:mod:`skdp.utils._bounds_sparse`; ``n_noisy`` needed)."""
    X = as_numeric(X)  # integers stay integers: blocks are converted where read
    X = X.reshape(-1, 1) if X.ndim == 1 else X
    checked = finite or not X.size or X.dtype.kind != "f"
    if not (checked or (np.isfinite(X.min()) and np.isfinite(X.max()))):
        raise ValueError("X must be finite to estimate its bounds")  # nan propagates
    d, rng, rows, rate, spent = X.shape[1], check_random_state(random_state), None, 1.0, 0.0
    if tier == 3:
        lower, upper = np.full(d, -FALLBACK_BOUND), np.full(d, FALLBACK_BOUND)
    elif tier == 2:
        epsilon = check_epsilon(epsilon)
        rate = subsample_rate(n_noisy, epsilon / 2)
        X, n_noisy = poisson_subsample(X, rate, rng), _expected(n_noisy, rate)
        X = X.astype(float, copy=False)  # few rows at tier 2 (and -X of unsigned wraps)
        if X.shape[0]:
            positive, negative = np.maximum(X, 0).max(axis=1), np.maximum(-X, 0).max(axis=1)
        else:
            positive = negative = np.zeros(0)
        upper = np.full(d, _upper(positive, epsilon / 2, n_noisy, rng))
        lower = -np.full(d, _upper(negative, epsilon / 2, n_noisy, rng))
    elif tier == 1:
        epsilon = check_epsilon(epsilon)
        scan, sign = (1 - SIGN_SHARE) * epsilon / d, SIGN_SHARE * epsilon / d
        rate = subsample_rate(n_noisy, scan)
        rows = poisson_rows(X.shape[0], rate, rng)
        q = margin_quantile(BOUNDS_QUANTILE, _expected(n_noisy, rate), scan)
        lower, upper, found = feature_boxes(
            X, rows, q, scan_epsilon=scan, sign_epsilon=sign, clip_share=1 - BOUNDS_QUANTILE,
            rng=rng,
        )  # fmt: skip
        features, magnitudes, negative, positive, spent = rescan_sparse(
            found, BOUNDS_QUANTILE, scan_epsilon=scan, sign_epsilon=sign,
            clip_share=1 - BOUNDS_QUANTILE, budget=sparse_budget,
            expected_rows=_expected(n_noisy, rate), rng=rng,
        )  # fmt: skip
        lower[features], upper[features] = sided_box(magnitudes, negative, positive)
    else:
        raise ValueError(f"tier must be 1, 2 or 3, got {tier!r}")
    narrow = upper - lower < _MIN_WIDTH
    lower, upper = (
        np.where(narrow, lower - _MIN_WIDTH, lower),
        np.where(narrow, upper + _MIN_WIDTH, upper),
    )
    return lower, upper, rows, rate if rows is not None else 1.0, spent


@dataclass
class PublicEstimates:
    """What :func:`estimate_public_inputs` released, and the epsilon left.

    Attributes
    ----------
    n_samples : int or None
        The noisy record count (>= 1), or None when not estimated.
    bounds : tuple of ndarray or None
        ``(lower, upper)`` of the columns given, or None.
    bounds_tier : int or None
        1, 2 or 3 (module docstring).
    data_norm : float or None
        The private row-norm bound, or None.
    rows : ndarray of int or None
        The increasing indices of the Poisson subsample that tier 1's scans read
        (public coins, rate ``rows_rate``), None when they read every row (or none).
    rows_rate : float
        The subsample's public rate (1: every row).
    epsilon_split : dict
        ``{"n_samples", "bounds", "data_norm"}``: the epsilon each took (0 if unused).
    remaining : float
        ``epsilon`` minus what the estimates spent: the estimator's own budget.
    """

    n_samples: int | None = None
    bounds: tuple | None = None
    bounds_tier: int | None = None
    data_norm: float | None = None
    rows: np.ndarray | None = None
    rows_rate: float = 1.0
    epsilon_split: dict = field(default_factory=dict)
    remaining: float = 0.0


def estimate_public_inputs(
    epsilon,
    *,
    n_samples,
    columns=None,
    row_norms=None,
    need_count=False,
    count_share=COUNT_SHARE,
    stacklevel=2,
    random_state=None,
    finite=False,
):
    """Estimate privately what the user did not declare, and say what is left.

    Releases the noisy count first (when anything is estimated or ``need_count``),
    then bounds of ``columns`` (tiered, module docstring), then the
    ``NORM_QUANTILE`` quantile of ``row_norms``. Each share is a function of
    ``epsilon``, the number of columns and the noisy count.

    Privacy: under add/remove of one record, the count has sensitivity 1, each
    bound and norm scan is one AboveThreshold over one value per record: the spends
    (recorded by the mechanisms) add up to ``epsilon - remaining``.

    Parameters
    ----------
    epsilon : float
        The estimator's whole budget.
    n_samples : int
        The exact number of records, used only inside the noisy count.
    columns : ndarray of shape (n_samples, n_columns), optional
        Values to bound.
    row_norms : ndarray of shape (n_samples,), optional
        Row L2 norms to bound.
    need_count : bool, default=False
        Release the noisy count even if nothing else is estimated.
    count_share : float, default=COUNT_SHARE
        The share of ``epsilon`` the noisy count takes (a public constant of the
        calling estimator).
    stacklevel : int, default=2
        Of the fallback warning.
    random_state : numpy.random.Generator, int or None
    finite : bool, default=False
        ``columns`` already checked finite by the caller (:func:`estimate_bounds`).

    Returns
    -------
    PublicEstimates

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._bounds import estimate_public_inputs
    >>> X = np.random.default_rng(0).uniform(0, 10, size=(5000, 2))
    >>> est = estimate_public_inputs(1.0, n_samples=5000, columns=X, random_state=0)
    >>> est.bounds_tier, est.bounds[1].round(1), round(est.remaining, 2)
    (1, array([11.3, 11.3]), 0.85)
    """
    epsilon, rng = check_epsilon(epsilon), check_random_state(random_state)
    split = {"n_samples": 0.0, "bounds": 0.0, "data_norm": 0.0}
    out = PublicEstimates(epsilon_split=split)
    if columns is None and row_norms is None and not need_count:
        out.remaining = epsilon
        return out
    split["n_samples"] = count_share * epsilon
    out.n_samples = noisy_count(n_samples, epsilon=split["n_samples"], random_state=rng)
    norm = 0.0 if row_norms is None else norm_share(out.n_samples, epsilon) * epsilon
    if columns is not None:
        columns = as_numeric(columns)
        columns = columns.reshape(-1, 1) if columns.ndim == 1 else columns
        share, out.bounds_tier = bounds_share(out.n_samples, epsilon, columns.shape[1])
        split["bounds"] = share * epsilon
        lower, upper, out.rows, out.rows_rate, spent = _bounds_and_rows(
            columns, split["bounds"], out.bounds_tier, out.n_samples, rng, finite,
            sparse_budget=rescan_budget(epsilon, split["n_samples"], split["bounds"], norm),
        )  # fmt: skip
        if spent:  # a sparse column collapsed (:mod:`skdp.utils._bounds_sparse`)
            split["bounds"] += spent
        out.bounds = (lower, upper)
        warn_public_bounds(
            out.bounds_tier,
            epsilon=epsilon,
            n_noisy=out.n_samples,
            bounds=out.bounds,
            stacklevel=stacklevel,
        )
    if row_norms is not None:
        split["data_norm"] = norm
        rate = subsample_rate(out.n_samples, split["data_norm"])
        row_norms = poisson_subsample(np.asarray(row_norms, dtype=float), rate, rng)
        q = margin_quantile(NORM_QUANTILE, _expected(out.n_samples, rate), split["data_norm"])
        out.data_norm = max(
            scan_quantile(row_norms, q, epsilon=split["data_norm"], random_state=rng),
            _MIN_WIDTH,
        )
    out.remaining = epsilon - math.fsum(split.values())
    return out
