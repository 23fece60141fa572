"""CategoricalNB's public category domain and the encoding of rows into category codes.

Every category count is noised, so the categories must be public: declared by the user
(``categories``) or derived from a public or privately estimated box, never read from
the data. Three encodings, one per feature:

* ``"declared"``: the user's list of category values; a value of ``X`` outside it is an
  error, as an unknown label is for ``classes``.
* ``"integer"``: the integers ``round(l_j), ..., round(u_j)`` of the box ``[l_j, u_j]``
  when there are between 2 and ``max_categories`` of them: ``x`` goes to
  ``clip(round(x), round(l_j), round(u_j))``. Integer-coded categories (what
  :class:`sklearn.preprocessing.OrdinalEncoder` gives, and what scikit-learn's
  :class:`~sklearn.naive_bayes.CategoricalNB` takes) stay themselves.
* ``"bins"``: ``AUTO_BINS`` (10) equal-width bins of the box otherwise (a box narrower
  than two integers, such as ``[0, 0.3]``, or wider than ``max_categories``): ``x`` goes
  to the bin holding ``clip(x, l_j, u_j)``.
"""

from dataclasses import dataclass

import numpy as np

from skdp.utils.validation import warn_clipped

__all__ = ["AUTO_BINS", "Encoding", "auto_encoding", "declared_encoding", "resolve_categories"]

AUTO_BINS = 10


def resolve_categories(categories, n_features):
    """``categories`` as a list of sorted unique float arrays, or None.

    Each entry is an int ``m`` (the codes ``0, ..., m - 1``) or an array-like of the
    feature's public category values (at least one, finite, numeric).
    """
    if categories is None:
        return None
    if len(categories) != n_features:
        raise ValueError(
            f"categories must have one entry per feature ({n_features}), got {len(categories)}"
        )
    out = []
    for j, entry in enumerate(categories):
        if np.ndim(entry) == 0:
            if not float(entry).is_integer() or entry < 1:
                raise ValueError(f"categories[{j}] must be a positive int or an array-like")
            values = np.arange(int(entry), dtype=float)
        else:
            values = np.unique(np.asarray(entry, dtype=float))
        if values.size == 0 or not np.all(np.isfinite(values)):
            raise ValueError(f"categories[{j}] must hold at least one finite value")
        out.append(values)
    return out


@dataclass
class Encoding:
    """Per feature, how a value becomes a category code (module docstring).

    Attributes
    ----------
    kinds : list of str
        ``"declared"``, ``"integer"`` or ``"bins"``.
    categories : list of ndarray
        The category values: declared values, the integers, or the bin centres.
    lower, upper : ndarray of shape (n_features,) or None
        The box of the integer and binned features (None when all are declared).
    """

    kinds: list
    categories: list
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None

    @property
    def n_categories(self):
        return np.array([c.size for c in self.categories], dtype=np.int64)

    def encode(self, X, *, warn=False, stacklevel=2):
        """The code of every value, shape ``X.shape``, of the smallest unsigned int dtype.

        ``X`` may be of any numeric dtype: each column is read in its own dtype (integer
        codes) or as float64, one column at a time, so no float copy of ``X`` is made.
        ``warn=True`` (in ``fit``) emits one ClippingWarning for the values moved into
        the box. A value outside the declared categories raises ValueError.
        """
        dtype = np.min_scalar_type(max(int(self.n_categories.max(initial=1)) - 1, 0))
        codes = np.empty(X.shape, dtype=dtype, order="F")  # one column at a time
        n_clipped = 0
        for j, (kind, values) in enumerate(zip(self.kinds, self.categories, strict=True)):
            column = X[:, j]
            if column.dtype.kind == "b":
                column = column.view(np.uint8)
            if kind == "declared":
                codes[:, j] = _declared_codes(column, values, j)
                continue
            column = column.astype(np.float64, copy=False)
            if kind == "integer":
                raw = np.rint(column) - values[0]
            else:
                width = (self.upper[j] - self.lower[j]) / values.size
                raw = np.floor((column - self.lower[j]) / width)
                # the upper bound itself belongs to the last bin
                raw[column == self.upper[j]] = values.size - 1
            inside = (raw >= 0) & (raw < values.size)
            n_clipped += int(np.count_nonzero(~inside))
            codes[:, j] = np.clip(raw, 0, values.size - 1, out=raw)
        if warn:
            warn_clipped(n_clipped, X.size, stacklevel=stacklevel + 1)
        return codes


def _declared_codes(column, values, j):
    """The index of every value of ``column`` in the sorted ``values``; unknown: error.

    The codes ``0, ..., m - 1`` (``categories`` given as an int) are read off the values
    themselves, in their own dtype; other category values are looked up in float64.
    """
    if np.array_equal(values, np.arange(values.size)):
        index = np.clip(column, 0, values.size - 1).astype(np.intp)
        unknown = index != column
    else:
        column = column.astype(np.float64, copy=False)
        index = np.clip(np.searchsorted(values, column), 0, values.size - 1)
        unknown = values[index] != column
    if np.any(unknown):
        raise ValueError(
            f"feature {j} has values outside its declared categories, "
            f"e.g. {np.float64(column[unknown][0])!r}"
        )
    return index


def declared_encoding(categories):
    """The encoding of declared categories (from :func:`resolve_categories`)."""
    return Encoding(["declared"] * len(categories), categories)


def auto_encoding(lower, upper, max_categories):
    """Integer codes or ``AUTO_BINS`` bins per feature of the box (module docstring)."""
    kinds, categories = [], []
    for low, high in zip(lower, upper, strict=True):
        first, last = np.rint(low), np.rint(high)
        if 2 <= last - first + 1 <= max_categories:
            kinds.append("integer")
            categories.append(np.arange(first, last + 1))
        else:
            kinds.append("bins")
            width = (high - low) / AUTO_BINS
            categories.append(low + width * (np.arange(AUTO_BINS) + 0.5))
    return Encoding(kinds, categories, np.asarray(lower, float), np.asarray(upper, float))
