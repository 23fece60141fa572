"""The warning of private bounds that could not follow each feature, and the fallback box.

Split from :mod:`skdp.utils._bounds` (which re-exports both names).
"""

import warnings

import numpy as np

from skdp.exceptions import PublicBoundsWarning

__all__ = ["FALLBACK_BOUND", "warn_public_bounds"]

FALLBACK_BOUND = 100.0


def warn_public_bounds(tier, *, epsilon, n_noisy, bounds, name="bounds", stacklevel=2):
    """Tell the user when private bounds could not follow each feature.

    Tier 3 uses the public fallback box; tier 2 one box for every feature, where a
    feature on a much smaller scale keeps little detail (Wine: ``[0, 1448]`` for ranges
    from 0.1 to 1680). Both warn with :class:`~skdp.exceptions.PublicBoundsWarning`.

    Parameters
    ----------
    tier : int or None
        The bounds' tier; None (declared bounds) is silent.
    epsilon : float
        The estimator's budget, as the user gave it.
    n_noisy : int
        The released noisy record count.
    bounds : tuple of ndarray
        The resolved ``(lower, upper)``.
    name : str, default="bounds"
        The parameter the user can set.
    stacklevel : int, default=2
        Of the warning, counted from the caller.

    Examples
    --------
    >>> import warnings
    >>> from skdp.utils._bounds import warn_public_bounds
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_public_bounds(2, epsilon=1.0, n_noisy=120, bounds=([0, 0], [1448, 1448]))
    >>> "one private range [0, 1448] serves all 2 features" in str(caught[0].message)
    True
    """
    lower, upper = np.atleast_1d(bounds[0]), np.atleast_1d(bounds[1])
    if tier == 3:
        box = f"the public fallback [-{FALLBACK_BOUND:g}, {FALLBACK_BOUND:g}]"
        message = (
            f"epsilon={epsilon:g} with about {n_noisy} records is too little to estimate "
            f"{name} privately; using {box} for every feature."
        )
    elif tier == 2 and lower.size > 1:
        width = upper[0] - lower[0]
        low, high = (0.0 if abs(v) < 1e-6 * width else v for v in (lower[0], upper[0]))
        message = (
            f"{name}=None with about {n_noisy} records at epsilon={epsilon:g}: too few to "
            f"estimate a range per feature privately, so one private range "
            f"[{low:.4g}, {high:.4g}] serves all {lower.size} features; a feature "
            "on a much smaller scale than the largest keeps little of its detail."
        )
    else:
        return
    warnings.warn(
        f"{message} Pass {name}= from domain knowledge.",
        PublicBoundsWarning,
        stacklevel=stacklevel + 1,
    )
