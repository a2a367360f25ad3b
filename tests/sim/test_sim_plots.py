"""Pictures: the mesh at a time, certified ratios per allocator, improvement by
job size, sweep metrics; matplotlib's conventions (the caller's Axes, no
backend switch), and reading a certification file back."""

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the test chooses the backend; the library never does

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from optalloc.sim import (
    CertificationFile,
    Job,
    Machine,
    Trace,
    certify,
    make_sweep,
    plot_gap_histogram,
    plot_improvement_by_size,
    plot_machine,
    plot_sweep,
    read_certification,
    read_sweep,
    read_swf,
    run_sweep,
    simulate,
)

PNG = b"\x89PNG\r\n\x1a\n"
ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "instances" / "small.swf"
NAMES = ("mm", "mc1x1", "1d:gilbert:best-fit")


@pytest.fixture(scope="module")
def cert():
    trace = read_swf(SMALL)
    return certify(Trace(trace.jobs[:40], max_procs=32), "8x4", allocators=NAMES)


@pytest.fixture(scope="module")
def sweep_rows(tmp_path_factory):
    db = tmp_path_factory.mktemp("sweep") / "s.sqlite"
    cfg = make_sweep(traces=[{"path": str(SMALL), "limit": 20}], machines=["8x4", "4x8"],
                     allocators=["mm", "mc1x1", "random"], seeds=[0, 1])
    run_sweep(cfg, db, workers=1)
    return read_sweep(db)


@pytest.fixture(autouse=True)
def _no_backend_switch():
    """Every test: the backend is the same after as before, and no pyplot figure is left open by a call
    that was given a path or an Axes."""
    before = matplotlib.get_backend()
    yield
    assert matplotlib.get_backend() == before
    plt.close("all")


def _is_png(path):
    return Path(path).read_bytes()[:8] == PNG


def _ratios(cert, name):
    return cert.ratios(name)[:, 1]


# ---------------------------------------------------------------- conventions


def test_backend_unchanged_and_no_pyplot_figure_for_a_path(cert, tmp_path):
    backend = matplotlib.get_backend()
    n_open = len(plt.get_fignums())
    t = cert.simulation.records[0].start
    for ax in (plot_machine(cert, tmp_path / "m.png", time=t),
               plot_gap_histogram(cert, tmp_path / "g.png"),
               plot_gap_histogram(cert, tmp_path / "e.png", kind="ecdf"),
               plot_improvement_by_size(cert, tmp_path / "i.png", baseline="mc1x1")):
        assert isinstance(ax, Axes)
        assert matplotlib.get_backend() == backend
    assert len(plt.get_fignums()) == n_open  # bare Figures, outside pyplot
    for name in ("m", "g", "e", "i"):
        assert _is_png(tmp_path / f"{name}.png")


def test_another_backend_is_kept(cert, sweep_rows, tmp_path):
    """A user's backend (here svg) stays: nothing switches to Agg."""
    matplotlib.use("svg")
    try:
        t = cert.simulation.records[0].start
        plot_machine(cert, time=t)
        plot_gap_histogram(cert)
        plot_improvement_by_size(cert, tmp_path / "i.png", baseline="mm")
        plot_sweep(sweep_rows, "mean_W", tmp_path / "s.pdf")
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use("Agg")


def test_the_library_never_calls_matplotlib_use():
    modules = sorted((ROOT / "optalloc").rglob("*.py"))
    assert any(p.parent.name == "plots" for p in modules)
    for path in modules:
        src = path.read_text(encoding="utf-8")
        assert "matplotlib.use(" not in src, path
        assert "import matplotlib.pyplot" not in src.split("def ")[0], path


def test_draws_into_the_callers_axes(cert, sweep_rows):
    fig = Figure(figsize=(12, 8))
    axes = fig.subplots(2, 3)
    t = cert.simulation.records[3].start
    assert plot_machine(cert, time=t, ax=axes[0, 0]) is axes[0, 0]
    assert plot_gap_histogram(cert, ax=axes[0, 1]) is axes[0, 1]
    assert plot_gap_histogram(cert, ax=axes[0, 2], kind="ecdf") is axes[0, 2]
    assert plot_improvement_by_size(cert, baseline="mc1x1", ax=axes[1, 0]) is axes[1, 0]
    assert plot_sweep(sweep_rows, "mean_avg_l1", ax=axes[1, 1]) is axes[1, 1]
    assert not axes[1, 2].has_data()  # the others are left alone
    assert all(axes[0, j].has_data() for j in range(3))
    assert len(fig.axes) == 7  # six, and the twin of the improvement's counts


