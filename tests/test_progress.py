"""Progress on standard error: a bar on a terminal, plain lines in logs,
nothing with ``--quiet``, nothing from the library unless asked.

The reporter is :class:`optalloc._progress.Progress`; every command that
can run for more than a couple of seconds shows one by default, and every
long library function takes ``progress=`` (silent by default).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from optalloc import _progress, instance_path
from optalloc._progress import Progress
from optalloc.cli import main


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line]


# ------------------------------------------------------------ the reporter off a terminal


def test_off_a_terminal_plain_lines_rate_limited_and_a_last_one():
    log = io.StringIO()
    now = [0.0]
    with Progress(total=100, unit="jobs", label="simulate", stream=log, interval=2.0, heartbeat=False,
                  clock=lambda: now[0]) as p:
        assert p.style == "lines"
        for i in range(100):
            now[0] = (i + 1) / 10  # a job every 0.1 s
            p.update(1, best=3.5)
    text = log.getvalue()
    assert "\r" not in text
    lines = _lines(text)
    assert all(line.startswith("simulate: ") for line in lines)
    assert lines[-1].startswith("simulate: 100/100 jobs (100%), ") and lines[-1].endswith("best=3.5")
    assert "left" not in lines[-1]  # no time left at the end
    # a line every 2 s of the 10 s of work, and the last one; those before the end say how long is left
    assert lines[:4] == [f"simulate: {20 * i}/100 jobs ({20 * i}%), {2 * i}.0 s, about {10 - 2 * i}.0 s left, best=3.5"
                         for i in range(1, 5)]
    assert len(lines) <= 6


def test_off_a_terminal_a_short_run_gives_one_line():
    log = io.StringIO()
    with Progress(total=3, unit="decisions", label="certify", stream=log) as p:
        for _ in range(3):
            p.update()
    assert _lines(log.getvalue()) == [log.getvalue().strip()]
    assert log.getvalue().startswith("certify: 3/3 decisions (100%), ")


def test_without_a_total_or_a_unit_the_time_is_shown():
    log = io.StringIO()
    with Progress(label="solve brute", stream=log):
        pass
    assert _lines(log.getvalue())[0].startswith("solve brute: ") and log.getvalue().endswith(" s\n")


def test_the_heartbeat_writes_while_nothing_happens():
    log = io.StringIO()
    with Progress(label="solve ptas", stream=log, interval=0.1):
        time.sleep(0.55)
    lines = _lines(log.getvalue())
    assert len(lines) >= 3 and "\r" not in log.getvalue()


def test_messages_and_no_last_line_after_one():
    """A sweep's lines: a message after the last update stands for the last line."""
    log = io.StringIO()
    with Progress(total=2, unit="configurations", label="sweep t", stream=log) as p:
        p.write("sweep t: 2 configurations")
        p.track(1)
        p.write("[1/2] ok")
        p.track(2)
        p.write("[2/2] ok")
    assert _lines(log.getvalue()) == ["sweep t: 2 configurations", "[1/2] ok", "[2/2] ok"]


def test_an_error_leaves_no_line():
    log = io.StringIO()
    with pytest.raises(ValueError), Progress(total=5, unit="jobs", label="simulate", stream=log) as p:
        p.update(2)
        raise ValueError("bad input")
    assert log.getvalue() == ""


def test_disabled_is_silent():
    log = io.StringIO()
    with Progress(total=5, unit="jobs", label="x", stream=log, enabled=False) as p:
        p.update(5)
        p.write("message")
    assert log.getvalue() == ""


def test_a_broken_stream_is_not_an_error():
    log = io.StringIO()
    p = Progress(total=5, label="x", stream=log, interval=0.0)
    log.close()
    p.update(3)
    p.close()


def test_bad_style():
    with pytest.raises(ValueError, match="style"):
        Progress(style="fancy")


# ------------------------------------------------------------ the reporter on a terminal


@pytest.mark.parametrize("style", [None, "bar", "tqdm"])
def test_on_a_terminal_a_bar(style, monkeypatch):
    if style == "tqdm":
        pytest.importorskip("tqdm")
    tty = FakeTerminal()
    with Progress(total=50, unit="iterations", label="tabu", stream=tty, style=style) as p:
        assert p.style == (style or ("tqdm" if _progress._have_tqdm() else "bar"))
        for _ in range(50):
            p.update(1, best=7.0)
            time.sleep(0.004)
    text = tty.getvalue()
    assert text.startswith("\r") and text.endswith("\n") and text.count("\n") == 1
    last = text.rstrip("\n").split("\r")[-1]
    assert last.startswith("tabu:") and "50/50" in last and "100%" in last and "best=7" in last


