"""Differentially private matrix decompositions."""

from skdp.decomposition._pca import PCA

__all__ = ["PCA"]
