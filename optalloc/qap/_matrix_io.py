"""Reading user communication (or cost) matrices from files."""

from __future__ import annotations

import os
import re

import numpy as np

from .._text import read_text
from ._metrics import _validate_flows

__all__ = ["parse_matrix", "read_matrix"]

_SEP = re.compile(r"[,\s]+")


def parse_matrix(text: str, *, source: str = "matrix") -> np.ndarray:
    """Parse a square matrix written as text, one row per line.

    Entries are separated by commas, spaces or tabs; ``#`` starts a comment
    and blank lines are skipped. The matrix must be square, finite and
    non-negative.

    Examples
    --------
    >>> from optalloc.qap import parse_matrix
    >>> parse_matrix("# bytes\\n0, 5\\n5 0\\n").tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    rows = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip().strip(",").strip()
        if not line:
            continue
        row = []
        for tok in _SEP.split(line):
            try:
                row.append(float(tok))
            except ValueError:
                raise ValueError(f"{source}, line {lineno}: {tok!r} is not a number") from None
        if rows and len(row) != len(rows[0]):
            raise ValueError(f"{source}, line {lineno}: {len(row)} entries, expected {len(rows[0])} "
                             "like the first row")
        rows.append(row)
    if not rows:
        raise ValueError(f"{source}: no matrix rows")
    return _checked(np.array(rows), source)


def read_matrix(path: str | os.PathLike, *, sparse: bool = False):
    """Read a square non-negative matrix (e.g. W in bytes) from a file.

    Parameters
    ----------
    path : str or path-like
        ``.npy`` (numpy array), ``.mtx`` (MatrixMarket, dense or sparse;
        sparse is made dense unless ``sparse``), anything else as text: CSV
        or whitespace-separated rows, see :func:`parse_matrix`. The file is
        only read.
    sparse : bool, default False
        Return a scipy.sparse CSR matrix (a sparse ``.mtx`` file is never
        made dense then).

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_matrix
        (n, n) float matrix.

    Raises
    ------
    ValueError
        Missing or unreadable file, not square, NaN or infinite entries,
        negative entries, complex values.

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.qap import read_matrix
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "w.csv")
    ...     _ = open(p, "w").write("0,2,0\\n2,0,1\\n0,1,0\\n")
    ...     read_matrix(p).tolist()
    [[0.0, 2.0, 0.0], [2.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    """
    name = os.fspath(path)
    ext = os.path.splitext(str(name))[1].lower()
    if ext in (".npy", ".mtx"):
        if not os.path.exists(name):
            raise ValueError(f"{name}: no such file")
        if os.path.isdir(name):
            raise ValueError(f"{name}: is a directory, not a file")
    if ext == ".npy":
        try:
            a = np.load(name, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{name}: cannot read .npy file ({exc})") from None
        return _as(_checked(a, name), sparse)
    if ext == ".mtx":
        from scipy.io import mmread

        try:
            a = mmread(name)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{name}: cannot read MatrixMarket file ({exc})") from None
        if hasattr(a, "toarray"):
            if sparse:
                return _checked(a.tocsr(), name)
            a = a.toarray()
        return _as(_checked(np.asarray(a), name), sparse)
    return _as(parse_matrix(read_text(name), source=name), sparse)


def _as(a, sparse: bool):
    if not sparse:
        return a
    from scipy import sparse as sp

    return sp.csr_matrix(a)


def _checked(a, source: str):
    if np.iscomplexobj(a):
        raise ValueError(f"{source}: complex entries are not flows")
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
        raise ValueError(f"{source}: not a numeric matrix (dtype {a.dtype})")
    try:
        return _validate_flows(a)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
