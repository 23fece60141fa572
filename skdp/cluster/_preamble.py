"""What the clustering estimators spend before they cluster: bounds and a record count.

Each ``fit`` first releases, through :func:`skdp.utils._bounds.estimate_public_inputs`,
what the user did not declare: the noisy number of records ``n~`` (when bounds are
estimated or a public rule needs it; **one** count serves both) and, for
``bounds=None``, the tiered private bounds whose share follows ``n~``. The rest of
``epsilon`` goes to the estimator's own parts.

Capacity rules (iterations, grid cells) read the one-sided lower bound
``n_low = max(1, n~ - COUNT_MARGIN / epsilon_n)`` (about 95%: the discrete Laplace
count exceeds ``n + t`` with probability ``e^(-t epsilon_n) / (1 + e^(-epsilon_n))``),
so that noise never buys capacity; every rule is defined at ``n_low = 1``.
"""

from dataclasses import dataclass

from skdp.utils._bounds import estimate_public_inputs
from skdp.utils._stats import count_rows
from skdp.utils.validation import check_epsilon, resolve_bounds, split_budget

__all__ = ["COUNT_MARGIN", "Preamble", "capacity_count", "declared_bounds", "fit_preamble"]

# n_low = n~ - COUNT_MARGIN / epsilon_n: a one-sided ~95% lower bound (ln 20 ~ 3)
COUNT_MARGIN = 3.0


@dataclass
class Preamble:
    """What a clusterer's ``fit`` released before clustering, and its budget.

    Attributes
    ----------
    bounds : tuple of ndarray
        ``(lower, upper)``: declared, or privately estimated.
    bounds_tier : int or None
        1, 2 or 3 for estimated bounds (:mod:`skdp.utils._bounds`), None if declared.
    n_samples : int or None
        The noisy record count ``n~`` (None when nothing needed it).
    n_low : int or None
        :func:`capacity_count` of ``n~``: what capacity rules read.
    split : dict
        ``{"n_samples", "bounds", *parts}``: the epsilon of each, adding up to epsilon.
    """

    bounds: tuple
    bounds_tier: int | None
    n_samples: int | None
    n_low: int | None
    split: dict


def capacity_count(n_noisy, epsilon_n):
    """``max(1, n~ - COUNT_MARGIN / epsilon_n)``: the count capacity rules may use.

    Post-processing of the noisy count; a lower bound on ``n`` with probability about
    95%, so extra cells or iterations are not bought by noise.

    Examples
    --------
    >>> from skdp.cluster._preamble import capacity_count
    >>> capacity_count(150, 0.05), capacity_count(20, 0.05)
    (90.0, 1.0)
    """
    return max(1.0, n_noisy - COUNT_MARGIN / epsilon_n)


def declared_bounds(estimator, n_features):
    """The estimator's public ``bounds`` as ``(lower, upper)`` arrays, or None to estimate."""
    names = getattr(estimator, "feature_names_in_", None)
    return resolve_bounds(estimator.bounds, n_features, feature_names=names)


def fit_preamble(estimator, X, *, need_count, parts, rng, stacklevel=4):
    """Resolve or privately estimate the box and the record count; split the rest.

    Call inside the fit's :class:`~skdp.accounting.PrivacyLedger`.

    Privacy: under add/remove of one record the count has sensitivity 1 and each
    bound is an AboveThreshold scan over one value per record
    (:func:`~skdp.utils._bounds.estimate_public_inputs`); their shares depend only on
    ``epsilon``, ``d`` and the noisy count, and the parts split what is left.

    Parameters
    ----------
    estimator : DPKMeans or DPOPTICS
        Reads ``epsilon`` and ``bounds`` (and ``feature_names_in_``).
    X : ndarray or dask array of shape (n_samples, n_features)
        Finite; a dask array must come with declared bounds.
    need_count : bool
        A public rule needs ``n~`` (it is released anyway when bounds are estimated).
    parts : dict of str to float
        Relative shares of the rest among the estimator's own parts (0: unused).
    rng : numpy.random.Generator
        The fit's one generator.
    stacklevel : int, default=4
        Of the fallback-bounds warning, counted from this function's caller.

    Returns
    -------
    Preamble

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster import DPKMeans
    >>> from skdp.cluster._preamble import fit_preamble
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(100, 2))
    >>> out = fit_preamble(DPKMeans(bounds=(-1, 1)), X, need_count=False,
    ...                    parts={"fit": 1.0}, rng=np.random.default_rng(0))
    >>> out.split, out.n_samples
    ({'n_samples': 0.0, 'bounds': 0.0, 'fit': 1.0}, None)
    """
    resolved = declared_bounds(estimator, X.shape[1])
    estimate = resolved is None
    n = count_rows(X) if estimate or need_count else 0
    found = estimate_public_inputs(
        check_epsilon(estimator.epsilon),  # a Python float (numpy scalars too)
        n_samples=n,
        columns=X if estimate else None,
        need_count=need_count,
        stacklevel=stacklevel + 1,
        random_state=rng,
    )
    split = {key: found.epsilon_split[key] for key in ("n_samples", "bounds")}
    used = {name: share for name, share in parts.items() if share > 0}
    rest = split_budget(found.remaining, used) if used else {}
    split.update({name: rest.get(name, 0.0) for name in parts})
    n_low = None
    if found.n_samples is not None:
        n_low = capacity_count(found.n_samples, split["n_samples"])
    return Preamble(
        bounds=found.bounds if estimate else resolved,
        bounds_tier=found.bounds_tier if estimate else None,
        n_samples=found.n_samples,
        n_low=n_low,
        split=split,
    )
