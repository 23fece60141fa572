"""The tabular loaders on the real files: counts, names, dtypes, categories, options."""

import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from skdp.datasets import _adult, _census_income, _german_credit
from skdp.datasets._adult import fetch_adult
from skdp.datasets._base import RemoteFile, _file_sha256
from skdp.datasets._census_income import fetch_census_income
from skdp.datasets._german_credit import fetch_german_credit
from skdp.datasets._transactions import fetch_fimi, fetch_msnbc

ADULT_FILES = ("adult/adult.data", "adult/adult.test", "adult/adult.names")
CENSUS_TEST_FILES = (
    "census-income-kdd/census-income.test.gz",
    "census-income-kdd/census-income.names",
)
GERMAN_FILES = ("german-credit/german.data",)

ADULT_NUMERIC = [
    "age",
    "fnlwgt",
    "education-num",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
]
CENSUS_NUMERIC = [
    "age",
    "wage_per_hour",
    "capital_gains",
    "capital_losses",
    "dividends_from_stocks",
    "num_persons_worked_for_employer",
    "weeks_worked_in_year",
]


@pytest.fixture(scope="module")
def adult(require):
    return fetch_adult(data_home=require(*ADULT_FILES), download_if_missing=False)


@pytest.fixture(scope="module")
def census_test(require):
    home = require(*CENSUS_TEST_FILES)
    return fetch_census_income(data_home=home, subset="test", download_if_missing=False)


# --- Adult ------------------------------------------------------------------------------


def test_adult_shape_names_and_dtypes(adult):
    assert adult.data.shape == (48842, 14)
    assert adult.feature_names == [
        *["age", "workclass", "fnlwgt", "education", "education-num", "marital-status"],
        *["occupation", "relationship", "race", "sex", "capital-gain", "capital-loss"],
        *["hours-per-week", "native-country"],
    ]
    assert adult.target_names == ["class"]
    assert list(adult.frame.columns) == [*adult.feature_names, "class"]
    for name in adult.feature_names:
        expected = "int64" if name in ADULT_NUMERIC else "category"
        assert adult.data[name].dtype == expected, name
    assert sorted(adult.categorical_features) == sorted(
        set(adult.feature_names) - set(ADULT_NUMERIC)
    )
    assert list(adult.target.cat.categories) == ["<=50K", ">50K"]


def test_adult_splits_and_label_balance(adult):
    assert Counter(adult.split) == {"train": 32561, "test": 16281}
    assert list(adult.split[:32561]) == ["train"] * 32561, "training rows come first"
    counts = pd.crosstab(adult.split, adult.target)
    assert counts.loc["train"].to_dict() == {"<=50K": 24720, ">50K": 7841}
    assert counts.loc["test"].to_dict() == {"<=50K": 12435, ">50K": 3846}  # periods removed


def test_adult_missing_values(adult):
    missing = adult.data.isna().groupby(adult.split).sum()
    missing = missing.loc[:, missing.any()]
    assert missing.to_dict() == {
        "workclass": {"test": 963, "train": 1836},
        "occupation": {"test": 966, "train": 1843},
        "native-country": {"test": 274, "train": 583},
    }
    assert not (adult.frame.astype(str) == "?").any(axis=None)


def test_adult_rows_are_parsed_field_by_field(adult):
    first_test = adult.frame.iloc[32561]  # the line after "|1x3 Cross validator"
    assert first_test.to_dict() == {
        **{"age": 25, "workclass": "Private", "fnlwgt": 226802, "education": "11th"},
        **{"education-num": 7, "marital-status": "Never-married"},
        **{"occupation": "Machine-op-inspct", "relationship": "Own-child", "race": "Black"},
        **{"sex": "Male", "capital-gain": 0, "capital-loss": 0, "hours-per-week": 40},
        **{"native-country": "United-States", "class": "<=50K"},
    }


def test_adult_categories_are_the_documented_ones(adult, require):
    assert adult.categories["workclass"] == [
        *["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov"],
        *["State-gov", "Without-pay", "Never-worked"],
    ]
    assert adult.categories["sex"] == ["Female", "Male"]
    assert len(adult.categories["native-country"]) == 41
    assert len(adult.categories["education"]) == 16
    for name, categories in adult.categories.items():
        assert list(adult.data[name].cat.categories) == categories
    # documented but never observed in the test split: still a category there
    test = fetch_adult(data_home=require(*ADULT_FILES), subset="test", download_if_missing=False)
    assert "Holand-Netherlands" in test.data["native-country"].cat.categories
    assert (test.data["native-country"] == "Holand-Netherlands").sum() == 0


