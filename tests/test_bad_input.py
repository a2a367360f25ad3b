"""Bad input, one row each: the command line answers with exit code 2 and
one line on stderr (``optalloc: error: ...``), no traceback and nothing on
stdout; the library raises ValueError with a message that says what is wrong.

The command rows run ``optalloc.cli.main`` in process, in a folder of small
files (:func:`files`); ``{small}`` stands for the bundled trace.
"""

from __future__ import annotations

import math
import re
import shlex

import numpy as np
import pytest

from optalloc import instance_path
from optalloc.cli import main
from optalloc.curves import order_graph
from optalloc.ksubset import exact, gap, ptas, solve
from optalloc.machine import Machine, dragonfly, fat_tree, parse_machine
from optalloc.qap import map_tasks
from optalloc.sim import Job, certify, read_swf, simulate

FILES = {
    "pts.txt": "0 0\n1 0\n0 1\n1 1\n2 2\n",
    "empty.txt": "",
    "badpts.txt": "1 2\n3 x\n",
    "nanpts.txt": "nan 0\n1 1\n",
    "notfree.txt": "0 0\n9 9\n",
    "badcomm.csv": "1,2\n3\n",
    "badqap.dat": "3\n1 2 3\n",
    "empty.dat": "",
    "empty.swf": "",
    "bad.toml": "[sweep\n",
    "map.txt": "....\n.##.\n",
    "notdb.sqlite": "not a database",
    "out.txt": "already here\n",
    "out.csv": "already here\n",
    "good.toml": "[sweep]\nname = 'x'\ntraces = [{path = 'small.swf', limit = 5}]\nmachines = ['8x4']\n"
                 "allocators = ['mm']\n",
    "ring.json": '{"directed": false, "multigraph": false, "graph": {}, "nodes": [{"id": "a"}, {"id": "b"}, '
                 '{"id": "c"}, {"id": "d"}], "links": [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}, '
                 '{"source": "c", "target": "d"}, {"source": "d", "target": "a"}]}',
    "labels.txt": "a\nzz\n",
    "twice.txt": "a\na\n",
    "torus-far.txt": "0 0\n9 9\n",
}


@pytest.fixture
def files(tmp_path, monkeypatch):
    """A folder holding :data:`FILES`, a directory ``adir``, 60 random points
    (``many.txt``) and a copy of the bundled trace; the current folder."""
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "adir").mkdir()
    pts = np.random.default_rng(0).integers(0, 100, size=(60, 2))
    (tmp_path / "many.txt").write_text("".join(f"{x} {y}\n" for x, y in pts))
    (tmp_path / "small.swf").write_bytes(instance_path("small.swf").read_bytes())
    monkeypatch.chdir(tmp_path)
    return tmp_path


