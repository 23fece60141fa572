"""Which ledger entries a fit's private bounds made (skdp.utils._bounds)."""

BOUNDS_MECHANISMS = {1: ("above_threshold", "geometric"), 2: ("above_threshold",) * 2}


def bounds_entries(ledger, tier, n_features):
    """The entries right after the noisy count that released the private bounds.

    Tier 1: one scan of ``|x|`` per feature (drawn in one call), then one sign
    histogram per feature; tier 2: two scans; otherwise none. Asserts their mechanisms
    are those, in that order.
    """
    if tier == 1:
        expected = [m for m in BOUNDS_MECHANISMS[1] for _ in range(n_features)]
    else:
        expected = list(BOUNDS_MECHANISMS.get(tier, ()))
    entries = ledger.entries[1 : 1 + len(expected)]
    assert [e.mechanism for e in entries] == expected
    return entries
