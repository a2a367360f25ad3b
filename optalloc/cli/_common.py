"""What every subcommand shares: exit codes, one-line errors, number
formatting, JSON printing, output files (``--out``/``--force``), input
files (a bundled instance by its name: :func:`input_path`) and the machine
given by ``--machine``.

The command line is a layer above the library: it imports the public names
of each package (those of its ``__all__``) and the shared core modules
(``optalloc._text``, ``optalloc._table``, ``optalloc._files``), never a
package's private module.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import textwrap

import numpy as np

from optalloc import instance_path
from optalloc._files import output_file
from optalloc._jit import compiling
from optalloc._progress import Progress
from optalloc._text import read_text  # noqa: F401 (the commands read their files with it)
from optalloc.machine import parse_machine

EXIT_OK, EXIT_NO_SOLUTION, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad command-line input: reported in one line, exit code 2."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, wrapped between words only: never inside a
    hyphenated name such as ``points-plane.txt`` or ``mm-inc``."""

    def _split_lines(self, text, width):
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text, width, indent):
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line :class:`UsageError`,
    its help wrapped by :class:`HelpFormatter`."""

    def __init__(self, *args, formatter_class=HelpFormatter, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def error(self, message):  # one line instead of usage + message
        raise UsageError(message)


# ---------------------------------------------------------------- naming the options

_PARAMETER = re.compile(r"`(\w+)`")


def name_flags(message: str, flags: dict) -> str:
    """``message`` of a library ValueError, each backticked parameter that
    ``flags`` maps (``{"k": "--k"}``) replaced by the option the user typed."""
    return _PARAMETER.sub(lambda m: flags.get(m[1], m[0]), message)


@contextlib.contextmanager
def about(flag: str, flags: dict | None = None):
    """Turn a ValueError of the block into a UsageError about ``flag``
    (``--allocator: unknown method 'nope'``): parameters that ``flags`` maps
    are renamed, the others lose their backticks, and the message starts
    with ``flag`` unless it names it already."""
    try:
        yield
    except ValueError as exc:
        message = _PARAMETER.sub(lambda m: (flags or {}).get(m[1], m[1]), name_flags(str(exc), flags or {}))
        raise UsageError(message if flag in message else f"{flag}: {message}") from None


def seed(text: str) -> int:
    """``--seed``: a non-negative integer (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


# ---------------------------------------------------------------- text


def fmt(x) -> str:
    """A number for a table: ``-`` for None, ``inf``, 6 significant digits."""
    if x is None:
        return "-"
    if isinstance(x, float):
        if not math.isfinite(x):
            return "inf"
        return f"{x:.6g}"
    return str(x)


def print_rows(rows) -> None:
    """A two-column table: names left-aligned, values after two spaces."""
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")


def print_json(obj) -> None:
    """One JSON document on one line."""
    print(json.dumps(obj))


# ---------------------------------------------------------------- options


def parse_shape(text: str, option: str) -> tuple[int, ...]:
    """``16x16`` or ``8x8x4`` as a tuple of positive sides."""
    try:
        shape = tuple(int(p) for p in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"{option} must look like 16x16 or 8x8x4, got {text!r}") from None
    if not shape or min(shape) < 1:
        raise UsageError(f"{option} must give positive sizes, got {text!r}")
    return shape


def check_positive(value, option: str) -> None:
    """A positive number of seconds (or None)."""
    if value is not None and not (value > 0 and math.isfinite(value)):
        raise UsageError(f"{option} must be positive, got {value}")


def check_at_least_one(value, option: str) -> None:
    """A count of at least 1 (or None)."""
    if value is not None and value < 1:
        raise UsageError(f"{option} must be at least 1, got {value}")


def check_out(path, force: bool, *, option: str = "--out", exts=None, resume=None) -> str | None:
    """Refuse an output file that exists without ``--force`` (or
    ``--resume`` where it applies), a wrong extension or a missing folder,
    before any work; return the lower-case extension (None without a path)."""
    if path is None:
        return None
    ext = os.path.splitext(path)[1].lower()
    if exts is not None and ext not in exts:
        raise UsageError(f"{option} must end in {', '.join(exts)}, got {path!r}")
    if os.path.exists(path) and not force and not resume:
        raise UsageError(f"{path} exists; pass --force to overwrite it"
                         + (" or --resume to continue it" if resume is not None else ""))
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{option}: folder {folder} does not exist")
    return ext


def write_lines(path: str, lines, force: bool) -> None:
    """Write ``lines`` (each ending in a newline) to ``path``, never over an
    existing file without ``force``; whole or not at all (see :func:`out_file`)."""
    with out_file(path, force) as fh:
        fh.writelines(lines)


def out_file(path: str, force: bool):
    """The open output file of ``--out``: written under a temporary name
    beside ``path`` and renamed when complete, so that a failure (a full
    disk: an OSError naming the file, exit 2) leaves no partial file and
    never replaces an existing one with part of one; an existing file is
    refused without ``force``."""
    check_out(path, force)
    return output_file(path, overwrite=force)


def point_text(p) -> str:
    """Coordinates separated by one space, as in a points file."""
    return " ".join(fmt(float(c)) for c in p)


# ---------------------------------------------------------------- input files


def input_path(text: str) -> str:
    """The file an input option or argument names: ``text`` when such a
    file exists here or ``text`` is not a bare file name, else the bundled
    instance of that name (:func:`optalloc.instance_path`), else ``text``
    unchanged, for the command to report missing in its own words.

    The ``type`` of every option and argument that reads a file, and of
    ``--machine`` (a shape such as ``16x16`` names no file and is kept).
    """
    if os.path.exists(text) or os.path.basename(text) != text or text in ("", ".", ".."):
        return text
    try:
        return str(instance_path(text))
    except ValueError:
        return text


def add_input(p, *flags, example: str | None = None, help: str, **kwargs):
    """Add an option or argument that reads a file (``type=input_path``);
    its help says that a bundled instance's name works, with ``example``."""
    where = f", e.g. {example}" if example else ""
    return p.add_argument(*flags, type=input_path, help=f"{help}; or the name of a bundled instance{where}", **kwargs)


# ---------------------------------------------------------------- progress

#: ``--quiet``, on every command that can run for more than a couple of seconds
QUIET_HELP = ("nothing on standard error unless it fails: no progress (by default: a bar on a terminal, a line "
              "every few seconds and one at the end in a log), no solver log")
#: ``--verbose``, on the commands whose solvers keep a log (HiGHS through Pyomo, the exact solver's rounds)
VERBOSE_HELP = "the solvers' logs on standard error, in place of the progress"
#: ``--progress``, kept for one release
PROGRESS_HELP = "accepted for one release and ignored: progress is now shown by default (--quiet hides it)"


def add_quiet(p, *, progress_help: str | None = None, verbose: bool = False) -> None:
    """``-q/--quiet``; with ``progress_help``, the old ``--progress`` beside
    it; with ``verbose``, ``--verbose`` (one of them)."""
    group = p.add_mutually_exclusive_group() if progress_help or verbose else p
    group.add_argument("-q", "--quiet", action="store_true", help=QUIET_HELP)
    if verbose:
        group.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    if progress_help:
        group.add_argument("--progress", action="store_true", help=progress_help)


#: a result's termination that ends the work before its count -> the words of the last progress line
STOPPED = {"time_limit": "time limit", "total_time_limit": "total time limit", "iteration_limit": "iteration limit",
           "gap_limit": "gap limit"}


def say_why(progress: Progress, result, termination: str | None = None) -> None:
    """Let the last line of ``progress`` say why the work of ``result``
    ended before its count (``stopped: time limit``): a limit of the solver
    (``termination``, by default the result's), or a proof of optimality
    that left the rest of the count needless."""
    if termination is None:
        termination = getattr(result, "termination", None)
    if termination in STOPPED:
        progress.stop(STOPPED[termination])
    elif getattr(result, "status", None) == "optimal" and progress.total and progress.n < progress.total:
        progress.stop("proven optimal")


def progress_for(args, label: str, *, enabled: bool = True, **options) -> Progress:
    """The progress of a command on standard error (silent with ``--quiet``,
    and with ``--verbose``, whose solver logs replace it); use it as a
    context manager around the work, after the input is checked."""
    shown = enabled and not args.quiet and not getattr(args, "verbose", False)
    return Progress(label=label, enabled=shown, note=compiling_note, **options)


#: what a progress line says while numba compiles (the first run of a fresh install or checkout)
COMPILING = "compiling numba kernels (cached for later runs)"


def compiling_note() -> str | None:
    """:data:`COMPILING` while a kernel compiles in this process, else None."""
    return COMPILING if compiling() is not None else None


# ---------------------------------------------------------------- machines


#: ``--weight``, beside every ``--machine`` (:func:`add_machine`)
WEIGHT_HELP = ("network files: the edge attribute holding link lengths, which every edge must have (default: hops, "
               "or an edge list's third column)")


def add_machine(p, *, help: str, required: bool = False, default: str | None = None, group=None,
                example: str | None = None) -> None:
    """``--machine SPEC`` and ``--weight ATTR`` (the link lengths of a network
    file): the one place both options are made; ``group``: a mutually
    exclusive group that ``--machine`` belongs to (``--weight`` then applies to
    ``--machine`` only). A file named by ``--machine`` may be a bundled
    instance (:func:`add_input`, with ``example``). Read them with
    :func:`machine_option`."""
    add_input(group if group is not None else p, "--machine", required=required, default=default, metavar="SPEC",
              example=example, help=help)
    p.add_argument("--weight", metavar="ATTR", help=WEIGHT_HELP)


def machine_option(args):
    """The machine of ``--machine`` with the link lengths of ``--weight``
    (:func:`add_machine`); None without ``--machine`` (``--weight`` refused then)."""
    weight = getattr(args, "weight", None)
    if args.machine is None:
        if weight is not None:
            raise UsageError("--weight names the link lengths of a network file given by --machine")
        return None
    return load_machine(args.machine, weight=weight)


def load_machine(spec: str, *, option: str = "--machine", weight: str | None = None):
    """The machine of ``--machine SPEC`` (:func:`optalloc.machine.parse_machine`),
    with errors that name the option (and ``--weight``)."""
    try:
        return parse_machine(spec, weight=weight)
    except ValueError as exc:
        message = str(exc)
        if message.startswith("`machine` must be") and not os.path.exists(spec) and _looks_like_path(spec):
            raise UsageError(f"{option} {spec}: no such file (nor a shape such as 16x16, "
                             f"'8x8 torus' or torus:4x4)") from None
        if message.startswith("`weight`"):  # "`weight` names ...; '8x8' is a mesh ..."
            rest = message[len("`weight`"):].replace(f"; {spec!r} is", f"; {option} {spec} is", 1)
            raise UsageError(f"--weight{rest}") from None
        message = message.replace("`machine` ", "", 1).replace("`weight`", "--weight")
        message = _PARAMETER.sub(r"\1", message)  # the parts of SPEC, plain
        raise UsageError(f"{option}: {message}") from None


def _looks_like_path(spec: str) -> bool:
    return os.sep in spec or "/" in spec or bool(os.path.splitext(spec)[1])


def grid_machine(machine, option: str, command: str):
    """``machine`` when it is a mesh (free nodes with L1 hop distances);
    a UsageError for a torus or a network."""
    if not machine.is_grid:
        raise UsageError(f"{option}: {command} needs a mesh (nodes with coordinates), got {machine.describe()}")
    if machine.is_torus:
        raise UsageError(f"{option}: {command} measures hops on a mesh, without wrap-around links; "
                         f"got {machine.describe()}")
    return machine


def rows_by_point(points: np.ndarray) -> dict[tuple, list[int]]:
    """Row indices of each distinct point, in row order."""
    index: dict[tuple, list[int]] = {}
    for i, p in enumerate(map(tuple, points.tolist())):
        index.setdefault(p, []).append(i)
    return index
