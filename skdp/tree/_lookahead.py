"""MAXGDDP's first two specializations chosen as one pair (small public problems).

The greedy Max score rates a specialization by the records the cell-majority rule gets
right right after it. On Iris many first splits score almost alike (setosa off: 67,
petal length at 4.75: 66) and the greedy choice often leaves a poor second step. When
the problem is small, the first two levels are therefore selected at once: every pair
``(c, c')`` of a candidate ``c`` of the root cuts and a candidate ``c'`` of the cuts
after ``c`` is scored by ``Max(D, c then c')``, the records the cell-majority rule gets
right after both, and one report-noisy-max on the budget of the two levels releases
the pair.

Privacy (add/remove one record): the pair set is a function of the released cuts, the
public grid and the ``max_cells`` cap only, never of the records. ``Max(D, cuts)`` is
a sum over cells of the majority count; one added record raises exactly one cell x
class count by one, so every pair's score rises by 0 or 1 and none falls (removal:
falls by 0 or 1). Sensitivity 1, monotone: :func:`skdp.mechanisms.report_noisy_max`
with ``monotonic=True`` on ``epsilon_1 + epsilon_2`` is ``(epsilon_1 + epsilon_2)``-DP,
the same spend as the two greedy levels it replaces (sequential composition).

Tried and dropped (Iris, 20 seeds): scoring each first candidate by the best Max after
one more step, ``max_c' Max(D, c then c')`` (also sensitivity 1 and monotone) and
selecting it alone. A useless first cut followed by the best second one scores almost
as high as a good one, the scores flatten and the noise picks useless cuts (epsilon 2:
0.925 -> 0.895). The pair score does not flatten: the released pair is the one scored.

Cost: one pass over the records and one scoring of the next candidates per first
candidate, about ``m**2`` score evaluations for ``m`` candidates. The pair is chosen
only when ``m**2 * n_est <= PAIR_LIMIT`` (public: ``m`` is a function of the
public cuts, ``n_est`` of the noisy record count; Iris: 60 candidates, 100 rows,
3.6e5; Adult never). A dask fit follows the same rule (so that it equals the numpy
fit), reading its blocks once per first candidate: the rule keeps that to small data.
"""

import copy

import numpy as np

PAIR_LIMIT = 2e7


def affordable(n_candidates, n_est):
    """Whether the first two levels are selected as a pair (public values only).

    Examples
    --------
    >>> from skdp.tree._lookahead import affordable
    >>> affordable(60, 100.0), affordable(300, 30000.0)
    (True, False)
    """
    return n_candidates**2 * max(n_est, 1.0) <= PAIR_LIMIT


def pair_candidates(specializer, found, candidates):
    """Every pair ``(c, c')`` of two successive specializations and its Max score.

    Parameters
    ----------
    specializer : Specializer
        At the current (released) cuts; not changed.
    found : list
        The candidates ``c`` of the current cuts, ``(attribute, concept, split)``.
    candidates : callable
        ``candidates(specializer) -> (list, scores)``, the candidates and Max scores
        of a specializer's cuts (:func:`skdp.tree._maxgddp.candidates`).

    Returns
    -------
    pairs : list of (tuple, tuple)
    scores : ndarray
        ``Max(D, c then c')`` of every pair.
    """
    from skdp.tree._specialization import Specializer

    pairs, scores = [], []
    for first in found:
        after = Specializer(
            copy.deepcopy(specializer.attributes), specializer.encoded, specializer.y,
            specializer.n_classes, specializer.max_cells, specializer.cache,
        )  # fmt: skip
        after.specialize(*first)
        following, next_scores = candidates(after)
        pairs += [(first, second) for second in following]
        scores.append(np.asarray(next_scores))
    return pairs, (np.concatenate(scores) if scores else np.array([]))
