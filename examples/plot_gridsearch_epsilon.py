"""
=======================================================
What a grid search over private models really spends
=======================================================

:class:`~sklearn.model_selection.GridSearchCV` works with skdp estimators like with any
scikit-learn estimator, here to tune the privacy budget ``epsilon`` and the depth of a
:class:`skdp.tree.DPDecisionTree` on the UCI Adult data. But a search fits many
models on the same private records, and it reports scores computed on them: all of
that is released, and all of it has a privacy cost. This example shows what
:func:`skdp.privacy_spent` counts for a fitted search, what it does not, and how to
run a search whose every output is differentially private.
"""

# %%
# Data and estimator
# ------------------
# The tree reads the DataFrame directly, with the public taxonomies, numeric domains
# and class labels shipped with :mod:`skdp.datasets`, so no part of the model's shape
# is read from the records. Fixed ``random_state`` values make the example
# reproducible; a real release must leave them at ``None``.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV, PredefinedSplit

import skdp
from skdp.datasets import fetch_adult, load_numeric_domains, load_taxonomies
from skdp.mechanisms import geometric
from skdp.tree import DPDecisionTree

# the full data when available (data home or download), else the sample shipped
# with skdp, with a warning that says so
adult = fetch_adult(drop_missing=True, sample="auto")
X = adult.data.drop(columns="fnlwgt")
y = adult.target
train = adult.split == "train"
X_train, X_test, y_train, y_test = X[train], X[~train], y[train], y[~train]

domains = load_numeric_domains("adult")
tree = DPDecisionTree(
    taxonomies=load_taxonomies("adult"),
    bounds={column: domains[column] for column in X.columns if column in domains},
    classes=list(y.cat.categories),
    random_state=0,
)

# %%
# A plain grid search
# -------------------
# Two budgets times two depths, three-fold cross-validation: 12 fits to score the
# candidates, and one more to refit the best candidate on the whole training set.
param_grid = {"epsilon": [0.1, 0.5], "n_levels": [5, 10]}
search = GridSearchCV(tree, param_grid, cv=3).fit(X_train, y_train)
results = pd.DataFrame(search.cv_results_)
print(results[["param_epsilon", "param_n_levels", "mean_test_score", "std_test_score"]])
print("best:", search.best_params_)

# %%
# What ``privacy_spent`` reports
# ------------------------------
# For a fitted search, :func:`skdp.privacy_spent` rebuilds every candidate of
# ``cv_results_["params"]``, charges it ``n_splits_`` times the budget one of its fits
# spends (its ``epsilon``), and adds what the refitted ``best_estimator_`` measured.
# All these models read the same records, so their budgets add up (sequential
# composition). The folds' models are not kept by the search, but they were trained on
# private data all the same: this counts them, even when they ran in worker processes
# (``n_jobs=2``), which a :class:`~skdp.PrivacyLedger` around the call would not see.
spent = skdp.privacy_spent(search)
by_hand = search.n_splits_ * results["param_epsilon"].sum() + search.best_params_["epsilon"]
print(f"privacy_spent(search): {spent.epsilon:.2f}; by hand: {by_hand:.2f}")

# %%
# The search spent more than eight times the budget of the model it returned, and a search over
# ``epsilon`` will nearly always pick the largest value: including small budgets in
# the grid only adds to the bill. Tuning ``epsilon`` this way is a tool to study the
# privacy/utility trade-off on data you may spend on, not a way to choose a release.
#
# What it does not cover
# ~~~~~~~~~~~~~~~~~~~~~~
# Cross-validation scores computed on private data are releases too, and those above
# are not private: ``mean_test_score`` is the exact accuracy of each fold's model on its
# held-out records, with no noise added, and ``best_params_`` is chosen from these exact
# values. ``privacy_spent`` counts the fits only. Its count also assumes that adding or
# removing one person changes each fold's training set by that person alone, which the
# default splitter does not ensure: :class:`~sklearn.model_selection.StratifiedKFold`
# cuts the folds by position, so one more record can move others across fold borders.
#
# A search whose every output is private
# --------------------------------------
# Two changes fix both problems:
#
# * a fold drawn independently for each record
#   (:class:`~sklearn.model_selection.PredefinedSplit`): adding or removing a record
#   leaves every other record in its fold;
# * a scorer that releases a noisy count: the number of correct predictions on a fold
#   changes by at most one when one record is added or removed, so
#   :func:`skdp.mechanisms.geometric` releases it with ``epsilon=score_epsilon``.
#   All candidates are scored on the same folds, so ranking them by correct
#   predictions ranks them by accuracy.
#
# Every candidate's score is then a differentially private release, the choice of
# ``best_params_`` is post-processing, and the noisy scorer's spends are recorded by a
# :class:`~skdp.PrivacyLedger` around the call (we keep ``n_jobs=None``, so everything
# runs in this process where the ledger sees it).
rng = np.random.default_rng(0)
folds = PredefinedSplit(test_fold=rng.integers(3, size=len(X_train)))
score_epsilon = 0.05


def noisy_correct(estimator, X, y):
    """Noisy number of correctly classified rows: epsilon-DP, sensitivity 1."""
    correct = int(np.sum(estimator.predict(X) == np.asarray(y)))
    return geometric(correct, epsilon=score_epsilon, random_state=rng)


with skdp.PrivacyLedger() as ledger:
    private_search = GridSearchCV(tree, param_grid, cv=folds, scoring=noisy_correct)
    private_search.fit(X_train, y_train)

private_results = pd.DataFrame(private_search.cv_results_)
print(private_results[["param_epsilon", "param_n_levels", "mean_test_score"]])
print("best:", private_search.best_params_)

# %%
# The ledger measured the fits and the 12 noisy scores; ``privacy_spent`` reports the
# fits only, so the difference is what the scores cost.
fits = skdp.privacy_spent(private_search).epsilon
print(f"fits (privacy_spent): {fits:.2f}")
print(f"fits and scores (ledger): {ledger.total.epsilon:.2f}")
print(f"12 scores x {score_epsilon}: {ledger.total.epsilon - fits:.2f}")

# %%
# Both counts compose every release sequentially, which is on the safe side: with folds
# fixed per record, one person is in the training set of only ``n_splits - 1`` of a
# candidate's fits and in the held-out part of one, so a finer analysis would charge
# each candidate ``(n_splits - 1) * epsilon + score_epsilon``.

# %%
# The refitted model's test accuracy, computed on the raw test rows for us to judge
# utility (``private_search.score`` would call the noisy scorer again, and spend).
best = private_search.best_estimator_
print(f"best model {private_search.best_params_}: test accuracy {best.score(X_test, y_test):.3f}")

# %%
# Where the budget went
# ---------------------
# The refit, the one model we wanted, is a small part of the total.
parts = {
    "fold fits": fits - best.privacy_spent_.epsilon,
    "noisy scores": ledger.total.epsilon - fits,
    "refit": best.privacy_spent_.epsilon,
}
fig, ax = plt.subplots(figsize=(6, 2.5))
left = 0.0
for (name, epsilon), color in zip(parts.items(), ["C0", "C1", "C2"], strict=True):
    ax.barh(0, epsilon, left=left, color=color, label=f"{name}: {epsilon:.2f}")
    left += epsilon
ax.set_yticks([])
ax.set_xlabel("epsilon")
ax.set_title(f"Total spent by the private grid search: epsilon = {left:.2f}")
ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=3, frameon=False)
fig.tight_layout()
plt.show()
