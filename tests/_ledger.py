"""Which ledger entries a fit's private bounds made (skdp.utils._bounds)."""

BOUNDS_MECHANISMS = {1: ("above_threshold", "geometric"), 2: ("above_threshold",) * 2}


def bounds_entries(ledger, tier, n_features):
    """The entries right after the noisy count that released the private bounds.

    Tier 1: per feature one scan of ``|x|`` and one sign histogram; tier 2: two scans;
    otherwise none. Asserts their mechanisms are those, in that order.
    """
    if tier == 1:
        expected = list(BOUNDS_MECHANISMS[1]) * n_features
    else:
        expected = list(BOUNDS_MECHANISMS.get(tier, ()))
    entries = ledger.entries[1 : 1 + len(expected)]
    assert [e.mechanism for e in entries] == expected
    return entries
