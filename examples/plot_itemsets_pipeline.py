"""
=========================================
Private frequent itemsets as features
=========================================

:class:`skdp.frequent_patterns.DPFrequentItemsets` releases the most frequent itemsets
of a transaction database with noisy supports. Its ``transform`` marks which released
itemsets each transaction contains, so in a :class:`~sklearn.pipeline.Pipeline` the
patterns become features for a classifier. This example builds such a pipeline on
synthetic shopping baskets, shows the released itemsets, and says exactly which parts
of the pipeline are private.
"""

# %%
# Synthetic baskets
# -----------------
# Shoppers of two kinds buy from a public list of 12 products. The kind shows only in
# a combination: "planners" buy pasta and tomato sauce together or neither, "impulse"
# shoppers buy one of the two (or neither). Each product on its own is bought as often
# by both kinds, so a linear model on the products cannot tell them apart; the itemset
# {pasta, tomato sauce} can.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline

import skdp
from skdp.frequent_patterns import DPFrequentItemsets, TransactionEncoder
from skdp.linear_model import ObjectivePerturbationLogistic

other_products = {
    "bread": 0.5,
    "milk": 0.45,
    "butter": 0.3,
    "eggs": 0.3,
    "coffee": 0.3,
    "beer": 0.25,
    "chips": 0.25,
    "parmesan": 0.2,
    "cereal": 0.2,
    "wine": 0.15,
}
products = [*other_products, "pasta", "tomato sauce"]  # the public item universe

rng = np.random.default_rng(0)
n_shoppers = 20_000
planner = rng.random(n_shoppers) < 0.5
bought = rng.random((n_shoppers, len(other_products))) < list(other_products.values())
u = rng.random(n_shoppers)
pasta = u < 0.45  # 45% of either kind
sauce = np.where(planner, u < 0.45, (0.45 <= u) & (u < 0.9))
bought = np.column_stack([bought, pasta, sauce])
baskets = [[p for p, b in zip(products, row, strict=True) if b] for row in bought]
kind = np.where(planner, "planner", "impulse")
print(baskets[:3])

baskets_train, baskets_test, kind_train, kind_test = train_test_split(
    baskets, kind, test_size=0.3, random_state=0
)

# %%
# The pipeline
# ------------
# * :class:`~skdp.frequent_patterns.TransactionEncoder` turns the baskets into a
#   boolean matrix. Given the public ``items``, it reads nothing from the data and
#   costs nothing.
# * :class:`~skdp.frequent_patterns.DPFrequentItemsets` releases the ``top_k=30``
#   itemsets of highest noisy support, ``epsilon``-DP for adding or removing one
#   transaction, and turns them into 30 boolean features. It ignores the labels.
# * A classifier on these features. We use
#   :class:`~skdp.linear_model.ObjectivePerturbationLogistic`: a row holds at most 30
#   ones, so ``sqrt(30)`` is a public bound on its norm.
#
# ``set_output(transform="pandas")`` carries the product names through the pipeline.
# Fixed ``random_state`` values make the example reproducible; a real release must
# leave them at ``None``.
top_k = 30
classes = ["impulse", "planner"]  # public


def itemset_pipeline(classifier, epsilon=1.0):
    return Pipeline(
        [
            ("encode", TransactionEncoder(items=products)),
            ("itemsets", DPFrequentItemsets(epsilon=epsilon, top_k=top_k, random_state=0)),
            ("classify", classifier),
        ]
    ).set_output(transform="pandas")


private = itemset_pipeline(
    ObjectivePerturbationLogistic(
        epsilon=1.0, data_norm=np.sqrt(top_k), classes=classes, random_state=0
    )
).fit(baskets_train, kind_train)

# %%
# The released itemsets
# ---------------------
# ``frequent_itemsets_`` is in mlxtend's format: the noisy ``support`` (noisy count
# over the noisy number of transactions), the ``itemsets`` and the noisy ``count``,
# sorted by noisy support. ``get_feature_names_out`` names the features.
itemsets = private["itemsets"].frequent_itemsets_
print(itemsets.head(15))
print(private["itemsets"].get_feature_names_out()[:15])

# %%
# What is private, and what is not
# --------------------------------
# :func:`skdp.privacy_spent` adds up the steps: they all read the same transactions.
# Here both the itemsets and the classifier are differentially private, each with
# ``epsilon = 1``, so the whole fitted pipeline spends ``epsilon = 2``.
print("private itemsets + private classifier:", skdp.privacy_spent(private))

# %%
# Replace the classifier with scikit-learn's
# :class:`~sklearn.linear_model.LogisticRegression` and the pipeline is **not**
# private. The features were released privately, but the classifier is trained on the
# raw records: each shopper's exact features and label. Its coefficients can reveal
# them, whatever the features' guarantee. ``privacy_spent`` says so with
# ``epsilon=inf`` and a :class:`~skdp.PrivacyLeakWarning`, which we catch here to print
# it:
non_private = itemset_pipeline(LogisticRegression()).fit(baskets_train, kind_train)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", skdp.PrivacyLeakWarning)
    print("private itemsets + LogisticRegression:", skdp.privacy_spent(non_private))
print("warning:", caught[0].message)

# %%
# That pipeline is still useful when only the itemsets are published (the classifier
# stays with the data owner), or when the labels and features are not sensitive; the
# guarantee then covers the itemsets alone:
print("the itemsets alone:", skdp.privacy_spent(non_private["itemsets"]))

# %%
# Accuracy
# --------
# The test baskets are raw data, used here only to judge utility. The products alone
# carry no linear signal; the itemset {pasta, tomato sauce}, released privately, does.
products_only = Pipeline(
    [("encode", TransactionEncoder(items=products)), ("classify", LogisticRegression())]
).fit(baskets_train, kind_train)
scores = {
    "products +\nLogisticRegression\n(not private)": products_only,
    "DP itemsets +\nLogisticRegression\n(not private)": non_private,
    "DP itemsets +\nDP logistic\n(total epsilon = 2)": private,
}
scores = {name: model.score(baskets_test, kind_test) for name, model in scores.items()}
for name, score in scores.items():
    print(f"{name.replace(chr(10), ' ')}: {score:.3f}")

# %%
# Noisy and true supports
# -----------------------
# For illustration only, we also compute the true support of each released itemset on
# the training baskets (which must not be published). With 14,000 transactions and
# ``epsilon = 1``, the errors are small next to the supports.
encoded = private["encode"].transform(baskets_train)
true_support = [encoded[list(itemset)].all(axis=1).mean() for itemset in itemsets["itemsets"]]
error = np.abs(itemsets["support"] - true_support).max()
print(f"largest error of a released support: {error:.4f}")

fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5), width_ratios=[1.3, 1])
shown = 15
labels = private["itemsets"].get_feature_names_out()[:shown]
position = np.arange(shown)
left.barh(position, itemsets["support"][:shown], color="C0", label="released (noisy)")
left.plot(true_support[:shown], position, "k|", markersize=12, label="true (not released)")
left.set_yticks(position, labels)
left.invert_yaxis()
left.set_xlabel("support")
left.set_title(f"The {shown} most frequent released itemsets")
left.legend(loc="lower right")

right.bar(range(len(scores)), list(scores.values()), color=["C7", "C1", "C2"])
right.set_xticks(range(len(scores)), list(scores), fontsize=8)
right.axhline(np.mean(kind_test == "impulse"), color="grey", linestyle=":")
right.set_ylim(0.4, 1.0)
right.set_ylabel("test accuracy")
right.set_title("Classifying the shoppers")
fig.tight_layout()
plt.show()
