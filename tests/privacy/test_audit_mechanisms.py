"""Every mechanism passes the empirical audit: no evidence that it spends more than claimed.

The auditor's lower bound is valid with probability 0.999, so a correct mechanism
fails with probability at most 0.001 per case; seeds are fixed, so runs are
deterministic. The slow variant uses 50x more runs (``pytest -m slow``).
"""

import pytest

from skdp.utils._audit import mechanism_audit_cases

CASES = mechanism_audit_cases(epsilon=1.0)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_mechanism_passes_audit(case):
    result = case.run(n_search=400, n_samples=2000, random_state=0)
    assert result.passed, str(result)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_mechanism_passes_large_audit(case):
    result = case.run(n_search=20000, n_samples=100000, random_state=1)
    assert result.passed, str(result)
