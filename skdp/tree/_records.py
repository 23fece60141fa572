"""The encoded records of a numpy fit, held column by column without a second copy of X.

A numeric column that needs no clipping is the user's own column (a view, never
written); a clipped or converted one is a float copy of that column alone; categorical
columns are their small integer codes (leaf indices or category indices, one or two
bytes a record). The counting code reads a column at a time (``encoded[:, j]``), so it
takes these as it takes a 2-D array, and computes the same positions and bins: the
values compared with the split points are the same float64 numbers, and integer codes
compare with the float edges exactly.
"""

import numpy as np

from skdp.utils.validation import clip_to_bounds


class EncodedColumns:
    """One encoded column per attribute, read as ``encoded[:, j]``.

    Parameters
    ----------
    columns : list of ndarray of shape (n_samples,)
        Numbers (float64, possibly views of the caller's array) or non-negative codes.
    n_samples : int
    """

    def __init__(self, columns, n_samples):
        self.columns = list(columns)
        self.shape = (int(n_samples), len(self.columns))

    def __getitem__(self, key):
        rows, j = key
        if not (isinstance(rows, slice) and rows == slice(None)):
            raise IndexError("EncodedColumns takes only whole columns: encoded[:, j]")
        return self.columns[j]


def numeric_column(column, low, high, name, clip_warning):
    """The numbers of ``column`` (a view where it holds float64), checked finite, and
    clipped into ``[low, high]`` when ``clip_warning``: the array itself when nothing
    lies outside (no copy), else :func:`~skdp.utils.validation.clip_to_bounds`' copy
    and its warning."""
    values = np.asarray(column, dtype=float)
    inside = True  # nothing to clip
    if clip_warning and values.size and (np.isfinite(low) or np.isfinite(high)):
        inside = values.min() >= low and values.max() <= high  # False on a NaN
        if inside and np.isfinite(low) and np.isfinite(high):
            return values  # inside a finite box: finite too
    if not np.isfinite(values).all():
        raise ValueError(f"Input X contains NaN or infinity in column {name!r}")
    return values if inside else clip_to_bounds(values, low, high, name=f"column {name!r}")
