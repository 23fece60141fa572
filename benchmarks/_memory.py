"""Peak memory of one call: Python-level (tracemalloc) and resident (RSS, fresh process).

:func:`tracemalloc_peak_mb` sees what goes through Python's allocators (numpy's buffers
and Python objects) and nothing that compiled code allocates with its own ``malloc``
(liblinear's copy of ``X``, BLAS workspaces). :func:`rss_peak_mb` sees every page the
process touches: on Linux, writing ``5`` to ``/proc/self/clear_refs`` resets the
high-water mark ``VmHWM`` of ``/proc/self/status`` to the current resident size, so
``VmHWM`` after the call minus ``VmRSS`` before it is the call's peak increase.

:func:`in_fresh_process` runs a measurement in a child forked from a server process that
has only imported the measuring module (``forkserver``), so no earlier call's freed but
retained memory (the allocator keeps it) hides part of the next one, and imports cost no
time per call. Where ``/proc`` is missing (not Linux) the RSS figures are NaN.
"""

import concurrent.futures
import multiprocessing
import tracemalloc

import numpy as np

__all__ = ["in_fresh_process", "rss_peak_mb", "tracemalloc_peak_mb"]

_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"


def _status_kib(field):
    with open(_STATUS) as status:
        for line in status:
            name, _, value = line.partition(":")
            if name == field:
                return int(value.split()[0])
    raise KeyError(f"{field} is not in {_STATUS}")


def _reset_high_water_mark():
    with open(_CLEAR_REFS, "w") as clear_refs:
        clear_refs.write("5")


def rss_peak_mb(fn, *args):
    """The peak increase of this process's resident memory during ``fn(*args)``, in MiB.

    Parameters
    ----------
    fn : callable
        Called once with ``args``; its result is discarded.
    *args
        Its arguments, built before the measurement starts (they do not count).

    Returns
    -------
    float
        ``VmHWM`` after the call minus ``VmRSS`` before it (MiB); NaN where the
        high-water mark cannot be reset (not Linux).
    """
    try:
        _reset_high_water_mark()
    except OSError:
        return np.nan
    before = _status_kib("VmRSS")
    fn(*args)
    return (_status_kib("VmHWM") - before) / 1024


def tracemalloc_peak_mb(fn, *args):
    """The peak of the memory traced by :mod:`tracemalloc` during ``fn(*args)``, in MiB."""
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def in_fresh_process(fn, *args):
    """``fn(*args)`` in a new child process; its result.

    The child is forked from a ``forkserver`` that imported ``fn``'s module and ran
    nothing else, so it starts with no allocation left over from this process.

    Parameters
    ----------
    fn : callable
        A module-level function (it is pickled by reference), as are its arguments.
    *args
        Its arguments (picklable).

    Returns
    -------
    object
        What ``fn(*args)`` returned in the child.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([fn.__module__])  # no effect once the server runs
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(fn, *args).result()
