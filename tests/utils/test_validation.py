"""check_epsilon, resolve_bounds, clipping and split_budget."""

import math

import numpy as np
import pandas as pd
import pytest

from skdp import ClippingWarning
from skdp.utils.validation import (
    check_epsilon,
    clip_rows_to_norm,
    clip_to_bounds,
    resolve_bounds,
    split_budget,
)


@pytest.mark.parametrize("bad", [0, -0.5, math.nan, math.inf, None, "1", True, [1.0]])
def test_check_epsilon_rejects(bad):
    with pytest.raises(ValueError, match="epsilon"):
        check_epsilon(bad)


def test_check_epsilon_accepts_numpy_numbers():
    assert check_epsilon(np.float32(0.5)) == 0.5
    assert check_epsilon(np.int64(2)) == 2.0


def test_resolve_bounds_forms():
    lower, upper = resolve_bounds((0, 1), 3)
    np.testing.assert_array_equal(lower, [0, 0, 0])
    np.testing.assert_array_equal(upper, [1, 1, 1])
    lower, upper = resolve_bounds(([0, -1], [2, 3]), 2)
    np.testing.assert_array_equal(upper, [2, 3])
    frame = pd.DataFrame({"age": [30], "hours": [40]})
    lower, upper = resolve_bounds(
        {"hours": (1, 99), "age": (17, 90)}, 2, feature_names=frame.columns
    )
    np.testing.assert_array_equal(lower, [17, 1])
    assert resolve_bounds(None, 4) is None


def test_resolve_bounds_does_not_alias_user_arrays():
    user_lower = np.zeros(2)
    lower, _ = resolve_bounds((user_lower, 1.0), 2)
    lower[0] = 5
    assert user_lower[0] == 0


@pytest.mark.parametrize(
    ("bounds", "match"),
    [
        ((1, 0), "lower must be < upper"),
        ((0, 0), "lower must be < upper"),
        ((0, math.inf), "finite"),
        ((0, [1, 2, 3]), "length n_features=2"),
        ((0, 1, 2), "pair"),
        ("01", "pair"),
    ],
)
def test_resolve_bounds_errors(bounds, match):
    with pytest.raises(ValueError, match=match):
        resolve_bounds(bounds, 2, name="bounds")


def test_resolve_bounds_dict_must_name_every_column():
    with pytest.raises(ValueError, match=r"missing: \['hours'\]"):
        resolve_bounds({"age": (0, 1)}, 2, feature_names=["age", "hours"])
    with pytest.raises(ValueError, match=r"not columns: \['height'\]"):
        resolve_bounds(
            {"age": (0, 1), "hours": (0, 1), "height": (0, 2)}, 2, feature_names=["age", "hours"]
        )
    with pytest.raises(ValueError, match="column names are all strings"):
        resolve_bounds({"age": (0, 1)}, 1)


def test_clip_to_bounds_warns_with_the_count_and_copies():
    X = np.array([[-1.0, 0.5], [2.0, 0.25]])
    original = X.copy()
    with pytest.warns(ClippingWarning, match="2 of 4 values of X"):
        clipped = clip_to_bounds(X, np.zeros(2), np.ones(2))
    np.testing.assert_array_equal(clipped, [[0, 0.5], [1, 0.25]])
    np.testing.assert_array_equal(X, original)


def test_clip_to_bounds_is_silent_when_nothing_is_clipped(recwarn):
    clip_to_bounds(np.array([0.0, 1.0]), 0.0, 1.0)
    assert not recwarn.list


def test_clip_rows_to_norm():
    X = np.array([[3.0, 4.0], [0.0, 0.5]])
    with pytest.warns(ClippingWarning, match="1 of 2 rows"):
        clipped = clip_rows_to_norm(X, 1.0)
    np.testing.assert_allclose(np.linalg.norm(clipped, axis=1), [1.0, 0.5])
    assert X[0, 0] == 3.0


def test_split_budget_adds_up_exactly():
    parts = split_budget(0.3, [1, 1, 1])
    assert math.fsum(parts) == 0.3
    named = split_budget(1.0, {"counts": 1, "sums": 3})
    assert named == {"counts": 0.25, "sums": 0.75}


@pytest.mark.parametrize("shares", [[], [1, 0], [1, -1], {"a": math.nan}])
def test_split_budget_rejects_bad_shares(shares):
    with pytest.raises(ValueError, match=r"share|empty"):
        split_budget(1.0, shares)
