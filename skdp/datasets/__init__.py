"""Loaders for the benchmark datasets and their public metadata.

Every ``fetch_*`` function follows scikit-learn's conventions: it looks for its files in
``data_home`` (default: ``$SKDP_DATA_HOME``, else ``~/skdp_data``), verifies them by
sha256, downloads a missing file from its public source, and returns a
:class:`~sklearn.utils.Bunch`.

The taxonomy trees and numeric domains are *public* inputs (they come from the datasets'
documentation and the literature, never from the records), for estimators such as
:class:`skdp.tree.DPDecisionTree` that need a public output domain.
"""

from skdp.datasets._adult import fetch_adult
from skdp.datasets._base import get_data_home
from skdp.datasets._census_income import fetch_census_income
from skdp.datasets._german_credit import fetch_german_credit
from skdp.datasets._taxonomies import load_numeric_domains, load_taxonomies
from skdp.datasets._transactions import fetch_fimi, fetch_msnbc

__all__ = [
    "fetch_adult",
    "fetch_census_income",
    "fetch_fimi",
    "fetch_german_credit",
    "fetch_msnbc",
    "get_data_home",
    "load_numeric_domains",
    "load_taxonomies",
]
