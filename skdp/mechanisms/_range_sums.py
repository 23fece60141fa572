"""Range log-sums of many rows at once: the table behind the windowed JointExp program.

:func:`skdp.mechanisms._joint_forward.forward_windowed` sums ``exp`` of its log
messages over ranges of candidates; :class:`_RangeLogSums` answers those range sums
from a disjoint sparse table per row, built with ``logaddexp`` running sums (positive
terms only, no cancellation), and builds only the cells its queries read when it
is given them.
"""

import functools
import math

import numpy as np

# terms per logaddexp call from which a call per run beats a call per step of all runs
_TERMS_PER_CALL = 80


class _RangeLogSums:
    """``log sum_{a <= i < b} exp(v[r, i])`` for many rows ``r`` and ranges ``[a, b)``:
    a disjoint sparse table per row, ``O(K log K)`` to build and ``O(1)`` a query.
    Every answer is the ``logaddexp`` of at most two running sums of one half-block
    (positive terms, no cancellation), so its round-off is that of a sum of at most
    ``K`` terms.

    With ``queries`` (the ``(starts, stops)`` that will be asked, answered by
    :meth:`answers`), only the cells those ranges read are built (unless
    ``complete``): each a running sum, the run from its half-block's middle up to
    the farthest cell read (:func:`_needed_runs`), with the same terms in the same
    order as the whole table, so the same floats; the other cells are left unset
    and :meth:`max` is refused.
    """

    def __init__(self, v, queries=None, *, complete=None):
        rows, K = v.shape
        self.v = v
        self.table = np.empty((max(1, (K - 1).bit_length()), rows, K))
        self.complete = queries is None if complete is None else complete
        if queries is not None:
            self._queries = queries[0].shape, _cells(*queries)
        if not self.complete:
            flat = self.table.reshape(self.table.shape[0], -1)
            _grouped_sums(v.reshape(-1), flat, *_needed_runs(self.table.shape, *self._queries[1]))
            return
        # levels of half-blocks of at most v.size / _TERMS_PER_CALL terms, where a
        # call per run costs more than its terms, all at once (_step_sums); the
        # longer ones one accumulate per run
        short = min(self.table.shape[0], max(1, (v.size // _TERMS_PER_CALL).bit_length()))
        _step_sums(v.T, self.table[:short].transpose(0, 2, 1), *_runs(K, short))
        for level in range(short, self.table.shape[0]):
            half = 1 << level
            full = K // (2 * half) * 2 * half
            _running_sums(v[:, :full], self.table[level, :, :full], half)
            for start in range(full, K, half):  # the last, partial block's halves
                stop = min(start + half, K)
                reverse = (start - full) // half == 0
                _running_sums(v[:, start:stop], self.table[level, :, start:stop],
                              stop - start, reverse=reverse)  # fmt: skip

    def max(self):
        """Each row's largest entry (the finite ones; -inf for an empty row); only of a
        complete table."""
        if not self.complete:
            raise ValueError("the table holds only the cells of its queries")
        return self.table.max(axis=(0, 2))

    def max_bounds(self):
        """``(low, high)`` per row: the complete table's :meth:`max` lies between them.

        Every cell is a running ``logaddexp`` sum of at most ``K`` entries of its row
        of ``v``, each at most the row's largest finite entry ``M``: the sum lies in
        ``[M, M + ln K]``, and its round-off (at most ``K`` steps of a few units of
        ``2**-52 (|M| + ln K + 1)``) is far below the ``1e-9 (1 + |M|)`` added.
        Rows without a finite entry give ``(-inf, -inf)``.
        """
        top = np.where(np.isfinite(self.v), self.v, -np.inf).max(axis=1)
        finite = np.where(np.isfinite(top), top, 0.0)
        return top, top + (math.log(self.v.shape[1]) + 1e-9 * (1 + np.abs(finite)))

    def min(self):
        """Each row's smallest finite entry (+inf for an empty row): every entry is a
        log-sum of a range of ``v``, at least its largest term, and level 0 is ``v``."""
        return np.where(np.isfinite(self.v), self.v, np.inf).min(axis=1)

    def __call__(self, starts, stops):
        """Row ``r``'s sums over ``[starts[r, c], stops[r, c])``, shape of ``starts``;
        only of a complete table (a table built for ``queries`` answers them through
        :meth:`answers`: its other cells were never filled)."""
        if not self.complete:
            raise ValueError("the table holds only the cells of its queries: use answers()")
        return self._answer(starts.shape, _cells(starts, stops))

    def answers(self):
        """``self(*queries)`` of the ``queries`` the table was built for (once: their
        cells are released)."""
        queries, self._queries = self._queries, None
        return self._answer(*queries)

    def _answer(self, shape, cells):
        some, row, a, b, level = cells
        out = np.full(shape, -np.inf)
        value = self.v[row, a]
        split = a != b
        level, row, a, b = level[split], row[split], a[split], b[split]
        value[split] = np.logaddexp(self.table[level, row, a], self.table[level, row, b])
        out[some] = value
        return out


def _cells(starts, stops):
    """The non-empty ranges ``[starts, stops)`` as ``(some, row, a, b, level)``: the
    mask of non-empty ones, their rows, first and last indices and table level (the
    highest bit where ``a`` and ``b`` differ: ``a`` lies in the first half of a block
    of that level, ``b`` in the second; 0 when ``a = b``, read from ``v``)."""
    some = stops > starts
    row = np.nonzero(some)[0]
    a, b = starts[some], stops[some] - 1
    level = np.zeros(a.shape, dtype=np.int64)
    split = a != b
    level[split] = np.floor(np.log2((a ^ b)[split])).astype(np.int64)
    return some, row, a, b, level


def _needed_runs(shape, some, row, a, b, level):
    """The runs of :class:`_RangeLogSums`' table the ranges ``[a, b]`` read, as
    ``(firsts, steps, lengths, levels)``: each run's first position, flat in a
    row-major ``(rows, K)``, its direction (-1 or 1), the number of its terms to sum
    and its table level.

    A range with ``a < b`` at ``level`` reads the run leftwards from the middle ``M``
    (``b`` with its low ``level`` bits cleared) down to ``a``, and the run rightwards
    from ``M`` up to ``b``: ``M - a`` and ``b - M + 1`` terms. Each run's length is
    rounded up to a power of two, or to the run's whole extent (``2**level``, less
    for a rightward run cut by ``K``), so that few distinct lengths remain
    (:func:`_grouped_sums`); the extra cells are those of the complete table.
    """
    n_levels, rows, K = shape
    split = a != b
    level, row, a, b = level[split], row[split], a[split], b[split]
    middle = (b >> level) << level
    # the middles of level k are the odd multiples of 2**k below K: numbered from
    # offsets[k], the key of a run is its row's, then its middle's number
    offsets = np.cumsum([0, *((K + (1 << k)) >> (k + 1) for k in range(n_levels))])
    width = int(offsets[-1])
    key = row * width + offsets[level] + (middle >> (level + 1))
    # leftward runs' keys, then rightward ones' (shifted by rows * width)
    need = np.zeros(2 * rows * width, dtype=np.int64)
    np.maximum.at(need, np.concatenate([key, key + rows * width]),
                  np.concatenate([middle - a, b - middle + 1]))  # fmt: skip
    key = np.flatnonzero(need)
    length = need[key]
    step = np.where(key < rows * width, -1, 1)
    run_row, number = key // width % rows, key % width
    run_level = np.searchsorted(offsets, number, side="right") - 1
    middle = ((number - offsets[run_level]) * 2 + 1) << run_level
    extent = np.where(step < 0, 1 << run_level, np.minimum(1 << run_level, K - middle))
    length = np.minimum(1 << np.ceil(np.log2(length)).astype(np.int64), extent)
    first = run_row * K + middle - (step < 0)  # the leftward run starts at M - 1
    return first, step, length, run_level


def _grouped_sums(source, target, firsts, steps, lengths, levels):
    """The runs of :func:`_needed_runs` summed into ``target`` (``(n_levels, rows *
    K)``, flat :class:`_RangeLogSums` table) from ``source`` (``v`` flat): one
    ``logaddexp.accumulate`` over all the runs of each length, the same terms in the
    same order as :func:`_running_sums`, so the same floats."""
    order = np.argsort(lengths, kind="stable")
    firsts, steps, lengths, levels = firsts[order], steps[order], lengths[order], levels[order]
    distinct, begins = np.unique(lengths, return_index=True)
    ends = [*begins[1:].tolist(), lengths.size][: begins.size]
    for length, begin, end in zip(distinct.tolist(), begins.tolist(), ends, strict=True):
        positions = firsts[begin:end, np.newaxis] + steps[begin:end, np.newaxis] * np.arange(
            length
        )
        sums = np.logaddexp.accumulate(source.take(positions), axis=1)
        target[levels[begin:end, np.newaxis], positions] = sums


def _running_sums(v, out, half, *, reverse=None):
    """Running ``logaddexp`` sums of the half-blocks of width ``half`` of ``v``'s rows:
    leftwards from the middle in the first half of each block, rightwards in the
    second (``reverse`` given: one half-block only, leftwards if True)."""
    rows, width = v.shape
    if reverse is not None:
        step = slice(None, None, -1) if reverse else slice(None)
        np.logaddexp.accumulate(v[:, step], axis=1, out=out[:, step])
        return
    if width == 0:
        return
    blocks, target = v.reshape(rows, -1, 2, half), out.reshape(rows, -1, 2, half)
    np.logaddexp.accumulate(blocks[:, :, 0, ::-1], axis=2, out=target[:, :, 0, ::-1])
    np.logaddexp.accumulate(blocks[:, :, 1, :], axis=2, out=target[:, :, 1, :])


def _step_sums(source, target, positions, levels, counts):
    """Runs of :class:`_RangeLogSums`' table, every run advanced by one vectorised
    ``logaddexp`` per step: the same terms in the same order as
    :func:`_running_sums`, so the same floats.

    ``(positions, levels, counts)`` are step-major (:func:`_runs`,
    :func:`_needed_runs`); a run's terms are ``source[positions]`` and its sums go
    to ``target[levels, positions]``.
    """
    sums = source.take(positions, axis=0)
    ends = np.cumsum(counts)
    for s in range(1, counts.size):  # step s: the s-th term of each run still going
        first, start, stop = ends[s - 2] if s > 1 else 0, ends[s - 1], ends[s]
        np.logaddexp(sums[first : first + stop - start], sums[start:stop], out=sums[start:stop])
    target[levels, positions] = sums


@functools.lru_cache(maxsize=32)
def _runs(K, n_levels):
    """The running sums of the first ``n_levels`` levels of :class:`_RangeLogSums`'
    table on one row of ``K``, step-major.

    Level ``k`` (half-blocks of ``h = 2**k``) splits ``[0, K)`` into blocks of
    ``2 h``: the first half of each is summed leftwards from its middle, the second
    rightwards; of a last, partial block the first half (or all of it, if shorter)
    runs leftwards from its end and the rest rightwards (:func:`_running_sums`). A
    run along positions ``p_0, p_1, ...`` is ``t[k, p_0] = v[p_0]``, ``t[k, p_s] =
    logaddexp(t[k, p_{s-1}], v[p_s])``. Returns ``(positions, levels, counts)``: the
    runs sorted by decreasing length, then their ``s``-th positions and levels for
    ``s = 0, 1, ...`` (``counts[s]`` of them: a prefix of the runs, those longer than
    ``s``).
    """
    runs = []
    for level in range(n_levels):
        half = 1 << level
        full = K // (2 * half) * 2 * half
        middles = range(half, full, 2 * half)
        runs += [(level, range(m - 1, m - half - 1, -1)) for m in middles]
        runs += [(level, range(m, m + half)) for m in middles]
        if full < K:
            stop = min(full + half, K)
            runs.append((level, range(stop - 1, full - 1, -1)))
            if stop < K:
                runs.append((level, range(stop, K)))
    runs.sort(key=lambda run: -len(run[1]))
    lengths = np.array([len(run) for _, run in runs])
    counts = np.array([np.count_nonzero(lengths > s) for s in range(lengths[0])])
    steps = [(s, runs[: counts[s]]) for s in range(counts.size)]
    positions = np.array([run[s] for s, active in steps for _, run in active])
    levels = np.array([level for _, active in steps for level, _ in active])
    return positions, levels, counts
