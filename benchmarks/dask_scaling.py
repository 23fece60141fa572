"""skdp estimators on dask: wall time and peak memory from a chunked on-disk source.

    python -m benchmarks dask_scaling [--rows 1e5,1e6,1e7] [--repeats 3]
                                      [--estimators NAME,...] [--worker-memory 512MiB]
                                      [--compare-rows 1e6] [--data-dir DIR]

For every size, the rows are written once to ``.npy`` files in ``--data-dir`` (a
temporary folder by default) in blocks, and each fit reads them through a memory map
wrapped in a dask array (``--chunk-rows`` rows per block): neither the driver nor a
worker ever holds the whole input unless the estimator persists it (the iterative ones
persist their clipped input once; distributed spills it to disk past the worker memory
limit). The cluster is a ``LocalCluster`` of 2 single-threaded worker processes with
``--worker-memory`` each, on the loopback interface.

Reported per estimator and size: fit time (mean ± std over ``--repeats``), the driver's
peak traced allocation during the fits (``tracemalloc``: numpy buffers included), and
the peak of the workers' summed process memory during the fits
(``distributed.diagnostics.MemorySampler``, sampled every 0.1 s). At
``--compare-rows`` the same fit on the in-memory numpy array gives the overhead ratio of
the dask path (dask time / numpy time). The data: four Gaussian blobs in the public box
[-1, 1]^d (d = 2 for the clusterers, 8 for the linear models, with a linear target and
labels; 16 item columns for the itemsets), seeded.
"""

import argparse
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from skdp.exceptions import ClippingWarning

BLOCK_ROWS = 500_000  # rows generated at a time when writing the files


def _write(path, rows, columns, fill):
    out = np.lib.format.open_memmap(path, mode="w+", dtype=fill.dtype, shape=(rows, columns))
    for start in range(0, rows, BLOCK_ROWS):
        stop = min(rows, start + BLOCK_ROWS)
        out[start:stop] = fill(start, stop)
    out.flush()
    del out


def _generate(folder, rows, seed=0):
    """Write the inputs of every estimator for ``rows`` rows; return their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {key: folder / f"{key}-{rows}.npy" for key in ("blobs", "linear", "items")}
    if all(p.exists() for p in paths.values()):
        return paths
    centres = np.array([[-0.5, -0.5], [0.5, 0.5], [-0.5, 0.5], [0.5, -0.5]])

    def blobs(start, stop):
        rng = np.random.default_rng([seed, start])
        which = rng.integers(4, size=stop - start)
        return np.clip(centres[which] + rng.normal(0, 0.1, size=(stop - start, 2)), -1, 1)

    weights = np.linspace(-1, 1, 8)

    def linear(start, stop):
        rng = np.random.default_rng([seed, start, 1])
        X = rng.uniform(-1, 1, size=(stop - start, 8))
        y = np.clip(X @ weights / 4 + rng.normal(0, 0.1, size=stop - start), -1, 1)
        return np.column_stack([X, y, (y > 0).astype(float)])

    def items(start, stop):
        rng = np.random.default_rng([seed, start, 2])
        return rng.random((stop - start, 16)) < np.linspace(0.05, 0.6, 16)

    _write(paths["blobs"], rows, 2, _Fill(blobs, np.float64))
    _write(paths["linear"], rows, 10, _Fill(linear, np.float64))
    _write(paths["items"], rows, 16, _Fill(items, np.bool_))
    return paths


class _Fill:
    def __init__(self, function, dtype):
        self.function, self.dtype = function, np.dtype(dtype)

    def __call__(self, start, stop):
        return self.function(start, stop)


def _estimators():
    """name -> (input file, make(seed), uses y)."""
    from skdp.cluster import DPOPTICS, DPKMeans
    from skdp.frequent_patterns import DPFrequentItemsets
    from skdp.linear_model import (
        FunctionalMechanismClassifier,
        FunctionalMechanismRegressor,
        ObjectivePerturbationLogistic,
    )
    from skdp.svm import PrivateSVM
    from skdp.tree import DPDecisionTree

    box = (-1.0, 1.0)
    return {
        "DPOPTICS": ("blobs", lambda s: DPOPTICS(bounds=box, max_eps=0.1, random_state=s), None),
        "DPKMeans(lloyd)": ("blobs", lambda s: DPKMeans(4, bounds=box, random_state=s), None),
        "DPKMeans(grid)": (
            "blobs", lambda s: DPKMeans(4, bounds=box, method="grid", random_state=s), None
        ),
        "FunctionalMechanismRegressor": (
            "linear",
            lambda s: FunctionalMechanismRegressor(bounds=box, bounds_y=box, random_state=s),
            "regression",
        ),
        "FunctionalMechanismClassifier": (
            "linear",
            lambda s: FunctionalMechanismClassifier(
                bounds=box, classes=[0.0, 1.0], random_state=s
            ),
            "classification",
        ),
        "ObjectivePerturbationLogistic": (
            "linear",
            lambda s: ObjectivePerturbationLogistic(
                data_norm=8**0.5, classes=[0.0, 1.0], random_state=s
            ),
            "classification",
        ),
        "PrivateSVM(objective)": (
            "linear",
            lambda s: PrivateSVM(
                data_norm=8**0.5, mechanism="objective", classes=[0.0, 1.0], random_state=s
            ),
            "classification",
        ),
        "DPDecisionTree(maxgddp)": (
            "linear",
            lambda s: DPDecisionTree(n_levels=8, bounds=box, classes=[0.0, 1.0], random_state=s),
            "classification",
        ),
        "DPFrequentItemsets(tdps-bins)": (
            "items", lambda s: DPFrequentItemsets(top_k=20, random_state=s), None
        ),
        "DPFrequentItemsets(tf)": (
            "items", lambda s: DPFrequentItemsets(top_k=20, method="tf", random_state=s), None
        ),
        "DPFrequentItemsets(privbasis)": (
            "items",
            lambda s: DPFrequentItemsets(top_k=20, method="privbasis", random_state=s),
            None,
        ),
    }  # fmt: skip


def _load_rows(path, start, stop):
    """Rows ``start:stop`` of a ``.npy`` file, read by the worker that runs the task."""
    return np.asarray(np.load(path, mmap_mode="r")[start:stop])


def _on_disk(path, chunk_rows):
    """A dask array whose every block is read from the file by its task (nothing of the
    data goes through the driver or the task graph)."""
    import dask
    import dask.array as da

    header = np.load(path, mmap_mode="r")
    rows, columns = header.shape
    blocks = [
        da.from_delayed(
            dask.delayed(_load_rows)(str(path), start, min(rows, start + chunk_rows)),
            shape=(min(rows, start + chunk_rows) - start, columns),
            dtype=header.dtype,
        )
        for start in range(0, rows, chunk_rows)
    ]
    return da.concatenate(blocks, axis=0)


def _inputs(path, target, chunk_rows, lazy):
    data = _on_disk(path, chunk_rows) if lazy else np.load(path)
    if target is None:
        return data, None
    X = data[:, :8]
    y = data[:, 8] if target == "regression" else data[:, 9]
    return X, y


def _time_fits(make, X, y, repeats):
    """Fit times, and the driver's peak traced allocation (MiB) during the fits."""
    times = []
    tracemalloc.start()
    try:
        for seed in range(repeats):
            model = make(seed)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ClippingWarning)
                model.fit(X) if y is None else model.fit(X, y)
            times.append(time.perf_counter() - start)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    return np.array(times), peak


