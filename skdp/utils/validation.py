"""Validation of privacy parameters and public inputs.

Everything here is deterministic and reads no noise; the private estimation of
bounds lives in :mod:`skdp.utils._bounds`.
"""

import math
import warnings
from collections.abc import Mapping
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from skdp.exceptions import ClippingWarning
from skdp.utils._classes import resolve_classes
from skdp.utils._shares import closing_share

__all__ = [
    "EPSILON_CONSTRAINT",
    "RANDOM_STATE_CONSTRAINT",
    "check_epsilon",
    "check_sensitivity",
    "clip_rows_to_norm",
    "clip_to_bounds",
    "closing_share",
    "resolve_bounds",
    "resolve_classes",
    "split_budget",
    "warn_clipped",
]


def _check_positive_finite(value, name):
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def check_epsilon(epsilon, *, name="epsilon"):
    """Return ``epsilon`` as a float after checking that it is finite and > 0.

    Parameters
    ----------
    epsilon : float
        The privacy budget to check.
    name : str, default="epsilon"
        The parameter name used in error messages.

    Returns
    -------
    epsilon : float
        ``epsilon`` as a float.

    Raises
    ------
    ValueError
        When ``epsilon`` is not a real number, or is not finite and > 0.

    Examples
    --------
    >>> from skdp.utils.validation import check_epsilon
    >>> check_epsilon(1)
    1.0
    >>> check_epsilon(float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a finite number > 0, got nan
    """
    return _check_positive_finite(epsilon, name)


def check_sensitivity(sensitivity, *, name="sensitivity"):
    """Return ``sensitivity`` as a float after checking that it is finite and > 0.

    A sensitivity of 0 means the output does not depend on the data: there is
    nothing to noise, so it is refused rather than silently released.

    Parameters
    ----------
    sensitivity : float
        The most the noised value can change between neighbouring datasets.
    name : str, default="sensitivity"
        The parameter name used in error messages.

    Returns
    -------
    sensitivity : float
        ``sensitivity`` as a float.

    Raises
    ------
    ValueError
        When ``sensitivity`` is not a real number, or is not finite and > 0.

    Examples
    --------
    >>> from skdp.utils.validation import check_sensitivity
    >>> check_sensitivity(2)
    2.0
    >>> check_sensitivity(0, name="bounds_y width")
    Traceback (most recent call last):
    ...
    ValueError: bounds_y width must be a finite number > 0, got 0.0
    """
    return _check_positive_finite(sensitivity, name)


def resolve_bounds(bounds, n_features, *, feature_names=None, name="bounds"):
    """Parse public bounds into two float arrays of length ``n_features``.

    Parameters
    ----------
    bounds : None, tuple or dict
        ``(lower, upper)`` with scalars (the same for every feature) or arrays of
        length ``n_features``; or, for DataFrames, ``{column: (lower, upper)}`` naming
        every column. ``None`` is returned as ``None``: the caller then estimates
        bounds privately (:func:`skdp.utils._bounds.estimate_bounds`).
    n_features : int
        Number of features: the length of the returned arrays.
    feature_names : array-like of str, optional
        Needed for the dict form.
    name : str, default="bounds"
        The parameter name used in error messages.

    Returns
    -------
    (lower, upper) : tuple of ndarray of shape (n_features,), or None
        The bounds per feature, ``lower < upper``; None when ``bounds`` is None.

    Examples
    --------
    >>> from skdp.utils.validation import resolve_bounds
    >>> resolve_bounds((0, [1, 2]), 2)
    (array([0., 0.]), array([1., 2.]))
    """
    if bounds is None:
        return None
    if isinstance(bounds, Mapping):
        if feature_names is None:
            raise ValueError(
                f"{name} given as a dict needs a DataFrame whose column names are all "
                "strings; pass (lower, upper) arrays in column order instead"
            )
        names = [str(f) for f in feature_names]
        unknown = sorted(set(map(str, bounds)) - set(names))
        missing = [f for f in names if f not in {str(k) for k in bounds}]
        if unknown or missing:
            raise ValueError(
                f"{name} must name every column exactly once; "
                f"missing: {missing}, not columns: {unknown}"
            )
        by_name = {str(k): v for k, v in bounds.items()}
        pairs = [_as_pair(by_name[f], f"{name}[{f!r}]") for f in names]
        lower, upper = (np.array([p[i] for p in pairs], dtype=float) for i in (0, 1))
    else:
        lower, upper = _as_pair(bounds, name)
        try:
            lower, upper = (
                np.broadcast_to(np.asarray(b, dtype=float), (n_features,)).copy()
                for b in (lower, upper)
            )
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"{name} must hold scalars or arrays of length n_features={n_features}"
            ) from exc
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError(f"{name} must be finite")
    bad = np.flatnonzero(lower >= upper)
    if bad.size:
        raise ValueError(f"{name}: lower must be < upper, not so for feature(s) {bad.tolist()}")
    return lower, upper


def _as_pair(bounds, name):
    if isinstance(bounds, str) or not hasattr(bounds, "__len__") or len(bounds) != 2:
        raise ValueError(f"{name} must be a (lower, upper) pair, got {bounds!r}")
    return bounds[0], bounds[1]


