"""The pairwise LP of the exact solver, held in HiGHS between solves.

The linearisation of ``optalloc.models.pairwise`` (x_i chosen,
y_ij = x_i x_j, level-1 RLT rows) as arrays in HiGHS (``highspy``), so that
the cut loop of :mod:`._cutloop` can add and drop rows between solves, and
the Lagrangian bound of its row multipliers (:func:`_lagrangian_bound`).
"""

from __future__ import annotations

import numpy as np

from ..._pyomo import silent_highs


class _PairLP:
    """The pairwise LP in HiGHS, with rows added and dropped between solves.

    Every row is registered as (kind, a, b, c): kind 0 the cardinality and
    RLT rows, 1 ``y_ab <= x_a``, 2 ``x_a + x_b - y_ab <= 1``, 3 the triangle
    ``y_ab + y_ac - y_bc <= x_a``.
    """

    BASE, UP, LOW, TRI = 0, 1, 2, 3

    def __init__(self, dist: np.ndarray, k: int, lp_solver: str):
        import highspy

        self.highspy = highspy
        n = len(dist)
        self.n = n
        iu, ju = np.triu_indices(n, 1)
        self.iu, self.ju = iu, ju
        self.m = len(iu)
        pid = np.full((n, n), -1, dtype=np.int64)
        pid[iu, ju] = np.arange(self.m)
        pid[ju, iu] = np.arange(self.m)
        self.pid = pid
        h = silent_highs()  # HiGHS prints its banner when made: kept off standard output
        h.setOptionValue("solver", lp_solver)
        if lp_solver == "ipm":
            h.setOptionValue("run_crossover", "off")
        self.h = h
        none = np.array([], dtype=np.int32)
        h.addCols(n, np.zeros(n), np.zeros(n), np.ones(n), 0, none, none, np.array([]))
        h.addCols(self.m, dist[iu, ju].astype(float), np.zeros(self.m), np.ones(self.m), 0, none, none, np.array([]))
        # cardinality and RLT rows: sum_j y_ij - (k - 1) x_i = 0
        index = [np.arange(n)]
        value = [np.ones(n)]
        for i in range(n):
            others = np.delete(np.arange(n), i)
            index.append(np.concatenate(([i], n + pid[i, others])))
            value.append(np.concatenate(([-(k - 1.0)], np.ones(n - 1))))
        lo = np.concatenate(([k], np.zeros(n))).astype(float)
        self.keys = np.zeros((0, 4), dtype=np.int64)
        self.age = np.zeros(0, dtype=np.int64)
        self._add(lo, lo.copy(), index, value, np.column_stack([np.zeros(n + 1), np.arange(-1, n), np.zeros((n + 1, 2))]))
        self.up = np.zeros((n, n), dtype=bool)  # y_ab <= x_a present
        self.row_values = np.zeros(0)
        self.fixed0 = np.zeros(n, dtype=bool)

    @property
    def rows(self) -> int:
        return len(self.keys)

    def _add(self, lo, hi, index, value, keys):
        """Add rows: ``index`` / ``value`` a list of arrays (one per row) or
        two 2D arrays (rows of equal length, built without Python loops)."""
        if len(index) == 0:
            return
        if isinstance(index, np.ndarray):
            starts = (np.arange(len(index)) * index.shape[1]).astype(np.int32)
            idx, val = index.ravel().astype(np.int32), np.asarray(value, dtype=float).ravel()
        else:
            starts = np.cumsum([0] + [len(r) for r in index[:-1]]).astype(np.int32)
            idx = np.concatenate(index).astype(np.int32)
            val = np.concatenate(value).astype(float)
        self.h.addRows(len(lo), np.asarray(lo, float), np.asarray(hi, float), len(idx), starts, idx, val)
        self.keys = np.vstack([self.keys, np.asarray(keys, dtype=np.int64).reshape(-1, 4)])
        self.age = np.concatenate([self.age, np.zeros(len(lo), dtype=np.int64)])

    def add_up(self, a: np.ndarray, b: np.ndarray) -> None:
        """Rows y_ab <= x_a (skipping those present)."""
        keep = ~self.up[a, b]
        a, b = a[keep], b[keep]
        if len(a) == 0:
            return
        self.up[a, b] = True
        n, inf = self.n, self.highspy.kHighsInf
        index = np.stack([n + self.pid[a, b], a], axis=1)
        value = np.broadcast_to([1.0, -1.0], index.shape)
        keys = np.column_stack([np.full(len(a), self.UP), a, b, np.zeros(len(a))])
        self._add(np.full(len(a), -inf), np.zeros(len(a)), index, value, keys)

    def add_low(self, pairs: np.ndarray) -> None:
        """Rows x_a + x_b - y_ab <= 1 for pair indices ``pairs``."""
        if len(pairs) == 0:
            return
        a, b = self.iu[pairs], self.ju[pairs]
        n, inf = self.n, self.highspy.kHighsInf
        index = np.stack([a, b, n + pairs], axis=1)
        value = np.broadcast_to([1.0, 1.0, -1.0], index.shape)
        keys = np.column_stack([np.full(len(a), self.LOW), a, b, np.zeros(len(a))])
        self._add(np.full(len(a), -inf), np.ones(len(a)), index, value, keys)

    def add_triangles(self, tri: np.ndarray) -> None:
        """Rows y_ij + y_il - y_jl - x_i <= 0 for rows (i, j, l) of ``tri``."""
        if len(tri) == 0:
            return
        n, pid, inf = self.n, self.pid, self.highspy.kHighsInf
        i, j, l = tri.T
        index = np.stack([n + pid[i, j], n + pid[i, l], n + pid[j, l], i], axis=1)
        value = np.broadcast_to([1.0, 1.0, -1.0, -1.0], index.shape)
        keys = np.column_stack([np.full(len(tri), self.TRI), tri])
        self._add(np.full(len(tri), -inf), np.zeros(len(tri)), index, value, keys)

    def drop_slack(self, min_age: int, tol: float = 1e-6) -> int:
        """Delete triangle rows slack for ``min_age`` rounds in a row.

        Linking rows stay: dropping them makes the LP cycle."""
        rv = self.row_values
        if len(rv) != self.rows:
            return 0
        slack = (self.keys[:, 0] == self.TRI) & (rv < -tol)
        self.age = np.where(slack, self.age + 1, 0)
        drop = np.flatnonzero(self.age > min_age)
        if len(drop) == 0:
            return 0
        self.h.deleteRows(len(drop), drop.astype(np.int32))
        keep = np.ones(self.rows, dtype=bool)
        keep[drop] = False
        self.keys, self.age, self.row_values = self.keys[keep], self.age[keep], rv[keep]
        return len(drop)

    def triangles(self) -> np.ndarray:
        return self.keys[self.keys[:, 0] == self.TRI][:, 1:]

    def binding_triangles(self, tol: float = 1e-6) -> np.ndarray:
        if len(self.row_values) != self.rows:
            return np.empty((0, 3), dtype=np.int64)
        tri = (self.keys[:, 0] == self.TRI) & (np.abs(self.row_values) < tol)
        return self.keys[tri][:, 1:]

    def solve(self, time_left: float | None):
        h = self.h
        if time_left is not None:
            # HiGHS compares its time limit with the run time accumulated over
            # every run() of this object, not with the time of this run
            h.setOptionValue("time_limit", h.getRunTime() + max(0.01, time_left))
        h.run()
        status = h.getModelStatus()
        ok = status == self.highspy.HighsModelStatus.kOptimal
        sol = h.getSolution()
        v = np.array(sol.col_value)
        self.row_values = np.array(sol.row_value)
        self.row_duals = np.array(sol.row_dual) if sol.dual_valid else None
        return ok, h.getInfo().objective_function_value, v, h.modelStatusToString(status)

    def fix_zero(self, cols: np.ndarray) -> None:
        if len(cols):
            cols = cols.astype(np.int32)
            z = np.zeros(len(cols))
            self.h.changeColsBounds(len(cols), cols, z, z)

    def separate(self, x: np.ndarray, y: np.ndarray, max_rows: int, per_point: int) -> tuple[int, int]:
        """Add violated rows at (x, y): every violated linking row (two or
        three entries each) and up to ``max_rows`` most violated triangle
        inequalities, at most ``per_point`` with the same apex.  Returns
        (linking rows, triangle rows) added."""
        n = self.n
        Y = np.zeros((n, n))
        Y[self.iu, self.ju] = y
        Y += Y.T
        viol = Y - x[:, None]
        np.fill_diagonal(viol, -1)
        a, b = np.nonzero(viol > 1e-6)
        before = self.rows
        self.add_up(a, b)
        self.add_low(np.flatnonzero(x[self.iu] + x[self.ju] - y - 1 > 1e-6))
        links = self.rows - before
        found = []
        for i in np.flatnonzero(x > 1e-6):
            T = Y[i][:, None] + Y[i][None, :] - Y - x[i]
            T[i, :] = -1
            T[:, i] = -1
            jj, ll = np.nonzero(np.triu(T, 1) > 1e-5)
            if len(jj):
                vv = T[jj, ll]
                o = np.argsort(-vv, kind="stable")[:per_point]
                found.append((vv[o], np.stack([np.full(len(o), i), jj[o], ll[o]], axis=1)))
        if found:
            vals = np.concatenate([f[0] for f in found])
            tri = np.concatenate([f[1] for f in found])
            self.add_triangles(tri[np.argsort(-vals, kind="stable")[:max_rows]])
        return links, self.rows - before - links

    def complete(self) -> None:
        """All linking rows y_ab <= x_a, so that binary x makes y exact."""
        a, b = np.nonzero(~self.up)
        off = a != b
        self.add_up(a[off], b[off])


