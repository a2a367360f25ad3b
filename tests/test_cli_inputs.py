"""Input files on the command line: a bundled instance by its name when no
such file is in the working directory; a path that exists always wins."""

from __future__ import annotations

import argparse
import json

import pytest

from optalloc import instance_names, instance_path
from optalloc.cli import build_parser, main
from optalloc.cli._common import input_path

#: every option and argument that reads an input file: (command words, dest)
INPUTS = [
    (["solve"], "points"), (["solve"], "map"), (["solve"], "machine"),
    (["gap"], "points"), (["gap"], "map"), (["gap"], "machine"), (["gap"], "chosen"),
    (["order"], "machine"),
    (["map"], "comm"), (["map"], "machine"), (["map"], "nodes"),
    (["qap"], "file"),
    (["simulate"], "trace"), (["simulate"], "machine"),
    (["certify"], "trace"), (["certify"], "machine"),
    (["sweep"], "config"),
    (["plot", "gaps"], "file"), (["plot", "sizes"], "file"), (["plot", "sweep"], "file"),
]

#: a command line per input, with a bundled name in it: (argv, dest, name)
PARSED = [
    ("solve --points points-plane.txt --k 2", "points", "points-plane.txt"),
    ("solve --map mesh16x16.txt --k 2", "map", "mesh16x16.txt"),
    ("solve --machine mesh6x6x4.txt --k 2", "machine", "mesh6x6x4.txt"),
    ("gap --points points-plane.txt --chosen chosen-plane.txt", "chosen", "chosen-plane.txt"),
    ("order --machine network.graphml", "machine", "network.graphml"),
    ("map --comm matrix.csv --machine network.txt", "comm", "matrix.csv"),
    ("map --comm matrix.csv --machine network.txt", "machine", "network.txt"),
    ("qap tiny3.dat", "file", "tiny3.dat"),
    ("simulate small.swf --machine 8x4", "trace", "small.swf"),
    ("certify trace.swf.gz --machine 4x2", "trace", "trace.swf.gz"),
    ("sweep sweep-example.toml", "config", "sweep-example.toml"),
    ("plot gaps decisions.csv -o g.png", "file", "decisions.csv"),
    ("plot sizes decisions.jsonl --baseline mm -o s.png", "file", "decisions.jsonl"),
]


def _subparser(words):
    parser = build_parser()
    for word in words:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[word]
    return parser


@pytest.mark.parametrize("words, dest", INPUTS, ids=[" ".join(w) + ":" + d for w, d in INPUTS])
def test_every_input_takes_a_bundled_name_and_says_so(words, dest):
    (action,) = [a for a in _subparser(words)._actions if a.dest == dest]
    assert action.type is input_path
    assert "bundled instance" in action.help


def test_the_top_level_help_names_every_bundled_instance(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a path that exists always wins" in text and "optalloc.instance_path" in text
    for name in instance_names():
        assert name in text


@pytest.mark.parametrize("argv, dest, name", PARSED)
def test_a_bundled_name_is_its_path_outside_the_tree(argv, dest, name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = build_parser().parse_args(argv.split())
    assert getattr(args, dest) == str(instance_path(name))


def test_a_file_that_exists_wins(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mesh16x16.txt").write_text("..#\n#..\n")  # a 3 x 2 map of four free nodes
    args = build_parser().parse_args(["solve", "--map", "mesh16x16.txt", "--k", "2"])
    assert args.map == "mesh16x16.txt"
    assert main(["solve", "--map", "mesh16x16.txt", "--k", "4", "--method", "brute", "--json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert sorted(points) == [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0]]  # every free node of the local map


def test_same_answer_by_name_and_by_path(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    answers = []
    for plane, chosen in (("points-plane.txt", "chosen-plane.txt"),
                          (instance_path("points-plane.txt"), instance_path("chosen-plane.txt"))):
        assert main(["gap", "--points", str(plane), "--chosen", str(chosen), "--json", "-q"]) == 0
        report = json.loads(capsys.readouterr().out)
        answers.append((report["objective"], report["upper"], report["ratio_max"]))
    assert answers[0] == answers[1] == (34.0, 10.0, 3.4)  # docs/quickstart.md: W = 34, optimum 10


@pytest.mark.parametrize("argv, name", [
    ("solve --map nope.txt --k 2", "nope.txt"),
    ("solve --points nope.txt --k 2", "nope.txt"),
    ("solve --map instances/mesh16x16.txt --k 2", "instances/mesh16x16.txt"),  # a folder: never looked up
    ("gap --points points-plane.txt --chosen nope.txt", "nope.txt"),
    ("simulate nope.swf --machine 8x4", "nope.swf"),
    ("qap nope.dat", "nope.dat"),
    ("sweep nope.toml", "nope.toml"),
    ("plot gaps nope.csv -o g.png", "nope.csv"),
])
def test_a_missing_file_that_is_no_bundled_name_is_one_line_exit_2(argv, name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv.split()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("optalloc: error:") and name in err


@pytest.mark.parametrize("spec", ["16x16", "8x8 torus", "torus:4x4", "dragonfly", "fattree:4"])
def test_a_machine_spec_that_names_no_file_is_kept(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert input_path(spec) == spec