def test_own_bar_without_tqdm(monkeypatch):
    monkeypatch.setattr(_progress, "_have_tqdm", lambda: False)
    tty = FakeTerminal()
    with Progress(total=4, unit="jobs", label="simulate", stream=tty) as p:
        assert p.style == "bar"
        p.update(2)
        p.write("a message")
        p.update(2)
    text = tty.getvalue()
    assert "a message\n" in text
    assert text.rstrip("\n").split("\r")[-1].startswith("simulate: [####################] 4/4 jobs 100%")


def test_own_bar_is_wiped_on_an_error():
    tty = FakeTerminal()
    with pytest.raises(RuntimeError), Progress(total=4, label="x", stream=tty, style="bar") as p:
        p.update(1)
        raise RuntimeError("a bug")
    assert tty.getvalue().endswith("\r") and tty.getvalue().split("\r")[-2].strip() == ""


def test_bar_text_fits_the_width():
    p = Progress(total=10, unit="iterations", label="a long label", stream=io.StringIO(), enabled=False)
    p.postfix = {"best": 1.5, "bound": 2.5}
    assert len(p.bar_text(30)) == 30 and p.bar_text(30).endswith("...")


def test_a_note_ends_the_line_and_the_bar_while_it_has_something_to_say():
    said = ["compiling"]
    p = Progress(total=10, unit="jobs", label="x", stream=io.StringIO(), enabled=False,
                 clock=lambda: 2.0, note=lambda: said[0])
    p.start = 0.0
    p.postfix = {"best": 3}
    assert p.line() == "x: 0/10 jobs (0%), 2.0 s, best=3, compiling"
    assert p.bar_text(200).endswith(" best=3 compiling")
    said[0] = None
    assert p.line() == "x: 0/10 jobs (0%), 2.0 s, best=3"
    assert not p.bar_text(200).endswith("compiling")


def test_the_commands_progress_says_when_numba_compiles(monkeypatch):
    from optalloc.cli import _common

    args = type("Args", (), {"quiet": False, "verbose": False})()
    p = _common.progress_for(args, "certify", stream=io.StringIO(), heartbeat=False, total=3, unit="decisions")
    monkeypatch.setattr(_common, "compiling", lambda: None)
    assert "compiling" not in p.line()
    monkeypatch.setattr(_common, "compiling", lambda: "optalloc.ksubset.search._shapesearch._shapes")
    assert p.line().endswith(", " + _common.COMPILING)


# ------------------------------------------------------------ the library: silent unless asked


def _qap(n=12):
    rng = np.random.default_rng(1)
    A = rng.integers(0, 5, (n, n)).astype(float)
    A = A + A.T
    np.fill_diagonal(A, 0)
    B = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    return A, B


def _silent_calls():
    from optalloc.curves import order_graph
    from optalloc.ksubset import exact, gap
    from optalloc.machine import Machine
    from optalloc.qap import grasp, map_tasks, stencil, tabu
    from optalloc.qap import solve as solve_qap
    from optalloc.sim import certify, read_swf, simulate

    A, B = _qap()
    trace = read_swf(instance_path("small.swf"), max_procs=32)
    cells = np.array([(x, y) for y in range(10) for x in range(10)])
    half = cells[np.sort(np.random.default_rng(3).choice(100, 50, replace=False))]
    return {
        "tabu": lambda: tabu(A, B, iterations=3000, rng=0),
        "grasp": lambda: grasp(A, B, iterations=3, rng=0),
        "qap.solve": lambda: solve_qap(A, B, iterations=2000, rng=0),
        "map_tasks": lambda: map_tasks(stencil((4, 4)), "torus:4x4", iterations=500, rng=0),
        "order_graph": lambda: order_graph(Machine((6, 6)), method="qap", iterations=1500, rng=0),
        "simulate": lambda: simulate(trace, "8x4"),
        "certify": lambda: certify(trace.head(10), "8x4", time_limit=5),
        "exact": lambda: exact(half, 12, time_limit=5, profiles=False),
        "gap": lambda: gap(half, np.arange(12), time_limit=2),
    }


