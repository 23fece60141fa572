"""Repository-wide pytest configuration: the doctests of the dataset fetchers.

The examples of the ``skdp.datasets`` fetchers load the real files from the data home,
exactly as a user's call would: ``$SKDP_DATA_HOME`` when set, else ``~/skdp_data`` (see
:func:`skdp.datasets.get_data_home`). CI provides the files. Without them (a developer
who has not downloaded the datasets), a fetcher's doctest is skipped, and the skip
reason names the missing files and where they were looked for.

Doctests never download: the download function is replaced for them, so a fetcher
example that reads a file missing from ``DOCTEST_FILES`` below fails with a message
saying so instead of going to the network. Checksums are not looked at here: a present
but corrupted file makes the doctest fail, as it should.
"""

import os
from pathlib import Path

import pytest
from _pytest.doctest import DoctestItem

from skdp.datasets import _adult, _census_income, _german_credit, _transactions

# fetcher -> the files its doctest reads, relative to the data home
DOCTEST_FILES = {
    "fetch_adult": [_adult.ADULT_DATA.path, _adult.ADULT_TEST.path, _adult.ADULT_NAMES.path],
    # the example loads subset="test" only
    "fetch_census_income": [_census_income.CENSUS_TEST.path, _census_income.CENSUS_NAMES.path],
    "fetch_german_credit": [_german_credit.GERMAN_DATA.path],
    "fetch_msnbc": [_transactions.MSNBC_SEQ.path],
    "fetch_fimi": ["fimi/mushroom.dat"],  # the example loads fetch_fimi("mushroom")
}


def _data_home():
    """``get_data_home()``'s folder, without creating it."""
    return Path(os.environ.get("SKDP_DATA_HOME") or Path("~", "skdp_data")).expanduser()


def _fetcher_name(item):
    """The fetcher whose docstring ``item`` runs, or None for any other test."""
    if not isinstance(item, DoctestItem):
        return None
    module, _, name = item.name.rpartition(".")
    if module.startswith("skdp.datasets") and name.startswith("fetch_"):
        return name
    return None


# modules whose examples need the dask extra
DASK_DOCTESTS = ("skdp.utils._stats", "skdp.utils._dask_input")


def _dask_missing():
    try:
        import dask.array
        import dask.dataframe  # noqa: F401
    except ImportError:
        return True
    return False


def pytest_collection_modifyitems(config, items):
    home = _data_home()
    no_dask = _dask_missing()
    for item in items:
        if no_dask and isinstance(item, DoctestItem) and item.name.startswith(DASK_DOCTESTS):
            item.add_marker(pytest.mark.skip(reason="dask is not installed (the dask extra)"))
            continue
        name = _fetcher_name(item)
        if name is None:
            continue
        missing = [path for path in DOCTEST_FILES.get(name, []) if not (home / path).is_file()]
        if missing:
            item.add_marker(
                pytest.mark.skip(
                    reason=(
                        f"the example of {name} needs {', '.join(missing)}, missing from "
                        f"the data home {home} (doctests never download); set "
                        "SKDP_DATA_HOME to a folder that holds the dataset files, or call "
                        f"{name} once to download them"
                    )
                )
            )


@pytest.fixture(autouse=True)
def _no_download_in_fetcher_doctests(request):
    """Cut the network for the fetchers' doctests (they use the files at hand only)."""
    name = _fetcher_name(request.node)
    if name is None:
        return

    def refuse(url, timeout):
        raise OSError(
            f"the doctest of {name} tried to download {url}: doctests never download. "
            "List the files its example reads in DOCTEST_FILES of the repository's "
            "conftest.py, so that it is skipped when they are missing"
        )

    request.getfixturevalue("monkeypatch").setattr("skdp.datasets._base._urlopen", refuse)
