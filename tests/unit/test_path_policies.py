"""Minimum-hop routing checked against networkx as an independent validator."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from subflow.network import Network
from subflow.path_policies import min_hop_path, path_nodes


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
            path = min_hop_path(g, s, t)
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
    assert path_nodes(g, min_hop_path(g, "a", "d"), "a") == ["a", "b", "d"]
    assert path_nodes(g, min_hop_path(g, "a", "d", banned=frozenset({"b"})), "a") == ["a", "c", "e", "d"]
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
                assert sum(g.delay_ms[a] for a in path) == pytest.approx(dist[t])


def test_every_strategy_path_name_has_a_policy():
    from typing import get_args, get_type_hints

    from subflow.path_policies import PATH_POLICIES
    from subflow.strategies import STRATEGIES, Strategy

    names = set(get_args(get_type_hints(Strategy)["paths"]))
    assert names == set(PATH_POLICIES)
    assert {s.paths for s in STRATEGIES.values()} <= names
