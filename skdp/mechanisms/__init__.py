"""Noise mechanisms: the only code in skdp that draws noise.

Every function validates its arguments, reports the epsilon it spends to the active
ledgers (:mod:`skdp.accounting`) *before* drawing, and samples exactly on integers,
so floating-point rounding cannot leak the input.
"""

from skdp.mechanisms._additive import geometric, laplace, lattice_step
from skdp.mechanisms._rng import check_random_state
from skdp.mechanisms._selection import exponential, permute_and_flip, report_noisy_max

__all__ = [
    "check_random_state",
    "exponential",
    "geometric",
    "laplace",
    "lattice_step",
    "permute_and_flip",
    "report_noisy_max",
]
