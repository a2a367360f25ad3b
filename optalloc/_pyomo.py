"""The one place that talks to solvers: availability, solution loading, and
where their output goes.

Standard output carries results only (``optalloc ... --json`` prints one
JSON object), and standard error carries solver logs only when asked
(``optalloc ... --verbose``; ``-q`` leaves it empty).  HiGHS, a C++ library,
prints its banner ("Running HiGHS ...") on file descriptor 1 when the first
``highspy.Highs`` of a process is made, before any option can turn it off,
and Pyomo's ``tee=True`` writes solver logs to ``sys.stdout``.  Every solver
is therefore made and run inside :func:`solver_output`, which sends both to
standard error when the logs are wanted and to the null device otherwise.

The logs are wanted when a call asks (``verbose=True``) or while
:func:`solver_logs` is on (the command line's ``--verbose``).
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
_logs_on = False  # solver_logs(): every solver's log on standard error


@contextlib.contextmanager
def solver_logs(on: bool = True):
    """Every solver's log on standard error while the block runs (``on``),
    as if each call had asked with ``verbose=True``; the previous setting
    after it.

    Process-wide (threads share it), for the command line's ``--verbose``.

    Examples
    --------
    >>> with solver_logs():
    ...     logs_wanted()
    True
    >>> logs_wanted(), logs_wanted(verbose=True)
    (False, True)
    """
    global _logs_on
    before, _logs_on = _logs_on, bool(on)
    try:
        yield
    finally:
        _logs_on = before


def logs_wanted(verbose: bool = False) -> bool:
    """Whether a solver's log is shown: asked by the call (``verbose``) or
    by :func:`solver_logs`."""
    return bool(verbose) or _logs_on


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


def _null_stream():
    """A text stream to the null device (closed when the redirection ends)."""
    return open(os.devnull, "w", encoding="utf-8")


def _flush_python_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _point_fd1(to_stderr: bool):
    """Point file descriptor 1 at descriptor 2 or at the null device; the
    saved descriptor 1 (None when that fails: a closed descriptor)."""
    saved_fd = target = None
    try:
        saved_fd = os.dup(1)
        target = 2 if to_stderr else os.open(os.devnull, os.O_WRONLY)
        os.dup2(target, 1)
    except OSError:
        if saved_fd is not None:
            os.close(saved_fd)
        saved_fd = None
    finally:
        if target not in (None, 2):
            os.close(target)
    return saved_fd


@contextlib.contextmanager
def solver_output(verbose: bool = False):
    """Send standard output to standard error (when :func:`logs_wanted`
    with ``verbose``) or to the null device while the block runs.

    Both levels: ``sys.stdout`` (Python writes, Pyomo's ``tee``) becomes a
    stream to standard error (or the null device), and file descriptor 1
    (what a C library such as HiGHS writes with ``printf``) is pointed at
    descriptor 2 (or the null device) with ``os.dup2``, then restored.
    Buffers are flushed on the way in and out, so nothing written before
    the block is lost or moved and nothing written inside lands on standard
    output.  Nested and concurrent uses (threads) share one redirection,
    made by the first and undone when the last of them ends (the first
    decides where the output goes).  When a descriptor is not usable
    (closed, no real file) only ``sys.stdout`` is redirected.

    Examples
    --------
    >>> with solver_output():
    ...     print("a solver's chatter")     # nowhere
    >>> print("a result")
    a result
    """
    global _redirect_depth, _redirect_saved
    with _redirect_lock:
        if _redirect_depth == 0:
            to_stderr = logs_wanted(verbose)
            _flush_python_stdio()
            _flush_c_stdio()
            saved_fd = _point_fd1(to_stderr)
            twin, owned = _stderr_twin() if to_stderr else (_null_stream(), True)
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


def solver_output_to_stderr():
    """:func:`solver_output` to standard error, whatever :func:`solver_logs` says."""
    return solver_output(verbose=True)


def silent_highs():
    """A ``highspy.Highs`` with its output off from the start: the banner
    it prints when it is the process's first goes to standard error when
    :func:`solver_logs` is on, else nowhere."""
    import highspy

    with solver_output():
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
    return h


def get_solver(name: str):
    """The Pyomo solver ``name``, or a one-line ValueError when it cannot run here."""
    import pyomo.environ as pyo

    try:
        with solver_output():
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
    """``opt.solve(model, **kwargs)`` with the solver's log (``tee``) on
    standard error when :func:`logs_wanted` with ``verbose``; otherwise
    everything it prints, its banner included, goes nowhere."""
    logs = logs_wanted(verbose)
    with solver_output(logs):
        return opt.solve(model, tee=logs, **kwargs)
