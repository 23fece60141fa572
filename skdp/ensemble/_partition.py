"""How the forest hands its records to its trees: the number of trees, the partition,
the categories every tree shares, and the public record that keeps a part non-empty.

Nothing here draws noise. :func:`n_trees` post-processes a noisy count;
:func:`assign` draws each record's tree independently of every value;
:func:`shared_categories` and :func:`public_record` read public inputs only (the
observed categories of an undeclared categorical column excepted, with one
:class:`~skdp.exceptions.PrivacyLeakWarning` for the whole forest).
"""

import math
import warnings

import numpy as np
import pandas as pd

from skdp.exceptions import PrivacyLeakWarning
from skdp.tree._columns import declared_bounds

# n_estimators="auto": a tree gets at least this many "records x epsilon" (n / T * its
# epsilon). Adult (30,162 rows), 10 seeds, at 5,000 per tree: 2 trees at epsilon 0.5
# scored 0.820 against one tree's 0.829, 5 at epsilon 1 0.819 against 0.830, 10 at
# epsilon 2 0.816 against 0.840; on Iris (100 rows) one tree beat 3, 5 and 10 at
# epsilon 1 (0.934 against 0.784 to 0.814). 12,000 synthetic rows (6 features) at
# epsilon 5: 10 trees 0.907 against 0.886. A forest pays off only with many records
# per tree: one tree below 20,000.
RECORDS_PER_TREE = 20000.0
# the most trees "auto" grows
MAX_AUTO_TREES = 10
# the share of epsilon of the forest's count: only large counts change T (two trees need
# 40,000 / epsilon records), so a count with noise of 50 / epsilon records decides it as
# well as one of 20 / epsilon; the rest goes to the trees (Iris at epsilon 0.5, 40 seeds:
# a one-tree forest after a 5% count scored 0.827, the tree alone 0.879)
COUNT_SHARE_FOREST = 0.02
# a one-sided 95% lower bound of the count: n_low = n~ - ln(20) / epsilon_n
COUNT_MARGIN = math.log(20)


def n_trees(n_noisy, epsilon_count, epsilon_tree):
    """The number of trees of ``n_estimators="auto"`` (post-processing of ``n~``).

    ``clip(floor(n_low * epsilon_tree / RECORDS_PER_TREE), 1, MAX_AUTO_TREES)`` with
    ``n_low = n~ - ln(20) / epsilon_count``, so that noise rarely buys a tree.

    Parameters
    ----------
    n_noisy : int
        The forest's noisy record count.
    epsilon_count, epsilon_tree : float
        The epsilon of the count, and each tree's epsilon.

    Returns
    -------
    int

    Examples
    --------
    Iris's 100 rows at epsilon 5, Adult's 30,162 at epsilon 1 and 5 (2% on the count):

    >>> from skdp.ensemble._partition import n_trees
    >>> n_trees(100, 0.1, 4.9), n_trees(30162, 0.02, 0.98), n_trees(30162, 0.1, 4.9)
    (1, 1, 7)
    """
    n_low = n_noisy - COUNT_MARGIN / epsilon_count
    wanted = math.floor(max(n_low, 0.0) * epsilon_tree / RECORDS_PER_TREE)
    return min(max(wanted, 1), MAX_AUTO_TREES)


def assign(n_samples, n_estimators, rng):
    """Each record's tree: independent and uniform, whatever the values or the order.

    Adding or removing one record changes the part of one tree only (it brings or takes
    its own draw), which is what parallel composition needs. Equal blocks of a
    permutation would not do: their boundaries move with ``n``, so one record would
    shift a record in or out of every tree.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.ensemble._partition import assign
    >>> assign(6, 3, np.random.default_rng(0))
    array([2, 1, 1, 0, 0, 0])
    """
    return rng.integers(0, n_estimators, size=n_samples)


def column_names(frame):
    """The names a :class:`~skdp.tree.DPDecisionTree` gives the columns of ``frame``."""
    return [str(c) if isinstance(c, str) else f"x{j}" for j, c in enumerate(frame.columns)]


