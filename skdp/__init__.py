"""skdp: differentially private estimators for scikit-learn."""

from skdp.accounting import BudgetAccountant, PrivacyBudget, PrivacyLedger, privacy_spent
from skdp.exceptions import (
    BudgetExceededError,
    ClippingWarning,
    PrivacyLeakWarning,
    PublicBoundsWarning,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "BudgetAccountant",
    "BudgetExceededError",
    "ClippingWarning",
    "PrivacyBudget",
    "PrivacyLeakWarning",
    "PrivacyLedger",
    "PublicBoundsWarning",
    "__version__",
    "privacy_spent",
]
