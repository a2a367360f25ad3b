"""Fixtures shared by the test packages."""

from __future__ import annotations

import pytest


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
