"""Public taxonomy trees and numeric domains, shipped as package data.

Differentially private generalization and decision-tree algorithms such as DiffGen
(Mohammed, Chen, Fung and Yu, "Differentially private data release for data mining",
KDD 2011) specialize top-down over a *public* taxonomy tree for each categorical attribute
and over a *public* interval ``[low, high)`` for each numeric attribute. Public means that
the tree or interval comes from documentation or the literature, never from the records;
otherwise the output domain itself would leak information.

Adult taxonomies (``data/adult_taxonomies.json``)
    The trees of Fung, Wang and Yu's Top-Down Specialization (TDS: "Top-down
    specialization for information and privacy preservation", ICDE 2005; "Anonymizing
    classification data for privacy preservation", TKDE 2007), which DiffGen also uses.
    The DiffGen authors' ``adultHierarchy.txt`` could not be found in a public copy, so the
    structure is transcribed from the TDS Adult taxonomy as redistributed with the public
    TDS implementation ``micophilip/tds-spark`` (``src/main/resources/taxonomytree.json``)
    and cross-checked against independent copies. The depths match the TDS papers' table
    except for ``native-country``. Deviations: leaves are spelled as in UCI
    ``adult.names`` and every listed value is a leaf (41 countries, including
    Holand-Netherlands, where TDS reports 40); ``native-country`` has 4 levels where TDS
    reports 5; the race concept ``Colored`` is renamed ``Non-White``; every root is
    ``Any``; ``?`` (missing) is not a leaf. The JSON file repeats this in its ``source``
    and ``deviations`` entries.

Numeric domains (``data/numeric_domains.json``)
    For Adult (UCI ``adult.names``) and Census-Income KDD (UCI ``census-income.names``),
    from the extraction conditions in the documentation (e.g. ``AAGE>16``), definitional
    ranges (weeks worked 0..52, education-num 1..16) and the top-codes of the Current
    Population Survey March supplement (age 90, hours 99, dollar amounts 99,999). Each
    attribute has a ``note`` with its justification. Census-Income columns are the
    snake_case names of ``census-income.names`` (``wage_per_hour``, ...).

Tree format
    A tree is a dict with one key, the root concept (``"Any"``), mapping to the list of its
    children. A child is either a string, a leaf that is an attribute value, or a dict with
    one key, an internal concept name, mapping to the non-empty list of its children::

        {"Any": [{"Self-emp": ["Self-emp-inc", "Self-emp-not-inc"]}, "Private"]}

    Concept names are unique within a tree and differ from every leaf; leaves are unique.
    :func:`check_taxonomy` validates this, so estimators can accept user trees too.
"""

import copy
import json
from functools import cache
from importlib import resources

__all__ = [
    "check_taxonomy",
    "load_numeric_domains",
    "load_taxonomies",
    "taxonomy_leaves",
]

_TAXONOMY_FILES = {"adult": "adult_taxonomies.json"}
_NUMERIC_DOMAINS_FILE = "numeric_domains.json"
_END = object()  # marks an exhausted iterator of children


@cache
def _read_json(filename):
    text = resources.files("skdp.datasets").joinpath("data", filename).read_text("utf-8")
    return json.loads(text)


def _unknown_name(kind, name, available):
    names = ", ".join(repr(n) for n in sorted(available))
    return ValueError(f"No {kind} for {name!r}; available: {names}.")


def load_taxonomies(name="adult"):
    """Return the public taxonomy tree of every categorical attribute of a dataset.

    Parameters
    ----------
    name : str, default="adult"
        The dataset. Available: ``"adult"``.

    Returns
    -------
    taxonomies : dict of str to dict
        One tree per attribute, keyed by the column name the dataset's loader uses
        (``"workclass"``, ``"marital-status"``, ...). Each tree has the format described
        in :func:`check_taxonomy`. The result is a fresh deep copy that callers may
        modify.

    Raises
    ------
    ValueError
        If ``name`` is not an available dataset.

    Examples
    --------
    >>> from skdp.datasets import load_taxonomies
    >>> trees = load_taxonomies("adult")
    >>> trees["sex"]
    {'Any': ['Female', 'Male']}
    """
    if name not in _TAXONOMY_FILES:
        raise _unknown_name("taxonomies", name, _TAXONOMY_FILES)
    return copy.deepcopy(_read_json(_TAXONOMY_FILES[name])["taxonomies"])


def load_numeric_domains(name):
    """Return the public domain ``(low, high)`` of every numeric attribute of a dataset.

    Each domain is the half-open interval ``[low, high)``, taken from the dataset's
    documentation (see the module docstring and each attribute's ``note`` in
    ``data/numeric_domains.json``), never from the records.

    Parameters
    ----------
    name : str
        The dataset: ``"adult"`` or ``"census_income"``.

    Returns
    -------
    domains : dict of str to tuple of (float, float)
        ``{column: (low, high)}``, keyed by the column names the dataset's loader uses.
        The instance weight of Census-Income is not an attribute and has no domain. The
        result is a fresh dict that callers may modify.

    Raises
    ------
    ValueError
        If ``name`` is not an available dataset.

    Examples
    --------
    >>> from skdp.datasets import load_numeric_domains
    >>> load_numeric_domains("adult")["hours-per-week"]
    (1.0, 100.0)
    """
    domains = _read_json(_NUMERIC_DOMAINS_FILE)["domains"]
    if name not in domains:
        raise _unknown_name("numeric domains", name, domains)
    return {
        column: (float(entry["low"]), float(entry["high"]))
        for column, entry in domains[name].items()
    }


