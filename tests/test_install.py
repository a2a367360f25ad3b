"""The wheel works outside the source tree: it carries the bundled
instances, ``py.typed`` and the licence, the README's main command runs
from it (as plain Python), and so do compiled kernels, cached in the
installed package."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

#: one worker of pytest-xdist builds and installs the wheel for all the tests that use it
pytestmark = pytest.mark.xdist_group("wheel")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def wheel(installed) -> Path:
    return installed.wheel  # built once per session (tests/conftest.py)


def test_the_wheel_carries_instances_types_and_licence(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("small.swf", "mesh16x16.txt", "mesh6x6x4.txt", "points-plane.txt", "chosen-plane.txt",
                 "sweep-example.toml"):
        assert f"optalloc/instances/{name}" in names
    assert "optalloc/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names)
    assert "optalloc/models/pairwise.py" in names and "optalloc/cli/__init__.py" in names
    for room in ("ksubset/engine", "ksubset/heuristics", "ksubset/heuristics/centres", "ksubset/heuristics/mc",
                 "ksubset/heuristics/strips", "ksubset/search", "sim/allocators", "sim/certification"):
        assert f"optalloc/{room}/__init__.py" in names


def test_certify_runs_from_the_wheel_outside_the_tree(installed, tmp_path):
    # the dependencies come from this interpreter's site-packages; optalloc itself from the wheel; the
    # kernels as plain Python (compiling certify's in the fresh install takes most of a minute; the
    # compiled kernels of the wheel are the next test's)
    where = subprocess.run([str(installed.python), "-c", "import optalloc; print(optalloc.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True, env=installed.environ()).stdout.strip()
    assert Path(where).is_relative_to(installed.root), f"optalloc imported from {where}, not from the wheel"
    run = subprocess.run([str(installed.root / "bin" / "optalloc"), "certify", "--json"], cwd=tmp_path,
                         capture_output=True, text=True, env=installed.environ(compiled=False))
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["decisions"] == 120 and report["proven"] == 120
    assert not list(tmp_path.iterdir()), "certify wrote into the working directory"


def test_compiled_kernels_run_and_are_cached_in_the_wheel(installed, tmp_path):
    """A command that compiles kernels (MC1x1 on a mesh) runs from the wheel, gives the answer of the
    tree, and leaves numba's cache inside the installed package (not in the working directory)."""
    from optalloc.ksubset import solve
    from optalloc.machine import Machine

    run = subprocess.run([str(installed.root / "bin" / "optalloc"), "solve", "--machine", "4x4", "--k", "3",
                          "--method", "mc1x1", "--json"], cwd=tmp_path, capture_output=True, text=True,
                         env=installed.environ())
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["objective"] == solve(Machine((4, 4)), 3, method="mc1x1").objective
    cached = list((installed.site / "optalloc").rglob("_mcgrid.mesh_scores-*.nbi"))
    assert cached, "MC1x1's mesh kernel is not cached in the installed package"
    assert not list(tmp_path.iterdir()), "solve wrote into the working directory"
