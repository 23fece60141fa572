"""What the clustering estimators spend before they cluster: bounds and a record count.

Each ``fit`` splits ``epsilon`` into the public box (when ``bounds=None``), the noisy
number of records (when a public rule needs it) and the estimator's own parts.
"""

from skdp.mechanisms import geometric
from skdp.utils._bounds import BOUNDS_SHARE, estimate_bounds
from skdp.utils.validation import resolve_bounds, split_budget

__all__ = [
    "N_SAMPLES_SHARE",
    "budget_split",
    "declared_bounds",
    "noisy_record_count",
    "public_box",
]

# share of epsilon for the noisy number of records, when a rule needs it
N_SAMPLES_SHARE = 0.05


def budget_split(epsilon, *, bounds_given, needs_n_samples, parts):
    """``{"bounds", "n_samples", *parts}``: the epsilon of each, 0 for a part not used.

    Parameters
    ----------
    epsilon : float
    bounds_given : bool
        False spends ``BOUNDS_SHARE`` of epsilon on private bounds.
    needs_n_samples : bool
        True spends ``N_SAMPLES_SHARE`` of epsilon on the noisy record count.
    parts : dict of str to float
        Relative shares of the rest (may be 0).

    Returns
    -------
    dict of str to float
        The values add up to ``epsilon``.

    Examples
    --------
    >>> from skdp.cluster._preamble import budget_split
    >>> budget_split(1.0, bounds_given=True, needs_n_samples=False, parts={"fit": 1.0})
    {'bounds': 0.0, 'n_samples': 0.0, 'fit': 1.0}
    """
    shares = {
        "bounds": 0.0 if bounds_given else BOUNDS_SHARE,
        "n_samples": N_SAMPLES_SHARE if needs_n_samples else 0.0,
    }
    rest = 1.0 - shares["bounds"] - shares["n_samples"]
    total = sum(parts.values())
    shares.update({name: rest * share / total for name, share in parts.items()})
    used = split_budget(epsilon, {k: v for k, v in shares.items() if v > 0})
    return {name: used.get(name, 0.0) for name in shares}


def declared_bounds(estimator, n_features):
    """The estimator's public ``bounds`` as ``(lower, upper)`` arrays, or None to estimate."""
    names = getattr(estimator, "feature_names_in_", None)
    return resolve_bounds(estimator.bounds, n_features, feature_names=names)


def public_box(X, resolved, epsilon, rng):
    """The resolved public bounds, or bounds estimated privately at ``epsilon``."""
    if resolved is not None:
        return resolved
    return estimate_bounds(X, epsilon=epsilon, random_state=rng)


def noisy_record_count(n_samples, epsilon, rng):
    """``max(n + discrete Laplace(1 / epsilon), 1)`` (sensitivity 1), or None at 0."""
    if not epsilon:
        return None
    return max(int(geometric(n_samples, epsilon=epsilon, random_state=rng)), 1)
