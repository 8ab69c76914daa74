"""MPTCP subflow routing (scMPTCP §III–V): the four schemes and the Fig. 5 experiment.

Fig. 5 setting (scMPTCP §V.B): 4×4 satellite lattice (satellites 1..16 row by
row), inter-satellite links 25 Mbit/s and 20 ms, host links 5 Mbit/s and 5 ms.
Static unbalanced pattern: each flow's sender hangs off satellite 2, 6 or 10
and its receiver off 4, 8 or 12, each with one or two interfaces (the second
to a random lattice neighbour). Hosts do not forward: each connection is
routed on the lattice plus its own two hosts. Connections are placed one by
one; ``mptcp-lba`` sees the load of the connections placed before it (the
max-min fair rates of their subflows). The total system throughput is the
sum of the max-min fair rates of all chosen subflow paths (fairness per
subflow, every subflow a single-path elastic flow), averaged over 10 seeded
draws of the host pairs.
"""

from __future__ import annotations

import numpy as np
import pytest

from subflow.planning.mptcp_path_selection import (
    available_bandwidth,
    enumerate_paths,
    max_min_fair,
    mptcp_disjoint,
    mptcp_lba,
    mptcp_lba_adjust,
    mptcp_sp,
)
from subflow.planning.network import Network

SATS = [f"s{v}" for v in range(1, 17)]


def lattice_links(bw: float = 25.0, delay: float = 20.0):
    links = []
    for r in range(4):
        for c in range(4):
            v = r * 4 + c + 1
            if c < 3:
                links.append((f"l{v}-{v + 1}", f"s{v}", f"s{v + 1}", delay, 0.0, bw))
            if r < 3:
                links.append((f"l{v}-{v + 4}", f"s{v}", f"s{v + 4}", delay, 0.0, bw))
    return links


def neighbours(v: int) -> list[int]:
    r, c = divmod(v - 1, 4)
    return [rr * 4 + cc + 1 for rr, cc in ((r, c + 1), (r, c - 1), (r + 1, c), (r - 1, c)) if 0 <= rr < 4 and 0 <= cc < 4]


def draw_flows(seed: int, n: int) -> list[tuple[list[int], list[int]]]:
    rng = np.random.default_rng(seed)
    flows = []
    for _ in range(n):
        a, b = int(rng.choice([2, 6, 10])), int(rng.choice([4, 8, 12]))
        sa = [a] + ([int(rng.choice(neighbours(a)))] if rng.random() < 0.5 else [])
        sb = [b] + ([int(rng.choice(neighbours(b)))] if rng.random() < 0.5 else [])
        flows.append((sa, sb))
    return flows


def host_links(i: int, sa: list[int], sb: list[int]):
    return [(f"a{i}-{x}", f"h{i}a", f"s{x}", 5.0, 0.0, 5.0) for x in sa] + [
        (f"b{i}-{x}", f"h{i}b", f"s{x}", 5.0, 0.0, 5.0) for x in sb
    ]


def total_throughput(flows, scheme: str) -> float:
    hosts, hl = [], []
    for i, (sa, sb) in enumerate(flows):
        hosts += [f"h{i}a", f"h{i}b"]
        hl += host_links(i, sa, sb)
    world = Network.from_links(SATS + hosts, lattice_links() + hl)
    arc_of = {(world.nodes[world.src[a]], world.nodes[world.dst[a]]): a for a in range(world.m)}
    placed: list[list[int]] = []
    for i, (sa, sb) in enumerate(flows):
        net = Network.from_links(SATS + [f"h{i}a", f"h{i}b"], lattice_links() + host_links(i, sa, sb))
        limit = len(sa) * len(sb)  # MPTCP full mesh
        if scheme == "sp":
            paths = mptcp_sp(net, f"h{i}a", f"h{i}b")
        elif scheme == "disjoint":
            paths = mptcp_disjoint(net, f"h{i}a", f"h{i}b", limit)
        else:
            rates = max_min_fair(world.capacity_mbps, placed)
            load, count = np.zeros(world.m), np.zeros(world.m)
            for p, r in zip(placed, rates):
                load[p] += r
                count[p] += 1
            local = [arc_of[(net.nodes[net.src[a]], net.nodes[net.dst[a]])] for a in range(net.m)]
            paths = mptcp_lba(net, f"h{i}a", f"h{i}b", load[local], count[local], max_subflows=limit).paths
        placed += [[arc_of[(u, v)] for u, v in zip(p.nodes, p.nodes[1:])] for p in paths]
    return float(max_min_fair(world.capacity_mbps, placed).sum())


