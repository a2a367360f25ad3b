"""Fixtures shared by the test packages."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
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


def pytest_configure(config):
    if os.environ.get("PYTEST_XDIST_WORKER") and os.name == "posix":
        _compile_one_worker_at_a_time()


#: how long a worker waits for another to compile a kernel before compiling it too
_COMPILE_WAIT = 600.0


def _compile_one_worker_at_a_time() -> None:
    """On a pytest-xdist worker: a kernel of optalloc that another worker is compiling is waited for, then
    loaded from numba's cache, not compiled a second time beside it.

    Where numba's cache has no kernel yet (a fresh clone), both workers need the same kernels at about the
    same time (they take the tests one by one, in order) and each compiled them.  Each compilation of a
    cached kernel (``Dispatcher.compile``, at every level: a kernel's callees compile inside it) holds an
    exclusive ``flock`` named after the kernel's source file and name, taken inside numba's own compiler
    lock (so a process holds its file locks in one thread); the worker that waited then finds the kernel
    in the cache.  A kernel's callees never call it back, so no two workers wait for each other; after
    ``_COMPILE_WAIT`` seconds a worker compiles anyway.  The kernels and what the tests check are the
    same; subprocesses are left as they are.  Installed when the first kernel loads numba
    (``optalloc._jit``), so the tests that check that an import loads no numba still can."""
    import fcntl

    from optalloc import _jit

    folder = os.path.join(tempfile.gettempdir(), f"optalloc-compile-locks-{os.getuid()}")
    load = _jit._load
    held: set[str] = set()  # the locks this process holds (taken inside numba's compiler lock: one thread)

    def patch(numba):
        try:
            from numba.core import caching, sigutils
            from numba.core.compiler_lock import global_compiler_lock
            from numba.core.dispatcher import Dispatcher
        except ImportError:  # another layout of numba's internals: every worker compiles, as before
            return
        if getattr(Dispatcher.compile, "one_worker_at_a_time", False):
            return
        compile_ = Dispatcher.compile

        def compile(self, sig):
            fn = self.py_func
            args, _ = sigutils.normalize_signature(sig)
            if (not fn.__module__.startswith("optalloc.") or isinstance(self._cache, caching.NullCache)
                    or tuple(args) in self.overloads):
                return compile_(self, sig)
            key = hashlib.sha1(f"{fn.__code__.co_filename}:{fn.__qualname__}".encode()).hexdigest()
            with global_compiler_lock:
                if key in held:  # a kernel that calls itself, compiled inside its own compilation
                    return compile_(self, sig)
                held.add(key)
                try:
                    return locked(self, sig, key)
                finally:
                    held.discard(key)

        def locked(self, sig, key):
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, key), "a") as fh:
                end = time.monotonic() + _COMPILE_WAIT
                while True:
                    try:
                        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() > end:
                            return compile_(self, sig)
                        time.sleep(0.05)
                try:
                    return compile_(self, sig)
                finally:
                    fcntl.flock(fh, fcntl.LOCK_UN)

        compile.one_worker_at_a_time = True
        Dispatcher.compile = compile

    def load_and_patch():
        numba = load()
        patch(numba)
        return numba

    _jit._load = load_and_patch