@pytest.mark.parametrize("name", ["tabu", "grasp", "qap.solve", "map_tasks", "order_graph", "simulate",
                                  "certify", "exact", "gap"])
def test_library_silent_by_default(name, capfd):
    _silent_calls()[name]()
    out, err = capfd.readouterr()
    # HiGHS prints its banner on standard error once per process, when the first model is made
    err = "".join(line for line in err.splitlines(keepends=True)
                  if not line.startswith(("Running HiGHS", "Includes third-party")))
    assert out == "" and err == ""


def test_library_progress_true_writes_lines_on_stderr(capfd):
    from optalloc.curves import order_graph
    from optalloc.machine import Machine
    from optalloc.qap import tabu

    A, B = _qap()
    tabu(A, B, iterations=3000, rng=0, progress=True)
    order_graph(Machine((6, 6)), method="qap", iterations=1500, rng=0, progress=True)
    out, err = capfd.readouterr()
    assert out == ""
    lines = _lines(err)
    assert lines[0].startswith("tabu: 3000/3000 iterations (100%), ") and "best=" in lines[0]
    assert lines[-1].startswith("order: ") and "/1500 iterations" in lines[-1]
    assert "\r" not in err


def test_library_callables():
    from optalloc.curves import order_graph
    from optalloc.ksubset import exact
    from optalloc.machine import Machine
    from optalloc.qap import map_tasks, ring
    from optalloc.qap import solve as solve_qap

    A, B = _qap()
    seen = []
    solve_qap(A, B, method="grasp", iterations=4, rng=0, progress=lambda it, best: seen.append((it, best)))
    assert seen and [it for it, _ in seen] == list(range(len(seen)))  # grasp: every construction
    seen.clear()
    res = map_tasks(ring(16), "mesh:4x4", criterion="classic", method="tabu", iterations=3000, rng=0,
                    progress=lambda it, best: seen.append((it, best)))
    assert all(it % 1000 == 0 for it, _ in seen) and (not seen or seen[-1][1] >= res.objective)
    seen.clear()
    res = order_graph(Machine((8, 8)), method="qap", iterations=3000, rng=0,
                      progress=lambda it, best: seen.append((it, best)))
    assert seen and seen[-1][1] >= res.objective - 1e-9  # the ordering objective, not the QAP's double
    rounds = []
    cells = np.array([(x, y) for y in range(12) for x in range(12)])
    half = cells[np.sort(np.random.default_rng(5).choice(144, 72, replace=False))]
    r = exact(half, 24, time_limit=5, profiles=False, progress=lambda *a: rounds.append(a))
    assert [a[0] for a in rounds] == list(range(1, r.extra["rounds"] + 1))
    assert all(lo <= hi for _, lo, hi in rounds)


@pytest.mark.parametrize("call", ["tabu", "order_graph", "simulate", "exact", "map_tasks"])
def test_library_refuses_a_bad_progress(call):
    from optalloc.curves import order_graph
    from optalloc.ksubset import exact
    from optalloc.qap import map_tasks, stencil, tabu
    from optalloc.sim import Job, simulate

    A, B = _qap(5)
    run = {"tabu": lambda: tabu(A, B, iterations=5, progress=3),
           "order_graph": lambda: order_graph(__import__("networkx").path_graph(5), progress="yes"),
           "simulate": lambda: simulate([Job(1, 0, 10, 2)], "4x4", progress=3),
           "exact": lambda: exact([[0, 0], [1, 0], [2, 0]], 2, progress=1.5),
           "map_tasks": lambda: map_tasks(stencil((2, 2)), "mesh:2x2", progress=[1])}[call]
    with pytest.raises(ValueError, match="progress"):
        run()