@pytest.mark.parametrize("n_flows", [15, 30])
def test_fig5_static_unbalanced_lba_beats_disjoint_beats_sp(n_flows):
    mean = {s: np.mean([total_throughput(draw_flows(seed, n_flows), s) for seed in range(10)])
            for s in ("sp", "disjoint", "lba")}
    assert mean["lba"] >= mean["disjoint"] >= mean["sp"], mean


def _fig1(sender=(6, 7), receiver=(11, 12)) -> Network:
    hl = [(f"a{x}", "A", f"s{x}", 5.0, 0.0, 5.0) for x in sender] + [(f"b{x}", "B", f"s{x}", 5.0, 0.0, 5.0) for x in receiver]
    return Network.from_links(SATS + ["A", "B"], lattice_links() + hl)


def test_sp_gives_one_minimum_hop_subflow_per_interface_pair():
    net = _fig1()
    paths = mptcp_sp(net, "A", "B")
    pairs = {(p.nodes[1], p.nodes[-2]) for p in paths}
    assert pairs == {("s6", "s11"), ("s6", "s12"), ("s7", "s11"), ("s7", "s12")}  # scMPTCP §III.A
    hops = {(p.nodes[1], p.nodes[-2]): p.hops - 2 for p in paths}
    assert hops == {("s6", "s11"): 2, ("s6", "s12"): 3, ("s7", "s11"): 1, ("s7", "s12"): 2}
    k3 = mptcp_sp(net, "A", "B", k=3)
    assert [p.hops for p in k3] == sorted(p.hops for p in k3) and k3[0].nodes == ("A", "s7", "s11", "B")


def test_disjoint_subflows_share_no_lattice_link():
    net = _fig1()
    paths = mptcp_disjoint(net, "A", "B")
    assert len(paths) == 4
    used = [{net.link[a] for a in p.arcs if not net.link[a].startswith(("a", "b"))} for p in paths]
    for i in range(len(used)):
        for j in range(i + 1, len(used)):
            assert not used[i] & used[j]
    assert [p.hops for p in paths] == sorted(p.hops for p in paths)


def test_available_bandwidth_formula_of_the_paper():
    # scMPTCP Figs. 3–4: total 10, four flows: left 6 → 6; left 1 → 10/4 = 2.5
    assert available_bandwidth(np.array([10.0]), np.array([4.0]), np.array([3])).tolist() == [6.0]
    assert available_bandwidth(np.array([10.0]), np.array([9.0]), np.array([3])).tolist() == [2.5]


def test_lba_avoids_a_congested_satellite_and_the_bottlenecks_of_earlier_subflows():
    # Fig. 1: satellite 10 heavily loaded — links (9,10), (6,10), (10,11), (10,14) congested
    net = _fig1()
    load = np.zeros(net.m)
    flows = np.zeros(net.m)
    for a in range(net.m):
        if net.link[a] in ("l9-10", "l6-10", "l10-11", "l10-14"):
            load[a], flows[a] = 25.0, 10
    choice = mptcp_lba(net, "A", "B", load, flows, max_subflows=4)
    assert choice.paths
    for p in choice.paths:
        assert "s10" not in p.nodes
    # first pick: least hops among those with the most available bandwidth (host links, 5 Mbit/s)
    assert choice.paths[0].nodes == ("A", "s7", "s11", "B") and choice.bandwidth_mbps[0] == pytest.approx(5.0)
    # an existing subflow whose link is a bottleneck makes that link off limits
    load2 = load.copy()
    for a in range(net.m):
        if net.link[a] == "l7-11":
            load2[a] = 25.0
    existing = [["A", "s7", "s11", "B"]]
    again = mptcp_lba(net, "A", "B", load2, flows, existing=existing, max_subflows=3)
    for p in again.paths:
        assert not ({"s7", "s11"} <= set(p.nodes) and abs(p.nodes.index("s7") - p.nodes.index("s11")) == 1)
    assert len(again.paths) <= 2


