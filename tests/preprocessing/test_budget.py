"""The quantile scalers spend exactly ``epsilon``: per-feature shares close the ledger."""

import numpy as np
import pytest

from skdp.preprocessing import MinMaxScaler, RobustScaler

X = np.random.default_rng(0).normal(size=(100, 3))


@pytest.mark.parametrize("scaler", [MinMaxScaler, RobustScaler])
def test_privacy_spent_is_epsilon_exactly(scaler):
    # d shares of epsilon / d after the bounds estimate used to add up to one ulp off:
    # 0.29999999999999993, 2.8999999999999995, 3.2999999999999994
    for epsilon in (0.1, 0.3, 1.3, 2.9, 3.3):
        fitted = scaler(epsilon=epsilon, random_state=0).fit(X)
        assert fitted.privacy_spent_.epsilon == epsilon
        declared = scaler(epsilon=epsilon, bounds=(-5, 5), random_state=0)
        if scaler is MinMaxScaler:
            declared.set_params(quantile_range=(0.01, 0.99))
        assert declared.fit(X).privacy_spent_.epsilon == epsilon
