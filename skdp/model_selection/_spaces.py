"""Candidate spaces: drawn uniformly and independently in every run, fixed before the data."""

import math
from collections.abc import Mapping

from sklearn.model_selection import ParameterGrid

__all__ = ["DistributionSpace", "GridSpace"]


def _as_list(spec, name):
    if spec is None:
        return [{}]
    if isinstance(spec, Mapping):
        return [dict(spec)]
    if isinstance(spec, list) and all(isinstance(d, Mapping) for d in spec):
        return [dict(d) for d in spec] or [{}]
    raise TypeError(f"{name} must be a dict or a list of dicts, got {type(spec).__name__}")


def _searched_values(dicts, keys):
    """Every combination of the searched keys' listed values (for the largest epsilon)."""
    grids = []
    for d in dicts:
        part = {}
        for k in keys:
            if k not in d:
                continue
            if hasattr(d[k], "rvs"):
                raise ValueError(
                    f"{k} is drawn from a distribution: the search is charged at the largest "
                    "candidate epsilon, so give a list of values (or leave epsilon out)"
                )
            part[k] = list(d[k])
        grids.append(part)
    return list(ParameterGrid(grids))


class GridSpace:
    """Uniform over the points of a ``ParameterGrid``, with replacement."""

    def __init__(self, param_grid):
        self._dicts = _as_list(param_grid, "param_grid")
        self._points = list(ParameterGrid(self._dicts))
        self.size = len(self._points)
        if self.size == 0:
            raise ValueError("param_grid holds no candidate")

    def draw(self, rng):
        return dict(self._points[int(rng.integers(self.size))])

    def searches(self, key):
        return any(key in d for d in self._dicts)

    def extremes(self, keys):
        return _searched_values(self._dicts, keys)


class DistributionSpace:
    """A dict drawn uniformly, then each value from its list (uniformly) or its ``rvs``."""

    def __init__(self, param_distributions):
        self._dicts = _as_list(param_distributions, "param_distributions")
        for d in self._dicts:
            for k, v in d.items():
                if not (hasattr(v, "rvs") or (hasattr(v, "__len__") and len(v) > 0)):
                    raise ValueError(f"{k} must be a non-empty list or have an rvs method")
        finite = all(not hasattr(v, "rvs") for d in self._dicts for v in d.values())
        self.size = (
            sum(math.prod(len(v) for v in d.values()) for d in self._dicts) if finite else None
        )

    def draw(self, rng):
        d = self._dicts[int(rng.integers(len(self._dicts)))]
        out = {}
        for k in sorted(d):
            v = d[k]
            out[k] = v.rvs(random_state=rng) if hasattr(v, "rvs") else v[int(rng.integers(len(v)))]
        return out

    def searches(self, key):
        return any(key in d for d in self._dicts)

    def extremes(self, keys):
        return _searched_values(self._dicts, keys)
