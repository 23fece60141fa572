"""Data home, verification and downloads, without network: ``_urlopen`` is replaced."""

import gzip
import hashlib
import io
import urllib.error
import warnings
from pathlib import Path

import pytest

from skdp.datasets import _base, _german_credit, _transactions
from skdp.datasets._base import (
    ChecksumMismatchError,
    DownloadError,
    RemoteFile,
    fetch_file,
    get_data_home,
)
from skdp.datasets._german_credit import fetch_german_credit
from skdp.datasets._transactions import fetch_fimi, fetch_msnbc

PAYLOAD = b"1 2 3 \n2 5 \n"
PAYLOAD_SHA = hashlib.sha256(PAYLOAD).hexdigest()
URL = "https://example.org/data/toy.dat"


class FakeResponse(io.BytesIO):
    """What ``urlopen`` returns: a readable context manager; may fail after some bytes."""

    def __init__(self, payload, fail_after=None):
        super().__init__(payload)
        self.fail_after = fail_after

    def read(self, size=-1):
        if self.fail_after is not None and self.tell() >= self.fail_after:
            raise TimeoutError("The read operation timed out")
        return super().read(size if self.fail_after is None else min(size, self.fail_after))


@pytest.fixture
def serve(monkeypatch):
    """``serve(payload)`` makes ``_urlopen`` return it; the requested URLs are recorded."""
    calls = []

    def _serve(payload=None, error=None, fail_after=None):
        def fake_urlopen(url, timeout):
            calls.append((url, timeout))
            if error is not None:
                raise error
            return FakeResponse(payload, fail_after)

        monkeypatch.setattr(_base, "_urlopen", fake_urlopen)
        return calls

    return _serve


@pytest.fixture
def no_network(monkeypatch):
    def fail(url, timeout):
        raise AssertionError(f"unexpected download of {url}")

    monkeypatch.setattr(_base, "_urlopen", fail)


def _assert_instructions(message, remote, target):
    assert remote.path in message
    assert str(target) in message
    assert f"download {remote.url} and save it as {target}" in message


# --- get_data_home ----------------------------------------------------------------------


