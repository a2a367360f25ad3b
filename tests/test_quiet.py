"""``-q`` leaves standard error empty on success, HiGHS's banner included;
``--verbose`` shows the solvers' logs there.

HiGHS prints its banner ("Running HiGHS ...") once per process, at the C
level, when the first ``highspy.Highs`` is made: each command runs in a
fresh interpreter.  Each case first runs its command with the solvers'
logs on (``--verbose``, or :func:`optalloc._pyomo.solver_logs` where the
command has no such option) and checks that the banner is there, which
shows that HiGHS runs on that instance; then runs it with ``-q`` and
checks that standard error is empty.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from optalloc._pyomo import logs_wanted, solver_logs, solver_output

ROOT = Path(__file__).resolve().parents[1]
BANNER = "Running HiGHS"
#: the command line, in a fresh interpreter, with every solver's log on
LOGGED = ("import sys; from optalloc._pyomo import solver_logs; from optalloc.cli import main\n"
          "with solver_logs():\n    code = main(sys.argv[1:])\nsys.exit(code)")
CLI = "import sys; from optalloc.cli import main; sys.exit(main(sys.argv[1:]))"


def run(code: str, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *map(str, argv)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, check=False)


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    """A small-world network of 30 nodes (an edge list) and six of its nodes:
    the exact solver's cut loop runs its LP in HiGHS on them."""
    folder = tmp_path_factory.mktemp("net")
    G = nx.connected_watts_strogatz_graph(30, 4, 0.3, seed=30)
    (folder / "net.txt").write_text("".join(f"{u} {v}\n" for u, v in G.edges()), encoding="utf-8")
    (folder / "chosen.txt").write_text("0\n5\n9\n13\n21\n27\n", encoding="utf-8")
    return folder


#: (command, whether it has --verbose); "{net}" is the network's folder
COMMANDS = [
    pytest.param("solve --machine {net}/net.txt --k 6 --method exact --time-limit 60", True, id="solve-exact"),
    pytest.param("gap --machine {net}/net.txt --chosen {net}/chosen.txt --time-limit 60", False, id="gap"),
    # through Pyomo, which keeps HiGHS's output to itself unless asked
    pytest.param("order --machine 5x1 --method ip", True, id="order-ip", marks=pytest.mark.slow),
    # nine tasks: past brute force, and tabu does not meet the Gilmore-Lawler bound: the MIP runs
    pytest.param("map --pattern random:9:0.4 --machine mesh:5x2 --method exact --time-limit 2 --seed 1", True,
                 id="map-exact", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("line, has_verbose", COMMANDS)
def test_quiet_leaves_stderr_empty(line, has_verbose, network):
    argv = line.format(net=network).split()
    logged = run(CLI, *argv, "--verbose") if has_verbose else run(LOGGED, *argv)
    assert logged.returncode == 0, logged.stderr
    assert BANNER in logged.stderr, "HiGHS did not run on this instance: the case proves nothing"
    assert BANNER not in logged.stdout

    quiet = run(CLI, *argv, "-q")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == ""
    assert quiet.stdout.strip() and BANNER not in quiet.stdout


def test_highs_made_quietly_says_nothing():
    # the exact solvers make their HiGHS with silent_highs: its banner nowhere, or on stderr with the logs on
    code = "from optalloc._pyomo import silent_highs, solver_logs\nwith solver_logs({}):\n    silent_highs()"
    quiet, logged = run(code.format(False)), run(code.format(True))
    assert quiet.returncode == logged.returncode == 0, quiet.stderr + logged.stderr
    assert quiet.stdout == quiet.stderr == ""
    assert logged.stdout == "" and BANNER in logged.stderr


@pytest.mark.slow
def test_verbose_shows_the_solver_log():
    p = run(CLI, "order", "--machine", "5x1", "--method", "ip", "--verbose", "--json")
    assert p.returncode == 0, p.stderr
    assert "MIP has" in p.stderr  # HiGHS's own log, past its banner
    assert p.stdout.count("\n") == 1  # one JSON line: the log stays off standard output


def test_quiet_and_verbose_exclude_each_other(capsys):
    from optalloc.cli import main

    assert main(["order", "--machine", "5x1", "-q", "--verbose"]) == 2
    assert "not allowed with" in capsys.readouterr().err


# ------------------------------------------------------------ in this process


def test_solver_output_goes_nowhere_unless_logs_are_wanted(capfd):
    with solver_output():
        print("python")
        os.write(1, b"c level\n")
    print("result")
    out, err = capfd.readouterr()
    assert out == "result\n" and err == ""


@pytest.mark.parametrize("how", ["verbose", "solver_logs"])
def test_solver_output_on_stderr_when_logs_are_wanted(capfd, how):
    if how == "verbose":
        with solver_output(verbose=True):
            print("python")
            os.write(1, b"c level\n")
    else:
        with solver_logs(), solver_output():
            print("python")
            os.write(1, b"c level\n")
    out, err = capfd.readouterr()
    assert out == "" and err == "python\nc level\n"


def test_solver_logs_restores_the_setting():
    assert not logs_wanted()
    with solver_logs():
        with solver_logs(False):
            assert not logs_wanted()
        assert logs_wanted()
    assert not logs_wanted()
