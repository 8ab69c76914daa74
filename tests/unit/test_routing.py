"""Minimum-hop routing checked against networkx as an independent validator."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from subflow.routing import Edge, Graph, min_hop_path, path_nodes


def _random_graph(seed: int, n: int = 25, p: float = 0.15) -> tuple[Graph, nx.DiGraph]:
    rng = random.Random(seed)
    g, ref = Graph(), nx.DiGraph()
    ref.add_nodes_from(f"n{i}" for i in range(n))
    for i in range(n):
        g.adj.setdefault(f"n{i}", [])
        for j in range(n):
            if i != j and rng.random() < p:
                d = rng.choice([1.0, 2.0, 5.0])
                g.add(Edge(f"n{i}", f"n{j}", f"{i}-{j}", d))
                ref.add_edge(f"n{i}", f"n{j}", delay=d)
    return g, ref


@pytest.mark.parametrize("seed", range(10))
def test_min_hop_matches_networkx_and_breaks_ties_by_delay(seed):
    g, ref = _random_graph(seed)
    for s in list(ref.nodes)[:6]:
        lengths = nx.single_source_shortest_path_length(ref, s)
        for t in ref.nodes:
            path = min_hop_path(g, s, t)
            if t not in lengths:
                assert path is None
                continue
            assert len(path) == lengths[t]
            nodes = path_nodes(path, s)
            assert nx.is_simple_path(ref, nodes) or len(nodes) == 1
            if lengths[t] > 0:
                best_delay = min(
                    sum(ref.edges[u, v]["delay"] for u, v in zip(p, p[1:]))
                    for p in nx.all_shortest_paths(ref, s, t)
                )
                assert sum(e.delay_ms for e in path) == pytest.approx(best_delay)


def test_banned_nodes_are_avoided():
    g = Graph()
    for a, b in [("a", "b"), ("b", "d"), ("a", "c"), ("c", "e"), ("e", "d")]:
        g.add(Edge(a, b, f"{a}{b}", 1.0))
    assert path_nodes(min_hop_path(g, "a", "d"), "a") == ["a", "b", "d"]
    assert path_nodes(min_hop_path(g, "a", "d", banned=frozenset({"b"})), "a") == ["a", "c", "e", "d"]
    assert min_hop_path(g, "d", "a") is None


@pytest.mark.parametrize("seed", range(6))
def test_min_delay_matches_networkx_dijkstra(seed):
    g, ref = _random_graph(seed)
    for s in list(ref.nodes)[:5]:
        dist = nx.single_source_dijkstra_path_length(ref, s, weight="delay")
        for t in ref.nodes:
            path = min_hop_path(g, s, t, metric="delay")
            if t not in dist:
                assert path is None
            else:
                assert sum(e.delay_ms for e in path) == pytest.approx(dist[t])
