"""The allocator registry answers for every allocator: what it reads, what
it builds, and on which machines it runs (and then it really runs)."""

from __future__ import annotations

import numpy as np
import pytest

from optalloc.machine import Machine, dragonfly, fat_tree
from optalloc.sim import check_allocator, fitting_allocators, parse_allocator
from optalloc.sim.allocators import ALLOCATOR_FAMILIES, misfit

MACHINES = {
    "mesh 6x4": lambda: Machine((6, 4)),
    "torus 4x4": lambda: Machine((4, 4), torus=True),
    "dragonfly": dragonfly,
    "fat tree 4": lambda: fat_tree(4),
}
#: a concrete spec for each placeholder form fitting_allocators lists
CONCRETE = {"1d:ORDER:STRATEGY": "1d:gilbert:best-fit", "1d:graph-ORDER:STRATEGY": "1d:graph-greedy:first-fit"}
ALL_SPECS = sorted({CONCRETE.get(s, s) for make in MACHINES.values() for s in fitting_allocators(make())})


def _busy_machine(make):
    machine = make()
    rng = np.random.default_rng(3)
    busy = rng.choice(machine.n, size=machine.n // 3, replace=False)
    machine.allocate(np.sort(busy))
    return machine


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_every_allocator_listed_for_a_machine_runs_there(name):
    machine = _busy_machine(MACHINES[name])
    for spec in fitting_allocators(machine):
        if spec in ("brute", "k3", "line", "ptas"):
            continue  # exact special cases: brute force is too slow here, k3/line need their input shape
        alloc = parse_allocator(CONCRETE.get(spec, spec), rng=0)
        assert misfit(alloc, machine) is None, spec
        check_allocator(alloc, machine)
        chosen = alloc.select(machine, 3)
        nodes = np.asarray(getattr(chosen, "nodes", chosen))
        assert len(set(nodes.tolist())) == 3, spec
        assert machine.free[nodes].all(), f"{spec} chose a busy node on the {name}"


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_an_allocator_not_listed_for_a_machine_is_refused_naming_those_that_are(name):
    machine = MACHINES[name]()
    listed = {CONCRETE.get(s, s) for s in fitting_allocators(machine)}
    refused = 0
    for spec in ALL_SPECS:
        alloc = parse_allocator(spec, rng=0)
        if spec in listed:
            assert misfit(alloc, machine) is None
            continue
        assert misfit(alloc, machine) is not None, f"{spec} is not listed for the {name} but fits it"
        with pytest.raises(ValueError, match="allocators that fit: ") as err:
            check_allocator(alloc, machine)
        assert "\n" not in str(err.value)
        refused += 1
    assert refused > 0 or name == "mesh 6x4"


def test_each_family_parses_its_own_texts_into_its_own_class():
    seen = set()
    for spec in [*ALL_SPECS, "random:seed=3", "mc1x1:tie=default", "1d:gilbert:first-fit:ring"]:
        alloc = parse_allocator(spec, rng=0)
        parts = spec.split(":")
        (family,) = [f for f in ALLOCATOR_FAMILIES if f.claims(parts)]
        assert isinstance(alloc, family.cls), spec
        seen.add(family.name)
    assert seen == {f.name for f in ALLOCATOR_FAMILIES}


def test_a_curve_that_cannot_order_the_machine_is_refused_before_any_job():
    # Hilbert orders power-of-two squares and cubes only: the registry says so, in the curve's words
    alloc = parse_allocator("1d:hilbert:best-fit")
    assert misfit(alloc, Machine((8, 8))) is None
    with pytest.raises(ValueError, match="power-of-two side for hilbert.*allocators that fit: "):
        check_allocator(alloc, Machine((6, 4)))


def test_an_unknown_text_lists_every_family():
    with pytest.raises(ValueError, match="unknown method 'nonsense'") as err:
        parse_allocator("nonsense")
    for form in ("mc1x1", "1d:ORDER:STRATEGY", "1d:graph-ORDER", "random[:seed=N]", "dfly:NAME"):
        assert form in str(err.value)
