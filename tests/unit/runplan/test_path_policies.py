"""The run planner's routes (minimum hop, minimum delay, nodes avoided) checked against networkx as an independent validator."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from subflow.planning.network import Network
from subflow.runplan.path_policies import path_nodes, route_arcs


def _random_graph(seed: int, n: int = 25, p: float = 0.15) -> tuple[Network, nx.DiGraph]:
    rng = random.Random(seed)
    arcs, ref = [], nx.DiGraph()
    ref.add_nodes_from(f"n{i}" for i in range(n))
    for i in range(n):
        for j in range(n):
            if i != j and rng.random() < p:
                d = rng.choice([1.0, 2.0, 5.0])
                arcs.append((f"{i}-{j}", f"n{i}", f"n{j}", d, 0.0, 1.0))
                ref.add_edge(f"n{i}", f"n{j}", delay=d)
    return Network.from_arcs(list(ref.nodes), arcs), ref


@pytest.mark.parametrize("seed", range(10))
def test_min_hop_matches_networkx_and_breaks_ties_by_delay(seed):
    g, ref = _random_graph(seed)
    for s in list(ref.nodes)[:6]:
        lengths = nx.single_source_shortest_path_length(ref, s)
        for t in ref.nodes:
            path = route_arcs(g, s, t)
            if t not in lengths:
                assert path is None
                continue
            assert len(path) == lengths[t]
            nodes = path_nodes(g, path, s)
            assert nx.is_simple_path(ref, nodes) or len(nodes) == 1
            if lengths[t] > 0:
                best_delay = min(
                    sum(ref.edges[u, v]["delay"] for u, v in zip(p, p[1:]))
                    for p in nx.all_shortest_paths(ref, s, t)
                )
                assert sum(g.delay_ms[a] for a in path) == pytest.approx(best_delay)


def test_banned_nodes_are_avoided():
    pairs = [("a", "b"), ("b", "d"), ("a", "c"), ("c", "e"), ("e", "d")]
    g = Network.from_arcs(["a", "b", "d", "c", "e"], [(f"{a}{b}", a, b, 1.0, 0.0, 1.0) for a, b in pairs])
    assert path_nodes(g, route_arcs(g, "a", "d"), "a") == ["a", "b", "d"]
    assert path_nodes(g, route_arcs(g, "a", "d", avoid=frozenset({"b"})), "a") == ["a", "c", "e", "d"]
    assert route_arcs(g, "d", "a") is None


@pytest.mark.parametrize("seed", range(6))
def test_min_delay_matches_networkx_dijkstra(seed):
    g, ref = _random_graph(seed)
    for s in list(ref.nodes)[:5]:
        dist = nx.single_source_dijkstra_path_length(ref, s, weight="delay")
        for t in ref.nodes:
            path = route_arcs(g, s, t, metric="delay")
            if t not in dist:
                assert path is None
            else:
                assert sum(g.delay_ms[a] for a in path) == pytest.approx(dist[t])


def test_every_strategy_path_name_has_a_policy():
    from typing import get_args, get_type_hints

    from subflow.runplan.path_policies import PATH_POLICIES
    from subflow.runplan.strategies import STRATEGIES, Strategy

    names = set(get_args(get_type_hints(Strategy)["paths"]))
    assert names == set(PATH_POLICIES)
    assert {s.paths for s in STRATEGIES.values()} <= names


@pytest.mark.parametrize(("strategy", "metric"), [("sptcp", "hop"), ("sptcp-delay", "delay"), ("sptcp-tcpbp", "tcpbp")])
def test_runs_take_the_routes_the_routes_api_answers(strategy, metric):
    """A wired scenario's single-path run routes each flow where the routes API (``POST .../routes``,
    :func:`subflow.analysis.planning.routes_document`) says its best route goes, under the same metric:
    on a Topology Zoo graph with 60 flows between random node pairs, every one of them."""
    import json
    import random

    from subflow.io.imports import import_scenario
    from subflow.analysis.planning import RoutesRequest, routes_document
    from subflow.runplan.resolve import resolve_plan
    from tests.unit.planning_helpers import ZOO, data_file

    path = data_file(ZOO / "Cogentco.graphml")
    doc = json.loads(import_scenario(path.read_bytes(), path.name).scenario.model_dump_json(exclude_none=True))
    rng = random.Random(7)
    nodes = [n["id"] for n in doc["nodes"]]
    pairs = [tuple(rng.sample(nodes, 2)) for _ in range(60)]
    doc["flows"] = [{"id": f"f{i}", "src": a, "dst": b} for i, (a, b) in enumerate(pairs)]
    plan = resolve_plan(doc, strategy)
    api = routes_document(doc, RoutesRequest(metric=metric, pairs=[list(p) for p in pairs]))
    answered = {(r["src"], r["dst"]): r for r in api["routes"]}
    checked = 0
    for flow in plan.flows:
        route = answered[(flow.src, flow.dst)]
        run_paths = [sp.nodes for seg in flow.segments for sp in seg.subflows]
        if not route["reachable"]:
            assert run_paths == []
            continue
        assert run_paths and all(p == route["paths"][0]["nodes"] for p in run_paths), flow.id
        checked += 1
    assert checked >= 50
