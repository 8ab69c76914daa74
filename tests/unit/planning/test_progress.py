"""Batched route reports with progress: same document as one pass, real done/total,
and the batched delay routes against networkx."""

from __future__ import annotations

import math
import random

import networkx as nx
import pytest

from subflow.planning.network import Network
from subflow.planning.shortest_paths import route_report
from tests.unit.planning.test_paths import random_network


@pytest.mark.parametrize("metric", ["hop", "delay", "loss", "tcpbp", "tcpbp-greedy"])
@pytest.mark.parametrize("seed", range(3))
def test_batched_report_equals_one_pass_and_reports_progress(metric, seed):
    net = random_network(300 + seed, n=16, p_edge=0.25)
    whole = route_report(net, metric)
    calls: list[tuple[int, int]] = []
    batched = route_report(net, metric, on_progress=lambda d, t: calls.append((d, t)), progress_steps=5)
    assert batched == whole
    total = 16 * 15
    assert [t for _, t in calls] == [total] * len(calls)
    done = [d for d, _ in calls]
    assert len(done) == 5 and done == sorted(done) and done[-1] == total and done[0] > 0


def test_progress_with_k_paths_and_given_pairs():
    net = random_network(7, n=10, p_edge=0.4)
    pairs = [("v0", "v5"), ("v3", "v1"), ("v9", "v2"), ("v0", "v1")]
    calls: list[tuple[int, int]] = []
    report = route_report(net, "tcpbp", k=3, pairs=pairs, on_progress=lambda d, t: calls.append((d, t)))
    assert report == route_report(net, "tcpbp", k=3, pairs=pairs)
    assert calls[-1] == (4, 4) and [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_batched_delay_routes_match_networkx():
    net = random_network(42, n=18, p_edge=0.2)
    report = route_report(net, "delay", on_progress=lambda d, t: None, progress_steps=7)
    g = nx.DiGraph()
    for a in range(net.m):
        u, v, w = net.nodes[int(net.src[a])], net.nodes[int(net.dst[a])], float(net.delay_ms[a])
        if not g.has_edge(u, v) or w < g[u][v]["w"]:
            g.add_edge(u, v, w=w)
    for r in report["routes"]:
        try:
            want = nx.dijkstra_path_length(g, r["src"], r["dst"], weight="w")
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            assert not r["reachable"]
            continue
        assert r["reachable"]
        assert math.isclose(r["paths"][0]["delay_ms"], want, abs_tol=1e-9)
        nodes = r["paths"][0]["nodes"]
        assert math.isclose(sum(g[u][v]["w"] for u, v in zip(nodes, nodes[1:])), want, abs_tol=1e-9)


def _simple_network(seed: int, n: int = 30) -> tuple[Network, nx.DiGraph]:
    """Connected random graph without parallel links; continuous random delays (unique shortest paths)."""
    rng = random.Random(seed)
    g = nx.connected_watts_strogatz_graph(n, 4, 0.3, seed=seed)
    links = [(f"l{u}_{v}", f"v{u}", f"v{v}", rng.uniform(0.1, 10.0), rng.uniform(0.0, 0.01), 10.0) for u, v in g.edges]
    net = Network.from_links([f"v{i}" for i in range(n)], links)
    dg = nx.DiGraph()
    for lid, a, b, d, _p, _c in links:
        dg.add_edge(a, b, w=d, link=lid)
        dg.add_edge(b, a, w=d, link=lid)
    return net, dg


@pytest.mark.parametrize("seed", range(3))
def test_summary_link_use_matches_networkx_path_counts(seed):
    net, dg = _simple_network(seed)
    calls: list[tuple[int, int]] = []
    summary = route_report(net, "delay", summary_limit=10, on_progress=lambda d, t: calls.append((d, t)),
                           progress_steps=4)
    want: dict[str, int] = {}
    lengths = []
    for src, paths in nx.all_pairs_dijkstra_path(dg, weight="w"):
        for dst, nodes in paths.items():
            if src == dst:
                continue
            lengths.append(nx.path_weight(dg, nodes, "w"))
            for u, v in zip(nodes, nodes[1:]):
                want[dg[u][v]["link"]] = want.get(dg[u][v]["link"], 0) + 1
    got = {u["link"]: u["routes"] for u in summary["link_use"]}
    assert got == {lid: want.get(lid, 0) for lid in got} and set(want) <= set(got)
    assert summary["pairs_total"] == summary["pairs_reachable"] == 30 * 29 and summary["truncated"]
    # the ten costliest routes, costliest first
    kept = [r["paths"][0]["cost"] for r in summary["routes"]]
    assert kept == pytest.approx(sorted(lengths, reverse=True)[:10], abs=1e-9)
    assert calls[-1] == (870, 870) and len(calls) == 4


def test_summary_refuses_k_paths():
    net, _ = _simple_network(0, n=6)
    with pytest.raises(ValueError, match="k = 1"):
        route_report(net, "hop", k=2, summary_limit=5)
