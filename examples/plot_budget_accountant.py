"""
=============================================
Enforcing a total budget with an accountant
=============================================

Every differentially private release about a dataset adds to what an adversary can
learn about the people in it: the epsilons of all the releases made from the same
records add up. A data curator therefore fixes a total budget for the dataset and
stops answering once it is used up. :class:`skdp.BudgetAccountant` enforces such a
cap: used as ``with accountant:``, it checks every mechanism call *before* the call
draws its noise, and raises :class:`skdp.BudgetExceededError` instead of releasing
anything past the cap.
"""

# %%
# Data and models
# ---------------
# We fit :class:`skdp.tree.DPDecisionTree` classifiers on the Adult census data, with
# the public taxonomies, numeric domains and class labels of :mod:`skdp.datasets`.
# Fixed ``random_state`` values make the example reproducible; a real release must
# leave them at ``None``.
import matplotlib.pyplot as plt

import skdp
from skdp.datasets import fetch_adult, load_numeric_domains, load_taxonomies
from skdp.tree import DPDecisionTree

# the full data when available (data home or download), else the sample shipped
# with skdp, with a warning that says so
adult = fetch_adult(drop_missing=True, sample="auto")
X = adult.data.drop(columns="fnlwgt")
y = adult.target
train = adult.split == "train"
X_train, X_test, y_train, y_test = X[train], X[~train], y[train], y[~train]

domains = load_numeric_domains("adult")
public = {
    "taxonomies": load_taxonomies("adult"),
    "bounds": {column: domains[column] for column in X.columns if column in domains},
    "classes": list(y.cat.categories),
}


def make_tree(epsilon, seed):
    return DPDecisionTree(epsilon=epsilon, random_state=seed, **public)


# %%
# Fit until the cap is hit
# ------------------------
# The curator's total budget for the training records is ``epsilon = 1``. Analysts ask
# for models at ``epsilon = 0.4, 0.3, 0.2, 0.3``; each fit runs inside the accountant's
# ``with`` block, which charges every mechanism call as it happens.
accountant = skdp.BudgetAccountant(epsilon=1.0)
spent_by = {}  # what each request cost
for seed, epsilon in enumerate([0.4, 0.3, 0.2, 0.3]):
    before = accountant.spent.epsilon
    try:
        with accountant:
            model = make_tree(epsilon, seed).fit(X_train, y_train)
    except skdp.BudgetExceededError as error:
        print(f"request {seed} (epsilon={epsilon}) refused:\n  {error}")
        spent_by[f"request {seed} (aborted)"] = accountant.spent.epsilon - before
        break
    spent_by[f"request {seed}"] = accountant.spent.epsilon - before
    accuracy = model.score(X_test, y_test)
    print(
        f"request {seed} (epsilon={epsilon}): test accuracy {accuracy:.3f}, "
        f"spent {accountant.spent.epsilon:.2f}, remaining {accountant.remaining.epsilon:.2f}"
    )
print(accountant)

# %%
# The fourth request was stopped before it released anything, but not before it
# started: a fit is a sequence of mechanism calls (here a noisy selection per level of
# the tree, then the noisy counts), and the accountant stops the first call that would
# pass the cap. The calls before it drew their noise and stay charged, so the aborted
# fit wasted part of the remaining budget:
print(f"remaining after the aborted fit: {accountant.remaining.epsilon:.3f}")

# %%
# Check before fitting
# --------------------
# Every skdp estimator spends exactly its ``epsilon`` (the test suite checks it), so
# the budget of a fit is known in advance. :meth:`~skdp.BudgetAccountant.check` takes
# anything :func:`skdp.privacy_spent` does, numbers included, and raises without
# charging anything when it would not fit. Checking the declared ``epsilon`` first
# avoids the waste, and the remaining budget can go to a last, smaller model.
request = make_tree(0.2, seed=4)
try:
    accountant.check(request.epsilon)
except skdp.BudgetExceededError as error:
    print(f"not fitted: {error}")

last = make_tree(accountant.remaining.epsilon, seed=5)
with accountant:
    last.fit(X_train, y_train)
spent_by["last model"] = last.privacy_spent_.epsilon
print(f"last model at epsilon={last.epsilon:.3f}: accuracy {last.score(X_test, y_test):.3f}")
print(accountant)

# %%
# Recording fitted objects
# ------------------------
# Models fitted elsewhere (a pipeline, a grid search, a model from an earlier session)
# can be recorded with :meth:`~skdp.BudgetAccountant.spend`, which charges what
# :func:`skdp.privacy_spent` reports for them and refuses anything past the cap. This
# check comes after the fact, when the noise has been drawn: it keeps the books, and a
# model it refused must not be published, nor anything computed from it.
elsewhere = make_tree(0.1, seed=6).fit(X_train, y_train)
try:
    accountant.spend(elsewhere)
except skdp.BudgetExceededError as error:
    print(f"not recorded, do not publish: {error}")

# %%
# The budget, request by request
# ------------------------------
# Each bar starts where the previous requests left the total. The aborted request
# (hatched) released nothing, yet its cost counts.
names = list(spent_by)
costs = list(spent_by.values())
starts = [sum(costs[:i]) for i in range(len(costs))]
fig, ax = plt.subplots(figsize=(7, 3.2))
bars = ax.barh(names, costs, left=starts, color=[f"C{i}" for i in range(len(names))])
for bar, name in zip(bars, names, strict=True):
    if "aborted" in name:
        bar.set_hatch("//")
        bar.set_edgecolor("white")
ax.bar_label(bars, labels=[f"{cost:.3f}" for cost in costs], padding=3)
ax.axvline(accountant.cap.epsilon, color="k", linestyle="--", label="cap")
ax.invert_yaxis()
ax.set_xlim(0, 1.15)
ax.set_xlabel("total epsilon spent")
ax.set_title("A total budget of epsilon = 1, spent by successive fits")
ax.legend(loc="lower left")
fig.tight_layout()
plt.show()
