"""How a tree fit spends epsilon after the public-input estimates: depth and selections.

``n_levels="auto"`` turns the noisy record count into a number of specializations
(post-processing of the count); :func:`grow` runs MAXGDDP's or DiffGen's selections on
their share of the budget.
"""

import math

from skdp.tree import _diffgen, _maxgddp

# n_levels="auto": h = clip(floor(log2(n_low * eps_counts / (AUTO_RECORDS * K))), 1, AUTO_MAX)
AUTO_RECORDS = 4.0
AUTO_MAX = 12
# a one-sided 95% lower bound of the count: n_low = max(1, n~ - COUNT_MARGIN / epsilon_n)
COUNT_MARGIN = math.log(20)


def auto_levels(n_noisy, epsilon_count, epsilon_counts, n_classes):
    """The number of specializations of ``n_levels="auto"``.

    ``h = clip(floor(log2(n_low * epsilon_counts / (AUTO_RECORDS * K))), 1, AUTO_MAX)``
    with ``n_low = max(1, n_noisy - ln(20) / epsilon_count)``, a 95% lower bound of the
    record count (noise never buys depth), and ``K`` classes. ``h`` binary
    specializations make up to ``2**h`` cells, so the average cell x class count stays
    at least ``AUTO_RECORDS`` times the noise scale ``1 / epsilon_counts`` of a count.
    Calibrated on the worst of 20 seeds on Iris, Wine and Breast cancer (1 to 3 levels
    win up to epsilon = 1, 3 to 6 at epsilon = 5; the seed papers' 5 levels on Iris
    fall to the majority class in the worst seed at epsilon = 1) and Adult (flat
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
    Iris's and Adult's training sets at epsilon = 1 (5% for the count, 30% of the
    rest for the cell counts):

    >>> from skdp.tree._budget import auto_levels
    >>> auto_levels(105, 0.05, 0.285, 3), auto_levels(10500, 0.05, 0.285, 2)
    (1, 8)
    >>> auto_levels(1, 0.05, 0.285, 2)
    1
    """
    n_low = max(1.0, n_noisy - COUNT_MARGIN / epsilon_count)
    scale = n_low * epsilon_counts / (AUTO_RECORDS * max(n_classes, 1))
    return min(max(math.floor(math.log2(scale)), 1), AUTO_MAX)


def grow(estimator, spec, n_levels, selection, rng):
    """Run the selections of ``estimator.algorithm`` on ``selection`` epsilon.

    Returns the number of specializations made (fewer than ``n_levels`` when no
    candidate is left; the unspent budget then goes to the counts).
    """
    if n_levels == 0:
        return 0
    # InfoGain lies in [0, log2 K]: its range bounds the sensitivity (1 for one class)
    sensitivity = 1.0 if estimator.utility == "max" else max(math.log2(spec.n_classes), 1.0)
    options = {"score": estimator.utility, "sensitivity": sensitivity, "noise": estimator.noise}
    if estimator.algorithm == "maxgddp":
        budgets = _maxgddp.level_budgets(selection, n_levels, estimator.budget_schedule)
        return _maxgddp.grow(spec, budgets=budgets, rng=rng, **options)
    n_numeric = sum(a.kind != "categorical" for a in spec.attributes)
    step = selection / (n_numeric + 2 * n_levels)
    return _diffgen.grow(spec, n_levels=n_levels, epsilon_step=step, rng=rng, **options)
