"""skdp.decomposition.PCA: the release, its budget, its interface."""

import math
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.neighbors import NearestCentroid
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import scale

import skdp.decomposition._centring as centring_module
import skdp.decomposition._clipped_rows as clipped_rows_module
from skdp.accounting import PrivacyLedger, privacy_spent
from skdp.decomposition import PCA
from skdp.decomposition._centring import private_centring
from skdp.decomposition._spectrum import covariance_sensitivity
from skdp.exceptions import ClippingWarning
from skdp.linear_model import ObjectivePerturbationLogistic
from skdp.utils._bounds_scan import feature_counts

X_WINE = scale(load_wine().data)
Y_WINE = load_wine().target
DECLARED = {"bounds": (-4.0, 4.0), "data_norm": 6.0}


@pytest.fixture(autouse=True)
def _quiet_clipping():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        yield


@pytest.mark.parametrize("params", [DECLARED, {}, {"bounds": (-4.0, 4.0), "method": "covariance"}])
def test_budget_is_spent_exactly_and_recorded(params):
    pca = PCA(3, epsilon=0.8, random_state=0, **params).fit(X_WINE)
    assert pca.privacy_spent_.epsilon == pytest.approx(0.8, rel=1e-12)
    assert math.fsum(pca.epsilon_split_.values()) == pytest.approx(0.8, rel=1e-12)
    split = pca.epsilon_split_
    if pca.method_ == "sampler":  # 13 features, 178 rows, epsilon 0.8: the rule samples
        assert split["eigenvectors"] == pytest.approx(7 * split["eigenvalues"])
        assert split["covariance"] == 0.0
    else:
        assert split["eigenvectors"] == split["eigenvalues"] == 0.0 < split["covariance"]
    assert (split["data_norm"] > 0) == ("data_norm" not in params)
    assert (split["bounds"] > 0) == ("bounds" not in params)


@pytest.mark.parametrize("method", ["fit", "fit_transform"])
def test_x_is_never_modified(method):
    X = X_WINE.copy()
    getattr(PCA(2, epsilon=1.0, random_state=0, **DECLARED), method)(X)
    assert np.array_equal(X, X_WINE)  # diffprivlib 0.6.6 subtracts its mean in place


def test_large_epsilon_recovers_sklearns_subspace():
    ours = PCA(2, epsilon=1e6, random_state=0, **DECLARED).fit(X_WINE)
    exact = SklearnPCA(2).fit(X_WINE)
    assert np.allclose(ours.components_ @ ours.components_.T, np.eye(2), atol=1e-10)
    assert np.allclose(np.abs(ours.components_ @ exact.components_.T), np.eye(2), atol=0.02)
    # clipping at data_norm=6 shrinks a few rows: the ratios stay close
    assert np.allclose(ours.explained_variance_ratio_, exact.explained_variance_ratio_, atol=0.03)
    assert np.allclose(ours.mean_, 0.0, atol=0.01)


def test_transform_and_inverse_transform():
    pca = PCA(epsilon=2.0, random_state=0, **DECLARED).fit(X_WINE)
    assert pca.n_components_ == X_WINE.shape[1]
    projected = pca.transform(X_WINE)
    assert np.allclose(projected, (X_WINE - pca.mean_) @ pca.components_.T)
    assert np.allclose(pca.inverse_transform(projected), X_WINE)  # all components: exact


def test_no_exact_count_is_released():
    counts = {PCA(2, random_state=seed, **DECLARED).fit(X_WINE).n_samples_ for seed in range(5)}
    assert len(counts) > 1 and counts != {len(X_WINE)}


def test_too_many_components_is_a_clear_error():
    with pytest.raises(ValueError, match="n_components=14 must be at most n_features=13"):
        PCA(14, **DECLARED).fit(X_WINE)


def test_refit_estimates_the_bounds_again():
    pca = PCA(2, random_state=0)
    first = pca.fit(X_WINE).bounds_
    second = pca.fit(X_WINE * 10).bounds_
    assert pca.bounds is None and np.all(second[1] > 5 * first[1])


