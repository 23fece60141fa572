"""
==================================
Choosing hyperparameters privately
==================================

A :class:`~sklearn.model_selection.GridSearchCV` over private models releases its choice
and its scores, computed exactly on the private records: they are not private, however
private each fit is. :class:`skdp.model_selection.PrivateGridSearchCV` releases a private
choice, model and score for one ``epsilon`` in total, whatever the size of the grid
(private selection from private candidates, Liu and Talwar, STOC 2019).

Here it tunes the regularisation ``C`` and the intercept of an
:class:`~skdp.linear_model.ObjectivePerturbationLogistic` on Iris, and is compared, at
the same total budget, with the model's default hyperparameters and with a
``GridSearchCV`` whose total is divided over all of its fits.
"""

# %%
# Data and candidates
# -------------------
# Iris with its public domain: every measurement is in [0, 8] cm, which bounds each
# row's norm without reading the data. Fixed seeds make the example reproducible; a real
# release leaves ``random_state=None``.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV, train_test_split

from skdp import privacy_spent
from skdp.linear_model import ObjectivePerturbationLogistic
from skdp.model_selection import PrivateGridSearchCV

warnings.simplefilter("ignore")  # clipping notes from the noisiest candidates
X, y = load_iris(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
model = ObjectivePerturbationLogistic(bounds=(0.0, 8.0), classes=[0, 1, 2])
grid = {"C": [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0], "fit_intercept": [True, False]}

# %%
# One private search
# ------------------
# ``epsilon`` is the total: each run gets a third of it. Only the winner is released,
# with its noisy validation counts; ``privacy_spent`` is the theorem's bound.
search = PrivateGridSearchCV(model, grid, epsilon=2.0, random_state=0).fit(X_train, y_train)
print("chosen:", search.best_params_, "released score:", round(search.best_score_, 3))
print("per run:", round(search.epsilon_run_, 3), "spent:", privacy_spent(search))
print("cv_results_ keys:", sorted(search.cv_results_))
print("test accuracy:", round(search.score(X_test, y_test), 3))

# %%
# Against the alternatives, over seeds
# ------------------------------------
# At each total budget, eight seeds of: the private search; one model with the default
# hyperparameters (``C=1``); and ``GridSearchCV(cv=3)`` with the total divided over its
# 12 x 3 + 1 = 37 fits (its choice is not even private).
epsilons = [1.0, 2.0, 5.0, 10.0]
seeds = range(8)
scores = {"private search": [], "default": [], "divided GridSearchCV": []}
for epsilon in epsilons:
    runs = {name: [] for name in scores}
    for seed in seeds:
        private = PrivateGridSearchCV(model, grid, epsilon=epsilon, random_state=seed)
        runs["private search"].append(private.fit(X_train, y_train).score(X_test, y_test))
        default = model.set_params(epsilon=epsilon, random_state=seed)
        runs["default"].append(default.fit(X_train, y_train).score(X_test, y_test))
        divided = GridSearchCV(model.set_params(epsilon=epsilon / 37), grid, cv=3)
        runs["divided GridSearchCV"].append(divided.fit(X_train, y_train).score(X_test, y_test))
    for name in scores:
        scores[name].append(runs[name])

# %%
# Mean test accuracy, with the worst seed as the lower end of each bar.
fig, ax = plt.subplots(figsize=(7, 4))
for offset, (name, by_epsilon) in zip([-0.08, 0.0, 0.08], scores.items(), strict=True):
    means = np.array([np.mean(s) for s in by_epsilon])
    worst = np.array([np.min(s) for s in by_epsilon])
    x = np.log10(epsilons) + offset
    ax.errorbar(x, means, yerr=[means - worst, np.zeros_like(means)], fmt="o-", capsize=3,
                label=name)  # fmt: skip
ax.set_xticks(np.log10(epsilons), [f"{e:g}" for e in epsilons])
ax.set_xlabel("total epsilon")
ax.set_ylabel("test accuracy (mean; bar down to the worst seed)")
ax.set_title("Iris, ObjectivePerturbationLogistic, 12 candidates")
ax.legend(loc="upper left", fontsize="small")
fig.tight_layout()
plt.show()

# %%
# The private search pays for its selection with a third of the budget per run and a
# fifth of the rows held out, but unlike the divided ``GridSearchCV`` its cost does not
# grow with the grid, and unlike both baselines its choice adapts to the data.
