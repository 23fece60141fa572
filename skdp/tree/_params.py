"""The parameter constraints of :class:`~skdp.tree.DPDecisionTree` (sklearn validation)."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from skdp.tree._specialization import SCORES
from skdp.utils.validation import EPSILON_CONSTRAINT, RANDOM_STATE_CONSTRAINT

# public ceilings: MAXGDDP's geometric level budgets past ~64 levels are below any
# usable noise scale, and every split point of every interval is scored at each level
MAX_LEVELS = 64
MAX_SPLIT_POINTS = 1024

PARAMETER_CONSTRAINTS = {
    "algorithm": [StrOptions({"maxgddp", "diffgen"})],
    "epsilon": EPSILON_CONSTRAINT,
    "n_levels": [StrOptions({"auto"}), Interval(Integral, 0, MAX_LEVELS, closed="both")],
    "utility": [StrOptions(set(SCORES))],
    "noise": [StrOptions({"exponential", "gumbel", "laplace"})],
    "budget_schedule": [StrOptions({"geometric", "uniform"})],
    "leaf_budget": [Interval(Real, 0, 1, closed="neither")],
    "n_split_points": [Interval(Integral, 1, MAX_SPLIT_POINTS, closed="both")],
    "bounds": [None, tuple, list, dict, np.ndarray],
    "categorical_features": [None, list, tuple, np.ndarray],
    "categories": [None, dict],
    "taxonomies": [None, dict],
    "classes": ["array-like", None],
    "classifier": [StrOptions({"tree", "leaf"})],
    "max_cells": [Interval(Integral, 2, None, closed="left")],
    "random_state": RANDOM_STATE_CONSTRAINT,
}
