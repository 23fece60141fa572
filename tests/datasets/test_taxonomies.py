"""Public taxonomy trees and numeric domains: structure, validation and documentation."""

import gzip
import json
import os
import re
from importlib import resources
from pathlib import Path

import pytest

from skdp.datasets._taxonomies import (
    check_taxonomy,
    load_numeric_domains,
    load_taxonomies,
    taxonomy_leaves,
)

ADULT_CATEGORICAL = {
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
}
ADULT_NUMERIC = {
    "age",
    "fnlwgt",
    "education-num",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
}
CENSUS_NUMERIC = {
    "age",
    "wage_per_hour",
    "capital_gains",
    "capital_losses",
    "dividends_from_stocks",
    "num_persons_worked_for_employer",
    "weeks_worked_in_year",
}
# Copied from UCI adult.names, so that these checks run without the data files.
DOCUMENTED_LEAVES = {
    "workclass": {
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
    },
    "race": {"White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"},
    "sex": {"Female", "Male"},
}


def _dataset_file(folder, filename):
    """Path of a dataset file in $SKDP_DATA_HOME or the shared folder, else skip."""
    candidates = []
    if os.environ.get("SKDP_DATA_HOME"):
        candidates.append(Path(os.environ["SKDP_DATA_HOME"]) / folder / filename)
    repo = Path(__file__).resolve().parents[2]
    candidates.append(repo.parent / "shared" / "datasets" / folder / filename)
    for path in candidates:
        if path.is_file():
            return path
    pytest.skip(f"{folder}/{filename} is not available (set SKDP_DATA_HOME)")


def _documented_attributes(path):
    """``{attribute: [values] or "continuous"}`` in column order, from a UCI .names file."""
    attributes = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        match = re.match(r"^([^|:][^:]*):\s*(.*?)\.\s*$", line)
        if match:
            name, spec = match.group(1).strip(), match.group(2).strip()
            values = [v.strip() for v in spec.split(",")]
            attributes[name] = "continuous" if values == ["continuous"] else values
    return attributes


def _snake_case(name):
    return re.sub(r"\W+", "_", name.strip()).strip("_").lower()


def _records(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="latin-1") as f:
        for line in f:
            fields = [field.strip() for field in line.split(",")]
            if len(fields) > 1:
                yield fields


# The shipped Adult trees -------------------------------------------------------------


def test_every_adult_tree_validates():
    taxonomies = load_taxonomies("adult")
    assert set(taxonomies) == ADULT_CATEGORICAL
    for attribute, tree in taxonomies.items():
        assert list(tree) == ["Any"]
        leaves = check_taxonomy(tree, name=attribute)
        assert "?" not in leaves
        assert taxonomy_leaves(tree) == leaves


@pytest.mark.parametrize("attribute", sorted(DOCUMENTED_LEAVES))
def test_adult_leaves_hard_coded(attribute):
    tree = load_taxonomies()[attribute]
    check_taxonomy(tree, values=DOCUMENTED_LEAVES[attribute], name=attribute)
    assert set(taxonomy_leaves(tree)) == DOCUMENTED_LEAVES[attribute]


def test_adult_leaves_are_the_values_in_adult_names():
    documented = _documented_attributes(_dataset_file("adult", "adult.names"))
    categorical = {k: v for k, v in documented.items() if v != "continuous"}
    assert set(categorical) == ADULT_CATEGORICAL
    assert {k for k, v in documented.items() if v == "continuous"} == ADULT_NUMERIC
    for attribute, tree in load_taxonomies("adult").items():
        leaves = check_taxonomy(tree, values=categorical[attribute], name=attribute)
        assert sorted(leaves) == sorted(categorical[attribute])


# check_taxonomy and taxonomy_leaves ----------------------------------------------------


def test_taxonomy_leaves_depth_first_order():
    tree = {"Any": ["a", {"B": [{"C": ["c1", "c2"]}, "b"]}, "z"]}
    assert taxonomy_leaves(tree) == ["a", "c1", "c2", "b", "z"]
    assert check_taxonomy(tree, values=["z", "b", "c2", "c1", "a"]) == taxonomy_leaves(tree)


@pytest.mark.parametrize(
    "tree, message",
    [
        ({"Any": ["a", {"B": ["a"]}]}, "leaf 'a' appears more than once"),
        ({"Any": [{"B": ["a"]}, {"B": ["b"]}]}, "concept name 'B' appears more than once"),
        ({"Any": [{"Any": ["a"]}]}, "concept name 'Any' appears more than once"),
        ({"Any": ["a", {"B": []}]}, "concept 'B' has an empty list of children"),
        ({"Any": []}, "concept 'Any' has an empty list of children"),
        ({"Any": ["a"], "Other": ["b"]}, r"must have exactly one key, got 2 \('Any', 'Other'\)"),
        ({}, "must have exactly one key, got 0"),
        (["a", "b"], "the tree must be a dict with one key, got list"),
        ({"Any": ["a", 3]}, "child 3 of concept 'Any' is neither a leaf"),
        ({"Any": ["a", None]}, "child None of concept 'Any' is neither a leaf"),
        ({"Any": [{"B": ["a"], "C": ["b"]}]}, "a child of 'Any' must have exactly one key"),
        ({"Any": [{"a": ["b"]}, "a"]}, "'a' is both a concept name and a leaf"),
        ({"Any": "ab"}, "the children of concept 'Any' must be a list"),
        ({1: ["a"]}, "concept names must be strings, got int 1"),
    ],
)
def test_check_taxonomy_rejects_malformed_trees(tree, message):
    with pytest.raises(ValueError, match=rf"Taxonomy 'workclass': .*{message}"):
        check_taxonomy(tree, name="workclass")


