"""Loader for the Statlog (German Credit Data) dataset."""

import pandas as pd

from skdp.datasets._base import RemoteFile, fetch_file, get_data_home, load_descr
from skdp.datasets._tabular import make_bunch, read_rows, to_frame

__all__ = ["fetch_german_credit"]

_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/german/"
GERMAN_DATA = RemoteFile(
    "german-credit/german.data",
    _URL + "german.data",
    "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871",
)

# The 20 attributes of german.doc, in file order: numeric ones map to None, qualitative
# ones to their documented codes and meanings (german.doc's wording, whitespace tidied).
ATTRIBUTES = {
    "checking_account_status": {
        "A11": "... < 0 DM",
        "A12": "0 <= ... < 200 DM",
        "A13": "... >= 200 DM / salary assignments for at least 1 year",
        "A14": "no checking account",
    },
    "duration_months": None,
    "credit_history": {
        "A30": "no credits taken/ all credits paid back duly",
        "A31": "all credits at this bank paid back duly",
        "A32": "existing credits paid back duly till now",
        "A33": "delay in paying off in the past",
        "A34": "critical account/ other credits existing (not at this bank)",
    },
    "purpose": {
        "A40": "car (new)",
        "A41": "car (used)",
        "A42": "furniture/equipment",
        "A43": "radio/television",
        "A44": "domestic appliances",
        "A45": "repairs",
        "A46": "education",
        "A47": "(vacation - does not exist?)",
        "A48": "retraining",
        "A49": "business",
        "A410": "others",
    },
    "credit_amount": None,
    "savings": {
        "A61": "... < 100 DM",
        "A62": "100 <= ... < 500 DM",
        "A63": "500 <= ... < 1000 DM",
        "A64": ".. >= 1000 DM",
        "A65": "unknown/ no savings account",
    },
    "employment_since": {
        "A71": "unemployed",
        "A72": "... < 1 year",
        "A73": "1 <= ... < 4 years",
        "A74": "4 <= ... < 7 years",
        "A75": ".. >= 7 years",
    },
    "installment_rate": None,
    "personal_status_sex": {
        "A91": "male : divorced/separated",
        "A92": "female : divorced/separated/married",
        "A93": "male : single",
        "A94": "male : married/widowed",
        "A95": "female : single",
    },
    "other_debtors": {"A101": "none", "A102": "co-applicant", "A103": "guarantor"},
    "residence_since": None,
    "property": {
        "A121": "real estate",
        "A122": "if not A121 : building society savings agreement/ life insurance",
        "A123": "if not A121/A122 : car or other, not in attribute 6",
        "A124": "unknown / no property",
    },
    "age": None,
    "other_installment_plans": {"A141": "bank", "A142": "stores", "A143": "none"},
    "housing": {"A151": "rent", "A152": "own", "A153": "for free"},
    "existing_credits": None,
    "job": {
        "A171": "unemployed/ unskilled - non-resident",
        "A172": "unskilled - resident",
        "A173": "skilled employee / official",
        "A174": "management/ self-employed/ highly qualified employee/ officer",
    },
    "people_liable": None,
    "telephone": {"A191": "none", "A192": "yes, registered under the customers name"},
    "foreign_worker": {"A201": "yes", "A202": "no"},
}
FEATURE_NAMES = list(ATTRIBUTES)
TARGET_NAME = "credit_risk"
TARGET_CATEGORIES = ["good", "bad"]  # class 1 and class 2 of german.data


