"""Every example of README.md and the guide runs from any directory with
optalloc installed from its wheel.

A wheel of the project is built (``pip wheel --no-deps
--no-build-isolation``, from a copy of the sources) and installed into a
fresh virtual environment that sees this interpreter's packages
(``--system-site-packages``; ``pip install --no-deps --no-index``:
offline). The examples run from an empty temporary directory with that
environment's ``optalloc`` script and interpreter, so they can rely on
nothing of the clone: they read the bundled instances by name. What runs
by default runs the compiled kernels as plain Python
(``NUMBA_DISABLE_JIT``: the same answers, without the minute of CPU that
compiling them in a fresh install takes), but for the pages listed in
``COMPILED_PAGES`` (their kernels compile in less time than they run as
plain Python); what runs only with ``-m slow`` compiles them, as
``tests/test_install.py`` does for README's command. Blocks with the same
setup and commands run once (each runs in an empty folder of its own, so
they print the same).

The examples are collected from the Markdown of ``README.md`` and
``docs/**/*.md``, so a new one is run without being listed here:

- commands: the ``$ `` lines of a code block that runs ``optalloc`` (not a
  ``python`` block), and the lines starting with ``optalloc `` of a
  ``console``, ``sh``, ``bash`` or ``shell`` block. Each runs in bash, one
  folder per block, in order, after the block's ``<!-- transcript: setup
  COMMAND -->`` marks (files the block reads; see
  ``tests/test_doc_transcripts.py``). ``pip install ... &&`` before a
  command is dropped: the wheel is installed. ``$ echo $?`` is not run: it
  shows the exit code of the command before. A command must exit with
  that code, else with 2 when the block shows it printing ``optalloc:
  error: ...`` (and must print that line, a bundled file's path as a clone
  prints it: ``optalloc/instances/NAME``), else with 0.
- Python: the ``>>>`` examples of a file, as one doctest per file (a
  page's examples share their names, as under ``pytest
  --doctest-glob=*.md``), must print what they show; a ``python`` block
  without ``>>>`` is run as a script and must exit with 0.

What does not run by default is listed below with its reason: commands
that take minutes or need data that is not shipped are skipped; commands
and pages that take more than a few seconds are marked slow (``-m slow``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

#: one worker of pytest-xdist builds and installs the wheel for all the tests that use it
pytestmark = pytest.mark.xdist_group("wheel")

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

#: commands not run, with the reason (each must still appear in the docs)
SKIP = {
    # reference runs of the benchmarks that take minutes (docs/benchmarks.md gives their times)
    "optalloc bench --suite exact 2>/dev/null": "the exact suite's reference run takes minutes",
    "optalloc bench --suite qap 2>/dev/null": "the qap suite's reference run takes minutes and reads QAPLIB, "
                                              "which is not shipped",
    "optalloc bench --suite curves 2>/dev/null": "the curves suite's reference run takes minutes",
    "optalloc bench --suite ptas 2>/dev/null": "the ptas suite's reference run: its compiled searches and the exact "
                                               "solver on 100 points, seconds each",
    # data that is not shipped: QAPLIB sits beside the repository, not in the package
    "optalloc qap ../shared/data/qaplib/nug20.dat --iterations 5000": "reads QAPLIB's nug20, which is not shipped",
}

#: commands run only with ``-m slow`` (more than a few seconds each)
SLOW = {
    "optalloc bench --quick 2>/dev/null": "the quick benchmark repeats every case",
    "optalloc bench 2>/dev/null": "the full benchmark",
    "optalloc bench --suite startup 2>/dev/null": "starts Python a dozen times",
    "optalloc sweep sweep-example.toml --db sweep.sqlite > /dev/null": "six simulations in a pool of processes, "
                                                                       "beside three figures drawn by matplotlib",
    "optalloc solve --map mesh16x16.txt --k 40 --method exact --time-limit 1":
        "a time-limited exact solve: its kernels as plain Python run ten times the limit",
}

#: ``python`` blocks without ``>>>`` (scripts) not run, by file
SCRIPTS_SKIP = {
    "docs/benchmarks.md": "reference runs of the benchmarks, minutes each (exact solves with time limits of "
                          "a minute), their loops abbreviated with ...",
    "docs/experiments.md": "the scripts behind the log of experiments: exact solves with time limits of a minute",
}

#: pages whose ``>>>`` examples run only with ``-m slow``
SLOW_PAGES = {
    "docs/certify.md": "certifies the 120 decisions of the bundled trace several times",
    "docs/methods/metric.md": "exact solves on tori and networks, some proven by the compiled searches",
    "docs/methods/bounds.md": "box and profile bounds on many instances",
    "docs/curves.md": "orderings searched by the tabu search",
    # the first call of the compiled searches in a fresh install compiles them (tens of seconds)
    "docs/methods/exact.md": "the shape search proves the example (phase 'shapes'), compiled at its first call",
    "docs/topologies/dragonfly.md": "the search over group and router counts proves the example (phase 'counts'), "
                                    "compiled at its first call",
}

#: pages whose ``>>>`` examples run compiled by default (in a process of their own): their examples
#: run longer as plain Python than compiling their kernels in the fresh install takes
COMPILED_PAGES = {
    "docs/methods/multilevel-mapping.md": "the multilevel mapping of 1,024 tasks, whose refinement loops are "
                                          "slow as plain Python",
}

FENCE = re.compile(r"^\s*(```+|~~~+)\s*(\S*)")
SETUP = re.compile(r"^\s*<!--\s*transcript:\s*setup\s+(.*?)\s*-->\s*$")
SHELL_INFO = ("console", "sh", "bash", "shell")
DOCTEST_FLAGS = "ELLIPSIS"  # pytest's default doctest_optionflags, as the in-tree doctests run


# --------------------------------------------------------------------------- collecting the examples

@dataclass
class Block:
    """A fenced code block: where it is, its info string, its lines and the setup marks above it."""

    path: Path
    line: int  # 1-based line of the opening fence
    info: str
    lines: list[str]
    setup: list[str] = field(default_factory=list)

    @property
    def file(self) -> str:
        return self.path.relative_to(ROOT).as_posix()

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"

    def commands(self) -> list[tuple[str, int, str | None]]:
        """(command, expected exit code, expected error line or None) of each command of the block;
        none unless the block runs ``optalloc``."""
        if self.info.startswith("python"):
            return []
        out: list[list] = []
        if any(x.startswith("$ ") for x in self.lines):
            steps: list[tuple[str, list[str]]] = []  # each command and the lines shown after it
            for text in self.lines:
                if text.startswith("$ "):
                    steps.append((text[2:].strip(), []))
                elif steps:
                    steps[-1][1].append(text)
            for command, shown in steps:
                if command == "echo $?":  # the exit code of the command before
                    if out:
                        out[-1][1] = int(next(x.strip() for x in shown if x.strip()))
                    continue
                errors = [x.strip() for x in shown if x.startswith("optalloc: error:")]
                out.append([_installed(command), 2 if errors else 0, errors[0] if errors else None])
        elif self.info in SHELL_INFO:
            out = [[_installed(x.strip()), 0, None] for x in self.lines if x.startswith("optalloc ")]
        if not any(c.split()[:1] == ["optalloc"] for c, _, _ in out):
            return []
        return [tuple(c) for c in out]


def _installed(command: str) -> str:
    """``command`` without the ``pip install ... &&`` before it (the wheel is installed)."""
    parts = [p.strip() for p in command.split("&&")]
    return " && ".join(p for p in parts if not p.startswith("pip install"))


def find_blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, setup, i = [], [], 0
    while i < len(lines):
        m = SETUP.match(lines[i])
        if m:
            setup.append(m.group(1))
            i += 1
            continue
        fence = FENCE.match(lines[i])
        if not fence:
            if lines[i].strip() and not lines[i].lstrip().startswith("<!--"):
                setup = []
            i += 1
            continue
        start, ticks, info = i, fence.group(1), fence.group(2)
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith(ticks):
            body.append(lines[i])
            i += 1
        i += 1
        blocks.append(Block(path, start + 1, info, body, setup))
        setup = []
    return blocks


ALL_BLOCKS = [b for doc in DOCS for b in find_blocks(doc)]
COMMAND_BLOCKS = [b for b in ALL_BLOCKS if b.commands()]
SCRIPT_BLOCKS = [b for b in ALL_BLOCKS if b.info.startswith("python") and not any(">>>" in x for x in b.lines)]
DOCTEST_FILES = sorted({b.file for b in ALL_BLOCKS if any(x.lstrip().startswith(">>>") for x in b.lines)})
FAST_PAGES = [f for f in DOCTEST_FILES if f not in SLOW_PAGES]


# --------------------------------------------------------------------------- the installed wheel

# (the installed wheel is the session fixture ``installed`` of tests/conftest.py)


# --------------------------------------------------------------------------- commands

def run_commands(block: Block, inst, cwd: Path, *, compiled: bool = True) -> list[str]:
    """Run the block's commands in ``cwd``; the problems found (none: it ran as shown)."""
    env = inst.environ(compiled)

    def bash(command):
        return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=1200)

    for command in block.setup:
        done = bash(command)
        if done.returncode != 0:
            return [f"setup `{command}` exited with {done.returncode}: {done.stderr.strip()[-500:]}"]
    problems = []
    for command, code, error in block.commands():
        if command in SKIP:
            continue
        done = bash(command)
        if done.returncode != code:
            problems.append(f"`{command}` exited with {done.returncode}, not {code}: {done.stderr.strip()[-800:]}")
        elif error is not None:
            printed = done.stderr.replace(str(inst.site) + os.sep, "")  # the bundled files, as a clone shows them
            if error not in [x.strip() for x in printed.splitlines()]:
                problems.append(f"`{command}` printed {printed.strip()!r}, not {error!r}")
    return problems


