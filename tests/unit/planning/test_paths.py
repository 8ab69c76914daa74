"""Routes under hop/delay/loss/TCPBP, checked against independent validators.

* TCPBP exactness: exhaustive enumeration of simple paths on random graphs;
  on Topology Zoo graphs with random (d, p) the reported route is re-walked
  hop by hop and a bounded exhaustive search proves no simple path is better.
* ``tcpbp-greedy`` (thesis Algorithm 1) is never better and is worse on some.
* Additive metrics against networkx; Yen's k paths against the sorted list of
  every simple path.
"""

from __future__ import annotations

import math
import random

import networkx as nx
import numpy as np
import pytest

from subflow.errors import LinkInvalid, UnknownNode
from subflow.io.imports import load_network
from subflow.planning.network import Network
from subflow.planning.shortest_paths import (
    ROUTING_METRICS,
    all_pairs,
    compute_routes,
    isotonicity_counterexample,
    k_shortest_paths,
    parse_pairs,
    shortest_path,
)

from tests.unit.planning_helpers import ZOO, better_path_exists, brute_force_costs, check_route, data_file


def random_network(seed: int, n: int = 9, p_edge: float = 0.35, directed: bool = False) -> Network:
    """Random graph with random delays (some 0) and losses (some 0), parallel links allowed."""
    rng = random.Random(seed)
    nodes = [f"v{i}" for i in range(n)]
    links = []
    for i in range(n):
        for j in range(n):
            if i == j or (not directed and j < i) or rng.random() >= p_edge:
                continue
            for dup in range(2 if rng.random() < 0.1 else 1):
                d = 0.0 if rng.random() < 0.05 else rng.choice([rng.uniform(0.01, 20), rng.uniform(0.001, 0.1)])
                p = 0.0 if rng.random() < 0.1 else rng.choice([rng.uniform(0, 0.5), rng.uniform(1e-5, 1e-3)])
                links.append((f"e{i}_{j}_{dup}", nodes[i], nodes[j], d, p, 10.0))
    build = Network.from_arcs if directed else Network.from_links
    return build(nodes, links)


@pytest.mark.parametrize("seed", range(40))
def test_tcpbp_equals_brute_force_on_random_graphs(seed):
    net = random_network(seed, directed=seed % 3 == 0)
    ap = all_pairs(net, "tcpbp")
    for s in range(net.n):
        for t in range(net.n):
            if s == t:
                continue
            costs = brute_force_costs(net, s, t)
            if not costs:
                assert ap.hops[s, t] == -1 and ap.path(s, t) is None
                continue
            assert ap.cost[s, t] == pytest.approx(costs[0][0], rel=1e-9, abs=1e-12)
            check_route(net, s, t, ap.arcs(s, t), ap.cost[s, t])
            single = shortest_path(net, net.nodes[s], net.nodes[t], "tcpbp")
            assert single.cost == pytest.approx(costs[0][0], rel=1e-9, abs=1e-12)


def test_greedy_is_never_better_and_misses_the_optimum_on_some_graphs():
    missed_graphs = 0
    for seed in range(40):
        net = random_network(seed, directed=seed % 3 == 0)
        exact = all_pairs(net, "tcpbp")
        greedy = all_pairs(net, "tcpbp-greedy")
        reach = exact.hops >= 0
        assert np.array_equal(reach, greedy.hops >= 0)
        assert np.all(greedy.cost[reach] >= exact.cost[reach] * (1 - 1e-12) - 1e-15)
        if np.any(greedy.cost[reach] > exact.cost[reach] * (1 + 1e-9) + 1e-12):
            missed_graphs += 1
    assert missed_graphs >= 5