def test_set_output_and_feature_names():
    frame = pd.DataFrame(X_WINE, columns=[f"f{i}" for i in range(13)])
    pca = PCA(2, random_state=0, **DECLARED).set_output(transform="pandas")
    out = pca.fit_transform(frame)
    assert list(out.columns) == ["pca0", "pca1"] and out.index.equals(frame.index)


def test_downstream_accuracy():
    scores = []
    for seed in range(3):
        projected = PCA(2, epsilon=5.0, random_state=seed, **DECLARED).fit_transform(X_WINE)
        scores.append(NearestCentroid().fit(projected, Y_WINE).score(projected, Y_WINE))
    assert np.median(scores) > 0.85  # non-private PCA(2): 0.97


def test_a_pipeline_of_private_steps_spends_the_sum():
    model = ObjectivePerturbationLogistic(epsilon=1.0, data_norm=6.0, classes=[0, 1, 2])
    pipe = make_pipeline(PCA(2, epsilon=5.0, **DECLARED), model).fit(X_WINE, Y_WINE)
    assert privacy_spent(pipe).epsilon == pytest.approx(6.0)


def test_eigenvalues_move_by_the_squared_norm_of_an_added_row():
    """The sensitivity the eigenvalue release is calibrated to (Notes, step 4)."""
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(30, 5))
    Z /= np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1.0)
    z = rng.normal(size=5)
    z /= np.linalg.norm(z)
    before = np.linalg.eigvalsh(Z.T @ Z)
    after = np.linalg.eigvalsh(Z.T @ Z + np.outer(z, z))
    assert np.all(after >= before - 1e-12)
    assert np.sum(after - before) == pytest.approx(1.0)


def test_a_mean_within_its_noise_is_the_box_midpoint():
    """The soft threshold (Notes): standardised data in a box centred on 0."""
    low = PCA(2, epsilon=0.2, random_state=0, **DECLARED).fit(X_WINE)
    assert np.count_nonzero(low.mean_) <= 2  # 13 features: the noise explains the offsets
    shifted = PCA(2, epsilon=1e4, bounds=(-4.0, 8.0), data_norm=6.0, random_state=0)
    assert np.allclose(shifted.fit(X_WINE + 2.0).mean_, 2.0, atol=0.01)


def test_the_last_of_all_directions_costs_nothing():
    with PrivacyLedger() as ledger:
        pca = PCA(epsilon=1.0, method="sampler", random_state=0, **DECLARED).fit(X_WINE[:, :3])
    draws = [e for e in ledger.entries if e.mechanism == "sphere_exponential"]
    assert len(draws) == 2 and pca.components_.shape == (3, 3)
    assert sum(e.epsilon for e in draws) == pytest.approx(pca.epsilon_split_["eigenvectors"])
    assert np.allclose(pca.components_ @ pca.components_.T, np.eye(3), atol=1e-10)
    one = PCA(epsilon=1.0, method="sampler", random_state=0, **DECLARED).fit(X_WINE[:, :1])
    assert one.components_.tolist() == [[1.0]] and one.epsilon_split_["eigenvectors"] == 0.0
    assert one.privacy_spent_.epsilon == pytest.approx(1.0)


def test_covariance_sensitivity_is_the_worst_added_row():
    """An added row of norm <= 1 moves the upper triangle of Z^T Z by at most (d + 1) / 2
    in L1, and |z_j| = 1 / sqrt(d) attains it."""
    rng = np.random.default_rng(0)
    for d in (1, 2, 5):
        upper = np.triu_indices(d)
        Z = rng.normal(size=(500, d))
        Z /= np.linalg.norm(Z, axis=1, keepdims=True)
        moves = [np.abs(np.outer(z, z)[upper]).sum() for z in Z]
        assert max(moves) <= covariance_sensitivity(d) + 1e-12
        z = np.full(d, 1 / np.sqrt(d))
        assert np.abs(np.outer(z, z)[upper]).sum() == pytest.approx(covariance_sensitivity(d))


