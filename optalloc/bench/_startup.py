"""The start-up suite: the wall time of ``optalloc --help`` in a fresh interpreter.

Each case starts a new Python process (``sys.executable``) ``runs`` times,
in turn with ``python -c pass`` (the interpreter's own start-up: the
baseline), after one run of each that is not counted (it writes the
bytecode caches), and keeps the median wall time of each side. The check
(``light``): the command exits with 0 and, in one more run, imports none of
the packages that load on first use only (:data:`HEAVY`).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from optalloc._table import text_table

#: Packages that load when a command needs them, never at start-up.
HEAVY = ("numba", "pyomo", "matplotlib", "dask", "distributed")

#: (case, what it runs after ``python``, the same as Python statements for the check)
CASES = (
    ("optalloc --help", ("-m", "optalloc.cli", "--help"),
     "from optalloc.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"),
    ("import optalloc", ("-c", "import optalloc"), "import optalloc"),
)

BASELINE = ("-c", "pass")

_PROBE = """import contextlib, io, sys
with contextlib.redirect_stdout(io.StringIO()):
{body}
print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set(sys.argv[1:]))))
"""


@dataclass
class StartupRow:
    """One command: its median wall time against ``python -c pass``.

    Attributes
    ----------
    case, command : str
        What runs (the command as typed).
    seconds, baseline_seconds : float
        Median wall times of the command and of ``python -c pass``.
    baseline : str
        The baseline command.
    runs : int
        Runs of each side.
    heavy : list of str
        The packages of :data:`HEAVY` the command loaded (none expected).
    ok : bool
        It exited with 0 every time and loaded none of them.
    """

    case: str
    command: str
    seconds: float
    baseline: str
    baseline_seconds: float
    runs: int
    heavy: list
    ok: bool

    @property
    def overhead(self) -> float:
        """Seconds above the bare interpreter's start-up."""
        return self.seconds - self.baseline_seconds

    def to_dict(self) -> dict:
        return {**self.__dict__, "overhead": self.overhead}


def _wall(argv) -> tuple[float, int]:
    t = time.perf_counter()
    code = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          check=False).returncode
    return time.perf_counter() - t, code


def _heavy_loaded(statements: str) -> list[str]:
    body = "\n".join("    " + line for line in statements.splitlines())
    out = subprocess.run([sys.executable, "-c", _PROBE.format(body=body), *HEAVY], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def run_startup(*, quick: bool = False, repeat: int = 5, progress=None) -> list[StartupRow]:
    """One :class:`StartupRow` per case of :data:`CASES`: ``repeat`` runs
    of each side (3 with ``quick``), the medians kept."""
    runs = min(repeat, 3) if quick else repeat
    base = [sys.executable, *BASELINE]
    rows = []
    for case, args, statements in CASES:
        if progress is not None:
            progress(case)
        argv = [sys.executable, *args]
        _wall(argv), _wall(base)  # not counted: bytecode caches, disk
        ours, theirs, codes = [], [], set()
        for _ in range(runs):  # in turn, so that a drift of the machine's speed hits both sides
            t, code = _wall(argv)
            ours.append(t)
            codes.add(code)
            theirs.append(_wall(base)[0])
        heavy = _heavy_loaded(statements)
        rows.append(StartupRow(case, "python " + " ".join(args), statistics.median(ours),
                               "python " + " ".join(BASELINE), statistics.median(theirs), runs, heavy,
                               codes == {0} and not heavy))
    return rows


def format_startup_table(rows: list[StartupRow]) -> str:
    """The text table of :class:`StartupRow` rows."""
    head = ("case", "command", "median", "baseline", "baseline median", "above baseline", "runs", "light")
    body = [(r.case, r.command, f"{r.seconds * 1e3:.0f} ms", r.baseline, f"{r.baseline_seconds * 1e3:.0f} ms",
             f"{r.overhead * 1e3:+.0f} ms", str(r.runs), "yes" if r.ok else "NO: " + (", ".join(r.heavy) or "exit"))
            for r in rows]
    return text_table(head, body)
