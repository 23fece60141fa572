"""The samples of Adult and MSNBC shipped with skdp: offline, visible, never silent.

These tests need no data files and no network: ``_urlopen`` is replaced by a function
that fails as an offline machine does (or fails the test when it must not be called).
"""

import gzip
import shutil
import urllib.error
import warnings

import numpy as np
import pytest

from skdp.datasets import _base, fetch_adult, fetch_msnbc
from skdp.datasets._sample import sample_file

NOTE = "This is the sample shipped with skdp"


def _no_network(url, timeout):
    raise AssertionError(f"the loader tried the network ({url})")


def _offline(url, timeout):
    raise urllib.error.URLError("[Errno -2] Name or service not known")


def test_adult_sample_is_read_without_data_home_or_network(tmp_path, monkeypatch):
    monkeypatch.setattr(_base, "_urlopen", _no_network)
    home = tmp_path / "never_created"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # sample=True is explicit: no warning
        adult = fetch_adult(data_home=home, sample=True)
    assert not home.exists()
    assert adult.data.shape == (9770, 14)
    assert (adult.split == "train").sum() == 6513
    assert (adult.split == "test").sum() == 3257
    # every fifth row of adult.data: rows 1 and 6 of the file
    assert adult.data.loc[0, ["age", "education", "hours-per-week"]].tolist() == [
        39,
        "Bachelors",
        40,
    ]
    assert adult.target.value_counts().to_dict() == {"<=50K": 7385, ">50K": 2385}
    # the documented categories, as for the full data
    assert adult.categories["sex"] == ["Female", "Male"]
    assert list(adult.data["workclass"].cat.categories)[:2] == ["Private", "Self-emp-not-inc"]
    assert adult.DESCR.startswith(f"**{NOTE} (9,770 rows)")
    assert "CC BY 4.0" in adult.DESCR
    X, y = fetch_adult(subset="test", drop_missing=True, return_X_y=True, sample=True)
    assert X.shape[0] == len(y) > 0
    assert X.isna().sum().sum() == 0


def test_adult_auto_falls_back_to_the_sample_with_a_warning_when_offline(tmp_path, monkeypatch):
    monkeypatch.setattr(_base, "_urlopen", _offline)
    with pytest.warns(UserWarning, match=r"sample='auto'\) uses the small sample .*9,770 rows"):
        adult = fetch_adult(data_home=tmp_path, sample="auto", drop_missing=True)
    assert adult.data.shape == (9052, 14)
    assert adult.DESCR.startswith(f"**{NOTE}")
    assert not list(tmp_path.rglob("*.part"))  # the failed download left nothing behind


def test_adult_auto_without_download_warns_and_names_the_missing_file(tmp_path, monkeypatch):
    monkeypatch.setattr(_base, "_urlopen", _no_network)
    with pytest.warns(UserWarning, match=r"adult/adult\.names is not in the data home"):
        fetch_adult(data_home=tmp_path, sample="auto", download_if_missing=False)


def test_adult_auto_reads_the_full_files_when_they_are_present(tmp_path, monkeypatch):
    # a data home holding "full" files (the sample's rows; checksums bypassed)
    monkeypatch.setattr(_base, "_urlopen", _no_network)
    monkeypatch.setattr(_base, "_check", lambda remote, path: (True, None))
    (tmp_path / "adult").mkdir()
    shutil.copy(sample_file("adult", "adult.names"), tmp_path / "adult" / "adult.names")
    for name in ["adult.data", "adult.test"]:
        with gzip.open(sample_file("adult", f"{name}.gz"), "rt") as f:
            lines = f.readlines()
        (tmp_path / "adult" / name).write_text("".join(lines[:101]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        adult = fetch_adult(data_home=tmp_path, sample="auto", subset="train")
    assert NOTE not in adult.DESCR
    assert len(adult.data) == 101  # the data home's (truncated) file, not the sample


def test_adult_auto_does_not_hide_a_corrupted_file(tmp_path, monkeypatch):
    monkeypatch.setattr(_base, "_urlopen", _no_network)
    (tmp_path / "adult").mkdir()
    (tmp_path / "adult" / "adult.names").write_text("not the file")
    with pytest.raises(_base.ChecksumMismatchError, match=r"adult\.names"):
        fetch_adult(data_home=tmp_path, sample="auto")


@pytest.mark.parametrize("sample", ["yes", "Auto", 1, None])
def test_invalid_sample_is_refused_by_name(sample):
    with pytest.raises(ValueError, match="sample must be True, False or 'auto'"):
        fetch_adult(sample=sample)
    with pytest.raises(ValueError, match="sample must be True, False or 'auto'"):
        fetch_msnbc(sample=sample)


def test_msnbc_sample_is_read_without_data_home_or_network(tmp_path, monkeypatch):
    monkeypatch.setattr(_base, "_urlopen", _no_network)
    home = tmp_path / "never_created"
    msnbc = fetch_msnbc(data_home=home, sample=np.True_)
    assert not home.exists()
    assert msnbc.data.shape == (49491, 17)
    assert msnbc.data.dtype == bool
    assert msnbc.feature_names[:3] == ["frontpage", "news", "tech"]
    assert msnbc.data[0].indices.tolist() == [0]  # session 1 of the file: frontpage
    assert msnbc.data.sum() > 49491  # sessions visit several categories
    assert msnbc.DESCR.startswith(f"**{NOTE} (49,491 sessions)")


def test_msnbc_auto_falls_back_to_the_sample_with_a_warning_when_offline(tmp_path, monkeypatch):
    monkeypatch.setattr(_base, "_urlopen", _offline)
    with pytest.warns(UserWarning, match=r"fetch_msnbc\(sample='auto'\).*49,491 sessions"):
        msnbc = fetch_msnbc(data_home=tmp_path, sample="auto", as_frame=True)
    assert msnbc.data.shape == (49491, 17)
