"""Loaders for transaction (set-valued) data: MSNBC page categories and the FIMI benchmarks.

Each row is one transaction: the set of items it contains. The loaders return a boolean
sparse matrix with one column per item. Parsing is vectorised over the raw bytes, so the
989,818 MSNBC sessions load in about a second.
"""

import gzip

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import Bunch

from skdp.datasets._base import RemoteFile, fetch_file, get_data_home, load_descr
from skdp.datasets._sample import check_sample, sample_descr, sample_file, use_sample

__all__ = ["fetch_fimi", "fetch_msnbc"]

MSNBC_SEQ = RemoteFile(
    "msnbc/msnbc990928.seq.gz",
    "https://archive.ics.uci.edu/ml/machine-learning-databases/msnbc-mld/msnbc990928.seq.gz",
    None,  # UCI's gzip bytes are not the ones the checksum below was taken from
    content_sha256="982d85eb7aff1744e64d8bfadb21f53fb921b79d53b6305d4df232da59f218fe",
)
# the shipped sample: the header and every 20th session, in the original format
MSNBC_SAMPLE_ROWS = "49,491 sessions"

_FIMI_URL = "http://fimi.uantwerpen.be/data/"
# sha256 of the FIMI files whose copies were cross-checked; None: no published checksum
# (the file is accepted with a warning that reports its sha256).
FIMI_SHA256 = {
    "mushroom": "6cf94bc482712c3936f0b40c921381ab2b776c3d9941880fecac4d83ca5cbeb5",
    "chess": "a12ea887df58a396709430af5bf0a9a32d1f6eba8e7c13dd41f28b98572c5db2",
    "retail": "d967431ba522e32f0fbb243f2ee113ecd4cb374cb0234c1b0858dae1d499a055",
    "T10I4D100K": "464d7b87aa7fdc0dc432ddad0493515569b2968b0f229ce39399c454a8c62e0c",
    "accidents": None,
    "connect": None,
    "pumsb": None,
    "pumsb_star": None,
    "kosarak": None,
    "T40I10D100K": None,
}

_DIGIT0, _SPACE, _CR, _LF = ord("0"), ord(" "), ord("\r"), ord("\n")


def _parse_transactions(text, source):
    """Parse lines of space-separated non-negative integers.

    Parameters
    ----------
    text : bytes
        The lines (LF or CRLF endings, trailing spaces allowed, last newline optional).
    source : str
        Names the file in error messages.

    Returns
    -------
    rows : ndarray of int64
        Line (0-based) of every integer.
    values : ndarray of int64
        The integers, in file order.
    n_rows : int
        Number of lines; an empty line is an empty transaction.
    """
    a = np.frombuffer(text, dtype=np.uint8)
    is_digit = (a >= _DIGIT0) & (a <= _DIGIT0 + 9)
    bad = ~(is_digit | (a == _SPACE) | (a == _CR) | (a == _LF))
    if bad.any():
        at = int(np.argmax(bad))
        raise ValueError(f"{source}: unexpected byte {text[at : at + 1]!r} at offset {at}.")
    newlines = np.flatnonzero(a == _LF)
    n_rows = len(newlines) + int(len(a) > 0 and a[-1] != _LF)
    before = np.zeros_like(is_digit)  # is the previous byte a digit?
    before[1:] = is_digit[:-1]
    after = np.zeros_like(is_digit)  # is the next byte a digit?
    after[:-1] = is_digit[1:]
    starts = np.flatnonzero(is_digit & ~before)
    lengths = np.flatnonzero(is_digit & ~after) + 1 - starts
    if len(starts) and lengths.max() > 18:
        raise ValueError(f"{source}: an item id has more than 18 digits.")
    values = np.zeros(len(starts), dtype=np.int64)
    for k in range(lengths.max(initial=0)):
        more = lengths > k
        values[more] = values[more] * 10 + (a[starts[more] + k] - _DIGIT0)
    rows = np.searchsorted(newlines, starts)
    return rows, values, n_rows


