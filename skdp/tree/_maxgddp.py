"""MAXGDDP (Fu, Zhang and Ding 2018): report-noisy-max over one unified score vector.

At each of ``n_levels`` specialization steps, every candidate is scored in one vector:
one Max score per categorical concept of the cuts that can be specialized, and one per
candidate split point of every numeric interval of the cuts (a public grid, see
:class:`~skdp.tree._attributes.NumericAttribute`). Report-noisy-max releases the index
of the winner only. Step ``i`` gets ``epsilon_i``; the seed paper grows the budgets
geometrically with ratio ``3**(1/3)`` (deeper levels, with smaller cells, get more).

Privacy (add/remove one record): the candidate set depends only on the released cuts
and public inputs. Max scores have sensitivity 1 and are monotone (see
:mod:`skdp.tree._specialization`), so report-noisy-max with the ``monotonic`` scale is
``epsilon_i``-DP (Dwork and Roth, Claim 3.9, and :func:`skdp.mechanisms.report_noisy_max`
for the discrete versions); InfoGain uses sensitivity ``log2 K``, not monotone. The
steps compose sequentially.

What we changed from the paper: the Max score of a candidate counts the cell-majority
hits of the whole table after the specialization, not only of the records inside the
concept (the two differ by the hits outside it, so sensitivity and monotonicity are
unchanged; the paper's version prefers concepts covering many records over useful
splits, see :mod:`skdp.tree._specialization`; on Iris at epsilon = 10^4 it caps
accuracy at 0.90 instead of 0.94); split points come from a public grid rather than from
"every possible split point" of the data (a data-dependent candidate set is not DP);
the noise is exact discrete noise on a score grid; permute-and-flip (``noise=
"exponential"``) is the default, the paper's Laplace is ``noise="laplace"``.
"""

import numpy as np

from skdp.mechanisms import report_noisy_max
from skdp.tree import _lookahead
from skdp.utils.validation import split_budget

RATIO = 3 ** (1 / 3)


def level_budgets(epsilon, n_levels, schedule):
    """Per-level selection budgets summing to ``epsilon``: geometric or uniform."""
    if schedule == "uniform":
        return split_budget(epsilon, [1.0] * n_levels)
    return split_budget(epsilon, [RATIO**i for i in range(n_levels)])


def candidates(specializer, score):
    """The unified candidate list ``(attribute, concept, split)`` and its score vector."""
    found, scores = [], []
    for a, concept in specializer.open_concepts():
        attribute = specializer.attributes[a]
        if not specializer.fits_after(a, concept):
            continue
        if attribute.kind == "categorical":
            found.append((a, concept, None))
            scores.append([specializer.score_categorical(a, concept, score)])
        else:
            points = attribute.split_points(concept)
            found += [(a, concept, float(p)) for p in points]
            scores.append(specializer.score_split_points(a, concept, points, score))
    return found, (np.concatenate(scores) if scores else np.array([]))


def grow(specializer, *, budgets, score, sensitivity, noise, rng, pair=None):
    """Run the specialization steps; stop early (spending nothing) if no candidate is left.

    ``pair(m)``, given the number ``m`` of first candidates, says (from public values)
    whether the first two steps are selected as one pair on their summed budget
    (:mod:`skdp.tree._lookahead`; Max score only).

    Returns
    -------
    int
        The number of steps taken.
    """
    budgets = list(budgets)
    step = 0
    while step < len(budgets):
        found, scores = candidates(specializer, score)
        if not found:
            return step
        if step == 0 and len(budgets) >= 2 and score == "max" and pair and pair(len(found)):
            pairs, pair_scores = _lookahead.pair_candidates(
                specializer, found, lambda s: candidates(s, score)
            )
            if pairs:
                index = report_noisy_max(
                    pair_scores, sensitivity=sensitivity, epsilon=budgets[0] + budgets[1],
                    monotonic=True, noise=noise, random_state=rng,
                )  # fmt: skip
                for chosen in pairs[index]:
                    specializer.specialize(*chosen)
                step = 2
                continue
        index = report_noisy_max(
            scores,
            sensitivity=sensitivity,
            epsilon=budgets[step],
            monotonic=score == "max",
            noise=noise,
            random_state=rng,
        )
        specializer.specialize(*found[index])
        step += 1
    return len(budgets)