def fetch_german_credit(
    *, data_home=None, as_frame=True, return_X_y=False, download_if_missing=True
):
    """Load the Statlog German Credit dataset (1,000 loan applicants, good or bad risk).

    Reads ``german-credit/german.data`` (the original symbolic version, 20 attributes
    and the class, separated by spaces) from the data home, verifying it by sha256 and
    downloading it from the UCI repository when it is missing. The data has no missing
    values and no train/test split.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder of the dataset files; see :func:`skdp.datasets.get_data_home`.
    as_frame : bool, default=True
        Return ``data`` as a DataFrame and ``target`` as a Series, with ``frame`` holding
        both. When False, ``data`` is a numpy object array, ``target`` a numpy object
        array and ``frame`` is None.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    download_if_missing : bool, default=True
        Download a missing file. When False, a missing file raises FileNotFoundError.

    Returns
    -------
    bunch : sklearn.utils.Bunch
        ``data`` (1000, 20) with the attributes of ``german.doc`` in its order, named
        ``checking_account_status``, ``duration_months``, ``credit_history``,
        ``purpose``, ``credit_amount``, ``savings`` (savings account/bonds),
        ``employment_since`` (present employment since), ``installment_rate``
        (installment rate in percentage of disposable income), ``personal_status_sex``,
        ``other_debtors`` (other debtors / guarantors), ``residence_since`` (present
        residence since), ``property``, ``age`` (years), ``other_installment_plans``,
        ``housing``, ``existing_credits`` (number of existing credits at this bank),
        ``job``, ``people_liable`` (number of people being liable to provide maintenance
        for), ``telephone`` and ``foreign_worker``. The seven numeric attributes are
        int64. The 13 qualitative ones keep the file's codes (``"A11"``, ...) as
        categories: every code that ``german.doc`` documents, in its order, including
        the two that never occur (``A47`` in ``purpose`` and ``A95`` in
        ``personal_status_sex``). ``code_meanings`` maps each qualitative attribute to
        ``{code: meaning}``. ``target`` (``target_names`` is ``["credit_risk"]``) is
        ``"good"`` (class 1, 700 rows) or ``"bad"`` (class 2, 300 rows), categories in
        that order. Also ``frame``, ``feature_names``, ``categorical_features``,
        ``categories`` and ``DESCR``. ``german.doc`` asks for a cost matrix: predicting
        good for a bad customer costs 5, the reverse costs 1.
    (data, target) : tuple
        When ``return_X_y`` is True.

    Raises
    ------
    ValueError
        For a value that ``german.doc`` does not document.
    OSError
        When the file is missing and cannot be downloaded, or fails its checksum; the
        message says where to put it.

    Examples
    --------
    >>> from skdp.datasets import fetch_german_credit
    >>> german = fetch_german_credit()
    >>> german.data.shape
    (1000, 20)
    >>> german.data[["duration_months", "purpose", "credit_amount", "housing"]].head(3)
       duration_months purpose  credit_amount housing
    0                6     A43           1169    A152
    1               48     A43           5951    A152
    2               12     A46           2096    A152
    >>> german.code_meanings["housing"]
    {'A151': 'rent', 'A152': 'own', 'A153': 'for free'}
    >>> german.target.value_counts().to_dict()
    {'good': 700, 'bad': 300}
    """
    data_home = get_data_home(data_home)
    path = fetch_file(GERMAN_DATA, data_home, download_if_missing)
    rows = read_rows(path, len(FEATURE_NAMES) + 1, sep=" ")
    domains = {name: "int" if codes is None else list(codes) for name, codes in ATTRIBUTES.items()}
    domains[TARGET_NAME] = ["1", "2"]
    frame = to_frame(rows, [*FEATURE_NAMES, TARGET_NAME], domains, "german.doc")
    codes = frame[TARGET_NAME].cat.codes  # categories [1, 2]
    frame[TARGET_NAME] = pd.Categorical.from_codes(codes, categories=TARGET_CATEGORIES)
    return make_bunch(
        frame,
        feature_names=FEATURE_NAMES,
        target_name=TARGET_NAME,
        as_frame=as_frame,
        return_X_y=return_X_y,
        descr=load_descr("german_credit"),
        code_meanings={name: dict(codes) for name, codes in ATTRIBUTES.items() if codes},
    )