def _is_slow(block: Block) -> bool:
    return any(c in SLOW for c, _, _ in block.commands())


def _runnable(block: Block) -> bool:
    return any(c not in SKIP for c, _, _ in block.commands())


FAST_BLOCKS = [b for b in COMMAND_BLOCKS if _runnable(b) and not _is_slow(b)]


@pytest.fixture(scope="module")
def fast_results(installed, tmp_path_factory) -> tuple[dict[str, list[str]], dict]:
    """What runs by default, each block of commands and each page in a folder of its own: the problems of
    every block (two blocks at a time; blocks alike once) and the doctest results of the pages (beside them
    one process for the pages run as plain Python and one for ``COMPILED_PAGES``); the commands run the
    kernels as plain Python (the slow examples and tests/test_install.py run them compiled)."""
    base = tmp_path_factory.mktemp("commands")
    unique = {}  # blocks with the same setup and commands print the same: each runs once
    for block in FAST_BLOCKS:
        unique.setdefault(_same_run(block), block)

    def one(item):
        n, block = item
        cwd = base / str(n)
        cwd.mkdir()
        return _same_run(block), run_commands(block, installed, cwd, compiled=False)

    plain = [p for p in FAST_PAGES if p not in COMPILED_PAGES]
    compiled = [p for p in FAST_PAGES if p in COMPILED_PAGES]
    with ThreadPoolExecutor(max_workers=2) as pool:
        pages = [pool.submit(run_pages, plain, installed, tmp_path_factory.mktemp("pages"), compiled=False)]
        if compiled:
            pages.append(pool.submit(run_pages, compiled, installed, tmp_path_factory.mktemp("compiled"),
                                     compiled=True))
        with ThreadPoolExecutor(max_workers=2) as blocks:
            runs = dict(blocks.map(one, enumerate(unique.values())))
        commands = {block.id: runs[_same_run(block)] for block in FAST_BLOCKS}
        return commands, {page: result for done in pages for page, result in done.result().items()}


