"""``skdp.tools.count_nonzero``: the private number of non-zero values.

Each record is one element of a 1-D ``a`` or one row of a 2-D ``a``; the neighbouring
relation is add/remove of one record. No bounds and no count are needed: one discrete
Laplace release of the counts.
"""

import numpy as np

from skdp.mechanisms import check_random_state, geometric
from skdp.tools._statistics import _check_data
from skdp.utils.validation import check_epsilon

__all__ = ["count_nonzero"]


def count_nonzero(a, axis=None, *, epsilon, random_state=None):
    """Private number of non-zero values, like :func:`numpy.count_nonzero`.

    Parameters
    ----------
    a : array-like or dask array of shape (n,) or (n, d)
        Finite values, one record per element (1-D) or per row (2-D). A dask array is
        summed block by block where it lives.
    axis : None or int, default=None
        None: of all values; 0: one count per column of a 2-D ``a``.
    epsilon : float
        Privacy budget of the whole call (> 0).
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`skdp.mechanisms.check_random_state`.

    Returns
    -------
    int or ndarray of shape (d,) of int
        Noisy counts (discrete, may be negative for tiny counts: no clipping, so
        they stay unbiased).

    See Also
    --------
    sum : The private sum.

    Notes
    -----
    **Privacy**: ``epsilon``-DP under add/remove of one record. One record moves the
    count of each column by at most 1, the vector of the ``d`` column counts by at
    most ``d`` in L1 (and the total by at most ``d``): one discrete Laplace release
    (:func:`skdp.mechanisms.geometric`) at sensitivity ``d``. No bounds are needed.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.tools import count_nonzero
    >>> x = np.random.default_rng(0).integers(0, 3, size=1000)
    >>> int(np.count_nonzero(x))
    685
    >>> int(count_nonzero(x, epsilon=1.0, random_state=0))
    685
    """
    X, squeeze = _check_data(a, axis)
    epsilon, rng = check_epsilon(epsilon), check_random_state(random_state)
    d = X.shape[1]
    if squeeze:
        exact = np.int64(np.asarray(np.count_nonzero(X)))
        return int(geometric(exact, sensitivity=d, epsilon=epsilon, random_state=rng))
    exact = np.asarray(np.count_nonzero(X, axis=0)).astype(np.int64)
    return np.asarray(geometric(exact, sensitivity=d, epsilon=epsilon, random_state=rng))
