"""The configuration of the private search in tests/test_common.py's CHECK_PARAMS."""

from skdp.linear_model import ObjectivePerturbationLogistic

# a private base estimator, a three-point grid and a large total (the API, not the noise)
SEARCH_CHECK_PARAMS = {
    "estimator": ObjectivePerturbationLogistic(data_norm=100.0),
    "param_grid": {"C": [0.1, 1.0, 10.0]},
    "epsilon": 3e3,
}
