"""Fixtures shared by the test packages."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fresh_box_cache(monkeypatch):
    """No box optimum or bracket known, nor a search given up on, in this
    process (``optalloc.ksubset`` keeps them per process)."""
    from optalloc.ksubset.search import _box
    from optalloc.sim.certification import _exact as _certify_exact

    monkeypatch.setattr(_box, "_SOLVED", {})
    monkeypatch.setattr(_box, "_FAILED", {})
    monkeypatch.setattr(_box, "_BRACKETS", {})
    monkeypatch.setattr(_box, "_DUALS", {})
    monkeypatch.setattr(_certify_exact, "_IDLE", {})


@dataclass
class Env:
    root: Path  # the virtual environment
    python: Path
    env: dict  # the environment of a command: the venv's bin first on PATH, no PYTHONPATH
    site: Path  # the folder that holds the installed package
    wheel: Path  # the wheel it was installed from

    def environ(self, compiled: bool = True) -> dict:
        """The environment of a command; ``compiled=False`` runs the kernels
        as plain Python (``NUMBA_DISABLE_JIT``): the same answers without
        the first compilation of a fresh install, which takes about a
        minute of CPU (the install test and the slow examples compile)."""
        return dict(self.env) if compiled else {**self.env, "NUMBA_DISABLE_JIT": "1"}


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Env:
    """optalloc built as a wheel (from a copy of the sources) and installed
    into a fresh virtual environment that sees this interpreter's packages
    (offline: ``--no-deps --no-index``), shared by the tests that run it
    outside the tree, so its kernels compile there once."""
    work = tmp_path_factory.mktemp("anywhere")
    src = work / "src"
    # a copy of what the wheel is built from, symbolic links kept (the bundled format examples link to
    # docs/examples), so that building writes nothing into the tree
    shutil.copytree(ROOT / "optalloc", src / "optalloc", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.sqlite"))
    shutil.copytree(ROOT / "docs" / "examples", src / "docs" / "examples")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    wheels = work / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(wheels), str(src)], capture_output=True, text=True)
    assert build.returncode == 0, (f"building the wheel failed (without build isolation it needs setuptools >= 70.1 "
                                   f"or the wheel package: the test extra):\n{build.stderr[-3000:]}")
    (wheel,) = wheels.glob("optalloc-*.whl")
    root = work / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(root)
    python = root / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "NUMBA_CACHE_DIR")}
    env.update(PATH=f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(root), COLUMNS="80",
               MPLBACKEND="Agg")
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                             capture_output=True, text=True, env=env, cwd=work)
    assert install.returncode == 0, f"installing the wheel failed:\n{install.stderr[-3000:]}"
    where = subprocess.run([str(python), "-c", "import optalloc; print(optalloc.__file__)"], cwd=work,
                           capture_output=True, text=True, env=env, check=True).stdout.strip()
    assert Path(where).is_relative_to(root), f"optalloc imported from {where}, not from the wheel"
    return Env(root, python, env, Path(where).parent.parent, wheel)
