"""What :class:`~skdp.svm.PrivateSVM` does around its mechanisms: the validated input,
the unit-ball design (declared or private row inputs, or random Fourier features) and
the weights mapped back to the units of ``X``.

All of it is public processing or spends through :func:`skdp.utils._erm_inputs.
private_row_inputs` (recorded in the caller's ledger); no noise is drawn here.
"""

import math

import numpy as np

from skdp.svm._random_features import random_feature_design
from skdp.utils._erm_inputs import RowInputs, declared_row_bounds, norm_bounded_design
from skdp.utils._numeric_input import validate_numeric_data
from skdp.utils._resources import check_allocation
from skdp.utils._stats import as_dask_xy, is_dask_collection, public_classes, require_public
from skdp.utils.validation import check_epsilon, resolve_classes

__all__ = ["original_weights", "svm_design", "validated_xy"]


def validated_xy(estimator, X, y):
    """``(X, codes, classes)``: validated in memory, or a dask ``X`` kept lazy.

    Dask input needs ``mechanism="objective"``, public ``classes`` and, for the linear
    kernel, a declared ``data_norm`` or ``bounds``.
    """
    if is_dask_collection(X):
        if estimator.mechanism == "output":
            raise ValueError(
                "PrivateSVM(mechanism='output') does not take dask collections: its "
                "certified hinge-loss solver needs the whole data in memory. Use "
                "mechanism='objective' (objective perturbation of the Huber loss), "
                "which sums its gradients and Hessians block by block."
            )
        if estimator.kernel == "linear" and estimator.bounds is None:
            require_public(estimator.data_norm, "data_norm", estimator)
        classes = public_classes(estimator.classes, estimator)
        X, codes = as_dask_xy(estimator, X, y, classes=classes)
        return X, codes, classes
    X, y = validate_numeric_data(estimator, X, y, dtype=np.float64)
    classes, codes = resolve_classes(
        estimator.classes, y, estimator_name=type(estimator).__name__, stacklevel=5
    )
    return X, codes, classes


def svm_design(estimator, X, rng, codes):
    """``(design, codes, inputs)``: the features of norm <= 1 with the constant column.

    Not materialised; on dask input persisted in the workers' memory with the codes.
    Linear: the rows clipped to the declared or private ``data_norm``, or clipped to
    the declared ``bounds`` and mapped into ``[-1, 1]`` (norm bound ``sqrt(d)``).
    RBF: random Fourier features of frequencies drawn from ``rng`` alone, set as the
    estimator's ``random_frequencies_``; nothing is spent.
    """
    if estimator.kernel == "linear":
        return norm_bounded_design(
            X, codes, estimator.data_norm, epsilon=check_epsilon(estimator.epsilon), rng=rng,
            fit_intercept=estimator.fit_intercept, bounds=declared_row_bounds(estimator),
            stacklevel=5,
        )  # fmt: skip
    n_rows = X.shape[0]  # private, but a guard reveals no more than the MemoryError it spares
    check_allocation(
        8 * (n_rows + X.shape[1]) * estimator.n_components,
        parameter=f"n_components={estimator.n_components}",
        what=f"random features for {n_rows} rows",
        advice="pass fewer n_components (the default 500 suits most data).",
    )
    estimator.random_frequencies_ = rng.normal(
        scale=math.sqrt(2 * estimator.gamma),
        size=(-(-estimator.n_components // 2), X.shape[1]),
    )
    design, codes = random_feature_design(
        X, codes, estimator.random_frequencies_, fit_intercept=estimator.fit_intercept
    )
    remaining = check_epsilon(estimator.epsilon)  # a Python float (numpy scalars too)
    return design, codes, RowInputs(X, 1.0, epsilon_split={}, remaining=remaining)


def original_weights(W, design, inputs, fit_intercept):
    """``(coef, intercept)`` of the weights ``W`` of the scaled features, in ``X``'s units."""
    W = W * design.scale  # the weights of the unscaled features
    if fit_intercept:
        coef, intercept = W[:, :-1].copy(), W[:, -1] * design.constant
    else:
        coef, intercept = W, np.zeros(W.shape[0])
    if inputs.scaling is not None:
        coef, intercept = inputs.scaling.original_units(coef, intercept)
    return coef, intercept
