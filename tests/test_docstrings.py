"""Every public function and class has a numpydoc docstring with a runnable example.

The public API is the ``__all__`` of the public subpackages plus the public functions
and classes defined in a few utility modules. For each item the docstring must have

* an ``Examples`` section with at least one doctest example that is not skipped (the
  examples themselves run through ``--doctest-modules``);
* a ``Parameters`` section that lists exactly the signature's parameters, in order
  (no section when there are none);
* a ``Returns`` or ``Yields`` section when a function returns a value or yields;
* for a class, an ``Attributes`` section listing its public properties, and for an
  estimator, its fitted attributes (``privacy_spent_`` and ``epsilon_split_`` for a
  differentially private one).

The sections are read by the small parser below; numpydoc's own validator (installed
by the ``test`` extra) checks them as well.
"""

import ast
import doctest
import importlib
import inspect
import re
import textwrap

import pytest
from sklearn.base import BaseEstimator

from skdp.base import DifferentialPrivacyMixin

# modules whose __all__ is public API
ALL_MODULES = [
    "skdp",
    "skdp.accounting",
    "skdp.cluster",
    "skdp.datasets",
    "skdp.decomposition",
    "skdp.ensemble",
    "skdp.frequent_patterns",
    "skdp.linear_model",
    "skdp.mechanisms",
    "skdp.model_selection",
    "skdp.naive_bayes",
    "skdp.preprocessing",
    "skdp.svm",
    "skdp.tools",
    "skdp.tree",
]
# modules whose public functions and classes (defined there) are public API
DEFINING_MODULES = [
    "skdp.utils.validation",
    "skdp.utils.discovery",
    "skdp.utils.estimator_checks",
    "skdp.exceptions",
]


def public_items():
    """``{public name: object}`` for every public function and class (each once)."""
    items, seen = {}, set()

    def add(name, obj):
        if callable(obj) and id(obj) not in seen:  # classes and functions, not constants
            seen.add(id(obj))
            items[name] = obj

    for module_name in ALL_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            add(f"{module_name}.{name}", getattr(module, name))
    for module_name in DEFINING_MODULES:
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            defined_here = getattr(obj, "__module__", None) == module_name
            is_api = inspect.isclass(obj) or inspect.isfunction(obj)
            if not name.startswith("_") and defined_here and is_api:
                add(f"{module_name}.{name}", obj)
    return items


PUBLIC = public_items()


# --- a small numpydoc parser --------------------------------------------------------------


def docstring(obj):
    """The object's own docstring, dedented (not one inherited from a base class)."""
    return inspect.cleandoc(obj.__doc__ or "")


def sections(doc):
    """``{title: lines}`` of the numpydoc sections: a title underlined by dashes."""
    lines = doc.splitlines()
    found, title = {}, None
    for i, line in enumerate(lines):
        under = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            line
            and not line[0].isspace()
            and re.fullmatch(r"-{3,}", under)
            and len(under) == len(line.rstrip())
        ):
            title = line.strip()
            found[title] = []
        elif title is not None and not re.fullmatch(r"-{3,}", line):
            found[title].append(line)
    return found


def entry_names(lines):
    """Names of the entries of a Parameters-like section (``a, b : type`` gives a, b)."""
    names = []
    for line in lines:
        if line and not line[0].isspace():
            head = line.split(" : ", 1)[0]
            names.extend(part.strip() for part in head.split(","))
    return names


# --- what the signature and the source say --------------------------------------------------


def signature_names(obj):
    """Parameter names as numpydoc writes them (``*args``, ``**kwargs``)."""
    if inspect.isclass(obj) and not inspect.isfunction(obj.__init__):
        return []  # the constructor of object or of a built-in exception
    prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return [prefix.get(p.kind, "") + p.name for p in inspect.signature(obj).parameters.values()]


def _own_nodes(node):
    """The AST nodes of a function's body, not of the functions or classes inside it."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not isinstance(child, ast.Lambda):
                yield child
                yield from _own_nodes(child)


def returns_or_yields(func):
    """Whether the function's code returns a value (not just None) or yields."""
    source = textwrap.dedent(inspect.getsource(inspect.unwrap(func)))
    definition = ast.parse(source).body[0]
    for node in _own_nodes(definition):
        if isinstance(node, ast.Yield | ast.YieldFrom):
            return True
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                return True
    return False


def public_properties(cls):
    return sorted(
        name
        for klass in cls.__mro__
        if klass.__module__.startswith("skdp")
        for name, value in vars(klass).items()
        if isinstance(value, property) and not name.startswith("_")
    )


# --- the tests --------------------------------------------------------------------------------

NAMES = sorted(PUBLIC)


def test_the_public_api_is_found():
    """The enumeration is not vacuous: it holds at least the items named here."""
    expected = {
        "skdp.BudgetExceededError",
        "skdp.ClippingWarning",
        "skdp.PrivacyLeakWarning",
        "skdp.PrivacyBudget",
        "skdp.accounting.Spend",
        "skdp.accounting.record_spend",
        "skdp.accounting.parallel_composition",
        "skdp.cluster.DPKMeans",
        "skdp.datasets.fetch_adult",
        "skdp.datasets.fetch_census_income",
        "skdp.datasets.fetch_fimi",
        "skdp.datasets.fetch_german_credit",
        "skdp.datasets.fetch_msnbc",
        "skdp.datasets.get_data_home",
        "skdp.mechanisms.laplace",
        "skdp.svm.SolverCertificateError",
        "skdp.tools.quantile",
        "skdp.tree.DPDecisionTree",
        "skdp.utils.discovery.all_estimators",
        "skdp.utils.validation.check_sensitivity",
        "skdp.utils.validation.clip_to_bounds",
        "skdp.utils.estimator_checks.make_check_data",
        "skdp.utils.estimator_checks.skdp_checks",
        "skdp.utils.estimator_checks.check_pickle_roundtrip",
    }
    assert expected <= set(PUBLIC), sorted(expected - set(PUBLIC))
    # constants are not functions or classes
    assert "skdp.utils.validation.EPSILON_CONSTRAINT" not in PUBLIC
    assert "skdp.__version__" not in PUBLIC