def _to_csr(rows, columns, n_rows, n_columns):
    """Boolean CSR matrix with a True at each (row, column); repeats count once."""
    if n_columns == 0:
        return sp.csr_matrix((n_rows, 0), dtype=bool)
    keys = np.sort(rows * n_columns + columns)  # nearly sorted already: rows increase
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    rows, columns = np.divmod(keys, n_columns)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    data = np.ones(len(keys), dtype=bool)
    return sp.csr_matrix((data, columns, indptr), shape=(n_rows, n_columns))


def _result(X, feature_names, as_frame, descr, **extra):
    if as_frame:
        X = pd.DataFrame.sparse.from_spmatrix(X, columns=feature_names)
    return Bunch(
        data=X,
        frame=X if as_frame else None,
        feature_names=list(feature_names),
        DESCR=descr,
        **extra,
    )


def fetch_msnbc(*, data_home=None, as_frame=False, download_if_missing=True, sample=False):
    """Load the MSNBC.com anonymous web data as sets of visited page categories.

    Reads ``msnbc/msnbc990928.seq.gz`` from the data home (verified by the sha256 of its
    unpacked content, so any gzip compression of the original ``msnbc990928.seq`` is
    accepted), downloading it from the UCI repository when it is missing. Each of the
    989,818 sessions of 28 September 1999 is a sequence of page categories; this loader
    keeps the set of categories each session visited (order and repeats are dropped).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Folder of the dataset files; see :func:`skdp.datasets.get_data_home`.
    as_frame : bool, default=False
        Return ``data`` as a DataFrame with sparse boolean columns instead of a sparse
        matrix.
    download_if_missing : bool, default=True
        Download a missing file. When False, a missing file raises FileNotFoundError.
    sample : bool or "auto", default=False
        True: read the sample shipped with skdp instead, every 20th session (49,491),
        without the data home or the network. ``"auto"``: the full dataset when its
        file is in the data home or can be downloaded, else the sample with a
        ``UserWarning`` that says so. ``DESCR`` starts with a note when the data are
        the sample.

    Returns
    -------
    bunch : sklearn.utils.Bunch
        ``data``: ``scipy.sparse.csr_matrix`` of dtype bool and shape (989818, 17),
        True where the session visited the category (or the same as a DataFrame).
        ``feature_names``: the 17 categories in the order of the file's header
        (``frontpage``, ``news``, ``tech``, ``local``, ``opinion``, ``on-air``,
        ``misc``, ``weather``, ``msn-news``, ``health``, ``living``, ``business``,
        ``msn-sports``, ``sports``, ``summary``, ``bbs``, ``travel``); category ``k`` of
        the file is column ``k - 1``. Also ``frame`` (``data`` when ``as_frame``, else
        None) and ``DESCR``. There is no target, hence no ``return_X_y``: the data are
        meant for unsupervised tasks such as frequent itemset mining.

    Raises
    ------
    ValueError
        When the file does not have the expected layout.
    OSError
        When the file is missing and cannot be downloaded (unless ``sample="auto"``),
        or fails its checksum; the message says where to put it.

    Warns
    -----
    UserWarning
        With ``sample="auto"``, when the sample is used.

    Examples
    --------
    >>> from skdp.datasets import fetch_msnbc
    >>> msnbc = fetch_msnbc()
    >>> msnbc.data.shape, msnbc.data.dtype
    ((989818, 17), dtype('bool'))
    >>> msnbc.feature_names[:5]
    ['frontpage', 'news', 'tech', 'local', 'opinion']
    >>> [[msnbc.feature_names[j] for j in session.indices] for session in msnbc.data[:3]]
    [['frontpage'], ['news'], ['news', 'tech', 'local']]

    Without the data file or a network, the sample shipped with skdp:

    >>> fetch_msnbc(sample=True).data.shape
    (49491, 17)
    """
    sample = check_sample(sample)
    if sample is not True:  # the sample alone never touches the data home
        data_home = get_data_home(data_home)
    on_sample = use_sample(
        sample,
        [MSNBC_SEQ],
        data_home,
        download_if_missing,
        loader="fetch_msnbc",
        n_rows=MSNBC_SAMPLE_ROWS,
    )
    if on_sample:
        path = sample_file("msnbc", "msnbc990928.seq.gz")
    else:
        path = fetch_file(MSNBC_SEQ, data_home, download_if_missing)
    with gzip.open(path, "rb") as f:
        raw = f.read()
    marker = raw.find(b"% Sequences:")
    if marker < 0:
        raise ValueError(f"{path}: no '% Sequences:' line.")
    header = [line.strip() for line in raw[:marker].decode("ascii").splitlines()]
    names = [line for line in header if line and not line.startswith("%")]
    if len(names) != 1:
        raise ValueError(f"{path}: expected one line of category names in the header.")
    feature_names = names[0].split()
    body = raw[marker:].split(b"\n", 2)  # the marker line, then a blank line
    if len(body) < 3 or body[1].strip():
        raise ValueError(f"{path}: expected a blank line after '% Sequences:'.")
    rows, values, n_rows = _parse_transactions(body[2], str(path))
    if len(values) and (values.min() < 1 or values.max() > len(feature_names)):
        raise ValueError(f"{path}: category ids must be in 1..{len(feature_names)}.")
    X = _to_csr(rows, values - 1, n_rows, len(feature_names))
    descr = load_descr("msnbc")
    descr = sample_descr(descr, MSNBC_SAMPLE_ROWS) if on_sample else descr
    return _result(X, feature_names, as_frame, descr)


