"""The parsers on small inputs that reproduce the files' quirks (no data files needed)."""

import gzip

import numpy as np
import pandas as pd
import pytest

from skdp.datasets._tabular import parse_names, read_rows, to_frame
from skdp.datasets._transactions import _parse_transactions, _to_csr


def _transactions(text):
    rows, values, n_rows = _parse_transactions(text, "toy")
    items, columns = np.unique(values, return_inverse=True)
    X = _to_csr(rows, columns.reshape(-1), n_rows, len(items))
    return items.tolist(), X.toarray().astype(int).tolist()


def test_transactions_crlf_trailing_spaces_empty_lines_and_no_final_newline():
    items, rows = _transactions(b"3 1 3 \r\n\r\n17 \r\n7")
    assert items == [1, 3, 7, 17]
    assert rows == [[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
    assert _transactions(b"12 5 \n2 \n") == ([2, 5, 12], [[0, 1, 1], [1, 0, 0]])
    assert _transactions(b"") == ([], [])


@pytest.mark.parametrize("text", [b"1 2,3\n", b"1 -2\n", b"1\t2\n", b"1 2.0\n"])
def test_transactions_reject_other_bytes(text):
    with pytest.raises(ValueError, match="toy: unexpected byte"):
        _parse_transactions(text, "toy")


def test_parse_names_skips_comments_and_strips_values():
    text = (
        "| comment: not an attribute.\n\n>50K, <=50K.\n\n"
        "age: continuous.\n| weight: ignore.\n"
        "job: Handlers etc , Sales, Other.\nyear: 94, 95.\n"
    )
    labels, attributes = parse_names(text)
    assert labels == [">50K", "<=50K"]
    assert attributes == {
        "age": None,
        "job": ["Handlers etc", "Sales", "Other"],
        "year": ["94", "95"],
    }
    with pytest.raises(ValueError, match="Unexpected line"):
        parse_names(">50K, <=50K.\nage continuous\n")


def test_read_rows_handles_separator_spaces_header_and_blank_lines(tmp_path):
    path = tmp_path / "toy.test.gz"
    path.write_bytes(gzip.compress(b"|1x3 Cross validator\n1, A b , ?, x.\n\n2, C, NA, y.\n\n"))
    rows = read_rows(path, 4, header_prefix="|")
    assert rows.to_numpy().tolist() == [["1", "A b", "?", "x."], ["2", "C", "NA", "y."]]
    with pytest.raises(ValueError, match="first line starting with"):
        read_rows(path, 4, header_prefix="#")
    short = tmp_path / "short.data"
    short.write_text("1, a, b\n2, c\n")
    with pytest.raises(ValueError, match="fewer than 3 fields"):
        read_rows(short, 3)


def test_to_frame_types_missing_values_and_documented_categories():
    rows = pd.DataFrame({0: ["1", "2", "3"], 1: ["b", "?", "a"], 2: ["7", "3", "3"]})
    domains = {"n": "int", "c": ["b", "a", "z"], "code": ["7", "3", "10"]}
    frame = to_frame(rows, ["n", "c", "code"], domains, "toy.names")
    assert frame["n"].dtype == "int64" and frame["n"].tolist() == [1, 2, 3]
    assert frame["c"].cat.categories.tolist() == ["b", "a", "z"], "documented order, unseen kept"
    assert frame["c"].isna().tolist() == [False, True, False]
    assert frame["code"].cat.categories.tolist() == [3, 7, 10], "numeric codes: sorted ints"
    rows.loc[2, 1] = "q"
    with pytest.raises(
        ValueError, match=r"Column 'c' has values that toy.names does not document: \['q'\]"
    ):
        to_frame(rows, ["n", "c", "code"], domains, "toy.names")
    rows.loc[0, 0] = "?"
    with pytest.raises(ValueError, match="numeric but has missing"):
        to_frame(rows, ["n", "c", "code"], domains, "toy.names")
