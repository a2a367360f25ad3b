"""The tables of figures on the pages come from ``scripts/docs_tables.py``.

Their figures are reference runs (timings of a given machine and day), so
the tests run the quick form of each function and check that it prints
the page's table: the same header and the same rows, every number aside.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _script():
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "scripts" / "docs_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page_table(page: str, header_start: str) -> list[str]:
    """The Markdown table of ``docs/PAGE`` whose header line starts with ``header_start``."""
    lines = (ROOT / "docs" / page).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append(line)
    return table


def layout(lines: list[str]) -> list[str]:
    return [NUMBER.sub("N", line) for line in lines]


def test_startup_table_has_the_pages_layout():
    page = page_table("benchmarks.md", "| `optalloc --help` | before")
    made = _script().startup_table(None, runs=1).splitlines()
    assert layout(made) == layout(page)


def test_sim_bench_table_has_the_pages_layout():
    from optalloc.bench import nasa_trace_path

    if not nasa_trace_path().is_file():
        pytest.skip(f"the NASA trace is absent: {nasa_trace_path()}")
    page = page_table("certify.md", "| case | time | baseline | baseline time |")
    made = _script().sim_bench_table(quick=True).splitlines()
    # --quick has the first two cases (on slices of the trace), not the whole-trace row
    assert len(made) == 4 and len(page) == 5
    assert layout(made) == layout(page[:4])