def test_isotonicity_counterexample_breaks_algorithm_1():
    # B = (0.01 s, p 0.5) beats A = (1 s, p 1e-4) at node m, but after the hop
    # m → t (1 s, p 0) A wins: Algorithm 1 keeps B at m and misses A ⊕ (m → t).
    r = isotonicity_counterexample()
    assert r["B"][0] < r["A"][0] and r["A"][1] < r["B"][1]
    net = Network.from_arcs(
        ["s", "a", "m", "t"],
        [("sa", "s", "a", 500.0, 0.0, 1), ("am", "a", "m", 500.0, 1e-4, 1),
         ("sm", "s", "m", 10.0, 0.5, 1), ("mt", "m", "t", 1000.0, 0.0, 1)],
    )
    exact = shortest_path(net, "s", "t", "tcpbp")
    greedy = shortest_path(net, "s", "t", "tcpbp-greedy")
    assert exact.nodes == ("s", "a", "m", "t")
    assert greedy.nodes == ("s", "m", "t")
    assert greedy.cost > 10 * exact.cost
    report = compute_routes(net, "tcpbp", pairs=[("s", "t")])
    assert [(g.src, g.dst, g.greedy_nodes) for g in report.greedy_differs] == [("s", "t", ["s", "m", "t"])]


@pytest.mark.parametrize("name", ["Abilene", "Geant2012", "Dfn", "GtsCe", "Cogentco", "Kdl"])
def test_tcpbp_is_exact_on_topology_zoo_graphs_with_random_d_p(name):
    base = load_network(data_file(ZOO / f"{name}.graphml"))
    rng = np.random.default_rng(sum(map(ord, name)))
    net = base.with_arrays(delay_ms=rng.uniform(0.1, 10.0, base.m), loss=rng.uniform(0.0, 0.05, base.m))
    ap = all_pairs(net, "tcpbp")
    greedy = all_pairs(net, "tcpbp-greedy")
    assert np.all(ap.hops >= 0)  # the Zoo graphs are connected
    assert np.all(greedy.cost >= ap.cost * (1 - 1e-12))
    samples = 60 if net.n > 100 else 150
    for _ in range(samples):
        s, t = (int(x) for x in rng.integers(net.n, size=2))
        if s == t:
            continue
        check_route(net, s, t, ap.arcs(s, t), ap.cost[s, t])
        assert not better_path_exists(net, s, t, ap.cost[s, t]), (name, s, t)
    # the compiled all-pairs search (contracted graph) and the single-pair search agree everywhere sampled
    for _ in range(30):
        s, t = (int(x) for x in rng.integers(net.n, size=2))
        single = shortest_path(net, net.nodes[s], net.nodes[t], "tcpbp")
        assert single.cost == pytest.approx(ap.cost[s, t], rel=1e-9, abs=1e-12)


def test_greedy_misses_the_optimum_on_zoo_graphs():
    net0 = load_network(data_file(ZOO / "Cogentco.graphml"))
    rng = np.random.default_rng(7)
    net = net0.with_arrays(delay_ms=rng.uniform(0.1, 10.0, net0.m), loss=rng.uniform(0.0, 0.05, net0.m))
    exact, greedy = all_pairs(net, "tcpbp"), all_pairs(net, "tcpbp-greedy")
    worse = greedy.cost > exact.cost * (1 + 1e-9)
    assert worse.sum() > 0


def _nx_graph(net: Network, weight) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(net.n))
    for a in range(net.m):
        u, v, w = int(net.src[a]), int(net.dst[a]), weight(a)
        if not g.has_edge(u, v) or w < g[u][v]["w"]:
            g.add_edge(u, v, w=w)
    return g


