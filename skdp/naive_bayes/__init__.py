"""Differentially private naive Bayes classifiers."""

from skdp.naive_bayes._categorical import CategoricalNB
from skdp.naive_bayes._gaussian import GaussianNB

__all__ = ["CategoricalNB", "GaussianNB"]
