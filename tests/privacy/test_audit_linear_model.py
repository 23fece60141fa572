"""Empirical privacy audit of ObjectivePerturbationLogistic on a tiny dataset and its neighbour.

Five records sit at x = 0 and add nothing to the loss; the sixth, (x = 1, y = 1), is
removed in the neighbour. Without an intercept and with C = 100 the fit is the 1-d
objective ``sum l(y w x) + Lambda w^2 / 2 + b w``, where the Jacobian (curvature) term
matters most: near ``w = 0`` the extra record multiplies ``det A`` by up to
``1 + (1/4) / Lambda``. The released statistic is ``|coef|``, so threshold events can
catch the mass that record piles up near 0. Mutants that drop the curvature term
(``Delta = 0``, all of epsilon on the noise) or draw the noise for 10x epsilon must
be flagged.

With ``data_norm=None`` the released norm bound is audited on a pair whose exact 90%
quantile of row norms differs a thousandfold; a mutant that reads it from the data
must be flagged.
"""

import math
import warnings

import numpy as np
import pytest

import skdp.linear_model._objective_perturbation as module
import skdp.utils._erm_inputs as erm_inputs
from skdp.exceptions import ClippingWarning
from skdp.linear_model import ObjectivePerturbationLogistic
from skdp.utils._audit import audit

EPSILON = 1.0
X = np.array([[0.0], [0.0], [0.0], [0.0], [0.0], [1.0]])
Y = np.array([0, 1, 0, 1, 0, 1])
FIRST, SECOND = (X, Y), (X[:-1], Y[:-1])  # add/remove the last record


def fit_and_release(fit_intercept=False):
    def release(data, rng):
        model = ObjectivePerturbationLogistic(
            epsilon=EPSILON, C=100.0, data_norm=1.0, fit_intercept=fit_intercept,
            classes=[0, 1], random_state=rng,
        ).fit(*data)  # fmt: skip
        return model.coef_[0, 0]

    return release


def audit_model(n_search=250, n_samples=1250, random_state=0, statistic=abs, **options):
    return audit(
        fit_and_release(**options), FIRST, SECOND, epsilon=EPSILON, statistic=statistic,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_objective_perturbation_passes_audit():
    result = audit_model()
    assert result.passed, str(result)


def test_audit_flags_a_fit_that_ignores_the_curvature_term(monkeypatch):
    monkeypatch.setattr(
        module, "perturbation_parameters", lambda epsilon, C, **kwargs: (0.0, epsilon)
    )
    result = audit_model(n_search=200, n_samples=1000)
    assert not result.passed, str(result)


def test_audit_flags_a_fit_with_noise_for_10x_epsilon(monkeypatch):
    real = module.l2_laplace_noise

    def too_little_noise(dimension, *, epsilon, **kwargs):
        return real(dimension, epsilon=10 * epsilon, **kwargs)

    monkeypatch.setattr(module, "l2_laplace_noise", too_little_noise)
    result = audit_model(n_search=200, n_samples=1000)
    assert not result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("statistic", [abs, None], ids=["abs", "signed"])
@pytest.mark.parametrize("fit_intercept", [False, True], ids=["no-intercept", "intercept"])
def test_objective_perturbation_passes_large_audit(statistic, fit_intercept):
    result = audit_model(
        n_search=5000, n_samples=25000, random_state=1, statistic=statistic,
        fit_intercept=fit_intercept,
    )  # fmt: skip
    assert result.passed, str(result)


# ------------------------------------------------ data_norm=None: the private norm
# Nine rows of norm 1 and one of norm 1000; the neighbour lacks one of the norm-1 rows.
# The 90% quantile of the row norms is 1 on the first and 1000 on the second, so a
# norm read from the data (the mutant) gives itself away; the private one must not.
X_NORM = np.array([[1000.0]] + [[1.0]] * 9)
Y_NORM = np.array([1, 0] * 5)
NORM_FIRST, NORM_SECOND = (X_NORM, Y_NORM), (X_NORM[:-1], Y_NORM[:-1])


def release_private_norm(data, rng):
    model = ObjectivePerturbationLogistic(epsilon=EPSILON, classes=[0, 1], random_state=rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        return np.log2(model.fit(*data).data_norm_)


def test_private_data_norm_passes_audit():
    result = audit(
        release_private_norm, NORM_FIRST, NORM_SECOND, epsilon=EPSILON, n_search=100,
        n_samples=400, random_state=0,
    )  # fmt: skip
    assert result.passed, str(result)


@pytest.mark.slow
def test_private_data_norm_passes_a_large_audit():
    result = audit(
        release_private_norm, NORM_FIRST, NORM_SECOND, epsilon=EPSILON, n_search=1000,
        n_samples=4000, random_state=1,
    )  # fmt: skip
    assert result.passed, str(result)


def test_audit_flags_a_data_norm_read_from_the_data(monkeypatch):
    def exact_quantile(values, q, **kwargs):  # the 90% point read from the data
        return float(np.sort(values)[math.ceil(0.9 * len(values)) - 1])

    monkeypatch.setattr(erm_inputs, "scan_quantile", exact_quantile)
    result = audit(
        release_private_norm, NORM_FIRST, NORM_SECOND, epsilon=EPSILON, n_search=50,
        n_samples=200, random_state=0,
    )  # fmt: skip
    assert not result.passed, str(result)


# ------------------------------------------ multinomial: noise in the sum-zero subspace
# Three classes, one feature, no intercept: the sixth record (x = 1, class 2) is removed
# in the neighbour. The released statistic is class 2's weight (the noise coordinates
# are mapped onto the sum-zero subspace, so the weights of all classes move together).
Y3 = np.array([0, 1, 0, 1, 0, 2])


def release_multinomial(data, rng):
    X_, y_ = data
    model = ObjectivePerturbationLogistic(
        epsilon=EPSILON, C=100.0, data_norm=1.0, fit_intercept=False,
        classes=[0, 1, 2], random_state=rng,
    ).fit(X_, y_)  # fmt: skip
    return model.coef_[2, 0]


def audit_multinomial(n_search=150, n_samples=750, random_state=0):
    return audit(
        release_multinomial, (X, Y3), (X[:-1], Y3[:-1]), epsilon=EPSILON,
        n_search=n_search, n_samples=n_samples, random_state=random_state,
    )  # fmt: skip


def test_multinomial_passes_audit():
    result = audit_multinomial()
    assert result.passed, str(result)


@pytest.mark.slow
def test_multinomial_passes_a_large_audit():
    result = audit_multinomial(n_search=1500, n_samples=7500, random_state=1)
    assert result.passed, str(result)


def test_audit_flags_a_multinomial_fit_with_noise_for_10x_epsilon(monkeypatch):
    real = module.l2_laplace_noise

    def too_little_noise(dimension, *, epsilon, **kwargs):
        return real(dimension, epsilon=10 * epsilon, **kwargs)

    monkeypatch.setattr(module, "l2_laplace_noise", too_little_noise)
    result = audit_multinomial(n_search=200, n_samples=1000)
    assert not result.passed, str(result)
