"""The functional mechanism's shared pieces: public bounds, scaling and noisy moments.

Both functional-mechanism estimators run the same pipeline, split into small
functions that the tests can call one by one:

1. :func:`resolve_public_bounds` (declared, or privately estimated: a noisy count and
   tiered bounds per parameter) and :func:`unit_design`: clip every column to its
   public bounds and map it into ``[-1, 1]`` (one float64 matrix per block of rows);
2. :func:`regression_moments` / :func:`classification_moments`: the exact polynomial
   coefficients of the objective (one BLAS pass over the data), and
   :func:`skdp.linear_model._moment_release.release_moments`: one Laplace release of
   all of them, each entry scaled by a public weight. Steps 1 and 2 run
   row block by row block through :class:`BlockMoments` and
   :func:`skdp.utils._stats.sum_blocks`: on the whole arrays for numpy input, on
   every block where it lives for a dask collection (only the small sums travel), and
   inside :class:`BlockMoments`, ``GRAM_BLOCK_ROWS`` rows at a time (no ``n x d``
   design: the sums are those of the whole design, to the bit);
3. :func:`skdp.linear_model._fm_solver.minimise_noisy_quadratic`: post-processing of
   the noisy coefficients into a linear model.

:class:`skdp.linear_model._fm_base.FunctionalMechanismBase` strings them together
inside ``fit``. The constants are public and data-independent; they were chosen on
sklearn's diabetes and iris data and on synthetic data (see the estimators' Notes).
"""

import math

import numpy as np

from skdp.utils._bounds import (
    MAX_BOUNDS_SHARE,
    bounds_share,
    estimate_bounds_spending,
    estimate_public_inputs,
    rescan_budget,
    warn_public_bounds,
)
from skdp.utils._centred_sums import count_clipped
from skdp.utils.validation import resolve_bounds

__all__ = [
    "BlockMoments",
    "classification_moments",
    "gram_matrix",
    "regression_moments",
    "resolve_public_bounds",
    "symmetric_from_upper",
    "unit_design",
    "unit_scaling",
    "upper_triangle",
]

# the sparse columns' rescans take at most this share of what the count and the bounds
# leave (skdp.utils._bounds.SPARSE_BUDGET, half, is the other estimators' rule). On
# Adult's packaged sample, seeds 0-9/0-19, half cost the regressor at epsilon 0.5 and 1
# (income: R^2 0.145 -> 0.122); a tenth gains everywhere but on a target with no signal
# (income 0.156/0.055 -> 0.176/0.135 mean/worst at 0.5; classifier 0.792/0.777 ->
# 0.802/0.784 at 1; age, R^2 0.02 without privacy: 0.019 -> 0.013 at 1)
RESCAN_SHARE = 0.1

# rows per block of the statistics: the design is built and summed one block at a time
# (2**14 rows of 11 columns: 1.4 MB, in the CPU's cache)
GRAM_BLOCK_ROWS = 2**14


def resolve_public_bounds(estimator, blocks, *, rng, stacklevel=2):
    """Public ``(lower, upper)`` arrays per block; estimate the missing ones privately.

    A noisy count first (:func:`skdp.utils._bounds.estimate_public_inputs`, 5% of
    ``epsilon``), then each missing parameter on its own, the last (the target) first:
    tiered bounds of its columns (:func:`skdp.utils._bounds.bounds_share` and
    :func:`skdp.utils._bounds.estimate_bounds_spending`: per column, one box for all
    its columns, or the public fallback with a warning). The bound shares add up to at
    most ``MAX_BOUNDS_SHARE``; a parameter whose share no longer fits gets the
    fallback. A column of mostly zeros whose box collapsed is rescanned over its
    nonzero values, the rescans together taking at most ``RESCAN_SHARE`` of what the
    count and the bounds leave (added to the bounds' share). Every share depends on
    ``epsilon``, the number of columns, the noisy count and the released rescans only.
    Estimating the target apart matters: a box shared with the features scales them by
    the target's range (diabetes: features within 0.2, target up to 346).

    Parameters
    ----------
    estimator : estimator
        Supplies ``epsilon`` and, for dict bounds, ``feature_names_in_``.
    blocks : list of (values, bounds, name)
        ``values`` of shape (n_samples, k), the public ``bounds`` parameter (or None)
        and the parameter's name.
    rng : numpy.random.Generator
    stacklevel : int, default=2
        Of the fallback warning, counted from the caller.

    Returns
    -------
    resolved : list of (lower, upper)
    epsilon_split : dict
        ``{"n_samples": ..., "bounds": ..., "moments": ...}``; the first two are 0 when
        all bounds were given.
    tier : int or None
        The tier of the estimated bounds (None when all were given).
    """
    names = getattr(estimator, "feature_names_in_", None)
    resolved = [
        resolve_bounds(bounds, values.shape[1], feature_names=names, name=name)
        for values, bounds, name in blocks
    ]
    epsilon = float(estimator.epsilon)
    missing = [i for i, r in enumerate(resolved) if r is None]
    if not missing:
        return resolved, {"n_samples": 0.0, "bounds": 0.0, "moments": epsilon}, None
    count = estimate_public_inputs(
        epsilon, n_samples=blocks[0][0].shape[0], need_count=True, random_state=rng
    )
    split = {"n_samples": count.epsilon_split["n_samples"], "bounds": 0.0}
    # one tiered estimate per missing parameter: a box shared by the features and the
    # target would scale the features by the target's range. The last parameter (the
    # target) goes first; one whose share no longer fits in MAX_BOUNDS_SHARE gets the
    # public fallback (tier 3), so the shares never exceed it.
    plan, left = {}, MAX_BOUNDS_SHARE
    for i in reversed(missing):
        share, tier = bounds_share(count.n_samples, epsilon, blocks[i][0].shape[1])
        if share > left:
            share, tier = 0.0, 3
        left -= share
        plan[i] = (share, tier)
    # the sparse columns' rescans share at most RESCAN_SHARE of what the count and the
    # bounds leave, in the order of the estimates
    planned = epsilon * math.fsum(share for share, _ in plan.values())
    pool = rescan_budget(epsilon, split["n_samples"], planned, share=RESCAN_SHARE)
    for i, (share, tier) in plan.items():
        lower, upper, rescans = estimate_bounds_spending(
            blocks[i][0], epsilon=share * epsilon, tier=tier, n_noisy=count.n_samples,
            sparse_budget=pool, random_state=rng,
        )  # fmt: skip
        resolved[i], pool = (lower, upper), pool - rescans
        split["bounds"] += share * epsilon + rescans
        warn_public_bounds(
            tier,
            epsilon=epsilon,
            n_noisy=count.n_samples,
            bounds=resolved[i],
            name=blocks[i][2],
            stacklevel=stacklevel + 1,
        )
    split["moments"] = epsilon - math.fsum(split.values())
    return resolved, split, max(tier for _, tier in plan.values())


