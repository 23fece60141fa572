"""One-hot encoding of transactions (sets of items) as a boolean incidence matrix."""

import warnings
from collections import Counter
from collections.abc import Iterable
from itertools import pairwise, repeat

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from skdp.accounting import PrivacyBudget
from skdp.exceptions import PrivacyLeakWarning
from skdp.frequent_patterns._bitmask import _as_bool

__all__ = ["TransactionEncoder"]


class TransactionEncoder(TransformerMixin, BaseEstimator):
    """Encode transactions as a boolean matrix with one column per item.

    A scikit-learn version of mlxtend's ``TransactionEncoder``: ``fit`` fixes the item
    columns, ``transform`` marks the items of each transaction and ``inverse_transform``
    turns the matrix back into lists of items.

    Privacy: the encoder adds no noise and is not differentially private. Given
    ``items``, its columns are a public encoding that reads nothing from the data, and
    :func:`skdp.privacy_spent` charges it nothing. With ``items=None`` the columns are
    the items that occur in the data, which discloses them: ``fit`` raises a
    :class:`~skdp.exceptions.PrivacyLeakWarning` and ``privacy_spent`` reports
    ``epsilon=inf``.

    Parameters
    ----------
    items : array-like, default=None
        The public item universe, one column per item in the given order (duplicates
        are an error). None takes the sorted distinct items of the data passed to
        ``fit`` (by their ``str`` when they cannot be compared).
    sparse_output : bool, default=False
        ``transform`` returns a ``scipy.sparse.csr_matrix`` instead of a numpy array.
    handle_unknown : {"error", "ignore"}, default="error"
        What ``transform`` does with an item outside the columns: raise a ValueError
        naming it, or leave it out.

    Attributes
    ----------
    columns_ : list
        The item of each column.
    columns_mapping_ : dict
        The column of each item.

    See Also
    --------
    skdp.datasets.fetch_msnbc : Transactions already encoded as a sparse matrix.

    Examples
    --------
    >>> from skdp.frequent_patterns import TransactionEncoder
    >>> baskets = [["bread", "milk"], ["milk"], [], ["eggs", "bread", "bread"]]
    >>> encoder = TransactionEncoder(items=["bread", "eggs", "milk"])
    >>> encoder.fit_transform(baskets).astype(int)
    array([[1, 0, 1],
           [0, 0, 1],
           [0, 0, 0],
           [1, 1, 0]])
    >>> encoder.inverse_transform(encoder.transform(baskets))
    [['bread', 'milk'], ['milk'], [], ['bread', 'eggs']]
    """

    _parameter_constraints = {
        "items": ["array-like", None],
        "sparse_output": ["boolean"],
        "handle_unknown": [StrOptions({"error", "ignore"})],
    }

    def __init__(self, *, items=None, sparse_output=False, handle_unknown="error"):
        self.items = items
        self.sparse_output = sparse_output
        self.handle_unknown = handle_unknown

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fix the item columns.

        Parameters
        ----------
        X : iterable of iterables
            The transactions, each an iterable of hashable items. Only read when
            ``items`` is None.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        if self.items is None:
            columns = _sorted_items(set(_flatten(X)[0]))
            warnings.warn(
                "items=None: the item set was read from the data, which discloses which "
                "items occur. Pass items= to declare the public item universe.",
                PrivacyLeakWarning,
                stacklevel=3,
            )
        else:
            columns = _public_items(self.items)
        self.columns_ = columns
        self.columns_mapping_ = {item: j for j, item in enumerate(columns)}
        return self

    def fit_transform(self, X, y=None):
        """Fit, then transform ``X`` (read once, even when it is an iterator).

        Parameters
        ----------
        X : iterable of iterables
        y : None
            Ignored.

        Returns
        -------
        ndarray or csr_matrix of shape (n_transactions, n_items), bool
        """
        X = X if hasattr(X, "__len__") else list(X)
        return self.fit(X).transform(X)

    def transform(self, X):
        """Mark the items of each transaction.

        Parameters
        ----------
        X : iterable of iterables
            The transactions; repeated items count once, an empty one gives a row of
            False.

        Returns
        -------
        ndarray or csr_matrix of shape (n_transactions, n_items), bool
            True where the transaction contains the column's item.
        """
        check_is_fitted(self)
        flat, indptr = _flatten(X)
        codes = np.fromiter(
            map(self.columns_mapping_.get, flat, repeat(-1)), dtype=np.int64, count=len(flat)
        )
        unknown = codes < 0
        if unknown.any():
            if self.handle_unknown == "error":
                at = int(np.argmax(unknown))
                row = int(np.searchsorted(indptr, at, side="right")) - 1
                raise ValueError(
                    f"Unknown item {flat[at]!r} in transaction {row}; pass it in items= or "
                    "set handle_unknown='ignore'."
                )
            codes = codes[~unknown]
            indptr = np.concatenate(([0], np.cumsum(~unknown)))[indptr]
        shape = (len(indptr) - 1, len(self.columns_))
        encoded = sp.csr_matrix((np.ones(len(codes), dtype=bool), codes, indptr), shape=shape)
        encoded.sum_duplicates()
        return encoded if self.sparse_output else encoded.toarray()

    def inverse_transform(self, X):
        """The items of each row, in column order.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_transactions, n_items)
            Boolean or 0/1.

        Returns
        -------
        list of list
        """
        check_is_fitted(self)
        if not sp.issparse(X):
            X = np.asarray(X)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional; got {X.ndim} dimension(s).")
        X = sp.csr_matrix(X, copy=True)
        if X.shape[1] != len(self.columns_):
            raise ValueError(
                f"X has {X.shape[1]} columns, but the encoder has {len(self.columns_)} items."
            )
        X.data = _as_bool(X.data)
        X.sum_duplicates()
        X.eliminate_zeros()
        flat = list(map(self.columns_.__getitem__, X.indices.tolist()))
        return [flat[start:stop] for start, stop in pairwise(X.indptr.tolist())]

    def get_feature_names_out(self, input_features=None):
        """The items as strings, one per output column.

        Parameters
        ----------
        input_features : None
            Ignored: the input has no feature names.

        Returns
        -------
        ndarray of shape (n_items,), object
        """
        check_is_fitted(self)
        return np.asarray([str(item) for item in self.columns_], dtype=object)

    def _privacy_budget(self):
        """What ``fit`` spends, for :func:`skdp.privacy_spent`: nothing given ``items``.

        With ``items=None`` the fit reads the item set from the data without
        differential privacy and declares no budget (None): ``privacy_spent`` then
        charges ``epsilon=inf`` with a ``PrivacyLeakWarning``.
        """
        return None if self.items is None else PrivacyBudget(0.0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False  # an iterable of transactions
        tags.input_tags.string = True
        tags.transformer_tags.preserves_dtype = []  # the output is boolean
        tags.requires_fit = True  # items=None learns the item set from the data
        tags.non_deterministic = False
        return tags


def _flatten(X):
    """All items of all transactions in order, and where each transaction starts."""
    if isinstance(X, str | bytes) or not isinstance(X, Iterable):
        raise TypeError(f"X must be an iterable of transactions; got {type(X).__name__}.")
    flat, ends = [], []
    for transaction in X:
        if isinstance(transaction, str | bytes):
            raise TypeError(
                f"Each transaction must be an iterable of items, not a string: {transaction!r}."
            )
        flat.extend(transaction)
        ends.append(len(flat))
    indptr = np.zeros(len(ends) + 1, dtype=np.int64)
    indptr[1:] = ends
    return flat, indptr


def _public_items(items):
    if isinstance(items, set | frozenset):
        raise ValueError("items must be ordered (its order is the column order), not a set.")
    items = list(items.tolist() if hasattr(items, "tolist") else items)
    if len(set(items)) != len(items):
        repeated = next(item for item, count in Counter(items).items() if count > 1)
        raise ValueError(f"items contains duplicates, e.g. {repeated!r}.")
    return items


def _sorted_items(items):
    try:
        return sorted(items)
    except TypeError:
        # mixed types: order by text, then by type name to break ties such as 1 and "1"
        return sorted(items, key=lambda item: (str(item), type(item).__name__))