@pytest.mark.parametrize("name", NAMES)
def test_has_runnable_example(name):
    doc = docstring(PUBLIC[name])
    assert doc, f"{name} has no docstring"
    found = sections(doc)
    assert "Examples" in found, f"{name}: no Examples section"
    examples = doctest.DocTestParser().get_examples("\n".join(found["Examples"]))
    assert examples, f"{name}: the Examples section has no >>> example"
    assert any(not example.options.get(doctest.SKIP) for example in examples), (
        f"{name}: every example is skipped"
    )


@pytest.mark.parametrize("name", NAMES)
def test_parameters_match_signature(name):
    obj = PUBLIC[name]
    expected = signature_names(obj)
    documented = entry_names(sections(docstring(obj)).get("Parameters", []))
    assert documented == expected, (
        f"{name}: the Parameters section lists {documented}, the signature has {expected}"
    )


FUNCTIONS = [n for n in NAMES if not inspect.isclass(PUBLIC[n])]
RETURNING = [n for n in FUNCTIONS if returns_or_yields(PUBLIC[n])]


def test_the_returns_check_sees_both_kinds():
    assert "skdp.accounting.parallel_composition" in RETURNING  # yields
    assert "skdp.datasets.fetch_adult" in RETURNING
    assert "skdp.accounting.record_spend" not in RETURNING  # returns None
    assert "skdp.utils.estimator_checks.check_unseeded_fits_differ" not in RETURNING


@pytest.mark.parametrize("name", RETURNING)
def test_documents_what_it_returns(name):
    found = sections(docstring(PUBLIC[name]))
    assert "Returns" in found or "Yields" in found, f"{name}: no Returns or Yields section"
    assert entry_names(found.get("Returns", []) + found.get("Yields", [])), (
        f"{name}: the Returns / Yields section is empty"
    )


@pytest.mark.parametrize("name", [n for n in NAMES if inspect.isclass(PUBLIC[n])])
def test_documents_its_attributes(name):
    cls = PUBLIC[name]
    found = sections(docstring(cls))
    documented = set(entry_names(found.get("Attributes", [])))
    missing = [p for p in public_properties(cls) if p not in documented]
    assert not missing, f"{name}: properties {missing} are not in its Attributes section"
    if issubclass(cls, BaseEstimator):
        assert documented, f"{name}: an estimator needs an Attributes section"
    if issubclass(cls, DifferentialPrivacyMixin):
        for attribute in ("privacy_spent_", "epsilon_split_"):
            assert attribute in documented, f"{name}: {attribute} is not documented"


# --- the parser itself ----------------------------------------------------------------------


def test_parser_reads_numpydoc():
    # defined here, not at module level, so that --doctest-modules does not collect it
    def example_function(a, b, *, c=1):
        """Summary.

        Parameters
        ----------
        a, b : int
            Two.
        c : int, default=1
            Three: not a section title.

        Returns
        -------
        int
            Their sum.

        Examples
        --------
        >>> example_function(1, 2)  # doctest: +SKIP
        4
        """
        return a + b + c

    found = sections(docstring(example_function))
    assert list(found) == ["Parameters", "Returns", "Examples"]
    assert entry_names(found["Parameters"]) == signature_names(example_function) == ["a", "b", "c"]
    assert returns_or_yields(example_function)
    examples = doctest.DocTestParser().get_examples("\n".join(found["Examples"]))
    assert [e.options.get(doctest.SKIP) for e in examples] == [True]


def test_checks_fail_on_a_missing_example(monkeypatch):
    """A docstring without Examples, or with the wrong parameters, is caught."""
    name = "skdp.utils.validation.check_sensitivity"
    doc = PUBLIC[name].__doc__
    without = doc[: doc.index("    Examples")]
    monkeypatch.setattr(PUBLIC[name], "__doc__", without)
    with pytest.raises(AssertionError, match="no Examples section"):
        test_has_runnable_example(name)
    monkeypatch.setattr(
        PUBLIC[name], "__doc__", without.replace("    name : str", "    nom : str")
    )
    with pytest.raises(AssertionError, match="the Parameters section lists"):
        test_parameters_match_signature(name)


# --- numpydoc's own validation ----------------------------------------------------------------

# Style choices of skdp, not defects: no See Also section required (SA01), no extended
# summary required (ES01), and returned values may be named (RT02).
NUMPYDOC_IGNORED = {"SA01", "ES01", "RT02"}


@pytest.mark.parametrize("name", NAMES)
def test_numpydoc_validation(name):
    from numpydoc import validate

    errors = [
        f"{code}: {message}"
        for code, message in validate.validate(name)["errors"]
        if code not in NUMPYDOC_IGNORED
    ]
    assert not errors, f"{name}:\n" + "\n".join(errors)
