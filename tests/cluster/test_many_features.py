"""The clusterers' grids in many dimensions: digits' 64 features, default constructors."""

import copy

import numpy as np
import pytest
from sklearn.datasets import load_digits

from skdp.cluster import DPOPTICS, DPKMeans
from skdp.cluster._grid import cell_index, flat_index, grid_positions
from skdp.cluster._optics_eom import _neighbours

X_DIGITS = load_digits().data


@pytest.mark.parametrize("estimator", [DPKMeans(random_state=0), DPOPTICS(random_state=0)])
@pytest.mark.filterwarnings("ignore")
def test_default_constructor_fits_64_features(estimator):
    """numpy's ravel_multi_index stops at 32 dimensions; the grids must not."""
    model = estimator.fit(X_DIGITS)
    assert model.labels_.shape == (X_DIGITS.shape[0],)
    assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)


def test_flat_index_and_grid_positions_invert_each_other_past_32_dimensions():
    shape = (3, 2) + (1,) * 40 + (2,)
    rng = np.random.default_rng(0)
    position = np.column_stack([rng.integers(0, side, 50) for side in shape])
    flat = flat_index(position, shape)
    assert flat.max() < np.prod(shape)
    np.testing.assert_array_equal(grid_positions(flat, shape), position)
    small = (4, 5, 3)
    Z = rng.uniform(-1, 1, (200, 3))
    cells = np.clip(np.floor((Z + 1) / 2 * np.array(small)).astype(int), 0, np.array(small) - 1)
    np.testing.assert_array_equal(cell_index(Z, small), np.ravel_multi_index(cells.T, small))


def test_cells_touch_by_corners_in_few_dimensions_and_by_faces_in_many():
    corner = np.array([[0, 0], [1, 1]])
    assert 1 in _neighbours(corner)[0]
    many = np.zeros((2, 13), dtype=int)
    many[1, :2] = 1  # two cells differing in two coordinates: an edge, not a face
    assert 1 not in _neighbours(many)[0]
    many[1, 1] = 0
    assert 1 in _neighbours(many)[0]


@pytest.mark.parametrize(
    "estimator",
    [DPOPTICS(random_state=0), DPOPTICS(cluster_method="xi", random_state=0),
     DPKMeans(method="grid", random_state=0)],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore")
def test_grids_past_numpys_dimension_limit(estimator):
    """One grid dimension per feature: 80 features is past numpy's 64 (32 on numpy 1)."""
    X = np.random.default_rng(0).normal(size=(400, 80))
    model = estimator.fit(X)
    assert model.labels_.shape == (400,)
    assert model.privacy_spent_.epsilon == pytest.approx(1.0, rel=1e-12)
    if isinstance(model, DPOPTICS):
        assert len(model.grid_shape_) == 80
        assert model.histogram_.size == np.prod(model.grid_shape_)
        # the released histogram alone gives the same clustering
        again = copy.deepcopy(model).cluster_from_histogram(model.histogram_.copy())
        np.testing.assert_array_equal(again.cell_labels_, model.cell_labels_)
        np.testing.assert_array_equal(again.reachability_, model.reachability_)