def fetch_fimi(name, *, data_home=None, as_frame=False, download_if_missing=True):
    """Load a transaction dataset of the FIMI frequent itemset mining repository.

    Reads ``fimi/<name>.dat`` from the data home, downloading it from
    http://fimi.uantwerpen.be/data/ when it is missing. ``mushroom``, ``chess``,
    ``retail`` and ``T10I4D100K`` are verified by sha256. No checksum is published for
    ``accidents``, ``connect``, ``pumsb``, ``pumsb_star``, ``kosarak`` and
    ``T40I10D100K``: they are read with a ``UserWarning`` that gives the file's sha256,
    for you to check.

    Parameters
    ----------
    name : str
        One of ``mushroom``, ``chess``, ``retail``, ``T10I4D100K``, ``accidents``,
        ``connect``, ``pumsb``, ``pumsb_star``, ``kosarak``, ``T40I10D100K``.
    data_home : str or path-like, default=None
        Folder of the dataset files; see :func:`skdp.datasets.get_data_home`.
    as_frame : bool, default=False
        Return ``data`` as a DataFrame with sparse boolean columns instead of a sparse
        matrix.
    download_if_missing : bool, default=True
        Download a missing file. When False, a missing file raises FileNotFoundError.

    Returns
    -------
    bunch : sklearn.utils.Bunch
        ``data``: ``scipy.sparse.csr_matrix`` of dtype bool, one row per line of the
        file (transaction) and one column per distinct item id (or the same as a
        DataFrame). ``feature_names``: the item ids as strings, sorted numerically
        (column ``j`` holds item ``int(feature_names[j])``). Also ``frame`` (``data``
        when ``as_frame``, else None), ``name`` and ``DESCR``. There is no target, hence
        no ``return_X_y``: the data are meant for frequent itemset mining.

    Raises
    ------
    ValueError
        For an unknown ``name``, or a file that is not lines of integers.
    OSError
        When the file is missing and cannot be downloaded, or fails its checksum; the
        message says where to put it.

    Examples
    --------
    >>> from skdp.datasets import fetch_fimi
    >>> mushroom = fetch_fimi("mushroom")
    >>> mushroom.data.shape
    (8124, 119)
    >>> mushroom.feature_names[:5]
    ['1', '2', '3', '4', '5']
    >>> mushroom.data[0].nnz  # items in the first transaction
    23
    """
    if not isinstance(name, str) or name not in FIMI_SHA256:
        raise ValueError(f"Unknown FIMI dataset {name!r}; valid names: {', '.join(FIMI_SHA256)}.")
    remote = RemoteFile(f"fimi/{name}.dat", f"{_FIMI_URL}{name}.dat", FIMI_SHA256[name])
    path = fetch_file(remote, get_data_home(data_home), download_if_missing)
    rows, values, n_rows = _parse_transactions(path.read_bytes(), str(path))
    items, columns = np.unique(values, return_inverse=True)
    X = _to_csr(rows, columns.reshape(-1), n_rows, len(items))
    return _result(X, [str(item) for item in items], as_frame, load_descr("fimi"), name=name)
