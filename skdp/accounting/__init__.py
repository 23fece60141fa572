"""Privacy budgets, the spending ledger, budget caps and ``privacy_spent``.

Every mechanism in :mod:`skdp.mechanisms` reports the epsilon it spends *before* it
draws its noise. The report goes to every :class:`PrivacyLedger` and
:class:`BudgetAccountant` that is active in the current context, so a spend is
measured where it happens, and a cap is enforced before anything is released. Each
report is checked and committed atomically: threads sharing a context (as
``asyncio.to_thread`` does) lose no spend and cannot pass a cap together.

Composition rules applied by the ledger:

* sequential composition (the default): epsilons and deltas add up;
* parallel composition (inside :func:`parallel_composition`): mechanisms that run on
  disjoint parts of the records, where the partition is public or was released
  earlier, cost the maximum over the parts, not the sum.
"""

from skdp.accounting._budget import PrivacyBudget, Spend
from skdp.accounting._ledger import (
    BudgetAccountant,
    PrivacyLedger,
    parallel_composition,
    record_spend,
)
from skdp.accounting._spent import privacy_spent

__all__ = [
    "BudgetAccountant",
    "PrivacyBudget",
    "PrivacyLedger",
    "Spend",
    "parallel_composition",
    "privacy_spent",
    "record_spend",
]
