"""The private sum's parity gap, measured: the two noise scales and skdp's own noise law.

``skdp.tools.sum`` adds noise for the add/remove sensitivity ``m = max(|l|, |u|)``;
diffprivlib's ``tools.sum`` (``LaplaceTruncated`` to ``[l n, u n]``, which the noise
almost never reaches here) for the substitution sensitivity ``u - l``. For the bounds of
``tools_compare`` (its ``declared_bounds``), :func:`scales` gives both per column and
the ratio of the expected per-seed errors as ``tools_compare`` scores them (mean over the
columns of ``|error| / (n sigma_j)``). :func:`check` draws skdp's sum on many seeds and
compares its mean absolute error with what the mechanism's law says: the scaled sum
``v = sum_i x_i / m`` is rounded to the lattice step ``g`` of
:func:`skdp.mechanisms.lattice_step` and gets exact discrete Laplace noise ``Z`` of
scale ``b = (1 / g + 1) / epsilon`` steps, so the error is ``m g (Z + c)`` with
``c = rint(v / g) - v / g``. With ``q = exp(-1 / b)``,
``E|Z + c| = 2q / (1 - q^2) + |c| (1 - q) / (1 + q)`` (the ``c`` terms of ``z != 0``
cancel by symmetry) and ``E (Z + c)^2 = 2q / (1 - q)^2 + c^2``, so the mean over
``N`` seeds has a known standard error and a z-score.
"""

import math
import warnings

import numpy as np
import pandas as pd
from scipy import integrate, stats

from benchmarks import tools_compare
from skdp import tools
from skdp.mechanisms import lattice_step


def scales(datasets):
    """Per dataset and column: the bounds, both sensitivities and their ratio, and the
    dataset's predicted ratio of mean per-seed errors (skdp over diffprivlib)."""
    rows = []
    for dataset in datasets:
        X = tools_compare.load(dataset)
        lower, upper = tools_compare.declared_bounds(X)
        m, width, sigma = np.maximum(np.abs(lower), np.abs(upper)), upper - lower, X.std(axis=0)
        predicted = float(np.sum(m / sigma) / np.sum(width / sigma))
        rows += [
            {
                "dataset": dataset,
                "column": j,
                "lower": lower[j],
                "upper": upper[j],
                "add_remove": m[j],
                "substitution": width[j],
                "ratio": m[j] / width[j],
                "error_ratio": predicted,
            }
            for j in range(X.shape[1])
        ]
    return pd.DataFrame(rows)


def law(x, lower, upper, epsilon):
    """``(mean absolute error, its standard deviation)`` of ``skdp.tools.sum`` on ``x``."""
    m = max(abs(lower), abs(upper))
    v = float(np.clip(np.clip(x, lower, upper) / m, -1.0, 1.0).sum())
    g = lattice_step(1.0, 1, epsilon)
    b = (1.0 / g + 1.0) / epsilon
    c = float(np.rint(v / g) - v / g)
    one_minus_q, one_minus_q2, q = -math.expm1(-1 / b), -math.expm1(-2 / b), math.exp(-1 / b)
    mean_abs = 2 * q / one_minus_q2 + abs(c) * one_minus_q / (1 + q)
    second = 2 * q / one_minus_q**2 + c * c
    return m * g * mean_abs, m * g * math.sqrt(second - mean_abs**2)


def check(datasets, epsilons, seeds, *, disjoint=False):
    """Per dataset, column and epsilon: skdp's mean absolute sum error on ``seeds`` seeds
    against the law (ratio and z-score), both over ``m / epsilon``.

    The seeds are ``0 .. seeds - 1`` everywhere, as in the parity cells: a seed then
    gives nearly the same standardised draw to every column and epsilon, so the rows
    are not independent. ``disjoint=True`` gives row ``k`` the seeds ``k * seeds ..``
    instead, so that their z-scores are independent and ``sum z^2`` is chi-square.
    """
    rows = []
    for dataset in datasets:
        X = tools_compare.load(dataset)
        lower, upper = tools_compare.declared_bounds(X)
        for j in range(X.shape[1]):
            x, bounds = X[:, j], (float(lower[j]), float(upper[j]))
            exact = float(np.sum(np.clip(x, *bounds)))
            m = max(abs(bounds[0]), abs(bounds[1]))
            for epsilon in epsilons:
                first = len(rows) * seeds if disjoint else 0
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    errors = np.array(
                        [
                            tools.sum(x, epsilon=epsilon, bounds=bounds, random_state=s) - exact
                            for s in range(first, first + seeds)
                        ]
                    )
                expected, spread = law(x, *bounds, epsilon)
                observed = float(np.mean(np.abs(errors)))
                rows.append(
                    {
                        "dataset": dataset,
                        "column": j,
                        "epsilon": epsilon,
                        "first_seed": first,
                        "seeds": seeds,
                        "observed": observed / (m / epsilon),
                        "law": expected / (m / epsilon),
                        "ratio": observed / expected,
                        "z": (observed - expected) / (spread / math.sqrt(seeds)),
                    }
                )
    return pd.DataFrame(rows)


