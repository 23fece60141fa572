"""
============================================
Private statistics of a census column
============================================

:mod:`skdp.tools` releases numpy-like statistics (:func:`~skdp.tools.mean`,
:func:`~skdp.tools.std`, :func:`~skdp.tools.median`,
:func:`~skdp.tools.histogram`, ...) under ``epsilon``-differential privacy for adding
or removing one person. This example releases statistics of the ``age`` column of the
UCI Adult census sample shipped with skdp and shows how far they land from the exact
values as the budget grows.

Every release needs **public** bounds: here the documented domain of ``age``,
``[17, 91]`` (:func:`skdp.datasets.load_numeric_domains`), never the observed minimum
and maximum. Values outside would be clipped to it.
"""

# %%
# The data and the exact statistics
# ---------------------------------
import matplotlib.pyplot as plt
import numpy as np

from skdp import PrivacyLedger
from skdp.datasets import fetch_adult, load_numeric_domains
from skdp.tools import histogram, mean, median, std

# every fifth row of Adult, shipped with skdp (no download, no data folder)
age = fetch_adult(sample=True).data["age"].to_numpy(dtype=float)
bounds = load_numeric_domains("adult")["age"]
edges = np.arange(10, 101, 10)  # public bins: decades
exact = {"mean": age.mean(), "std": age.std(), "median": np.median(age)}
exact_counts = np.histogram(age, edges)[0]
print(f"{age.size} people; exact mean {exact['mean']:.2f}, std {exact['std']:.2f}, "
      f"median {exact['median']:.0f}; public bounds {bounds}")  # fmt: skip

# %%
# One private release per statistic
# ---------------------------------
# Each call spends its own ``epsilon``; a :class:`~skdp.PrivacyLedger` around them adds
# the spends up (sequential composition: they all read the same people).
with PrivacyLedger() as ledger:
    released = {
        "mean": mean(age, epsilon=0.5, bounds=bounds, random_state=0),
        "std": std(age, epsilon=0.5, bounds=bounds, random_state=0),
        "median": median(age, epsilon=0.5, bounds=bounds, random_state=0),
    }
    counts, _ = histogram(age, edges, epsilon=0.5, random_state=0)
for name, value in released.items():
    print(f"{name:>6}: private {value:7.2f}   exact {exact[name]:7.2f}")
print("decade counts, private:", counts)
print("decade counts, exact:  ", exact_counts)
print(f"total spent: {ledger.total.epsilon:g}")

# %%
# Fixed ``random_state`` values make this example reproducible; anyone who knows the
# seed can subtract the noise, so real releases leave ``random_state=None``.
#
# Error against epsilon
# ---------------------
# For each budget, 10 independent releases of each statistic: the line is the mean
# absolute error, the band reaches up to the worst of the 10. The histogram's error is
# the share of people it misplaces (half the L1 distance between the private and the
# exact counts, divided by the number of people). The left axis is linear below 0.001
# year so that an error of exactly 0 shows.
epsilons = np.array([0.01, 0.03, 0.1, 0.3, 1.0])
seeds = range(10)


def errors(release):
    return np.array([[release(eps, seed) for seed in seeds] for eps in epsilons])


results = {
    name: errors(lambda eps, seed, f=f, name=name: abs(
        f(age, epsilon=eps, bounds=bounds, random_state=seed) - exact[name]))
    for name, f in (("mean", mean), ("std", std), ("median", median))
}  # fmt: skip
misplaced = errors(
    lambda eps, seed: np.abs(histogram(age, edges, epsilon=eps, random_state=seed)[0]
                             - exact_counts).sum() / (2 * age.size)
)  # fmt: skip

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
for name, err in results.items():
    (line,) = left.plot(epsilons, err.mean(axis=1), "o-", label=name)
    left.fill_between(epsilons, err.mean(axis=1), err.max(axis=1), alpha=0.15,
                      color=line.get_color())  # fmt: skip
left.set_xscale("log")
left.set_yscale("symlog", linthresh=1e-3)
left.set_ylim(bottom=0)
left.set(xlabel="epsilon", ylabel="absolute error (years)", title="age: mean, std and median")
left.legend()
right.plot(epsilons, misplaced.mean(axis=1), "o-", color="C3")
right.fill_between(epsilons, misplaced.mean(axis=1), misplaced.max(axis=1), alpha=0.15,
                   color="C3")  # fmt: skip
right.set(xscale="log", yscale="log", xlabel="epsilon", ylabel="share of people misplaced",
          title="age: histogram by decade")  # fmt: skip
for ax in (left, right):
    ax.grid(True, which="major", alpha=0.3)
fig.suptitle(f"Private statistics of {age.size} ages: mean and worst error of 10 releases")
fig.tight_layout()
plt.show()

# %%
# The errors of the mean, the standard deviation and the histogram shrink like
# ``1 / epsilon``: ten times the budget, a tenth of the error. The median behaves
# differently: its error is counted in people (ranks), and about 240 people share the
# median age, so from ``epsilon`` of about 0.1 the release is the exact median, whole
# years being among the public candidates of :func:`~skdp.tools.quantile`. For the
# budgets and the sensitivities behind each function, see :ref:`user_guide_tools`.
