"""certify refuses at once what it cannot run: an absurd machine, an
allocator that does not fit the machine; its default allocators all fit."""

from __future__ import annotations

import time

import pytest

from optalloc.cli import main
from optalloc.machine import Machine
from optalloc.sim import check_allocator, default_allocators, parse_allocator


def test_certify_refuses_an_absurd_machine_at_once(capsys):
    t0 = time.perf_counter()
    assert main(["certify", "--machine", "4x4x4x4x4x4x4 torus"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "optalloc: error: --machine: shape has 7 axes; a mesh or torus has at most 6"]
    assert time.perf_counter() - t0 < 2.0


def test_certify_refuses_an_allocator_that_does_not_fit_at_once(capsys):
    # a curve orders 2-D and 3-D boxes: on a 6-D torus it used to fail at the first decision, 15 s in
    t0 = time.perf_counter()
    assert main(["certify", "--machine", "4x4x4x4x4x4 torus", "--allocators", "mm,1d:gilbert:best-fit"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(
        "optalloc: error: allocator '1d:gilbert:best-fit' does not fit a 4x4x4x4x4x4 torus (its order: `shape` must "
        "have 2 or 3 dimensions, got 6)")
    assert "1d:ORDER" not in err[0]  # not offered as fitting either
    assert time.perf_counter() - t0 < 5.0


@pytest.mark.parametrize("shape, torus", [((4, 4, 4, 4), False), ((3, 3, 3, 3, 3), True), ((8,), False),
                                          ((4, 4), False), ((4, 4, 2), True)])
def test_default_allocators_all_fit(shape, torus):
    machine = Machine(shape, torus=torus)
    names = default_allocators(machine)
    for name in names:
        check_allocator(parse_allocator(name), machine)  # raises if it does not fit
    curve = "1d:gilbert:best-fit"
    assert (curve in names) == (len(shape) in (2, 3))