def test_ax_and_path_write_the_callers_figure(cert, tmp_path):
    fig = Figure()
    ax = fig.add_subplot()
    assert plot_gap_histogram(cert, tmp_path / "mine.png", ax=ax) is ax
    assert _is_png(tmp_path / "mine.png")
    with pytest.raises(ValueError, match="Axes"):
        plot_gap_histogram(cert, ax="not an axes")


def test_without_ax_or_path_a_pyplot_figure_to_show(cert):
    n_open = len(plt.get_fignums())
    ax = plot_gap_histogram(cert)
    assert len(plt.get_fignums()) == n_open + 1 and plt.gcf() is ax.figure


# ---------------------------------------------------------------- the gap figure


def test_gap_figure_one_box_per_allocator_holding_its_ratios(cert):
    ax = plot_gap_histogram(cert)
    assert len(ax.patches) == len(NAMES)  # one box each
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert [t.split("\n")[0] for t in ticks] == list(NAMES)
    for name, tick, s in zip(NAMES, ticks, cert.summary()):
        assert f"{100 * s.share_optimal:.0f}% optimal" in tick
    dots = {c.get_gid(): c.get_offsets()[:, 1] for c in ax.collections}
    assert set(dots) == set(NAMES)
    for name in NAMES:  # every decision drawn, at its certified ratio
        assert np.allclose(np.sort(dots[name]), np.sort(_ratios(cert, name)))
    # the box's median is the median of the ratios
    medians = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 2 and ln.get_color() == "black"
               and ln.get_linewidth() == 1.5]
    assert [float(m.get_ydata()[0]) for m in medians] == pytest.approx([np.median(_ratios(cert, n)) for n in NAMES])
    assert any(np.allclose(ln.get_ydata(), 1.0) for ln in ax.get_lines())  # ratio 1 marked
    assert "W / LB" in ax.get_ylabel() and ax.get_xlabel() == "allocator" and ax.get_title()
    assert len(ax.get_legend().get_texts()) == 3


def test_gap_figure_ecdf_one_curve_per_allocator(cert):
    ax = plot_gap_histogram(cert, kind="ecdf", allocators=["mc1x1", "mm"])
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("ratio 1") and [lab.split()[0] for lab in labels[1:]] == ["mc1x1", "mm"]
    curves = [ln for ln in ax.get_lines() if ln.get_label().split()[0] in ("mc1x1", "mm")]
    assert len(curves) == 2
    for ln in curves:
        r = np.sort(_ratios(cert, ln.get_label().split()[0]))
        x, y = ln.get_xdata(), ln.get_ydata()
        assert np.allclose(x[1:-1], r) and y[-1] == pytest.approx(1.0)
        assert np.allclose(y[1:-1], np.arange(1, len(r) + 1) / len(r))
    assert ax.get_xlabel().startswith("certified ratio") and ax.get_ylabel()


def test_gap_figure_bad_input(cert, tmp_path):
    with pytest.raises(ValueError, match="allocators"):
        plot_gap_histogram(cert, allocators=["nope"])
    with pytest.raises(ValueError, match="kind"):
        plot_gap_histogram(cert, kind="violin")
    with pytest.raises(ValueError, match="certification"):
        plot_gap_histogram(cert.simulation)
    with pytest.raises(ValueError, match="folder"):
        plot_gap_histogram(cert, tmp_path / "missing" / "a.png")


# ---------------------------------------------------------------- the other figures


def test_machine_at_a_time(cert, tmp_path):
    res = cert.simulation
    busiest = max(res.records, key=lambda r: r.procs)
    ax = plot_machine(res, tmp_path / "mesh.png", time=busiest.start)
    assert _is_png(tmp_path / "mesh.png")
    assert str(busiest.job_id) in {t.get_text() for t in ax.texts}
    assert _is_png(tmp_path / "mesh.png")
    plot_machine(cert, tmp_path / "mesh2.png", time=busiest.start)  # the same from the certification
    assert _is_png(tmp_path / "mesh2.png")