def unit_scaling(lower, upper, *, centred):
    """``(shift, scale)`` with ``(x - shift) / scale`` in ``[-1, 1]`` on the public box.

    Centred (models with an intercept): the box's midpoint and half-width. Otherwise
    no shift, the largest absolute bound, so that a model through the origin in the
    original units stays one in the scaled units.
    """
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    if centred:
        return (lower + upper) / 2, (upper - lower) / 2
    return np.zeros_like(lower), np.maximum(np.abs(lower), np.abs(upper))


def unit_design(blocks, *, fit_intercept):
    """``[x' | 1 | y']``: the clipped, scaled columns in one float64 array.

    Parameters
    ----------
    blocks : list of (values, (shift, scale), (lower, upper))
        ``values`` of shape (n_samples, k); the first block is the features, and the
        ones column follows it when ``fit_intercept``. Values outside
        ``[lower, upper]`` are clipped to it (counted, not warned about: the caller
        warns once for all the row blocks).
    fit_intercept : bool

    Returns
    -------
    design : ndarray of shape (n_samples, n_columns), every entry in ``[-1, 1]``
    n_clipped : ndarray of shape (len(blocks),), int64
        Values of each block that lay outside its bounds.
    """
    n_samples = blocks[0][0].shape[0]
    widths = [values.shape[1] for values, *_ in blocks]
    design = np.empty((n_samples, sum(widths) + fit_intercept))
    n_clipped = np.zeros(len(blocks), dtype=np.int64)
    start = 0
    for i, (values, (shift, scale), (lower, upper)) in enumerate(blocks):
        values = np.asarray(values, dtype=float)
        # f(x) = (x - shift) / scale rounds monotonically (non-decreasing), so
        # clip(f(clip(x, l, u)), -1, 1) = clip(f(x), clip(f(l), -1, 1), clip(f(u), -1, 1))
        # bit for bit: scaled on a contiguous copy, then written into the design once
        low, high = ((np.asarray(b, dtype=float) - shift) / scale for b in (lower, upper))
        scaled = values - shift
        scaled /= scale
        n_clipped[i] = count_clipped(values, scaled, (np.max(low), np.min(high)), lower, upper)
        np.maximum(scaled, np.clip(low, -1.0, 1.0), out=scaled)
        np.minimum(scaled, np.clip(high, -1.0, 1.0), out=design[:, start : start + widths[i]])
        start += widths[i]
        if i == 0 and fit_intercept:
            design[:, start] = 1.0
            start += 1
    return design, n_clipped


