"""Differentially private clustering."""

from skdp.cluster._kmeans import DPKMeans
from skdp.cluster._optics import DPOPTICS

__all__ = ["DPOPTICS", "DPKMeans"]
