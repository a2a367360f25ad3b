"""Every command transcript of the guide runs and prints what it shows.

A *transcript* is a fenced code block of ``README.md`` or ``docs/**/*.md``
with a line ``$ optalloc ...``: commands (lines starting with ``$ ``), each
followed by the output it prints.  Each block is one test case, its id
``FILE:LINE`` (the line of the opening fence).  The ``>>>`` examples are
doctests and are run by ``--doctest-glob=*.md``, not here.

How a block runs
----------------
In this process, in order, in a scratch copy of the project root: a
folder named like the root whose ``instances/`` is a copy (commands may
write next to the instances, e.g. a sweep's default database) and whose
other entries link to the root's, inside a folder whose entries link to
those beside the root, so that ``instances/small.swf`` and
``../shared/data/...`` mean what they mean from the project root and every
file a command writes (``--out alloc.txt``) lands in the scratch folder.
The commands are a small subset of the shell:

- ``$ optalloc ARGS`` runs ``optalloc.cli.main(shlex.split(ARGS))``;
  ``> FILE`` (``> /dev/null``) sends its standard output to a file (away),
  ``2>/dev/null`` drops its error lines;
- ``$ echo $?`` prints the exit code of the command before;
- ``$ printf FORMAT > FILE`` writes a file; ``$ cat FILE`` prints one;
- ``A && B`` runs B when A succeeded;
- ``pip install ...`` is not run (the tests run in the environment they
  test) and counts as a success that prints nothing, as ``pip install -q``.

Anything else (pipes, other programs) is refused: such a block needs a
``skip`` mark (below), or its commands written without ``$``.  Paths
inside the scratch folder or the project root are printed relative to it,
as a run from the project root prints them (the bundled trace is
``optalloc/instances/small.swf``).

What is compared
----------------
Standard output, plus the lines ``optalloc: error: ...`` of standard error
(the one-line error that bad input prints, which the transcripts show);
progress lines and everything else on standard error are not compared.
Both sides are masked for what legitimately varies from run to run:

- times: a number followed by ``s``, ``ms``, ``us``, ``seconds`` or
  ``min`` (``0.0042 s``, ``t=0.05s``, ``> 61.78 s``), the value of a row
  whose label names a time (``time``, ``seconds``, ``runtime``,
  ``elapsed``: ``seconds    0.008``, ``profile_seconds  0.77``), and in a
  JSON line the values of such keys (``"runtime": 0.0008``);
- dates (``2026-11-22``, ``2026-11-22 16:21:05``) and absolute paths;
- with the ``timings`` mark only: figures derived from times, the ratios
  of a benchmark table (``13.1x``, ``> 6.4x``) and ``+230 ms``;

then runs of blanks count as one (masked values change column widths).
An expected line ``...`` stands for any number of lines (as ``ELLIPSIS``
in a doctest): ``$ optalloc solve --help`` followed by its usage and
``...`` checks the usage only.

Marks
-----
HTML comments on the lines right above the opening fence (one per line,
invisible when the Markdown is rendered):

- ``<!-- transcript: skip (REASON) -->``: not run; the reason is required
  and is the skip message (a reference run of a benchmark that takes
  minutes, a command whose output depends on the machine's speed, ...);
- ``<!-- transcript: slow (REASON) -->``: run only with ``-m slow``;
- ``<!-- transcript: needs PATH -->``: skipped when PATH (from the project
  root) is absent, e.g. the NASA trace or QAPLIB beside the repository;
- ``<!-- transcript: setup COMMAND -->``: a command run first, unseen (it
  must succeed), e.g. a file the block reads (``printf "9 9\\n" >
  far.txt``, or an allocation written by an earlier block: blocks do not
  share files);
- ``<!-- transcript: timings -->``: also mask the figures derived from
  times (above).

Updating
--------
``python tests/test_doc_transcripts.py [FILE:LINE ...]`` prints what each
block's commands print now (all blocks that run, or the ones named), as
text to paste into the docs: the tests never rewrite the docs.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")
MARK = re.compile(r"^\s*<!--\s*transcript:\s*(.*?)\s*-->\s*$")
MARK_KINDS = ("skip", "slow", "needs", "setup", "timings")


# --------------------------------------------------------------------------- finding the blocks

@dataclass
class Block:
    """A transcript: where it is, its lines (without the fences) and its marks."""

    path: Path
    line: int  # 1-based line of the opening fence
    lines: list[str]
    marks: list[tuple[str, str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"

    def mark(self, kind: str) -> list[str]:
        return [arg for k, arg in self.marks if k == kind]

    def steps(self) -> list[tuple[str, list[str]]]:
        """(command, expected output lines) for each ``$`` line of the block."""
        out: list[tuple[str, list[str]]] = []
        for text in self.lines:
            if text.startswith("$ "):
                out.append((text[2:].strip(), []))
            elif out:
                out[-1][1].append(text)
            elif text.strip():
                raise ValueError(f"{self.id}: output before the first command: {text!r}")
        return out


def _parse_mark(text: str, where: str) -> tuple[str, str]:
    kind, _, arg = text.partition(" ")
    arg = arg.strip()
    if kind not in MARK_KINDS:
        raise ValueError(f"{where}: unknown transcript mark {text!r} (known: {', '.join(MARK_KINDS)})")
    if kind in ("skip", "slow") and not re.fullmatch(r"\(.+\)", arg):
        raise ValueError(f"{where}: `transcript: {kind}` needs its reason in parentheses, got {text!r}")
    if kind in ("needs", "setup") and not arg:
        raise ValueError(f"{where}: `transcript: {kind}` needs an argument")
    if kind in ("skip", "slow"):
        arg = arg[1:-1].strip()
    return kind, arg


def find_blocks(path: Path) -> list[Block]:
    """The transcripts of one Markdown file; a mark that no transcript follows is an error."""
    lines = path.read_text(encoding="utf-8").splitlines()
    rel = path.relative_to(ROOT).as_posix()
    blocks: list[Block] = []
    pending: list[tuple[int, tuple[str, str]]] = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m:
            pending.append((i + 1, _parse_mark(m.group(1), f"{rel}:{i + 1}")))
            i += 1
            continue
        fence = FENCE.match(lines[i])
        if not fence:
            if pending and lines[i].strip():
                raise ValueError(f"{rel}:{pending[0][0]}: a transcript mark must sit right above a code block")
            i += 1
            continue
        start, ticks, info = i, fence.group(2), fence.group(3).strip()
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith(ticks):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        is_transcript = not info.startswith("python") and any(b.startswith("$ optalloc") for b in body)
        if pending and not is_transcript:
            raise ValueError(f"{rel}:{pending[0][0]}: a transcript mark above a block without `$ optalloc`")
        if is_transcript:
            blocks.append(Block(path, start + 1, body, [m for _, m in pending]))
        pending = []
    if pending:
        raise ValueError(f"{rel}:{pending[0][0]}: a transcript mark at the end of the file")
    return blocks


def all_blocks() -> list[Block]:
    return [b for doc in DOCS for b in find_blocks(doc)]


# --------------------------------------------------------------------------- masking

_NUM = r"[+-]?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?"
TIME_WITH_UNIT = re.compile(rf"(?:>\s?)?(?<![\w.]){_NUM}\s?(?:s|ms|us|µs|ns|sec|seconds?|min)\b")
TIME_LABEL = re.compile(r"^(\s*(?:\S*_)?(?:time|seconds|runtime|elapsed)(?:_\S*)?:?\s+)(\S+)")
TIME_KEY = re.compile(r"time|seconds|runtime|elapsed", re.IGNORECASE)
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b")
ABS_PATH = re.compile(r"(?<![\w.)\]}/~])/(?:[\w.@+~-]+/)*[\w.@+~-]+/?")
RATIO = re.compile(rf"(?:>\s?)?(?<![\w.]){_NUM}x\b")
RULE = re.compile(r"-{2,}")
BLANKS = re.compile(r"[ \t]+")


def _mask_json(value):
    if isinstance(value, dict):
        return {k: "<time>" if TIME_KEY.search(k) and isinstance(v, (int, float, type(None)))
                else _mask_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_json(v) for v in value]
    if isinstance(value, str):
        return mask_line(value)
    return value


def mask_line(line: str, timings: bool = False) -> str:
    """``line`` with its times, dates and absolute paths replaced by placeholders."""
    stripped = line.strip()
    if stripped[:1] in "{[":
        try:
            value = json.loads(stripped)
        except ValueError:
            pass
        else:
            return json.dumps(_mask_json(value))
    line = DATE.sub("<date>", line)
    line = ABS_PATH.sub("<path>", line)
    line = TIME_WITH_UNIT.sub("<time>", line)
    line = TIME_LABEL.sub(lambda m: m.group(1) + "<time>", line)
    if timings:
        line = RATIO.sub("<ratio>", line)
        line = RULE.sub("---", line)  # a table's rule follows the width of its time column
    return BLANKS.sub(" ", line).strip()


def mask(lines: list[str], timings: bool = False) -> list[str]:
    out = [mask_line(x, timings) for x in lines]
    while out and not out[-1]:
        out.pop()
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line, a line ``...`` of ``expected`` standing for any number of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


# --------------------------------------------------------------------------- running

def scratch_root(tmp: Path) -> Path:
    """A folder that looks like the project root from inside (see the module docstring)."""
    for entry in ROOT.parent.iterdir():
        if entry.name != ROOT.name:
            (tmp / entry.name).symlink_to(entry)
    work = tmp / ROOT.name
    work.mkdir()
    for entry in ROOT.iterdir():
        if entry.name == "instances":
            shutil.copytree(entry, work / entry.name)
        elif not entry.name.startswith("."):
            (work / entry.name).symlink_to(entry)
    return work


class Shell:
    """Runs the commands of one block in ``cwd``; ``read()`` returns (stdout, stderr) since the last call."""

    def __init__(self, cwd: Path, read):
        self.cwd = cwd
        self.read = read
        self.status = 0

    def run(self, command: str) -> list[str]:
        """The lines that ``command`` shows: its standard output and its error lines."""
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"cannot split {command!r}: {exc}") from None
        if "&&" in words:  # a && b: b runs when a succeeds
            cut = words.index("&&")
            first = self.run(shlex.join(words[:cut]))
            return first + (self.run(shlex.join(words[cut + 1:])) if self.status == 0 else [])
        argv, stdout_to, keep_errors = [], None, True
        it = iter(words)
        for w in it:
            if w in (">", "1>"):
                stdout_to = next(it)
            elif w.startswith((">", "1>")):
                stdout_to = w.split(">", 1)[1]
            elif w in ("2>/dev/null",) or (w == "2>" and next(it) == "/dev/null"):
                keep_errors = False
            elif w in ("|", "||", ";", "&", "<") or w.startswith("2>"):
                raise ValueError(f"{command!r}: only `>`, `> /dev/null` and `2>/dev/null` are run here; "
                                 "mark the block `transcript: skip (REASON)`")
            else:
                argv.append(w)
        out = self._call(argv, command)
        shown = self.relative(out).splitlines()
        if stdout_to is not None:
            if stdout_to != "/dev/null":
                (self.cwd / stdout_to).write_text(out, encoding="utf-8")
            shown = []
        errors = [x for x in self.relative(self.err).splitlines() if x.startswith("optalloc: error:")]
        return shown + (errors if keep_errors else [])

    def relative(self, text: str) -> str:
        """Paths in the scratch folder or the project as a run from the project root prints them."""
        for base in {str(self.cwd), str(self.cwd.resolve()), str(ROOT)}:
            text = text.replace(base + os.sep, "")
        return text

    def _call(self, argv: list[str], command: str) -> str:
        self.err = ""
        name, args = argv[0], argv[1:]
        if name == "optalloc":
            from optalloc.cli import main
            self.read()
            try:
                code = main(args)
            except SystemExit as exc:  # --help, --version
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
            out, self.err = self.read()
            self.status = 0 if code is None else int(code)
            return out
        if name == "pip" and args[:1] == ["install"]:
            self.status = 0  # the tests run in the environment they test: not installed again
            return ""
        if name == "echo" and args == ["$?"]:
            return f"{self.status}\n"
        if name == "printf" and len(args) == 1:
            self.status = 0
            return args[0].encode("utf-8").decode("unicode_escape")
        if name == "cat" and len(args) == 1:
            self.status = 0
            return (self.cwd / args[0]).read_text(encoding="utf-8")
        raise ValueError(f"{command!r}: not a command of the transcripts (optalloc, echo $?, printf, cat); "
                         "mark the block `transcript: skip (REASON)`")


def run_block(block: Block, cwd: Path, read) -> list[tuple[str, list[str], list[str]]]:
    """Run ``block`` in ``cwd``: (command, expected lines, actual lines) per command."""
    shell = Shell(cwd, read)
    for command in block.mark("setup"):
        shell.run(command)
        if shell.status != 0:
            raise AssertionError(f"{block.id}: setup `{command}` exited with {shell.status}: {shell.err.strip()}")
    return [(command, expected, shell.run(command)) for command, expected in block.steps()]


def compare(block: Block, results) -> list[str]:
    """The differences of a run from its block, as lines of a message (none: it matches)."""
    timings = bool(block.mark("timings"))
    problems = []
    for command, expected, actual in results:
        if not matches(mask(expected, timings), mask(actual, timings)):
            problems += [f"$ {command}", "--- the block shows:", *expected, "--- the command prints now:", *actual, ""]
    return problems


# --------------------------------------------------------------------------- the tests

def _params():
    out = []
    for block in all_blocks():
        marks = []
        for reason in block.mark("skip"):
            marks.append(pytest.mark.skip(reason=f"{block.id}: {reason}"))
        if block.mark("slow"):
            marks.append(pytest.mark.slow)
        for needed in block.mark("needs"):
            marks.append(pytest.mark.skipif(not (ROOT / needed).exists(), reason=f"{block.id}: {needed} is absent"))
        out.append(pytest.param(block, id=block.id, marks=marks))
    return out


@pytest.mark.parametrize("block", _params())
def test_transcript(block, tmp_path, capsys, monkeypatch):
    work = scratch_root(tmp_path)
    monkeypatch.chdir(work)
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps --help to the terminal's width
    problems = compare(block, run_block(block, work, capsys.readouterr))
    assert not problems, f"{block.id}: the transcript is stale\n" + "\n".join(problems)


def test_transcripts_are_found_and_marked_well():
    blocks = all_blocks()  # raises on a bad mark
    assert len(blocks) >= 20
    for block in blocks:
        assert block.steps(), f"{block.id}: no command"


@pytest.mark.parametrize("line, masked", [
    ("time          0.0042 s", "time <time>"),
    ("seconds    0.008", "seconds <time>"),
    ("profile_seconds  0.766085", "profile_seconds <time>"),
    ("termination   time_limit", "termination time_limit"),
    ("round 1: LP 182.727 bound 182.727 t=0.05s", "round 1: LP 182.727 bound 182.727 t=<time>"),
    ("exact optimum: 120/120 decisions proven, 69 cache hits, 0.19 s",
     "exact optimum: 120/120 decisions proven, 69 cache hits, <time>"),
    ("subsets      715", "subsets 715"),
    ("wall          -12", "wall -12"),  # MC1x1's wall score, not a time
    ("exact (optimal)  16x16, k=32  9.60 s  pairwise MIP  > 61.78 s", "exact (optimal) 16x16, k=32 <time> pairwise MIP <time>"),
    ("run on 2026-11-22 16:21 in /tmp/x/main/cert.csv", "run on <date> in <path>"),
    ('{"objective": 4.0, "runtime": 0.0006, "extra": {"profile_seconds": 0.7}}',
     '{"objective": 4.0, "runtime": "<time>", "extra": {"profile_seconds": "<time>"}}'),
    ("W / LB of 12x12 mesh", "W / LB of 12x12 mesh"),
])
def test_masks(line, masked):
    assert mask_line(line) == masked


def test_ratio_mask_only_with_timings():
    assert mask_line("mm  1.11 ms  14.51 ms  13.1x  yes", timings=True) == "mm <time> <time> <ratio> yes"
    assert mask_line("12x12 mesh  > 62.23 s  > 5.8x", timings=True) == "12x12 mesh <time> <ratio>"
    assert mask_line("13.1x") == "13.1x"


def test_ellipsis_line():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "..."], ["a"])
    assert not matches(["a", "...", "d"], ["a", "b"])


# --------------------------------------------------------------------------- printing current output

def _show(ids: list[str]) -> int:  # pragma: no cover - a maintenance tool
    import tempfile

    for block in all_blocks():
        if ids and block.id not in ids:
            continue
        if not ids and (block.mark("skip") or block.mark("slow")):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            work = scratch_root(Path(tmp))
            buffers = (io.StringIO(), io.StringIO())

            def read(buffers=buffers):
                out, err = (b.getvalue() for b in buffers)
                for b in buffers:
                    b.seek(0)
                    b.truncate()
                return out, err

            old = os.getcwd()
            os.chdir(work)
            os.environ["COLUMNS"] = "80"
            try:
                with contextlib.redirect_stdout(buffers[0]), contextlib.redirect_stderr(buffers[1]):
                    results = run_block(block, work, read)
            finally:
                os.chdir(old)
        stale = " (stale)" if compare(block, results) else ""
        print(f"==== {block.id}{stale}")
        for command, _, actual in results:
            print(f"$ {command}")
            if actual:
                print("\n".join(actual))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_show(sys.argv[1:]))
