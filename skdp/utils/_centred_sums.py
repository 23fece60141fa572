"""Private per-group counts, means and variances from midpoint-centred sums.

The primitive behind :class:`skdp.naive_bayes.GaussianNB` (one group per class) and
the private scalers (one group). Rows are clipped to the public box ``[l_j, u_j]``
and scaled to ``t_ij = (x_ij - c_j) / h_j`` in ``[-1, 1]`` around the midpoint
``c_j = (l_j + u_j) / 2`` with half-range ``h_j = (u_j - l_j) / 2``. Per group ``k``
three noisy statistics are released:

* the count ``n_k`` (discrete Laplace, :func:`~skdp.mechanisms.geometric`);
* the centred sums ``T_kj = sum_i t_ij``, i.e. ``S_kj = sum_i (x_ij - c_j) = h_j T_kj``;
* the centred squares ``R_kj = sum_i (t_ij^2 - 1/2)``, i.e.
  ``Q_kj = sum_i (x_ij - c_j)^2 = h_j^2 (R_kj + n_k / 2)``.

Everything after the noise is post-processing (module constants, B4/B6 of the spec)::

    n~   = max(n + Z, 1)
    mean = c + h * clip(T~ / n~, -1, 1)
    var  = h^2 * clip(R~ / n~ + 1/2 - clip(T~ / n~, -1, 1)^2, floor, 1)
    floor = max(var_floor, min(d / (2 epsilon_squares n~), 1))

The floor's second term is the noise scale of ``R~ / n~``: a noisy variance below it
cannot be told from 0, and clipping it to a tiny public floor makes a class density
arbitrarily peaked (Gaussian naive Bayes on Iris at epsilon 1, box ``[0, 8]``, 20
splits: 0.43 mean test accuracy with the floor ``var_floor`` alone, 0.64 with this
one; 0.65 and 0.90 at epsilon 5). It reads only public values and the noisy count.
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from skdp.mechanisms import check_random_state, geometric, laplace
from skdp.utils._stats import count_rows, is_dask_collection, sum_blocks
from skdp.utils.validation import check_epsilon, warn_clipped

__all__ = ["VAR_FLOOR", "CentredSums", "centred_sums", "count_clipped", "variance_floor"]

# public relative variance floor: var >= VAR_FLOOR * h^2 (std >= 1% of the half-range)
VAR_FLOOR = 1e-4


def variance_floor(n_features, epsilon_squares, n, var_floor=VAR_FLOOR):
    """``max(var_floor, min(d / (2 epsilon_squares n), 1))``, in units of ``h^2``.

    The noise scale of the centred squares over ``n`` records: a smaller variance
    cannot be told from 0 (module docstring). ``n`` may be an array (one per group).

    Examples
    --------
    >>> from skdp.utils._centred_sums import variance_floor
    >>> float(variance_floor(4, 0.5, 100))
    0.04
    """
    return np.maximum(var_floor, np.minimum(n_features / (2 * epsilon_squares * n), 1.0))


@dataclass
class CentredSums:
    """What :func:`centred_sums` released, and its post-processing.

    Attributes
    ----------
    count : ndarray of shape (n_groups,), int64
        The noisy counts ``n_k + Z_k`` (may be 0 or negative).
    n : ndarray of shape (n_groups,), float
        ``max(count, 1)``: the denominators of ``mean`` and ``var``.
    sums : ndarray of shape (n_groups, n_features)
        Noisy ``S_kj = sum_i (x_ij - c_j)`` over the clipped rows of group ``k``.
    squares : ndarray of shape (n_groups, n_features) or None
        Noisy ``Q_kj = sum_i (x_ij - c_j)^2`` (``h_j^2 (R~_kj + n~_k / 2)``); None when
        the squares were not released.
    mean : ndarray of shape (n_groups, n_features)
        ``c + clip(S~ / n~, -h, h)``: inside the public box.
    var : ndarray of shape (n_groups, n_features) or None
        ``clip(Q~ / n~ - (S~ / n~)^2, floor h^2, h^2)`` with the clipped mean and
        ``floor = max(var_floor, min(d / (2 epsilon_squares n~), 1))`` (module
        docstring); None without squares.
    centre, half : ndarray of shape (n_features,)
        The public midpoints ``c`` and half-ranges ``h``.
    """

    count: np.ndarray
    n: np.ndarray
    sums: np.ndarray
    squares: np.ndarray | None
    mean: np.ndarray
    var: np.ndarray | None
    centre: np.ndarray
    half: np.ndarray


# rows per block of the exact statistics
CHUNK_ROWS = 2**16


class _BlockStatistics:
    """Exact per-group counts, centred sums and squares of a block of rows, and how
    many values were clipped (picklable: dask runs it where the blocks live)."""

    def __init__(self, lower, upper, n_groups, *, squares):
        self.lower, self.upper, self.n_groups, self.squares = lower, upper, n_groups, squares
        self.centre, self.half = (lower + upper) / 2, (upper - lower) / 2
        # the bounds scaled as the values are (see count_clipped)
        self.inside = (
            ((lower - self.centre) / self.half).max(),
            ((upper - self.centre) / self.half).min(),
        )

    def __call__(self, X, groups=None):
        X = np.asarray(X, dtype=float)
        if groups is None:
            groups = np.zeros(X.shape[0], dtype=np.int64)
        groups = np.asarray(groups, dtype=np.int64)
        if groups.size and (groups.min() < 0 or groups.max() >= self.n_groups):
            raise ValueError(f"groups must be integers in [0, n_groups={self.n_groups})")
        k, d = self.n_groups, X.shape[1]
        sums, squares = np.zeros((k, d)), np.zeros((k, d if self.squares else 0))
        n_clipped = 0
        # blocks of rows: the temporaries stay small whatever n (peak memory)
        for start in range(0, X.shape[0], CHUNK_ROWS):
            block, group = X[start : start + CHUNK_ROWS], groups[start : start + CHUNK_ROWS]
            t = block - self.centre
            t /= self.half
            n_clipped += count_clipped(block, t, self.inside, self.lower, self.upper)
            # clipping the scaled values clips X to [lower, upper], despite rounding
            np.clip(t, -1.0, 1.0, out=t)
            sums += _group_sums(t, group, k)
            if self.squares:
                t *= t
                t -= 0.5
                squares += _group_sums(t, group, k)
        return np.bincount(groups, minlength=k), sums, squares, n_clipped


def count_clipped(values, scaled, scaled_box, lower, upper):
    """How many ``values`` lie outside ``[lower, upper]``, skipping the compares when none can.

    ``scaled`` is ``f(values)`` for a map ``f`` that rounds monotonically (such as
    ``(x - shift) / scale`` in floating point, which never decreases) and
    ``scaled_box = (max f(lower), min f(upper))``. ``f(x) > f(l)`` implies ``x > l``
    and ``f(x) < f(u)`` implies ``x < u``, so when every scaled value lies strictly
    inside the scaled box no value was outside the bounds: two reductions over
    ``scaled`` stand for two compares over ``values``. The count is exact either way.

    Parameters
    ----------
    values : ndarray
        The values before clipping.
    scaled : ndarray
        ``f(values)``, of the same shape.
    scaled_box : tuple of float
        ``(max f(lower), min f(upper))``.
    lower, upper : float or ndarray
        The public bounds, broadcast against ``values``.

    Returns
    -------
    int
        The number of values below ``lower`` or above ``upper``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._centred_sums import count_clipped
    >>> x = np.array([1.0, 5.0, 11.0])
    >>> count_clipped(x, (x - 5.0) / 5.0, (-1.0, 1.0), 0.0, 10.0)
    1
    """
    if scaled.size == 0 or (scaled.min() > scaled_box[0] and scaled.max() < scaled_box[1]):
        return 0
    return int(np.count_nonzero(values < lower) + np.count_nonzero(values > upper))


def _group_sums(values, groups, n_groups):
    """``(n_groups, n_columns)`` exact sums of the rows of ``values`` per group: one pass
    (a sparse group-indicator product), not one ``bincount`` per column."""
    if n_groups == 1:
        # einsum adds the rows in order as values.sum(axis=0) does (the same bits on
        # most blocks, else within an ulp or so) at a third of its time on C-ordered rows
        return np.einsum("ij->j", values)[None, :]
    rows = np.arange(values.shape[0])
    indicator = sp.csr_matrix(
        (np.ones(values.shape[0]), (groups, rows)), shape=(n_groups, values.shape[0])
    )
    return np.asarray(indicator @ values).reshape(n_groups, values.shape[1])


def _check_box(X, lower, upper):
    """``X`` (2-D, as float unless dask) and the bounds broadcast to its features."""
    X = X if is_dask_collection(X) else np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    lower, upper = (
        np.broadcast_to(np.asarray(b, dtype=float), X.shape[1:]) for b in (lower, upper)
    )
    if not np.all(lower < upper):
        raise ValueError("the bounds must satisfy lower < upper for every feature")
    return X, lower, upper


def _exact(statistics, X, groups, stacklevel):
    """Exact per-group counts, centred sums and squares (``_BlockStatistics``) of the
    clipped rows, block by block; warns (at ``stacklevel`` from the caller) when values
    were clipped."""
    n_groups = statistics.n_groups
    if groups is None:
        arrays = (X,)
    elif is_dask_collection(groups):  # codes checked where their blocks are computed
        arrays = (X, groups)
    else:
        groups = np.asarray(groups)
        if groups.shape != (X.shape[0],) or (
            groups.size and (groups.min() < 0 or groups.max() >= n_groups)
        ):
            raise ValueError(f"groups must be {X.shape[0]} integers in [0, n_groups={n_groups})")
        arrays = (X, groups.astype(np.int64))
    exact_count, exact_sums, exact_squares, n_clipped = sum_blocks(statistics, *arrays)
    warn_clipped(int(n_clipped), count_rows(X) * X.shape[1], stacklevel=stacklevel + 1)
    return exact_count, exact_sums, exact_squares


def centred_sums(
    X,
    lower,
    upper,
    *,
    groups=None,
    n_groups=1,
    epsilon_count=None,
    epsilon_sums,
    epsilon_squares=None,
    count=None,
    var_floor=VAR_FLOOR,
    stacklevel=2,
    random_state=None,
):
    """Release noisy per-group counts, centred sums and centred squares of clipped rows.

    Parameters
    ----------
    X : array-like or dask array of shape (n_samples, n_features)
        Finite values; those outside ``[lower, upper]`` are clipped (with a
        :class:`~skdp.exceptions.ClippingWarning`). A dask array is summed block by
        block where it lives (:func:`skdp.utils._stats.sum_blocks`); only the exact
        per-group statistics reach the caller, which adds the noise.
    lower, upper : float or array-like of shape (n_features,)
        The public bounds, ``lower < upper`` (never computed from ``X``).
    groups : array-like or dask array of shape (n_samples,) of int, default=None
        The public-index group of every row, in ``[0, n_groups)`` (the class index of
        a classifier); None puts every row in group 0.
    n_groups : int, default=1
        Number of groups; every group is noised, empty ones included.
    epsilon_count : float or None, default=None
        Budget of the counts (> 0); required unless ``count`` is given, and must then
        be None.
    epsilon_sums : float
        Budget of the sums (> 0).
    epsilon_squares : float or None, default=None
        Budget of the squares; None releases no squares (``var`` is then None).
    count : array-like of shape (n_groups,) of int or None, default=None
        Noisy counts the caller has already released (the ``count`` of an earlier
        release, e.g. the class counts a classifier released before estimating its
        bounds): they are reused, post-processing, and no count is released here. None
        releases the counts at ``epsilon_count``.
    var_floor : float, default=VAR_FLOOR
        Public relative variance floor ``kappa``: ``var >= kappa h^2`` (in ``(0, 1]``);
        the noise scale of the squares raises the floor further (module docstring).
    stacklevel : int, default=2
        Of the clipping warning, counted from this function's caller.
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`skdp.mechanisms.check_random_state`.

    Returns
    -------
    CentredSums

    Notes
    -----
    **Privacy**: ``epsilon_count + epsilon_sums + epsilon_squares``-DP under add/remove
    of one row (its group is part of the row); with ``count`` given, ``epsilon_sums +
    epsilon_squares`` on top of the release of ``count``. The row lies in one group and
    moves only that group's statistics (parallel composition over the groups), so each
    statistic is released for all groups at once, as one vector whose L1 sensitivity
    is the one of a single group (one mechanism call per statistic, noise on every
    group, empty ones included). Within its group the row moves:

    * the count by 1: sensitivity 1 (the counts are a histogram);
    * the vector ``(T_kj)_j`` by ``sum_j |t_ij| <= d`` in L1, where ``|t_ij| <= 1``
      after clipping: sensitivity ``d``, so one Laplace release at ``epsilon_sums``
      puts noise of scale ``d / epsilon_sums`` on every ``T_kj``, i.e.
      ``d h_j / epsilon_sums`` on ``S_kj``. This is the even split of
      ``epsilon_sums`` over the features (per feature sensitivity ``h_j`` at
      ``epsilon_sums / d``) in one call: every feature gets the same *relative*
      noise, which minimises the sum of the squared relative errors
      (``sum_j 1 / epsilon_j^2`` under ``sum_j epsilon_j`` fixed) and never lets a wide
      feature drown a narrow one, as one release of the raw ``S`` at L1 sensitivity
      ``sum_j h_j`` would (noise ``sum_j h_j / epsilon_sums`` on every feature: equal
      only when all ``h_j`` are). One call also records exactly ``epsilon_sums``;
    * the vector ``(R_kj)_j`` by ``sum_j |t_ij^2 - 1/2| <= d / 2`` in L1, since
      ``t^2`` lies in ``[0, 1]``: sensitivity ``d / 2``, half that of the plain squares
      ``sum_i t_ij^2`` (``d``, i.e. ``h_j^2`` per feature at ``epsilon / d``). The
      ``n / 2`` added back in post-processing uses the noisy count.

    The midpoint centring gives ``h_j = (u_j - l_j) / 2`` for the sums, where a raw
    sum has ``max(|l_j|, |u_j|) >= h_j`` (diffprivlib's ``u_j - l_j`` is a
    substitution sensitivity, and understated under add/remove when the range
    excludes 0). Substitution of one row costs twice the budget. No exact count is
    released: only ``count``, and what is computed from it.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.utils._centred_sums import centred_sums
    >>> X = np.random.default_rng(0).uniform(0, 10, size=(10000, 2))
    >>> out = centred_sums(X, 0.0, 10.0, epsilon_count=0.2, epsilon_sums=0.4,
    ...                    epsilon_squares=0.4, random_state=0)
    >>> out.mean.round(1), out.var.round(0)
    (array([[5., 5.]]), array([[8., 8.]]))
    """
    X, lower, upper = _check_box(X, lower, upper)
    if not 0 < var_floor <= 1:
        raise ValueError(f"var_floor must be in (0, 1], got {var_floor!r}")
    if (count is None) == (epsilon_count is None):
        raise ValueError("give exactly one of epsilon_count (release the counts) and count")
    if count is not None:
        count = np.asarray(count)
        if count.shape != (n_groups,) or not np.issubdtype(count.dtype, np.integer):
            raise ValueError(f"count must be {n_groups} released integer counts")
    epsilons = [
        None if count is not None else check_epsilon(epsilon_count),
        check_epsilon(epsilon_sums),
    ]
    if epsilon_squares is not None:
        epsilons.append(check_epsilon(epsilon_squares))
    rng = check_random_state(random_state)
    statistics = _BlockStatistics(lower, upper, n_groups, squares=len(epsilons) == 3)
    exact_count, exact_sums, exact_squares = _exact(statistics, X, groups, stacklevel + 1)
    d = X.shape[1]
    centre, half = statistics.centre, statistics.half
    exact_squares = exact_squares if len(epsilons) == 3 else None

    # one release per statistic over all groups: a row lies in one group, so the
    # (n_groups,) counts have L1 sensitivity 1 and the (n_groups, d) sums d
    if count is None:
        count = geometric(exact_count, epsilon=epsilons[0], random_state=rng)
    sums = laplace(exact_sums, sensitivity=d, epsilon=epsilons[1], random_state=rng)
    squares = None
    if exact_squares is not None:
        squares = laplace(exact_squares, sensitivity=d / 2, epsilon=epsilons[2], random_state=rng)
    n = np.maximum(count, 1).astype(float)
    m = np.clip(sums / n[:, None], -1.0, 1.0)
    var = None
    if squares is not None:
        second = squares / n[:, None] + 0.5
        # a noisy variance below the noise scale of R~ / n~ is indistinguishable from 0
        floor = variance_floor(d, epsilons[2], n, var_floor)
        var = np.clip(second - m**2, floor[:, None], 1.0) * half**2
        squares = (squares + n[:, None] / 2) * half**2
    return CentredSums(
        count=count,
        n=n,
        sums=sums * half,
        squares=squares,
        mean=centre + m * half,
        var=var,
        centre=centre,
        half=half,
    )
