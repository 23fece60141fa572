"""Differentially private decision trees: MAXGDDP and DiffGen top-down specialization."""

from skdp.tree._classes import DPDecisionTree

__all__ = ["DPDecisionTree"]
