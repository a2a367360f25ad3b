"""Task mapping: the QAP solvers put to work on a machine, and a dispatcher."""

from __future__ import annotations

import os

import numpy as np

from .._progress import Progress, check_progress, library_progress
from .._validate import validate_nodes
from ._bounds import SMALL
from ._common import Stopwatch, positive_int, qap_result
from ._core import validate_matrices
from ._cost import as_machine, cost_matrix
from ._search import descent

#: Methods of :func:`solve` and :func:`map_tasks`.
METHODS = ("tabu", "grasp", "exact", "brute", "faq", "consecutive", "random")

#: Methods of :func:`map_tasks`: those of :func:`solve`, the multilevel
#: mapper and "auto" (exact, then tabu, then multilevel as n grows).
MAP_METHODS = (*METHODS, "multilevel", "auto")

#: "auto" maps up to this many tasks exactly (enumeration) ...
AUTO_EXACT = 8
#: ... up to this many with the dense QAP engine (tabu), more with the multilevel mapper.
AUTO_DENSE = 512
#: Above this many tasks a sparse W is not made dense for a QAP method.
DENSE_TASKS = 4096


def faq(W, C, *, rng=None, starts: int = 1, local_search: bool = True, progress=None):
    """scipy's FAQ (Vogelstein et al.) from ``starts`` seeded starts, polished by 2-swap descent.

    The first start is scipy's barycenter, the others random doubly
    stochastic matrices; the best permutation is returned.  ``progress``:
    a callable gets ``(start, best)`` after each start, True shows progress
    on stderr (default: silent).

    Examples
    --------
    >>> from optalloc.qap import faq
    >>> faq([[0, 5, 0], [5, 0, 1], [0, 1, 0]], [[0, 1, 2], [1, 0, 1], [2, 1, 0]], rng=0).objective
    12.0
    """
    from scipy.optimize import quadratic_assignment

    clock = Stopwatch(None)
    A, B = validate_matrices(W, C)
    starts = positive_int(starts, "starts")
    rng = np.random.default_rng(rng)
    best_p, best_v = None, np.inf
    report, scope = library_progress(progress, label="faq", unit="starts", total=starts)
    with scope:
        for s in range(starts):
            options = {"rng": rng}
            if s:
                options["P0"] = "randomized"
            res = quadratic_assignment(A, B, method="faq", options=options)
            p = np.asarray(res.col_ind, dtype=np.intp)
            if local_search:
                p, value, _ = descent(A, B, p, clock=clock)
            else:
                value = float(res.fun)
            if value < best_v:
                best_p, best_v = p.copy(), value
            if isinstance(report, Progress):
                report.track(s + 1, best=best_v)
            elif report is not None:
                report(s, best_v)
    return qap_result(A, B, best_p, method="faq", start=clock.start, extra={"starts": starts},
                      message=f"scipy FAQ, best of {starts} start(s)" + (" + 2-swap descent" if local_search else ""))


#: Above this size the strong mode skips the O(n^3) FAQ and greedy starts.
STARTS_MAX = 200


def structured_starts(A: np.ndarray, B: np.ndarray, rng: np.random.Generator, clock=None) -> list[np.ndarray]:
    """Starting permutations that exploit structure: identity and FAQ (with descent).

    The identity is the consecutive mapping, optimal when the task graph
    has the machine's shape (a stencil on a matching torus); FAQ follows
    the spectrum of the two matrices (from ``SMALL`` + 1 tasks, below
    which the search covers the few permutations without it and scipy's
    import would cost more than the search, up to ``STARTS_MAX``).  No
    start is begun once the ``clock`` has expired.
    """
    n = len(A)
    starts = [descent(A, B, np.arange(n, dtype=np.intp), clock=clock)[0]]
    if SMALL < n <= STARTS_MAX and not (clock is not None and clock.expired()):
        starts.append(faq(A, B, rng=rng).permutation)
    return starts


