"""Fixtures shared by the test packages."""

from __future__ import annotations

import pytest


@pytest.fixture
def fresh_box_cache(monkeypatch):
    """No box optimum or bracket known, nor a search given up on, in this
    process (``optalloc.ksubset`` keeps them per process)."""
    from optalloc.ksubset import _box

    monkeypatch.setattr(_box, "_SOLVED", {})
    monkeypatch.setattr(_box, "_FAILED", {})
    monkeypatch.setattr(_box, "_BRACKETS", {})