class BlockMoments:
    """The exact statistics of a block of rows, each row bounded first: a block function.

    A small picklable object (the public boxes and scalings, a few floats per column)
    whose bound methods :func:`skdp.utils._stats.sum_blocks` runs on the whole arrays
    (numpy) or on every row block where it lives (dask). Each row is clipped to the
    public box and scaled into ``[-1, 1]`` inside the block, before anything is summed.

    Parameters
    ----------
    boxes : list of (lower, upper)
        The public bounds of each block of columns, features first.
    scalings : list of (shift, scale)
        From :func:`unit_scaling`, one per box.
    fit_intercept : bool
    n_classes : int or None, default=None
        For :meth:`classification`.
    """

    def __init__(self, boxes, scalings, *, fit_intercept, n_classes=None):
        self.boxes, self.scalings = boxes, scalings
        self.fit_intercept, self.n_classes = fit_intercept, n_classes

    def design(self, *values):
        """:func:`unit_design` of the blocks ``values`` (2-D each, features first)."""
        blocks = list(zip(values, self.scalings, self.boxes, strict=True))
        return unit_design(blocks, fit_intercept=self.fit_intercept)

    def _design_blocks(self, *values):
        """``(rows, design, n_clipped)`` of each block of ``GRAM_BLOCK_ROWS`` rows.

        One block's design at a time (a few MiB), never the whole ``n x d`` design; the
        blocks are those :func:`gram_matrix` sums over, so the sums are the same.
        """
        n_samples = values[0].shape[0]
        for start in range(0, n_samples, GRAM_BLOCK_ROWS):
            rows = slice(start, start + GRAM_BLOCK_ROWS)
            yield (rows, *self.design(*(v[rows] for v in values)))

    def regression(self, X, Y):
        """``(linear, quadratic, n_clipped)``: :func:`regression_moments` of ``[x~ | y']``.

        ``Y`` has one column; ``n_clipped`` counts the clipped values of ``X`` and ``Y``.
        Summed block by block: the same sums as on the whole design.
        """
        width = X.shape[1] + self.fit_intercept + Y.shape[1]
        gram, n_clipped = np.zeros((width, width)), np.zeros(2, dtype=np.int64)
        for _, design, clipped in self._design_blocks(X, Y):
            gram += gram_matrix(design)
            n_clipped += clipped
        return gram[:-1, -1].copy(), upper_triangle(gram[:-1, :-1]), n_clipped

    def classification(self, X, codes):
        """``(sums, quadratic, n_clipped)``: :func:`classification_moments` of ``x~``.

        ``codes`` are the indices of the rows' classes among the public classes. Summed
        block by block: ``np.add.at`` adds the rows to the class sums one after the
        other, as ``np.bincount`` does on the whole design, so the sums are the same.
        """
        n_features = X.shape[1]
        codes = np.asarray(codes, dtype=np.intp)
        sums = np.zeros((self.n_classes, n_features + self.fit_intercept))
        gram, n_clipped = np.zeros((n_features, n_features)), np.zeros(1, dtype=np.int64)
        for rows, design, clipped in self._design_blocks(X):
            for j in range(sums.shape[1]):
                np.add.at(sums[:, j], codes[rows], design[:, j])
            gram += gram_matrix(design[:, :n_features])
            n_clipped += clipped
        return sums, upper_triangle(gram), n_clipped


def upper_triangle(matrix):
    """The entries on and above the diagonal, row by row."""
    return matrix[np.triu_indices(matrix.shape[0])]


def symmetric_from_upper(upper, size):
    """The symmetric matrix whose upper triangle (row by row) is ``upper``."""
    matrix = np.zeros((size, size))
    matrix[np.triu_indices(size)] = upper
    return matrix + np.triu(matrix, 1).T


def gram_matrix(design, *, block_rows=GRAM_BLOCK_ROWS):
    """``design^T design``: one BLAS ``syrk`` per block of rows, the blocks summed.

    Blocks keep each BLAS call in cache and stop multi-threaded ``syrk`` from
    stalling when the cores are shared (a million rows of 22 columns: 0.06 s either
    way on an idle machine; on a busy one a median 0.3 s in one call, 0.06 s in
    blocks).
    """
    gram = np.zeros((design.shape[1], design.shape[1]))
    for start in range(0, design.shape[0], block_rows):
        block = design[start : start + block_rows]
        gram += block.T @ block
    return gram


def regression_moments(design):
    """Exact coefficients of ``sum_i (y_i - x_i.w)^2`` from ``[x~ | y]``.

    Returns
    -------
    linear : ndarray of shape (d,)
        ``c = sum_i y_i x~_i`` (the paper's ``beta`` is ``-2 c``).
    quadratic : ndarray of shape (d (d + 1) / 2,)
        The upper triangle of ``M = sum_i x~_i x~_i^T``.
    """
    gram = gram_matrix(design)
    return gram[:-1, -1].copy(), upper_triangle(gram[:-1, :-1])


def classification_moments(design, codes, n_classes, *, fit_intercept):
    """Exact statistics shared by every one-vs-rest Taylor-logistic problem.

    Returns
    -------
    linear : ndarray of shape (n_classes, d)
        ``T_k = sum_{i: y_i = k} x~_i`` (the intercept entry is the class count).
    quadratic : ndarray of shape (p (p + 1) / 2,)
        The upper triangle of ``sum_i x_i x_i^T`` over the ``p`` features only: its
        intercept row and column are ``sum_k T_k`` and need no release of their own.
    """
    n_features = design.shape[1] - fit_intercept
    sums = np.stack(
        [np.bincount(codes, weights=column, minlength=n_classes) for column in design.T], axis=1
    )
    return sums, upper_triangle(gram_matrix(design[:, :n_features]))
