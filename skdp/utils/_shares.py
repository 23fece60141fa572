"""The closing share of a budget: what makes a ledger's total exactly ``epsilon``."""

import math

__all__ = ["close_last_share", "closing_share"]


def closing_share(epsilon, spent):
    """The last share of a budget, so that ``spent + share == epsilon`` in floats.

    A ledger adds the epsilon of each call in order. Giving the last call
    ``epsilon - spent`` can leave the total one unit in the last place above or below
    ``epsilon`` (``0.03 + 0.135 + 0.135`` is ``0.30000000000000004``); the share is
    nudged by an ulp until the sum is exactly ``epsilon``, or, where no float makes it
    exact, is the largest share that does not exceed it. It differs from the nominal
    share by rounding only.

    Parameters
    ----------
    epsilon : float
        The whole budget.
    spent : float
        What the ledger has added up so far (``< epsilon``).

    Returns
    -------
    float
        The share, ``> 0``.

    Examples
    --------
    >>> from skdp.utils.validation import closing_share
    >>> 0.03 + 0.135 + 0.135
    0.30000000000000004
    >>> 0.03 + 0.135 + closing_share(0.3, 0.03 + 0.135)
    0.3
    """
    share = epsilon - spent
    for _ in range(8):
        total = spent + share
        if total == epsilon:
            break
        share = math.nextafter(share, math.inf if total < epsilon else -math.inf)
    while spent + share > epsilon:
        share = math.nextafter(share, -math.inf)
    if share <= 0:
        raise ValueError(f"nothing left of epsilon={epsilon!r} after spending {spent!r}")
    return share


def close_last_share(shares, *, epsilon, spent):
    """Make the last positive share close the ledger on ``epsilon`` (in place).

    ``shares`` maps names to epsilons in the order the fit spends them, after
    ``spent``; the last positive one becomes :func:`closing_share` of what the ledger
    has added up before it.

    Parameters
    ----------
    shares : dict of str to float
        In spending order; at least one positive.
    epsilon : float
        The whole budget.
    spent : float
        The ledger's total before the first of ``shares``.

    Returns
    -------
    dict
        ``shares``.

    Examples
    --------
    >>> from skdp.utils._shares import close_last_share
    >>> close_last_share({"count": 0.03, "sums": 0.135, "squares": 0.135}, epsilon=0.3, spent=0.0)
    {'count': 0.03, 'sums': 0.135, 'squares': 0.13499999999999998}
    """
    names = [name for name, share in shares.items() if share > 0]
    for name in names[:-1]:
        spent += shares[name]
    shares[names[-1]] = closing_share(epsilon, spent)
    return shares