def _lagrangian_bound(lp: _PairLP, dist: np.ndarray, k: int) -> tuple[float, np.ndarray]:
    """A lower bound from the LP's row multipliers, exact for any multipliers,
    and the Lagrangian reduced costs of the x columns.

    Every column of the pairwise LP has bounds [0, 1], so for row
    multipliers lam (free on equality rows, <= 0 on <= rows)
    ``L(lam) = b . lam + sum_j min(0, c_j - (A^T lam)_j)`` bounds the LP,
    hence the optimum, from below (Lagrangian duality), however accurate the
    solver's multipliers are.  Points fixed at 0 by reduced cost count with
    upper bound 0, so the value bounds the sets the fixings kept, those
    that could beat the incumbent; the caller combines it with the cutoff.

    Forcing x_i = 1 changes only the term of column i, from min(0, d_i) to
    d_i (d_i = -(A^T lam)_i, its reduced cost), so ``L(lam) + max(0, d_i)``
    bounds every set containing point i, as exactly as L(lam) itself: the
    caller fixes points by this test rather than by the solver's reduced
    costs, which carry its tolerances.
    """
    lam = lp.row_duals
    if lam is None or len(lam) != lp.rows:
        return -np.inf, np.zeros(lp.n)
    keys = lp.keys
    kind = keys[:, 0]
    lam = np.where(kind == lp.BASE, lam, np.minimum(lam, 0.0))
    n = lp.n
    base = np.flatnonzero(kind == lp.BASE)
    pi0 = lam[base[0]]
    mu = np.zeros(n)
    mu[keys[base[1:], 1]] = lam[base[1:]]
    # A^T lam: x columns (n) and y columns (n x n, symmetric)
    atx = np.full(n, pi0) - (k - 1) * mu
    aty = mu[:, None] + mu[None, :]
    for code, sx, sy in ((lp.UP, ((1, -1.0),), ((1, 2, 1.0),)),
                         (lp.LOW, ((1, 1.0), (2, 1.0)), ((1, 2, -1.0),)),
                         (lp.TRI, ((1, -1.0),), ((1, 2, 1.0), (1, 3, 1.0), (2, 3, -1.0)))):
        rows = np.flatnonzero(kind == code)
        if len(rows) == 0:
            continue
        lv = lam[rows]
        for col, coef in sx:
            np.add.at(atx, keys[rows, col], coef * lv)
        for c1, c2, coef in sy:
            np.add.at(aty, (keys[rows, c1], keys[rows, c2]), coef * lv)
            np.add.at(aty, (keys[rows, c2], keys[rows, c1]), coef * lv)
    bound = k * pi0 + lam[kind == lp.LOW].sum()
    bound += np.minimum(0.0, -atx)[~lp.fixed0].sum()
    bound += np.minimum(0.0, (dist - aty)[lp.iu, lp.ju]).sum()
    return float(bound), -atx