@pytest.mark.parametrize(
    ("n_rows", "n_features", "k", "expected"),
    [(2000, 10, 2, "covariance"), (100, 13, 4, "sampler"), (2000, 13, 4, "covariance")],
)
def test_auto_picks_the_release_by_public_values(n_rows, n_features, k, expected):
    """k^2 n~ epsilon_spectrum >= d^3: the covariance; else the sampler."""
    X = np.random.default_rng(0).normal(size=(n_rows, n_features))
    pca = PCA(k, epsilon=1.0, bounds=(-4.0, 4.0), data_norm=6.0, random_state=0).fit(X)
    assert pca.method_ == expected
    forced = PCA(k, epsilon=1.0, method="sampler", random_state=0, **DECLARED).fit(X)
    assert forced.method_ == "sampler" and forced.epsilon_split_["covariance"] == 0.0


@pytest.mark.parametrize(
    "params",
    [
        {"bounds": (-1.0, 1.0), "data_norm": 3.0},
        {"bounds": (-1.0, 1.0)},
        {"bounds": (0.5, 1.0)},
        {},
    ],
)
def test_the_fit_never_copies_x(params):
    """Peak memory of a fit, a third of X's values outside the box: blocks of rows and
    2 bytes a row (the norms' keys), no copy of X (there was one clipped copy)."""
    X = np.random.default_rng(0).uniform(-1.5, 1.5, size=(200_000, 10))
    PCA(2, random_state=0, **params).fit(X[:1000])  # imports and tables made on first use
    tracemalloc.start()
    try:
        PCA(2, epsilon=1.0, random_state=0, **params).fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.4 * X.nbytes


def test_clipping_is_reported():
    X = X_WINE.copy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PCA(2, epsilon=1.0, bounds=(-1.0, 1.0), data_norm=1.0, random_state=0).fit(X)
    messages = [str(w.message) for w in caught if w.category is ClippingWarning]
    assert any("values" in m or "clipped" in m for m in messages)
    assert any("L2 norm above 1" in m for m in messages)
    assert np.array_equal(X, X_WINE)


@pytest.mark.parametrize("box", [(-2.0, 2.0), (1.0, 6.0)])
@pytest.mark.parametrize(("gram", "given_keys"), [(True, False), (True, True), (False, False)])
def test_the_scatter_is_that_of_the_clipped_centred_rows(box, gram, given_keys):
    """No centred copy is formed: R^T R and the sums, then the long rows corrected;
    without R^T R (a declared norm bound) the scaled centred rows summed a block at a time."""
    X = np.random.default_rng(0).normal(loc=sum(box) / 2, scale=1.5, size=(300, 4))
    centring = private_centring(
        X, *box, epsilon_count=1.0, epsilon_sums=1.0, stacklevel=1, random_state=0, gram=gram
    )
    assert (centring.gram is None) == (not gram)
    D = np.clip(X, *box) - centring.mean
    norms = np.linalg.norm(D, axis=1)
    assert np.allclose(centring.squared_norms(), norms**2)
    keys = centring.norm_counts()[1] if given_keys else None
    scatter = centring.scatter(2.0, keys=keys, stacklevel=1)
    Z = D * np.minimum(1.0, 2.0 / norms)[:, np.newaxis] / 2.0
    assert np.count_nonzero(norms > 2.0) > 10
    assert np.allclose(scatter, Z.T @ Z, atol=1e-9)


