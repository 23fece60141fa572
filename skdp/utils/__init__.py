"""Shared utilities: validation, private bounds, estimator discovery, auditing.

Import the submodules directly (``skdp.utils.validation``); this package imports
nothing itself so that :mod:`skdp.mechanisms` can depend on ``validation``.
"""