@pytest.mark.parametrize("seed", range(6))
def test_additive_metrics_match_networkx(seed):
    net = random_network(100 + seed, n=14, p_edge=0.25)
    hop = all_pairs(net, "hop")
    delay = all_pairs(net, "delay")
    loss = all_pairs(net, "loss")
    g_hop = _nx_graph(net, lambda a: 1.0)
    g_delay = _nx_graph(net, lambda a: float(net.delay_ms[a]))
    g_q = _nx_graph(net, lambda a: -math.log1p(-float(net.loss[a])))
    for s in range(net.n):
        lh = nx.single_source_shortest_path_length(g_hop, s)
        ld = nx.single_source_dijkstra_path_length(g_delay, s, weight="w")
        lq = nx.single_source_dijkstra_path_length(g_q, s, weight="w")
        for t in range(net.n):
            if t not in lh:
                assert hop.hops[s, t] == delay.hops[s, t] == loss.hops[s, t] == -1
                continue
            assert hop.cost[s, t] == lh[t]
            assert delay.cost[s, t] == pytest.approx(ld[t], abs=1e-9)
            assert loss.cost[s, t] == pytest.approx(-math.expm1(-lq[t]), abs=1e-12)
            # hop ties are broken by delay: least delay among minimum-hop paths
            if 0 < lh[t] <= 6:
                best = min(
                    sum(g_delay[u][v]["w"] for u, v in zip(p, p[1:]))
                    for p in nx.all_shortest_paths(g_hop, s, t)
                )
                assert hop.delay_ms[s, t] == pytest.approx(best, abs=1e-9)


def _all_costs(net: Network, s: int, t: int, metric: str) -> list[float]:
    """Cost of every simple path under ``metric``, sorted (exhaustive)."""
    out = []
    for f, d, p, h in brute_force_costs(net, s, t):
        out.append({"hop": h, "delay": d, "loss": p, "tcpbp": f}[metric])
    return sorted(out)


@pytest.mark.parametrize("metric", ["hop", "delay", "loss", "tcpbp"])
@pytest.mark.parametrize("seed", range(5))
def test_yen_k_shortest_equals_the_k_best_simple_paths(metric, seed):
    net = random_network(200 + seed, n=8, p_edge=0.45, directed=seed % 2 == 1)
    rng = random.Random(seed)
    for _ in range(6):
        s, t = rng.sample(range(net.n), 2)
        expected = _all_costs(net, s, t, metric)
        got = k_shortest_paths(net, net.nodes[s], net.nodes[t], 6, metric)
        assert len(got) == min(6, len(expected))
        assert len({p.arcs for p in got}) == len(got)  # distinct paths
        for p, c in zip(got, expected):
            assert p.cost == pytest.approx(c, rel=1e-9, abs=1e-12)
            assert len(set(p.nodes)) == len(p.nodes)  # loopless


def test_yen_tcpbp_k_paths_on_the_thesis_graph_are_sorted():
    from tests.conftest import load_example

    net = Network.from_scenario(load_example("hsln-10node"))
    ks = k_shortest_paths(net, "s1", "s10", 8, "tcpbp")
    costs = [p.cost for p in ks]
    assert costs == sorted(costs)
    assert ks[0].nodes == ("s1", "s3", "s4", "s10")
    assert costs == pytest.approx(_all_costs(net, 0, 9, "tcpbp")[:8])


def test_disconnected_pairs_are_unreachable_not_errors():
    net = Network.from_links(["a", "b", "c", "d"], [("ab", "a", "b", 1.0, 0.01, 10), ("cd", "c", "d", 1.0, 0.01, 10)])
    for metric in ROUTING_METRICS:
        doc = compute_routes(net, metric, k=2).model_dump()
        by_pair = {(r["src"], r["dst"]): r for r in doc["routes"]}
        assert by_pair[("a", "c")] == {"src": "a", "dst": "c", "reachable": False, "paths": []}
        assert by_pair[("a", "b")]["reachable"] is True
        assert shortest_path(net, "a", "d", metric) is None
        assert k_shortest_paths(net, "a", "d", 3, metric) == []


def test_routes_document_shape():
    from tests.conftest import load_example

    net = Network.from_scenario(load_example("hsln-10node"))
    doc = compute_routes(net, "tcpbp", k=2, pairs=parse_pairs("s1:s10,s2:s6", net)).model_dump()
    assert set(doc) == {"metric", "cost_unit", "routes", "greedy_differs", "pairs_total", "pairs_reachable",
                        "truncated", "link_use"}
    assert (doc["pairs_total"], doc["pairs_reachable"], doc["truncated"], doc["link_use"]) == (2, 2, False, None)
    assert doc["metric"] == "tcpbp" and doc["cost_unit"] == "ms"
    r = doc["routes"][0]
    assert set(r) == {"src", "dst", "reachable", "paths"}
    assert set(r["paths"][0]) == {"nodes", "hops", "delay_ms", "loss", "cost"}
    assert r["paths"][0]["cost"] <= r["paths"][1]["cost"]
    assert [(g["src"], g["dst"]) for g in doc["greedy_differs"]] == [("s2", "s6")]


