"""plot_network: every node and link of the machine drawn, jobs coloured,
and the drawn graph of a dragonfly or fat tree giving the machine's distances."""

import matplotlib

matplotlib.use("Agg")  # the test chooses the backend; the library never does

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pytest
from matplotlib.colors import to_rgba

from optalloc.machine import Machine, dragonfly, fat_tree, parse_machine
from optalloc.sim import plot_network

PNG = b"\x89PNG\r\n\x1a\n"


def _artist(ax, gid):
    found = [c for c in ax.collections if c.get_gid() == gid]
    assert len(found) <= 1
    return found[0] if found else None


def _segments(ax, gid):
    c = _artist(ax, gid)
    return [] if c is None else [np.asarray(s) for s in c.get_segments()]


def _check_colours(ax, machine, jobs):
    faces = _artist(ax, "nodes").get_facecolors()
    assert len(faces) == machine.n
    colour = {}
    for job, nodes in jobs.items():
        got = {tuple(faces[i]) for i in nodes}
        assert len(got) == 1, f"job {job} drawn in {len(got)} colours"
        colour[job] = got.pop()
    assert len(set(colour.values())) == len(jobs)  # one colour per job
    held = {i for nodes in jobs.values() for i in nodes}
    free = {tuple(faces[i]) for i in range(machine.n) if i not in held}
    assert free <= {to_rgba((0.86, 0.86, 0.86))}
    assert not free & set(colour.values())


@pytest.mark.parametrize("shape, torus", [((6, 4), True), ((6, 4), False), ((5, 3), (True, False)),
                                          ((2, 5), True), ((7,), True), ((3, 2, 2), True)])
def test_grid_nodes_links_and_wrap_stubs(shape, torus):
    m = Machine(shape, torus=torus)
    jobs = {3: [0, 1], 8: [m.n - 1]}
    ax = plot_network(m, jobs)
    assert len(_artist(ax, "nodes").get_offsets()) == m.n
    _check_colours(ax, m, jobs)
    links = m.links()
    links = links[links[:, 0] < links[:, 1]]
    coords = np.zeros((m.n, 3), dtype=int)
    coords[:, :m.ndim] = m.coords
    delta = np.abs(coords[links[:, 0]] - coords[links[:, 1]])
    wrap = delta.max(axis=1) > 1
    in_layer = delta[:, 2] == 0 if m.ndim == 3 else np.ones(len(links), bool)
    assert len(_segments(ax, "links")) == int((~wrap & in_layer).sum())
    # each wrap link is two dashed stubs, one at each end (none on axes of 2: the wrap is the mesh link)
    assert len(_segments(ax, "wrap-links")) == 2 * int((wrap & in_layer).sum())
    plt.close("all")


def _drawn_graph(ax, machine, switch_gid, link_gids):
    """The graph of the drawn points (nodes and switches) and link segments."""
    key = {}
    for i, p in enumerate(_artist(ax, "nodes").get_offsets()):
        key[tuple(np.round(p, 6))] = ("node", i)
    for j, p in enumerate(_artist(ax, switch_gid).get_offsets()):
        key.setdefault(tuple(np.round(p, 6)), ("switch", j))
    G = nx.Graph()
    G.add_nodes_from(key.values())
    for gid in link_gids:
        for a, b in _segments(ax, gid):
            G.add_edge(key[tuple(np.round(a, 6))], key[tuple(np.round(b, 6))])
    nodes = [("node", i) for i in range(machine.n)]
    lengths = dict(nx.all_pairs_shortest_path_length(G))
    return np.array([[lengths[u][v] for v in nodes] for u in nodes])


@pytest.mark.parametrize("args", [{}, {"groups": 5, "routers": 2, "nodes": 1, "global_links": 2},
                                  {"groups": 3, "routers": 2, "nodes": 3, "global_links": 1,
                                   "arrangement": "relative"}])
def test_dragonfly_group_diagram_is_the_machine(args):
    m = dragonfly(**args)
    g, a = args.get("groups", 9), args.get("routers", 4)
    jobs = {1: list(range(4)), 2: [m.n - 1, m.n - 2]}
    ax = plot_network(m, jobs)
    _check_colours(ax, m, jobs)
    assert len(_artist(ax, "routers").get_offsets()) == g * a
    assert len(_segments(ax, "local-links")) == g * a * (a - 1) // 2
    assert len(_segments(ax, "host-links")) == m.n
    # ground truth: hops over the drawn links are the machine's distances
    D = _drawn_graph(ax, m, "routers", ("local-links", "global-links", "host-links"))
    assert np.array_equal(D, m.distances())
    plt.close("all")


@pytest.mark.parametrize("k", [2, 4])
def test_fat_tree_layers_are_the_machine(k):
    m = fat_tree(k)
    jobs = {0: [0], 5: [m.n - 1]}
    ax = plot_network(m, jobs)
    _check_colours(ax, m, jobs)
    assert len(_artist(ax, "switches").get_offsets()) == k * k + k * k // 4  # edge + aggregation + core
    assert len(_segments(ax, "host-links")) == m.n
    assert len(_segments(ax, "switch-links")) == k * (k // 2) ** 2 * 2
    D = _drawn_graph(ax, m, "switches", ("host-links", "switch-links"))
    assert np.array_equal(D, m.distances())
    plt.close("all")


def test_any_network_and_the_machine_owners():
    m = Machine.from_graph(nx.petersen_graph())
    m.allocate([0, 5], owner=4)
    ax = plot_network(m)
    assert len(_segments(ax, "links")) == 15
    _check_colours(ax, m, {4: [0, 5]})
    assert ax.get_title() == "network of 10 nodes: 1 job, 2/10 nodes busy"
    plt.close("all")


def test_sequence_of_jobs_text_machine_and_file(tmp_path):
    before = matplotlib.get_backend()
    path = tmp_path / "t.png"
    ax = plot_network("4x4 torus", [[0, 1], [5, 6, 7]], path=path)
    assert path.read_bytes().startswith(PNG)
    assert ax.get_title() == "4x4 torus: 2 jobs, 5/16 nodes busy"
    assert matplotlib.get_backend() == before
    with pytest.raises(FileExistsError, match="overwrite=True"):
        plot_network("4x4 torus", path=path)
    plot_network("4x4 torus", path=path, overwrite=True)
    _, ax = plt.subplots()
    assert plot_network(parse_machine("fattree:2"), ax=ax) is ax
    plt.close("all")


@pytest.mark.parametrize("allocation, match", [
    ({1: [0, 1], 2: [1]}, "node 1 is given to jobs 1 and 2"),
    ({1: [0, 99]}, "allocation"),
    ({"a": [0]}, "job ids must be integers"),
    (5, "must be a dict"),
])
def test_bad_allocations(allocation, match):
    with pytest.raises(ValueError, match=match) as err:
        plot_network(Machine((4, 4)), allocation)
    assert "\n" not in str(err.value)


def test_bad_axes():
    with pytest.raises(ValueError, match="`ax` must be a matplotlib Axes"):
        plot_network(Machine((2, 2)), ax="nope")
