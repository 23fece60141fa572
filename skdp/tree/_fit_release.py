"""The two releases of a DPDecisionTree fit: selected specializations or public cuts.

Each takes the tree being fitted, its :class:`~skdp.tree._specialization.Specializer`,
the depth plan, the fit's ledger (whose running total the last spend closes on
``epsilon``), the classes and the generator; each sets the tree's released attributes
and returns its part of ``epsilon_split_``.
"""

import numpy as np

from skdp.accounting import PrivacyLedger
from skdp.mechanisms import geometric
from skdp.tree._budget import grow
from skdp.tree._random_cuts import grow_random, label_leaves, random_cut_records, random_release
from skdp.tree._release import cut_records, fit_classifier, release_frame
from skdp.utils._shares import closing_share

__all__ = ["release_random", "release_selected"]


def release_selected(tree, spec, the_plan, ledger, classes, rng):
    """Selected specializations, then a noisy count for every cell x class."""
    with PrivacyLedger() as selecting:
        tree.n_levels_ = grow(tree, spec, the_plan, rng)
    # the rest, as the ledger adds it up (so that it totals epsilon exactly)
    counts_epsilon = closing_share(float(tree.epsilon), ledger.total.epsilon)
    noisy = geometric(spec.cell_counts(), epsilon=counts_epsilon, random_state=rng)
    attributes, names = tree._columns.attributes, tree._columns.names
    tree.cuts_ = cut_records(attributes, names, spec.history)
    tree.release_ = release_frame(attributes, names, noisy, classes)
    tree._random_cuts = None
    tree._leaf_proba, tree._tree, tree._tree_classes = fit_classifier(
        tree.classifier, attributes, spec.cut_history, np.clip(noisy, 0, None),
        counts_epsilon, the_plan.n_est, rng,
    )  # fmt: skip
    return {"selection": selecting.total.epsilon, "counts": counts_epsilon}


def release_random(tree, spec, the_plan, ledger, classes, rng):
    """Public cuts node by node, then one permute-and-flip label per leaf."""
    attributes, names = tree._columns.attributes, tree._columns.names
    cuts = grow_random(attributes, the_plan.n_levels, len(classes), tree.max_cells, rng)
    labels_epsilon = closing_share(float(tree.epsilon), ledger.total.epsilon)
    tree._random_cuts = label_leaves(cuts, spec, labels_epsilon, rng)
    tree.n_levels_ = cuts.depth
    tree.cuts_ = random_cut_records(attributes, names, cuts)
    tree.release_ = random_release(attributes, names, cuts, classes)
    tree._leaf_proba = tree._tree = tree._tree_classes = None
    return {"selection": 0.0, "labels": labels_epsilon}
