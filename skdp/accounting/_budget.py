"""The (epsilon, delta) budget value type."""

import math
from dataclasses import dataclass
from numbers import Real

_RTOL = 1e-9  # tolerance for float sums of budget shares (e.g. 3 * (eps / 3) vs eps)


@dataclass(frozen=True)
class PrivacyBudget:
    """An (epsilon, delta) differential-privacy budget.

    Parameters
    ----------
    epsilon : float
        Non-negative; ``inf`` stands for "no guarantee".
    delta : float, default=0.0
        In ``[0, 1]``; 0 for pure differential privacy.

    Examples
    --------
    >>> from skdp import PrivacyBudget
    >>> PrivacyBudget(0.5) + PrivacyBudget(0.25, 1e-6)
    PrivacyBudget(epsilon=0.75, delta=1e-06)
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self):
        epsilon, delta = float(self.epsilon), float(self.delta)
        if math.isnan(epsilon) or epsilon < 0:
            raise ValueError(f"epsilon must be >= 0, got {self.epsilon!r}")
        if math.isnan(delta) or not 0 <= delta <= 1:
            raise ValueError(f"delta must be in [0, 1], got {self.delta!r}")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)

    def __add__(self, other):
        other = _as_budget(other)
        return PrivacyBudget(self.epsilon + other.epsilon, min(1.0, self.delta + other.delta))

    def __radd__(self, other):  # lets sum() start from 0
        return self.__add__(other)

    def __mul__(self, times):
        return PrivacyBudget(self.epsilon * times, min(1.0, self.delta * times))

    __rmul__ = __mul__

    def fits_within(self, cap):
        """Whether this budget is no more than ``cap`` (up to float rounding of sums)."""
        cap = _as_budget(cap)
        return self.epsilon <= cap.epsilon * (1 + _RTOL) and self.delta <= cap.delta * (1 + _RTOL)


def _as_budget(value):
    if isinstance(value, PrivacyBudget):
        return value
    if isinstance(value, Real) and not isinstance(value, bool):
        return PrivacyBudget(value)
    raise TypeError(f"expected a PrivacyBudget or a number, got {type(value).__name__}")


def _maximum(a, b):
    return PrivacyBudget(max(a.epsilon, b.epsilon), max(a.delta, b.delta))


def _increase(new, old):
    return PrivacyBudget(max(0.0, new.epsilon - old.epsilon), max(0.0, new.delta - old.delta))


@dataclass(frozen=True)
class Spend:
    """One mechanism call as a ledger saw it.

    The entries of :attr:`skdp.PrivacyLedger.entries` are ``Spend`` records, in the order
    of the calls.

    Parameters
    ----------
    mechanism : str
        The name the mechanism reported (``"laplace"``, ``"geometric"``, ...).
    epsilon : float
        The epsilon the call spent.
    delta : float, default=0.0
        The delta the call spent.

    Examples
    --------
    >>> from skdp import PrivacyLedger
    >>> from skdp.mechanisms import laplace
    >>> with PrivacyLedger() as ledger:
    ...     noisy = laplace(3.0, sensitivity=1, epsilon=0.5, random_state=0)
    >>> ledger.entries
    (Spend(mechanism='laplace', epsilon=0.5, delta=0.0),)
    """

    mechanism: str
    epsilon: float
    delta: float = 0.0


_ZERO = PrivacyBudget(0.0)