@pytest.mark.parametrize("box", [(-2.0, 2.0), (1.0, 6.0)])
def test_the_blocks_add_up_to_the_clipped_rows(monkeypatch, box):
    """Blocks of 128 rows, some inside the box and some not, a tail of 40 rows: the
    same count of clipped values, sums, R^T R, norms and scatter as the whole array."""
    monkeypatch.setattr(clipped_rows_module, "CELLS", 512)
    rng = np.random.default_rng(1)
    X = rng.uniform(box[0] + 0.1, box[1] - 0.1, size=(1000, 4))
    X[rng.choice(np.arange(256, 1000), 30)] *= 3.0  # the first two blocks stay inside
    with pytest.warns(ClippingWarning, match="values of X") as caught:
        centring = private_centring(
            X, *box, epsilon_count=1.0, epsilon_sums=1.0, stacklevel=1, random_state=0
        )
    clipped = np.clip(X, *box)
    assert f"{np.count_nonzero(clipped != X)} of 4000" in str(caught[0].message)
    assert centring.box.step == 128 and centring.box.inside[:2] == [True, True]
    assert not all(centring.box.inside)
    R = clipped - centring.origin
    assert np.allclose(centring.sums, R.sum(axis=0), rtol=1e-13)
    assert np.allclose(centring.gram, R.T @ R, rtol=1e-13)
    D = clipped - centring.mean
    norms = np.linalg.norm(D, axis=1)
    assert np.allclose(centring.squared_norms(), norms**2, rtol=1e-12)
    bound = np.quantile(norms, 0.8)
    Z = D * np.minimum(1.0, bound / norms)[:, np.newaxis] / bound
    for keys in (None, centring.norm_counts()[1]):
        scatter = centring.scatter(bound, keys=keys, stacklevel=1)
        assert np.allclose(scatter, Z.T @ Z, rtol=1e-12, atol=1e-9)
    centring.gram = None  # the dense pass over the same blocks
    assert np.allclose(centring.scatter(bound, stacklevel=1), Z.T @ Z, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("box", [(-2.0, 2.0), (1.0, 6.0)])
def test_blocks_with_few_clipped_values_are_read_again_as_the_clipped_rows(monkeypatch, box):
    """A block with at most one clipped value per 64 rows is remembered by its rows and
    read again by a copy with those rows clipped: exactly the values of clip(X) - origin;
    a block with more is clipped whole again."""
    monkeypatch.setattr(clipped_rows_module, "CELLS", 2048)  # blocks of 512 rows of 4
    rng = np.random.default_rng(4)
    X = rng.uniform(box[0] + 0.1, box[1] - 0.1, size=(2000, 4))
    X[[3, 700, 701, 1500]] += 10.0 * np.array([1.0, -1.0, 0.0, 1.0])  # blocks 0, 1, 2
    X[1100:1200, 2] = box[1] + 5.0  # block 2: 100 clipped values, too many
    with pytest.warns(ClippingWarning):
        centring = private_centring(
            X, *box, epsilon_count=1.0, epsilon_sums=1.0, stacklevel=1, random_state=0
        )
    box_reader = centring.box
    assert sorted(box_reader.few) == [0, 1] and set(box_reader.few[1]) == {188, 189}
    expected = np.clip(X, *box) - centring.origin
    for first, rows, _ in box_reader.blocks():
        assert np.array_equal(rows, expected[first : first + rows.shape[0]])


def test_the_norm_keys_find_every_long_row():
    """A norm above the bound has a key at least the bound's: the rows read again."""
    X = np.random.default_rng(2).normal(size=(5000, 3))
    centring = private_centring(
        X, -3.0, 3.0, epsilon_count=1.0, epsilon_sums=1.0, stacklevel=1, random_state=0
    )
    squared = centring.squared_norms()
    below, keys = centring.norm_counts()
    assert int(below[-1]) <= squared.size and keys.dtype == np.uint16
    for bound in np.quantile(squared, [0.5, 0.9, 0.99]):
        key = np.float64(bound).view(np.uint64) >> np.uint64(48)
        assert np.all(keys[squared > bound] >= key)
        assert np.count_nonzero(keys >= key) < 1.2 * np.count_nonzero(squared >= bound)


@pytest.mark.parametrize("bound", [1e-3, 1e-6, 2.0**-30])
def test_the_scatter_keeps_its_precision_under_a_bound_far_below_the_rows(bound):
    """Every row longer than the bound, in a box far from the rows: R^T R - ... would
    cancel (an error of 5.6 in Z^T Z at 1e-6, over its sensitivity); the rows' own
    weighted sum serves, to rounding of Z^T Z."""
    from sklearn.datasets import load_iris

    X = load_iris().data
    centring = private_centring(
        X, 0.0, 8.0, epsilon_count=1.0, epsilon_sums=1.0, stacklevel=1, random_state=0
    )
    D = X - centring.mean
    Z = D / np.linalg.norm(D, axis=1)[:, np.newaxis]
    with pytest.warns(ClippingWarning, match="150 of 150"):
        scatter = centring.scatter(bound, keys=centring.norm_counts()[1], stacklevel=1)
    assert np.allclose(scatter, Z.T @ Z, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "params", [{}, {"bounds": (0.5, 3.0)}, {"bounds": (-1.0, 1.0), "data_norm": 2.0}]
)
def test_fortran_ordered_rows_give_the_same_release(params):
    """Blocks of an F-ordered X are strided views and its long rows are gathered by
    fancy indexing (take() would read them value by value): the same release."""
    X = np.random.default_rng(0).normal(size=(20_000, 5))
    X[::97] *= 6.0
    a = PCA(2, random_state=3, **params).fit(X)
    b = PCA(2, random_state=3, **params).fit(np.asfortranarray(X))
    assert np.array_equal(a.components_, b.components_) and np.array_equal(a.mean_, b.mean_)
    assert a.data_norm_ == b.data_norm_


def test_the_count_and_the_sums_are_one_release_at_their_own_scales(monkeypatch):
    """One call of the exact sampler for both (its fixed cost showed at 10^5 rows), at
    noise scales 1 / epsilon_count for the count and d / epsilon_sums for the sums."""
    calls = []

    def spy(value, *, sensitivity, epsilon, random_state):
        calls.append((np.asarray(value).copy(), sensitivity, epsilon))
        return value

    monkeypatch.setattr(centring_module, "laplace", spy)
    X = np.random.default_rng(0).uniform(-1.0, 1.0, size=(200, 3))
    centring = private_centring(
        X, -1.0, 1.0, epsilon_count=0.5, epsilon_sums=1.5, stacklevel=1, random_state=0
    )
    [(value, sensitivity, epsilon)] = calls
    weight = value[0] / 200
    assert epsilon == 2.0 and sensitivity == pytest.approx(weight + 3)
    assert sensitivity / epsilon / weight == pytest.approx(1 / 0.5)  # the count's scale
    assert sensitivity / epsilon == pytest.approx(3 / 1.5)  # the sums'
    assert np.allclose(value[1:], X.sum(axis=0)) and centring.n == 200


def test_the_norm_scan_reads_the_bounds_subsample_only(monkeypatch):
    """Where the private bounds read a Poisson subsample (300k rows), the norm scan
    counts the norms of those rows only (the keys still cover every row); with
    declared bounds there is no subsample and every row is counted."""
    import skdp.utils._bounds as bounds_module

    drawn, counted = [], []
    real_rows, real_counts = bounds_module.poisson_rows, centring_module.feature_counts

    def rows_spy(n_rows, rate, rng):
        drawn.append(real_rows(n_rows, rate, rng))
        return drawn[-1]

    def counts_spy(X, rows=None):
        counted.append(X.shape[0])
        return real_counts(X, rows)

    monkeypatch.setattr(bounds_module, "poisson_rows", rows_spy)
    monkeypatch.setattr(centring_module, "feature_counts", counts_spy)
    X = np.random.default_rng(0).normal(size=(300_000, 10))
    PCA(2, random_state=0).fit(X)
    assert len(drawn) == 1 and drawn[0] is not None
    assert sum(counted) == drawn[0].size < 0.6 * X.shape[0]
    counted.clear()
    PCA(2, bounds=(-4.0, 4.0), random_state=0).fit(X)
    assert sum(counted) == X.shape[0]


def test_the_subsample_norm_counts_are_those_of_its_rows():
    """Rows across three chunks of norms: the counts of the chosen rows' norms, exactly."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150_000, 3))
    centring = private_centring(
        X, -4.0, 4.0, epsilon_count=1.0, epsilon_sums=1.0, stacklevel=1, random_state=0
    )
    rows = np.sort(rng.choice(X.shape[0], 5000, replace=False))
    below, keys = centring.norm_counts(rows)
    norms = np.sqrt(centring.squared_norms()[rows])
    assert np.array_equal(below, feature_counts(norms[:, np.newaxis])[0][0])
    assert np.array_equal(keys, centring.norm_counts()[1])