def test_data_home_argument_expands_user_and_is_created(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SKDP_DATA_HOME", str(tmp_path / "ignored"))
    home = get_data_home("~/my/data")
    assert home == tmp_path / "my" / "data" and home.is_dir()
    assert not (tmp_path / "ignored").exists()


def test_data_home_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SKDP_DATA_HOME", str(tmp_path / "from_env"))
    assert get_data_home() == tmp_path / "from_env"
    assert (tmp_path / "from_env").is_dir()


def test_data_home_default(tmp_path, monkeypatch):
    monkeypatch.delenv("SKDP_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert get_data_home() == tmp_path / "skdp_data"
    assert (tmp_path / "skdp_data").is_dir()


# --- fetch_file -------------------------------------------------------------------------


def test_download_is_verified_and_moved_into_place(tmp_path, serve):
    calls = serve(PAYLOAD)
    remote = RemoteFile("toy/toy.dat", URL, PAYLOAD_SHA)
    path = fetch_file(remote, tmp_path)
    assert path == tmp_path / "toy" / "toy.dat"
    assert path.read_bytes() == PAYLOAD
    assert [p.name for p in path.parent.iterdir()] == ["toy.dat"], "no temporary file left"
    assert calls == [(URL, _base._TIMEOUT)]
    assert fetch_file(remote, tmp_path, download_if_missing=False) == path
    assert len(calls) == 1, "a present, valid file is not downloaded again"


def test_download_with_wrong_checksum_leaves_nothing(tmp_path, serve):
    serve(PAYLOAD)
    remote = RemoteFile("toy/toy.dat", URL, "0" * 64)
    target = tmp_path / "toy" / "toy.dat"
    with pytest.raises(ChecksumMismatchError) as info:
        fetch_file(remote, tmp_path)
    message = str(info.value)
    _assert_instructions(message, remote, target)
    assert f"expected sha256 {'0' * 64}, got {PAYLOAD_SHA}" in message
    assert list((tmp_path / "toy").iterdir()) == []


@pytest.mark.parametrize(
    "error",
    [
        urllib.error.URLError("[Errno -3] Temporary failure in name resolution"),
        urllib.error.HTTPError(URL, 404, "Not Found", {}, None),
        TimeoutError("timed out"),
    ],
)
def test_failed_download_says_how_to_place_the_file(tmp_path, serve, error):
    serve(error=error)
    remote = RemoteFile("toy/toy.dat", URL, PAYLOAD_SHA)
    with pytest.raises(DownloadError) as info:
        fetch_file(remote, tmp_path)
    assert isinstance(info.value, OSError)
    message = str(info.value)
    _assert_instructions(message, remote, tmp_path / "toy" / "toy.dat")
    assert type(error).__name__ in message
    assert list((tmp_path / "toy").iterdir()) == []


def test_interrupted_download_leaves_no_partial_file(tmp_path, serve):
    serve(PAYLOAD * 1000, fail_after=100)
    remote = RemoteFile("toy/toy.dat", URL, PAYLOAD_SHA)
    with pytest.raises(DownloadError, match="TimeoutError"):
        fetch_file(remote, tmp_path)
    assert list((tmp_path / "toy").iterdir()) == []


def test_present_corrupted_file_is_reported_not_replaced(tmp_path, no_network):
    remote = RemoteFile("toy/toy.dat", URL, PAYLOAD_SHA)
    target = tmp_path / "toy" / "toy.dat"
    target.parent.mkdir()
    target.write_bytes(PAYLOAD + b"7 \n")
    with pytest.raises(ChecksumMismatchError) as info:
        fetch_file(remote, tmp_path)
    message = str(info.value)
    _assert_instructions(message, remote, target)
    got = hashlib.sha256(PAYLOAD + b"7 \n").hexdigest()
    assert f"expected sha256 {PAYLOAD_SHA}, got {got}" in message
    assert target.read_bytes() == PAYLOAD + b"7 \n", "the user's file is left alone"


def test_missing_file_without_download(tmp_path, no_network):
    remote = RemoteFile("toy/toy.dat", URL, PAYLOAD_SHA)
    with pytest.raises(FileNotFoundError) as info:
        fetch_file(remote, tmp_path, download_if_missing=False)
    message = str(info.value)
    _assert_instructions(message, remote, tmp_path / "toy" / "toy.dat")
    assert "download_if_missing=False" in message


def test_gzip_file_is_verified_by_its_content(tmp_path, no_network):
    content = PAYLOAD * 10
    remote = RemoteFile("toy/toy.gz", URL, None, hashlib.sha256(content).hexdigest())
    target = tmp_path / "toy" / "toy.gz"
    target.parent.mkdir()
    for level in (1, 9):  # different bytes, same content: both accepted
        target.write_bytes(gzip.compress(content, compresslevel=level, mtime=level))
        assert fetch_file(remote, tmp_path) == target
    # a stale sha256 of the stored bytes does not reject the right content either
    stale = RemoteFile(remote.path, URL, "f" * 64, remote.content_sha256)
    assert fetch_file(stale, tmp_path) == target
    target.write_bytes(gzip.compress(content + b"8 \n"))
    with pytest.raises(ChecksumMismatchError, match=r"of the unpacked content, got [0-9a-f]{64}"):
        fetch_file(remote, tmp_path)
    target.write_bytes(content)
    with pytest.raises(ChecksumMismatchError, match="not valid gzip"):
        fetch_file(remote, tmp_path)


def test_file_without_checksum_is_accepted_with_a_warning(tmp_path, serve):
    serve(PAYLOAD)
    remote = RemoteFile("toy/toy.dat", URL, None)
    with pytest.warns(UserWarning, match=f"no published checksum.*{PAYLOAD_SHA}"):
        path = fetch_file(remote, tmp_path)
    assert path.read_bytes() == PAYLOAD
    with pytest.warns(UserWarning, match=PAYLOAD_SHA):
        fetch_file(remote, tmp_path, download_if_missing=False)


# --- loaders on a fresh data home -------------------------------------------------------


def test_german_credit_is_downloaded_then_loaded(require, tmp_path, serve):
    real = require("german-credit/german.data") / "german-credit/german.data"
    calls = serve(real.read_bytes())
    bunch = fetch_german_credit(data_home=tmp_path)
    assert calls == [(_german_credit.GERMAN_DATA.url, _base._TIMEOUT)]
    assert calls[0][0] == (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/statlog/german/german.data"
    )
    assert (tmp_path / "german-credit" / "german.data").read_bytes() == real.read_bytes()
    assert bunch.data.shape == (1000, 20)
    assert bunch.target.value_counts().to_dict() == {"good": 700, "bad": 300}


def test_german_credit_download_with_other_bytes_is_rejected(tmp_path, serve):
    serve(b"A11 6 A34 A43 1169 A65 A75 4 A93 A101 4 A121 67 A143 A152 2 A173 1 A192 A201 1\n")
    with pytest.raises(ChecksumMismatchError) as info:
        fetch_german_credit(data_home=tmp_path)
    target = tmp_path / "german-credit" / "german.data"
    _assert_instructions(str(info.value), _german_credit.GERMAN_DATA, target)
    assert list(target.parent.iterdir()) == []


def test_msnbc_recompressed_by_the_source_is_accepted(require, tmp_path, serve):
    ours = require("msnbc/msnbc990928.seq.gz") / "msnbc/msnbc990928.seq.gz"
    recompressed = gzip.compress(gzip.decompress(ours.read_bytes()), compresslevel=1)
    assert recompressed != ours.read_bytes()
    calls = serve(recompressed)
    bunch = fetch_msnbc(data_home=tmp_path)
    assert calls[0][0] == _transactions.MSNBC_SEQ.url
    assert calls[0][0].endswith("/msnbc-mld/msnbc990928.seq.gz")
    assert (tmp_path / "msnbc" / "msnbc990928.seq.gz").read_bytes() == recompressed
    assert bunch.data.shape == (989818, 17) and bunch.data.nnz == 1699303


def test_fimi_without_checksum_warns_and_loads(tmp_path, serve):
    calls = serve(PAYLOAD)
    with pytest.warns(
        UserWarning, match=f"fimi/kosarak.dat.*no published checksum.*{PAYLOAD_SHA}"
    ):
        bunch = fetch_fimi("kosarak", data_home=tmp_path)
    assert calls[0][0] == "http://fimi.uantwerpen.be/data/kosarak.dat"
    assert bunch.feature_names == ["1", "2", "3", "5"]
    assert bunch.data.toarray().tolist() == [[True, True, True, False], [False, True, False, True]]


def test_fimi_with_checksum_loads_silently(require, tmp_path, serve):
    real = require("fimi/mushroom.dat") / "fimi/mushroom.dat"
    serve(real.read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bunch = fetch_fimi("mushroom", data_home=tmp_path)
    assert bunch.data.shape == (8124, 119)
    assert Path(tmp_path / "fimi" / "mushroom.dat").is_file()


def test_loader_error_names_the_missing_file(tmp_path, no_network):
    with pytest.raises(FileNotFoundError) as info:
        fetch_msnbc(data_home=tmp_path, download_if_missing=False)
    target = tmp_path / "msnbc" / "msnbc990928.seq.gz"
    _assert_instructions(str(info.value), _transactions.MSNBC_SEQ, target)
