import math

import numpy as np
import pandas as pd

from benchmarks import _data, _encoding


def _task():
    X = pd.DataFrame(
        {
            "age": [20.0, 50.0, 90.0],
            "gain": [0.0, 99.0, 9999.0],
            "colour": pd.Categorical(["red", "blue", "red"], categories=["red", "blue", "green"]),
        }
    )
    public = {
        "bounds": {"age": (10.0, 90.0), "gain": (0.0, 9999.0)},
        "categorical_features": ["colour"],
        "categories": {"colour": ["red", "blue", "green"]},
        "log_scaled": ["gain"],
    }
    return _data.Task("toy", "classification", X, np.array([0, 1, 0]), X, None, public)


def test_public_encoder_scales_by_public_bounds_and_log_scales_money():
    task = _task()
    encoded = _encoding.public_encoder(task).fit_transform(task.X_train)
    np.testing.assert_allclose(encoded[:, 0], [-0.375, 0.0, 0.5])
    np.testing.assert_allclose(encoded[:, 1], [-0.5, math.log(100) / math.log(10000) - 0.5, 0.5])
    np.testing.assert_array_equal(encoded[:, 2:], [[1, 0, 0], [0, 1, 0], [1, 0, 0]])
    assert np.linalg.norm(encoded, axis=1).max() <= _encoding.encoded_norm_bound(task)
    lower, upper = _encoding.encoded_bounds(task)
    assert lower.shape == upper.shape == (encoded.shape[1],)
    assert np.all((lower <= encoded) & (encoded <= upper))
    # the norm bound is attained at a corner of the bounds: it is not loose either
    assert _encoding.encoded_norm_bound(task) == np.sqrt(2 / 4 + 1)


def test_public_encoder_does_not_mutate_the_input():
    task = _task()
    before = task.X_train.copy()
    _encoding.public_encoder(task).fit_transform(task.X_train)
    pd.testing.assert_frame_equal(task.X_train, before)
