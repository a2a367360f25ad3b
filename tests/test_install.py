"""The wheel works outside the source tree: it carries the bundled
instances, ``py.typed`` and the licence, and the README's main command runs
from it."""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                           capture_output=True, text=True)
    if build.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{build.stderr[-2000:]}")
    (path,) = out.glob("optalloc-*.whl")
    return path


def test_the_wheel_carries_instances_types_and_licence(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("small.swf", "mesh16x16.txt", "mesh6x6x4.txt", "points-plane.txt", "chosen-plane.txt",
                 "sweep-example.toml"):
        assert f"optalloc/instances/{name}" in names
    assert "optalloc/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names)
    assert "optalloc/models/pairwise.py" in names and "optalloc/cli/__init__.py" in names


def test_certify_runs_from_the_wheel_outside_the_tree(wheel, tmp_path):
    # the dependencies come from this interpreter's site-packages; optalloc itself from the wheel
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True,
                   capture_output=True)
    where = subprocess.run([str(python), "-c", "import optalloc; print(optalloc.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(env_dir), f"optalloc imported from {where}, not from the wheel"
    run = subprocess.run([str(env_dir / "bin" / "optalloc"), "certify", "--json"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["decisions"] == 120 and report["proven"] == 120
