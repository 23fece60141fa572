"""Mechanism arguments: validation errors name the argument, nothing is charged for them."""

import math

import numpy as np
import pytest

from skdp import PrivacyLedger
from skdp.mechanisms import (
    exponential,
    geometric,
    laplace,
    permute_and_flip,
    report_noisy_max,
)

SELECTIONS = [exponential, permute_and_flip, report_noisy_max]


def _call(mechanism, **overrides):
    if mechanism in SELECTIONS:
        kwargs = {"scores": [1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0, "random_state": 0}
    elif mechanism is geometric:
        kwargs = {"value": [1, 2], "sensitivity": 1, "epsilon": 1.0, "random_state": 0}
    else:
        kwargs = {"value": [1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0, "random_state": 0}
    kwargs.update(overrides)
    first = kwargs.pop("scores", None)
    first = kwargs.pop("value") if first is None else first
    return mechanism(first, **kwargs)


ALL = [laplace, geometric, *SELECTIONS]


@pytest.mark.parametrize("mechanism", ALL, ids=lambda m: m.__name__)
@pytest.mark.parametrize("epsilon", [0, -1.0, math.nan, math.inf, "1", True])
def test_bad_epsilon_names_epsilon(mechanism, epsilon):
    with PrivacyLedger() as ledger, pytest.raises(ValueError, match="epsilon"):
        _call(mechanism, epsilon=epsilon)
    assert ledger.total.epsilon == 0, "an invalid call must not be charged"


@pytest.mark.parametrize("mechanism", ALL, ids=lambda m: m.__name__)
@pytest.mark.parametrize("sensitivity", [0, -2.0, math.nan, math.inf])
def test_bad_sensitivity_names_sensitivity(mechanism, sensitivity):
    with pytest.raises(ValueError, match="sensitivity"):
        _call(mechanism, sensitivity=sensitivity)


@pytest.mark.parametrize("mechanism", ALL, ids=lambda m: m.__name__)
@pytest.mark.parametrize(
    ("data", "match"), [([], "empty"), ([1.0, math.nan], "finite"), ([math.inf, 1], "finite")]
)
def test_bad_values_are_named(mechanism, data, match):
    name = "scores" if mechanism in SELECTIONS else "value"
    with pytest.raises(ValueError, match=match):
        _call(mechanism, **{name: data})


def test_geometric_refuses_non_integers():
    with pytest.raises(ValueError, match="integer-valued"):
        geometric([0.5], epsilon=1.0)


@pytest.mark.parametrize("mechanism", SELECTIONS, ids=lambda m: m.__name__)
def test_selection_scores_must_be_one_dimensional(mechanism):
    with pytest.raises(ValueError, match="1-d"):
        _call(mechanism, scores=[[1.0, 2.0]])


def test_report_noisy_max_noise_is_checked():
    with pytest.raises(ValueError, match="noise must be one of"):
        report_noisy_max([1, 2], sensitivity=1, epsilon=1, noise="gaussian")


@pytest.mark.parametrize("mechanism", ALL, ids=lambda m: m.__name__)
def test_each_call_charges_its_epsilon_once(mechanism):
    with PrivacyLedger() as ledger:
        _call(mechanism, epsilon=0.3)
    assert [entry.epsilon for entry in ledger.entries] == [0.3]
    assert ledger.entries[0].mechanism == mechanism.__name__


@pytest.mark.parametrize("mechanism", [laplace, geometric], ids=lambda m: m.__name__)
def test_additive_mechanisms_keep_shape_and_do_not_mutate(mechanism):
    value = np.arange(6.0).reshape(2, 3)
    copy = value.copy()
    out = mechanism(value, sensitivity=1, epsilon=1.0, random_state=0)
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(value, copy)
    assert np.ndim(mechanism(3.0, sensitivity=1, epsilon=1.0, random_state=0)) == 0


def test_large_epsilon_recovers_the_value():
    np.testing.assert_allclose(
        laplace([1.5, -2.25], sensitivity=1, epsilon=1e6, random_state=0),
        [1.5, -2.25],
        atol=1e-3,
    )
    assert exponential([0, 10, 1], sensitivity=1, epsilon=100, random_state=0) == 1


def test_value_too_large_for_the_lattice_is_refused():
    with pytest.raises(ValueError, match="too large"):
        laplace(1e300, sensitivity=1e-300, epsilon=1.0)
