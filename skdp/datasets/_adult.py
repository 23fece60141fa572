"""Loader for the UCI Adult (Census Income) dataset."""

import numpy as np
import pandas as pd

from skdp.datasets._base import RemoteFile, fetch_file, get_data_home, load_descr
from skdp.datasets._sample import check_sample, sample_descr, sample_file, use_sample
from skdp.datasets._tabular import (
    check_subset,
    drop_rows_with_missing,
    make_bunch,
    parse_names,
    read_rows,
    to_frame,
)

__all__ = ["fetch_adult"]

_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/"
ADULT_DATA = RemoteFile(
    "adult/adult.data",
    _URL + "adult.data",
    "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
)
ADULT_TEST = RemoteFile(
    "adult/adult.test",
    _URL + "adult.test",
    "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
)
ADULT_NAMES = RemoteFile(
    "adult/adult.names",
    _URL + "adult.names",
    "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
)

FEATURE_NAMES = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
]
TARGET_NAME = "class"
TARGET_CATEGORIES = ["<=50K", ">50K"]
SAMPLE_ROWS = "9,770 rows"
# the shipped sample: every fifth row of each file, in the original format (gzip-compressed)
SAMPLE_FILES = {
    ADULT_NAMES: "adult.names",
    ADULT_DATA: "adult.data.gz",
    ADULT_TEST: "adult.test.gz",
}


def fetch_adult(
    *,
    data_home=None,
    subset="all",
    drop_missing=False,
    as_frame=True,
    return_X_y=False,
    download_if_missing=True,
    sample=False,
):
    """Load the UCI Adult dataset (census income above or below $50K, 48,842 people).

    Reads ``adult/adult.data`` (training split, 32,561 rows), ``adult/adult.test`` (test
    split, 16,281 rows) and ``adult/adult.names`` (which documents the values of every
    categorical attribute) from the data home, verifying each by sha256 and downloading
    it from the UCI repository when it is missing.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder of the dataset files; see :func:`skdp.datasets.get_data_home`.
    subset : {"all", "train", "test"}, default="all"
        Which split to load. ``"all"`` gives the training rows followed by the test rows;
        ``bunch.split`` tells them apart.
    drop_missing : bool, default=False
        Drop the rows with a missing value (``?`` in the files, in ``workclass``,
        ``occupation`` or ``native-country``): 45,222 rows remain for ``"all"``
        (30,162 train and 15,060 test).
    as_frame : bool, default=True
        Return ``data`` as a DataFrame and ``target`` as a Series, with ``frame`` holding
        both. When False, ``data`` is a numpy object array (missing values are
        ``np.nan``), ``target`` a numpy object array and ``frame`` is None.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    download_if_missing : bool, default=True
        Download missing files. When False, a missing file raises FileNotFoundError.
    sample : bool or "auto", default=False
        True: read the sample shipped with skdp instead, every fifth row of each file
        (6,513 train and 3,257 test rows, 9,770 in all; 9,052 without missing values),
        without the data home or the network. ``"auto"``: the full dataset when its
        files are in the data home or can be downloaded, else the sample with a
        ``UserWarning`` that says so. ``DESCR`` starts with a note when the data are
        the sample.

    Returns
    -------
    bunch : sklearn.utils.Bunch
        With ``data`` (n_samples, 14), ``target`` (labels ``"<=50K"`` and ``">50K"``;
        the periods that end the test file's labels are removed), ``frame``,
        ``feature_names`` (as spelt in ``adult.names``: ``age``, ``workclass``,
        ``fnlwgt``, ``education``, ``education-num``, ``marital-status``,
        ``occupation``, ``relationship``, ``race``, ``sex``, ``capital-gain``,
        ``capital-loss``, ``hours-per-week``, ``native-country``), ``target_names``
        (``["class"]``), ``categorical_features``, ``categories`` (feature name to its
        documented values), ``split`` (numpy array of ``"train"``/``"test"``, one per
        row) and ``DESCR``. Numeric columns are int64. Categorical columns have dtype
        ``category`` whose categories are the values documented in ``adult.names``, in
        that file's order, not the values observed in the data: they are public and
        may be used as an output domain without spending privacy budget.
    (data, target) : tuple
        When ``return_X_y`` is True.

    Raises
    ------
    ValueError
        For an invalid ``subset``, or a value that ``adult.names`` does not document.
    OSError
        When a file is missing and cannot be downloaded (unless ``sample="auto"``), or
        fails its checksum; the message says where to put it.

    Warns
    -----
    UserWarning
        With ``sample="auto"``, when the sample is used.

    Examples
    --------
    >>> from skdp.datasets import fetch_adult
    >>> adult = fetch_adult()
    >>> adult.data.shape
    (48842, 14)
    >>> adult.data[["age", "education", "sex", "hours-per-week"]].head(3)
       age  education   sex  hours-per-week
    0   39  Bachelors  Male              40
    1   50  Bachelors  Male              13
    2   38    HS-grad  Male              40
    >>> adult.target.value_counts().to_dict()
    {'<=50K': 37155, '>50K': 11687}
    >>> adult.categories["sex"]  # documented in adult.names: public
    ['Female', 'Male']
    >>> X, y = fetch_adult(subset="test", drop_missing=True, return_X_y=True)
    >>> X.shape
    (15060, 14)

    Without the data files or a network, the sample shipped with skdp:

    >>> fetch_adult(sample=True).data.shape
    (9770, 14)
    """
    check_subset(subset)
    sample = check_sample(sample)
    if sample is not True:  # the sample alone never touches the data home
        data_home = get_data_home(data_home)
    on_sample = use_sample(
        sample,
        SAMPLE_FILES,
        data_home,
        download_if_missing,
        loader="fetch_adult",
        n_rows=SAMPLE_ROWS,
    )

    def provide(remote):
        if on_sample:
            return sample_file("adult", SAMPLE_FILES[remote])
        return fetch_file(remote, data_home, download_if_missing)

    names = provide(ADULT_NAMES)
    labels, attributes = parse_names(names.read_text(encoding="ascii"))
    if sorted(labels) != sorted(TARGET_CATEGORIES) or list(attributes) != FEATURE_NAMES:
        raise ValueError(f"{names} does not describe the Adult attributes.")
    domains = {name: "int" if values is None else values for name, values in attributes.items()}
    domains[TARGET_NAME] = TARGET_CATEGORIES

    frames, splits = [], []
    for split, remote, header in [("train", ADULT_DATA, None), ("test", ADULT_TEST, "|")]:
        if subset not in (split, "all"):
            continue
        rows = read_rows(provide(remote), len(FEATURE_NAMES) + 1, header_prefix=header)
        target = len(FEATURE_NAMES)
        rows[target] = rows[target].str.removesuffix(".")
        frames.append(to_frame(rows, [*FEATURE_NAMES, TARGET_NAME], domains, str(names)))
        splits.append(np.full(len(rows), split, dtype=object))
    frame = pd.concat(frames, ignore_index=True)
    descr = load_descr("adult")
    split = np.concatenate(splits)
    if drop_missing:
        frame, split = drop_rows_with_missing(frame, FEATURE_NAMES, split)
    return make_bunch(
        frame,
        feature_names=FEATURE_NAMES,
        target_name=TARGET_NAME,
        as_frame=as_frame,
        return_X_y=return_X_y,
        descr=sample_descr(descr, SAMPLE_ROWS) if on_sample else descr,
        split=split,
    )
