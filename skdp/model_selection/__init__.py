"""Private model selection: searches whose chosen model, parameters and score are private.

:class:`PrivateGridSearchCV` and :class:`PrivateRandomizedSearchCV` follow
scikit-learn's searches, with one ``epsilon`` for the whole search: private selection
from private candidates (Liu and Talwar, STOC 2019; Papernot and Steinke, ICLR 2022).
"""

from skdp.model_selection._search import PrivateGridSearchCV, PrivateRandomizedSearchCV

__all__ = ["PrivateGridSearchCV", "PrivateRandomizedSearchCV"]
