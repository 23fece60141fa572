"""Shared parsing for the tabular loaders (Adult, Census-Income, German Credit)."""

import gzip
import io

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

__all__ = [
    "check_subset",
    "make_bunch",
    "parse_names",
    "read_rows",
    "to_frame",
]

MISSING = "?"


def check_subset(subset):
    """Raise a ValueError unless ``subset`` is ``"train"``, ``"test"`` or ``"all"``."""
    if not isinstance(subset, str) or subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', got {subset!r}.")


def parse_names(text):
    """Read the label line and the attribute lines of a C4.5 ``.names`` file.

    Lines starting with ``|`` are comments. The first other line lists the labels, each
    following one reads ``name: value, value, ... .`` or ``name: continuous.``.

    Parameters
    ----------
    text : str
        Content of the ``.names`` file.

    Returns
    -------
    labels : list of str
        The documented labels (without the final period).
    attributes : dict
        Attribute name (as spelt in the file) to its list of documented values, or
        None for a continuous attribute. Values are stripped of surrounding spaces.
    """
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("|")]
    labels = [value.strip() for value in lines[0].removesuffix(".").split(",")]
    attributes = {}
    for line in lines[1:]:
        name, sep, values = line.partition(":")
        if not sep or not values.strip().endswith("."):
            raise ValueError(f"Unexpected line in the .names file: {line!r}")
        values = values.strip().removesuffix(".")
        if values == "continuous":
            attributes[name.strip()] = None
        else:
            attributes[name.strip()] = [value.strip() for value in values.split(", ")]
    return labels, attributes


def read_rows(path, n_fields, *, sep=",", header_prefix=None):
    """Read a delimited text file (optionally gzip-compressed) as a table of stripped strings.

    Parameters
    ----------
    path : pathlib.Path
        The file; read through gzip when its name ends with ``.gz``.
    n_fields : int
        Number of fields every row must have.
    sep : str, default=","
        Field separator. Spaces around fields are removed, and empty lines are skipped.
        CRLF line endings are accepted.
    header_prefix : str, default=None
        When given, the first line must start with it and is skipped (Adult's test
        file starts with ``|1x3 Cross validator``).

    Returns
    -------
    rows : pandas.DataFrame
        String columns ``0 .. n_fields - 1``; nothing is converted to missing yet.
    """
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="ascii", newline="") as f:
        text = f.read()
    if header_prefix is not None:
        first, _, text = text.partition("\n")
        if not first.startswith(header_prefix):
            raise ValueError(f"{path}: expected a first line starting with {header_prefix!r}.")
    text = text.replace("\r\n", "\n").rstrip(" ") + "\n"
    for end in ["\n"] if sep == " " else [sep, "\n"]:
        while " " + end in text:  # spaces that end a field (read_csv would keep them)
            text = text.replace(" " + end, end)
    rows = pd.read_csv(
        io.StringIO(text),
        sep=sep,
        header=None,
        names=range(n_fields),
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        skipinitialspace=True,
        skip_blank_lines=True,
        engine="c",
    )
    if (rows == "").to_numpy().any():
        raise ValueError(f"{path}: some rows have fewer than {n_fields} fields.")
    return rows


def _domain(values):
    """Documented values as categories: integers, sorted, when every value is a code."""
    if all(value.isdigit() for value in values):
        return sorted(int(value) for value in values)
    return list(values)


def to_frame(rows, columns, domains, source):
    """Convert string rows to typed columns, checking them against the documented values.

    Parameters
    ----------
    rows : pandas.DataFrame
        Output of :func:`read_rows`.
    columns : list of str
        Names for the columns of ``rows``, in order.
    domains : dict
        Column name to ``"int"`` or ``"float"`` (numeric column) or to the list of its
        documented values (categorical column; ``?`` becomes missing). A value list made
        only of digit strings becomes sorted integer categories.
    source : str
        Names the file that documents the values, for error messages.

    Returns
    -------
    frame : pandas.DataFrame
        Numeric columns as int64/float64, the others as ``category`` with the documented
        categories.
    """
    data = {}
    for index, name in enumerate(columns):
        values = rows[index]
        domain = domains[name]
        if isinstance(domain, str):
            if (values == MISSING).any():
                raise ValueError(f"Column {name!r} is numeric but has missing values.")
            data[name] = pd.to_numeric(values).astype(domain + "64")
            continue
        categories = _domain(domain)
        present = values[values != MISSING]
        unknown = set(present.unique()) - set(domain)
        if unknown:
            raise ValueError(
                f"Column {name!r} has values that {source} does not document: "
                f"{sorted(unknown)[:10]}."
            )
        if isinstance(categories[0], int):
            codes = present.astype("int64").to_numpy()
            present = pd.Series(codes, index=present.index)
        categorical = pd.Categorical(present, categories=categories)
        data[name] = pd.Series(categorical, index=present.index).reindex(rows.index)
    return pd.DataFrame(data, index=rows.index)


def make_bunch(frame, *, feature_names, target_name, as_frame, return_X_y, descr, **extra):
    """Assemble the scikit-learn style result of a tabular loader.

    Parameters
    ----------
    frame : pandas.DataFrame
        Features and target.
    feature_names : list of str
        Feature columns, in order.
    target_name : str
        Target column.
    as_frame : bool
        Return pandas objects, or numpy arrays (``data`` as an object array).
    return_X_y : bool
        Return ``(data, target)`` instead of a Bunch.
    descr : str
        The DESCR text.
    **extra
        Further Bunch entries.

    Returns
    -------
    bunch : sklearn.utils.Bunch or tuple
    """
    frame = frame.reset_index(drop=True)
    X = frame[feature_names]
    y = frame[target_name]
    if not as_frame:
        X = X.to_numpy(dtype=object)
        y = y.to_numpy(dtype=object)
    if return_X_y:
        return X, y
    categorical = [
        name for name in feature_names if isinstance(frame[name].dtype, pd.CategoricalDtype)
    ]
    return Bunch(
        data=X,
        target=y,
        frame=frame if as_frame else None,
        feature_names=list(feature_names),
        target_names=[target_name],
        categorical_features=categorical,
        categories={name: frame[name].cat.categories.tolist() for name in categorical},
        DESCR=descr,
        **extra,
    )


def drop_rows_with_missing(frame, feature_names, *arrays):
    """Drop the rows with a missing feature from ``frame`` and from each array."""
    keep = frame[feature_names].notna().all(axis=1).to_numpy()
    return (frame[keep], *(np.asarray(array)[keep] for array in arrays))