def _same_run(block: Block) -> tuple:
    """What a block runs: its setup and its commands (blocks alike run alike, each in an empty folder)."""
    return tuple(block.setup), tuple(block.commands())


def _command_params():
    out = []
    for block in COMMAND_BLOCKS:
        if not _runnable(block):
            marks = [pytest.mark.skip(reason="; ".join(SKIP[c] for c, _, _ in block.commands()))]
        else:
            marks = [pytest.mark.slow] if _is_slow(block) else []
        out.append(pytest.param(block, id=block.id, marks=marks))
    return out


@pytest.mark.parametrize("block", _command_params())
def test_commands_run_from_any_directory(block, request, tmp_path):
    if _is_slow(block):
        problems = run_commands(block, request.getfixturevalue("installed"), tmp_path)
    else:
        problems = request.getfixturevalue("fast_results")[0][block.id]
    assert not problems, f"{block.id}:\n" + "\n".join(problems)


# --------------------------------------------------------------------------- Python

RUNNER = r'''
import doctest, json, os, sys

flags = 0
for name in sys.argv[2].split(","):
    flags |= doctest.OPTIONFLAGS_BY_NAME[name] if name else 0
results = {}
home = os.getcwd()
for n, (key, path) in enumerate(json.loads(sys.argv[1])):
    folder = os.path.join(home, str(n))
    os.makedirs(folder)
    os.chdir(folder)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__main__"}, key, path, 0)
    lines = []
    runner = doctest.DocTestRunner(optionflags=flags)
    runner.run(test, out=lines.append)
    results[key] = {"failed": runner.failures, "tried": runner.tries, "report": "".join(lines)[-6000:]}
    os.chdir(home)
print(json.dumps(results))
'''