def clip_to_bounds(X, lower, upper, *, name="X"):
    """Clip ``X`` to the public box, warning how many values were clipped.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples,)
        The values to clip (converted to float).
    lower, upper : float or ndarray of shape (n_features,)
        The public bounds, per feature or the same for all.
    name : str, default="X"
        Names the data in the warning.

    Returns
    -------
    ndarray
        A clipped copy; ``X`` itself is never modified.

    Warns
    -----
    ClippingWarning
        When any value lay outside ``[lower, upper]``.

    Examples
    --------
    >>> import warnings
    >>> from skdp.utils.validation import clip_to_bounds
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     clipped = clip_to_bounds([[-1.0, 0.5], [0.2, 3.0]], [0.0, 0.0], [1.0, 2.0])
    >>> clipped
    array([[0. , 0.5],
           [0.2, 2. ]])
    >>> print(caught[0].message)
    2 of 4 values of X lay outside the public bounds and were clipped to them.
    """
    X = np.asarray(X, dtype=float)
    clipped = np.clip(X, lower, upper)
    warn_clipped(int(np.count_nonzero(clipped != X)), X.size, name=name, stacklevel=3)
    return clipped


def warn_clipped(n_clipped, n_values, *, name="X", stacklevel=2):
    """Say how many values were clipped to the public bounds (nothing when none was).

    Parameters
    ----------
    n_clipped : int
        Values that lay outside the bounds.
    n_values : int
        Values looked at.
    name : str, default="X"
        Names the data in the warning.
    stacklevel : int, default=2
        As in :func:`warnings.warn`.

    Warns
    -----
    ClippingWarning
        When ``n_clipped > 0``.

    Examples
    --------
    >>> import warnings
    >>> from skdp.utils.validation import warn_clipped
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_clipped(3, 10)
    >>> print(caught[0].message)
    3 of 10 values of X lay outside the public bounds and were clipped to them.
    """
    if n_clipped:
        warnings.warn(
            f"{n_clipped} of {n_values} values of {name} lay outside the public bounds "
            "and were clipped to them.",
            ClippingWarning,
            stacklevel=stacklevel,
        )


def clip_rows_to_norm(X, max_norm, *, name="X"):
    """Scale down the rows of ``X`` whose L2 norm exceeds ``max_norm``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows to clip (converted to float).
    max_norm : float
        The public bound on the L2 norm of a row (finite, > 0).
    name : str, default="X"
        Names the data in the warning.

    Returns
    -------
    ndarray
        A copy with every row norm at most ``max_norm``.

    Warns
    -----
    ClippingWarning
        When any row was scaled down.

    Examples
    --------
    >>> import warnings
    >>> from skdp.utils.validation import clip_rows_to_norm
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     clip_rows_to_norm([[3.0, 4.0], [0.3, 0.4]], 1.0)
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """
    max_norm = _check_positive_finite(max_norm, "max_norm")
    X = np.asarray(X, dtype=float)
    norms = np.linalg.norm(X, axis=1)
    too_long = norms > max_norm
    if not too_long.any():
        return X.copy()
    warnings.warn(
        f"{int(too_long.sum())} of {X.shape[0]} rows of {name} had an L2 norm above "
        f"{max_norm:g} and were scaled down to it.",
        ClippingWarning,
        stacklevel=2,
    )
    scale = np.ones_like(norms)
    scale[too_long] = max_norm / norms[too_long]
    return X * scale[:, np.newaxis]


def split_budget(epsilon, shares):
    """Split ``epsilon`` in proportion to ``shares``; the parts add up to ``epsilon``.

    Parameters
    ----------
    epsilon : float
        The budget to split (finite, > 0).
    shares : dict of str to float, or sequence of float
        Positive weights.

    Returns
    -------
    dict or list of float
        The same container kind as ``shares``.

    Examples
    --------
    >>> from skdp.utils.validation import split_budget
    >>> split_budget(1.0, {"bounds": 1, "fit": 9})
    {'bounds': 0.1, 'fit': 0.9}
    """
    epsilon = check_epsilon(epsilon)
    names = list(shares) if isinstance(shares, Mapping) else None
    weights = [shares[k] for k in names] if names is not None else list(shares)
    if not weights:
        raise ValueError("shares must not be empty")
    weights = [_check_positive_finite(w, "each budget share") for w in weights]
    total = math.fsum(weights)
    parts = [epsilon * w / total for w in weights[:-1]]
    spent = 0.0
    for part in parts:  # a ledger adds the parts in this order
        spent += part
    parts.append(closing_share(epsilon, spent))
    return dict(zip(names, parts, strict=True)) if names is not None else parts


# The epsilon an estimator accepts. Below MIN_EPSILON the noise scales (sensitivity over
# a share of epsilon) pass the 2**56 steps the exact samplers draw, so fits failed deep in
# skdp.mechanisms or released inf (PrivateSVM at 1e-300); the released model would be
# pure noise anyway. Above MAX_EPSILON there is no privacy left to speak of and the
# exact samplers overflow (DPDecisionTree at 1e50, the grid methods at 1e300). The
# mechanisms themselves take any finite epsilon > 0 (check_epsilon), as budget shares
# can be smaller than MIN_EPSILON.
MIN_EPSILON = 1e-12
MAX_EPSILON = 1e15


class _EpsilonInterval(Interval):
    """The epsilon range (no bools), saying in the error why it ends where it does."""

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)

    def __str__(self):
        return (
            f"a float in the range [{self.left:g}, {self.right:g}] (a smaller epsilon "
            "asks for more noise than the samplers draw, a larger one protects nothing)"
        )


# sklearn parameter constraints shared by every estimator's _parameter_constraints
EPSILON_CONSTRAINT = [_EpsilonInterval(Real, MIN_EPSILON, MAX_EPSILON, closed="both")]
RANDOM_STATE_CONSTRAINT = ["random_state", np.random.Generator]
# the largest public L2 norm of a row an estimator takes: its square stays a finite float
MAX_DATA_NORM = 1e150