def test_machine_state_and_3d(tmp_path):
    m = Machine((4, 4))
    m.allocate([0, 1, 4], owner=3)
    ax = plot_machine(m, tmp_path / "state.png")
    assert [t.get_text() for t in ax.texts] == ["3", "3", "3"]
    res = simulate([Job(1, 0, 10, 5), Job(2, 0, 10, 6), Job(3, 1, 5, 2)], "3x3x2")
    ax = plot_machine(res, tmp_path / "cube.png", time=2)
    assert {t.get_text() for t in ax.texts} >= {"z = 0", "z = 1"}  # the layers side by side, in one Axes
    line = simulate([Job(1, 0, 10, 2)], "6")
    plot_machine(line, tmp_path / "line.png", time=0)
    assert all(_is_png(tmp_path / f) for f in ("state.png", "cube.png", "line.png"))


def test_improvement_by_size(cert, tmp_path):
    ax = plot_improvement_by_size(cert, tmp_path / "i.png", baseline="mc1x1", other="mm")
    sizes = sorted({r.k for r in cert.rows})
    assert len(ax.patches) == len(sizes) and _is_png(tmp_path / "i.png")
    ax = plot_improvement_by_size(cert, baseline="1d:gilbert:best-fit", buckets="pow2")
    assert ax.get_xlabel() == "job size (processors)"
    with pytest.raises(ValueError, match="name"):
        plot_improvement_by_size(cert, baseline="nope")


def test_sweep_metric_per_allocator(sweep_rows, tmp_path):
    ax = plot_sweep(sweep_rows, "mean_avg_l1", tmp_path / "s.png")
    assert _is_png(tmp_path / "s.png")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["mm", "mc1x1", "random"]
    assert len(ax.collections) == 2 and len(ax.get_legend().get_texts()) == 2  # one per machine
    for coll in ax.collections:
        machine = coll.get_gid().split(" on ")[1].split(",")[0]
        want = [np.mean([r["summary"]["mean_avg_l1"] for r in sweep_rows
                         if r["machine"] == machine and r["allocator"] == a]) for a in ("mm", "mc1x1", "random")]
        assert np.allclose(coll.get_offsets()[:, 0], want)
    with pytest.raises(ValueError, match="metric.*mean_avg_l1"):
        plot_sweep(sweep_rows, "nope")
    with pytest.raises(ValueError, match="finished"):
        plot_sweep([], "mean_W")


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


def test_bad_input(cert, tmp_path):
    with pytest.raises(ValueError, match="time"):
        plot_machine(cert.simulation, tmp_path / "a.png")
    with pytest.raises(ValueError, match="time"):
        plot_machine(Machine((2, 2)), tmp_path / "a.png", time=3)
    with pytest.raises(ValueError, match="source"):
        plot_machine("8x4", tmp_path / "a.png")
    assert not (tmp_path / "a.png").exists()


# ---------------------------------------------------------------- reading a certification back


@pytest.mark.parametrize("ext", [".csv", ".jsonl"])
def test_read_certification_round_trip(cert, tmp_path, ext):
    path = tmp_path / f"c{ext}"
    (cert.to_csv if ext == ".csv" else cert.to_jsonl)(path)
    back = read_certification(path)
    assert isinstance(back, CertificationFile)
    assert back.names == NAMES and len(back) == len(cert) and back.n_proven == cert.n_proven
    for name in NAMES:
        assert np.array_equal(back.ratios(name), cert.ratios(name)) and np.array_equal(back.W(name), cert.W(name))
    assert [(r.index, r.job_id, r.k, r.status) for r in back.rows] == [(r.index, r.job_id, r.k, r.status)
                                                                       for r in cert.rows]
    if ext == ".jsonl":
        assert (back.driver, back.machine) == (cert.driver, cert.simulation.machine)
    ax = plot_gap_histogram(back)
    assert len(ax.patches) == len(NAMES)


def test_read_certification_interrupted_and_bad_files(cert, tmp_path):
    path = tmp_path / "c.jsonl"
    cert.to_jsonl(path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:5]) + lines[5][:30], encoding="utf-8")  # a run killed mid-line
    back = read_certification(cut)
    assert len(back) == 5 and back.driver is None
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "{not json}\n" + lines[1], encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        read_certification(bad)
    other = tmp_path / "other.jsonl"
    rec = json.loads(lines[1])
    rec["W"] = {"mm": 1.0}
    other.write_text(lines[0] + json.dumps(rec) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="other allocators"):
        read_certification(other)
    with pytest.raises(ValueError, match="not a certification"):
        read_certification(SMALL)
    with pytest.raises(ValueError, match="no such"):
        read_certification(tmp_path / "missing.csv")
