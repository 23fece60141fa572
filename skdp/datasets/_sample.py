"""The small samples of the UCI datasets that ship with skdp.

``fetch_adult`` and ``fetch_msnbc`` take ``sample``: ``True`` reads the sample shipped in
``skdp/datasets/data/sample/<dataset>/`` (same file formats as the originals, never the
network), ``"auto"`` reads the full dataset when it is in the data home or can be
downloaded and otherwise the sample, with a ``UserWarning`` that says so. The samples let
the gallery, the notebooks and newcomers run without the data files or a network; results
on a sample differ from those on the full data.
"""

import warnings
from importlib import resources
from pathlib import Path

import numpy as np

from skdp.datasets._base import DownloadError, fetch_file

__all__ = ["check_sample", "sample_descr", "sample_file", "use_sample"]


def check_sample(sample):
    """Return ``sample`` as True, False or ``"auto"``; raise a ValueError for anything else."""
    if isinstance(sample, str) and sample == "auto":
        return sample
    if isinstance(sample, (bool, np.bool_)):
        return bool(sample)
    raise ValueError(f"sample must be True, False or 'auto', got {sample!r}.")


def sample_file(dataset, name):
    """Path of the shipped sample file ``data/sample/<dataset>/<name>``."""
    return Path(str(resources.files("skdp.datasets").joinpath("data", "sample", dataset, name)))


def use_sample(sample, remotes, data_home, download_if_missing, *, loader, n_rows):
    """Whether to read the shipped sample rather than the full dataset's files.

    Parameters
    ----------
    sample : {True, False, "auto"}
        The loader's ``sample`` parameter, as returned by :func:`check_sample`.
    remotes : list of RemoteFile
        The full dataset's files. With ``"auto"``, each is provided by
        :func:`~skdp.datasets._base.fetch_file` (found, or downloaded when
        ``download_if_missing``); when one is missing or cannot be downloaded the
        sample is used and a ``UserWarning`` says why. A file that fails its checksum
        still raises: a corrupted data home is not replaced silently.
    data_home : pathlib.Path
        The data home.
    download_if_missing : bool
        The loader's ``download_if_missing``.
    loader : str
        Name of the loader, for the warning (``"fetch_adult"``).
    n_rows : str
        Size of the sample, for the warning (``"9,771 rows"``).

    Returns
    -------
    use : bool
        True to read the sample.
    """
    if sample != "auto":
        return sample
    try:
        for remote in remotes:
            fetch_file(remote, data_home, download_if_missing)
    except (FileNotFoundError, DownloadError) as exc:
        warnings.warn(
            f"{loader}(sample='auto') uses the small sample shipped with skdp ({n_rows}), "
            f"not the full dataset, whose files are not available: {exc} Results on the "
            "sample differ from those on the full dataset.",
            UserWarning,
            stacklevel=3,
        )
        return True
    return False


def sample_descr(descr, n_rows):
    """``descr`` preceded by a note saying that the data are the shipped sample."""
    return (
        f"**This is the sample shipped with skdp ({n_rows}), not the full dataset:** "
        "see *Sample shipped with skdp* below.\n\n" + descr
    )
