"""Empirical privacy audit of PrivateSVM on a tiny dataset and its neighbour.

Five records sit at x = 0 and the sixth, (x = 1, y = 1), is removed in the neighbour.
Without an intercept and with ``data_norm = 1`` the scaled rows are ``x M`` (``M`` the
rounding margin, ~1), so the records at 0 add a constant to the objective and the fit
is one-dimensional:

* output perturbation, ``C = 1``: ``P(w) = w^2 / 2 + C max(0, 1 - M w)`` has its
  minimiser at ``w* = C M^2 ~ 1`` (``C M^2 < 1 / M``), and at ``0`` on the neighbour.
  The extra record moves ``w*`` by ~``C``, the whole sensitivity (the noise is
  calibrated to ``(1 + tol) C``), so the released ``coef_`` is as far apart on the
  two datasets as the proof allows.
* objective perturbation, ``C = 100``: ``huber(M w) + Lambda w^2 / 2 + b w``. The
  Jacobian term matters most here: on the first dataset the Huber curvature piles the
  outputs up in ``|w| <= 1 + h``, on the neighbour they spread as ``-b / Lambda``;
  ``epsilon = 1`` takes extra regularisation (``Lambda = c / (e^(1/2) - 1)``, ~1.54 for
  ``h = 0.5``) to pay for it.

Mutants that draw the noise for 10x epsilon, or drop the curvature term (``Delta = 0``,
all of epsilon on the noise, ``Lambda = 1 / C``), must be flagged.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import skdp.svm._output as output_module
import skdp.svm._private_svm as module
from skdp.svm import PrivateSVM
from skdp.svm._hinge import hinge_gap_bound
from skdp.utils._audit import audit

EPSILON = 1.0
X = np.array([[0.0], [0.0], [0.0], [0.0], [0.0], [1.0]])
Y = np.array([0, 1, 0, 1, 0, 1])
FIRST, SECOND = (X, Y), (X[:-1], Y[:-1])  # add/remove the last record
OUTPUT_C, OBJECTIVE_C = 1.0, 100.0


def fit_and_release(fit_intercept=False, **params):
    def release(data, rng):
        model = PrivateSVM(
            epsilon=EPSILON, data_norm=1.0, fit_intercept=fit_intercept, classes=[0, 1],
            random_state=rng, **params,
        )  # fmt: skip
        with warnings.catch_warnings():
            # with Lambda = 0.01 (curvature mutant, h = 0.5) a few Newton runs hit the cap
            warnings.simplefilter("ignore", ConvergenceWarning)
            return model.fit(*data).coef_[0, 0]

    return release


def audit_model(params, n_search, n_samples, random_state=0, statistic=None, **options):
    return audit(
        fit_and_release(**params, **options), FIRST, SECOND, epsilon=EPSILON,
        statistic=statistic, n_search=n_search, n_samples=n_samples,
        random_state=random_state,
    )  # fmt: skip


OUTPUT_L2 = {"C": OUTPUT_C, "noise": "l2", "mechanism": "output"}
OUTPUT_LAPLACE = {"C": OUTPUT_C, "noise": "laplace", "mechanism": "output"}
OBJECTIVE = {"C": OBJECTIVE_C, "mechanism": "objective"}


def test_the_extra_record_moves_the_minimiser_by_the_whole_sensitivity():
    """The premise of the audits: at huge epsilon the release is w* on each dataset."""
    exact = {"epsilon": 1e12, "data_norm": 1.0, "fit_intercept": False, "classes": [0, 1]}
    exact["mechanism"] = "output"
    first = PrivateSVM(C=OUTPUT_C, random_state=0, **exact).fit(*FIRST).coef_[0, 0]
    second = PrivateSVM(C=OUTPUT_C, random_state=0, **exact).fit(*SECOND).coef_[0, 0]
    assert first == pytest.approx(OUTPUT_C, abs=1e-3) and second == 0.0


@pytest.mark.parametrize("params", [OUTPUT_L2, OUTPUT_LAPLACE], ids=["l2", "laplace"])
def test_output_perturbation_passes_audit(params):
    result = audit_model(params, n_search=100, n_samples=500)
    assert result.passed, str(result)


def test_objective_perturbation_passes_audit():
    result = audit_model(OBJECTIVE, n_search=150, n_samples=750)
    assert result.passed, str(result)


@pytest.mark.parametrize(
    ("params", "noise"),
    [(OUTPUT_L2, "l2_laplace"), (OUTPUT_LAPLACE, "laplace"), (OBJECTIVE, "l2_laplace_noise")],
    ids=["output-l2", "output-laplace", "objective"],
)
def test_audit_flags_noise_for_10x_epsilon(monkeypatch, params, noise):
    where = module if params is OBJECTIVE else output_module
    real = getattr(where, noise)

    def too_little_noise(value, *, epsilon, **kwargs):
        return real(value, epsilon=10 * epsilon, **kwargs)

    monkeypatch.setattr(where, noise, too_little_noise)
    statistic = abs if params is OBJECTIVE else None
    result = audit_model(params, n_search=40, n_samples=200, statistic=statistic)
    assert not result.passed, str(result)


def test_audit_flags_a_fit_that_ignores_the_curvature_term(monkeypatch):
    """Lambda = 1 / C = 0.01 instead of c / (e^(1/2) - 1): with the extra record the
    outputs pile up in |w| <= 1 + h (density ratio up to ~(c + Lambda) / Lambda there).

    With h = 2 (c = 1/4) it is flagged with ~1.5 of margin in 200/1000 runs; with the
    default h = 0.5 as well (100/500 runs), but those fits are slower (Newton cycles).
    """
    monkeypatch.setattr(
        module, "perturbation_parameters", lambda epsilon, C, **kwargs: (0.0, epsilon)
    )
    params = {**OBJECTIVE, "huber_width": 2.0}
    result = audit_model(params, n_search=200, n_samples=1000, statistic=abs)
    assert not result.passed, str(result)


# ------------------------------------------------ the solver's gap term, (1 + tol) C
# C = 1/2, tol = 1: the release may be anywhere within r = tol C / 2 = 1/4 of the exact
# minimiser (w* = C M ~ 1/2 with the sixth record, 0 without), so two neighbouring
# releases may be C + 2 r = 2 C apart, and the noise is calibrated to that. An
# adversarial but certified solver moves each answer by 0.999 r away from the other.
GAP = {"C": 0.5, "tol": 1.0, "noise": "l2", "mechanism": "output"}


def adversarial_certified_solver(monkeypatch):
    real = output_module.certified_hinge_svm

    def solver(rows, sign, C, *, max_distance):
        w = real(rows, sign, C, max_distance=max_distance)
        moved = w + (0.999 if len(rows) == len(X) else -0.999) * max_distance
        # every row has alpha = C at the optimum (margins < 1): the certificate holds
        alpha = np.full(len(rows), C)
        assert hinge_gap_bound(moved, alpha, rows, sign, C) <= max_distance**2 / 2
        return moved

    monkeypatch.setattr(output_module, "certified_hinge_svm", solver)


def drop_the_gap_term(monkeypatch):
    real = output_module.output_sensitivity
    monkeypatch.setattr(output_module, "output_sensitivity", lambda C, tol: (real(C, tol)[0], C))


def test_output_passes_audit_with_an_adversarial_certified_solver(monkeypatch):
    adversarial_certified_solver(monkeypatch)
    result = audit_model(GAP, n_search=100, n_samples=500)
    assert result.passed, str(result)


def test_audit_flags_output_noise_without_the_gap_term(monkeypatch):
    """Noise at C instead of C + 2 r: the releases differ by ~2 C, so the true epsilon is
    ~2; the same certified (adversarial) solver as above."""
    adversarial_certified_solver(monkeypatch)
    drop_the_gap_term(monkeypatch)
    result = audit_model(GAP, n_search=100, n_samples=500)
    assert not result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", [False, True], ids=["certified", "no-gap-term"])
def test_large_audit_of_the_gap_term(monkeypatch, mutant):
    adversarial_certified_solver(monkeypatch)
    if mutant:
        drop_the_gap_term(monkeypatch)
    result = audit_model(GAP, n_search=2000, n_samples=10000, random_state=1)
    assert result.passed is not mutant, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("fit_intercept", [False, True], ids=["no-intercept", "intercept"])
@pytest.mark.parametrize(
    ("params", "statistic"),
    [
        (OUTPUT_L2, None),
        (OUTPUT_LAPLACE, None),
        (OBJECTIVE, None),
        (OBJECTIVE, abs),
        ({**OBJECTIVE, "huber_width": 2.0}, abs),
        # log(1 + c C) = log 1.6 < epsilon / 2: no extra regularisation, the Jacobian
        # term is paid from the budget as it is
        ({"C": 0.6, "mechanism": "objective"}, None),
    ],
    ids=[
        "output-l2",
        "output-laplace",
        "objective",
        "objective-abs",
        "objective-h2-abs",
        "objective-C0.6",
    ],
)
def test_passes_large_audit(params, statistic, fit_intercept):
    result = audit_model(
        params, n_search=2000, n_samples=10000, random_state=1, statistic=statistic,
        fit_intercept=fit_intercept,
    )  # fmt: skip
    assert result.passed, str(result)
