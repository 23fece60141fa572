"""
=========================================
Private OPTICS and its reachability plot
=========================================

:class:`skdp.cluster.DPOPTICS` releases one noisy histogram of the data over a public
grid, and runs OPTICS on the occupied cells, each weighted by its noisy count. Ordering
the cells, computing their reachability and extracting clusters are all
post-processing of the histogram, so they cost no further privacy. This example
compares its reachability plot and clusters with scikit-learn's
:class:`~sklearn.cluster.OPTICS` on the same synthetic data.
"""

# %%
# Data and public bounds
# ----------------------
# Three blobs of different spreads and a sprinkle of background points. The grid is
# laid over a public box, here ``[-10, 10]`` on both axes: it must come from what is
# known about the data (units, the range of a sensor), not from the points, and it
# holds them all, so nothing is clipped. Fixed ``random_state`` values make the example
# reproducible; a real release must leave them at ``None``.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import OPTICS
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from skdp.cluster import DPOPTICS

blobs, _ = make_blobs(
    n_samples=[2000, 1500, 1000],
    centers=[[-4, -3], [3, 3], [4, -4]],
    cluster_std=[1.0, 0.8, 0.5],
    random_state=0,
)
background = np.random.default_rng(0).uniform(-9, 9, size=(200, 2))
X = np.vstack([blobs, background])
bounds = (-10.0, 10.0)

# %%
# The same settings for both
# --------------------------
# ``min_samples`` is the number of records within the core distance (for DPOPTICS,
# the noisy weight of the cells within it), ``max_eps`` the largest distance
# considered, and ``min_cluster_size`` a fraction of the records (for DPOPTICS, of
# their noisy total). DPOPTICS's grid is public too: ``grid_size=60`` gives cells a
# third of a unit wide, so that reachability distances vary inside a blob. Without
# ``grid_size``, a finite ``max_eps`` picks cells of diagonal at most ``max_eps``,
# which resolves that distance but flattens the reachability inside the blobs.
settings = {"min_samples": 20, "max_eps": 2.0, "min_cluster_size": 0.05}

optics = OPTICS(**settings).fit(X)
dp_optics = DPOPTICS(epsilon=1.0, bounds=bounds, grid_size=60, random_state=0, **settings).fit(X)

print(f"grid: {dp_optics.grid_shape_}, {len(dp_optics.ordering_)} occupied cells")
print(f"budget split: {dp_optics.epsilon_split_}")
print(f"privacy spent: {dp_optics.privacy_spent_}")

# %%
# What is released
# ----------------
# The noisy histogram ``histogram_``, the occupied cells (``cell_centers_``,
# ``cell_weights_``), their OPTICS ordering, reachability and labels, and a noisy
# record count per cluster (``cluster_counts_``, ``noise_count_``) drawn with the
# ``counts`` share of the budget: a record is in one cluster or in the noise group, so
# these counts compose in parallel. A noisy count can be negative.
print(f"noisy records per cluster: {dp_optics.cluster_counts_}")
print(f"noisy records outside the clusters: {dp_optics.noise_count_}")

# %%
# ``labels_`` is the private model applied to the training points: the label of each
# point's cell. It is handy to compare with scikit-learn's labels, but publishing it
# would reveal which cluster each person is in: it is not covered by the guarantee.
agreement = adjusted_rand_score(optics.labels_, dp_optics.labels_)
print(f"adjusted Rand index between the two clusterings: {agreement:.3f}")

# %%
# Reachability plots
# ------------------
# scikit-learn's plot has one bar per point. DPOPTICS orders cells instead; drawing
# each cell as wide as its noisy weight puts both plots on the same scale of records.
# The valleys are the clusters; the grid quantises the distances, so the private plot
# is a staircase. Grey marks what is left out of every cluster: the background points
# and, for DPOPTICS, the cells that hold little more than noise. For display only, each
# private cluster takes the colour of the scikit-learn cluster it overlaps most.
colors = np.array(["C0", "C1", "C2", "C3", "C4", "C5"])
match = {
    k: np.bincount(optics.labels_[dp_optics.labels_ == k] + 1).argmax() - 1
    for k in np.unique(dp_optics.cell_labels_)
    if k >= 0
}


def color_of(labels, matched=False):
    if matched:
        labels = np.array([match.get(k, -1) for k in labels])
    return np.where(labels < 0, "lightgrey", colors[labels % len(colors)])


top = settings["max_eps"] * 1.1  # where unreachable (infinite) distances are drawn


def finite(reachability):
    return np.where(np.isfinite(reachability), reachability, top)


fig, axes = plt.subplots(2, 2, figsize=(11, 8), width_ratios=[3, 2])

order = optics.ordering_
axes[0, 0].bar(
    np.arange(len(order)),
    finite(optics.reachability_[order]),
    width=1.0,
    color=color_of(optics.labels_[order]),
)
axes[0, 0].set_title(f"OPTICS: {len(order)} points")

order = dp_optics.ordering_
weights = dp_optics.cell_weights_[order]
axes[1, 0].bar(
    np.concatenate([[0], np.cumsum(weights)[:-1]]),
    finite(dp_optics.reachability_[order]),
    width=weights,
    align="edge",
    color=color_of(dp_optics.cell_labels_[order], matched=True),
)
axes[1, 0].set_title(f"DPOPTICS, epsilon = 1: {len(order)} cells, width = noisy weight")
for ax in axes[:, 0]:
    ax.set_ylabel("reachability distance")
    ax.set_xlabel("records, in OPTICS order")
    ax.set_ylim(0, top)

for ax, point_colors, name in [
    (axes[0, 1], color_of(optics.labels_), "OPTICS labels"),
    (axes[1, 1], color_of(dp_optics.labels_, matched=True), "DPOPTICS labels_ (not released)"),
]:
    ax.scatter(X[:, 0], X[:, 1], s=3, c=point_colors)
    ax.set_xlim(*bounds)
    ax.set_ylim(*bounds)
    ax.set_aspect("equal")
    ax.set_title(name)
fig.tight_layout()
plt.show()
