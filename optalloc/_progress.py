"""Progress of long computations on standard error, shared by every package.

One small reporter, :class:`Progress`: on a terminal it draws a bar (with
tqdm when it is installed, ``pip install "optalloc[progress]"``, else a
plain ``\\r`` bar of its own); off a terminal (a log file, CI) it writes a
plain line at most every ``interval`` seconds and one at the end, never a
``\\r``.  A thread keeps the elapsed time moving while the work gives no
news (a solver without hooks, a long LP).  Standard output is never
touched.

The time left is estimated from the work done so far (the rate of the
current stage), and only once enough of it is done (:data:`ETA_SHARE` of
the count and :data:`ETA_SECONDS`); a stage that other work follows shows
none, and so does one whose units differ in cost by orders of magnitude.
A run that ends before its count (a time limit, an interrupt)
says why on its last line (``stopped: time limit``).

The library's solvers are silent unless asked: their ``progress=``
argument takes None or False (the default: silent), True (a
:class:`Progress` on standard error), a callable (called as each function
documents) or a :class:`Progress` that the caller made and closes (the
command line passes its own, labelled by the command); see
:func:`library_progress`.

tqdm is imported when the first bar is drawn on a terminal, never at
``import optalloc``.

Examples
--------
>>> import io
>>> log = io.StringIO()                      # not a terminal: plain lines
>>> with Progress(total=3, unit="jobs", label="simulate", stream=log) as p:
...     for _ in range(3):
...         p.update(1)
>>> print(log.getvalue().strip())            # doctest: +ELLIPSIS
simulate: 3/3 jobs (100%), ... s
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time

__all__ = ["STYLES", "Progress", "check_progress", "library_progress"]

#: how a :class:`Progress` shows itself: ``"tqdm"`` and ``"bar"`` redraw one
#: line with ``\r`` (terminals), ``"lines"`` writes plain lines (logs)
STYLES = ("tqdm", "bar", "lines")

#: seconds between two plain lines off a terminal (besides the last)
LINE_INTERVAL = 5.0
#: seconds between two redraws of the own bar, and of the elapsed time when nothing happens
BAR_INTERVAL = 0.1
TICK_INTERVAL = 0.5
#: width of the own bar's gauge, in characters
GAUGE = 20
#: the time left is shown once this share of the count of the current stage is done ...
ETA_SHARE = 0.1
#: ... and this many seconds have been spent on it
ETA_SECONDS = 2.0


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


def _has_fileno(stream) -> bool:
    try:
        stream.fileno()
    except (AttributeError, ValueError, OSError):
        return False
    return True


def _have_tqdm() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("tqdm") is not None
    except (ImportError, ValueError):
        return False


def _duration(seconds: float) -> str:
    """``3.2 s`` below a minute, else ``m:ss`` or ``h:mm:ss``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(round(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _clock(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss``."""
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _value(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}" if math.isfinite(v) else str(v)
    return str(v)


class Progress:
    """Progress of one computation: a bar on a terminal, plain lines in logs.

    Parameters
    ----------
    total : int or float, optional
        The count at the end (None: unknown, the count and the time are shown).
    unit : str
        What is counted (``"jobs"``, ``"iterations"``); empty: only the time
        (and the ``postfix``) are shown.
    label : str
        What runs (``"simulate"``, ``"solve exact"``), at the start of the line.
    stream : file, optional
        Where to write (default: ``sys.stderr`` when the Progress is made).
    enabled : bool
        False: every method does nothing (``--quiet``).
    initial : int
        The count at the start (work done before, as a resumed sweep's).
    interval : float
        Seconds between two plain lines off a terminal (default 5).
    style : {None, "tqdm", "bar", "lines"}
        None: ``"tqdm"`` on a terminal when tqdm is installed, ``"bar"`` on
        one without it, ``"lines"`` elsewhere; ``"tqdm"`` without tqdm is
        ``"bar"``.
    heartbeat : bool
        Keep the elapsed time moving in a thread while no update comes (off
        where the caller forks processes: a sweep's local workers).
    clock : callable, optional
        Seconds of a monotonic clock (default ``time.perf_counter``).
    note : callable, optional
        Called at each drawing: a text to show at the end of the line (the
        command line's says when numba is compiling), or None.

    Notes
    -----
    Thread-safe: updates may come from any thread.  Use it as a context
    manager, or call :meth:`close`; on an exception the bar is wiped and
    no last line is written (the error message stays alone), except on an
    interrupt (``KeyboardInterrupt``), whose last line says
    ``stopped: interrupted``.

    The time left is ``spent * (total - n) / done``, from the count
    ``done`` and the seconds ``spent`` since the current stage began (the
    start, :meth:`stage`, or a count that went down), shown once ``done``
    is at least :data:`ETA_SHARE` of the stage's count and ``spent`` at
    least :data:`ETA_SECONDS`.

    Examples
    --------
    >>> import io
    >>> now = [0.0]
    >>> log = io.StringIO()
    >>> p = Progress(total=100, unit="jobs", label="simulate", stream=log, heartbeat=False, clock=lambda: now[0])
    >>> now[0] = 1.0; p.track(5)
    >>> p.line()                               # too little done to say
    'simulate: 5/100 jobs (5%), 1.0 s'
    >>> now[0] = 4.0; p.track(20)
    >>> p.line()                               # 20 jobs in 4 s: 80 more take 16 s
    'simulate: 20/100 jobs (20%), 4.0 s, about 16.0 s left'
    >>> p.stop("time limit")
    >>> p.close()
    >>> log.getvalue()
    'simulate: 20/100 jobs (20%), 4.0 s, stopped: time limit\\n'
    """

    def __init__(self, total=None, unit: str = "", label: str = "", stream=None, enabled: bool = True, *,
                 initial: int = 0, interval: float = LINE_INTERVAL, style: str | None = None, heartbeat: bool = True,
                 clock=None, note=None):
        if style is not None and style not in STYLES:
            raise ValueError(f"`style` must be one of {', '.join(STYLES)} or None, got {style!r}")
        self.total, self.unit, self.label = total, unit or "", label or ""
        self.n = self.initial = initial
        self.postfix: dict = {}
        self.note = note
        self.enabled = bool(enabled)
        self.stream = sys.stderr if stream is None else stream
        self.interval = float(interval)
        if style is None and not _is_terminal(self.stream):
            style = "lines"
        elif style is None:
            # a terminal of unknown width (0 columns) would get an empty tqdm bar: the own bar takes 79
            sizeless = _has_fileno(self.stream) and self._columns() == 0
            style = "tqdm" if _have_tqdm() and not sizeless else "bar"
        elif style == "tqdm" and not _have_tqdm():
            style = "bar"
        self.style = style
        self._now = time.perf_counter if clock is None else clock
        self.start = self._now()
        self._origin = (self.start, self.n)  # where the current stage began: (time, count)
        self._estimate = True               # False: the count does not measure the work left (stage)
        self.reason: str | None = None      # why the work ended before its count (stop)
        self.closed = not self.enabled
        self._lock = threading.RLock()
        self._bar = None            # the tqdm bar, made at the first draw
        self._drawn = 0             # own bar: length of the line on screen (0: none)
        self._last_draw = -math.inf
        self._last_line = self.start
        self._last_was_message = False
        self._stop = threading.Event()
        self._thread = None
        if self.enabled and heartbeat:
            period = TICK_INTERVAL if self.style != "lines" else min(1.0, max(0.05, self.interval))
            self._thread = threading.Thread(target=self._beat, args=(period,), name="optalloc-progress",
                                            daemon=True)
            self._thread.start()

    # ------------------------------------------------------------ counting

    def update(self, n=1, **postfix) -> None:
        """Count ``n`` more; ``postfix`` values (``best=12``) are shown after
        the count (None removes one)."""
        if self.closed:
            return
        with self._lock:
            self.n += n
            self._set_postfix(postfix)
            self._changed()

    def track(self, done, total=None, **postfix) -> None:
        """Set the count to ``done`` (and the total, when given): the
        ``progress(done, total)`` callback of the library."""
        if self.closed:
            return
        with self._lock:
            if total is not None:
                self.total = total
            if done < self.n:  # a new count: the rate so far says nothing about it
                self._origin = (self._now(), done)
            self.n = done
            self._set_postfix(postfix)
            self._changed()

    def stage(self, name: str, total=None, *, estimate: bool = True) -> None:
        """Begin a stage of the work: the count from 0 to ``total``, shown
        with ``stage=name``, its time left from its own rate.
        ``estimate=False``: the count does not measure the work left (other
        work follows that it does not cover, or its units differ in cost by
        orders of magnitude), so no time left is shown."""
        if self.closed:
            return
        with self._lock:
            self.total, self.n = total, 0
            self._origin = (self._now(), 0)
            self._estimate = bool(estimate)
            self._set_postfix({"stage": name})
            self._changed()

    def stop(self, reason: str) -> None:
        """The work ends before its count (``"time limit"``, ``"interrupted"``):
        the last line says ``stopped: REASON``."""
        with self._lock:
            self.reason = str(reason)

    def _set_postfix(self, postfix: dict) -> None:
        for key, value in postfix.items():
            if value is None:
                self.postfix.pop(key, None)
            else:
                self.postfix[key] = value

    def setdefaults(self, *, total=None, unit: str | None = None, label: str | None = None) -> None:
        """Fill in the total, unit and label where they are not set yet (a
        library function fills in what the command line could not know)."""
        with self._lock:
            if self.total is None and total is not None:
                self.total = total
            if not self.unit and unit:
                self.unit = unit
            if not self.label and label:
                self.label = label
            if self._bar is not None:
                self._tqdm_settings()

    def write(self, text: str) -> None:
        """A message on a line of its own (above the bar on a terminal); off
        a terminal it stands for a progress line."""
        if self.closed:
            return
        with self._lock:
            if self.style == "tqdm":
                self._tqdm().write(text, file=self.stream)
            else:
                self._wipe()
                self._put(text + "\n")
                self._last_line = self._now()
                if self.style == "bar":
                    self._draw()
            self._last_was_message = True

    # ------------------------------------------------------------ ending

    def close(self) -> None:
        """The final state: the bar completed on its line, or the last plain
        line (unless a message came after the last update); then silent."""
        self._end(ok=True)

    def abort(self) -> None:
        """End without a last line: the bar is wiped (an error follows)."""
        self._end(ok=False)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            self.stop("interrupted")
        self._end(ok=exc_type is None or self.reason == "interrupted")
        return False

    def _end(self, ok: bool) -> None:
        if self._thread is not None:
            self._stop.set()
            if self._thread is not threading.current_thread():
                self._thread.join()
            self._thread = None
        with self._lock:
            if self.closed:
                return
            self.closed = True
            if self.style == "tqdm":
                if self._bar is not None or ok:
                    bar = self._tqdm()
                    if ok:
                        bar.set_postfix_str(self._tqdm_postfix(), refresh=False)
                        bar.refresh()
                    else:
                        bar.leave = False
                    bar.close()
            elif self.style == "bar":
                if ok:
                    self._draw()
                    self._put("\n")
                else:
                    self._wipe()
            elif ok and not self._last_was_message:
                self._put(self.line() + "\n")

    # ------------------------------------------------------------ text

    def elapsed(self) -> float:
        """Seconds since the start."""
        return self._now() - self.start

    def _count(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        if self.total is not None:
            pct = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
            return f"{_value(self.n)}/{_value(self.total)}{unit}{pct}"
        return f"{_value(self.n)}{unit}" if self.unit else ""

    def left(self) -> float | None:
        """Seconds left by the rate of the current stage; None until enough
        is done to say, after the end, and where other work follows."""
        if self.closed or not self._estimate or self.reason is not None or not self.total:
            return None
        t0, n0 = self._origin
        done, todo, spent = self.n - n0, self.total - self.n, self._now() - t0
        if done <= 0 or todo <= 0 or spent < ETA_SECONDS or done < ETA_SHARE * (self.total - n0):
            return None
        return spent * todo / done

    def _eta(self) -> str:
        left = self.left()
        return "" if left is None else f"about {_duration(left)} left"

    def _why(self) -> str:
        return "" if self.reason is None else f"stopped: {self.reason}"

    def _postfix(self) -> str:
        return ", ".join(f"{k}={_value(v)}" for k, v in self.postfix.items())

    def _note(self) -> str:
        return (self.note() or "") if self.note is not None else ""

    def _tqdm_postfix(self) -> str:
        return ", ".join(p for p in (self._why(), self._postfix(), self._note()) if p)

    def line(self) -> str:
        """The state as one plain line: ``label: 12/20 jobs (60%), 3.2 s, about 2.1 s left, best=7``
        (``stopped: REASON`` in place of the time left after :meth:`stop`; the ``note`` last)."""
        parts = [p for p in (self._count(), _duration(self.elapsed()), self._eta(), self._why(), self._postfix(),
                             self._note()) if p]
        text = ", ".join(parts)
        return f"{self.label}: {text}" if self.label else text

    def bar_text(self, width: int = 80) -> str:
        """The state as the own bar draws it, at most ``width`` characters:
        ``label: [####......] 12/20 jobs 60% 0:03<0:02 best=7``."""
        parts = [f"{self.label}:"] if self.label else []
        if self.total:
            filled = min(GAUGE, max(0, int(GAUGE * self.n / self.total)))
            parts.append("[" + "#" * filled + "." * (GAUGE - filled) + "]")
        unit = f" {self.unit}" if self.unit else ""
        if self.total is not None:
            pct = f" {100 * self.n / self.total:.0f}%" if self.total else ""
            parts.append(f"{_value(self.n)}/{_value(self.total)}{unit}{pct}")
        elif self.unit:
            parts.append(f"{_value(self.n)}{unit}")
        clock = _clock(self.elapsed())
        left = self.left()
        if left is not None:
            clock += "<" + _clock(left)
        parts.append(clock)
        if self.reason is not None:
            parts.append(self._why())
        for extra in (self._postfix(), self._note()):
            if extra:
                parts.append(extra)
        text = " ".join(parts)
        return text if len(text) <= width else text[: max(0, width - 3)] + "..."

    # ------------------------------------------------------------ drawing

    def _changed(self) -> None:
        self._last_was_message = False
        now = self._now()
        if self.style == "tqdm":
            bar = self._tqdm()
            if bar.total != self.total:
                self._tqdm_settings()
            bar.set_postfix_str(self._tqdm_postfix(), refresh=False)
            bar.update(self.n - bar.n)
        elif self.style == "bar":
            if now - self._last_draw >= BAR_INTERVAL:
                self._draw()
        elif now - self._last_line >= self.interval:
            self._put(self.line() + "\n")
            self._last_line = now

    def _beat(self, period: float) -> None:
        while not self._stop.wait(period):
            with self._lock:
                if self.closed:
                    return
                if self.style == "tqdm":
                    self._tqdm().refresh()
                elif self.style == "bar":
                    self._draw()
                elif self._now() - self._last_line >= self.interval:
                    self._put(self.line() + "\n")
                    self._last_line = self._now()
                    self._last_was_message = False

    def _columns(self) -> int:
        """The terminal's width (0 when unknown: not a terminal, or one that does not say)."""
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is both
            return 0

    def _width(self) -> int:
        columns = self._columns()
        return max(20, columns - 1) if columns else 79

    def _draw(self) -> None:
        text = self.bar_text(self._width())
        self._put("\r" + text + " " * max(0, self._drawn - len(text)))
        self._drawn = max(1, len(text))
        self._last_draw = self._now()

    def _wipe(self) -> None:
        if self.style == "bar" and self._drawn:
            self._put("\r" + " " * self._drawn + "\r")
            self._drawn = 0

    def _put(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: progress is not worth an error
            self.closed = True

    def _tqdm(self):
        if self._bar is None:
            # follow the terminal's width; one that gives none (0) gets 80 columns
            sized = self._columns() > 0
            self._bar = _tqdm_class()(file=self.stream, initial=self.n, leave=True, dynamic_ncols=sized,
                                      ncols=None if sized else 80, mininterval=BAR_INTERVAL,
                                      **self._tqdm_options())
            self._bar.progress = self  # its time left is ours (tqdm's own follows the recent rate)
            self._bar.start_t = self._bar.last_print_t = self._bar._time() - self.elapsed()  # our start
        return self._bar

    def _tqdm_options(self) -> dict:
        # nothing counted: the time and the postfix only; a total: tqdm's bar with our time left
        if not (self.unit or self.total is not None):
            form = "{desc}: {elapsed}{postfix}"
        elif self.total:
            form = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{left}, {rate_fmt}{postfix}]"
        else:
            form = None
        return {"total": self.total, "desc": self.label, "unit": f" {self.unit}" if self.unit else "it",
                "bar_format": form}

    def _tqdm_settings(self) -> None:
        bar, options = self._bar, self._tqdm_options()
        bar.total, bar.unit, bar.bar_format = options["total"], options["unit"], options["bar_format"]
        bar.set_description_str(options["desc"], refresh=False)


_TQDM = None


def _tqdm_class():
    """tqdm's bar class without its monitor thread (our heartbeat refreshes
    the bar), imported at the first bar drawn."""
    global _TQDM
    if _TQDM is None:
        from tqdm import tqdm

        class _Bar(tqdm):
            monitor_interval = 0
            progress = None  # the Progress it draws

            @property
            def format_dict(self):
                d = super().format_dict
                left = None if self.progress is None else self.progress.left()
                d["left"] = "" if left is None else "<" + _clock(left)
                return d

        _TQDM = _Bar
    return _TQDM


def library_progress(progress, *, label: str, unit: str = "", total=None):
    """The reporter behind a library function's ``progress=`` argument, and
    the context that ends it.

    None or False: ``(None, nullcontext)``; True: a new :class:`Progress` on
    standard error, which the context closes (or wipes on an exception); a
    :class:`Progress`: that one, its total, unit and label filled in where
    it has none (its maker closes it); any other callable: itself.

    Raises
    ------
    ValueError
        ``progress`` is none of these.
    """
    check_progress(progress)
    if progress is None or progress is False:
        return None, contextlib.nullcontext()
    if progress is True:
        p = Progress(total, unit, label)
        return p, p
    if isinstance(progress, Progress):
        progress.setdefaults(total=total, unit=unit, label=label)
        return progress, contextlib.nullcontext()
    return progress, contextlib.nullcontext()


def check_progress(progress) -> None:
    """A ValueError unless ``progress`` is None, a bool, a callable or a :class:`Progress`
    (a function checks it with its other arguments, before any work)."""
    if not (progress is None or isinstance(progress, bool) or callable(progress) or isinstance(progress, Progress)):
        raise ValueError(f"`progress` must be a bool or a callable, got {progress!r}")
