"""The one place that talks to solvers: availability, solution loading, and
keeping their output off standard output.

Standard output carries results only (``optalloc ... --json`` prints one
JSON object), but HiGHS, a C++ library, prints its banner ("Running HiGHS
...") on file descriptor 1 when the first ``highspy.Highs`` of a process is
made, before any option can turn it off, and Pyomo's ``tee=True`` writes
solver logs to ``sys.stdout``.  Every solver is therefore made and run
inside :func:`solver_output_to_stderr`, which sends both to standard error.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading

_redirect_lock = threading.Lock()
_redirect_depth = 0
_redirect_saved: tuple | None = None  # (saved fd 1, sys.stdout, the stream opened in its place)


def _flush_c_stdio() -> None:
    """Flush the C library's ``stdout`` buffer (a ``printf`` not yet written)."""
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # no C runtime reachable this way (Windows)
        pass


def _stderr_twin():
    """A text stream on a copy of ``sys.stderr``'s descriptor, and whether
    it is new; ``sys.stderr`` itself when it has no descriptor.

    ``sys.stdout`` must not become ``sys.stderr`` itself: Pyomo's
    ``capture_output`` (its HiGHS interface) then sees one descriptor
    behind both streams and tees the log back into its own pipe.
    """
    err = sys.stderr
    try:
        fd = os.dup(err.fileno())
    except (AttributeError, OSError, ValueError):  # None, or no descriptor (io.UnsupportedOperation)
        return err, False
    encoding = getattr(err, "encoding", None) or "utf-8"
    return open(fd, "w", encoding=encoding, errors="backslashreplace", buffering=1), True


def _flush_python_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


@contextlib.contextmanager
def solver_output_to_stderr():
    """Send standard output to standard error while the block runs.

    Both levels: ``sys.stdout`` (Python writes, Pyomo's ``tee``) becomes a
    stream to standard error, and file descriptor 1 (what a C library such
    as HiGHS writes with ``printf``) is pointed at descriptor 2 with
    ``os.dup2``, then restored.  Buffers are flushed on the way in and out, so nothing
    written before the block lands on standard error and nothing written
    inside lands on standard output.  Nested and concurrent uses (threads)
    share one redirection, undone when the last of them ends.  When a
    descriptor is not usable (closed, no real file) only ``sys.stdout`` is
    redirected.
    """
    global _redirect_depth, _redirect_saved
    with _redirect_lock:
        if _redirect_depth == 0:
            _flush_python_stdio()
            _flush_c_stdio()
            saved_fd = None
            try:
                saved_fd = os.dup(1)
                os.dup2(2, 1)
            except OSError:
                if saved_fd is not None:
                    os.close(saved_fd)
                saved_fd = None
            twin, owned = _stderr_twin()
            _redirect_saved = (saved_fd, sys.stdout, twin if owned else None)
            sys.stdout = twin
        _redirect_depth += 1
    try:
        yield
    finally:
        with _redirect_lock:
            _redirect_depth -= 1
            if _redirect_depth == 0:
                saved_fd, saved_stdout, twin = _redirect_saved
                _redirect_saved = None
                _flush_python_stdio()
                _flush_c_stdio()
                sys.stdout = saved_stdout
                if twin is not None:
                    with contextlib.suppress(Exception):
                        twin.close()
                if saved_fd is not None:
                    os.dup2(saved_fd, 1)
                    os.close(saved_fd)


def silent_highs():
    """A ``highspy.Highs`` with its output off from the start: its banner,
    printed when it is made, goes to standard error."""
    import highspy

    with solver_output_to_stderr():
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    return h


def get_solver(name: str):
    """The Pyomo solver ``name``, or a one-line ValueError when it cannot run here."""
    import pyomo.environ as pyo

    try:
        with solver_output_to_stderr():
            opt = pyo.SolverFactory(name)
            available = opt is not None and opt.available(exception_flag=False)
    except Exception:  # noqa: BLE001 - an unknown name gives an UnknownSolver that raises on use
        available = False
    if not available:
        raise ValueError(f"solver {name!r} is not available to Pyomo on this machine (try 'highs')")
    return opt


def load_solution(model, results) -> bool:
    """Load the solver's solution into ``model``; False when there is none.

    A time-limited run carries its incumbent with an 'aborted' status;
    loading it is intended, so Pyomo's warning about it is muted.
    """
    if not (hasattr(results, "solution") and len(results.solution) > 0):
        return False
    quiet = logging.getLogger("pyomo.core")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        model.solutions.load_from(results)
    finally:
        quiet.setLevel(level)
    return True


def solve_quietly(opt, model, *, verbose: bool = False, **kwargs):
    """``opt.solve(model, **kwargs)`` with the solver's log (``tee``) on only
    when ``verbose``, and everything it prints on standard error."""
    with solver_output_to_stderr():
        return opt.solve(model, tee=bool(verbose), **kwargs)
