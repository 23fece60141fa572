"""Noise mechanisms: the only code in skdp that draws noise.

Every function validates its arguments, reports the epsilon it spends to the active
ledgers (:mod:`skdp.accounting`) *before* drawing, and samples exactly on integers,
so floating-point rounding cannot leak the input. The exception is the L2 Laplace
noise for objective perturbation (:func:`l2_laplace_noise`), which needs a continuous
density; :func:`l2_laplace` puts its releases on a lattice (see their docstrings).
"""

from skdp.mechanisms._additive import geometric, laplace, lattice_step
from skdp.mechanisms._rng import check_random_state
from skdp.mechanisms._selection import exponential, permute_and_flip, report_noisy_max
from skdp.mechanisms._stopping import truncated_negative_binomial
from skdp.mechanisms._threshold import above_threshold
from skdp.mechanisms._vector import l2_laplace, l2_laplace_noise

__all__ = [
    "above_threshold",
    "check_random_state",
    "exponential",
    "geometric",
    "l2_laplace",
    "l2_laplace_noise",
    "laplace",
    "lattice_step",
    "permute_and_flip",
    "report_noisy_max",
    "truncated_negative_binomial",
]
