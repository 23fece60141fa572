"""JointExp quantiles (Gillenwater, Joseph and Kulesza, ICML 2021) on a public grid.

The shared core of :func:`skdp.tools.quantile` (``method="joint"``) and of the estimators
that need several quantiles of a feature at once (``skdp.preprocessing.MinMaxScaler``):
the joint score's integer ingredients, its add/remove sensitivity, and the draw through
:func:`skdp.mechanisms._joint.joint_exponential`.
"""

import itertools
import math

import numpy as np

from skdp.mechanisms._joint import joint_exponential

__all__ = [
    "MAX_DENOMINATOR",
    "common_denominator",
    "joint_inputs",
    "joint_quantiles",
    "joint_sensitivity",
]

# the joint method puts every q on one denominator: their lcm, or this one if larger
MAX_DENOMINATOR = 10_000


def joint_sensitivity(gaps, denominator):
    """The joint score's add/remove sensitivity, in units of ``1 / denominator`` values.

    ``gaps`` are the numerators of ``w_j = q_j - q_{j-1}`` (``j = 1..m+1``). A value
    added strictly between two outputs moves one block: ``2 (1 - min_j w_j)``. A value
    added at an output's candidate widens the two blocks on either side and can only
    lower their distances, by at most ``max(w, 1 - w)`` each: ``3 - 2 (w_k + w_{k+1})``
    for ``w_k, w_{k+1} <= 1/2``, else ``2 - 2 min(w_k, w_{k+1})``.
    """
    gaps = [int(g) for g in gaps]
    worst = 2 * (denominator - min(gaps))
    for a, b in itertools.pairwise(gaps):
        if 2 * max(a, b) <= denominator:
            worst = max(worst, 3 * denominator - 2 * (a + b))
        else:
            worst = max(worst, 2 * denominator - 2 * min(a, b))
    return worst


def common_denominator(fractions):
    """``(V, numerators)``: the distinct levels as ``a / V``, ``0 < a < V``, increasing."""
    denominator = min(math.lcm(*(f.denominator for f in fractions)), MAX_DENOMINATOR)
    numerators = [min(max(round(f * denominator), 1), denominator - 1) for f in fractions]
    return denominator, numerators


def joint_inputs(values, numerators, denominator, candidates):
    """The joint score's ingredients on ``candidates``, scaled to integers.

    Returns ``(ranks, upper_ranks, targets, total, sensitivity)`` for
    :func:`~skdp.mechanisms._joint.joint_exponential` (strict order): candidate ``c``
    has the rank interval ``V [#{x < c}, #{x <= c}]``, gap ``j`` the target
    ``(a_j - a_{j-1}) n`` (``a_0 = 0``, ``a_{m+1} = V``), the end ``V n``.
    """
    gaps = np.diff([0, *sorted(set(numerators)), denominator])
    ordered = np.sort(values)
    below = np.searchsorted(ordered, candidates, side="left")
    at_or_below = np.searchsorted(ordered, candidates, side="right")
    n = values.size
    return (
        denominator * below,
        denominator * at_or_below,
        n * gaps,
        n * denominator,
        joint_sensitivity(gaps, denominator),
    )


def joint_quantiles(values, fractions, bounds, n_candidates, epsilon, rng):
    """JointExp on the public grid: one joint draw of the distinct levels.

    ``fractions`` are the distinct levels as :class:`fractions.Fraction`, increasing;
    ``n_candidates`` evenly spaced public candidates span ``bounds``; ``values`` are
    clipped to ``bounds``. Returns one estimate per level, ``epsilon``-DP under
    add/remove of one value (:func:`joint_sensitivity`).
    """
    denominator, numerators = common_denominator(fractions)
    candidates = np.linspace(*bounds, n_candidates)
    ranks, upper, targets, total, sensitivity = joint_inputs(
        np.clip(values, *bounds), numerators, denominator, candidates
    )
    index = joint_exponential(
        ranks, targets, total=total, sensitivity=sensitivity, epsilon=epsilon,
        upper_ranks=upper, strict=True, random_state=rng,
    )  # fmt: skip
    found = dict(zip(sorted(set(numerators)), candidates[index], strict=True))
    return [found[a] for a in numerators]