def solve(W, C, *, method: str = "tabu", rng=None, time_limit: float | None = None,
          iterations: int | None = None, alpha: float | None = None, start=None, target: float | None = None,
          progress=None):
    """Solve ``min_p sum_ij W[i,j] C[p(i),p(j)]`` with the named method.

    Parameters
    ----------
    W, C : array_like, shape (n, n)
        Flows between tasks and costs between nodes.
    method : str, default "tabu"
        ``"tabu"`` (the strong mode: robust tabu search on several
        independent chains, the first started from the best of the
        identity, FAQ and a greedy construction, the others from random
        permutations; see :func:`strong_settings`),
        ``"grasp"`` (Pascual et al.), ``"exact"``, ``"brute"``, ``"faq"``
        (scipy, best of ``iterations`` starts, default 30), ``"consecutive"``
        (identity) or ``"random"``.
    rng : None, int or numpy.random.Generator
        Seed.
    time_limit : float, optional
        Seconds (tabu: the default budget is ``1000 n`` iterations).
    iterations : int, optional
        tabu: moves; grasp: constructions (default 50); faq: starts.
    alpha : float, optional
        Candidate-list share of the greedy constructions: GRASP's (default
        0.2) or the tabu chains' starts and restarts (default 1, random).
    start : array_like, optional
        Starting permutation (tabu, grasp).
    target : float, optional
        tabu, grasp: stop once the objective is at most ``target`` (they
        always stop at the Gilmore-Lawler bound, which proves optimality).
    progress : bool or callable, optional
        tabu, grasp, faq: a callable gets ``(iteration, best)`` as
        :func:`tabu` (every 1000 moves), :func:`grasp` (every
        construction) or :func:`faq` (every start) call it.  True: progress
        on stderr, for every method (a bar on a terminal, a line every few
        seconds and one at the end elsewhere).  Default: silent.

    Returns
    -------
    MappingResult
        With ``permutation``; ``bound`` is the Gilmore-Lawler bound for
        heuristics (exact methods prove their own). A heuristic that meets
        the bound has termination and status ``"optimal"``; otherwise its
        status is ``"feasible"`` and ``termination`` says why it stopped
        (``"completed"`` or ``"time_limit"``).

    Examples
    --------
    >>> from optalloc.qap import solve
    >>> W = [[0, 5, 0], [5, 0, 1], [0, 1, 0]]
    >>> C = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]
    >>> res = solve(W, C, method="tabu", rng=0)
    >>> res.objective, res.bound, res.status
    (12.0, 12.0, 'optimal')
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    check_progress(progress)
    clock = Stopwatch(time_limit)
    A, B = validate_matrices(W, C)
    report, scope = library_progress(progress, label=f"qap {method}")
    with scope:
        return _solve(A, B, method, rng, clock, iterations, alpha, start, target, report)


def _solve(A, B, method, rng, clock, iterations, alpha, start, target, progress):
    """:func:`solve` on checked matrices, its progress None, a callable or a Progress."""
    from ._bounds import _gl
    from ._exact import brute, exact
    from ._grasp import grasp
    from ._tabu import tabu

    time_limit = clock.limit
    n = len(A)
    rng = np.random.default_rng(rng)
    if method == "exact":
        return exact(A, B, time_limit=time_limit, rng=rng)
    if method == "brute":
        return brute(A, B)
    # a heuristic that meets the Gilmore-Lawler bound has proven its optimum
    bound = _gl(A, B)
    stop = bound if target is None else max(bound, float(target))
    if method == "consecutive":
        res = qap_result(A, B, np.arange(n), method=method, start=clock.start, message="task i on node i")
    elif method == "random":
        res = qap_result(A, B, rng.permutation(n), method=method, start=clock.start, message="a random mapping")
    elif method == "faq":
        res = faq(A, B, rng=rng, starts=30 if iterations is None else iterations, progress=progress)
    elif method == "grasp":
        res = grasp(A, B, iterations=50 if iterations is None else iterations, alpha=0.2 if alpha is None else alpha, rng=rng,
                    start=start, time_limit=time_limit, target=stop, progress=progress)
    else:
        if start is None:
            cands = structured_starts(A, B, rng, clock)
            if n <= STARTS_MAX and not clock.expired():
                cands.append(descent(A, B, _construct(A, B, rng, 0.2), clock=clock)[0])
            values = [float((A * B[np.ix_(p, p)]).sum()) for p in cands]
            start = cands[int(np.argmin(values))]
        remaining = clock.remaining()
        res = tabu(A, B, iterations=iterations, time_limit=None if remaining is None else max(remaining, 1e-3),
                   rng=rng, start=start, alpha=1.0 if alpha is None else alpha, target=stop, progress=progress,
                   **strong_settings(n))
    return qap_result(A, B, res.permutation, method=method, start=clock.start, bound=bound,
                      termination=res.termination, message=res.message, extra=res.extra)


def strong_settings(n: int) -> dict:
    """Options of :func:`~optalloc.qap.tabu` in the strong mode for n tasks.

    Two chains of the compiled engine (one above n = 2000, to bound the
    memory, three n x n arrays per chain), each in a thread of its own when
    two cores are available, and no restarts: at a few microseconds per
    move, Taillard's search reached the best known values sooner without
    them (chr20a, tai20a, tai30a, 20 seeds).  Up to ``SMALL`` tasks the two
    chains run in the numpy engine, which makes the same moves and takes
    less time than importing numba.
    """
    if n <= SMALL:
        return {"chains": 2, "workers": 1, "restart": None, "engine": "numpy"}
    chains = 2 if n <= 2000 else 1
    return {"chains": chains, "workers": min(chains, _cores()), "restart": None}


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _construct(A, B, rng, alpha):
    from ._grasp import construct

    return construct(A, B, rng, alpha=alpha)


def map_tasks(W, machine=None, *, nodes=None, criterion: str = "td", cost=None, method: str = "tabu",
              rng=None, time_limit: float | None = None, iterations: int | None = None,
              alpha: float | None = None, progress=None):
    """Map the tasks of a job onto the nodes of its partition (Pascual et al.).

    Parameters
    ----------
    W : array_like or scipy.sparse matrix, shape (t, t)
        Bytes sent between tasks (non-negative).
    machine : Machine or str, optional
        The machine: a :class:`~optalloc.machine.Machine` or a spec that
        :func:`~optalloc.machine.parse_machine` reads (``"torus:8x8"``,
        ``"16x8 mesh"``, ``"8x8 torus(tm)"``, a map or network file); not
        needed when ``cost`` is given.
    nodes : array_like of int, optional
        The partition: node ids the job got (default: the free nodes of
        the machine, that is every node unless it marks some busy).  With
        more nodes than tasks, the tasks go to the best ``t`` of them
        (zero-flow dummy tasks fill the rest).
    criterion : {"td", "classic"}, default "td"
        Cost between nodes (:func:`cost_matrix`): hop distance
        ("classic") or Traffic Distribution, hops plus axis imbalance
        ("td", meshes and tori); ignored with ``cost``.
    cost : array_like, optional
        A user cost matrix over the partition, instead of a criterion.
    method : str, default "tabu"
        Any method of :func:`solve` (``"consecutive"`` puts task i on the
        i-th node of the partition, ``"random"`` draws a mapping),
        ``"multilevel"`` (:func:`optalloc.qap.large.multilevel`: thousands
        of tasks, sparse W, a proven bound beside the mapping) or
        ``"auto"``: exact up to ``AUTO_EXACT`` (8) tasks, tabu up to
        ``AUTO_DENSE`` (512) or with a ``cost`` matrix, multilevel above.
    rng, time_limit, iterations, alpha, progress
        As in :func:`solve` (progress: silent by default).

    Returns
    -------
    MappingResult
        ``permutation[i]`` is the node id of task i; ``objective`` the
        cost under the criterion, ``bound`` a proven lower bound, status
        and termination as in :func:`solve`; ``extra["criterion"]``.

    Examples
    --------
    >>> from optalloc.qap import map_tasks, stencil
    >>> res = map_tasks(stencil((4, 4)), "torus:4x4", criterion="classic", rng=0)
    >>> res.objective, res.status        # every message travels one hop
    (64.0, 'optimal')
    """
    clock = Stopwatch(time_limit)
    from ._metrics import _validate_flows

    if method not in MAP_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(MAP_METHODS)}")
    A = _validate_flows(W)
    t = A.shape[0]
    if machine is not None:
        machine = as_machine(machine)
    if method == "auto":
        method = "exact" if t <= AUTO_EXACT else "tabu" if t <= AUTO_DENSE or cost is not None else "multilevel"
    if method == "multilevel":
        from .large import multilevel

        if cost is not None or machine is None:
            raise ValueError("method 'multilevel' maps onto a `machine`, not onto a `cost` matrix")
        return multilevel(A, machine, nodes=nodes, criterion=criterion, rng=rng, time_limit=time_limit,
                          **({} if iterations is None else {"tries": iterations}))
    if not isinstance(A, np.ndarray):
        if t > DENSE_TASKS:
            raise ValueError(f"method {method!r} holds n x n matrices: at most {DENSE_TASKS} tasks, got {t} "
                             "(use method 'multilevel' or 'auto')")
        A = A.toarray()
    if cost is None:
        if machine is None:
            raise ValueError("give a `machine` (or a `cost` matrix)")
        if nodes is None:
            node_ids = machine.free_ids() if machine.n_free < machine.n else np.arange(machine.n)
        else:
            node_ids = machine.check_nodes(nodes)
        B = cost_matrix(machine, criterion, nodes=node_ids)
    else:
        B = np.asarray(cost, dtype=np.float64)
        if B.ndim != 2 or B.shape[0] != B.shape[1]:
            raise ValueError(f"`cost` must be a square matrix, got shape {B.shape}")
        if not np.all(np.isfinite(B)):
            raise ValueError("`cost` contains NaN or infinite entries")
        if nodes is None:
            node_ids = np.arange(len(B))
        elif machine is not None:
            node_ids = machine.check_nodes(nodes, length=len(B))
        else:
            node_ids = validate_nodes(nodes, np.iinfo(np.intp).max, length=len(B))
        criterion = "user"
    m = len(B)
    if t > m:
        raise ValueError(f"{t} tasks do not fit on {m} nodes")
    if t < m:  # dummy tasks without traffic take the nodes left over
        A = np.pad(A, ((0, m - t), (0, m - t)))
    report, scope = library_progress(progress, label=f"map {method}")
    with scope:
        res = solve(A, B, method=method, rng=rng, time_limit=time_limit, iterations=iterations, alpha=alpha,
                    progress=report)
    perm = res.permutation[:t]
    return qap_result(A[:t, :t], B, perm, method=method, start=clock.start, nodes=node_ids,
                      bound=res.bound, termination=res.termination, message=res.message,
                      exact=method in ("exact", "brute"), extra={**res.extra, "criterion": criterion})
