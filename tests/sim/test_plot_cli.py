"""``optalloc plot``: figures from a certify --out file and a sweep database."""

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the test chooses the backend; the command never does

import pytest

from optalloc.cli import main

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "instances" / "small.swf")
PNG = b"\x89PNG\r\n\x1a\n"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("plotcli")
    csv_, jsonl = d / "cert.csv", d / "cert.jsonl"
    assert main(["certify", SMALL, "--jobs", "30", "--allocators", "mm,mc1x1", "--out", str(csv_)]) == 0
    assert main(["certify", SMALL, "--jobs", "30", "--allocators", "mm,mc1x1", "--out", str(jsonl)]) == 0
    toml = d / "s.toml"
    toml.write_text(f'[sweep]\ntraces = [{{path = "{SMALL}", limit = 20}}]\nmachines = ["8x4"]\n'
                    'allocators = ["mm", "mc1x1"]\n', encoding="utf-8")
    assert main(["sweep", str(toml), "--db", str(d / "s.sqlite"), "--workers", "1"]) == 0
    return {"csv": csv_, "jsonl": jsonl, "db": d / "s.sqlite"}


def _png(path):
    data = Path(path).read_bytes()
    return len(data) > 1000 and data[:8] == PNG


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_plot_gaps_writes_a_png(files, tmp_path, capsys, kind):
    out = tmp_path / "gaps.png"
    before = matplotlib.get_backend()
    code, text, err = run(capsys, "plot", "gaps", files[kind], "-o", out)
    assert code == 0 and err == "" and _png(out)
    assert "2 allocators" in text and str(out) in text
    assert matplotlib.get_backend() == before
    code, _, _ = run(capsys, "plot", "gaps", files[kind], "-o", tmp_path / "e.svg", "--kind", "ecdf",
                     "--allocators", "mc1x1")
    assert code == 0 and (tmp_path / "e.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_plot_sizes_and_sweep(files, tmp_path, capsys):
    code, _, err = run(capsys, "plot", "sizes", files["csv"], "--baseline", "mc1x1", "--other", "mm",
                       "--buckets", "pow2", "-o", tmp_path / "s.png")
    assert code == 0 and _png(tmp_path / "s.png"), err
    code, _, err = run(capsys, "plot", "sweep", files["db"], "--metric", "mean_avg_l1", "-o", tmp_path / "w.png")
    assert code == 0 and _png(tmp_path / "w.png"), err


def test_plot_never_overwrites_without_force(files, tmp_path, capsys):
    out = tmp_path / "gaps.png"
    out.write_bytes(b"keep")
    code, _, err = run(capsys, "plot", "gaps", files["csv"], "-o", out)
    assert code == 2 and "--force" in err and err.count("\n") == 1
    assert out.read_bytes() == b"keep"
    code, _, _ = run(capsys, "plot", "gaps", files["csv"], "-o", out, "--force")
    assert code == 0 and _png(out)


@pytest.mark.parametrize("argv, message", [
    (["plot"], "required"),
    (["plot", "gaps", "{csv}"], "required"),
    (["plot", "gaps", "{dir}/missing.csv", "-o", "{dir}/a.png"], "no such certification file"),
    (["plot", "gaps", SMALL, "-o", "{dir}/a.png"], "not a certification file"),
    (["plot", "gaps", "{csv}", "-o", "{dir}/a.txt"], "-o must end in"),
    (["plot", "gaps", "{csv}", "-o", "{dir}/nofolder/a.png"], "does not exist"),
    (["plot", "gaps", "{csv}", "-o", "{dir}/a.png", "--allocators", "mm,nope"], "--allocators must be among"),
    (["plot", "sizes", "{csv}", "-o", "{dir}/a.png", "--baseline", "nope"], "--baseline must be one of mm, "),
    (["plot", "sizes", "{csv}", "-o", "{dir}/a.png", "--baseline", "mm", "--other", "nope"],
     "--other must be one of mm, "),
    (["plot", "sizes", "{csv}", "-o", "{dir}/a.png", "--baseline", "mm", "--buckets", "4,x"], "--buckets"),
    (["plot", "sizes", "{csv}", "-o", "{dir}/a.png", "--baseline", "mm", "--buckets", "0,4"],
     "--buckets upper sizes must be positive"),
    (["plot", "sweep", "{db}", "-o", "{dir}/a.png", "--metric", "nope"], "mean_avg_l1"),
    (["plot", "sweep", "{csv}", "-o", "{dir}/a.png", "--metric", "mean_W"], "SQLite"),
])
def test_plot_bad_input_one_line_exit_2(files, tmp_path, capsys, argv, message):
    argv = [a.format(csv=files["csv"], db=files["db"], dir=tmp_path) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("optalloc: error:") and err.count("\n") == 1 and message in err, err
    assert not re.search(r"`\w+`", err), err  # the options the user typed, not the library's parameters
    assert not (tmp_path / "a.png").exists()


def test_plot_help(capsys):
    for argv in (["plot", "--help"], ["plot", "gaps", "--help"], ["plot", "sweep", "--help"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: optalloc {' '.join(argv[:-1])}")
    main_help = pytest.raises(SystemExit)
    with main_help:
        main(["--help"])
    assert "plot" in capsys.readouterr().out
