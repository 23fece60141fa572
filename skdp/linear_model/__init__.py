"""Differentially private linear models: the functional mechanism and objective perturbation."""

from skdp.linear_model._fm_classifier import FunctionalMechanismClassifier
from skdp.linear_model._functional_mechanism import FunctionalMechanismRegressor
from skdp.linear_model._objective_perturbation import ObjectivePerturbationLogistic

__all__ = [
    "FunctionalMechanismClassifier",
    "FunctionalMechanismRegressor",
    "ObjectivePerturbationLogistic",
]
