"""Pictures: the mesh at a time, ratio histograms, improvement by job size."""

from pathlib import Path

import pytest

from optalloc.sim import (
    Job,
    Machine,
    Trace,
    certify,
    plot_gap_histogram,
    plot_improvement_by_size,
    plot_machine,
    read_swf,
    simulate,
)

PNG = b"\x89PNG\r\n\x1a\n"
SMALL = Path(__file__).resolve().parents[2] / "instances" / "small.swf"


@pytest.fixture(scope="module")
def cert():
    trace = read_swf(SMALL)
    return certify(Trace(trace.jobs[:40], max_procs=32), "8x4", allocators=("mm", "mc1x1", "1d:gilbert:best-fit"))


def _is_png(path):
    return Path(path).read_bytes()[:8] == PNG


def test_machine_at_a_time(cert, tmp_path):
    res = cert.simulation
    busiest = max(res.records, key=lambda r: r.procs)
    t = busiest.start
    out = plot_machine(res, tmp_path / "mesh.png", time=t)
    assert _is_png(out)
    # the same picture from the certification itself
    assert _is_png(plot_machine(cert, tmp_path / "mesh2.png", time=t))


def test_machine_state_and_3d(tmp_path):
    m = Machine((4, 4))
    m.allocate([0, 1, 4], owner=3)
    assert _is_png(plot_machine(m, tmp_path / "state.png"))
    res = simulate([Job(1, 0, 10, 5), Job(2, 0, 10, 6), Job(3, 1, 5, 2)], "3x3x2")
    assert _is_png(plot_machine(res, tmp_path / "cube.png", time=2))
    line = simulate([Job(1, 0, 10, 2)], "6")
    assert _is_png(plot_machine(line, tmp_path / "line.png", time=0))


def test_refuses_to_overwrite(cert, tmp_path):
    p = tmp_path / "x.png"
    p.write_bytes(b"keep")
    with pytest.raises(FileExistsError, match="overwrite"):
        plot_machine(cert.simulation, p, time=0)
    with pytest.raises(FileExistsError):
        plot_gap_histogram(cert, p)
    with pytest.raises(FileExistsError):
        plot_improvement_by_size(cert, p, baseline="mc1x1")
    assert p.read_bytes() == b"keep"
    plot_gap_histogram(cert, p, overwrite=True)
    assert _is_png(p)


def test_gap_histogram(cert, tmp_path):
    assert _is_png(plot_gap_histogram(cert, tmp_path / "g.png"))
    assert _is_png(plot_gap_histogram(cert, tmp_path / "g2.png", allocators=["mm"], bins=5))
    with pytest.raises(ValueError, match="name"):
        plot_gap_histogram(cert, tmp_path / "g3.png", allocators=["nope"])
    with pytest.raises(ValueError, match="bins"):
        plot_gap_histogram(cert, tmp_path / "g4.png", bins=0)


def test_improvement_by_size(cert, tmp_path):
    assert _is_png(plot_improvement_by_size(cert, tmp_path / "i.png", baseline="mc1x1", other="mm"))
    assert _is_png(plot_improvement_by_size(cert, tmp_path / "j.png", baseline="1d:gilbert:best-fit",
                                            buckets="pow2"))
    with pytest.raises(ValueError, match="name"):
        plot_improvement_by_size(cert, tmp_path / "k.png", baseline="nope")


def test_bad_input(cert, tmp_path):
    with pytest.raises(ValueError, match="time"):
        plot_machine(cert.simulation, tmp_path / "a.png")
    with pytest.raises(ValueError, match="time"):
        plot_machine(Machine((2, 2)), tmp_path / "a.png", time=3)
    with pytest.raises(ValueError, match="source"):
        plot_machine("8x4", tmp_path / "a.png")
    with pytest.raises(ValueError, match="certification"):
        plot_gap_histogram(cert.simulation, tmp_path / "a.png")
    with pytest.raises(ValueError, match="folder"):
        plot_gap_histogram(cert, tmp_path / "missing" / "a.png")
    assert not (tmp_path / "a.png").exists()