def test_pairs_and_metric_errors():
    net = Network.from_links(["a", "b"], [("ab", "a", "b", 1.0, 0.0, 1)])
    with pytest.raises(UnknownNode, match="'z'"):
        parse_pairs("a:z", net)
    with pytest.raises(ValueError, match="SRC:DST"):
        parse_pairs("a-b", net)
    with pytest.raises(ValueError, match="unknown metric"):
        compute_routes(net, "latency")
    with pytest.raises(UnknownNode):
        shortest_path(net, "a", "q")


@pytest.mark.parametrize(
    "link, field",
    [
        (("bad", "a", "b", 1.0, 1.0, 10), "loss"),
        (("bad", "a", "b", 1.0, -0.1, 10), "loss"),
        (("bad", "a", "b", -1.0, 0.1, 10), "delay_ms"),
        (("bad", "a", "b", float("nan"), 0.1, 10), "delay_ms"),
        (("bad", "a", "b", 1.0, 0.1, -5), "capacity_mbps"),
    ],
)
def test_invalid_link_values_name_the_link(link, field):
    with pytest.raises(LinkInvalid) as err:
        Network.from_links(["a", "b"], [("ok", "a", "b", 1.0, 0.0, 1), link])
    assert err.value.link == "bad" and err.value.field == field
    assert "'bad'" in str(err.value)


def test_zero_delay_and_zero_loss_graph_prefers_fewest_hops_and_least_delay():
    # every path has f = 0; ties go to least delay, then least loss, then fewest hops
    net = Network.from_links(
        ["a", "b", "c", "d"],
        [("ab", "a", "b", 0.0, 0.0, 1), ("bc", "b", "c", 0.0, 0.0, 1), ("cd", "c", "d", 0.0, 0.0, 1),
         ("ad", "a", "d", 0.0, 0.0, 1)],
    )
    p = shortest_path(net, "a", "d", "tcpbp")
    assert p.cost == 0.0 and p.nodes == ("a", "d")
    ap = all_pairs(net, "tcpbp")
    assert ap.path(0, 3).nodes == ("a", "d")


def sparse_network(seed: int, n: int = 14, extra: int = 3, one_way: float = 0.0) -> Network:
    """A random tree plus a few extra links: many leaves and degree-2 chains
    (the contracted all-pairs search's forced walks), sometimes one-way arcs."""
    rng = random.Random(seed)
    nodes = [f"v{i}" for i in range(n)]
    pairs = [(rng.randrange(i), i) for i in range(1, n)]
    for _ in range(extra):
        a, b = rng.sample(range(n), 2)
        pairs.append((a, b))
    arcs = []
    for k, (a, b) in enumerate(pairs):
        d = rng.choice([0.0, rng.uniform(0.01, 20)])
        p = rng.choice([0.0, rng.uniform(0, 0.3)])
        directions = [(a, b), (b, a)]
        if rng.random() < one_way:
            directions = [directions[rng.randrange(2)]]
        for u, v in directions:
            arcs.append((f"l{k}", nodes[u], nodes[v], d, p, 1.0))
    return Network.from_arcs(nodes, arcs)


@pytest.mark.parametrize("seed", range(30))
def test_contracted_search_on_chain_and_leaf_heavy_graphs(seed):
    net = sparse_network(seed, n=10 + seed % 7, extra=seed % 4, one_way=0.3 if seed % 2 else 0.0)
    ap = all_pairs(net, "tcpbp")
    for s in range(net.n):
        for t in range(net.n):
            if s == t:
                assert ap.cost[s, t] == 0.0 and ap.arcs(s, t) == []
                continue
            costs = brute_force_costs(net, s, t)
            if not costs:
                assert ap.hops[s, t] == -1
                continue
            assert ap.cost[s, t] == pytest.approx(costs[0][0], rel=1e-9, abs=1e-12)
            check_route(net, s, t, ap.arcs(s, t), ap.cost[s, t])


