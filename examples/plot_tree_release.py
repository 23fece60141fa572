"""
==================================================
Publishing a generalized table with DPDecisionTree
==================================================

:class:`skdp.tree.DPDecisionTree` is a classifier, but its main output is a table that
can be published: the training data generalized top-down along public taxonomies
(DiffGen, Mohammed, Chen, Fung and Yu 2011; MAXGDDP, Fu, Zhang and Ding 2018), with a
noisy count for every cell of the final generalization and every class. Anyone can
then train a model on the published table, with no further access to the records and
no further privacy cost: what is computed from a differentially private release alone
is post-processing.

This example fits the tree on the UCI Adult data, walks through what it publishes, and
predicts from the published table only.
"""

# %%
# Fit the release
# ---------------
# Every input that shapes the table is public: the taxonomy tree of each categorical
# column (:func:`skdp.datasets.load_taxonomies`), the domain of each numeric column
# (:func:`skdp.datasets.load_numeric_domains`) and the class labels. Fixed
# ``random_state`` values make the example reproducible; never publish a release made
# with a fixed seed, since anyone who knows it can subtract the noise.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from skdp.datasets import fetch_adult, load_numeric_domains, load_taxonomies
from skdp.tree import DPDecisionTree

# the full data when available (data home or download), else the sample shipped
# with skdp, with a warning that says so
adult = fetch_adult(drop_missing=True, sample="auto")
X = adult.data.drop(columns="fnlwgt")  # a sampling weight, not a property of the person
y = adult.target
train = adult.split == "train"
X_train, X_test, y_train, y_test = X[train], X[~train], y[train], y[~train]

domains = load_numeric_domains("adult")
public = {
    "taxonomies": load_taxonomies("adult"),
    "bounds": {column: domains[column] for column in X.columns if column in domains},
    "classes": list(y.cat.categories),
}
print(public["taxonomies"]["workclass"])

release = DPDecisionTree("maxgddp", epsilon=1.0, n_levels=10, random_state=0, **public)
release.fit(X_train, y_train)

# %%
# The cuts
# --------
# Every column starts at the root of its taxonomy (``Any``) or at its whole domain.
# Each of the ``n_levels`` steps specializes one concept of one column into its
# children, or splits one interval at a point of a public grid; a differentially
# private selection chooses which. ``cuts_`` lists them in order:
pd.DataFrame(release.cuts_)

# %%
# The budget split
# ----------------
# The bounds were given, so none of the budget was spent estimating them; the
# selections and the noisy counts share the rest (``leaf_budget=0.5``). The total is
# measured by a ledger during ``fit``.
print(release.epsilon_split_)
print(release.privacy_spent_)

# %%
# The published table
# -------------------
# ``release_`` has one row per cell of the final cuts and per class: each column's
# concept, the class, and the noisy count. It lists **every** cell of the product,
# empty ones included, since which cells are empty is itself private; the noise makes
# some counts negative.
table = release.release_
n_classes = len(release.classes_)
print(f"{len(table)} rows ({len(table) // n_classes} cells x {n_classes} classes)")
table.head(10)

# %%
# Generalizing new data to the released cuts
# ------------------------------------------
# ``transform`` maps each row to the position of its concept in each column's cut;
# ``generalize`` gives the concepts' labels, those of ``release_``. Both only use the
# public cuts, so they can be applied to any data.
print(release.transform(X_test.head(3)))
release.generalize(X_test.head(3))

# %%
# Predicting from the table alone
# -------------------------------
# A reader of the published table can predict the class of a new row by looking up its
# cell and taking the class of highest noisy count (counts clamped at zero, and the
# overall majority of the table where a cell holds no positive count). ``predict``
# itself uses a pruned decision tree trained on the same table, weighted by the noisy
# counts: also post-processing of the release.
attributes = list(X.columns)
released = table.astype({column: str for column in attributes})  # labels, as generalize
cells = released.pivot_table(index=attributes, columns="class", values="count", aggfunc="sum")
cells = cells.clip(lower=0)
overall = cells.sum().idxmax()
counts = release.generalize(X_test).join(cells, on=attributes)[cells.columns]
lookup = np.where(counts.sum(axis=1) > 0, counts.idxmax(axis=1), overall)
print(f"cell majority of the release: {np.mean(lookup == y_test):.3f}")
print(f"DPDecisionTree.predict:       {release.score(X_test, y_test):.3f}")

# %%
# How noisy are the counts?
# -------------------------
# To see what the noise does, we count the training rows of each cell and class
# ourselves. This is for illustration only: the true counts are exactly what must not
# be published. A count's noise has the same spread whatever the cell's size, so the
# large cells are accurate in relative terms and the small ones are mostly noise.
true_cells = release.generalize(X_train)
true_cells["class"] = np.asarray(y_train)
true_counts = true_cells.value_counts().rename("true")
true = released.join(true_counts, on=[*attributes, "class"])["true"].fillna(0)

# %%
# MAXGDDP or DiffGen?
# -------------------
# ``algorithm="diffgen"`` follows the DiffGen paper: it chooses one split point for
# each numeric interval when the interval appears, then one specialization per step,
# with the paper's budget split. MAXGDDP (the default) scores every candidate, each
# grid split point included, in one noisy selection per level, with budgets that grow
# with the level. We compare the test accuracy of both (``predict``, trained on the
# release only) at a few budgets, averaged over three draws of the noise; the test
# rows are raw data, used only to judge utility.
epsilons = [0.05, 0.1, 0.5, 1.0]
accuracy = {}
for algorithm in ["maxgddp", "diffgen"]:
    accuracy[algorithm] = [
        np.mean(
            [
                DPDecisionTree(algorithm, epsilon=epsilon, random_state=seed, **public)
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for seed in range(3)
            ]
        )
        for epsilon in epsilons
    ]
pd.DataFrame(accuracy, index=pd.Index(epsilons, name="epsilon"))

# %%
# On the left, each released count against the true one (on a scale linear near zero,
# logarithmic beyond): the empty cells are spread around zero by the noise. On the
# right, the accuracy of the classifier trained on the release.
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.scatter(true, table["count"], s=10, alpha=0.6)
top = max(true.max(), table["count"].max())
left.plot([0, top], [0, top], color="k", linewidth=1)
left.set_xscale("symlog", linthresh=10)
left.set_yscale("symlog", linthresh=10)
left.set_xlabel("true count (never published)")
left.set_ylabel("released noisy count")
left.set_title(f"{len(table)} counts of the release, epsilon = 1")

for algorithm, marker in [("maxgddp", "o-"), ("diffgen", "s-")]:
    right.plot(epsilons, accuracy[algorithm], marker, label=algorithm)
right.axhline(np.mean(y_test == "<=50K"), color="grey", linestyle=":", label="always '<=50K'")
right.set_xscale("log")
right.set_xlabel("epsilon")
right.set_ylabel("test accuracy")
right.set_title("Classifier trained on the release (mean of 3 fits)")
right.legend(loc="lower right")
fig.tight_layout()
plt.show()
