"""Decision rows of a certification in files: CSV or JSON lines.

:class:`_RowFile` writes each row as soon as it is certified and flushes,
so that a run cut short keeps what it did, and reads an earlier file back
(:class:`_Stored` rows) to resume it.  The columns: index, job id, time,
k, free nodes, the bracket [lower, upper], status, best allocators,
cached, exact seconds, then W, ratio_low and ratio_high of each allocator,
and on a torus or network the metric (``"torus"``, ``"network"``; a JSON
line has a ``"metric"`` key): a mesh's files keep the layout they had.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
from dataclasses import dataclass

from ._rows import DecisionRow, _row_dict


def _open_new(path, overwrite):
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
    return open(path, "w", encoding="utf-8", newline="")


def _csv_head(names, metric="l1") -> list[str]:
    head = ["index", "job_id", "time", "k", "n_free", "lower", "upper", "status", "best", "cached",
            "exact_seconds"]
    for n in names:
        head += [f"W[{n}]", f"ratio_low[{n}]", f"ratio_high[{n}]"]
    if metric != "l1":  # a torus or a network: every row says so (mesh files keep their layout)
        head.append("metric")
    return head


@dataclass(frozen=True)
class _Stored:
    """What a decision row written earlier says (read back to resume a run)."""

    k: int
    n_free: int
    W: tuple
    lower: float
    upper: float
    status: str
    exact_seconds: float
    cached: bool


class _RowFile:
    """Decision rows written one by one (``.csv``, or ``.jsonl``/``.json``) and
    flushed, so that a run cut short keeps what it certified.

    With ``resume`` an existing file is read back (:attr:`stored`, by
    decision index) and continued: anything after its last complete row
    (a line cut by the interruption, the summary of a finished run) is
    dropped, and new rows are appended.
    """

    def __init__(self, path, names, *, overwrite=False, resume=False, kind=None, metric="l1"):
        self.path, self.names, self.metric = os.fspath(path), tuple(names), metric
        if kind is None:
            kind = "csv" if self.path.lower().endswith(".csv") else "jsonl"
        self.kind = kind
        self.stored: dict[int, _Stored] = {}
        if resume and overwrite:
            raise ValueError("`resume` continues the file and `overwrite` replaces it: pass one of them")
        if resume and os.path.exists(self.path):
            keep = self._read_back()
            self.fh = open(self.path, "r+", encoding="utf-8", newline="")  # noqa: SIM115 - closed by close()
            self.fh.truncate(keep)
            self.fh.seek(keep)
        else:
            self.fh = _open_new(self.path, overwrite)
        self.csv = csv.writer(self.fh) if kind == "csv" else None
        if self.csv is not None and not self.stored and self.fh.tell() == 0:
            with self._naming():
                self.csv.writerow(_csv_head(self.names, self.metric))
                self.fh.flush()

    def _read_back(self) -> int:
        """Parse the rows of the file; return the byte length of the part to keep."""
        with open(self.path, "rb") as fh:
            data = fh.read()
        keep, lines = 0, []
        for line in data.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break  # cut by the interruption
            lines.append(line.decode("utf-8"))
            keep += len(line)
        what = f"cannot resume {self.path}"
        if self.kind == "csv":
            if not lines:
                return 0
            rows = list(csv.reader(lines))
            if rows[0] != _csv_head(self.names, self.metric):
                raise ValueError(f"{what}: its columns are not those of this run (other allocators or machine?)")
            for cells in rows[1:]:
                rec = dict(zip(rows[0], cells))
                try:
                    self.stored[int(rec["index"])] = _Stored(
                        int(rec["k"]), int(rec["n_free"]), tuple(float(rec[f"W[{n}]"]) for n in self.names),
                        float(rec["lower"]), float(rec["upper"]), rec["status"], float(rec["exact_seconds"]),
                        bool(int(rec["cached"])))
                except (KeyError, ValueError):
                    raise ValueError(f"{what}: a row is not a decision row: {cells!r}") from None
            return keep
        keep = 0
        for line in lines:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise ValueError(f"{what}: not a JSON line: {line[:60]!r}") from None
            if "summary" in rec:
                break  # a finished run: its summary is written again at the end
            try:
                if list(rec["W"]) != list(self.names):
                    raise ValueError(f"{what}: its allocators are not those of this run")
                if rec.get("metric", "l1") != self.metric:
                    raise ValueError(f"{what}: its metric is {rec.get('metric', 'l1')!r}, this run's {self.metric!r}")
                self.stored[int(rec["index"])] = _Stored(
                    int(rec["k"]), int(rec["n_free"]), tuple(float(rec["W"][n]) for n in self.names),
                    float(rec["lower"]), float(rec["upper"]), rec["status"], float(rec["exact_seconds"]),
                    bool(rec["cached"]))
            except (KeyError, TypeError):
                raise ValueError(f"{what}: a line is not a decision row: {line[:60]!r}") from None
            keep += len(line.encode("utf-8"))
        return keep

    def write(self, r: DecisionRow) -> None:
        """Write and flush one decision row, unless the file already holds it."""
        if r.index in self.stored:
            return
        with self._naming():
            self._write(r)

    def _write(self, r: DecisionRow) -> None:
        if self.csv is not None:
            row = [r.index, r.job_id, r.time, r.k, r.n_free, r.lower, r.upper, r.status,
                   " ".join(r.best(self.names)), int(r.cached), f"{r.exact_seconds:.6f}"]
            for wv, (lo, hi) in zip(r.W, r.ratios()):
                row += [wv, lo, hi]
            if self.metric != "l1":
                row.append(self.metric)
            self.csv.writerow(row)
        else:
            rec = _row_dict(r, self.names)
            if self.metric != "l1":
                rec["metric"] = self.metric
            self.fh.write(json.dumps(rec) + "\n")
        self.fh.flush()

    def finish(self, summary: dict) -> None:
        """End a JSON-lines file with the run's summary (``Certification.to_dict()``)."""
        if self.csv is None:
            with self._naming():
                self.fh.write(json.dumps({"summary": summary}) + "\n")

    def close(self) -> None:
        with self._naming():
            self.fh.close()

    @contextlib.contextmanager
    def _naming(self):
        """A failed write (a full disk) raises an OSError that names the file;
        the rows written before it stay, complete (a cut line is dropped on resume)."""
        try:
            yield
        except OSError as exc:
            why = os.strerror(exc.errno) if exc.errno else str(exc)
            raise OSError(exc.errno, f"cannot write {self.path}: {why}") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
