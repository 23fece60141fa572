"""Loader for the UCI Census-Income (KDD) dataset."""

import re

import numpy as np
import pandas as pd

from skdp.datasets._base import RemoteFile, fetch_file, get_data_home, load_descr
from skdp.datasets._tabular import (
    check_subset,
    drop_rows_with_missing,
    make_bunch,
    parse_names,
    read_rows,
    to_frame,
)

__all__ = ["fetch_census_income"]

_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/census-income-mld/"
# UCI's gzip file of the training split was not available to check; its unpacked content
# (103,874,469 bytes, 199,523 rows) has the sha256 recorded by two independent copies.
CENSUS_DATA = RemoteFile(
    "census-income-kdd/census-income.data.gz",
    _URL + "census-income.data.gz",
    None,
    content_sha256="3676a81db7d3528f3f8b9f3c699d0f0aa28db45e6e994fa0b8ed38327539ee86",
)
CENSUS_TEST = RemoteFile(
    "census-income-kdd/census-income.test.gz",
    _URL + "census-income.test.gz",
    "5ac4cacd3ca9f1ecb10de1a0a41e4ac68fdc419e3fec190f5c0c6cc03b2ea659",
    content_sha256="98402b1ab879573d0a7f38a699a40258080e25e33d3401e7bf9c96d3fa0fab8c",
)
CENSUS_NAMES = RemoteFile(
    "census-income-kdd/census-income.names",
    _URL + "census-income.names",
    "d6fea52977f68504ab3149351980458e09bfc3116808da8986646710d254ef98",
)

FEATURE_NAMES = [
    "age",
    "class_of_worker",
    "detailed_industry_recode",
    "detailed_occupation_recode",
    "education",
    "wage_per_hour",
    "enroll_in_edu_inst_last_wk",
    "marital_stat",
    "major_industry_code",
    "major_occupation_code",
    "race",
    "hispanic_origin",
    "sex",
    "member_of_a_labor_union",
    "reason_for_unemployment",
    "full_or_part_time_employment_stat",
    "capital_gains",
    "capital_losses",
    "dividends_from_stocks",
    "tax_filer_stat",
    "region_of_previous_residence",
    "state_of_previous_residence",
    "detailed_household_and_family_stat",
    "detailed_household_summary_in_household",
    "migration_code_change_in_msa",
    "migration_code_change_in_reg",
    "migration_code_move_within_reg",
    "live_in_this_house_1_year_ago",
    "migration_prev_res_in_sunbelt",
    "num_persons_worked_for_employer",
    "family_members_under_18",
    "country_of_birth_father",
    "country_of_birth_mother",
    "country_of_birth_self",
    "citizenship",
    "own_business_or_self_employed",
    "fill_inc_questionnaire_for_veterans_admin",
    "veterans_benefits",
    "weeks_worked_in_year",
    "year",
]
WEIGHT_NAME = "instance_weight"
WEIGHT_POSITION = 24  # 0-based field of the instance weight in the data files
TARGET_NAME = "income"
TARGET_CATEGORIES = ["- 50000", "50000+"]
COLUMNS = [*FEATURE_NAMES[:WEIGHT_POSITION], WEIGHT_NAME, *FEATURE_NAMES[WEIGHT_POSITION:]]


def _snake(name):
    return re.sub(r"[^a-z0-9]+", "_", name.lower().replace("'", "")).strip("_")


