"""The ``optalloc`` command line: a layer above the library.

It calls public names only (each package's ``__all__``); the library never
imports it. One module per command group: ``_ksubset`` (solve, gap),
``_order`` (order), ``_qap`` (map, qap), ``_sim`` (simulate, certify,
sweep), ``_history`` (history), ``_workload`` (workload), ``_bench`` (bench); ``_common`` holds what they share.

Every command names its machine with ``--machine SPEC``
(:func:`optalloc.machine.parse_machine`: ``16x16``, ``"8x8 torus"``,
``torus:4x4``, a machine map, a network file); ``solve`` and ``gap`` also
take a machine map as ``--map FILE`` or points as ``--points FILE``.

Standard output carries results only; standard error carries progress
(none with ``-q``), the solvers' logs (``--verbose`` only) and errors.

Every option and argument that reads a file also takes the name of a
bundled instance (``--map mesh16x16.txt``, ``simulate small.swf``) when no
file of that name exists in the working directory
(:func:`._common.input_path`); a path that exists always wins.

Exit codes: 0 success, 1 no solution found (or a failed check), 2 bad
input (one line on stderr, no traceback), 130 interrupted.
"""

from __future__ import annotations

import contextlib
import os
import sys

from optalloc import __version__, instance_names
from optalloc._pyomo import solver_logs

from . import _bench, _history, _ksubset, _order, _plot, _qap, _sim, _workload
from ._common import EXIT_BAD_INPUT, EXIT_NO_SOLUTION, EXIT_OK, Parser, UsageError, name_flags

__all__ = ["EXIT_BAD_INPUT", "EXIT_NO_SOLUTION", "EXIT_OK", "UsageError", "build_parser", "main"]


#: the epilog of ``optalloc --help``, given the bundled instances' names
INPUT_FILES = ("Input files: every option and argument that reads a file (--points, --map, --chosen, --machine, "
               "--comm, --nodes, TRACE, CONFIG.toml, FILE.dat, CERT, DB) also takes the name of a bundled instance "
               "when no file of that name is in the working directory (a path that exists always wins): {}. In "
               "Python, optalloc.instance_path(NAME) gives the path of one.")


def build_parser() -> Parser:
    """The ``optalloc`` argument parser with every subcommand."""
    parser = Parser(prog="optalloc", description="Communication-aware processor allocation: exact and "
                    "approximate solvers, with certificates.", epilog=INPUT_FILES.format(", ".join(instance_names())))
    parser.add_argument("--version", action="version", version=f"optalloc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    _ksubset.register(sub)
    _bench.register(sub)
    _order.register(sub)
    _qap.register(sub)
    _sim.register(sub)
    _history.register(sub)
    _workload.register(sub)
    _plot.register(sub)
    return parser


def main(argv=None) -> int:
    """Run ``optalloc`` with ``argv`` (default: ``sys.argv[1:]``); the exit code."""
    parser = build_parser()
    args = None
    try:
        args = parser.parse_args(argv)
        # --verbose: every solver's log on standard error
        with solver_logs() if getattr(args, "verbose", False) else contextlib.nullcontext():
            return args.func(args)
    except UsageError as exc:
        print(f"optalloc: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:  # from the library: its parameters renamed to the options that give them
        print(f"optalloc: error: {_one_line(name_flags(str(exc), getattr(args, 'flags', {})))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into a reader that stopped (head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # a file that exists, cannot be read or written (a full disk)
        print(f"optalloc: error: {_one_line(_os_error_text(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print("optalloc: error: not enough memory for this instance; try a smaller one", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("optalloc: interrupted", file=sys.stderr)
        return 130


def _os_error_text(exc: OSError) -> str:
    """``FILE: why`` (or the message alone) without the ``[Errno N]`` prefix."""
    if exc.strerror is None:
        return str(exc)
    name = exc.filename if exc.filename2 is None else f"{exc.filename} -> {exc.filename2}"
    return exc.strerror if name is None else f"{name}: {exc.strerror}"


def _one_line(exc) -> str:
    return " ".join(str(exc).split("\n"))
