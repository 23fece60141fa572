"""Data home, checksummed downloads and dataset descriptions.

Every file a loader reads is described by a :class:`RemoteFile`: where it lives inside the
data home, where to download it, and the sha256 that identifies the expected bytes. A file
that is already present is verified before it is used; a missing one is downloaded to a
temporary file next to its target, verified, and only then renamed into place, so an
interrupted or corrupted download never leaves a file that looks valid.
"""

import gzip
import hashlib
import http.client
import os
import tempfile
import urllib.request
import warnings
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

__all__ = [
    "ChecksumMismatchError",
    "DownloadError",
    "RemoteFile",
    "fetch_file",
    "get_data_home",
    "load_descr",
]

_TIMEOUT = 60.0  # seconds allowed for the connection and for each read of a download
_CHUNK = 1 << 20


class ChecksumMismatchError(OSError):
    """A dataset file does not have the published sha256 (corrupted or another version)."""


class DownloadError(OSError):
    """A dataset file could not be downloaded."""


@dataclass(frozen=True)
class RemoteFile:
    """A dataset file: its place in the data home, its source and its checksums.

    Parameters
    ----------
    path : str
        Path relative to the data home, with ``/`` separators (``"adult/adult.data"``).
    url : str
        Public address the file is downloaded from.
    sha256 : str or None
        Hex sha256 of the stored bytes, or None when it is not known (for instance when
        the source's gzip bytes differ from the copy the checksum was taken from).
    content_sha256 : str or None, default=None
        For ``.gz`` files, hex sha256 of the decompressed content. It is checked when
        ``sha256`` is None or does not match, so a re-compressed copy of the right
        content is accepted. When both are None the file is accepted with a
        ``UserWarning`` that reports its sha256.
    """

    path: str
    url: str
    sha256: str | None
    content_sha256: str | None = None


def get_data_home(data_home=None):
    """Return the folder that holds the dataset files, creating it if needed.

    Parameters
    ----------
    data_home : str or path-like, default=None
        The folder to use. When None, ``$SKDP_DATA_HOME`` is used if set, else
        ``~/skdp_data``. A leading ``~`` is expanded.

    Returns
    -------
    data_home : pathlib.Path
        The folder (it exists when this returns).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from skdp.datasets import get_data_home
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     home = get_data_home(Path(tmp) / "skdp_data")
    ...     print(home.name, home.is_dir())
    skdp_data True
    """
    if data_home is None:
        data_home = os.environ.get("SKDP_DATA_HOME") or Path("~", "skdp_data")
    path = Path(data_home).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _how_to_fix(remote, target):
    return f"To place it by hand, download {remote.url} and save it as {target}."


def _file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _content_sha256(path):
    """sha256 of a gzip file's decompressed content, or None if it is not valid gzip."""
    digest = hashlib.sha256()
    try:
        with gzip.open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
    except (OSError, EOFError):  # gzip.BadGzipFile is an OSError
        return None
    return digest.hexdigest()


def _check(remote, path):
    """Compare ``path`` with the checksums of ``remote``.

    Returns ``(ok, problem)``: ``problem`` describes the mismatch, or, for a file without
    any published checksum, holds the computed sha256 (``ok`` is then True).
    """
    actual = _file_sha256(path)
    if remote.sha256 is not None and actual == remote.sha256:
        return True, None
    if remote.sha256 is None and remote.content_sha256 is None:
        return True, actual
    problems = []
    if remote.sha256 is not None:
        problems.append(f"expected sha256 {remote.sha256}, got {actual}")
    if remote.content_sha256 is not None:
        content = _content_sha256(path)
        if content == remote.content_sha256:
            return True, None
        got = "a file that is not valid gzip" if content is None else content
        problems.append(
            f"expected sha256 {remote.content_sha256} of the unpacked content, got {got}"
        )
    return False, "; ".join(problems)


def _warn_unverified(remote, target, sha256):
    warnings.warn(
        f"{remote.path} (at {target}, from {remote.url}) has no published checksum; "
        f"verify it yourself: its sha256 is {sha256}.",
        UserWarning,
        stacklevel=4,
    )


def _urlopen(url, timeout):
    """Open ``url`` (module-level so that tests can replace it)."""
    return urllib.request.urlopen(url, timeout=timeout)


def _download(remote, target):
    """Download ``remote`` to a temporary file in ``target``'s folder and return its path."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".part", dir=target.parent
        )
    except OSError as exc:
        raise DownloadError(
            f"Cannot write {remote.path} into {target.parent}: {exc}. "
            f"{_how_to_fix(remote, target)}"
        ) from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, _urlopen(remote.url, timeout=_TIMEOUT) as response:
            while chunk := response.read(_CHUNK):
                out.write(chunk)
    except (OSError, http.client.HTTPException) as exc:
        tmp.unlink(missing_ok=True)
        raise DownloadError(
            f"Could not download {remote.path} from {remote.url} to {target}: "
            f"{type(exc).__name__}: {exc}. {_how_to_fix(remote, target)}"
        ) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def fetch_file(remote, data_home, download_if_missing=True):
    """Return the path of a verified copy of ``remote`` in ``data_home``.

    Parameters
    ----------
    remote : RemoteFile
        The file to provide.
    data_home : path-like
        The data home (see :func:`get_data_home`).
    download_if_missing : bool, default=True
        Whether to download the file when it is absent.

    Returns
    -------
    path : pathlib.Path
        ``data_home / remote.path``, present and verified.

    Raises
    ------
    FileNotFoundError
        The file is absent and ``download_if_missing`` is False.
    DownloadError
        The download failed (network error, HTTP error, timeout, disk error).
    ChecksumMismatchError
        The present or the downloaded file does not have the published checksum. A
        downloaded file that fails the check is deleted.

    Warns
    -----
    UserWarning
        When no checksum is published for the file; the warning gives its sha256.
    """
    target = Path(data_home) / remote.path
    if target.is_file():
        ok, problem = _check(remote, target)
        if not ok:
            raise ChecksumMismatchError(
                f"{remote.path} at {target} is corrupted or a different version: "
                f"{problem}. Delete it so that it is downloaded again from {remote.url}, "
                f"or download {remote.url} and save it as {target}."
            )
        if problem is not None:
            _warn_unverified(remote, target, problem)
        return target
    if not download_if_missing:
        raise FileNotFoundError(
            f"{remote.path} is not in the data home: no file at {target}, and "
            f"download_if_missing=False. {_how_to_fix(remote, target)} Or pass "
            "download_if_missing=True."
        )
    tmp = _download(remote, target)
    try:
        ok, problem = _check(remote, tmp)
        if not ok:
            raise ChecksumMismatchError(
                f"The download of {remote.path} from {remote.url} is corrupted or a "
                f"different version: {problem}. Nothing was saved at {target}. "
                f"{_how_to_fix(remote, target)}"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    if problem is not None:
        _warn_unverified(remote, target, problem)
    return target


def load_descr(name):
    """Return the text of ``descr/<name>.rst`` from the package data.

    Parameters
    ----------
    name : str
        Base name of the description file (``"adult"``).

    Returns
    -------
    descr : str
        The reStructuredText description.
    """
    return resources.files("skdp.datasets").joinpath("descr", f"{name}.rst").read_text("utf-8")
