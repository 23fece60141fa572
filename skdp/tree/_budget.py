"""How a tree fit spends epsilon after the noisy count: depth, selections and counts.

Every fit releases a noisy record count ``n~``; :func:`plan` turns it and the public
budget into the number of specializations and how they are chosen (post-processing of
the count); :func:`grow` runs MAXGDDP's or DiffGen's selections on their share. When
the budget is too small for any selection to beat chance, the fit grows a tree of
public cuts instead (:mod:`skdp.tree._random_cuts`).
"""

import math
from dataclasses import dataclass

import numpy as np

from skdp.tree import _diffgen, _lookahead, _maxgddp
from skdp.tree._random_cuts import free_depth

# n_levels="auto": h = clip(floor(log2(n_low * eps_counts / (AUTO_RECORDS * K))), 1, AUTO_MAX)
AUTO_RECORDS = 4.0
AUTO_MAX = 12
# a one-sided 95% lower bound of the count: n_low = max(1, n~ - COUNT_MARGIN / epsilon_n)
COUNT_MARGIN = math.log(20)
# a selection level needs about this many "records x epsilon" (n_est * its epsilon) to
# pick a split that is worth its cells: the selection-limited depth is
# floor(n_est * eps_selection / LEVEL_RECORDS)
LEVEL_RECORDS = 15.0
# below this n_est * epsilon no selection beats chance: a tree of public cuts, all the
# budget on its leaf labels (skdp.tree._random_cuts)
FREE_BELOW = 25.0
# The depth of that tree (skdp.tree._random_cuts.free_depth). Binary cuts: on Iris at
# epsilon 0.1 (60 seeds) 3 levels score 0.616, 2 levels 0.607, a depth from n~ 0.573
# (n~ is pure noise there: its scale is 20 / epsilon). With thresholds drawn from the
# middle half of each interval (1000 seeds): 2 levels 0.615, 3 levels 0.637, 4 levels
# 0.627. Three or more classes take cuts into three pieces, 2 levels deep.
# A release of at most this many noisy counts (two cells of four classes, four of two)
# keeps every positive count (noise_floor). Breast cancer at epsilon 0.1 (one cut, 2
# cells x 2 classes), 100 seeds: 0.755 -> 0.771; one seed had the floor drop a cell's
# every count (true 228 benign, noisy 26 under a floor of 70), and the tree on the
# release then called all rows malignant (0.37). Breast cancer at 0.5 (2 cuts, 8
# counts) 0.886 / 0.885, Iris at 1 (12 counts, unchanged) 0.931.
UNFLOORED_COUNTS = 8
# The tree's noisy count takes COUNT_SHARE_TREE of epsilon, twice the 5% of the other
# estimators: the count decides between the selected regime and the public tree, and at
# 5% (noise scale 20 / epsilon records) 11% of Iris fits at epsilon 0.1 went to the
# selected regime, where noise-made cuts and counts score at chance. Iris, 200 seeds,
# mean accuracy at epsilon 0.1 / 0.5 / 1: 5% gives 0.580 / 0.797 / 0.899, 10% gives
# 0.594 / 0.850 / 0.901. A more cautious test at 5% (n~ - m / eps_n, m = 2 / 3) trades
# the larger budgets away: 0.593 / 0.748 / 0.885 and 0.605 / 0.725 / 0.855.
COUNT_SHARE_TREE = 0.10
# When the count rule of n_levels="auto" (auto_levels) allows fewer specializations than
# the K - 1 that K classes need, the floor's cells get counts too noisy for their size:
# the counts then take at least this share of the epsilon left after the count. Iris at
# epsilon 0.5, 20 seeds: the counts at 0.3 (0.132 epsilon, noise scale 7.6 on cells of
# ~33 records) lost two cells' classes on one seed (0.28); at 0.5: mean 0.829 -> 0.845,
# worst 0.28 -> 0.54; epsilon 0.1 / 1: 0.645 / 0.933 -> 0.670 / 0.935, worst 0.34 / 0.84
# -> 0.44 / 0.90; 2 and 5 unchanged. Wine (20 seeds), epsilon 0.5 / 1: 0.791 / 0.807
# -> 0.773 / 0.832, worst 0.617 / 0.767 -> 0.600 / 0.767; 0.1, 2, 5 within 0.006. Two
# classes never trigger it (the floor is 1). Not when a numeric column is split on the
# scale-free grid (no declared bounds): its selections choose among hundreds of points
# and need their share (the default DPDecisionTree() at epsilon 1, 30 seeds: Iris
# 0.913 -> 0.819, Wine 0.756 -> 0.690 with the raise).
FLOOR_COUNTS_SHARE = 0.5