#: (command line, a piece of the error message)
CLI = [
    # solve
    ("solve --points missing.txt --k 2", "missing.txt: no such file"),
    ("solve --points adir --k 2", "is a directory"),
    ("solve --points empty.txt --k 2", "file is empty"),
    ("solve --points badpts.txt --k 2", "line 2: not a number"),
    ("solve --points nanpts.txt --k 2", "NaN"),
    ("solve --points pts.txt --k 0", "--k must be between 1 and the number of points (5)"),
    ("solve --points pts.txt --k 9", "--k must be between 1 and the number of points (5)"),
    ("solve --points pts.txt --k x", "--k: invalid int value"),
    ("solve --points pts.txt --k 2 --method nope", "--method: invalid choice"),
    ("solve --points pts.txt --k 2 --method exact --time-limit 0", "--time-limit must be positive"),
    ("solve --points pts.txt --k 2 --method exact --time-limit nan", "--time-limit must be positive"),
    ("solve --points pts.txt --k 2 --method exact --time-limit -1", "--time-limit must be positive"),
    ("solve --points pts.txt --k 2 --method gen-alg --time-limit 5", "does not apply to method 'gen-alg'"),
    ("solve --points pts.txt --k 2 --method ptas --strips 0", "--strips must be between 1 and k"),
    ("solve --points pts.txt --k 2 --method line", "--points must be one-dimensional for method 'line'"),
    ("solve --machine 4x4 --k 2 --method line", "--machine must be one-dimensional for method 'line'"),
    ("solve --points many.txt --k 4 --method ptas --strips 5", "--strips must be between 1 and k (4), got 5"),
    ("solve --points pts.txt --k 2 --out out.txt", "out.txt exists; pass --force"),
    ("solve --points pts.txt --k 2 --out nodir/x.txt", "folder"),
    ("solve --machine 0x4 --k 2", "positive sizes"),
    ("solve --machine banana --k 2", "must be a shape"),
    ("solve --machine '8x8 torus' --k 2 --method ptas", "'ptas' needs a mesh; on a 8x8 torus use one of: brute"),
    ("solve --machine '8x8 torus' --k 2 --method mc1x1 --tie-break default", "--tie-break does not apply on a 8x8 torus"),
    ("solve --machine '8x8 torus' --k 2 --method mm --time-limit 5", "--time-limit does not apply to method 'mm'"),
    ("solve --machine dragonfly --k 100 --method gen-alg", "--k must be between 1 and the number of free nodes (72)"),
    ("solve --machine dragonfly:8,4,2,2 --k 2", "--machine: 'dragonfly:8,4,2,2': groups - 1 (7) must divide"),
    ("solve --machine fattree:3 --k 2", "--machine: 'fattree:3': k must be an even integer >= 2, got 3"),
    ("order --machine dragonfly:9,4,2,2,sideways", "arrangement must be one of"),
    # gap
    ("gap --points pts.txt --chosen missing.txt", "missing.txt: no such file"),
    ("gap --points pts.txt --chosen notfree.txt", "not a free point"),
    ("gap --points pts.txt --chosen pts.txt --time-limit -3", "--time-limit must be positive"),
    # order
    ("order --machine missing.graphml", "no such file"),
    ("order --machine 4x4 --iterations 0", "--iterations must be at least 1"),
    ("order --machine 4x4 --time-limit 0", "--time-limit must be positive"),
    ("order --machine 4x4 --weight w", "--weight names the link lengths of a network file"),
    ("order --machine 4x4 --out out.txt", "out.txt exists"),
    ("order --machine 4x4 --method ip", "--machine has 16 nodes; order_ip solves at most 12 without a --time-limit"),
    ("order --machine 4x4 --seed -1", "argument --seed: must be a non-negative integer, got '-1'"),
    # map, qap
    ("map --pattern bogus:4 --machine 4x4", "--pattern must be one of"),
    ("map --pattern stencil:0x4 --machine 4x4", "--pattern: shape sides must be positive integers"),
    ("map --pattern random:9:2 --machine 4x4", "--pattern: density must be between 0 and 1"),
    ("map --pattern ring:12 --machine 4x4 --method exact", "n = 16 needs a --time-limit"),
    ("map --pattern ring:4 --machine 4x4 --seed -2", "argument --seed: must be a non-negative integer"),
    ("map --pattern stencil:8x8 --machine 4x4", "64 tasks do not fit on 16 nodes"),
    ("map --comm badcomm.csv --machine 4x4", "badcomm.csv, line 2"),
    ("map --pattern ring:4 --machine 4x4 --weight w", "--weight"),
    ("qap missing.dat", "missing.dat: no such file"),
    ("qap empty.dat", "file is empty"),
    ("qap badqap.dat", "matrix entries"),
    # simulate
    ("simulate missing.swf --machine 8x4", "missing.swf: no such trace file"),
    ("simulate empty.swf --machine 8x4", "empty.swf"),
    ("simulate {small} --machine 8x4 --allocator nonsense", "1d:ORDER:STRATEGY"),
    ("simulate {small} --machine 8x4 --allocator 1d:nope:best-fit", "--allocator '1d:nope:best-fit': order must be one of"),
    ("simulate {small} --machine 8x4 --allocator mm:foo=1", "--allocator: method 'mm' does not take option 'foo'"),
    ("simulate {small} --machine 8x4 --allocator random:seed=x", "--allocator 'random': seed must be an integer"),
    ("simulate {small} --machine 8x4 --allocator mc1x1:tie=1,2", "the allocator's tie must be (SR, AF, WF, BF)"),
    ("simulate {small} --machine 8x4 --seed -1", "argument --seed: must be a non-negative integer"),
    ("simulate {small} --machine 8x4 --work-multiple 0", "--work-multiple must be a positive finite number"),
    ("simulate {small} --machine 8x4 --replication 0", "--replication must be an integer of at least 1"),
    ("simulate {small} --machine 8x4 --runtime-model nope", "--runtime-model must be 'none' or"),
    ("simulate {small} --machine 8x4 --scheduler nope", "--scheduler: invalid choice"),
    ("simulate {small} --machine 8x4 --scale 0", "--scale must be a positive integer"),
    ("simulate {small} --machine 8x4 --jobs 0", "--jobs must be positive"),
    ("simulate {small} --machine map.txt", "busy nodes"),
    ("simulate {small} --machine 8x4 --out o.xyz", "--out must end in"),
    # simulate on networks: an allocator that does not fit the machine
    ("simulate {small} --machine dragonfly --allocator mc1x1", "'mc1x1' does not fit a dragonfly:groups=9,routers=4,nodes=2,global=2,arrangement=absolute"),
    ("simulate {small} --machine dragonfly --allocator 1d:hilbert:best-fit", "allocators that fit: brute, exact"),
    ("simulate {small} --machine 8x4 --allocator dfly:hybrid", "'dfly:hybrid' does not fit a 8x4 mesh"),
    ("simulate {small} --machine fat-tree:4 --allocator dfly:slurm", "needs a dragonfly"),
    ("simulate {small} --machine dragonfly --allocator dfly:nope", "unknown dragonfly allocator 'nope'"),
    ("simulate {small} --machine dragonfly --allocator dfly:slurm:seed=2", "dfly:slurm takes no option"),
    ("simulate {small} --machine dragonfly --allocator 1d:graph-nope", "graph-METHOD with METHOD one of"),
    ("simulate {small} --machine fat-tree:3", "--machine: 'fat-tree:3': k must be an even integer"),
    ("simulate {small} --machine dragonfly:4,4,2", "must divide"),
    # certify
    ("certify --time-limit 0", "--time-limit must be positive"),
    ("certify --time-limit abc", "--time-limit must be positive"),
    ("certify --no-exact --time-limit 5", "not with --no-exact"),
    ("certify --machine '8x8 torus' --allocators ptas,gen-alg", "'ptas' does not fit a 8x8 torus"),
    ("certify --machine '8x8 torus' --driver ptas", "allocators that fit: brute, exact, gen-alg, mc1x1, mm, mm-inc"),
    ("certify --machine ring.json --allocators 1d:gilbert:best-fit", "does not fit a network of 4 nodes"),
    ("certify --workers 0", "--workers must be at least 1"),
    ("certify --total-time-limit -3", "--total-time-limit must be positive"),
    ("gap --machine ring.json --chosen labels.txt", "'zz' is not a node label"),
    ("gap --machine ring.json --chosen twice.txt", "a node is listed twice"),
    ("gap --machine '8x8 torus' --chosen torus-far.txt", "not a node of the 8x8 torus"),
    ("certify --driver nonsense", "random[:seed=N]"),
    ("certify --allocators ,", "at least one allocator"),
    ("certify --allocators mm,mm", "--allocators lists 'mm' twice"),
    ("certify --allocators nonsense", "--allocators: unknown method 'nonsense'"),
    ("certify --driver 1d:nope:best-fit", "--driver '1d:nope:best-fit': order must be one of"),
    ("certify --workers 2 --scheduler-address nope", "--scheduler-address must be an address such as"),
    ("certify --resume", "--resume continues the file of --out"),
    ("certify --out out.csv", "out.csv exists"),
    # sweep, bench, the command itself
    ("sweep missing.toml", "missing.toml: no such file"),
    ("sweep bad.toml", "invalid TOML"),
    ("sweep good.toml --workers 0", "`workers` must be at least 1"),
    ("sweep good.toml --db notdb.sqlite", "not an SQLite database"),
    ("bench --repeat 0", "--repeat must be at least 1"),
    ("bench --limit 5", "--limit applies to"),
    ("nope", "invalid choice"),
]