def _observed(column):
    values = column.dropna().unique()
    try:
        ordered = sorted(values)
    except TypeError:
        ordered = sorted(values, key=str)
    return list(dict.fromkeys(str(v) for v in ordered))


def shared_categories(forest, frame, from_frame):
    """``(categories, numeric)``: the declared categories plus the observed ones of every
    undeclared categorical column, and the indices of the numeric columns.

    Resolved once for the forest, so that every tree has the same public domain (each
    tree would otherwise take the values of its own part). A categorical dtype carries
    its categories, so only string, object and bool columns of a DataFrame and the
    declared ``categorical_features`` without categories are read, with one warning.
    """
    names = column_names(frame)
    declared = dict(forest.categories or {})
    named = set(map(str, declared)) | set(map(str, forest.taxonomies or {}))
    chosen = set()
    for item in forest.categorical_features or ():
        is_index = isinstance(item, (int, np.integer)) and not isinstance(item, bool)
        chosen.add(names[item] if is_index and 0 <= item < len(names) else str(item))
    observed, numeric = {}, []
    for j, name in enumerate(names):
        column = frame.iloc[:, j]
        if name in named or isinstance(column.dtype, pd.CategoricalDtype):
            continue
        textual = not pd.api.types.is_numeric_dtype(column.dtype) or (
            pd.api.types.is_bool_dtype(column.dtype)
        )
        if name in chosen or (from_frame and textual):
            observed[name] = _observed(column)
        else:
            numeric.append(j)
    if observed:
        warnings.warn(
            f"Columns {sorted(observed)} are categorical without declared categories: "
            "their observed values are used (once, for every tree), which reveals them. "
            "Pass categories= or taxonomies=, or use a pandas categorical dtype.",
            PrivacyLeakWarning,
            stacklevel=3,
        )
    return {**declared, **observed} or None, numeric


def public_record(frame, bounds, categories, taxonomies, numeric):
    """One record made of public values only: a value per column of ``frame``.

    A numeric column takes the middle of its declared bounds (an end when one side is
    open, 0 when undeclared); a categorical one its first declared or dtype category,
    or the first leaf of its taxonomy.
    """
    names = column_names(frame)
    numeric_names = [names[j] for j in numeric]
    lower, upper = declared_bounds(bounds, names, numeric_names)
    middles = dict(zip(numeric_names, _middles(lower, upper), strict=True))
    row = []
    for j, name in enumerate(names):
        if name in middles:
            row.append(float(middles[name]))
        elif taxonomies and name in taxonomies:
            row.append(_first_leaf(taxonomies[name]))
        elif isinstance(frame.dtypes.iloc[j], pd.CategoricalDtype):
            row.append(frame.dtypes.iloc[j].categories[0])
        else:
            row.append(categories[name][0])
    return row


def record_frame(row, frame):
    """``row`` as a one-row DataFrame with the columns and dtypes of ``frame``."""
    columns = {}
    for j, (label, value) in enumerate(zip(frame.columns, row, strict=True)):
        dtype = frame.dtypes.iloc[j]
        keep = isinstance(dtype, pd.CategoricalDtype) or not isinstance(value, float)
        columns[label] = pd.Series([value], dtype=dtype if keep else float)
    return pd.DataFrame(columns, columns=frame.columns)


def _middles(lower, upper):
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    both = np.isfinite(lower) & np.isfinite(upper)
    middle = np.where(both, np.where(both, lower, 0.0) / 2 + np.where(both, upper, 0.0) / 2, 0.0)
    middle = np.where(np.isfinite(lower) & ~both, lower, middle)
    return np.where(np.isfinite(upper) & ~np.isfinite(lower), upper, middle)


def _first_leaf(taxonomy):
    """The first leaf of a taxonomy (``{concept: [leaf or {concept: [...]}, ...]}``)."""
    node = taxonomy
    while isinstance(node, dict):
        children = next(iter(node.values()))
        node = children[0]
    return node
