"""Private statistics with numpy-like signatures.

Thin functions over :mod:`skdp.utils` and :mod:`skdp.mechanisms`: each takes the
data, an ``epsilon`` and public parameters, records its spend to the active ledgers
and returns a release. Neighbouring relation: add/remove one element.
"""

from skdp.tools._count import count_nonzero
from skdp.tools._histogram import histogram, histogramdd
from skdp.tools._percentile import median, percentile
from skdp.tools._quantile import quantile
from skdp.tools._statistics import mean, std, sum, var

__all__ = [
    "count_nonzero",
    "histogram",
    "histogramdd",
    "mean",
    "median",
    "percentile",
    "quantile",
    "std",
    "sum",
    "var",
]
