"""The tables of the guide that no ``optalloc`` command prints as they stand.

One function per table; each runs what the table measures and returns the
Markdown table as the page shows it.  From the shell::

    python scripts/docs_tables.py startup --before DIR [--runs 20]
        docs/benchmarks.md, "Start-up": ``optalloc --help`` before and after
        the lazy imports, as whole processes.  DIR is a checkout of the tree
        before them (commit 2a16f42^, e.g. ``git archive 2a16f42^ | tar -x
        -C DIR``); without --before both columns measure this tree.  About a
        minute with the default 20 runs.
    python scripts/docs_tables.py sim-bench [--quick]
        docs/certify.md, "Cache and time": ``optalloc bench --suite sim``
        (``optalloc.bench.run_sim_bench``) as a table.  Needs the NASA
        iPSC/860 trace in ../shared/data/traces/; a few minutes, seconds
        with --quick (the small slices: other rows than the page's).

The figures on the pages are reference runs (each page says when and
where); the timings depend on the machine, so rerunning a table gives
other figures in the same layout.  ``tests/test_docs_tables.py`` runs the
quick forms and checks that they give the pages' layout.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# ---------------------------------------------------------------- start-up before / after

#: ``optalloc --help`` as a whole process, the interpreter started directly.
HELP = "import sys; from optalloc.cli import main; sys.exit(main(['--help']))"

STARTUP_ROWS = (
    ("nocache", "without bytecode caches (`PYTHONDONTWRITEBYTECODE=1`), wall"),
    ("nocache-cpu", "the same, CPU (user + system)"),
    ("cache", "with bytecode caches (`.pyc` written once), wall"),
    ("pass", "`python -c pass`, wall"),
)


def _timed(argv: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one process, run in the folder of its tree
    (``python -c`` puts the working folder first on ``sys.path``)."""
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, env=env, cwd=env["PYTHONPATH"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _tree_copy(tree: Path, into: Path) -> Path:
    """A copy of ``tree/optalloc`` without bytecode caches, to put first on PYTHONPATH."""
    shutil.copytree(tree / "optalloc", into / "optalloc", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return into


def _environment(path: Path, *, write_bytecode: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["PYTHONPATH"] = str(path)
    if not write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _imported_from(path: Path) -> Path:
    env = _environment(path, write_bytecode=False)
    out = subprocess.run([sys.executable, "-c", "import optalloc; print(optalloc.__file__)"], env=env,
                         cwd=path, check=True, capture_output=True, text=True).stdout.strip()
    return Path(out).resolve()


def measure_startup(trees: dict[str, Path], runs: int = 20) -> dict[str, dict[str, float]]:
    """Median seconds of each row of :data:`STARTUP_ROWS` for each tree.

    The commands of all trees are taken in turn, run after run, so that a
    change of load touches every column alike.
    """
    with tempfile.TemporaryDirectory() as tmp:
        copies = {name: _tree_copy(tree, Path(tmp) / name) for name, tree in trees.items()}
        for name, path in copies.items():
            got = _imported_from(path)
            if not got.is_relative_to(path.resolve()):
                raise RuntimeError(f"the {name} copy is not what Python imports ({got})")
        help_cmd = [sys.executable, "-c", HELP]
        times: dict[str, dict[str, list[float]]] = {n: {k: [] for k, _ in STARTUP_ROWS} for n in trees}
        # without caches: the copies have no __pycache__ and write none
        for _ in range(runs):
            for name, path in copies.items():
                wall, cpu = _timed(help_cmd, _environment(path, write_bytecode=False))
                times[name]["nocache"].append(wall)
                times[name]["nocache-cpu"].append(cpu)
        # with caches: written once, then read
        for path in copies.values():
            _timed(help_cmd, _environment(path, write_bytecode=True))
        for _ in range(runs):
            for name, path in copies.items():
                times[name]["cache"].append(_timed(help_cmd, _environment(path, write_bytecode=True))[0])
                times[name]["pass"].append(_timed([sys.executable, "-c", "pass"],
                                                  _environment(path, write_bytecode=True))[0])
    return {n: {k: statistics.median(v) for k, v in rows.items()} for n, rows in times.items()}


def startup_table(before: Path | None = None, runs: int = 20) -> str:
    """docs/benchmarks.md, "Start-up": the before / after table of ``optalloc --help``."""
    medians = measure_startup({"before": before or ROOT, "after": ROOT}, runs)
    lines = ["| `optalloc --help` | before | after | before / after |", "|---|---|---|---|"]
    for key, label in STARTUP_ROWS:
        b, a = medians["before"][key], medians["after"][key]
        ratio = "" if key == "pass" else f"{b / a:.2f}"
        lines.append(f"| {label} | {b:.3f} s | {a:.3f} s | {ratio} |".replace("|  |", "| |"))
    return "\n".join(lines)


# ---------------------------------------------------------------- the sim suite

_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _secs(t: float) -> str:
    return f"{t:.1f} s" if t < 100 else f"{t:.0f} s"


def _sim_row(row) -> tuple[str, str]:
    """The page's case and baseline texts for a row of ``run_sim_bench``."""
    if row.case.startswith("simulate mc1x1"):
        n = int(re.search(r"(\d+) jobs", row.instance).group(1))
        mesh = re.search(r"(\d+)x(\d+) mesh", row.instance).groups()
        return f"simulate, NASA, {n:,} jobs, {mesh[0]} x {mesh[1]}, EASY, MC1x1", "MC1x1's cache off"
    m = re.fullmatch(r"certify, first (\d+) jobs \((\d+) cache hits\)", row.case)
    if m:
        alloc = int(re.search(r"(\d+) allocators", row.instance).group(1))
        case = f"certify, NASA / 4, first {m.group(1)} jobs, 8 x 4, {_WORDS.get(alloc, alloc)} allocators"
        return f"{case} ({m.group(2)} cache hits)", "every cache off"
    m = re.fullmatch(r"certify \((\d+)/(\d+) proven, (\d+) cache hits\)", row.case)
    if m:
        proven, n, hits = (int(g) for g in m.groups())
        factor = re.search(r"x(\d+\.\d+)", row.baseline).group(1)
        proof = "all proven" if proven == n else f"{proven:,} proven"
        return (f"certify, NASA / 4, all {n:,} jobs ({proof}, {hits:,} cache hits)",
                f"every cache off, estimated x{factor}")
    raise ValueError(f"a row of the sim suite this table does not know: {row.case!r}")


def sim_bench_table(quick: bool = False) -> str:
    """docs/certify.md, "Cache and time": the rows of ``optalloc bench --suite sim``."""
    from optalloc.bench import nasa_trace_path, run_sim_bench

    if not nasa_trace_path().is_file():
        raise FileNotFoundError(f"the NASA trace is needed: {nasa_trace_path()}")
    lines = ["| case | time | baseline | baseline time |", "|---|---|---|---|"]
    for row in run_sim_bench(quick=quick):
        case, baseline = _sim_row(row)
        lines.append(f"| {case} | {_secs(row.seconds)} | {baseline} | {_secs(row.baseline_seconds)} |")
    return "\n".join(lines)


# ---------------------------------------------------------------- command line

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="table", required=True)
    p = sub.add_parser("startup", help="docs/benchmarks.md: optalloc --help before and after")
    p.add_argument("--before", type=Path, help="a checkout of the tree before the change (default: this tree)")
    p.add_argument("--runs", type=int, default=20, help="runs of each command (default 20)")
    p = sub.add_parser("sim-bench", help="docs/certify.md: the sim suite")
    p.add_argument("--quick", action="store_true", help="the small slices (seconds)")
    args = parser.parse_args(argv)
    if args.table == "startup":
        print(startup_table(args.before, args.runs))
    else:
        print(sim_bench_table(args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
