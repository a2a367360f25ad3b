"""Reading back the decision file of a certification (``certify(out=...)``).

:func:`read_certification` parses the CSV or JSON-lines file that
:func:`certify` writes (and ``optalloc certify --out``) into a
:class:`CertificationFile`: the :class:`DecisionRow` of every decision and
the allocators' names, which is all the ratio pictures need.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass

from ._rows import DecisionRow, DecisionRows

__all__ = ["CertificationFile", "read_certification"]

_HEAD = ("index", "job_id", "time", "k", "n_free", "lower", "upper", "status", "best", "cached", "exact_seconds")


@dataclass(frozen=True)
class CertificationFile(DecisionRows):
    """The decisions of a certification, read back from its file.

    Attributes
    ----------
    path : str
    names : tuple of str
        The allocators compared, in the order of the file's columns.
    rows : tuple of DecisionRow
        One per decision; ``guarantee`` is None for every allocator (the
        file does not hold it).
    driver, machine, scheduler : str or None
        From the summary line that ends a JSON-lines file of a finished
        run; None for a CSV file or an interrupted run.
    metric : str
        ``"l1"`` (a mesh), ``"torus"`` or ``"network"``: the distance of W
        (the rows of a torus or network say so).
    """

    path: str
    names: tuple
    rows: tuple
    driver: str | None = None
    machine: str | None = None
    scheduler: str | None = None
    metric: str = "l1"



def read_certification(path) -> CertificationFile:
    """The decisions of a certification file (CSV or JSON lines).

    Parameters
    ----------
    path : str or path-like
        A file written by :func:`certify` with ``out=`` (or by
        ``optalloc certify --out``); the format is told by its content. A
        last line cut short by an interrupted run is ignored.

    Returns
    -------
    CertificationFile

    Raises
    ------
    ValueError
        No such file, or not a certification file (the message names the
        line).

    Examples
    --------
    >>> import os, tempfile
    >>> from optalloc.sim import Job, certify, read_certification
    >>> path = os.path.join(tempfile.mkdtemp(), "cert.csv")
    >>> cert = certify([Job(1, 0, 10, 5), Job(2, 1, 10, 6)], "4x4", allocators=("mm", "mc1x1"), out=path)
    >>> back = read_certification(path)
    >>> back.names, len(back), bool((back.ratios("mm") == cert.ratios("mm")).all())
    (('mm', 'mc1x1'), 2, True)
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such certification file")
    with open(path, encoding="utf-8", newline="") as fh:
        text = fh.read()
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        last = lines.pop()  # the write an interrupted run did not finish, unless it parses
    else:
        last = None
    start = text.lstrip()[:1]
    if start == "{":
        return _read_jsonl(path, lines, last)
    if text.startswith(_HEAD[0] + ","):
        return _read_csv(path, lines, last)
    raise ValueError(f"{path}: not a certification file (the CSV or JSON lines of certify's `out`)")


def _row(index, job_id, time, k, n_free, lower, upper, status, exact_seconds, cached, W) -> DecisionRow:
    return DecisionRow(int(index), int(job_id), float(time), int(k), int(n_free), tuple(float(w) for w in W),
                       (None,) * len(W), float(lower), float(upper), str(status), float(exact_seconds), bool(cached))


def _read_csv(path, lines, last) -> CertificationFile:
    table = list(csv.reader(lines))
    head = table[0]
    names = tuple(c[2:-1] for c in head if c.startswith("W[") and c.endswith("]"))
    want = list(_HEAD) + [f"{what}[{n}]" for n in names for what in ("W", "ratio_low", "ratio_high")]
    has_metric = head[-1:] == ["metric"]
    if has_metric:
        want.append("metric")
    if not names or head != want:
        raise ValueError(f"{path}: line 1 is not the head of a certification CSV file")
    rows = []
    for lineno, cells in enumerate(table[1:], 2):
        rows.append(_csv_row(path, lineno, head, cells, names))
    if last is not None:
        try:
            rows.append(_csv_row(path, len(table) + 1, head, next(csv.reader([last])), names))
        except ValueError:
            pass
    metric = "l1"
    if has_metric and len(table) > 1:
        metric = table[1][-1]
    return CertificationFile(path, names, tuple(rows), metric=metric)


def _csv_row(path, lineno, head, cells, names) -> DecisionRow:
    if len(cells) != len(head):
        raise ValueError(f"{path}: line {lineno} has {len(cells)} cells, the head {len(head)}")
    rec = dict(zip(head, cells))
    try:
        return _row(rec["index"], rec["job_id"], rec["time"], rec["k"], rec["n_free"], rec["lower"], rec["upper"],
                    rec["status"], rec["exact_seconds"], int(rec["cached"]), [rec[f"W[{n}]"] for n in names])
    except ValueError:
        raise ValueError(f"{path}: line {lineno} is not a decision row") from None


def _read_jsonl(path, lines, last) -> CertificationFile:
    names, rows, summary, metric = None, [], {}, "l1"
    items = [(i, line, False) for i, line in enumerate(lines, 1)]
    if last is not None:
        items.append((len(lines) + 1, last, True))
    for lineno, line, cut in items:
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            if "summary" in rec:
                summary = rec["summary"] if isinstance(rec["summary"], dict) else {}
                continue
            here = tuple(rec["W"])
            row = _row(rec["index"], rec["job_id"], rec["time"], rec["k"], rec["n_free"], rec["lower"],
                       rec["upper"], rec["status"], rec["exact_seconds"], rec["cached"],
                       [rec["W"][n] for n in here])
        except (KeyError, TypeError, ValueError):  # ValueError: a JSON error too
            if cut:
                break
            raise ValueError(f"{path}: line {lineno} is not a decision row") from None
        if names is None:
            names = here
            metric = rec.get("metric", "l1")
        elif here != names:
            raise ValueError(f"{path}: line {lineno} compares other allocators than the lines before")
        rows.append(row)
    if names is None:
        raise ValueError(f"{path}: no decision rows")
    return CertificationFile(path, names, tuple(rows), summary.get("driver"), summary.get("machine"),
                             summary.get("scheduler"), summary.get("metric", metric))
