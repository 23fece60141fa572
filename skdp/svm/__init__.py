"""Differentially private support vector machines."""

from skdp.svm._hinge import SolverCertificateError
from skdp.svm._private_svm import PrivateSVM

__all__ = ["PrivateSVM", "SolverCertificateError"]