@dataclass
class Plan:
    """What :func:`plan` decides: ``n_levels`` specializations, selected (``free`` False)
    on ``selection`` epsilon, or a tree of public cuts ``n_levels`` deep (``free`` True)."""

    n_levels: int
    selection: float
    free: bool
    n_est: float


def auto_levels(n_noisy, epsilon_count, epsilon_counts, n_classes):
    """The number of specializations of ``n_levels="auto"``.

    ``h = clip(floor(log2(n_low * epsilon_counts / (AUTO_RECORDS * K))), 1, AUTO_MAX)``
    with ``n_low = max(1, n_noisy - ln(20) / epsilon_count)``, a 95% lower bound of the
    record count (noise never buys depth), and ``K`` classes. ``h`` binary
    specializations make up to ``2**h`` cells, so the average cell x class count stays
    at least ``AUTO_RECORDS`` times the noise scale ``1 / epsilon_counts`` of a count.
    Calibrated on the worst of 20 seeds on Iris, Wine and Breast cancer and Adult (flat
    between 5 and 13 levels). Monotone in ``n_noisy`` and defined for every count >= 1.

    Parameters
    ----------
    n_noisy : int
        The released noisy count.
    epsilon_count : float
        The epsilon the count took.
    epsilon_counts : float
        The epsilon of the cell counts.
    n_classes : int

    Returns
    -------
    int

    Examples
    --------
    Iris's and Adult's training sets at epsilon = 1 (``COUNT_SHARE_TREE`` = 10% for
    the count, 30% of the rest for the cell counts):

    >>> from skdp.tree._budget import auto_levels
    >>> auto_levels(105, 0.1, 0.27, 3), auto_levels(10500, 0.1, 0.27, 2)
    (1, 8)
    >>> auto_levels(1, 0.1, 0.27, 2)
    1
    """
    n_low = max(1.0, n_noisy - COUNT_MARGIN / epsilon_count)
    scale = n_low * epsilon_counts / (AUTO_RECORDS * max(n_classes, 1))
    return min(max(math.floor(math.log2(scale)), 1), AUTO_MAX)


