"""Keys of certification states: exact repeats and symmetric images.

Along a trace the same k-subset problem comes back, exactly (an idle
machine) or as an image under a symmetry of the metric: a free set
translated or reflected on a mesh, rotated around the wrap on a torus.
Such states have the same optimum, so a certification solves one of them.

:func:`exact_key` names a state by its free node ids and k.
:func:`canonical_key` names it by the image of its free set under a
symmetry chosen from the set itself, so that symmetric states get one key:

- mesh (L1 on the free points, whatever the box): translations,
  reflections of every axis and permutations of the axes;
- torus: on a wrapping axis of side s the rotations ``x -> x + r mod s``
  and reflections ``x -> r - x mod s``; on a non-wrapping axis
  translations and reflections; permutations of wrapping axes of one side,
  and of non-wrapping axes;
- network: None (no symmetry is searched; exact repeats only).

Every transformation used is an isometry of the metric, and the key holds
the transformed coordinates themselves, so two states with one key always
have the same optimum.  Which transformation is used is decided by the
per-axis occupation profile (counts of free nodes per coordinate, as the
transformation leaves them, least in lexicographic order), and among the
transformations with the least profiles, the one giving the least sorted
coordinate array; when more than ``MAX_CANDIDATES`` tie (a free set with
much symmetry), only the first are tried, and symmetric states may then
get different keys (a missed repeat, never a wrong one).
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["MAX_CANDIDATES", "canonical_key", "exact_key"]

#: Transformations tried at most per state.
MAX_CANDIDATES = 256


def exact_key(free_ids: np.ndarray, k: int) -> tuple:
    """The state (free node ids, k) as a dictionary key."""
    return (int(k), np.asarray(free_ids, dtype=np.int64).tobytes())


def _axis_options(x: np.ndarray, side: int, wrap: bool):
    """(least profile, [(flip, shift)]) of one axis: the maps ``x -> shift +
    (-x if flip else x)`` (mod ``side`` when ``wrap``) that give the least
    occupation profile."""
    if not wrap:
        lo, hi = int(x.min()), int(x.max())
        counts = np.bincount(x - lo, minlength=hi - lo + 1)
        fwd, rev = tuple(counts.tolist()), tuple(counts[::-1].tolist())
        best = min(fwd, rev)
        opts = [(f, s) for f, s, p in ((False, -lo, fwd), (True, hi, rev)) if p == best]
        return best, opts
    counts = np.bincount(x, minlength=side)
    j = np.arange(side)
    # shift r: y = x - r (mod s), count'[j] = counts[j + r]; flip: y = r - x, count'[j] = counts[r - j]
    rows = [(False, (-r) % side, counts[(j + r) % side]) for r in range(side)]
    rows += [(True, r, counts[(r - j) % side]) for r in range(side)]
    profiles = [tuple(p.tolist()) for _, _, p in rows]
    best = min(profiles)
    return best, [(f, s) for (f, s, _), p in zip(rows, profiles) if p == best]


def canonical_key(machine, free_ids, k):
    """A key shared by the states that a symmetry of the machine's metric
    maps onto each other (see the module notes); None on a network.

    Examples
    --------
    >>> from optalloc.machine import Machine
    >>> m = Machine((6, 4))
    >>> a = canonical_key(m, [0, 1, 7], 2)        # (0,0) (1,0) (1,1)
    >>> b = canonical_key(m, [10, 11, 16], 2)     # (4,1) (5,1) (4,2): reflected, translated
    >>> a == b, a == canonical_key(m, [0, 1, 2], 2)
    (True, False)
    """
    if not machine.is_grid:
        return None
    ids = np.asarray(free_ids, dtype=np.int64)
    pts = np.asarray(machine.coords[ids], dtype=np.int64)
    d = pts.shape[1]
    wraps = tuple(bool(w) and machine.kind != "mesh" for w in machine.torus)
    axes = []
    for a in range(d):
        side = machine.shape[a]
        cls = ("w", side) if wraps[a] else ("m", 0)
        profile, opts = _axis_options(pts[:, a], side, wraps[a])
        axes.append((cls, profile, opts, a))
    axes.sort(key=lambda t: (t[0], len(t[1]), t[1]))
    # axes of one class with one least profile may be taken in any order
    groups = [list(g) for _, g in itertools.groupby(axes, key=lambda t: (t[0], t[1]))]
    orders = itertools.product(*(itertools.permutations(g) for g in groups))
    best = None
    tried = 0
    for order in orders:
        seq = [t for g in order for t in g]
        for choice in itertools.product(*(t[2] for t in seq)):
            cols = []
            for (cls, _, _, a), (flip, shift) in zip(seq, choice):
                y = shift - pts[:, a] if flip else pts[:, a] + shift
                if cls[0] == "w":
                    y = y % cls[1]
                cols.append(y)
            Y = np.stack(cols, axis=1)
            Y = Y[np.lexsort(Y.T[::-1])]
            data = Y.tobytes()
            if best is None or data < best:
                best = data
            tried += 1
            if tried >= MAX_CANDIDATES:
                break
        if tried >= MAX_CANDIDATES:
            break
    classes = tuple(t[0] for t in axes)
    return ("sym", int(k), len(ids), classes, best)