def test_adult_drop_missing(require):
    home = require(*ADULT_FILES)
    bunch = fetch_adult(data_home=home, drop_missing=True, download_if_missing=False)
    assert bunch.data.shape == (45222, 14)
    assert Counter(bunch.split) == {"train": 30162, "test": 15060}
    assert not bunch.frame.isna().any(axis=None)
    assert bunch.frame.index.equals(pd.RangeIndex(45222))


def test_adult_subsets_numpy_and_return_X_y(require):
    home = require(*ADULT_FILES)
    train = fetch_adult(data_home=home, subset="train", as_frame=False, download_if_missing=False)
    assert isinstance(train.data, np.ndarray) and train.data.dtype == object
    assert train.data.shape == (32561, 14) and train.frame is None
    assert list(train.data[0]) == [
        *[39, "State-gov", 77516, "Bachelors", 13, "Never-married", "Adm-clerical"],
        *["Not-in-family", "White", "Male", 2174, 0, 40, "United-States"],
    ]
    assert Counter(train.target) == {"<=50K": 24720, ">50K": 7841}
    n_missing = sum(isinstance(v, float) and np.isnan(v) for v in train.data[:, 1])
    assert n_missing == 1836
    X, y = fetch_adult(data_home=home, subset="test", return_X_y=True, download_if_missing=False)
    assert isinstance(X, pd.DataFrame) and X.shape == (16281, 14)
    assert isinstance(y, pd.Series) and y.name == "class" and len(y) == 16281


def test_adult_rejects_undocumented_values(require, tmp_path, monkeypatch):
    home = require(*ADULT_FILES)
    (tmp_path / "adult").mkdir()
    (tmp_path / "adult" / "adult.names").write_bytes((home / "adult/adult.names").read_bytes())
    data = (home / "adult/adult.data").read_bytes().replace(b"State-gov", b"Freelance", 1)
    (tmp_path / "adult" / "adult.data").write_bytes(data)
    edited = RemoteFile(
        "adult/adult.data", "https://example.org/x", _file_sha256(tmp_path / "adult/adult.data")
    )
    monkeypatch.setattr(_adult, "ADULT_DATA", edited)
    with pytest.raises(ValueError, match=r"'workclass'.*'Freelance'"):
        fetch_adult(data_home=tmp_path, subset="train", download_if_missing=False)


@pytest.mark.parametrize("subset", ["training", "", None, "ALL"])
def test_invalid_subset(subset):
    for fetch in (fetch_adult, fetch_census_income):
        with pytest.raises(ValueError, match=r"subset must be 'train', 'test' or 'all'"):
            fetch(subset=subset, download_if_missing=False)


# --- Census-Income (KDD) ----------------------------------------------------------------


def test_census_test_shape_names_dtypes(census_test):
    assert census_test.data.shape == (99762, 40)
    assert census_test.feature_names == _census_income.FEATURE_NAMES
    names = census_test.feature_names
    assert names[:5] == [
        "age",
        "class_of_worker",
        "detailed_industry_recode",
        "detailed_occupation_recode",
        "education",
    ]
    assert names[23:25] == [
        "detailed_household_summary_in_household",
        "migration_code_change_in_msa",
    ]
    assert names[-4:] == [
        "fill_inc_questionnaire_for_veterans_admin",
        "veterans_benefits",
        "weeks_worked_in_year",
        "year",
    ]
    assert "instance_weight" not in census_test.frame.columns
    for name in names:
        expected = "int64" if name in CENSUS_NUMERIC else "category"
        assert census_test.data[name].dtype == expected, name
    assert census_test.target.value_counts().to_dict() == {"- 50000": 93576, "50000+": 6186}
    assert list(census_test.target.cat.categories) == ["- 50000", "50000+"]
    assert Counter(census_test.split) == {"test": 99762}


def test_census_sample_weight_is_the_instance_weight(census_test):
    weight = census_test.sample_weight
    assert weight.dtype == np.float64 and weight.shape == (99762,)
    assert list(weight[:3]) == [1032.38, 1462.33, 1601.75]
    assert weight.sum() == pytest.approx(173540272.61, abs=0.01)
    assert weight.min() == 43.26


