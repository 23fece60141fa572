import os
import sys

import numpy as np
import pytest

from benchmarks import _memory

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the RSS high-water mark is read from /proc"
)
MIB = 2**20


def _touch(mib):
    """Allocate ``mib`` MiB and write every page (an untouched page is not resident)."""
    np.ones(mib * MIB // 8).sum()


def _pid_and_peak(mib):
    return os.getpid(), _memory.rss_peak_mb(_touch, mib)


@linux_only
def test_rss_peak_sees_every_page_written_during_the_call():
    peak = _memory.rss_peak_mb(_touch, 64)
    assert 63 <= peak <= 64 + 16
    assert _memory.rss_peak_mb(_touch, 0) < 16  # the 64 MiB freed, the mark reset


@linux_only
def test_rss_peak_sees_memory_that_tracemalloc_does_not():
    # mmap'd anonymous memory goes past Python's allocators, as liblinear's malloc does
    import mmap

    def write_pages(mib):
        with mmap.mmap(-1, mib * MIB) as pages:
            pages.write(b"x" * (mib * MIB))

    assert _memory.tracemalloc_peak_mb(write_pages, 48) < 48 + 1  # the bytes object only
    assert _memory.rss_peak_mb(write_pages, 48) >= 2 * 48 - 1  # the bytes and the pages


def test_tracemalloc_peak_counts_numpy_buffers():
    assert _memory.tracemalloc_peak_mb(_touch, 32) == pytest.approx(32, abs=1)


@linux_only
def test_each_call_runs_in_a_new_process_and_returns_its_result():
    first_pid, first_peak = _memory.in_fresh_process(_pid_and_peak, 32)
    second_pid, second_peak = _memory.in_fresh_process(_pid_and_peak, 32)
    assert os.getpid() != first_pid != second_pid
    assert 31 <= first_peak <= 32 + 16 and 31 <= second_peak <= 32 + 16