def _single_item(node, name, what):
    """Return ``(key, children)`` of a one-key dict node, or raise a ValueError."""
    if not isinstance(node, dict):
        raise ValueError(
            f"Taxonomy {name!r}: {what} must be a dict with one key, got "
            f"{type(node).__name__} {node!r}."
        )
    if len(node) != 1:
        keys = ", ".join(repr(k) for k in node)
        raise ValueError(
            f"Taxonomy {name!r}: {what} must have exactly one key, got {len(node)} "
            f"({keys}); a tree has a single root and each concept is its own dict."
        )
    ((key, children),) = node.items()
    if not isinstance(key, str):
        raise ValueError(
            f"Taxonomy {name!r}: concept names must be strings, got {type(key).__name__} {key!r}."
        )
    if not isinstance(children, list | tuple):
        raise ValueError(
            f"Taxonomy {name!r}: the children of concept {key!r} must be a list, got "
            f"{type(children).__name__}."
        )
    if len(children) == 0:
        raise ValueError(
            f"Taxonomy {name!r}: concept {key!r} has an empty list of children; every "
            "internal node needs at least one child."
        )
    return key, children


def check_taxonomy(tree, *, values=None, name="taxonomy"):
    """Validate a taxonomy tree and return its leaves.

    A tree is a dict with one key, the root concept, mapping to the list of its children.
    A child is a string (a leaf: an attribute value) or a dict with one key (an internal
    concept name) mapping to the non-empty list of its own children.

    Parameters
    ----------
    tree : dict
        The tree, e.g. ``{"Any": [{"Gov": ["Federal-gov", "State-gov"]}, "Private"]}``.
    values : iterable of str, default=None
        The attribute's declared public values. When given, the leaves must be exactly
        these values (no value missing, no extra leaf).
    name : str, default="taxonomy"
        The attribute name, used in error messages.

    Returns
    -------
    leaves : list of str
        The leaves, depth first, left to right.

    Raises
    ------
    ValueError
        If the tree has no single root, a node is not a one-key dict or a string, a
        concept has an empty list of children, a leaf is not a string, a concept name or
        a leaf appears twice, a concept name is also a leaf, or the leaves differ from
        ``values``. The message names the attribute and the offending node or value.

    Examples
    --------
    >>> check_taxonomy({"Any": [{"Gov": ["Federal-gov", "State-gov"]}, "Private"]})
    ['Federal-gov', 'State-gov', 'Private']
    """
    root, children = _single_item(tree, name, "the tree")
    concepts = {root}
    leaves = []
    seen_leaves = set()
    # Depth-first walk with an explicit stack (no recursion limit on deep trees). The ids
    # of the children lists on the current path detect a tree that contains itself.
    stack = [(root, iter(children), id(children))]
    on_path = {id(children)}
    while stack:
        parent, pending, list_id = stack[-1]
        child = next(pending, _END)
        if child is _END:
            stack.pop()
            on_path.discard(list_id)
        elif isinstance(child, str):
            if child in seen_leaves:
                raise ValueError(f"Taxonomy {name!r}: leaf {child!r} appears more than once.")
            seen_leaves.add(child)
            leaves.append(child)
        elif isinstance(child, dict):
            concept, grandchildren = _single_item(child, name, f"a child of {parent!r}")
            if id(grandchildren) in on_path:
                raise ValueError(f"Taxonomy {name!r}: concept {concept!r} contains itself.")
            if concept in concepts:
                raise ValueError(
                    f"Taxonomy {name!r}: concept name {concept!r} appears more than once."
                )
            concepts.add(concept)
            on_path.add(id(grandchildren))
            stack.append((concept, iter(grandchildren), id(grandchildren)))
        else:
            raise ValueError(
                f"Taxonomy {name!r}: child {child!r} of concept {parent!r} is neither a "
                "leaf (a string) nor a concept (a dict with one key)."
            )
    clashes = sorted(concepts & seen_leaves)
    if clashes:
        raise ValueError(
            f"Taxonomy {name!r}: {clashes[0]!r} is both a concept name and a leaf; concept "
            "names must differ from the attribute's values."
        )
    if values is not None:
        _check_leaves_match(leaves, values, name)
    return leaves


def _check_leaves_match(leaves, values, name):
    values = list(dict.fromkeys(values))  # unique, in the declared order
    declared = set(values)
    present = set(leaves)
    missing = [v for v in values if v not in present]
    extra = [leaf for leaf in leaves if leaf not in declared]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"values with no leaf: {missing}")
        if extra:
            parts.append(f"leaves that are not declared values: {extra}")
        raise ValueError(
            f"Taxonomy {name!r}: the leaves must be exactly the declared values; "
            + "; ".join(parts)
            + "."
        )


def taxonomy_leaves(tree):
    """Return the leaves of a taxonomy tree, depth first, left to right.

    Parameters
    ----------
    tree : dict
        A tree in the format of :func:`check_taxonomy`, which validates it.

    Returns
    -------
    leaves : list of str
        The attribute values at the leaves.

    Examples
    --------
    >>> taxonomy_leaves({"Any": ["White", {"Non-White": ["Black", "Other"]}]})
    ['White', 'Black', 'Other']
    """
    return check_taxonomy(tree)
