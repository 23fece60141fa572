"""What the harness can run: one :class:`Entry` per private estimator configuration.

Each family module (``classification``, ``regression``, ``clustering``, ``itemsets``)
lists its entries in ``ENTRIES``; an estimator issue plugs its estimator in by adding an
entry there, never by writing its own loop. An entry says how to build the private
estimator for a task and an epsilon, its non-private counterpart, and, when one exists,
diffprivlib's counterpart.
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass

FAMILIES = ("classification", "regression", "clustering", "itemsets")


@dataclass(frozen=True)
class Entry:
    """One private estimator configuration in the benchmark.

    Attributes
    ----------
    name : str
        Label in tables and plots, e.g. ``"DPDecisionTree(maxgddp)"``.
    task : str
        The task it solves (one of ``FAMILIES``).
    private : callable
        ``private(task, epsilon, seed) -> estimator`` (unfitted, seeded).
    baseline : callable or None
        ``baseline(task, seed) -> estimator``: the non-private counterpart.
    baseline_name : str
        Label of the baseline; entries sharing a baseline name share its runs.
    diffprivlib : callable or None
        ``diffprivlib(task, epsilon, seed) -> estimator``; only called when diffprivlib
        imports.
    supports : callable or None
        ``supports(task) -> bool``; None means every task of the right kind.
    score : callable or None
        ``score(estimator, task) -> dict[str, float]``; None uses the task's default
        metrics (accuracy, R^2, ARI and NICV, or top-k precision).
    """

    name: str
    task: str
    private: Callable
    baseline: Callable | None = None
    baseline_name: str = ""
    diffprivlib: Callable | None = None
    supports: Callable | None = None
    score: Callable | None = None

    def applies_to(self, task):
        return self.task == task.task and (self.supports is None or self.supports(task))


def all_entries(families=FAMILIES):
    """Every registered entry of the given families, in registration order."""
    entries = []
    for family in families:
        if family not in FAMILIES:
            raise ValueError(f"unknown family {family!r}; choose from {', '.join(FAMILIES)}")
        entries.extend(importlib.import_module(f"benchmarks.{family}").ENTRIES)
    return entries


def select_entries(spec, families=FAMILIES):
    """Entries named by ``spec``: ``"all"`` or comma-separated names (case-insensitive).

    A name matches an entry whose name equals it or starts with ``name + "("``, so
    ``DPDecisionTree`` selects both of its algorithms.
    """
    entries = all_entries(families)
    if spec.strip().lower() == "all":
        return entries
    chosen = []
    for wanted in (part.strip().lower() for part in spec.split(",") if part.strip()):
        matches = [
            e
            for e in entries
            if e.name.lower() == wanted or e.name.lower().startswith(wanted + "(")
        ]
        if not matches:
            names = ", ".join(e.name for e in entries) or "(none registered yet)"
            raise ValueError(f"no estimator named {wanted!r}; registered: {names}")
        chosen.extend(m for m in matches if m not in chosen)
    return chosen


def diffprivlib_status():
    """``(True, version)`` if diffprivlib imports here, else ``(False, reason)``."""
    try:
        module = importlib.import_module("diffprivlib")
    except Exception as error:  # it fails with ImportError or worse on new scikit-learn
        return False, f"{type(error).__name__}: {error}".splitlines()[0][:160]
    return True, getattr(module, "__version__", "?")
