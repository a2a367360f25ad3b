"""Output files are written whole or not at all.

A full disk is injected (``ENOSPC`` after a few hundred bytes written into
the test's folder): every command that writes a result file then exits 2
with one line naming the file, and leaves neither a partial file nor a
temporary one; a user's file given with ``--force`` stays as it was. The
resumable decision file of ``certify --out`` is the exception by design:
it keeps every complete row (``--resume`` continues it).
"""

from __future__ import annotations

import builtins
import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from optalloc import instance_path
from optalloc._files import output_file, output_path
from optalloc.cli import main
from optalloc.qap import write_qaplib
from optalloc.sim import Job, Trace, certify, write_swf

TRACE = str(instance_path("small.swf"))
ROOT = Path(__file__).resolve().parents[1]


class _FullFile:
    """A file on a disk with ``room`` bytes left: the write that passes it
    writes what fits, then raises ENOSPC (a record cut in its middle)."""

    def __init__(self, fh, disk):
        self._fh, self._disk = fh, disk

    def write(self, data):
        room = self._disk["room"]
        if len(data) > room:
            self._fh.write(data[:room])
            self._fh.flush()
            self._disk["room"] = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._disk["room"] = room - len(data)
        return self._fh.write(data)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __iter__(self):
        return iter(self._fh)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


@pytest.fixture
def full_disk(tmp_path, monkeypatch):
    """Files opened for writing in ``tmp_path`` share 100 bytes of room."""
    disk = {"room": 100}
    real_open = builtins.open

    def open_(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        inside = isinstance(file, (str, os.PathLike)) and Path(os.fspath(file)).resolve().is_relative_to(tmp_path)
        if inside and any(c in mode for c in "wax+"):
            return _FullFile(fh, disk)
        return fh

    monkeypatch.setattr(builtins, "open", open_)
    return disk


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _run(capsys, args):
    code = main(args)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("optalloc: error:")]
    return code, lines


#: commands writing a result file (OUT stands for its path), each with a few hundred bytes at least
COMMANDS = {
    "simulate-csv": ["simulate", TRACE, "--machine", "8x4", "--jobs", "30", "-q", "--out", "OUT.csv"],
    "simulate-jsonl": ["simulate", TRACE, "--machine", "8x4", "--jobs", "30", "-q", "--out", "OUT.jsonl"],
    "simulate-batsim": ["simulate", TRACE, "--machine", "8x4", "--jobs", "30", "-q", "--format", "batsim",
                        "--out", "OUT.csv"],
    "solve": ["solve", "--machine", "16x16", "--k", "60", "--out", "OUT.txt"],
    "order": ["order", "--machine", "8x8", "--method", "snake", "-q", "--out", "OUT.txt"],
    "map": ["map", "--pattern", "ring:64", "--machine", "8x8", "--method", "consecutive", "-q", "--out", "OUT.txt"],
    "certify-plot": ["certify", "--jobs", "4", "--no-exact", "-q", "--plot", "OUT.png"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_full_disk_leaves_no_partial_file(name, tmp_path, full_disk, capsys):
    target = tmp_path / Path(COMMANDS[name][-1]).name
    args = [str(target) if a == COMMANDS[name][-1] else a for a in COMMANDS[name]]
    code, errors = _run(capsys, args)
    assert full_disk["room"] == 0, "the command wrote less than the disk held: no failure injected"
    assert code == 2
    assert errors == [f"optalloc: error: cannot write {target}: No space left on device"]
    assert _left(tmp_path) == [], "a partial or temporary file was left"


@pytest.mark.parametrize("name", ["simulate-csv", "order", "certify-plot"])
def test_a_full_disk_keeps_the_users_file(name, tmp_path, full_disk, capsys):
    target = tmp_path / Path(COMMANDS[name][-1]).name
    target.write_bytes(b"the user's own file\n")  # written before the disk fills (real open: no wrapper)
    before = target.read_bytes()
    args = [str(target) if a == COMMANDS[name][-1] else a for a in COMMANDS[name]] + ["--force"]
    code, errors = _run(capsys, args)
    assert code == 2 and errors == [f"optalloc: error: cannot write {target}: No space left on device"]
    assert target.read_bytes() == before
    assert _left(tmp_path) == [target.name]


@pytest.mark.parametrize("name", ["simulate-csv", "order", "certify-plot"])
def test_with_room_the_file_is_written_whole(name, tmp_path, full_disk, capsys):
    full_disk["room"] = 10**9
    target = tmp_path / Path(COMMANDS[name][-1]).name
    args = [str(target) if a == COMMANDS[name][-1] else a for a in COMMANDS[name]]
    code, errors = _run(capsys, args)
    assert (code, errors) == (0, [])
    assert _left(tmp_path) == [target.name] and target.stat().st_size > 100


def test_the_plot_command_on_a_full_disk(tmp_path, capsys, monkeypatch):
    cert = tmp_path / "cert.csv"
    assert main(["certify", "--jobs", "4", "--no-exact", "-q", "--out", str(cert)]) == 0
    capsys.readouterr()
    out = tmp_path / "fig" / "gaps.png"
    out.parent.mkdir()
    disk = {"room": 100}
    real_open = builtins.open

    def open_(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        if isinstance(file, (str, os.PathLike)) and Path(os.fspath(file)).parent == out.parent and "w" in mode:
            return _FullFile(fh, disk)
        return fh

    monkeypatch.setattr(builtins, "open", open_)
    code, errors = _run(capsys, ["plot", "gaps", str(cert), "-o", str(out)])
    assert code == 2 and errors == [f"optalloc: error: cannot write {out}: No space left on device"]
    assert _left(out.parent) == []


def test_certify_decision_file_keeps_its_complete_rows(tmp_path, full_disk, capsys):
    # the resumable decision file is appended to as rows are certified: on a full disk
    # the error names it and the rows written before stay, for --resume
    target = tmp_path / "rows.csv"
    full_disk["room"] = 800  # the header and a few rows
    code, errors = _run(capsys, ["certify", "--jobs", "20", "--no-exact", "-q", "--out", str(target)])
    assert code == 2 and errors == [f"optalloc: error: cannot write {target}: No space left on device"]
    lines = target.read_text().splitlines(keepends=True)
    assert len(lines) >= 2 and lines[0].startswith("index,")
    assert not lines[-1].endswith("\n"), "the injected failure cut a row"
    full_disk["room"] = 10**9
    code, errors = _run(capsys, ["certify", "--jobs", "20", "--no-exact", "-q", "--out", str(target), "--resume"])
    assert (code, errors) == (0, [])
    fresh = tmp_path / "fresh.csv"
    assert main(["certify", "--jobs", "20", "--no-exact", "-q", "--out", str(fresh)]) == 0
    assert _rows(target) == _rows(fresh) and len(_rows(fresh)) == 20


def _rows(path):
    """The decision rows of a certify CSV, without the columns that depend on the run (time, cache)."""
    import csv

    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [{k: v for k, v in r.items() if k not in ("cached", "exact_seconds")} for r in rows]


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="RLIMIT_FSIZE on Linux")
def test_a_write_the_kernel_refuses(tmp_path):
    # no injection: the kernel refuses to grow a file past 4000 bytes (EFBIG), as it refuses past a full disk
    import resource
    import signal

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4000, 4000))

    target = tmp_path / "jobs.csv"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-m", "optalloc.cli", "simulate", TRACE, "--machine", "8x4", "-q",
                          "--out", str(target)], preexec_fn=limit, capture_output=True, text=True, env=env,
                         check=False, timeout=300)
    assert run.returncode == 2
    assert run.stderr.splitlines() == [f"optalloc: error: cannot write {target}: {os.strerror(errno.EFBIG)}"]
    assert _left(tmp_path) == []