def test_no_tqdm_at_start_up():
    code = textwrap.dedent("""
        import contextlib, io, sys
        import optalloc, optalloc.cli
        from optalloc.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main(["solve", "--help"])
            except SystemExit:
                pass
        print("tqdm" in sys.modules)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


# ------------------------------------------------------------ the command line


def _sweep_config(tmp_path):
    config = tmp_path / "sweep.toml"
    config.write_text(
        "[sweep]\n"
        'name = "quiet"\n'
        f"traces = [{{path = {json.dumps(str(instance_path('small.swf')))}, limit = 20}}]\n"
        'machines = ["8x4"]\n'
        'allocators = ["mm", "mc1x1"]\n', encoding="utf-8")
    return config


def _chosen(tmp_path):
    path = tmp_path / "alloc.txt"
    assert main(["solve", "--map", str(instance_path("mesh16x16.txt")), "--k", "8", "--method", "mc1x1",
                 "--out", str(path), "--json"]) == 0
    return path


#: (command, the label of its progress line); {tmp}, {chosen} and {config} filled in
COMMANDS = [
    ("solve --map {mesh} --k 8 --method exact --json", "solve exact"),
    ("solve --points {plane} --k 4 --method brute --json", "solve brute"),
    ("solve --points {plane} --k 4 --method ptas --strips 2 --json", "solve ptas"),
    ("gap --map {mesh} --chosen {chosen} --json", "gap"),
    ("order --machine 6x6 --method qap --iterations 1500 --json", "order"),
    ("map --pattern stencil:4x4 --machine torus:4x4 --iterations 500 --json", "map"),
    ("qap {tiny3} --json", "qap"),
    ("simulate {small} --machine 8x4 --jobs 20 --json", "simulate"),
    ("certify --jobs 10 --time-limit 5 --json", "certify"),
    ("sweep {config} --db {tmp}/s.sqlite --workers 1 --json", "sweep quiet"),
    ("bench --suite heuristics --quick --repeat 1 --json", "bench heuristics"),
]

IDS = [label for _, label in COMMANDS]


def _argv(line, tmp_path, capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    fill = {"mesh": instance_path("mesh16x16.txt"), "plane": instance_path("points-plane.txt"),
            "small": instance_path("small.swf"), "tiny3": root / "docs" / "examples" / "tiny3.dat", "tmp": tmp_path}
    if "{chosen}" in line:
        fill["chosen"] = _chosen(tmp_path)
    if "{config}" in line:
        fill["config"] = _sweep_config(tmp_path)
    capsys.readouterr()
    return line.format(**{k: str(v) for k, v in fill.items()}).split()


@pytest.mark.parametrize("line, label", COMMANDS, ids=IDS)
def test_quiet_leaves_stderr_empty(line, label, tmp_path, capsys):
    argv = _argv(line, tmp_path, capsys)
    assert main([*argv, "--quiet"]) == 0
    out, err = capsys.readouterr()
    json.loads(out)
    assert err == ""


@pytest.mark.parametrize("line, label", COMMANDS, ids=IDS)
def test_progress_by_default_on_stderr_only(line, label, tmp_path, capsys):
    argv = _argv(line, tmp_path, capsys)
    assert main(argv) == 0
    out, err = capsys.readouterr()
    json.loads(out)  # standard output: the results only
    assert "\r" not in err  # not a terminal: plain lines
    lines = _lines(err)
    assert lines
    if label.startswith("sweep"):
        assert lines[0].startswith(f"{label}: 2 configurations") and lines[-1].startswith("[2/2] ok")
    else:
        assert all(line.startswith(f"{label}: ") for line in lines), err


def test_a_bar_on_a_terminal(monkeypatch, capsys):
    tty = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["order", "--machine", "6x6", "--method", "qap", "--iterations", "2000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "qap"
    text = tty.getvalue()
    assert text.startswith("\r") and text.rstrip().split("\r")[-1].startswith("order:")


def test_the_old_progress_flag(tmp_path, capsys):
    small = str(instance_path("small.swf"))
    assert main(["simulate", small, "--machine", "8x4", "--jobs", "5", "--progress"]) == 0
    assert "simulate: 5/5 jobs" in capsys.readouterr().err
    # accepted by solve for every method (with exact it asks for the detailed log: tests/test_cli.py)
    assert main(["solve", "--map", str(instance_path("mesh16x16.txt")), "--k", "8", "--method", "mm",
                 "--progress"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["simulate", small, "--machine", "8x4", "--progress", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("optalloc: error: argument ") and "not allowed with argument" in err
    assert len(_lines(err)) == 1


def test_bad_input_stays_one_line(capsys):
    assert main(["solve", "--points", str(instance_path("points-plane.txt")), "--k", "99", "--method",
                 "brute"]) == 2
    lines = _lines(capsys.readouterr().err)
    assert len(lines) == 1 and lines[0].startswith("optalloc: error: ")
