"""numba's on-disk cache follows every source change of the package.

numba checks only the file of the function it compiled, while the machine
code it keeps holds the kernels that function calls from other modules;
:mod:`optalloc._jit` keeps the cache of a writable package in a directory
emptied whenever the package's sources change (:func:`source_cache`).
Each run below is a fresh interpreter, as a user's next session would be.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from optalloc import _jit

_CALLER = """
from optalloc._jit import njit
from .callee import f

@njit(cache=True)
def g(x):
    return f(x) * 10
"""

_CALLEE = """
from optalloc._jit import njit

@njit(cache=True)
def f(x):
    return x + {step}
"""

_RUN = "from pkg.caller import g; v = g(1); print(v, sum(g.stats.cache_hits.values()))"


def _package(tmp_path, step: int) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "caller.py").write_text(textwrap.dedent(_CALLER))
    (pkg / "callee.py").write_text(textwrap.dedent(_CALLEE.format(step=step)))


def _run(tmp_path) -> tuple[int, int]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run([sys.executable, "-c", _RUN], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    value, hits = proc.stdout.split()
    return int(value), int(hits)


def test_an_edited_callee_reaches_its_cached_caller(tmp_path):
    _package(tmp_path, 1)
    assert _run(tmp_path) == (20, 0)  # compiled and cached
    assert _run(tmp_path) == (20, 1)  # from the cache
    (tmp_path / "pkg" / "callee.py").write_text(textwrap.dedent(_CALLEE.format(step=2)))
    # numba alone would hand back the caller's old code (20) here
    assert _run(tmp_path) == (30, 0)
    assert _run(tmp_path) == (30, 1)
    assert (tmp_path / "pkg" / "__pycache__" / "numba" / "sources.sha1").is_file()


def test_the_source_cache_is_the_users_when_they_set_one(tmp_path, monkeypatch):
    _package(tmp_path, 1)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert _jit.source_cache(str(tmp_path / "pkg")) is None
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    cache = _jit.source_cache(str(tmp_path / "pkg"))
    assert cache == str(tmp_path / "pkg" / "__pycache__" / "numba")


def test_the_source_cache_keeps_kernels_until_a_source_changes(tmp_path):
    _package(tmp_path, 1)
    root = str(tmp_path / "pkg")
    cache = _jit.source_cache(root)
    kept = os.path.join(cache, "pkg_x", "caller.g-4.py311.nbi")
    os.makedirs(os.path.dirname(kept))
    open(kept, "w").close()
    assert _jit.source_cache(root) == cache and os.path.exists(kept)  # same sources: kept
    (tmp_path / "pkg" / "callee.py").write_text(textwrap.dedent(_CALLEE.format(step=3)))
    assert _jit.source_cache(root) == cache and not os.path.exists(kept)  # changed: emptied


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="a read-only directory needs a POSIX non-root user")
def test_a_read_only_package_keeps_numbas_own_cache(tmp_path):
    _package(tmp_path, 1)
    root = tmp_path / "pkg"
    root.chmod(0o555)
    try:
        assert _jit.source_cache(str(root)) is None
    finally:
        root.chmod(0o755)


def test_compiling_names_the_kernel_numba_compiles_and_nothing_after():
    """:func:`optalloc._jit.compiling` says which kernel compiles while it
    does (seen from numba's own compile event) and None before and after."""
    from numba.core import event

    _jit._load()  # registers the watch before the listener below

    @_jit.njit
    def triple(x):
        return 3 * x

    seen = []

    class Seen(event.Listener):
        def on_start(self, ev):
            seen.append(_jit.compiling())

        def on_end(self, ev):
            pass

    listener = Seen()
    event.register("numba:compile", listener)
    try:
        assert _jit.compiling() is None
        assert triple(14) == 42
    finally:
        event.unregister("numba:compile", listener)
    assert seen and seen[0].endswith("test_compiling_names_the_kernel_numba_compiles_and_nothing_after.<locals>.triple")
    assert _jit.compiling() is None
