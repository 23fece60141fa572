"""What DPFrequentItemsets reads from a block of transactions: the 0/1 incidence matrix,
the bins of the item set, the transactions over it, and the released itemsets they hold.

Small picklable objects, so that :func:`~skdp.utils._stats.sum_blocks` and ``map_rows``
run them on a whole array (numpy, sparse) or on every row block of a dask array.
"""

import numpy as np
import scipy.sparse as sp

from skdp.frequent_patterns._bitmask import mask_counts, pack_transactions, truncate_masks
from skdp.frequent_patterns._mining import check_transactions
from skdp.frequent_patterns._tidsets import MAX_TIDSET_ITEMS, Tidsets, prepare_counts

__all__ = ["Transactions", "incidence"]


def incidence(X, binarize):
    """The 0/1 incidence matrix: ``X`` checked to hold only 0/1, or thresholded."""
    if binarize is None:
        values = X.data if sp.issparse(X) else X
        if values.size and not np.isin(values, (0, 1)).all():
            raise ValueError(
                "X must be a boolean or 0/1 incidence matrix (one row per "
                "transaction); it holds other values. Set binarize= to threshold it."
            )
        return X
    if sp.issparse(X):
        if binarize < 0:
            raise ValueError(
                "binarize must be >= 0 for sparse X: its implicit zeros would all become items."
            )
        X = X.copy()
        X.data = X.data > binarize
        X.eliminate_zeros()
        return X
    if X.dtype == bool and 0 <= binarize < 1:  # True > binarize >= False: X itself
        return X
    return X > binarize


def _columns(X, columns):
    """``X[:, columns]``, or ``X`` itself when ``columns`` are all of its columns in order."""
    if len(columns) == X.shape[1] and np.array_equal(columns, np.arange(X.shape[1])):
        return X
    return X[:, columns]


class Transactions:
    """What the estimator reads from a block of transactions: a small picklable object
    whose methods :func:`~skdp.utils._stats.sum_blocks` and ``map_rows`` run on the whole
    array (numpy, sparse) or on every row block of a dask array where it lives."""

    def __init__(self, columns, binarize, max_length=None, itemsets=()):
        self.columns, self.binarize = columns, binarize
        self.max_length, self.itemsets = max_length, itemsets

    def bins(self, block):
        """Exact number of transactions per bin: projection onto ``I``, truncated."""
        masks = pack_transactions(incidence(block, self.binarize), self.columns)
        return mask_counts(truncate_masks(masks, self.max_length), len(self.columns))

    def items(self, block):
        """The transactions over the items of ``I``, as
        :class:`~skdp.frequent_patterns._counts.TransactionCounts` reads them: packed
        tidsets of a dense block over few items, else a checked boolean CSR matrix."""
        X = incidence(block, self.binarize)
        if sp.issparse(X):
            return check_transactions(sp.csr_matrix(X[:, self.columns], dtype=bool))
        return prepare_counts(_columns(X, self.columns))

    def contains(self, block):
        """Whether each transaction contains each itemset."""
        if block.shape[0] == 0:  # also dask's (0, 0) probe of the output type
            return np.zeros((0, len(self.itemsets)), dtype=bool)
        X = incidence(block, self.binarize)
        if not sp.issparse(X) and len(self.columns) <= MAX_TIDSET_ITEMS:
            return Tidsets(_columns(X, self.columns)).contains(self.itemsets)
        X = sp.csc_matrix(X[:, self.columns], dtype=np.int64)
        out = np.empty((X.shape[0], len(self.itemsets)), dtype=bool)
        for j, itemset in enumerate(self.itemsets):
            out[:, j] = np.asarray(X[:, list(itemset)].sum(axis=1)).ravel() == len(itemset)
        return out
