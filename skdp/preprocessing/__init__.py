"""Private scalers: drop-ins for scikit-learn's, with an ``epsilon``-DP ``fit``.

Put one in front of a private model in a :class:`~sklearn.pipeline.Pipeline` and the
Pipeline needs no hand-set ranges; :func:`skdp.privacy_spent` sums the two budgets.
"""

from skdp.preprocessing._minmax import MinMaxScaler
from skdp.preprocessing._robust import RobustScaler
from skdp.preprocessing._standard import StandardScaler

__all__ = ["MinMaxScaler", "RobustScaler", "StandardScaler"]