def plan(n_levels, n_noisy, epsilon_count, remaining, leaf_budget, n_classes,
         floor_counts=FLOOR_COUNTS_SHARE):  # fmt: skip
    """The depth and the selection budget, from public values and the noisy count only.

    ``n_est = max(1, n~ - 1 / epsilon_count)`` (the count less one noise scale). With
    ``S = remaining * (1 - leaf_budget)`` the selection budget:

    * ``n_est * remaining < FREE_BELOW``: no selection can tell splits apart (a split
      worth making moves a fraction of ``n_est`` records, less than the selection
      noise), so the tree is grown on public cuts near the middles, node by node, at
      random (:mod:`skdp.tree._random_cuts`: 3 levels of binary cuts, or 2 levels of
      three-piece cuts for ``K >= 3`` classes, at most an int ``n_levels``) and all of
      ``remaining`` goes to its leaf labels;
    * otherwise ``min(cap, max(K - 1, floor(n_est * S / LEVEL_RECORDS)))`` selected
      levels on ``S``: each keeps about ``LEVEL_RECORDS / n_est`` epsilon, and never
      fewer than the ``K - 1`` cuts that ``K`` classes need to be told apart (``n~``
      at 5 or 10% of epsilon is too imprecise to cut the depth below that: on Iris at
      epsilon 1 its noise alone left one level on some seeds).

    ``cap`` is ``n_levels`` (an int is an upper bound) or, for ``"auto"``, the count
    rule :func:`auto_levels` raised to ``K - 1`` (the default constructor on Iris at
    epsilon 1: one level and 0.646, two and 0.897). When that raise happens the counts
    take at least ``floor_counts`` of ``remaining`` (``leaf_budget`` is raised to it),
    so ``S`` shrinks: the ``K - 1`` levels' cells need less noisy counts.

    Parameters
    ----------
    n_levels : int or "auto"
    n_noisy : int
        The released noisy count.
    epsilon_count, remaining : float
        The epsilon of the count; the epsilon left after it.
    leaf_budget : float
        Share of ``remaining`` for the counts.
    n_classes : int
    floor_counts : float, default=FLOOR_COUNTS_SHARE
        The least share of the counts when the ``K - 1`` floor raises the depth (0:
        ``leaf_budget`` as given; the fit passes 0 when a column has no bounds).

    Returns
    -------
    Plan

    Examples
    --------
    Iris's 100 training rows at epsilon 0.1 and 1 (10% for the count):

    >>> from skdp.tree._budget import plan
    >>> plan(5, 100, 0.01, 0.09, 0.3, 3)
    Plan(n_levels=2, selection=0.0, free=True, n_est=1.0)
    >>> plan(5, 105, 0.1, 0.9, 0.3, 3).n_levels
    3
    """
    n_est = max(1.0, n_noisy - 1.0 / epsilon_count)
    # K classes need K - 1 global cuts to be told apart: an imprecise count never
    # plans fewer (on Iris at epsilon 1 a low count left one level: accuracy 0.62)
    floor = max(1, n_classes - 1)
    if n_levels == "auto":
        cap = auto_levels(n_noisy, epsilon_count, remaining * leaf_budget, n_classes)
        if cap < floor:  # the floor's cells get counts of at least FLOOR_COUNTS_SHARE
            cap, leaf_budget = floor, max(leaf_budget, floor_counts)
    else:
        cap = int(n_levels)
    selection = remaining * (1 - leaf_budget)
    if n_est * remaining < FREE_BELOW:
        depth = free_depth(n_classes)
        depth = depth if n_levels == "auto" else min(cap, depth)
        return Plan(depth, 0.0, True, n_est)
    levels = max(floor, math.floor(n_est * selection / LEVEL_RECORDS))
    return Plan(min(cap, levels), selection, False, n_est)


def grow(estimator, spec, the_plan, rng):
    """Run the selections of ``estimator.algorithm`` on ``the_plan.selection`` epsilon.

    Returns the number of specializations made (fewer than planned when no candidate is
    left; the unspent budget then goes to the counts).
    """
    n_levels, selection = the_plan.n_levels, the_plan.selection
    if n_levels == 0:
        return 0
    # InfoGain lies in [0, log2 K]: its range bounds the sensitivity (1 for one class)
    sensitivity = 1.0 if estimator.utility == "max" else max(math.log2(spec.n_classes), 1.0)
    options = {"score": estimator.utility, "sensitivity": sensitivity, "noise": estimator.noise}
    if estimator.algorithm == "maxgddp":
        budgets = _maxgddp.level_budgets(selection, n_levels, estimator.budget_schedule)

        def pair(n_candidates):
            return _lookahead.affordable(n_candidates, the_plan.n_est)

        return _maxgddp.grow(spec, budgets=budgets, rng=rng, pair=pair, **options)
    n_numeric = sum(a.kind != "categorical" for a in spec.attributes)
    step = selection / (n_numeric + 2 * n_levels)
    return _diffgen.grow(spec, n_levels=n_levels, epsilon_step=step, rng=rng, **options)


def noise_floor(counts_epsilon, n_counts, n_est):
    """Counts at or below this are taken as empty by the classifiers on the release.

    ``max(2, ln(n_counts) / 2) / counts_epsilon`` (about the largest noise among
    ``n_counts`` counts), capped at the average count ``n_est / n_counts`` so that a
    small release is not emptied whole; 0 (every positive count kept) for a release of
    at most ``UNFLOORED_COUNTS`` counts. The floor keeps the noise of many empty cells
    from swamping a large release; in a release of one or two cuts the noise adds a few
    counts' worth at most, while a floor can leave a cell with no class at all, which
    the tree on the release then gives its neighbour's class.
    """
    if n_counts <= UNFLOORED_COUNTS:
        return 0.0
    floor = max(2.0, np.log(n_counts) / 2) / counts_epsilon
    return min(floor, n_est / n_counts)
