"""DP Lloyd iterations with Su et al.'s budget rules, and data-independent initial centres.

The exact per-cluster statistics that a step noises are in
:mod:`skdp.cluster._lloyd_stats` (re-exported here). Everything here works in the
*scaled* domain ``[-1, 1]^d``: the public box mapped by
``z = (x - midpoint) / half_width``. Distances (which cluster a point joins) may use
any public geometry; :func:`noisy_lloyd_step` takes the assignment as given.

Su, Cao, Li, Bertino, Lin and Jin, "Differentially private k-means clustering and a
hybrid approach to private optimization", VLDB Journal 26 (2017).
"""

import math

import numpy as np

from skdp.cluster._lloyd_stats import clipping_radii, cluster_displacements, cluster_sums
from skdp.mechanisms import geometric, laplace
from skdp.utils._resources import ResourceLimitError, check_iterations
from skdp.utils.validation import split_budget

__all__ = [
    "MAX_ITERATIONS",
    "MIN_ITERATIONS",
    "box_posterior_mean",
    "clipped_lloyd_step",
    "clipping_radii",
    "cluster_displacements",
    "cluster_sums",
    "count_share",
    "initial_centres",
    "noisy_lloyd_step",
    "sphere_packing",
    "su_iterations",
]

# Su et al.'s rho (the expected distance of a point from its centre, relative to the
# domain, in their analysis) and their bounds on the number of iterations
RHO = 0.225
MIN_ITERATIONS, MAX_ITERATIONS = 2, 7
# sphere packing: draws of one centre before the radius is halved and packing restarts
MAX_FAILED_DRAWS = 100
# sphere packing: candidate-centre differences computed at once (draws x placed x d); past
# it one draw at a time (with many placed centres a test costs more than a draw)
_PACKING_BATCH = 2**9
# the most clusters DPKMeans takes: the sphere packing of the initial centres grows as
# n_clusters**2 (4096 clusters: about 2 s; 20000: minutes)
MAX_CLUSTERS = 4096


def count_share(n_features):
    """Su et al.'s count : per-dimension-sum budget ratio ``c = (4 d rho^2)^(1/3)``.

    An iteration's budget ``epsilon_t`` goes ``c / (d + c)`` to the counts and
    ``1 / (d + c)`` to the sums of each of the ``d`` dimensions.
    """
    return (4 * n_features * RHO**2) ** (1 / 3)


def su_iterations(epsilon, n_samples, n_clusters, n_features):
    """Su et al.'s number of DP Lloyd iterations for a budget and a dataset size.

    ``T = max(2, min(floor(epsilon / epsilon_m), 7))`` with
    ``epsilon_m = sqrt(500 k^3 / N^2 (d + c)^3)``: the budget at which one iteration's
    noise is small enough to be worth the iteration.

    Parameters
    ----------
    epsilon : float
        The budget of all the iterations together.
    n_samples : float
        Public or noisy number of records (at least 1 is used).
    n_clusters, n_features : int

    Returns
    -------
    int in ``[MIN_ITERATIONS, MAX_ITERATIONS]``

    Examples
    --------
    >>> from skdp.cluster._lloyd import su_iterations
    >>> su_iterations(1.0, 150, 3, 4), su_iterations(1.0, 10**6, 3, 4)
    (2, 7)
    """
    d, k = n_features, n_clusters
    per_iteration = math.sqrt(500 * k**3 / max(n_samples, 1) ** 2 * (d + count_share(d)) ** 3)
    return int(max(MIN_ITERATIONS, min(math.floor(epsilon / per_iteration), MAX_ITERATIONS)))


def check_kmeans_resources(n_clusters, max_iter):
    """Refuse, before any noise, a ``DPKMeans`` that would run for minutes.

    ``n_clusters`` above :data:`MAX_CLUSTERS` (the sphere packing grows as its square)
    and ``max_iter`` above ``skdp.utils._resources.MAX_DP_ITERATIONS``.

    Examples
    --------
    >>> from skdp.cluster._lloyd import check_kmeans_resources
    >>> check_kmeans_resources(8, None)
    """
    if n_clusters > MAX_CLUSTERS:
        raise ResourceLimitError(
            f"n_clusters={n_clusters} is more than DPKMeans takes (MAX_CLUSTERS="
            f"{MAX_CLUSTERS}): the initial sphere packing alone grows as n_clusters**2 "
            "and would run for minutes. Pass fewer clusters."
        )
    advice = "max_iter=None applies Su et al.'s rule (2 to 7 iterations)."
    check_iterations(max_iter, parameter="max_iter", advice=advice)


