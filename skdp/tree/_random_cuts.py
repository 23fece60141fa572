"""The free regime of DPDecisionTree: public cuts per node, labels by permute-and-flip.

When the budget is too small for any selection to tell splits apart
(:func:`skdp.tree._budget.plan`), the tree reads no record to choose its splits. Every
node cuts its own box near public points: a column not yet cut on the node's path is
drawn at random (any cuttable column once all are used), and its concept is split into
``pieces`` (:func:`pieces`: 2, or 3 for three or more classes) at candidates drawn
uniformly near the ``j / pieces`` points of its candidates (numeric columns with
declared bounds, category orders), or into its taxonomy children. This is the random
decision tree of Fletcher and Islam (2019), as diffprivlib's random tree builds it,
with three changes: thresholds near the public ``j / pieces`` points of the node's
interval instead of anywhere in it (a level is never spent on a cut near an interval's
end), no column repeated on a path until every column is cut, and ``K``-class data
cut into three pieces per node (two levels, 9 leaves, instead of three binary levels,
8 leaves): a column that orders three classes separates them in one node, where a
binary path needs two cuts on that column. On Iris at epsilon 0.1 (1000 seeds) the
binary tree scored 0.637 and the three-piece tree 0.676 (diffprivlib's tree 0.622);
cutting at the exact middle scored 0.600: see ``MIDDLE_SHARE``.

Each leaf then releases one class: permute-and-flip (McKenna and Sheldon, NeurIPS 2020)
over its class counts. Neighbouring relation: add or remove one record. That changes one
class count of one leaf by one, so each leaf's utility vector is monotone with
sensitivity 1, and the leaves partition the records along a public structure: the labels
of all leaves together are ``epsilon``-DP by parallel composition. Empty leaves draw a
uniform label, as the mechanism does on a vector of zeros.

The cuts of all nodes are nested (points inside nested intervals, children of taxonomy
nodes; two nodes that cut the same concept share its split), so every column's concepts
make one common refinement: the column's ``cut`` after the fit, which ``transform`` and
``generalize`` report as in the selected regime.
"""

import math

import numpy as np
import pandas as pd

from skdp.accounting import parallel_composition
from skdp.mechanisms import permute_and_flip
from skdp.tree._counting import position_maps
from skdp.utils._stats import sum_blocks

# A node cuts at candidates drawn uniformly near the public j / pieces points of its
# interval's candidates, not at those exact points. Public midpoints are round numbers,
# and rows recorded to a resolution (Iris to 0.1 cm) sit exactly on them: with half-open
# intervals every such row goes right, whatever its class. Drawn cuts avoid that
# systematic alignment and still never fall near an interval's end (uniform over the
# whole interval, diffprivlib's rule, wastes levels there). Each cut is drawn among the
# candidates within MIDDLE_SHARE / (2 (pieces - 1)) of the interval around its point:
# the middle half for a binary cut. 200 seeds at epsilon 0.1 (1000 for Iris), exact
# middle -> middle half (binary cuts): Iris 0.600 -> 0.637 (diffprivlib 0.622), Wine
# 0.412 -> 0.456, Breast cancer at epsilon 0.05 0.637 -> 0.673 (Wine and Breast cancer
# on a public box of [0, 1.5 x the documented maximum]); Iris at epsilon 0.5 and 1
# (mostly the selected regime) 0.850 -> 0.853 and 0.901 -> 0.901.
MIDDLE_SHARE = 0.5
# The most pieces a node cuts a column into, and the leaves the tree aims at: K classes
# (K >= 3) take three-piece cuts two levels deep (9 leaves), two classes binary cuts
# three levels deep (8 leaves). Simulated on Iris at epsilon 0.09 (600 seeds): binary,
# 3 levels 0.639; three pieces, 2 levels 0.676 (1 level 0.637, 3 levels 0.638); four
# pieces, 2 levels 0.623. Wine (13 columns, 3 classes) 0.532 -> 0.526, within noise.
MAX_PIECES = 3
FREE_LEAVES = 8


def pieces(n_classes):
    """The pieces a node of the public tree cuts a column into: ``min(max(K, 2), 3)``."""
    return min(max(int(n_classes), 2), MAX_PIECES)