def main(argv=()):
    parser = argparse.ArgumentParser(prog="python -m benchmarks dask_scaling")
    parser.add_argument("--rows", default="1e5,1e6,1e7")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--estimators", default="all")
    parser.add_argument("--worker-memory", default="512MiB")
    parser.add_argument("--chunk-rows", type=int, default=250_000)
    parser.add_argument("--compare-rows", default="1e6")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args(list(argv))
    import distributed
    from distributed.diagnostics import MemorySampler

    registry = _estimators()
    names = list(registry) if args.estimators == "all" else args.estimators.split(",")
    sizes = [int(float(r)) for r in args.rows.split(",")]
    compare = int(float(args.compare_rows)) if args.compare_rows else None
    folder = args.data_dir or tempfile.mkdtemp(prefix="skdp-dask-")
    print(
        f"LocalCluster: 2 worker processes x 1 thread, {args.worker_memory} each; "
        f"blocks of {args.chunk_rows:,} rows, each read from .npy files in {folder} by its task\n"
    )
    print(
        "| estimator | rows | dask fit s (mean ± std) | driver peak alloc MiB | "
        "workers' peak memory MiB | numpy fit s | dask / numpy |\n|---|---|---|---|---|---|---|"
    )
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            memory_limit=args.worker_memory,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster),
    ):
        for rows in sizes:
            paths = _generate(folder, rows)
            for name in names:
                key, make, target = registry[name]
                X, y = _inputs(paths[key], target, args.chunk_rows, lazy=True)
                sampler = MemorySampler()
                try:
                    warm = slice(0, 2 * args.chunk_rows)  # imports and pools, untimed
                    _time_fits(make, X[warm], None if y is None else y[warm], 1)
                    with sampler.sample("fit", interval=0.1):
                        times, driver = _time_fits(make, X, y, args.repeats)
                except (TypeError, ValueError, NotImplementedError) as error:
                    print(f"| {name} | {rows:,} | not supported on dask: {error} | | | | |")
                    continue
                workers = sampler.to_pandas()["fit"].max() / 2**20
                local = ratio = ""
                if rows == compare:
                    Xn, yn = _inputs(paths[key], target, args.chunk_rows, lazy=False)
                    numpy_times = _time_fits(make, Xn, yn, args.repeats)[0]
                    local = f"{numpy_times.mean():.3f}"
                    ratio = f"{times.mean() / numpy_times.mean():.2f}"
                print(
                    f"| {name} | {rows:,} | {times.mean():.3f} ± {times.std():.3f} | "
                    f"{driver:.0f} | {workers:.0f} | {local} | {ratio} |",
                    flush=True,
                )
    return 0
