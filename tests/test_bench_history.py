"""The history benchmark's rows: the replayed history agrees with certify on the run."""

import pytest

from optalloc.bench.networks._history import rows


@pytest.mark.slow
def test_quick_rows_agree():
    out = rows(quick=True)
    assert out and all(r.agree for r in out)
    assert all(r.seconds > 0 and r.baseline_seconds > 0 for r in out)