def test_census_missing_values_and_categories(census_test):
    data = census_test.data
    missing = data.isna().sum()
    assert missing[missing > 0].to_dict() == {
        "state_of_previous_residence": 330,
        **dict.fromkeys([n for n in data.columns if n.startswith("migration_")], 49946),
        "country_of_birth_father": 3429,
        "country_of_birth_mother": 3072,
        "country_of_birth_self": 1764,
    }
    assert (data.loc[data["migration_code_change_in_msa"].isna(), "year"] == 95).all()
    assert (data["hispanic_origin"] == "NA").sum() == 405, "'NA' is a documented value"
    assert census_test.categories["year"] == [94, 95]
    assert census_test.categories["detailed_industry_recode"] == list(range(52))
    assert census_test.categories["detailed_occupation_recode"] == list(range(47))
    assert len(census_test.categories["state_of_previous_residence"]) == 50
    assert "Foreign born- Not a citizen of U S" in census_test.categories["citizenship"]
    household = census_test.categories["detailed_household_and_family_stat"]
    assert (
        len(household) == 38
        and (data["detailed_household_and_family_stat"] == household[21]).sum() == 0
    )
    assert data.iloc[0]["education"] == "1st 2nd 3rd or 4th grade"
    assert data.iloc[0]["detailed_industry_recode"] == 6


def test_census_drop_missing_numpy_and_return_X_y(require):
    home = require(*CENSUS_TEST_FILES)
    bunch = fetch_census_income(
        data_home=home, subset="test", drop_missing=True, as_frame=False, download_if_missing=False
    )
    assert bunch.data.shape == (47391, 40) and bunch.data.dtype == object and bunch.frame is None
    assert bunch.sample_weight.shape == (47391,) and bunch.split.shape == (47391,)
    assert Counter(bunch.target) == {"- 50000": 44708, "50000+": 2683}
    assert set(bunch.data[:, -1]) == {94}
    X, y = fetch_census_income(
        data_home=home, subset="test", return_X_y=True, download_if_missing=False
    )
    assert X.shape == (99762, 40) and y.name == "income"


def test_census_all_needs_the_training_file(require, tmp_path):
    home = require(*CENSUS_TEST_FILES)
    for path in CENSUS_TEST_FILES:
        (tmp_path / path).parent.mkdir(exist_ok=True)
        (tmp_path / path).symlink_to(home / path)
    with pytest.raises(FileNotFoundError) as info:
        fetch_census_income(data_home=tmp_path, download_if_missing=False)
    message = str(info.value)
    assert str(tmp_path / "census-income-kdd/census-income.data.gz") in message
    assert "census-income-mld/census-income.data.gz" in message
    assert "subset='test'" in message


# --- German Credit ----------------------------------------------------------------------


def test_german_credit(require):
    bunch = fetch_german_credit(data_home=require(*GERMAN_FILES), download_if_missing=False)
    assert bunch.data.shape == (1000, 20)
    assert bunch.target.value_counts().to_dict() == {"good": 700, "bad": 300}
    assert list(bunch.target.cat.categories) == ["good", "bad"]
    numeric = [n for n in bunch.feature_names if bunch.data[n].dtype == "int64"]
    assert numeric == [
        *["duration_months", "credit_amount", "installment_rate", "residence_since"],
        *["age", "existing_credits", "people_liable"],
    ]
    assert len(bunch.categorical_features) == 13
    assert bunch.data.iloc[0].to_dict()["checking_account_status"] == "A11"
    assert bunch.data.iloc[0].to_dict()["credit_amount"] == 1169
    assert bunch.data["purpose"].value_counts()["A47"] == 0, "documented, never used"
    assert bunch.data["personal_status_sex"].value_counts()["A95"] == 0
    assert bunch.categories["purpose"][-1] == "A410"
    assert bunch.code_meanings["housing"] == {"A151": "rent", "A152": "own", "A153": "for free"}
    X, y = fetch_german_credit(
        data_home=require(*GERMAN_FILES),
        as_frame=False,
        return_X_y=True,
        download_if_missing=False,
    )
    assert X.shape == (1000, 20) and X.dtype == object and Counter(y) == {"good": 700, "bad": 300}


def test_german_codes_match_german_doc(require):
    doc = (require("german-credit/german.doc") / "german-credit/german.doc").read_text("latin-1")
    blocks = re.split(r"\nAtt\w*\s+\d+:", doc.split("8.  Cost Matrix")[0])[1:]
    assert len(blocks) == 20
    for name, block in zip(_german_credit.FEATURE_NAMES, blocks, strict=True):
        codes = re.findall(r"^\s*(A\d+)\s*:", block, flags=re.MULTILINE)
        documented = _german_credit.ATTRIBUTES[name]
        if "(numerical)" in block:
            assert documented is None and not codes, name
        else:
            assert list(documented) == codes, name


