"""The released generalized table and the classifiers trained on it (post-processing).

Everything here reads only the released cuts and noisy counts, never the records.
"""

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from skdp.tree._budget import noise_floor as floor_of
from skdp.utils._grid_index import grid_positions


def cell_positions(sizes):
    """Cut position of every attribute for every cell, shape ``(cells, attributes)``."""
    n_cells = int(np.prod(sizes, dtype=np.int64))
    return grid_positions(np.arange(n_cells), sizes)


def release_frame(attributes, names, noisy, classes):
    """One row per cell x class: each attribute's concept label, the class, the count."""
    sizes = [len(a.cut) for a in attributes]
    positions = cell_positions(sizes)
    n_cells, n_classes = noisy.shape
    columns = {}
    for j, (attribute, name) in enumerate(zip(attributes, names, strict=True)):
        labels = [attribute.label(c) for c in attribute.cut]
        codes = np.repeat(positions[:, j], n_classes)
        columns[name] = pd.Categorical.from_codes(codes, categories=labels)
    columns["class"] = np.tile(np.asarray(classes, dtype=object), n_cells)
    columns["count"] = noisy.reshape(-1)
    return pd.DataFrame(columns)


def _stage_cells(attributes, cut_history, stage):
    """Id, within the cells of an earlier ``stage`` of the cuts, of every final cell."""
    final_positions = cell_positions([len(a.cut) for a in attributes])
    stage_cuts = cut_history[stage]
    cell = np.zeros(final_positions.shape[0], dtype=np.int64)
    for j, (attribute, cut) in enumerate(zip(attributes, stage_cuts, strict=True)):
        index = {concept: i for i, concept in enumerate(cut)}
        ancestor = np.array([index[attribute.ancestor_in(c, cut)] for c in attribute.cut])
        cell = cell * len(cut) + ancestor[final_positions[:, j]]
    return cell


def leaf_probabilities(attributes, cut_history, counts, min_count):
    """Class frequencies per final cell, backing off to coarser cells when thin.

    ``counts`` are the clamped noisy counts (cells x classes). A cell whose total is below
    ``min_count`` takes the frequencies of the cell containing it one specialization
    earlier, and so on up to the root (the overall class frequencies).
    """
    totals = counts.sum(axis=1)
    probabilities = np.zeros(counts.shape, dtype=float)
    done = (totals >= min_count) & (totals > 0)
    probabilities[done] = counts[done] / totals[done, None]
    for stage in range(len(cut_history) - 2, -1, -1):
        if done.all():
            break
        cell = _stage_cells(attributes, cut_history, stage)
        n_stage = int(cell.max()) + 1
        stage_counts = np.stack(
            [np.bincount(cell, weights=counts[:, k], minlength=n_stage)
             for k in range(counts.shape[1])],
            axis=1,
        )  # fmt: skip
        stage_totals = stage_counts.sum(axis=1)
        take = ~done & (stage_totals[cell] >= min_count if stage else True)
        safe = np.where(stage_totals > 0, stage_totals, 1.0)
        probabilities[take] = stage_counts[cell[take]] / safe[cell[take], None]
        done |= take
    empty = probabilities.sum(axis=1) == 0
    probabilities[empty] = 1.0 / counts.shape[1]
    return probabilities


# C4.5-style pruning of the tree on the release: a leaf holds at least this share of the
# released weight (30 records on Adult); it keeps the tree from memorising noisy cells.
MIN_LEAF_SHARE = 0.001


def fit_tree_on_release(positions, counts, noise_floor, random_state):
    """A pruned decision tree on the released cells, weighted by their noisy counts.

    Counts at or below ``noise_floor`` are taken as empty: the noise alone puts weight
    on every cell, and on a large release the empty cells' share would swamp the rest.

    Returns ``(tree, present)``: ``present`` are the class indices the tree knows, or
    ``(None, None)`` when no count passes the floor.
    """
    n_cells, n_classes = counts.shape
    X = np.repeat(positions, n_classes, axis=0)
    y = np.tile(np.arange(n_classes), n_cells)
    weight = counts.reshape(-1).astype(float)
    keep = weight > noise_floor
    if not keep.any():
        return None, None
    tree = DecisionTreeClassifier(
        min_weight_fraction_leaf=MIN_LEAF_SHARE, random_state=random_state
    )
    tree.fit(X[keep], y[keep], sample_weight=weight[keep])
    return tree, tree.classes_


def fit_classifier(kind, attributes, history, counts, counts_epsilon, n_est, rng):
    """The post-processing classifier ``kind`` ("tree" or "leaf") on the clamped counts.

    Returns ``(leaf_proba, tree, tree_classes)``, None where unused.
    """
    # counts under the floor are taken as empty (skdp.tree._budget.noise_floor)
    noise_floor = floor_of(counts_epsilon, counts.size, n_est)
    if kind == "leaf":
        return leaf_probabilities(attributes, history, counts, noise_floor), None, None
    positions = cell_positions([len(a.cut) for a in attributes])
    seed = int(rng.integers(2**31 - 1))
    return (None, *fit_tree_on_release(positions, counts, noise_floor, seed))


def cut_records(attributes, names, history):
    """``cuts_``: one dict per specialization (column, concept, split, children)."""
    return [
        {
            "feature": names[a],
            "concept": attributes[a].label(concept),
            "split": split,
            "children": [attributes[a].label(c) for c in children],
        }
        for a, concept, split, children in history
    ]
