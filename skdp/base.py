"""What every skdp estimator shares."""

from skdp.accounting import PrivacyBudget

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
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # random_state=None draws fresh secure noise: two fits differ by design
        tags.non_deterministic = getattr(self, "random_state", None) is None
        return tags

    def _privacy_budget(self):
        """The budget one ``fit`` with the current parameters spends."""
        return PrivacyBudget(self.epsilon, getattr(self, "delta", 0.0))
