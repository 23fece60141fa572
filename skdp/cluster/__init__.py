"""Differentially private clustering."""

from skdp.cluster._kmeans import DPKMeans

__all__ = ["DPKMeans"]