def sphere_packing(n_clusters, n_features, rng):
    """Data-independent initial centres in ``[-1, 1]^d`` (Su et al.'s sphere packing).

    Draws centres uniformly at distance at least ``a`` from the boundary and ``2 a``
    from each other, starting with ``a = 1/2`` (a quarter of the side); after
    ``MAX_FAILED_DRAWS`` failed draws of one centre, ``a`` is halved and the packing
    starts over. Only ``rng`` is read.

    The draws are tested in batches (:func:`_first_fit`), and ``rng`` is left exactly
    where one draw at a time would leave it: the centres and every later draw of the
    fit are the same to the bit. (One draw at a time, 3 centres in 2-d took 3.6 ms of
    CPU, most of the 300 draws failing; in batches 0.9 ms. A fit of 10^5 rows takes
    about 50 ms.)

    Returns
    -------
    ndarray of shape (n_clusters, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._lloyd import sphere_packing
    >>> centres = sphere_packing(3, 2, np.random.default_rng(0))
    >>> centres.shape, bool(np.all(np.abs(centres) <= 1))
    ((3, 2), True)
    """
    radius = 0.5
    centres = np.empty((n_clusters, n_features))
    while True:
        placed, failures = 0, 0
        while placed < n_clusters and failures < MAX_FAILED_DRAWS:
            found, tried = _first_fit(centres[:placed], radius, MAX_FAILED_DRAWS - failures, rng)
            if found is None:
                failures += tried
            else:
                centres[placed] = found
                placed, failures = placed + 1, 0
        if placed == n_clusters:
            return centres
        radius /= 2


def _first_fit(placed, radius, max_draws, rng):
    """``(centre, draws)``: the first of at most ``max_draws`` uniform draws in
    ``[radius - 1, 1 - radius]^d`` at distance ``>= 2 radius`` from every ``placed``
    centre (None if none is), and the number of draws that took.

    The draws are made and tested in batches of 1, 2, 4, ... (a first draw that fits
    costs one test; a run of failures a few batches). When a batch's first fit is not
    its last draw, ``rng`` is rewound and advanced by exactly the draws used, as if
    they had been made one at a time (the same values: ``Generator.uniform`` fills an
    array in the order of single draws).
    """
    d, start, size = placed.shape[1], 0, 1
    cap = _PACKING_BATCH // max(1, placed.shape[0] * d)
    if cap <= 1:  # many placed centres: one draw at a time
        for start in range(max_draws):
            candidate = rng.uniform(radius - 1, 1 - radius, size=d)
            if np.all(np.sqrt(np.sum((placed - candidate) ** 2, axis=1)) >= 2 * radius):
                return candidate, start + 1
        return None, max_draws
    while start < max_draws:
        size = min(size, max_draws - start, cap)
        state = rng.bit_generator.state if size > 1 else None
        candidates = rng.uniform(radius - 1, 1 - radius, size=(size, d))
        gaps = np.sqrt(np.sum((placed - candidates[:, np.newaxis]) ** 2, axis=2))
        fits = np.flatnonzero(np.all(gaps >= 2 * radius, axis=1))
        if fits.size:
            first = int(fits[0])
            if first + 1 < size:
                rng.bit_generator.state = state
                rng.uniform(radius - 1, 1 - radius, size=(first + 1, d))  # the draws used
            return candidates[first], start + first + 1
        start, size = start + size, 2 * size
    return None, max_draws


