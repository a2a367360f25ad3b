"""Fast start: the heavy libraries load when first used, not at import.

``import optalloc``, ``import optalloc.cli`` and ``optalloc --help`` load
none of numba, Pyomo, matplotlib, dask/distributed (nor the Pyomo models or
scipy.spatial); numba's kernels compile at their first call
(:mod:`optalloc._jit`), and a QAP of a few tasks needs neither numba nor
scipy.optimize. Each check runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from optalloc import _jit

HEAVY = ("numba", "pyomo", "matplotlib", "dask", "distributed")
#: modules that must not load at start-up either (the cli imports the models lazily; scipy.spatial is ~70 ms)
LAZY_MODULES = ("optalloc.models", "scipy.spatial")

_REPORT = """
import json, sys
print(json.dumps(sorted(m for m in sys.modules
                        if m.split('.')[0] in {heavy!r} or m.startswith({lazy!r}))))
"""


def _loaded_after(code: str) -> list[str]:
    """The heavy modules loaded after running ``code`` in a fresh interpreter."""
    script = textwrap.dedent(code) + _REPORT.format(heavy=HEAVY, lazy=LAZY_MODULES)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", [
    "import optalloc",
    "import optalloc.cli",
    """
    import contextlib, io
    from optalloc.cli import main
    with contextlib.redirect_stdout(io.StringIO()) as out:
        try:
            main(["--help"])
        except SystemExit as end:
            assert end.code in (0, None)
    assert out.getvalue().startswith("usage: optalloc")
    """,
    # the public packages too: each holds its heavy imports inside its functions
    "import optalloc.ksubset, optalloc.qap, optalloc.curves, optalloc.sim, optalloc.machine",
], ids=["import optalloc", "import optalloc.cli", "optalloc --help", "import the packages"])
def test_start_up_loads_no_heavy_package(code):
    assert _loaded_after(code) == []


def test_kernels_compile_at_first_use():
    """In a fresh interpreter: numba is absent after the imports, the
    compiled solvers give the known optima at their first call, and then the
    kernels are numba dispatchers."""
    loaded = _loaded_after("""
        import sys
        import numpy as np
        from optalloc import ksubset, qap
        from optalloc.ksubset.search import _boxsearch
        from optalloc.qap import _jit as qap_jit
        from optalloc._jit import Kernel
        assert "numba" not in sys.modules
        assert isinstance(_boxsearch._search, Kernel) and isinstance(qap_jit._steps, Kernel)

        # beyond the partition tables: the compiled branch-and-bound
        assert ksubset.box_optimum(16, 16, 100)[0] == 32332.0
        assert ksubset.search_box(16, 16, 100)[0] == 32332.0
        assert "numba" in sys.modules and not isinstance(_boxsearch._search, Kernel)

        free = np.array([(x, y) for y in range(5) for x in range(5) if (x, y) not in {(1, 1), (3, 2)}])
        res = ksubset.exact(free, 6)
        assert res.status == "optimal" and res.objective == ksubset.brute(free, 6).objective

        rng = np.random.default_rng(0)
        A = rng.integers(0, 5, (8, 8)).astype(float)
        B = rng.integers(0, 5, (8, 8)).astype(float)
        np.fill_diagonal(A, 0)
        np.fill_diagonal(B, 0)
        out = qap.tabu(A, B, iterations=200, rng=0, engine="jit")
        assert out.extra["engine"] == "jit" and out.objective == qap.objective(A, B, out.permutation)
        assert not isinstance(qap_jit._steps, Kernel)
    """)
    assert "numba" in loaded


def test_lazy_kernel_module_globals_swapped(tmp_path, monkeypatch):
    """A kernel calling another kernel (of another module): both compile at
    the first call, and the names in both modules become the dispatchers."""
    (tmp_path / "lazy_pkg").mkdir()
    (tmp_path / "lazy_pkg" / "__init__.py").write_text("")
    (tmp_path / "lazy_pkg" / "inner.py").write_text(textwrap.dedent("""
        from optalloc._jit import njit

        @njit(cache=True)
        def double(x):
            return 2 * x
    """))
    (tmp_path / "lazy_pkg" / "outer.py").write_text(textwrap.dedent("""
        import time
        from optalloc._jit import njit, objmode
        from .inner import double

        @njit(cache=True)
        def clock():
            with objmode(t="float64"):
                t = time.perf_counter()
            return t

        @njit(cache=True)
        def twice_plus_one(x):
            return double(x) + 1 + 0 * clock()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    from lazy_pkg import inner, outer

    try:
        assert isinstance(outer.twice_plus_one, _jit.Kernel) and isinstance(outer.double, _jit.Kernel)
        assert outer.twice_plus_one(20) == 41
        assert outer.clock() > 0
        for f in (outer.twice_plus_one, outer.double, inner.double, outer.clock):
            assert not isinstance(f, _jit.Kernel) and hasattr(f, "signatures")
        assert outer.double is inner.double
    finally:
        for name in ("lazy_pkg", "lazy_pkg.inner", "lazy_pkg.outer"):
            sys.modules.pop(name, None)


def test_startup_bench_suite():
    from optalloc.bench import run_bench

    (table,) = run_bench("startup", quick=True, repeat=1)
    assert table.suite == "startup" and table.ok
    assert [r.case for r in table.rows] == ["optalloc --help", "import optalloc"]
    assert all(r.seconds > 0 and r.baseline_seconds > 0 and r.runs == 1 and r.heavy == [] for r in table.rows)
    assert "optalloc --help" in table.text and "light" in table.text
    with pytest.raises(ValueError, match="limit"):
        run_bench("startup", limit=1.0)


def test_a_qap_of_a_few_tasks_loads_neither_numba_nor_scipy_optimize():
    """The strong mode up to ``SMALL`` tasks: the array engine, no FAQ
    start, the bound's assignment enumerated; from ``SMALL + 1`` tasks
    the compiled engine and scipy's FAQ."""
    code = """
        import sys
        import numpy as np
        from optalloc.qap import _bounds, solve
        rng = np.random.default_rng(0)
        n = {n}
        A, B = rng.integers(0, 9, (n, n)), rng.integers(0, 9, (n, n))
        res = solve(A, B, rng=0)
        print(res.extra["engine"], "scipy.optimize" in sys.modules, "numba" in sys.modules, n <= _bounds.SMALL)
    """
    small = subprocess.run([sys.executable, "-c", textwrap.dedent(code.format(n=3))], capture_output=True, text=True,
                           check=True, timeout=120).stdout.split()
    assert small == ["numpy", "False", "False", "True"]
    large = subprocess.run([sys.executable, "-c", textwrap.dedent(code.format(n=9))], capture_output=True, text=True,
                           check=True, timeout=300).stdout.split()
    assert large == ["jit", "True", "True", "False"]


def test_a_missing_numba_fails_at_the_first_compiled_call():
    """numba hidden (a broken install): the imports and the command line's
    help still work, and the first compiled loop raises numba's ImportError."""
    loaded = _loaded_after("""
        import sys
        sys.modules["numba"] = None  # import numba now fails
        from optalloc import ksubset
        try:
            ksubset.search_box(16, 16, 100)
        except ImportError as err:
            assert "numba" in str(err)
        else:
            raise AssertionError("no ImportError")
        del sys.modules["numba"]
    """)
    assert loaded == []
