"""GridSearchCV over epsilon on joblib's dask backend: the spend is still counted."""

import joblib
import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV

from skdp import PrivacyLedger, privacy_spent
from skdp.linear_model import ObjectivePerturbationLogistic


def test_grid_search_over_epsilon_on_the_dask_backend(dask_client):
    X, y = make_classification(n_samples=600, n_features=4, random_state=0)
    model = ObjectivePerturbationLogistic(data_norm=6.0, classes=[0, 1], random_state=0)
    search = GridSearchCV(model, {"epsilon": [0.5, 1.0, 2.0]}, cv=3, n_jobs=-1)
    with PrivacyLedger() as here, joblib.parallel_backend("dask"):
        search.fit(X, y)
    # the fold fits ran on the cluster's worker processes; their clones were charged to
    # this process's ledger when they left for the workers (skdp.utils._clone), so the
    # ledger and privacy_spent agree: 3 candidates x 3 folds, plus the refit of the best
    expected = 3 * (0.5 + 1.0 + 2.0) + search.best_params_["epsilon"]
    assert here.total.epsilon == pytest.approx(expected)
    assert privacy_spent(search).epsilon == pytest.approx(expected)
    local = GridSearchCV(model, {"epsilon": [0.5, 1.0, 2.0]}, cv=3).fit(X, y)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"]
    )