def free_depth(n_classes):
    """The depth of the public tree: about ``FREE_LEAVES`` leaves (3 binary levels, or 2
    levels of three pieces), a function of the public number of classes only."""
    return max(1, round(math.log(FREE_LEAVES) / math.log(pieces(n_classes))))


def public_cuts(attribute, concept, n_pieces=2, rng=None):
    """Public split points of ``concept`` near its ``j / n_pieces`` points, ``None`` for
    a taxonomy concept (its children), or ``False`` when it has none.

    For an interval of declared bounds or of a category order with ``m`` candidates,
    cut ``j`` is the candidate of index ``ceil(j (m + 1) / n_pieces - 1.5)`` (the middle
    one for ``n_pieces=2``), moved by an offset drawn uniformly in
    ``[-h, h]``, ``h = floor(m MIDDLE_SHARE / (2 (n_pieces - 1)))`` when ``rng`` is
    given; the result is a sorted tuple of distinct points (fewer pieces when ``m`` is
    small). ``False`` for an interval of the scale-free grid (no public middle) or a
    concept that cannot split.
    """
    if not attribute.can_specialize(concept):
        return False
    if attribute.kind == "categorical":
        return None
    if attribute.kind == "numeric" and attribute.scale_free:
        return False
    points = attribute.split_points(concept)
    m = points.size
    half = int(m * MIDDLE_SHARE / (2 * (n_pieces - 1))) if rng is not None else 0
    chosen = []
    for j in range(1, n_pieces):
        at = math.ceil(j * (m + 1) / n_pieces - 1.5)
        if half:
            at += int(rng.integers(-half, half + 1))
        chosen.append(min(max(at, 0), m - 1))
    return tuple(float(p) for p in points[np.unique(chosen)])


def _specialize(attribute, concept, split):
    """Cut ``concept`` at every point of ``split`` (its children for a taxonomy)."""
    if split is None:
        return list(attribute.specialize(concept, None))
    kids, rest = [], concept
    for point in split:
        low, rest = attribute.specialize(rest, point)
        kids.append(low)
    return [*kids, rest]


def _fanout(attribute, concept, split):
    return attribute.fanout(concept, None) if split is None else len(split) + 1


class RandomCuts:
    """A tree of public cuts: node ``i`` splits ``concept[i]`` of column ``feature[i]``
    (``-1`` at a leaf) into the nodes ``children[i]``; ``label[leaf]`` is a class index.

    Small and picklable: dask ships it to the workers to count and to predict.
    """

    def __init__(self, feature, concept, split, children, boxes, slots, depth):
        self.feature, self.concept, self.split = feature, concept, split
        self.children, self.boxes, self.slots = children, boxes, slots
        self.depth = depth
        self.leaves = np.array([i for i, f in enumerate(feature) if f < 0], dtype=np.int64)
        self.label = np.zeros(len(feature), dtype=np.int64)

    def leaf_of(self, positions):
        """The leaf (node id) of every row, from its positions in the refined cuts."""
        node = np.zeros(positions.shape[0], dtype=np.int64)
        for i, a in enumerate(self.feature):  # children come after their parent
            if a < 0:
                continue
            here = node == i
            if here.any():
                slot = self.slots[i][positions[here, a]]
                node[here] = np.asarray(self.children[i])[slot]
        return node

    def proba(self, positions, n_classes):
        """One-hot class probabilities: the released label of every row's leaf."""
        proba = np.zeros((positions.shape[0], n_classes))
        proba[np.arange(positions.shape[0]), self.label[self.leaf_of(positions)]] = 1.0
        return proba


