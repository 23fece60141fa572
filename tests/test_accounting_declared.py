"""Accounting is a leaf package: an object says itself that it costs nothing."""

import math
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import make_pipeline

from skdp import PrivacyBudget, PrivacyLeakWarning, privacy_spent
from skdp.frequent_patterns import TransactionEncoder


def test_accounting_imports_no_estimator_package():
    code = (
        "import sys\n"
        "from sklearn.preprocessing import OneHotEncoder, StandardScaler\n"
        "import warnings\n"
        "from skdp import privacy_spent\n"
        "privacy_spent(OneHotEncoder(categories=[[0, 1]]).fit([[0], [1]]))\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore')\n"
        "    privacy_spent(StandardScaler().fit([[0], [1]]))\n"
        "print(sorted(m for m in sys.modules if m.startswith('skdp.')"
        " and m.split('.')[1] not in ('accounting', 'exceptions')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class _PublicCodes(TransformerMixin, BaseEstimator):
    """A third-party transformer whose fit reads nothing from the data."""

    def fit(self, X, y=None):
        self.n_features_in_ = np.shape(X)[1]
        return self

    def transform(self, X):
        return X

    def _privacy_budget(self):
        return PrivacyBudget(0.0)


def test_an_object_that_costs_nothing_says_so_itself():
    X = np.zeros((3, 2))
    assert privacy_spent(_PublicCodes().fit(X)) == PrivacyBudget(0.0)
    assert privacy_spent(make_pipeline(_PublicCodes()).fit(X)) == PrivacyBudget(0.0)


def test_transaction_encoder_declares_its_budget():
    assert TransactionEncoder(items=["a"])._privacy_budget() == PrivacyBudget(0.0)
    assert TransactionEncoder()._privacy_budget() is None
    assert privacy_spent(TransactionEncoder(items=["a"])) == PrivacyBudget(0.0)  # unfitted
    with pytest.warns(PrivacyLeakWarning, match="TransactionEncoder is not differentially"):
        assert math.isinf(privacy_spent(TransactionEncoder()).epsilon)
