"""Predictions from the release: the released cuts and the classifier trained on them.

:class:`Model` holds no record; its methods are applied to a numpy frame at once or to
every block / partition of a dask collection (post-processing).
"""

from functools import partial

import numpy as np
import pandas as pd

from skdp.utils._grid_index import flat_index
from skdp.utils._stats import map_rows


class Model:
    """The released cuts and the classifier trained on them (no records): what
    ``transform`` and ``predict`` apply to every block of rows."""

    def __init__(self, columns, leaf_proba, tree, tree_classes, classes, random_cuts=None):
        self.columns = columns
        self.leaf_proba, self.tree, self.tree_classes = leaf_proba, tree, tree_classes
        self.classes = classes
        self.random_cuts = random_cuts  # the small-budget regime's labelled leaves

    def positions(self, block):
        """Each column's concept index in its cut."""
        frame = block if isinstance(block, pd.DataFrame) else pd.DataFrame(block)
        encoded = self.columns.encode(frame)
        if not len(frame):
            return np.empty((0, len(encoded)), dtype=np.int64)
        return np.stack(
            [a.position_of(e) for a, e in zip(self.columns.attributes, encoded, strict=True)],
            axis=1,
        )

    def generalize(self, block):
        """The label of every value's concept, as a DataFrame."""
        positions = self.positions(block)
        return pd.DataFrame(
            {
                name: [a.label(a.cut[p]) for p in positions[:, j]]
                for j, (name, a) in enumerate(
                    zip(self.columns.names, self.columns.attributes, strict=True)
                )
            }
        )

    def proba(self, block):
        """Class probabilities."""
        positions = self.positions(block)
        if self.random_cuts is not None:
            return self.random_cuts.proba(positions, len(self.classes))
        if self.leaf_proba is not None:
            sizes = [len(a.cut) for a in self.columns.attributes]
            cell = flat_index(positions, sizes) if sizes else 0
            return self.leaf_proba[cell]
        proba = np.full((positions.shape[0], len(self.classes)), 1 / len(self.classes))
        if self.tree is not None and positions.shape[0]:
            proba[:] = 0.0
            proba[:, self.tree_classes] = self.tree.predict_proba(positions)
        return proba

    def labels(self, block):
        """The most probable class."""
        return self.classes[np.argmax(self.proba(block), axis=1)]


def as_frame_partition(function, partition):
    return pd.DataFrame(function(partition), index=partition.index)


def as_series_partition(function, partition):
    labels = function(partition)
    return pd.Series(labels, index=partition.index, dtype=label_dtype(labels))


def label_dtype(labels):
    return object if labels.dtype.kind in "OUS" else labels.dtype


def keep_index(function, partition):
    return function(partition).set_axis(partition.index)


def lazy_apply(function, X, *, dtype, columns, classes):
    """``function`` (a :class:`Model` method) on every block of a validated dask ``X``.

    ``columns``: the width of the result (None for the labels, one per row).
    """
    import dask.dataframe as dd

    if not isinstance(X, dd.DataFrame):
        return map_rows(function, X, dtype=dtype, columns=columns)
    if columns is None:  # the labels; strings as objects, as dask arrays hold them
        meta = pd.Series(classes, dtype=label_dtype(classes)).iloc[:0]
        return X.map_partitions(partial(as_series_partition, function), meta=meta).to_dask_array()
    meta = pd.DataFrame({j: pd.Series(dtype=dtype) for j in range(columns)})
    return X.map_partitions(partial(as_frame_partition, function), meta=meta).to_dask_array()


def lazy_generalize(model, X):
    """:meth:`Model.generalize` on every partition of a validated dask ``X``."""
    import dask.dataframe as dd

    if not isinstance(X, dd.DataFrame):
        X = dd.from_dask_array(X)
    # the dtype pandas gives to labels (object, or str from pandas 3 on)
    meta = pd.DataFrame({name: ["label"] for name in model.columns.names}).iloc[:0]
    return X.map_partitions(partial(keep_index, model.generalize), meta=meta)
