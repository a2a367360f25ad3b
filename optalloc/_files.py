"""Output files written whole or not at all.

A result file is written under a temporary name in its own folder and
renamed to its name once complete (a rename within a folder is atomic on
POSIX and Windows): a run stopped halfway (a full disk, an interruption, a
crash) leaves no file cut mid-record, and never replaces a user's file with
part of one.  The temporary name is hidden (``.NAME.RANDOM.part.EXT``, the
extension kept so that a writer that goes by it, as matplotlib does, still
can) and removed on failure.

A write that fails raises an OSError naming the file (``cannot write
out.csv: No space left on device``), with the errno of the failure.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil

__all__ = ["output_file", "output_path"]


@contextlib.contextmanager
def output_path(path, *, overwrite: bool = False):
    """A temporary path to write ``path`` to, renamed to ``path`` when the
    block ends without an error and removed when it raises.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write, in an existing folder.
    overwrite : bool
        Replace an existing file (it is kept, untouched, when the block
        raises). Without it an existing file is refused before the block
        and again at the rename.

    Raises
    ------
    FileExistsError
        ``path`` exists and ``overwrite`` is False.
    OSError
        Writing or renaming failed: the message names ``path``, the errno
        is the failure's (``errno.ENOSPC`` for a full disk).

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> target = os.path.join(folder, "out.txt")
    >>> with output_path(target) as tmp:
    ...     _ = open(tmp, "w").write("done\\n")
    ...     os.path.exists(target)
    False
    >>> open(target).read(), os.listdir(folder)
    ('done\\n', ['out.txt'])
    """
    final = os.fspath(path)
    if not overwrite and os.path.exists(final):
        raise FileExistsError(f"{final} exists; pass overwrite=True to replace it")
    folder, name = os.path.split(os.path.abspath(final))
    ext = os.path.splitext(name)[1]
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.part{ext}")
    try:
        yield tmp
        _sync(tmp)
        _install(tmp, final, overwrite)
    except OSError as exc:
        _remove(tmp)
        if isinstance(exc, FileExistsError) and not overwrite:
            raise
        raise _named(exc, final) from None
    except BaseException:
        _remove(tmp)
        raise


@contextlib.contextmanager
def output_file(path, *, overwrite: bool = False, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = None):
    """An open file to write ``path`` through: written under a temporary
    name and renamed to ``path`` when the block ends without an error (see
    :func:`output_path`, whose errors it raises).

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "out.csv")
    >>> with output_file(target, newline="") as fh:
    ...     _ = fh.write("a,b\\n")
    >>> open(target).read()
    'a,b\\n'
    """
    with output_path(path, overwrite=overwrite) as tmp:
        binary = "b" in mode
        with open(tmp, mode if "x" in mode else mode.replace("w", "x"), encoding=None if binary else encoding,
                  newline=None if binary else newline) as fh:
            yield fh


def _sync(tmp: str) -> None:
    """Flush the file to the disk, so that a full disk shows now and not after the rename."""
    fd = os.open(tmp, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):  # no fsync on this file system
            raise
    finally:
        os.close(fd)


def _install(tmp: str, final: str, overwrite: bool) -> None:
    """Rename ``tmp`` to ``final``; without ``overwrite`` never over a file
    that appeared meanwhile (a hard link fails on an existing name)."""
    if overwrite:
        with contextlib.suppress(OSError):
            shutil.copymode(final, tmp)  # a replaced file keeps its permissions
        os.replace(tmp, final)
        return
    try:
        os.link(tmp, final)
    except FileExistsError:
        raise FileExistsError(f"{final} exists; pass overwrite=True to replace it") from None
    except OSError:  # no hard links on this file system
        if os.path.exists(final):
            raise FileExistsError(f"{final} exists; pass overwrite=True to replace it") from None
        os.replace(tmp, final)
        return
    os.unlink(tmp)


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def _named(exc: OSError, final: str) -> OSError:
    """The error with a one-line message naming the file (the errno kept)."""
    why = os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc))
    if exc.errno is None:
        return OSError(f"cannot write {final}: {why}")
    return OSError(exc.errno, f"cannot write {final}: {why}")