def grow_random(attributes, depth, n_classes, max_cells, rng):
    """Build the public cuts on ``attributes`` (their cuts become the common refinement).

    Each node cuts one column into :func:`pieces` ``(n_classes)`` pieces (its taxonomy
    children for a taxonomy column). A node stops at ``depth``, when no column can be
    cut, or when its split would take the leaves x classes past ``max_cells``. Reads no
    record.

    Returns
    -------
    RandomCuts
    """
    n_pieces = pieces(n_classes)
    feature, concept, split, children, boxes = [], [], [], [], []
    pending = [(tuple(0 for _ in attributes), frozenset(), 0)]
    made = {}  # (column, concept) -> (split, children), shared by every node cutting it
    n_leaves, reached = 1, 0
    while pending:
        box, used, level = pending.pop(0)
        node = len(feature)
        feature.append(-1), concept.append(-1), split.append(None), children.append([])
        boxes.append(box)
        if level >= depth:
            continue
        options = [a for a, attribute in enumerate(attributes)
                   if public_cuts(attribute, box[a]) is not False]  # fmt: skip
        fresh = [a for a in options if a not in used]
        options = fresh or options
        if not options:
            continue
        a = options[int(rng.integers(len(options)))]
        # a concept cut by another node keeps that node's split: one common refinement
        if (a, box[a]) in made:
            s = made[a, box[a]][0]
        else:
            s = public_cuts(attributes[a], box[a], n_pieces, rng)
        fanout = _fanout(attributes[a], box[a], s)
        if (n_leaves + fanout - 1) * n_classes > max_cells:
            continue
        if (a, box[a]) not in made:
            made[a, box[a]] = (s, _specialize(attributes[a], box[a], s))
        n_leaves += fanout - 1
        reached = max(reached, level + 1)
        feature[node], concept[node] = a, box[a]
        split[node] = s[0] if s is not None and len(s) == 1 else (None if s is None else list(s))
        first = node + len(pending) + 1  # the queue ahead of the kids is numbered first
        for j, kid in enumerate(made[a, box[a]][1]):
            children[node].append(first + j)
            pending.append(((*box[:a], kid, *box[a + 1 :]), used | {a}, level + 1))
    slots = [
        None if a < 0 else _slots(attributes[a], [boxes[k][a] for k in kids])
        for a, kids in zip(feature, children, strict=True)
    ]
    feature = np.array(feature, dtype=np.int64)
    return RandomCuts(feature, concept, split, children, boxes, slots, reached)


def _slots(attribute, kids):
    """For every concept of the refined cut: the index of the kid holding it (or -1)."""
    slots = np.full(len(attribute.cut), -1, dtype=np.int64)
    for position, refined in enumerate(attribute.cut):
        try:
            slots[position] = kids.index(attribute.ancestor_in(refined, kids))
        except (KeyError, StopIteration, ValueError):
            pass  # a concept outside the split one: no row of this node holds it
    return slots


class LeafCounter:
    """Counts ``leaf x class`` over a block of encoded rows (picklable for dask)."""

    def __init__(self, attributes, cuts, n_classes):
        self.maps = position_maps(attributes)
        self.cuts, self.n_classes = cuts, n_classes

    def counts(self, encoded, y):
        positions = (
            np.column_stack([m.position(encoded[:, j]) for j, m in enumerate(self.maps)])
            if self.maps
            else np.zeros((len(y), 0), dtype=np.int64)
        )
        flat = self.cuts.leaf_of(positions) * self.n_classes + np.asarray(y, dtype=np.int64)
        return np.bincount(flat, minlength=len(self.cuts.feature) * self.n_classes)


def label_leaves(cuts, spec, epsilon, rng):
    """Release one class per leaf by permute-and-flip on ``epsilon``, in parallel over
    the leaves (the true counts are read here and not kept); returns ``cuts``."""
    k = spec.n_classes
    counter = LeafCounter(spec.attributes, cuts, k)
    counts = sum_blocks(counter.counts, spec.encoded, spec.y).reshape(-1, k)
    with parallel_composition() as group:
        for leaf in cuts.leaves:
            with group.branch():
                cuts.label[leaf] = permute_and_flip(
                    counts[leaf], sensitivity=1, epsilon=epsilon, monotonic=True,
                    random_state=rng,
                )  # fmt: skip
    return cuts


def random_release(attributes, names, cuts, classes):
    """``release_`` of the free regime: one row per leaf, its box and its released class."""
    columns = {
        name: [attribute.label(cuts.boxes[leaf][j]) for leaf in cuts.leaves]
        for j, (attribute, name) in enumerate(zip(attributes, names, strict=True))
    }
    columns["class"] = np.asarray(classes, dtype=object)[cuts.label[cuts.leaves]]
    return pd.DataFrame(columns)


def random_cut_records(attributes, names, cuts):
    """``cuts_`` of the free regime: one dict per node split, parents first."""
    return [
        {
            "feature": names[a],
            "concept": attributes[a].label(cuts.concept[i]),
            "split": cuts.split[i],
            "children": [attributes[a].label(cuts.boxes[k][a]) for k in cuts.children[i]],
        }
        for i, a in enumerate(cuts.feature)
        if a >= 0
    ]