def test_check_taxonomy_rejects_a_tree_that_contains_itself():
    children = ["a"]
    children.append({"B": children})
    with pytest.raises(ValueError, match="concept 'B' contains itself"):
        check_taxonomy({"Any": children})


def test_check_taxonomy_leaves_must_be_the_declared_values():
    tree = {"Any": ["a", {"B": ["b", "c"]}]}
    with pytest.raises(ValueError, match=r"Taxonomy 'race': .*values with no leaf: \['d'\]"):
        check_taxonomy(tree, values=["a", "b", "c", "d"], name="race")
    with pytest.raises(ValueError, match=r"leaves that are not declared values: \['c'\]"):
        check_taxonomy(tree, values=["a", "b"], name="race")
    with pytest.raises(ValueError, match=r"no leaf: \['x'\]; leaves .* values: \['c'\]"):
        check_taxonomy(tree, values=["a", "b", "x"], name="race")
    assert check_taxonomy(tree, values=("c", "b", "a", "a")) == ["a", "b", "c"]


# Loaders -------------------------------------------------------------------------------


def test_load_taxonomies_returns_copies():
    first = load_taxonomies("adult")
    original = json.dumps(first, sort_keys=True)
    first["sex"]["Any"].append("Unknown")
    first["workclass"]["Any"][0]["Worked"].clear()
    del first["race"]
    second = load_taxonomies("adult")
    assert json.dumps(second, sort_keys=True) == original
    assert second["sex"] == {"Any": ["Female", "Male"]}


def test_load_numeric_domains_returns_copies():
    first = load_numeric_domains("adult")
    first["age"] = (0.0, 1.0)
    del first["fnlwgt"]
    second = load_numeric_domains("adult")
    assert second["age"] == (17.0, 91.0)
    assert set(second) == ADULT_NUMERIC


@pytest.mark.parametrize(
    "name, columns", [("adult", ADULT_NUMERIC), ("census_income", CENSUS_NUMERIC)]
)
def test_numeric_domains_are_intervals(name, columns):
    domains = load_numeric_domains(name)
    assert set(domains) == columns
    for low, high in domains.values():
        assert isinstance(low, float) and isinstance(high, float)
        assert low < high


def test_shipped_files_state_their_sources():
    data = resources.files("skdp.datasets").joinpath("data")
    taxonomies = json.loads(data.joinpath("adult_taxonomies.json").read_text("utf-8"))
    assert "Top-Down Specialization" in taxonomies["source"] and taxonomies["deviations"]
    domains = json.loads(data.joinpath("numeric_domains.json").read_text("utf-8"))
    for dataset in domains["domains"].values():
        for entry in dataset.values():
            assert len(entry["note"]) > 20


def test_unknown_names_raise():
    with pytest.raises(ValueError, match=r"No taxonomies for 'german'; available: 'adult'"):
        load_taxonomies("german")
    with pytest.raises(ValueError, match=r"available: 'adult', 'census_income'"):
        load_numeric_domains("census-income")


# The records lie inside the public domains (the domains were not taken from them) -------


@pytest.mark.parametrize("filename", ["adult.data", "adult.test"])
def test_adult_records_inside_numeric_domains(filename):
    names = list(_documented_attributes(_dataset_file("adult", "adult.names")))
    path = _dataset_file("adult", filename)
    domains = load_numeric_domains("adult")
    columns = {names.index(column): column for column in domains}
    n_records = 0
    for fields in _records(path):
        if len(fields) != len(names) + 1:
            continue  # the test file's "|1x3 Cross validator" header line
        n_records += 1
        for index, column in columns.items():
            low, high = domains[column]
            assert low <= float(fields[index]) < high, (column, fields[index])
    assert n_records > 10_000


def test_census_income_records_inside_numeric_domains():
    documented = _documented_attributes(_dataset_file("census-income-kdd", "census-income.names"))
    names = [_snake_case(name) for name in documented]
    continuous = {_snake_case(k) for k, v in documented.items() if v == "continuous"}
    assert continuous - {"instance_weight"} == CENSUS_NUMERIC
    path = _dataset_file("census-income-kdd", "census-income.test.gz")
    domains = load_numeric_domains("census_income")
    columns = {names.index(column): column for column in domains}
    n_records = 0
    for fields in _records(path):
        assert len(fields) == len(names) + 1
        n_records += 1
        for index, column in columns.items():
            low, high = domains[column]
            assert low <= float(fields[index]) < high, (column, fields[index])
    assert n_records == 99_762
