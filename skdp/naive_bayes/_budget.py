"""GaussianNB's budget: class counts first, then private bounds, then sums and squares.

With declared bounds the budget is split ``SPLIT`` (counts, sums, squares). With
``bounds=None`` the noisy class counts are released first, at ``COUNT_SHARE`` of
epsilon, and serve twice: their total is the noisy record count that sizes the private
bounds (:func:`skdp.utils._bounds.bounds_share`, whose tier and share depend on it), and
they are the counts of the model (:func:`skdp.utils._centred_sums.centred_sums` with
``count=``). Releasing a separate total as well would spend budget on a number the
class counts already give.
"""

import math
from functools import partial

import numpy as np

from skdp.mechanisms import geometric
from skdp.utils._bounds import (
    bounds_share,
    estimate_bounds_spending,
    rescan_budget,
    warn_public_bounds,
)
from skdp.utils._stats import sum_blocks
from skdp.utils.validation import split_budget

__all__ = [
    "COUNT_SHARE",
    "SPLIT",
    "SQUARES_FLOOR_LIMIT",
    "UNIFORM_VARIANCE",
    "counts_then_bounds",
    "released_counts",
    "squares_floor",
]

# declared bounds: shares of epsilon for class counts, sums, squares
SPLIT = {"counts": 0.2, "sums": 0.4, "squares": 0.4}
# bounds=None: the class counts' share of epsilon (released first); the sums and squares
# split what the bounds leave evenly
COUNT_SHARE = 0.1
# the squares are released only when their pooled variance's noise floor is below this
# share of h^2 (module docstring); else every variance is UNIFORM_VARIANCE h^2
SQUARES_FLOOR_LIMIT, UNIFORM_VARIANCE = 0.05, 1 / 3


def released_counts(codes, n_classes, *, epsilon, random_state):
    """Noisy class counts, discrete Laplace (sensitivity 1: a record is in one class);
    ``codes`` may be a dask array (counted where its blocks live)."""
    exact = sum_blocks(partial(np.bincount, minlength=n_classes), codes)
    return geometric(exact, epsilon=epsilon, random_state=random_state)


def squares_floor(count, n_features, epsilon_squares):
    """The noise floor of the pooled variance, in units of ``h^2``: ``sqrt(K) d / (2
    epsilon_squares N~)`` with ``N~`` the total of ``max(count, 1)``.

    Examples
    --------
    >>> from skdp.naive_bayes._budget import squares_floor
    >>> round(squares_floor([33, 35, 31], 4, 0.4), 3)
    0.087
    """
    n = np.maximum(np.asarray(count), 1)
    return float(np.sqrt(n.size) * n_features / (2 * epsilon_squares * n.sum()))


def counts_then_bounds(X, codes, n_classes, epsilon, *, stacklevel, random_state):
    """Release the class counts, then private bounds sized by their total.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite training rows.
    codes : ndarray of shape (n_samples,) of int
        The class index of every row, in ``[0, n_classes)``.
    n_classes : int
        Number of public classes (every class count is noised, empty ones included).
    epsilon : float
        The whole budget of the fit.
    stacklevel : int
        Of the fallback-box warning, counted from the caller.
    random_state : numpy.random.Generator

    Returns
    -------
    count : ndarray of shape (n_classes,) of int
        The noisy class counts (discrete Laplace, sensitivity 1: a record is in one
        class).
    bounds : tuple of ndarray
        ``(lower, upper)`` from :func:`skdp.utils._bounds.estimate_bounds_spending`
        (a collapsed sparse column rescanned, its spend added to ``split["bounds"]``).
    tier : int
        The bounds' tier (3: the public fallback box, nothing spent).
    split : dict
        ``{"n_samples": 0, "bounds", "counts", "sums", "squares"}``, adding up to
        ``epsilon``.
    """
    # COUNT_SHARE of epsilon, rounded so that the rest is exact (Sterbenz: epsilon minus
    # a float in [epsilon / 2, epsilon] is a float): when the squares are not released,
    # the sums alone can then close the ledger on epsilon to the last bit
    epsilon_count = epsilon - (1 - COUNT_SHARE) * epsilon
    count = released_counts(codes, n_classes, epsilon=epsilon_count, random_state=random_state)
    # the total of the released counts: post-processing, the record count of the tiers
    n_noisy = max(int(np.sum(count)), 1)
    share, tier = bounds_share(n_noisy, epsilon, X.shape[1])
    # a sparse column's rescan takes at most SPARSE_BUDGET of what counts and bounds leave
    lower, upper, rescans = estimate_bounds_spending(  # X validated finite (numpy only)
        X, epsilon=share * epsilon, tier=tier, n_noisy=n_noisy,
        sparse_budget=rescan_budget(epsilon, epsilon_count, share * epsilon),
        random_state=random_state, finite=True,
    )  # fmt: skip
    bounds = (lower, upper)
    warn_public_bounds(
        tier, epsilon=epsilon, n_noisy=n_noisy, bounds=bounds, stacklevel=stacklevel
    )
    split = {"n_samples": 0.0, "bounds": share * epsilon + rescans, "counts": epsilon_count}
    rest = epsilon - math.fsum(split.values())
    split.update(split_budget(rest, {"sums": 1, "squares": 1}))
    return count, bounds, tier, split