def test_lba_paths_are_within_shortest_plus_h_hops():
    net = _fig1()
    allp = enumerate_paths(net, "A", "B", extra_hops=3)
    shortest = min(len(p) for p in allp)
    assert shortest == 3 and max(len(p) for p in allp) == 6
    # independent count of simple paths with at most 6 hops (networkx)
    import networkx as nx

    g = nx.Graph()
    g.add_edges_from((net.nodes[net.src[a]], net.nodes[net.dst[a]]) for a in range(net.m))
    assert len(allp) == sum(1 for _ in nx.all_simple_paths(g, "A", "B", cutoff=6))


def test_lba_adjust_reroutes_the_longer_of_two_subflows_sharing_a_bottleneck():
    # sender A on 2 and 6, receiver B on 12 (scMPTCP §V.C.2): two subflows share (11,12)
    hl = [("a2", "A", "s2", 5.0, 0.0, 20.0), ("a6", "A", "s6", 5.0, 0.0, 20.0), ("b12", "B", "s12", 5.0, 0.0, 20.0)]
    net = Network.from_links(SATS + ["A", "B"], lattice_links() + hl)
    short = ["A", "s6", "s7", "s11", "s12", "B"]
    long = ["A", "s2", "s3", "s7", "s11", "s12", "B"]
    load, count = np.zeros(net.m), np.zeros(net.m)
    for a in range(net.m):
        if net.link[a] in ("l11-12", "l7-8", "l3-4"):  # traffic now from satellite 7 to 8
            load[a], count[a] = 25.0, 20
    changes = mptcp_lba_adjust(net, {"A": [short, long]}, load, count)
    assert len(changes) == 1
    ch = changes[0]
    assert ch.connection == "A" and ch.subflow == 1 and ch.old_nodes == long and ch.bottleneck_link == "l11-12"
    assert ch.new_nodes is not None
    new_links = {net.link[a] for a in net.arcs_of_path(ch.new_nodes)}
    assert not new_links & {"l11-12", "l7-8", "l3-4"}  # e.g. through (15,16)
    assert ch.new_nodes[0] == "A" and ch.new_nodes[-1] == "B"
    # nothing shared: nothing to do
    assert mptcp_lba_adjust(net, {"A": [short]}, load, count) == []


def _is_max_min_fair(cap, paths, rates) -> bool:
    """Every flow crosses a saturated arc on which no flow gets more (Bertsekas–Gallager §6.5.2)."""
    load = np.zeros(cap.shape[0])
    for p, r in zip(paths, rates):
        load[p] += r
    if np.any(load > cap * (1 + 1e-9)):
        return False
    for i, p in enumerate(paths):
        ok = False
        for a in p:
            if load[a] >= cap[a] * (1 - 1e-9) and all(rates[j] <= rates[i] + 1e-9 for j, q in enumerate(paths) if a in q):
                ok = True
        if not ok:
            return False
    return True


@pytest.mark.parametrize("seed", range(5))
def test_max_min_fair_satisfies_the_bottleneck_condition(seed):
    rng = np.random.default_rng(seed)
    cap = rng.uniform(1, 10, 12)
    paths = [sorted(set(rng.choice(12, size=rng.integers(1, 5), replace=False).tolist())) for _ in range(15)]
    rates = max_min_fair(cap, paths)
    assert _is_max_min_fair(cap, paths, rates)