def initial_centres(init, n_clusters, lower, upper, rng):
    """Public initial centres in the scaled box ``[-1, 1]^d``.

    ``init="sphere_packing"`` draws :func:`sphere_packing` from ``rng``; an array holds
    public centres in the units of ``X``, scaled with the box. Never read from records.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.cluster._lloyd import initial_centres
    >>> initial_centres([[0.0, 5.0]], 1, np.zeros(2), np.full(2, 10.0), None)
    array([[-1.,  0.]])
    """
    d = len(lower)
    if isinstance(init, str):
        return sphere_packing(n_clusters, d, rng)
    init = np.asarray(init, dtype=float)
    if init.shape != (n_clusters, d):
        raise ValueError(
            f"init must have shape (n_clusters, n_features) = ({n_clusters}, {d}), "
            f"got {init.shape}"
        )
    if not np.all(np.isfinite(init)):
        raise ValueError("init must be finite (no nan or inf)")
    return (init - (lower + upper) / 2) / ((upper - lower) / 2)


def clipped_lloyd_step(counts, sums, previous, radii, *, epsilon, rng):
    """One private Lloyd update that moves each centre by a clipped mean displacement.

    Privacy: ``epsilon``-DP for add/remove one record. The partition (nearest public
    centre) and the radii are public; the record joins one cluster ``j``, changes its
    count by 1 (L1 sensitivity 1) and its displacement sum by a vector of L2 norm at
    most 1 (:func:`cluster_displacements`), hence of L1 norm at most ``sqrt(d)``.
    Counts get discrete Laplace at ``epsilon c / (d + c)`` and the ``(k, d)`` sums lattice
    Laplace of sensitivity ``sqrt(d)`` at ``epsilon d / (d + c)`` (Su et al.'s ratio, as
    :func:`noisy_lloyd_step`); **all** ``k`` clusters are noised. The rest is
    post-processing: a cluster whose noisy count is below 1 keeps its centre, the others
    move by ``R_j`` times the posterior mean, in ``[-1, 1]`` per coordinate, of
    ``noisy sum / noisy count`` (:func:`box_posterior_mean`), clipped to the box.

    Against :func:`noisy_lloyd_step` (L1 sensitivity ``d`` in the scaled box) the noise
    shrinks by ``sqrt(d) / R_j``: with centres that already sit in their clusters, the
    update is the mean of the cluster's points near the centre, a trust region of
    radius ``R_j``.

    Parameters
    ----------
    counts : ndarray of shape (k,)
    sums : ndarray of shape (k, d)
        Exact :func:`cluster_displacements`.
    previous : ndarray of shape (k, d)
        The current (public) centres, scaled.
    radii : ndarray of shape (k,)
        The public radii the displacements were clipped with.
    epsilon : float
    rng : numpy.random.Generator

    Returns
    -------
    centres : ndarray of shape (k, d)
    noisy_counts : ndarray of shape (k,), int64
    """
    noisy_counts, step = _noisy_means(counts, sums, math.sqrt(sums.shape[1]), epsilon, rng)
    moved = np.clip(previous + radii[:, np.newaxis] * step, -1.0, 1.0)
    return np.where(noisy_counts[:, np.newaxis] < 1, previous, moved), noisy_counts


def noisy_lloyd_step(counts, sums, previous, *, epsilon, rng):
    """One private Lloyd update from the exact per-cluster counts and sums.

    Privacy: ``epsilon``-DP for add/remove one record whose scaled row lies in
    ``[-1, 1]^d``. The record joins exactly one cluster: it changes one count by 1
    (L1 sensitivity 1 of the count vector) and one sum vector by its row (L1
    sensitivity ``d`` of the ``(k, d)`` sums). Counts get discrete Laplace at
    ``epsilon c / (d + c)`` and the sums lattice Laplace at ``epsilon d / (d + c)``
    (Su et al.'s ratio, the same noise as ``epsilon / (d + c)`` per dimension). **All**
    ``k`` counts and sums are noised, empty clusters included; the rest is
    post-processing: a cluster whose noisy count is below 1 keeps its previous centre,
    the others move to the posterior mean, in the box, of ``noisy sum / noisy count``
    (:func:`box_posterior_mean`; Su et al. and diffprivlib use the ratio itself, clipped
    or with noise bounded to the domain).

    Parameters
    ----------
    counts : ndarray of shape (k,)
    sums : ndarray of shape (k, d)
        Exact per-cluster statistics of the scaled rows.
    previous : ndarray of shape (k, d)
        The current (public) centres, scaled.
    epsilon : float
        This iteration's budget.
    rng : numpy.random.Generator

    Returns
    -------
    centres : ndarray of shape (k, d)
    noisy_counts : ndarray of shape (k,), int64
    """
    noisy_counts, moved = _noisy_means(counts, sums, sums.shape[1], epsilon, rng)
    return np.where(noisy_counts[:, np.newaxis] < 1, previous, moved), noisy_counts


