"""Assertions shared by the dask tests."""

import numpy as np


def assert_same_linear_model(remote, local):
    """A dask fit and a numpy fit of a perturbed-objective linear model agree."""
    np.testing.assert_allclose(remote.coef_, local.coef_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(remote.intercept_, local.intercept_, rtol=1e-8, atol=1e-12)
    np.testing.assert_array_equal(remote.classes_, local.classes_)
    assert remote.privacy_spent_ == local.privacy_spent_
    assert remote.epsilon_split_ == local.epsilon_split_
    assert remote.extra_regularization_ == local.extra_regularization_
