"""Reading the text files users give (one clear error per failure).

A file that starts with the gzip magic bytes (``1f 8b``) is decompressed
first, whatever its name: the Parallel Workloads Archive ships its traces
as ``NAME.swf.gz``, and any other input file may be gzipped the same way.
"""

from __future__ import annotations

import gzip
import io
import os
import zlib

#: The first two bytes of every gzip member (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"


def is_gzip_name(path) -> bool:
    """Whether the file name ends in ``.gz`` (any case)."""
    return os.fspath(path).lower().endswith(".gz")


def plain_suffix(path) -> str:
    """The lower-case suffix of a file name, ignoring a final ``.gz``.

    Examples
    --------
    >>> plain_suffix("net.GraphML.gz"), plain_suffix("w.csv"), plain_suffix("trace.gz")
    ('.graphml', '.csv', '')
    """
    name = os.path.basename(os.fspath(path))
    if is_gzip_name(name):
        name = name[:-3]
    return os.path.splitext(name)[1].lower()


def gunzip(data: bytes, source="data") -> bytes:
    """``data`` decompressed when it starts with the gzip magic bytes, else unchanged.

    A corrupt or truncated gzip stream is a one-line ValueError naming ``source``.

    Examples
    --------
    >>> import gzip
    >>> gunzip(gzip.compress(b"1 2\\n")), gunzip(b"1 2\\n")
    (b'1 2\\n', b'1 2\\n')
    >>> gunzip(gzip.compress(b"1 2\\n")[:12], "w.gz")
    Traceback (most recent call last):
    ...
    ValueError: w.gz: corrupt gzip file (EOFError: Compressed file ended before the end-of-stream marker was reached)
    """
    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        msg = " ".join(str(exc).split()) or "unreadable"
        raise ValueError(f"{source}: corrupt gzip file ({exc.__class__.__name__}: {msg})") from None


def read_data(path) -> bytes:
    """The bytes of a file, gunzipped when they start with the gzip magic
    bytes; a one-line ValueError when it cannot be read, or is named
    ``.gz`` without being gzip data."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read file ({exc.__class__.__name__}: {exc})") from None
    if is_gzip_name(path) and data and not data.startswith(GZIP_MAGIC):
        raise ValueError(f"{path}: corrupt gzip file (named .gz, but it does not start with the gzip "
                         "magic bytes 1f 8b)")
    return gunzip(data, path)


def read_text(path) -> str:
    """The text of a UTF-8 file, plain or gzipped; a one-line ValueError
    when it cannot be read or is empty.

    Line ends ``\\r\\n`` and ``\\r`` read as ``\\n``.

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "points.txt.gz")
    ...     _ = open(p, "wb").write(gzip.compress(b"0 0\\r\\n1 0\\n"))
    ...     read_text(p)
    '0 0\\n1 0\\n'
    """
    data = read_data(path)
    try:
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: cannot read file ({exc.__class__.__name__}: {exc})") from None
    if not text.strip():
        raise ValueError(f"{path}: file is empty")
    return text