def block_probabilities(ratio, block):
    """``(P(worst ok), P(mean ok))`` for a block of ``block`` seeds when skdp's per-seed
    error is ``ratio |Z|`` and diffprivlib's ``|L|`` (``Z``, ``L`` i.i.d. Laplace).

    That is the sum cells' law up to skdp's lattice (a relative ``2**-12``) and
    diffprivlib's truncation to ``[l n, u n]`` (out of reach here): every column's error
    is the seed's one standardised draw, ``|Z| m_j / epsilon`` against
    ``|L| (u_j - l_j) / epsilon``. ``|Z|`` is exponential, so the worst of ``k`` has the
    CDF ``(1 - e^-x)^k`` and the mean of ``k`` over the other's mean is F(2k, 2k).
    """

    def cdf(x):
        return (-np.expm1(-x)) ** block

    def density(x):
        return block * np.exp(-x) * (-np.expm1(-x)) ** (block - 1)

    worst = integrate.quad(lambda x: density(x) * (1.0 - cdf(ratio * x)), 0, np.inf)[0]
    return float(worst), float(stats.f.cdf(1.0 / ratio, 2 * block, 2 * block))


def scales_markdown(table, observed=None, block=10):
    """Per dataset: the columns' sensitivity ratios, the predicted error ratio and the
    block probabilities it implies (:func:`block_probabilities`), with ``observed``
    (``{dataset: measured ratio of mean errors}``) beside it when given."""
    lines = [
        "The sum's noise scales, add/remove max(|l|,|u|) over substitution u - l:",
        "",
        "| dataset | per-column ratio | predicted error ratio | measured | "
        f"law's P(worst ok), P(mean ok), {block} seeds |",
        "|---|---|---|---|---|",
    ]
    for dataset, part in table.groupby("dataset", sort=False):
        ratios = ", ".join(f"{r:.3g}" for r in part["ratio"])
        seen = (observed or {}).get(dataset)
        shown = "" if seen is None else f"{seen:.4f}"
        predicted = part["error_ratio"].iloc[0]
        worst, mean = block_probabilities(predicted, block)
        lines.append(
            f"| {dataset} | {ratios} | {predicted:.4f} | {shown} | {worst:.3f}, {mean:.3f} |"
        )
    return "\n".join(lines)


def _p_value(z, shared):
    return "n/a" if shared else f"{stats.chi2.sf(float(np.sum(z**2)), len(z)):.3f}"


def law_markdown(table):
    """Per dataset and epsilon: the observed over the law's mean absolute error (range
    over the columns), the largest |z| and the chi-square p-value of sum z^2 (only
    meaningful when the rows had disjoint seeds), then all rows at once."""
    shared = bool((table["first_seed"] == 0).all())
    lines = [
        "skdp's sum against its noise law (mean absolute error over m / epsilon), "
        + ("seeds shared by every row (p not valid)" if shared else "disjoint seeds")
        + ":",
        "",
        "| dataset | epsilon | seeds | columns | law | observed / law (min-max) | "
        "max abs z | p (sum z^2) |",
        "|---" * 8 + "|",
    ]
    for (dataset, epsilon), part in table.groupby(["dataset", "epsilon"], sort=False):
        p = _p_value(part["z"], shared)
        lines.append(
            f"| {dataset} | {epsilon:g} | {part['seeds'].iloc[0]} | {len(part)} | "
            f"{part['law'].mean():.6f} | {part['ratio'].min():.3f}-{part['ratio'].max():.3f} | "
            f"{part['z'].abs().max():.2f} | {p} |"
        )
    p, seeds = (
        _p_value(table["z"], shared),
        table["seeds"].iloc[0] if shared else table["seeds"].sum(),
    )
    lines.append(
        f"| all | all | {seeds} | {len(table)} | "
        f"{table['law'].mean():.6f} | {table['ratio'].min():.3f}-"
        f"{table['ratio'].max():.3f} | {table['z'].abs().max():.2f} | {p} |"
    )
    return "\n".join(lines)