@pytest.mark.parametrize("line, message", CLI, ids=[c for c, _ in CLI])
def test_command_line(line, message, files, capsys):
    argv = [a.replace("{small}", "small.swf") for a in shlex.split(line)]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, f"exit code {code}: {err}"
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("optalloc: error: "), err
    assert "Traceback" not in err
    assert message in lines[0]
    if argv[0] != "sweep":  # the options the user typed, not the library's parameters
        assert not re.search(r"`\w+`", lines[0]), lines[0]


PTS = [[0, 0], [1, 0], [0, 1], [1, 1], [2, 2]]
JOBS = [Job(1, 0, 10, 4), Job(2, 1, 10, 3)]


#: (call, the message it must raise, as a regular expression)
LIBRARY = [
    (lambda: solve(PTS, 0), r"`k` must be between 1 and the number of points \(5\), got 0"),
    (lambda: solve(PTS, 2, method="nope"), r"unknown method 'nope'; choose one of"),
    (lambda: solve(PTS, 2, method="mm", time_limit=1), r"does not take option 'time_limit'; it takes no options"),
    (lambda: solve([[0, math.nan]], 1), r"NaN"),
    (lambda: solve([], 1), r"`points` is empty"),
    (lambda: solve(PTS, 2, method="ptas", budget=1e-12),
     r"^the PTAS would take about .* s even with m = 1 \(n = 5, k = 2, d = 2\), more than the budget of 1e-12 s"),
    (lambda: gap(PTS, [0, 0]), r"`chosen` repeats a point"),
    (lambda: gap(PTS, [0, 9]), r"`chosen` holds an index outside 0..4"),
    (lambda: gap(PTS, [0, 1], time_limit=-1), r"`time_limit` must be positive"),
    (lambda: exact(PTS, 2, time_limit=0), r"`time_limit` must be positive"),
    (lambda: exact(PTS, 2, rel_gap=1.5), r"`rel_gap` must be in \[0, 1\)"),
    (lambda: ptas(PTS, 2, budget=0), r"`budget` must be positive"),
    (lambda: ptas(PTS, 2, progress="yes"), r"`progress` must be a bool or a callable"),
    (lambda: simulate(JOBS, "8x4", allocator="nonsense"),
     r"unknown method 'nonsense'.*1d:ORDER:STRATEGY.*random\[:seed=N\]"),
    (lambda: simulate(JOBS, "8x4", allocator="1d:hilbert:worst-fit"), r"`strategy` must be one of"),
    (lambda: simulate(JOBS, "8x4", scheduler="nope"), r"`scheduler` must be one of"),
    (lambda: simulate(JOBS, "banana"), r"`machine` must be a shape"),
    (lambda: simulate(JOBS, dragonfly(), allocator="mm"),
     (r"^allocator 'mm' does not fit a dragonfly:groups=9,routers=4,nodes=2,global=2,arrangement=absolute \(it places jobs by mesh coordinates\); allocators that "
      r"fit: brute, exact, gen-alg, 1d:graph-ORDER.*dfly:simple-spread.*dfly:hybrid")),
    (lambda: simulate(JOBS, fat_tree(4), allocator="dfly:jokanovic"), r"needs a dragonfly.*gen-alg"),
    (lambda: simulate(JOBS, "4x4", allocator="dfly:random-group"), r"does not fit a 4x4 mesh.*mc1x1"),
    (lambda: simulate(JOBS, fat_tree(4), allocator="1d:snake:best-fit"), r"use 1d:graph-ORDER:STRATEGY"),
    (lambda: simulate(JOBS, "dragonfly", allocator="1d:graph-qap:worst-fit"), r"`strategy` must be one of"),
    (lambda: parse_machine("dragonfly:9,x"), r"routers must be an integer, got 'x'"),
    (lambda: simulate(JOBS, "fat-tree:4", allocator="1d:graph-qap:best-fit:seed=abc"),
     r"`seed` must be a non-negative integer, got 'abc'"),
    (lambda: simulate(JOBS, "fat-tree:4", allocator="1d:graph-qap:best-fit:time_limit=0"),
     r"`time_limit` must be a positive number of seconds"),
    (lambda: simulate(JOBS, "fat-tree:4", allocator="1d:graph-qap:best-fit:depth=3"),
     r"options are seed=N, iterations=N, time_limit=S"),
    (lambda: certify(JOBS, "8x4", time_limit=-1), r"`time_limit` must be a positive number of seconds"),
    (lambda: certify(JOBS, "8x4", time_limit=math.nan), r"`time_limit` must be a positive number of seconds"),
    (lambda: certify(JOBS, "8x4", time_limit=1, exact=False), r"`time_limit` applies only with exact=True"),
    (lambda: certify(JOBS, "4x4 torus", allocators=["ptas"]), r"'ptas' does not fit a 4x4 torus.*gen-alg"),
    (lambda: certify(JOBS, "8x4", workers=0), r"`workers` must be at least 1"),
    (lambda: certify(JOBS, "8x4", total_time_limit=0), r"`total_time_limit` must be a positive number"),
    (lambda: gap(parse_machine("4x4 torus"), [0, 99]), r"chosen"),
    (lambda: certify(JOBS, "8x4", allocators=["mm", "mm"]), r"lists 'mm' twice"),
    (lambda: map_tasks(np.ones((64, 64)), parse_machine("4x4")), r"64 tasks do not fit on 16 nodes"),
    (lambda: map_tasks(np.ones((4, 4)), parse_machine("4x4"), method="nope"), r"unknown method 'nope'"),
    (lambda: map_tasks(np.ones((4, 3)), parse_machine("4x4")), r"`W` must be a square matrix"),
    (lambda: order_graph(parse_machine("4x4"), method="nope"), r"unknown method 'nope'"),
    (lambda: order_graph(parse_machine("4x4"), time_limit=0), r"`time_limit` must be positive"),
    (lambda: parse_machine("banana"), r"`machine` must be a shape such as"),
    (lambda: parse_machine("0x4"), r"`shape` must give positive sizes"),
    # topologies: generated networks, graphs, k above the free nodes
    (lambda: parse_machine("dragonfly:8,4,2,2"), r"`groups` - 1 \(7\) must divide"),
    (lambda: parse_machine("dragonfly:9,4"), None),
    (lambda: parse_machine("fattree:5"), r"`k` must be an even integer >= 2, got 5"),
    (lambda: Machine.from_graph(_graph([(0, 1), (2, 3)])), r"`G` must be connected"),
    (lambda: Machine.from_graph(_graph([(0, 1, -1.0)]), weight="w"), r"'w' must be positive and finite, got -1"),
    (lambda: Machine.from_graph(_graph([(0, 1, math.nan)]), weight="w"), r"'w' must be positive and finite, got nan"),
    (lambda: Machine.from_graph(_graph([(0, 1), (1, 1)])), r"self-loop at node 1"),
    (lambda: solve(_busy(parse_machine("fattree:2"), 1), 2, method="brute"), r"`k` must be between 1 and"),
    (lambda: solve(parse_machine("dragonfly:3,2,1,1"), 7, method="gen-alg"), r"`k` must be between 1 and"),
    (lambda: read_swf("missing.swf"), r"missing.swf: no such file"),
    (lambda: read_swf(instance_path("small.swf"), scale=0), r"`scale` must be positive"),
    (lambda: read_swf(instance_path("small.swf"), oversize="nope"), r"`oversize` must be one of"),
]


def _graph(edges):
    import networkx as nx

    G = nx.Graph()
    for u, v, *w in edges:
        G.add_edge(u, v, **({"w": w[0]} if w else {}))
    return G


def _busy(machine, k):
    machine.allocate(range(k), owner=1)
    return machine


@pytest.mark.parametrize("call, match", LIBRARY)
def test_library(call, match, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    if match is None:  # accepted: the row documents a form that is valid
        call()
        return
    with pytest.raises(ValueError, match=match) as err:
        call()
    assert "\n" not in str(err.value)
