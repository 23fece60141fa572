"""Frequent itemset mining on transaction data."""

from skdp.frequent_patterns._encoder import TransactionEncoder
from skdp.frequent_patterns._itemsets import DPFrequentItemsets

__all__ = ["DPFrequentItemsets", "TransactionEncoder"]