def test_rings_and_loops_hanging_off_one_node():
    # a ring of degree-2 nodes with no other node, and a loop a–x–y–a hanging off a
    net = Network.from_links(
        ["r0", "r1", "r2", "r3", "a", "x", "y", "b", "c"],
        [("r01", "r0", "r1", 1.0, 0.01, 1), ("r12", "r1", "r2", 2.0, 0.02, 1), ("r23", "r2", "r3", 1.0, 0.1, 1),
         ("r30", "r3", "r0", 3.0, 0.0, 1), ("ax", "a", "x", 1.0, 0.05, 1), ("xy", "x", "y", 1.0, 0.0, 1),
         ("ya", "y", "a", 4.0, 0.01, 1), ("ab", "a", "b", 1.0, 0.2, 1), ("ac", "a", "c", 2.0, 0.01, 1)],
    )
    ap = all_pairs(net, "tcpbp")
    for s in range(net.n):
        for t in range(net.n):
            costs = brute_force_costs(net, s, t) if s != t else [(0.0,)]
            if not costs:
                assert ap.hops[s, t] == -1
            else:
                assert ap.cost[s, t] == pytest.approx(costs[0][0], rel=1e-9, abs=1e-12)
                if s != t:
                    check_route(net, s, t, ap.arcs(s, t), ap.cost[s, t])


def test_small_buffers_and_blocks_give_the_same_routes():
    from subflow.planning import _reduction as reduction

    base = load_network(data_file(ZOO / "GtsCe.graphml"))
    rng = np.random.default_rng(11)
    net = base.with_arrays(delay_ms=rng.uniform(0.1, 10.0, base.m), loss=rng.uniform(0.0, 0.05, base.m))
    ref = all_pairs(net, "tcpbp")
    red = net.cache["reduction"]
    src = np.arange(net.n)
    tiny = reduction.run_all_pairs(red, src, net.n, net.delay_ms, net.q, slot=8, block_bytes=36 * 8 * 17)
    assert len(tiny.blocks) > 5  # many blocks, every front row overflowing its first buffer
    assert np.array_equal(tiny.F, ref.cost) and np.array_equal(tiny.H, ref.hops)
    for s, t in [(0, 5), (17, 100), (148, 3), (60, 61)]:
        assert tiny.arcs(s, t) == ref.arcs(s, t)
    lean = all_pairs(net, "tcpbp", keep_routes=False)
    assert np.array_equal(lean.cost, ref.cost)
    with pytest.raises(LookupError):
        lean.arcs(0, 5)


@pytest.mark.parametrize("metric", ROUTING_METRICS)
def test_bulk_route_expansion_equals_single_route_reconstruction(metric):
    base = load_network(data_file(ZOO / "Dfn.graphml"))
    rng = np.random.default_rng(5)
    net = base.with_arrays(delay_ms=rng.uniform(0.1, 10.0, base.m), loss=rng.uniform(0.0, 0.05, base.m))
    for sources in (None, net.nodes[::7]):
        ap = all_pairs(net, metric, sources)
        offsets, flat = ap.flat_routes()
        for i in range(len(ap.sources)):
            for t in range(net.n):
                arcs = ap.arcs(i, t)
                h = int(ap.hops[i, t])
                assert flat[offsets[i, t] : offsets[i, t] + max(h, 0)].tolist() == ([] if arcs is None else arcs)
    doc = compute_routes(net, metric, pairs=[(net.nodes[0], net.nodes[5]), (net.nodes[9], net.nodes[2])])
    for r in doc.routes:
        p = shortest_path(net, r.src, r.dst, metric)
        assert r.paths[0].nodes == list(p.nodes) and r.paths[0].cost == pytest.approx(p.cost)
