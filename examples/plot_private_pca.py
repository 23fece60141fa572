"""
=========================================
Private PCA: variance captured vs epsilon
=========================================

:class:`skdp.decomposition.PCA` releases principal directions with pure
``epsilon``-differential privacy: a private mean, then either the covariance matrix
with Laplace noise on its upper triangle (``method="covariance"``) or noisy
eigenvalues and each direction drawn from the exponential mechanism on the unit
sphere (``method="sampler"``, Amin et al., NeurIPS 2019). ``method="auto"`` picks one
from public values: the covariance when ``k^2 n~ epsilon >= d^3`` (``k`` components,
``d`` features, noisy count ``n~``). This example fits it on Iris (4 features) and
Wine (13 features) and shows how much of the held-out variance its first two
directions capture, against scikit-learn's :class:`~sklearn.decomposition.PCA` and
two random directions.
"""

# %%
# Data and public inputs
# ----------------------
# The features are standardised with the training rows (taken as public here, as a
# data owner's published scaling would be). The box ``[-3, 3]`` bounds every
# standardised feature and ``data_norm`` bounds the length of a centred row; both are
# declared from that scaling, not read from the data (values outside are clipped,
# with a warning that this example silences). Fixed ``random_state`` values make the
# example reproducible; never publish a release made with a fixed seed.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_iris, load_wine
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from skdp.decomposition import PCA
from skdp.exceptions import ClippingWarning

warnings.simplefilter("ignore", ClippingWarning)


def split(load):
    X, y = load(return_X_y=True)
    X_train, X_test = train_test_split(X, test_size=0.3, stratify=y, random_state=0)
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), scaler.transform(X_test)


def public(d):
    return {"bounds": (-3.0, 3.0), "data_norm": 1.5 * np.sqrt(d)}


def captured(components, X):
    """Share of the centred variance of ``X`` in the span of the rows of ``components``."""
    centred = X - X.mean(axis=0)
    return np.sum((centred @ components.T) ** 2) / np.sum(centred**2)


data = {"Iris": split(load_iris), "Wine": split(load_wine)}

# %%
# One private fit
# ---------------
# ``method_`` says which release ``"auto"`` chose and ``epsilon_split_`` how the budget
# was spent: the mean (a count and sums), then the covariance (or the eigenvalues and
# the directions); ``privacy_spent_`` is what the ledger measured.
X_train, X_test = data["Iris"]
pca = PCA(n_components=2, epsilon=1.0, random_state=0, **public(4)).fit(X_train)
print("release:", pca.method_)
print({k: round(v, 3) for k, v in pca.epsilon_split_.items()})
print("spent:", pca.privacy_spent_.epsilon)
print("variance ratio (noisy):", pca.explained_variance_ratio_.round(3))
print("held-out variance captured:", round(captured(pca.components_, X_test), 3))

# %%
# Variance captured against epsilon
# ---------------------------------
# Twenty seeds per epsilon: the line is the mean, the band runs from the worst seed
# to the mean (a user gets one run, not the average). The dashed line forces the
# sampler, to show what the rule buys.
epsilons = [0.1, 0.2, 0.5, 1, 2, 5, 10]


def scores(X_train, X_test, method):
    d = X_train.shape[1]
    return np.array(
        [
            [
                captured(
                    PCA(2, epsilon=eps, method=method, random_state=seed, **public(d))
                    .fit(X_train)
                    .components_,
                    X_test,
                )
                for seed in range(20)
            ]
            for eps in epsilons
        ]
    )


fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
for ax, (name, (X_train, X_test)) in zip(axes, data.items(), strict=True):
    d = X_train.shape[1]
    auto, sampler = scores(X_train, X_test, "auto"), scores(X_train, X_test, "sampler")
    exact = captured(SklearnPCA(2).fit(X_train).components_, X_test)
    rng = np.random.default_rng(0)
    random_pairs = [
        captured(np.linalg.qr(rng.normal(size=(d, 2)))[0].T, X_test) for _ in range(200)
    ]
    ax.plot(epsilons, auto.mean(axis=1), "o-", color="C0", label="skdp PCA, auto (mean of 20)")
    ax.fill_between(epsilons, auto.min(axis=1), auto.mean(axis=1), color="C0", alpha=0.2,
                    label="auto, worst seed to mean")  # fmt: skip
    ax.plot(epsilons, sampler.mean(axis=1), "s--", color="C2", label="skdp PCA, sampler only")
    ax.axhline(exact, color="C1", linestyle="--", label="scikit-learn PCA (non-private)")
    ax.axhline(np.mean(random_pairs), color="grey", linestyle=":", label="two random directions")
    ax.set_xscale("log")
    ax.set_xlabel("epsilon")
    ax.set_title(f"{name}: {d} features, {len(X_train)} training rows")
axes[0].set_ylabel("held-out variance captured\nby the first 2 components")
axes[0].set_ylim(0, 1)
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=9)
fig.tight_layout(rect=(0, 0.12, 1, 1))
plt.show()

# %%
# On Iris (4 features) the rule releases the covariance from epsilon 0.2: its noise
# grows with the number of features, and with four it is small, so the mean sits
# above the sampler's from there on (at 0.1 both are close to random directions).
# Wine has three times the features and about as few rows: the covariance's noise
# (``d (d + 1) / 2`` entries, each at L1 sensitivity ``(d + 1) / 2``) swamps the
# signal, and with two components each draw of the sampler gets half the spectral
# budget: the rule samples up to epsilon 5, and from there, where it switches, the
# two are close (the sampler a little ahead here; with four components, as in
# ``benchmarks/pca.py``, the covariance is clearly ahead at epsilon 5: 0.42 against
# 0.35 of the held-out variance).
# The public inputs matter too: a loose ``data_norm`` spreads the same noise over a
# larger scale. Leaving them out (``PCA(2, epsilon=1.0)``) estimates them privately
# with part of the budget (see ``epsilon_split_``).
