"""A clear error for text or categorical columns reaching an estimator that needs numbers.

scikit-learn's ``validate_data`` converts a DataFrame with ``numpy.asarray``, which
fails inside pandas ("could not convert string to float: 'x'") without naming the
column. :func:`validate_numeric_data` looks at the column dtypes first (no values of
numeric columns are read) and names the columns and what to do.
"""

import numpy as np
import pandas as pd
from sklearn.utils.validation import validate_data

# what pandas.api.types.infer_dtype reports for object columns that convert to float
_NUMERIC_INFERRED = {"integer", "floating", "mixed-integer-float", "decimal", "boolean", "empty"}

ENCODE_ADVICE = (
    "Encode them as numbers first, e.g. with sklearn.preprocessing.OneHotEncoder in a "
    "ColumnTransformer inside a Pipeline, or use skdp.tree.DPDecisionTree, which takes "
    "categorical columns."
)


def _is_numeric_column(column):
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return pd.api.types.is_numeric_dtype(dtype.categories.dtype)
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        return True
    if pd.api.types.is_object_dtype(dtype):
        return pd.api.types.infer_dtype(column, skipna=True) in _NUMERIC_INFERRED
    return False  # strings, datetimes, intervals, periods...


def non_numeric_columns(X):
    """The names of the columns of ``X`` that do not convert to numbers.

    Parameters
    ----------
    X : object
        A pandas DataFrame is inspected column by column; a numpy array of strings
        or bytes counts as one bad "column" named ``"X"``; anything else gives ``[]``.

    Returns
    -------
    list of str
        The offending column names with their dtype, e.g. ``"'city' (category)"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from skdp.utils._numeric_input import non_numeric_columns
    >>> non_numeric_columns(pd.DataFrame({"age": [30, 40], "city": pd.Categorical(["a", "b"])}))
    ["'city' (category)"]
    """
    if isinstance(X, pd.DataFrame):
        return [
            f"{name!r} ({X.dtypes.iloc[i]})"
            for i, name in enumerate(X.columns)
            if not _is_numeric_column(X.iloc[:, i])
        ]
    if isinstance(X, np.ndarray) and X.dtype.kind in "USa":
        return [f"'X' ({X.dtype})"]
    return []


def check_numeric_columns(X, *, estimator_name):
    """Raise a ``ValueError`` naming the non-numeric columns of ``X``, if any.

    Parameters
    ----------
    X : object
        The input about to be converted to floats.
    estimator_name : str
        Named in the message.

    Examples
    --------
    >>> import pandas as pd
    >>> from skdp.utils._numeric_input import check_numeric_columns
    >>> X = pd.DataFrame({"age": [30, 40], "city": pd.Categorical(["a", "b"])})
    >>> check_numeric_columns(X, estimator_name="DPKMeans")
    Traceback (most recent call last):
    ...
    ValueError: DPKMeans needs numeric input, but column(s) 'city' (category) ...
    """
    bad = non_numeric_columns(X)
    if bad:
        raise ValueError(
            f"{estimator_name} needs numeric input, but column(s) {', '.join(bad[:10])}"
            f"{' ...' if len(bad) > 10 else ''} hold text or categories. {ENCODE_ADVICE}"
        )


def validate_numeric_data(estimator, X, *args, **kwargs):
    """sklearn's ``validate_data``, after :func:`check_numeric_columns` on ``X``.

    Parameters
    ----------
    estimator : estimator instance
        Passed on, and its class named in the error.
    X : array-like
        The input.
    *args, **kwargs
        Passed on to :func:`sklearn.utils.validation.validate_data`.

    Returns
    -------
    object
        What ``validate_data`` returns.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.base import BaseEstimator
    >>> from skdp.utils._numeric_input import validate_numeric_data
    >>> validate_numeric_data(BaseEstimator(), pd.DataFrame({"a": [1.0, 2.0]})).shape
    (2, 1)
    """
    check_numeric_columns(X, estimator_name=type(estimator).__name__)
    return validate_data(estimator, X, *args, **kwargs)
