"""``skdp.tools.median`` and ``percentile``: thin wrappers over :func:`~skdp.tools.quantile`."""

import numpy as np

from skdp.mechanisms import check_random_state
from skdp.tools._quantile import quantile
from skdp.utils.validation import check_epsilon, split_budget

__all__ = ["median", "percentile"]


def _per_column(a, q, axis, epsilon, random_state, options):
    """``quantile`` of a 1-D ``a``, or of each column of a 2-D ``a`` at ``epsilon / d``."""
    values = np.asarray(a)
    if values.ndim == 2 and axis in (0, -2) and not isinstance(axis, bool):
        epsilon, rng = check_epsilon(epsilon), check_random_state(random_state)
        shares = split_budget(epsilon, [1.0] * values.shape[1])
        bounds = options.pop("bounds", None)
        if bounds is not None:
            lower, upper = (
                np.broadcast_to(np.asarray(b, dtype=float), (len(shares),)) for b in bounds
            )
        out = []
        for j, share in enumerate(shares):
            column_bounds = None if bounds is None else (float(lower[j]), float(upper[j]))
            estimate = quantile(
                values[:, j], q, epsilon=share, bounds=column_bounds, random_state=rng, **options
            )
            out.append(estimate)
        return np.stack(out, axis=-1)
    if axis not in (None, 0, -1) or isinstance(axis, bool) or values.ndim > 1:
        raise ValueError(
            f"axis must be None (1-D input) or 0 (2-D input, one release per column), got "
            f"axis={axis!r} with shape {values.shape}"
        )
    return quantile(values, q, epsilon=epsilon, random_state=random_state, **options)


def median(a, axis=None, *, epsilon, bounds=None, random_state=None):
    """Private median, like :func:`numpy.median`: ``quantile(a, 0.5, ...)``.

    Parameters
    ----------
    a : array-like of shape (n,) or (n, d)
        Finite values, one record per element (1-D) or per row (2-D).
    axis : None or int, default=None
        None for 1-D input; 0: one median per column of a 2-D ``a``, each at
        ``epsilon / d`` (sequential composition over the columns).
    epsilon : float
        Privacy budget of the whole call (> 0).
    bounds : None or (lower, upper), default=None
        Public bounds (scalars, or arrays of shape ``(d,)`` with ``axis=0``), or None
        (Durfee's unbounded scan, no range needed): see :func:`~skdp.tools.quantile`.
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`skdp.mechanisms.check_random_state`.

    Returns
    -------
    float or ndarray of shape (d,)
        The private median(s).

    See Also
    --------
    quantile : The release this wraps, with its error bounds.

    Notes
    -----
    **Privacy**: ``epsilon``-DP under add/remove of one record. One quantile release
    per column (a rank query of sensitivity 1 per column; the proofs are those of
    :func:`~skdp.tools.quantile`); a record holds one value of each column, so the
    ``d`` releases compose sequentially, ``epsilon / d`` each.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.tools import median
    >>> ages = np.random.default_rng(0).integers(17, 91, size=5000)
    >>> float(np.median(ages))
    54.0
    >>> median(ages, epsilon=0.5, bounds=(0, 128), random_state=0)
    54.0
    """
    options = {"bounds": bounds}
    return _per_column(a, 0.5, axis, epsilon, random_state, options)


def percentile(a, q, axis=None, *, epsilon, bounds=None, method=None, random_state=None):
    """Private ``q``-th percentile(s), like :func:`numpy.percentile`.

    ``quantile(a, q / 100, ...)``: see :func:`~skdp.tools.quantile` for the methods,
    the sensitivities and the error.

    Parameters
    ----------
    a : array-like of shape (n,) or (n, d)
        Finite values, one record per element (1-D) or per row (2-D).
    q : float or array-like of float
        Percentiles in ``(0, 100)``.
    axis : None or int, default=None
        None for 1-D input; 0: one release per column of a 2-D ``a``, each at
        ``epsilon / d``.
    epsilon : float
        Privacy budget of the whole call (> 0).
    bounds : None or (lower, upper), default=None
        Public bounds, or None (no range needed).
    method : {"joint", "independent"} or None, default=None
        As in :func:`~skdp.tools.quantile`.
    random_state : None, int or numpy.random.Generator, default=None
        See :func:`skdp.mechanisms.check_random_state`.

    Returns
    -------
    float or ndarray
        The shape of ``q`` (1-D input), with a last axis of length ``d`` for
        ``axis=0``.

    See Also
    --------
    quantile : The same with levels in ``(0, 1)``.

    Notes
    -----
    **Privacy**: ``epsilon``-DP under add/remove of one record, by
    :func:`~skdp.tools.quantile` (rank queries of sensitivity 1, or the JointExp score
    whose sensitivity it derives); ``axis=0`` splits ``epsilon`` evenly over the
    columns (sequential composition).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.tools import percentile
    >>> ages = np.random.default_rng(0).integers(17, 91, size=5000)
    >>> np.percentile(ages, [25, 75])
    array([35., 73.])
    >>> percentile(ages, [25, 75], epsilon=0.5, bounds=(0, 128), random_state=0)
    array([35., 73.])
    """
    levels = np.asarray(q, dtype=float) / 100
    options = {"bounds": bounds, "method": method}
    return _per_column(a, levels, axis, epsilon, random_state, options)