def _noisy_means(counts, sums, sensitivity, epsilon, rng):
    """Noisy counts and the posterior means of ``noisy sum / noisy count`` (one Lloyd release).

    Counts: discrete Laplace at ``epsilon c / (d + c)`` (sensitivity 1); sums: lattice
    Laplace of L1 ``sensitivity`` at ``epsilon d / (d + c)`` (Su et al.'s ratio
    :func:`count_share`). The means (:func:`box_posterior_mean`, the count taken as at
    least 1) are post-processing; the callers keep a centre whose noisy count is below 1.
    """
    d = sums.shape[1]
    count_epsilon, sum_epsilon = split_budget(epsilon, [count_share(d), d])
    noisy_counts = geometric(counts, sensitivity=1, epsilon=count_epsilon, random_state=rng)
    noisy_sums = laplace(sums, sensitivity=sensitivity, epsilon=sum_epsilon, random_state=rng)
    size = np.maximum(noisy_counts, 1)[:, np.newaxis]
    return noisy_counts, box_posterior_mean(noisy_sums / size, sensitivity / sum_epsilon / size)


def _truncated_exponential_mean(width, scale):
    """Mean of an exponential of ``scale`` truncated to ``[0, width]``, overflow-free.

    ``scale * (1 - x / expm1(x))`` with ``x = width / scale``; near ``x = 0`` (nearly
    uniform) the series ``scale * (x/2 - x^2/12)`` avoids the cancellation.
    """
    x = width / scale
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        exact = 1 - x / np.expm1(x)
    return scale * np.where(x < 1e-4, x / 2 - x * x / 12, exact)


def box_posterior_mean(estimate, scale):
    """Posterior mean in ``[-1, 1]`` of a coordinate seen through Laplace noise.

    With a uniform prior on ``[-1, 1]`` and the observation ``estimate = mu + noise``,
    noise Laplace of ``scale``, the posterior of ``mu`` is that Laplace density centred
    on ``estimate`` and truncated to ``[-1, 1]``; this returns its mean. It moves a
    precise estimate by ``O(scale)`` and pulls a hopeless one towards the middle of the
    box, where clipping would leave it on the boundary. Applied to ``noisy sum / noisy
    count`` (the count taken as exact), it is post-processing of the release.

    Parameters
    ----------
    estimate, scale : ndarray (broadcastable)
        ``scale > 0``.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from skdp.cluster._lloyd import box_posterior_mean
    >>> box_posterior_mean(np.array([0.5, 3.0, 0.5]), np.array([1e-6, 1e-6, 1e6])).round(3)
    array([0.5, 1. , 0. ])
    """
    estimate, scale = np.broadcast_arrays(
        np.asarray(estimate, dtype=float), np.asarray(scale, dtype=float)
    )
    below = np.clip(estimate + 1.0, 0.0, None)  # room on each side within the box
    above = np.clip(1.0 - estimate, 0.0, None)
    # masses of the two sides (in units of scale) where the box straddles the estimate
    left, right = -np.expm1(-below / scale), -np.expm1(-above / scale)
    inside = (estimate > -1.0) & (estimate < 1.0)
    with np.errstate(invalid="ignore"):
        mixed = estimate + (
            right * _truncated_exponential_mean(above, scale)
            - left * _truncated_exponential_mean(below, scale)
        ) / (left + right)
    # otherwise the whole box lies on one side: an exponential from the near face
    outside = np.where(
        estimate >= 1.0,
        1.0 - _truncated_exponential_mean(np.full_like(scale, 2.0), scale),
        -1.0 + _truncated_exponential_mean(np.full_like(scale, 2.0), scale),
    )
    return np.clip(np.where(inside, mixed, outside), -1.0, 1.0)
