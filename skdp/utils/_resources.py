"""Resource guards: say what a parameter implies before allocating or looping on it.

A parameter such as ``DPOPTICS(grid_size=100000)`` or ``PrivateSVM(n_components=10**7)``
used to die with a bare ``MemoryError`` deep inside numpy, and
``DPKMeans(max_iter=10**6)`` ran for an hour without a word. The estimators call
these checks with the size the parameter implies, before any allocation (and,
where the size is public, before any budget is spent).

The limits are module constants, documented here:

* :data:`MAX_ALLOCATION_BYTES` (2 GiB): the largest single array a parameter may
  imply. psutil is not a dependency of skdp, so the cap is fixed rather than a
  share of the available memory; raise it (``skdp.utils._resources.
  MAX_ALLOCATION_BYTES = ...``) on a machine that has the memory.
* :data:`MAX_DP_ITERATIONS` (1,000): the most noisy iterations a fit may split its
  budget into; each gets ``epsilon / max_iter``, so beyond a few dozen the noise
  swamps the signal anyway.

The sizes some guards read depend on the number of rows, which is private under
add/remove-one differential privacy; a guard then reveals no more than the
``MemoryError`` it replaces would.
"""

MAX_ALLOCATION_BYTES = 2 * 2**30
MAX_DP_ITERATIONS = 1000


class ResourceLimitError(ValueError, MemoryError):
    """A parameter implies more memory or work than skdp's documented limits.

    A ``ValueError`` (a bad parameter value) and a ``MemoryError`` (what it would
    have caused).

    Examples
    --------
    >>> from skdp.utils._resources import ResourceLimitError
    >>> issubclass(ResourceLimitError, ValueError), issubclass(ResourceLimitError, MemoryError)
    (True, True)
    """


def format_bytes(n_bytes):
    """``n_bytes`` in the largest binary unit that keeps it >= 1, e.g. ``'74.5 GiB'``.

    Examples
    --------
    >>> from skdp.utils._resources import format_bytes
    >>> format_bytes(80 * 10**9), format_bytes(512)
    ('74.5 GiB', '512 B')
    """
    value, unit = float(n_bytes), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            break
        value /= 1024
    return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"


def check_allocation(n_bytes, *, parameter, what, advice):
    """Raise :class:`ResourceLimitError` if ``n_bytes`` exceeds :data:`MAX_ALLOCATION_BYTES`.

    Parameters
    ----------
    n_bytes : int or float
        The memory the parameter implies (may be huge: it is never allocated here).
    parameter : str
        The parameter and its value, e.g. ``"grid_size=100000"``.
    what : str
        What would be allocated, e.g. ``"a histogram of 1e+10 cells"``.
    advice : str
        What to do instead.

    Examples
    --------
    >>> from skdp.utils._resources import check_allocation
    >>> check_allocation(1024, parameter="grid_size=4", what="a grid", advice="-")
    >>> check_allocation(8e10, parameter="grid_size=100000", what="a grid",
    ...                  advice="pass a smaller grid_size.")
    Traceback (most recent call last):
    ...
    skdp.utils._resources.ResourceLimitError: grid_size=100000 implies a grid of 74.5 GiB, ...
    """
    if n_bytes > MAX_ALLOCATION_BYTES:
        raise ResourceLimitError(
            f"{parameter} implies {what} of {format_bytes(n_bytes)}, more than skdp's "
            f"limit of {format_bytes(MAX_ALLOCATION_BYTES)} per array "
            f"(skdp.utils._resources.MAX_ALLOCATION_BYTES); {advice}"
        )


def check_iterations(n_iter, *, parameter, advice):
    """Raise :class:`ResourceLimitError` if ``n_iter`` exceeds :data:`MAX_DP_ITERATIONS`.

    Parameters
    ----------
    n_iter : int
        The number of noisy iterations asked for.
    parameter : str
        The parameter's name, e.g. ``"max_iter"``.
    advice : str
        What to do instead.

    Examples
    --------
    >>> from skdp.utils._resources import check_iterations
    >>> check_iterations(7, parameter="max_iter", advice="-")
    >>> check_iterations(10**6, parameter="max_iter", advice="use max_iter=None.")
    Traceback (most recent call last):
    ...
    skdp.utils._resources.ResourceLimitError: max_iter=1000000 noisy iterations ...
    """
    if n_iter is not None and n_iter > MAX_DP_ITERATIONS:
        raise ResourceLimitError(
            f"{parameter}={n_iter} noisy iterations would each get 1/{n_iter} of epsilon "
            f"and run for a long time; skdp allows at most {MAX_DP_ITERATIONS} "
            f"(skdp.utils._resources.MAX_DP_ITERATIONS); {advice}"
        )
