"""Where the dataset tests find the real data files.

The data home is ``$SKDP_DATA_HOME`` when set, else ``shared/datasets`` next to the
repository (``<repo>/../shared/datasets``). A test whose file is absent is skipped. The
tests never download: they pass ``download_if_missing=False``.
"""

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def data_home():
    """The folder holding the real dataset files."""
    if os.environ.get("SKDP_DATA_HOME"):
        return Path(os.environ["SKDP_DATA_HOME"]).expanduser()
    return (REPO_ROOT / ".." / "shared" / "datasets").resolve()


@pytest.fixture(scope="session")
def require(data_home):
    """``require(*paths)`` returns the data home, or skips unless all paths are in it."""

    def _require(*paths):
        for path in paths:
            if not (data_home / path).is_file():
                pytest.skip(
                    f"{path} is not in the data home {data_home}; set SKDP_DATA_HOME to a "
                    "folder that holds it"
                )
        return data_home

    return _require
