"""DiffGen (Mohammed, Chen, Fung and Yu, KDD 2011): exponential-mechanism specialization.

Each numeric interval gets one split point, chosen by the exponential mechanism when the
interval appears; each step then chooses one concept (categorical concept or numeric
interval with its split point) by the exponential mechanism over the Max or InfoGain
score. Budget (paper, ``initializeBudget``): with ``epsilon_sel`` for the selections,
``epsilon' = epsilon_sel / (|A^n| + 2h)``: ``|A^n| epsilon'`` for the split points of the
root intervals, then per step ``epsilon'`` for the choice and ``epsilon'`` for the split
points of the two new intervals (disjoint records: parallel composition). A step that
specializes a categorical concept leaves its split-point ``epsilon'`` unspent; the caller
gives it to the leaf counts (valid: that decision is public once released).

Privacy (add/remove one record): the candidate sets depend only on released cuts and
public inputs; Max has sensitivity 1 and is monotone, InfoGain has sensitivity
``log2 K``. Every choice goes through :func:`skdp.mechanisms.report_noisy_max`
(``noise="gumbel"`` is the exponential mechanism, ``"exponential"`` permute-and-flip).

What we changed from the paper (whose code is not DP, see ``algorithms.md`` 1.6): split
points are chosen over a public grid of ``n_split_points`` points of the interval (a
discretisation of the paper's continuous exponential mechanism that keeps sampling
exact) instead of data-derived intervals; the sensitivity of InfoGain is ``log2 K``
rather than 1; Max counts the cell-majority hits of the whole table after the
specialization (see :mod:`skdp.tree._specialization`); noise is exact.
"""

from skdp.accounting import parallel_composition
from skdp.mechanisms import report_noisy_max


def grow(specializer, *, n_levels, epsilon_step, score, sensitivity, noise, rng):
    """Run DiffGen's steps; return the number of steps taken."""
    splits = {}

    def select(scores):
        return report_noisy_max(
            scores,
            sensitivity=sensitivity,
            epsilon=epsilon_step,
            monotonic=score == "max",
            noise=noise,
            random_state=rng,
        )

    def choose_split(a, concept):
        attribute = specializer.attributes[a]
        points = attribute.split_points(concept)
        if points.size:
            scores = specializer.score_split_points(a, concept, points, score)
            splits[(a, concept)] = float(points[select(scores)])

    for a, attribute in enumerate(specializer.attributes):
        if attribute.kind != "categorical":  # numeric, or ranges of a category order
            choose_split(a, attribute.cut[0])

    for step in range(n_levels):
        found, scores = [], []
        for a, concept in specializer.open_concepts():
            split = splits.get((a, concept))
            numeric = specializer.attributes[a].kind != "categorical"
            if (numeric and split is None) or not specializer.fits_after(a, concept, split):
                continue
            found.append((a, concept, split))
            if numeric:
                scores.append(specializer.score_split_points(a, concept, [split], score)[0])
            else:
                scores.append(specializer.score_categorical(a, concept, score))
        if not found:
            return step
        a, concept, split = found[select(scores)]
        children = specializer.specialize(a, concept, split)
        if split is not None:
            with parallel_composition() as group:
                for child in children:
                    with group.branch():
                        choose_split(a, child)
    return n_levels
