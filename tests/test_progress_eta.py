"""The time left that progress shows, and the last line of a run that
stops early.

The time left is the rate of the work done in the current stage times the
work to do, shown once enough is done to say (``ETA_SHARE`` of the count
and ``ETA_SECONDS``); a run that ends before its count says why on its
last line.  A fake clock (``clock=``) makes the seconds exact.
"""

from __future__ import annotations

import io
import itertools

import pytest

from optalloc._progress import ETA_SECONDS, ETA_SHARE, Progress
from optalloc.cli import main


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


class Clock:
    """Seconds that move only when told."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def reporter(clock, **options):
    options = {"total": 100, "unit": "jobs", "label": "simulate", "stream": io.StringIO(), **options}
    return Progress(heartbeat=False, clock=clock, **options)


# ------------------------------------------------------------ the time left


def test_time_left_is_the_rate_of_the_work_done():
    clock = Clock()
    p = reporter(clock)
    # uneven work: 30 jobs in the first 3 s, then 10 in the next 7 s
    clock.now = 3.0
    p.track(30)
    assert p.left() == pytest.approx(3.0 * 70 / 30)
    clock.now = 10.0
    p.track(40)
    assert p.left() == pytest.approx(10.0 * 60 / 40)  # the rate over all the work done, not the last step's
    assert p.line() == "simulate: 40/100 jobs (40%), 10.0 s, about 15.0 s left"


def test_no_time_left_until_enough_is_done():
    clock = Clock()
    p = reporter(clock)
    clock.now = 30.0
    p.track(ETA_SHARE * 100 - 1)  # long, but too little of the count
    assert p.left() is None and "left" not in p.line()
    clock.now = 31.0
    p.track(ETA_SHARE * 100)
    assert p.left() == pytest.approx(31.0 * 90 / 10)
    q = reporter(Clock())
    q._now = lambda: ETA_SECONDS / 2
    q.track(50)  # half the count, but too soon
    assert q.left() is None


def test_no_time_left_at_the_end_or_without_a_total():
    clock = Clock()
    p = reporter(clock)
    clock.now = 5.0
    p.track(100)
    assert p.left() is None
    q = reporter(clock, total=None)
    clock.now = 10.0
    q.track(50)
    assert q.left() is None


def test_a_new_stage_has_its_own_rate():
    clock = Clock()
    p = reporter(clock, total=10, unit="decisions", label="certify")
    clock.now = 8.0
    p.track(10)            # the first count, done in 8 s
    p.track(0, 50)         # a count that goes down: a new stage, from now
    clock.now = 12.0
    p.track(20)
    # 20 in the 4 s of this stage: 30 more take 6 s (not 12 s * 30 / 20 = 18 s)
    assert p.left() == pytest.approx(6.0)


def test_a_stage_that_does_not_measure_the_work_shows_no_time_left():
    clock = Clock()
    p = reporter(clock, total=None, unit="decisions", label="certify")
    p.stage("allocators", 100, estimate=False)
    clock.now = 5.0
    p.track(90)
    assert p.left() is None and p.line() == "certify: 90/100 decisions (90%), 5.0 s, stage=allocators"
    p.stage("optima", 40)
    clock.now = 7.0
    p.track(20)
    assert p.left() == pytest.approx(2.0) and "stage=optima" in p.line()


def test_the_user_report_the_last_of_two_stages_is_not_hidden():
    """A count that ends at 90% of the run's time: what a user once saw as
    '0.7 s left' at 5 s of a run of 9.6 s."""
    clock = Clock()
    p = reporter(clock, total=None, unit="decisions", label="certify")
    p.stage("allocators", 100, estimate=False)
    for i in range(1, 101):
        clock.now = i * 0.05
        p.track(i)
        assert p.left() is None  # the optima follow: nothing said about them
    p.stage("optima", 10)
    clock.now = 5.0 + 4.6
    p.track(10)
    assert p.left() is None


def test_the_own_bar_and_tqdm_show_the_same_time_left():
    pytest.importorskip("tqdm")
    for style in ("bar", "tqdm"):
        clock = Clock()
        tty = FakeTerminal()
        p = reporter(clock, stream=tty, style=style)
        clock.now = 4.0
        p.track(20)
        if style == "bar":
            assert "0:04<0:16" in p.bar_text()
        else:
            p._tqdm().refresh()
            assert "<0:16" in tty.getvalue().split("\r")[-1]
        p.close()
        assert "<" not in tty.getvalue().rstrip("\n").split("\r")[-1]  # the end: nothing left


# ------------------------------------------------------------ why a run stopped


@pytest.mark.parametrize("style", ["lines", "bar", "tqdm"])
def test_a_run_that_stops_early_says_why_on_its_last_line(style):
    if style == "tqdm":
        pytest.importorskip("tqdm")
    clock = Clock()
    stream = io.StringIO() if style == "lines" else FakeTerminal()
    with reporter(clock, stream=stream, style=style, total=1000, unit="moves", label="tabu") as p:
        clock.now = 3.0
        p.track(120, best=42)
        p.stop("time limit")
    last = stream.getvalue().rstrip("\n").split("\r")[-1].split("\n")[-1]
    expected = {"lines": "tabu: 120/1000 moves (12%), 3.0 s, stopped: time limit, best=42",
                "bar": "tabu: [##..................] 120/1000 moves 12% 0:03 stopped: time limit",
                "tqdm": "stopped: time limit, best=42]"}[style]
    assert expected in last and "120/1000" in last
    assert "left" not in last and "<" not in last


def test_an_interrupt_leaves_a_last_line_an_error_none():
    clock = Clock()
    log = io.StringIO()
    with pytest.raises(KeyboardInterrupt), reporter(clock, stream=log) as p:
        clock.now = 2.0
        p.track(30)
        raise KeyboardInterrupt
    assert log.getvalue() == "simulate: 30/100 jobs (30%), 2.0 s, stopped: interrupted\n"
    log = io.StringIO()
    with pytest.raises(ValueError), reporter(clock, stream=log) as p:
        p.track(30)
        raise ValueError("bad input")
    assert log.getvalue() == ""


# ------------------------------------------------------------ the commands


def test_a_command_stopped_by_its_time_limit_says_so(capsys):
    # GRASP on a 6 x 6 stencil does not meet the Gilmore-Lawler bound in 0.3 s: the time limit ends it
    code = main(["map", "--pattern", "stencil:6x6", "--machine", "6x6", "--method", "grasp", "--time-limit", "0.3",
                 "--iterations", "1000000", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert '"termination": "time_limit"' in out
    assert err.splitlines()[-1].startswith("map: ") and "stopped: time limit" in err.splitlines()[-1]


def test_certify_shows_no_time_left(monkeypatch):
    """Its decisions are certified after the simulation, many at once (repeats),
    after solves of any length: neither count tells the time left."""
    from optalloc import instance_path
    from optalloc.sim import certify, read_swf, simulate

    trace = read_swf(instance_path("small.swf"), max_procs=32).head(40)
    lines = {}
    for name, run in (("simulate", lambda p: simulate(trace, "8x4", progress=p)),
                      ("certify", lambda p: certify(trace, "8x4", time_limit=5, progress=p))):
        log = io.StringIO()
        tick = itertools.count()  # a second more at every look at the clock
        with Progress(label=name, stream=log, interval=0.0, heartbeat=False,
                      clock=lambda tick=tick: float(next(tick))) as p:
            run(p)
        lines[name] = log.getvalue().splitlines()
    assert any("left" in line for line in lines["simulate"])  # the same clock shows one for simulate
    assert lines["certify"] and not any("left" in line for line in lines["certify"])
