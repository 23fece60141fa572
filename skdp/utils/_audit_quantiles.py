"""Audit cases for the private quantiles, on tight neighbouring pairs.

AboveThreshold, the anchored scan, the unbounded and bounded quantiles, the private
feature bounds and the joint exponential mechanism (JointExp). Each pair was chosen by
computing the exact output laws of the two inputs and maximising, over the auditor's
events ``E`` (thresholds and single values of the scalar statistic), the lower bound
the auditor would report from the probabilities of ``E`` at the number of runs the
case gets (Clopper-Pearson, confidence 0.999). Each pair's comment gives that expected
bound and the exact privacy loss ``log(P[E | first] / P[E | second])`` of the event
(claimed epsilon 1).

The pairs are module constants so that the mutation tests audit broken variants on
the very same neighbours.
"""

import numpy as np

# AboveThreshold, sensitivity 1, threshold 0: five queries one higher in the second
# input, the sixth the same. Stopping at the sixth: 0.049 against 0.019, loss 0.95,
# expected bound 0.40 at 5000 runs (1.45 with half the noise).
THRESHOLD_PAIR = (np.r_[np.full(5, -1), 0], np.zeros(6, dtype=int))

# the anchored scan at q = 0.98 over short public candidates (cheap runs): forty zeros,
# and one more value at 1.5. The output 2: 0.082 on the second against 0.037, loss
# 0.79, expected bound 0.23 at 2500 runs.
SCAN_CANDIDATES = np.arange(0.0, 4.5, 0.5)
SCAN_LEVEL = 0.98
SCAN_PAIR = (np.zeros(40), np.r_[np.zeros(40), 1.5])

# Durfee's unbounded quantile (two scans of the full grid, epsilon / 2 each), q = 0.98:
# two zeros and one more value at 2**-30: loss 0.39 on events of probability 0.05 and
# more, too faint for the 1000 runs of the normal suite (expected bound 0)
UNBOUNDED_PAIR = (np.zeros(2), np.r_[0.0, 0.0, 2.0**-30])

# the bounded exponential mechanism, median on the candidates 0..4: the values
# [0, 2, 2.5] and one more at 3.5. The output 3: 0.216 on the second against 0.092,
# loss 0.85, expected bound 0.62 at 5000 runs.
BOUNDED_RANGE, BOUNDED_CANDIDATES = (0.0, 4.0), 5
BOUNDED_PAIR = (np.array([0.0, 2.0, 2.5]), np.array([0.0, 2.0, 2.5, 3.5]))

# the private bounds of one feature (tier 1), released as the width upper - lower:
# five zeros and a sixth: loss 0.34 on events of probability 0.05 and more (expected
# bound 0 at 1000 runs)
BOUNDS_PAIR = (np.zeros((5, 1)), np.zeros((6, 1)))

# JointExp (skdp.tools.quantile, method="joint") of the quartiles on candidates 0..4:
# the values [1.5, 1.5, 3.5] and one more at 0; levels 1/4 and 3/4 on the denominator
# 4, gaps (1, 2, 1), sensitivity joint_sensitivity([1, 2, 1], 4) = 6 (in quarters).
# The outputs after (1, 4) in lexicographic order: 0.268 against 0.128, loss 0.74,
# expected bound 0.46 at 2500 runs (1.37 at 5000 runs when drawn for 2 epsilon).
JOINT_LEVELS, JOINT_CANDIDATES = (1, 3), np.arange(5.0)
JOINT_VALUES = (np.array([1.5, 1.5, 3.5]), np.array([0.0, 1.5, 1.5, 3.5]))
JOINT_SENSITIVITY = 6


def joint_rank_inputs(values, levels=JOINT_LEVELS, denominator=4, candidates=JOINT_CANDIDATES):
    """``(ranks, upper_ranks, targets, total)`` of JointExp's score for ``values``."""
    ordered = np.sort(values)
    below = np.searchsorted(ordered, candidates, side="left")
    at_or_below = np.searchsorted(ordered, candidates, side="right")
    gaps = np.diff([0, *levels, denominator])
    n = ordered.size
    return denominator * below, denominator * at_or_below, n * gaps, n * denominator


def quantile_audit_cases(epsilon):
    """The audit cases of the private quantiles (see the module notes).

    The scans of the full grid cost about 4 ms a run, so those cases ask for a fifth
    of the runs (:attr:`AuditCase.runs`).

    Returns
    -------
    list of AuditCase
    """
    from skdp.mechanisms import above_threshold
    from skdp.mechanisms._joint import joint_exponential
    from skdp.utils._audit import AuditCase
    from skdp.utils._bounds import estimate_bounds
    from skdp.utils._quantiles import bounded_quantile, scan_quantile, unbounded_quantile

    def threshold(queries, rng):
        return above_threshold(queries, 0, sensitivity=1, epsilon=epsilon, random_state=rng)

    def scan(values, rng):
        return scan_quantile(
            values, SCAN_LEVEL, epsilon=epsilon, candidates=SCAN_CANDIDATES, random_state=rng
        )

    def unbounded(values, rng):
        return unbounded_quantile(values, SCAN_LEVEL, epsilon=epsilon, random_state=rng)

    def bounded(values, rng):
        return bounded_quantile(
            values, 0.5, BOUNDED_RANGE, epsilon=epsilon, n_candidates=BOUNDED_CANDIDATES,
            random_state=rng,
        )  # fmt: skip

    def bounds(X, rng):
        return estimate_bounds(X, epsilon=epsilon, tier=1, random_state=rng)

    def joint(inputs, rng):
        ranks, upper, targets, total = inputs
        return joint_exponential(
            ranks, targets, total=total, sensitivity=JOINT_SENSITIVITY, epsilon=epsilon,
            upper_ranks=upper, strict=True, random_state=rng,
        )  # fmt: skip

    def width(released):
        lower, upper = released
        return float(upper[0] - lower[0])

    def joint_code(out):
        return float(out[0] * JOINT_CANDIDATES.size + out[1])

    return [
        AuditCase("above_threshold (6 queries)", threshold, *THRESHOLD_PAIR, epsilon),
        AuditCase("scan_quantile (q=0.98, 40 vs 41 values)", scan, *SCAN_PAIR, epsilon,
                  runs=0.5),
        AuditCase("unbounded_quantile (q=0.98, 2 vs 3 values)", unbounded, *UNBOUNDED_PAIR,
                  epsilon, runs=0.2),
        AuditCase("bounded_quantile (median, 3 vs 4 values)", bounded, *BOUNDED_PAIR, epsilon),
        AuditCase("estimate_bounds (tier 1, 5 vs 6 values)", bounds, *BOUNDS_PAIR, epsilon,
                  statistic=width, runs=0.2),
        AuditCase("joint_exponential (JointExp quartiles, 3 vs 4 values)", joint,
                  *(joint_rank_inputs(v) for v in JOINT_VALUES), epsilon,
                  statistic=joint_code, runs=0.5),
    ]  # fmt: skip