# --- MSNBC and FIMI ---------------------------------------------------------------------

MSNBC_CATEGORIES = [
    *["frontpage", "news", "tech", "local", "opinion", "on-air", "misc", "weather"],
    *["msn-news", "health", "living", "business", "msn-sports", "sports", "summary"],
    *["bbs", "travel"],
]


@pytest.fixture(scope="module")
def msnbc(require):
    return fetch_msnbc(data_home=require("msnbc/msnbc990928.seq.gz"), download_if_missing=False)


def test_msnbc_sessions_as_category_sets(msnbc):
    X = msnbc.data
    assert X.format == "csr" and X.dtype == bool and X.shape == (989818, 17)
    assert msnbc.feature_names == MSNBC_CATEGORIES
    assert X.nnz == 1699303, "distinct (session, category) pairs"
    assert np.diff(X.indptr).min() == 1, "every session viewed at least one page"
    assert np.asarray(X.sum(axis=0)).ravel().tolist() == [
        *[313181, 175286, 121948, 121719, 24987, 217101, 80514, 95615, 90192, 50606],
        *[57597, 112183, 76948, 119138, 29200, 2082, 11006],
    ]
    # the first sequences are "1 1", "2", "3 2 2 4 2 2 2 3 3"; the last one is "6"
    assert X[0].indices.tolist() == [0]
    assert X[1].indices.tolist() == [1]
    assert X[2].indices.tolist() == [1, 2, 3]
    assert X[989817].indices.tolist() == [5]
    assert msnbc.frame is None and "msnbc" in msnbc.DESCR.lower()


def test_msnbc_as_frame(require, msnbc):
    home = require("msnbc/msnbc990928.seq.gz")
    frame = fetch_msnbc(data_home=home, as_frame=True, download_if_missing=False).data
    assert frame.shape == (989818, 17) and list(frame.columns) == MSNBC_CATEGORIES
    assert all(dtype == pd.SparseDtype(bool, False) for dtype in frame.dtypes)
    # (summing sparse bool columns gives a bool on pandas < 2.3: count through scipy)
    counts = np.asarray(frame.sparse.to_coo().tocsr().sum(axis=0)).ravel()
    assert counts.tolist() == np.asarray(msnbc.data.sum(axis=0)).ravel().tolist()


@pytest.mark.parametrize(
    ("name", "n_rows", "n_items", "nnz", "lengths"),
    [
        ("mushroom", 8124, 119, 186852, (23, 23)),
        ("chess", 3196, 75, 118252, (37, 37)),
        ("retail", 88162, 16470, 908576, (1, 76)),
        ("T10I4D100K", 100000, 870, 1010228, (1, 29)),
    ],
)
def test_fimi_counts(require, name, n_rows, n_items, nnz, lengths):
    bunch = fetch_fimi(name, data_home=require(f"fimi/{name}.dat"), download_if_missing=False)
    X = bunch.data
    assert X.format == "csr" and X.dtype == bool
    assert X.shape == (n_rows, n_items) and X.nnz == nnz
    row_lengths = np.diff(X.indptr)
    assert (row_lengths.min(), row_lengths.max()) == lengths
    ids = [int(item) for item in bunch.feature_names]
    assert ids == sorted(ids) and len(set(ids)) == n_items
    assert bunch.name == name


def test_fimi_items_map_to_columns(require):
    bunch = fetch_fimi("chess", data_home=require("fimi/chess.dat"), download_if_missing=False)
    first = [int(bunch.feature_names[j]) for j in bunch.data[0].indices]
    assert first == [*range(1, 30, 2), 31, *range(34, 75, 2)]  # first line of chess.dat
    frame = fetch_fimi(
        "chess", data_home=require("fimi/chess.dat"), as_frame=True, download_if_missing=False
    ).data
    assert list(frame.columns) == bunch.feature_names
    assert frame.iloc[0][frame.iloc[0]].index.tolist() == [str(i) for i in first]


@pytest.mark.parametrize("name", ["Mushroom", "kosarak.dat", "", "adult"])
def test_fimi_unknown_name(name):
    with pytest.raises(
        ValueError, match=rf"Unknown FIMI dataset '{re.escape(name)}'.*mushroom, chess"
    ):
        fetch_fimi(name, download_if_missing=False)