def fetch_census_income(
    *,
    data_home=None,
    subset="all",
    drop_missing=False,
    as_frame=True,
    return_X_y=False,
    download_if_missing=True,
):
    """Load the UCI Census-Income (KDD) dataset (1994-95 Current Population Surveys).

    Reads ``census-income-kdd/census-income.data.gz`` (training split, 199,523 rows),
    ``census-income-kdd/census-income.test.gz`` (test split, 99,762 rows) and
    ``census-income-kdd/census-income.names`` from the data home, verifying each by
    sha256 and downloading it from the UCI repository when it is missing.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder of the dataset files; see :func:`skdp.datasets.get_data_home`.
    subset : {"all", "train", "test"}, default="all"
        Which split to load. ``"all"`` needs both files (the training rows come first;
        ``bunch.split`` tells them apart): when the training file is absent and cannot
        be downloaded, it raises rather than silently returning the test split only.
        Pass ``subset="test"`` to work with the test file alone.
    drop_missing : bool, default=False
        Drop the rows with a missing value (``?`` in the files). Note that the four
        ``migration_*`` attributes are missing for every record of 1995 (``year`` 95),
        half of the data, so this keeps mostly 1994 records.
    as_frame : bool, default=True
        Return ``data`` as a DataFrame and ``target`` as a Series, with ``frame`` holding
        both. When False, ``data`` is a numpy object array (missing values are
        ``np.nan``), ``target`` a numpy object array and ``frame`` is None.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch (``sample_weight`` is then not
        returned).
    download_if_missing : bool, default=True
        Download missing files. When False, a missing file raises FileNotFoundError.

    Returns
    -------
    bunch : sklearn.utils.Bunch
        ``data`` has the 40 attributes of ``census-income.names``, named by its
        spelling in snake case (``class of worker`` becomes ``class_of_worker``,
        ``fill inc questionnaire for veteran's admin`` becomes
        ``fill_inc_questionnaire_for_veterans_admin``; see ``feature_names``). The seven
        continuous attributes (``age``, ``wage_per_hour``, ``capital_gains``,
        ``capital_losses``, ``dividends_from_stocks``,
        ``num_persons_worked_for_employer``, ``weeks_worked_in_year``) are int64. The 33
        nominal ones have dtype ``category`` with the values documented in
        ``census-income.names`` (surrounding spaces removed; ``NA`` in
        ``hispanic_origin`` is a documented value, not a missing one). Nominal
        attributes coded by numbers (``detailed_industry_recode``,
        ``detailed_occupation_recode``, ``own_business_or_self_employed``,
        ``veterans_benefits``, ``year``) have integer categories, sorted. ``target``
        (``target_names`` is ``["income"]``) holds ``"- 50000"`` (below $50,000) or
        ``"50000+"``: the file's labels without their final period. The instance
        weight (field 24 of the files) is not a feature: the ``.names`` file says it
        must not be used by a classifier. It is returned as ``sample_weight``
        (float64, the number of people each record stands for). The Bunch also has
        ``frame``, ``feature_names``, ``categorical_features``, ``categories``,
        ``split`` (``"train"``/``"test"`` per row) and ``DESCR``.
    (data, target) : tuple
        When ``return_X_y`` is True.

    Raises
    ------
    ValueError
        For an invalid ``subset``, or a value that the ``.names`` file does not
        document.
    OSError
        When a file is missing and cannot be downloaded, or fails its checksum; the
        message says where to put it.

    Examples
    --------
    The test split alone (the default ``subset="all"`` adds the 199,523 training rows):

    >>> from skdp.datasets import fetch_census_income
    >>> census = fetch_census_income(subset="test")
    >>> census.data.shape
    (99762, 40)
    >>> census.data[["age", "education", "sex"]].head(3)
       age                            education     sex
    0   38             1st 2nd 3rd or 4th grade  Female
    1   44  Associates degree-occup /vocational  Female
    2    2                             Children    Male
    >>> census.target.value_counts().to_dict()
    {'- 50000': 93576, '50000+': 6186}
    >>> census.sample_weight[:3]  # people each record stands for: not a feature
    array([1032.38, 1462.33, 1601.75])
    """
    check_subset(subset)
    data_home = get_data_home(data_home)
    names = fetch_file(CENSUS_NAMES, data_home, download_if_missing)
    labels, attributes = parse_names(names.read_text(encoding="ascii"))
    if labels != TARGET_CATEGORIES or [_snake(name) for name in attributes] != COLUMNS:
        raise ValueError(f"{names} does not describe the Census-Income (KDD) attributes.")
    domains = {
        _snake(name): "int" if values is None else values for name, values in attributes.items()
    }
    domains[WEIGHT_NAME] = "float"
    domains[TARGET_NAME] = TARGET_CATEGORIES

    frames, splits = [], []
    for split, remote in [("train", CENSUS_DATA), ("test", CENSUS_TEST)]:
        if subset not in (split, "all"):
            continue
        try:
            path = fetch_file(remote, data_home, download_if_missing)
        except FileNotFoundError as exc:
            if subset != "all":
                raise
            raise FileNotFoundError(
                f"{exc} subset='all' needs both splits; pass subset='test' or "
                "subset='train' to load the split you have."
            ) from exc
        rows = read_rows(path, len(COLUMNS) + 1)
        rows[len(COLUMNS)] = rows[len(COLUMNS)].str.removesuffix(".")
        frames.append(to_frame(rows, [*COLUMNS, TARGET_NAME], domains, str(names)))
        splits.append(np.full(len(rows), split, dtype=object))
    frame = pd.concat(frames, ignore_index=True)
    split = np.concatenate(splits)
    weight = frame.pop(WEIGHT_NAME).to_numpy()
    if drop_missing:
        frame, split, weight = drop_rows_with_missing(frame, FEATURE_NAMES, split, weight)
    return make_bunch(
        frame,
        feature_names=FEATURE_NAMES,
        target_name=TARGET_NAME,
        as_frame=as_frame,
        return_X_y=return_X_y,
        descr=load_descr("census_income"),
        split=split,
        sample_weight=weight,
    )
