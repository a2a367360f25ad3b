"""Compiled updates of a machine's free mask: one pass over the nodes of
an allocation, checks included (range, busy or not held, repeats), which
leaves the state unchanged and reports failure so that the caller can
name the fault."""

from __future__ import annotations

from .._jit import njit

__all__ = ["give_back", "take"]


@njit(cache=True)
def take(free, owner, ids, who):
    """Mark ``ids`` busy for ``who``; False (nothing changed) when one is
    out of range, busy, or repeated."""
    n = len(free)
    for t in range(len(ids)):
        i = ids[t]
        if i < 0 or i >= n or not free[i]:
            for u in range(t):
                free[ids[u]] = True
                owner[ids[u]] = -1
            return False
        free[i] = False
        owner[i] = who
    return True


@njit(cache=True)
def give_back(free, owner, ids, who):
    """Free ``ids`` held by ``who``; False (nothing changed) when one is
    out of range, free, held by another, or repeated."""
    n = len(free)
    for t in range(len(ids)):
        i = ids[t]
        if i < 0 or i >= n or free[i] or owner[i] != who:
            for u in range(t):
                free[ids[u]] = False
                owner[ids[u]] = who
            return False
        free[i] = True
        owner[i] = -1
    return True
