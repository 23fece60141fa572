"""What every skdp estimator shares."""

from skdp.accounting import PrivacyBudget
from skdp.utils._clone import arrival, clone_private, departure_state

__all__ = ["DifferentialPrivacyMixin"]


class DifferentialPrivacyMixin:
    """Mixin for skdp estimators; put it first, before sklearn's mixins.

    An estimator that uses it has an ``epsilon`` parameter (and ``delta`` if it is
    approximately private), runs its ``fit`` inside a
    :class:`~skdp.accounting.PrivacyLedger` and stores the ledger's total as
    ``privacy_spent_``. It tags the estimator non-deterministic when ``random_state``
    is None (fresh secure noise each fit), marks the class for
    :func:`skdp.utils.discovery.all_estimators` and tells :func:`skdp.privacy_spent`
    what an unfitted configuration will spend (used to count the fits of a search,
    which are not kept).

    ``sklearn.base.clone`` gives each clone its own noise stream when ``random_state``
    is a ``Generator`` or ``RandomState`` (a spawned child, never a copy), and, when a
    ledger or accountant is active, refuses a clone that would pass a cap and charges the
    clone's fit to the caller's ledgers wherever it runs: in a joblib thread, or, for a
    worker process, when the clone is pickled to be sent there (see "Budgets across
    workers and seeds" in the privacy model page).
    """

    def __sklearn_clone__(self):
        return clone_private(self)

    def __getstate__(self):
        return departure_state(self, super().__getstate__())

    def __setstate__(self, state):
        super().__setstate__(state)
        arrival(self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # random_state=None draws fresh secure noise: two fits differ by design
        tags.non_deterministic = getattr(self, "random_state", None) is None
        return tags

    def _privacy_budget(self):
        """The budget one ``fit`` with the current parameters spends."""
        return PrivacyBudget(self.epsilon, getattr(self, "delta", 0.0))
