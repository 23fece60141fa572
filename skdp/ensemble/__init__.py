"""Differentially private ensembles: a forest of private trees on disjoint parts."""

from skdp.ensemble._forest import RandomForestClassifier

__all__ = ["RandomForestClassifier"]