def run_pages(pages: list[str], inst, cwd: Path, *, compiled: bool = True) -> dict:
    """Run the ``>>>`` examples of ``pages`` (one doctest per page) with the venv's interpreter in ``cwd``."""
    env = inst.environ(compiled)
    done = subprocess.run([str(inst.python), "-c", RUNNER, json.dumps([(p, str(ROOT / p)) for p in pages]),
                           DOCTEST_FLAGS], cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"the doctest runner failed:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("page", [pytest.param(p, marks=[pytest.mark.slow] if p in SLOW_PAGES else [])
                                  for p in DOCTEST_FILES])
def test_python_examples_run_from_any_directory(page, request, tmp_path):
    if page in SLOW_PAGES:
        result = run_pages([page], request.getfixturevalue("installed"), tmp_path)[page]
    else:
        result = request.getfixturevalue("fast_results")[1][page]
    assert result["tried"] > 0
    assert result["failed"] == 0, f"{page}: {result['failed']} of {result['tried']} examples failed\n" \
                                  f"{result['report']}"


@pytest.mark.parametrize("block", [
    pytest.param(b, id=b.id, marks=[pytest.mark.skip(reason=SCRIPTS_SKIP[b.file])] if b.file in SCRIPTS_SKIP else [])
    for b in SCRIPT_BLOCKS])
def test_python_scripts_run_from_any_directory(block, installed, tmp_path):
    done = subprocess.run([str(installed.python), "-c", "\n".join(block.lines)], cwd=tmp_path, env=installed.env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{block.id}: exited with {done.returncode}\n{done.stderr[-3000:]}"


# --------------------------------------------------------------------------- the lists above

def test_the_examples_are_found():
    commands = [c for b in COMMAND_BLOCKS for c, _, _ in b.commands()]
    assert len(commands) >= 50 and "optalloc certify" in commands  # README's main command
    assert "README.md" in DOCTEST_FILES and "docs/quickstart.md" in DOCTEST_FILES


def test_every_listed_exception_is_still_in_the_docs():
    commands = {c for b in COMMAND_BLOCKS for c, _, _ in b.commands()}
    for name in (*SKIP, *SLOW):
        assert name in commands, f"{name!r} is listed but no longer in the docs"
    for page in (*SLOW_PAGES, *COMPILED_PAGES):
        assert page in DOCTEST_FILES, f"{page} is listed but has no >>> example"
    assert not set(SLOW_PAGES) & set(COMPILED_PAGES)
    for page in SCRIPTS_SKIP:
        assert any(b.file == page for b in SCRIPT_BLOCKS), f"{page} is listed but has no script"


def test_expected_exit_codes_are_read_from_the_blocks():
    block = Block(ROOT / "README.md", 1, "", [
        "$ pip install -q optalloc && optalloc solve --map m.txt --k 200",
        "optalloc: error: `k` must be between 1 and the number of points (146), got 200",
        "$ echo $?",
        "2",
        "$ optalloc --version",
        "optalloc 0.1.0",
    ])
    assert block.commands() == [
        ("optalloc solve --map m.txt --k 200", 2,
         "optalloc: error: `k` must be between 1 and the number of points (146), got 200"),
        ("optalloc --version", 0, None),
    ]
    assert Block(ROOT / "README.md", 1, "sh", ["optalloc certify", "ls"]).commands() == [("optalloc certify", 0, None)]
    assert Block(ROOT / "README.md", 1, "python", ["$ optalloc certify"]).commands() == []