# ---------------------------------------------------------------- the library's writers


def test_library_writers_on_a_full_disk(tmp_path, full_disk):
    trace = Trace([Job(i, float(i), 10.0, 1 + i % 4, 20.0) for i in range(60)], max_procs=8)
    cert = certify(trace.head(6), "4x2", exact=False)
    writers = {
        "t.swf": lambda p: write_swf(trace, p),
        "q.dat": lambda p: write_qaplib(p, np.ones((20, 20)), np.ones((20, 20))),
        "c.csv": lambda p: cert.to_csv(p),
        "c.jsonl": lambda p: cert.to_jsonl(p),
        "s.jsonl": lambda p: cert.simulation.to_jsonl(p),
    }
    for name, write in writers.items():
        full_disk["room"] = 50
        with pytest.raises(OSError, match=f"cannot write .*{name}: No space left on device") as info:
            write(tmp_path / name)
        assert info.value.errno == errno.ENOSPC
        assert _left(tmp_path) == [], name


def test_output_file_replaces_only_when_asked_and_only_when_whole(tmp_path):
    target = tmp_path / "out.txt"
    with output_file(target) as fh:
        fh.write("one\n")
    with pytest.raises(FileExistsError, match="exists; pass overwrite=True"), output_file(target) as fh:
        fh.write("two\n")
    with pytest.raises(RuntimeError), output_file(target, overwrite=True) as fh:
        fh.write("half")
        raise RuntimeError("stopped")
    assert target.read_text() == "one\n" and _left(tmp_path) == ["out.txt"]
    target.chmod(0o640)
    with output_file(target, overwrite=True) as fh:
        fh.write("three\n")
    assert target.read_text() == "three\n" and stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_file_made_meanwhile_is_not_replaced(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(FileExistsError), output_path(target) as tmp:
        Path(tmp).write_text("mine\n")
        target.write_text("someone else's\n")  # appears while the result is written
    assert target.read_text() == "someone else's\n" and _left(tmp_path) == ["out.txt"]


def test_the_temporary_file_is_beside_the_target_and_keeps_its_extension(tmp_path):
    with output_path(tmp_path / "fig.png") as tmp:
        assert Path(tmp).parent == tmp_path and tmp.endswith(".png") and Path(tmp).name.startswith(".")
        Path(tmp).write_bytes(b"x")
    assert _left(tmp_path) == ["fig.png"]
