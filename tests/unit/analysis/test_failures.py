"""Failure analysis against an independent recomputation with networkx."""

from __future__ import annotations

import networkx as nx
import pytest

from subflow.analysis.failures import FailureRequest, analyse_failures
from subflow.errors import LimitExceeded, ScenarioInvalid

# a ring with a chord; distinct delays so every shortest path is unique
LINKS = [  # id, a, b, delay_ms, bandwidth_mbps
    ("ab", "a", "b", 1.0, 10.0),
    ("bc", "b", "c", 2.0, 4.0),
    ("cd", "c", "d", 4.0, 10.0),
    ("da", "d", "a", 8.0, 6.0),
    ("ac", "a", "c", 5.0, 3.0),
    ("de", "d", "e", 3.0, 10.0),
]
NODES = ["a", "b", "c", "d", "e"]


def scenario(flows):
    return {
        "schema_version": 1, "name": "ring",
        # routers: every node forwards (hosts are end points, through which no route passes)
        "nodes": [{"id": n, "kind": "router", "position": {"x_m": i * 100.0, "y_m": 0.0}} for i, n in enumerate(NODES)],
        "links": [{"id": i, "src": a, "dst": b, "delay_ms": d, "bandwidth_mbps": c} for i, a, b, d, c in LINKS],
        "flows": flows, "run": {"duration_s": 10, "interval_s": 1, "seed": 1},
    }


def graph(removed_links=(), removed_node=None):
    g = nx.Graph()
    g.add_nodes_from(n for n in NODES if n != removed_node)
    for i, a, b, d, c in LINKS:
        if i not in removed_links and removed_node not in (a, b):
            g.add_edge(a, b, delay=d, capacity=c)
    return g


def ref_route(g, s, t):
    if s not in g or t not in g or not nx.has_path(g, s, t):
        return None, None
    path = nx.dijkstra_path(g, s, t, weight="delay")
    return path, nx.path_weight(g, path, "delay")


FLOWS = [{"id": "f1", "src": "a", "dst": "c", "rate_mbps": 2.0},
         {"id": "f2", "src": "b", "dst": "e"},
         {"id": "f3", "src": "e", "dst": "a", "rate_mbps": 1.0}]


def test_routes_and_reachability_match_networkx_for_every_link_and_node():
    report = analyse_failures(scenario(FLOWS), FailureRequest(metric="delay", nodes=True))
    assert len(report.cases) == len(LINKS) + len(NODES)
    for case in report.cases:
        node = case.element if case.kind == "node" else None
        g = graph(case.links, node)
        g0 = graph()
        for imp in case.flows:
            path, delay = ref_route(g, imp.src, imp.dst)
            path0, delay0 = ref_route(g0, imp.src, imp.dst)
            assert imp.reachable == (path is not None), (case.element, imp.flow)
            assert imp.path == (path or []), (case.element, imp.flow)
            assert imp.intact_path == path0
            if path is not None:
                assert imp.delay_ms == pytest.approx(delay)
                assert imp.delay_change_ms == pytest.approx(delay - delay0)
            assert imp.path_changed == (path != path0)
        # a cut rated flow delivers nothing
        for imp in case.flows:
            if imp.requested_mbps is not None and not imp.reachable:
                assert imp.delivered_mbps == 0.0
                assert imp.lost_mbps == pytest.approx(imp.intact_delivered_mbps)


def test_single_flow_delivery_is_min_of_demand_and_tempered_max_flow():
    """One flow: FDM delivers the demand if the max-flow exceeds it, else θ·max-flow (θ = 0.9,
    the tempering margin); max flow from networkx on each reduced graph."""
    flows = [{"id": "f1", "src": "b", "dst": "d", "rate_mbps": 9.0}]
    report = analyse_failures(scenario(flows), FailureRequest())
    for case in report.cases:
        g = graph(case.links)
        mf = nx.maximum_flow_value(g.to_directed(), "b", "d") if nx.has_path(g, "b", "d") else 0.0
        expected = 9.0 if mf > 9.0 else 0.9 * mf
        assert case.flows[0].delivered_mbps == pytest.approx(expected, rel=1e-6), case.element
    # worst first: the lost demand never increases down the list
    lost = [c.lost_mbps for c in report.cases]
    assert lost == sorted(lost, reverse=True)
    g0 = graph()
    intact = min(9.0, 0.9 * nx.maximum_flow_value(g0.to_directed(), "b", "d"))
    worst = max(LINKS, key=lambda l: intact - (lambda mf: 9.0 if mf > 9.0 else 0.9 * mf)(
        nx.maximum_flow_value(graph([l[0]]).to_directed(), "b", "d")))
    assert report.cases[0].element == worst[0]


def test_unknown_link_and_limit_are_refused():
    with pytest.raises(ScenarioInvalid) as e:
        analyse_failures(scenario(FLOWS), FailureRequest(links=["ab", "zz"]))
    assert e.value.errors[0]["loc"] == ["links", 1]
    with pytest.raises(LimitExceeded):
        analyse_failures(scenario(FLOWS), FailureRequest(nodes=True), max_cases=5)


def test_losing_the_satcom_backhaul_leaves_the_uav_carrying_both_flows_as_the_run_does():
    """uav-backhaul-planning: both users are inside the UAV's 300 m range. Failing ``satcom-ship`` moves both flows
    onto the UAV (the failure analysis reads the run's network, Wi-Fi hops included), and the rate it plans there is
    within ±10 % of what the fluid engine delivers with the link down from the start."""
    import json

    from subflow.comparison.compare import run_strategy
    from subflow.scenario.document import load_scenario
    from subflow_engines import run_plan

    from tests.conftest import EXAMPLES

    doc = json.loads((EXAMPLES / "uav-backhaul-planning.json").read_text())
    case = analyse_failures(doc, FailureRequest(links=["satcom-ship"])).cases[0]
    assert case.flows_cut == 0 and all(f.reachable and f.path[1] == "uav" for f in case.flows)
    planned = sum(f.delivered_mbps for f in case.flows)
    failed = dict(doc, link_events=[{"t_s": 0.0, "link": "satcom-ship", "state": "down"}])
    simulated = sum(f.mean_mbps for f in run_strategy(load_scenario(failed), "sptcp", run_plan).summary.flows)
    assert simulated > 0.8  # the UAV's 1 Mbit/s backhaul, shared by the two flows
    assert planned == pytest.approx(simulated, rel=0.10)


def test_bulk_flows_count_by_their_fair_share():
    """hsln-10node's flow is bulk: the intact plan delivers its max-min fair share (its 1 Gbit/s bottleneck, not 0);
    no single link failure loses it (the mesh reroutes), failing an end node does, and the report says so."""
    from tests.conftest import load_example

    doc = load_example("hsln-10node")
    report = analyse_failures(doc, FailureRequest(nodes=True))
    assert report.intact_delivered_mbps == pytest.approx(1000.0)
    assert all(c.lost_mbps == 0.0 for c in report.cases if c.kind == "link")
    worst = report.cases[0]
    assert worst.kind == "node" and worst.lost_mbps == pytest.approx(1000.0) and worst.flows[0].delivered_mbps == 0.0


def test_two_simultaneous_failures_match_networkx():
    """k = 2: every pair of links (and nodes) fails at once; reachability and routes as networkx finds them on
    the graph without both."""
    import itertools

    report = analyse_failures(scenario(FLOWS), FailureRequest(metric="delay", k=2, nodes=True))
    elements = [("link", i) for i, *_ in LINKS] + [("node", n) for n in NODES]
    assert len(report.cases) == len(list(itertools.combinations(elements, 2)))
    for case in report.cases:
        assert case.kind == "combination" and len(case.element.split("+")) == 2
        g = nx.Graph()
        g.add_nodes_from(n for n in NODES if n not in case.nodes)
        for i, a, b, d, c in LINKS:
            if i not in case.links and a not in case.nodes and b not in case.nodes:
                g.add_edge(a, b, delay=d)
        for imp in case.flows:
            path, _ = ref_route(g, imp.src, imp.dst)
            assert imp.reachable == (path is not None), (case.element, imp.flow)
            assert imp.path == (path or []), (case.element, imp.flow)


def test_shared_risk_groups_fail_together():
    """naval-leo: losing every SATCOM link at once cuts both ships at the start (the UAV is not yet in range);
    the Walker constellation's links fail together; a planner's group (the UAV lost) removes its node and links;
    a group naming an unknown element is refused naming it."""
    from tests.conftest import load_example

    doc = load_example("naval-leo")
    report = analyse_failures(doc, FailureRequest(links=[], shared_risk=True,
                                                  groups=[{"id": "uav-lost", "nodes": ["uav"]}]))
    cases = {c.element: c for c in report.cases}
    assert set(cases) == {"satcom", "constellation:walker", "uav-lost"}
    satellites = {n["id"] for n in doc["nodes"] if n["kind"] == "satellite"}
    satcom_links = {l["id"] for l in doc["links"] if {l["src"], l["dst"]} & satellites}
    assert set(cases["satcom"].links) == satcom_links
    assert cases["satcom"].flows_cut == len(doc["flows"]) and cases["satcom"].t_s == 0.0
    leo = {n["id"] for n in doc["nodes"] if n.get("constellation") == "walker"}
    assert set(cases["constellation:walker"].links) == {l["id"] for l in doc["links"] if {l["src"], l["dst"]} & leo}
    assert cases["uav-lost"].nodes == ["uav"] and cases["uav-lost"].kind == "group"
    with pytest.raises(ScenarioInvalid) as err:
        analyse_failures(doc, FailureRequest(groups=[{"id": "g", "links": ["no-such-link"]}]))
    assert err.value.errors[0]["loc"] == ["groups", 0, "links", 0]


def test_two_hundred_flows_on_a_topology_zoo_graph_stay_physical_and_match_networkx():
    """Kdl (Topology Zoo, 754 nodes, 895 links) with 200 flows between random pairs, half bulk and half rated:
    30 random single-link failures. Every figure is finite and non-negative, no rated flow gets more than it asks,
    the rated flows' allocation keeps every link below its capacity, the bulk flows (on their routes) share what
    is left within each link's capacity, and reachability and each route's delay are networkx's on the graph
    without the failed link. (A rated flow's allocation may split over several paths, Flow Deviation: its rate
    is not all on its reported route.)"""
    import math
    import random

    from subflow_testbeds.loads import random_bulk_flows

    from tests.unit.engines.test_fluid_validity import zoo

    doc = random_bulk_flows(zoo("Kdl"), 200, 10.0, seed=3)
    rng = random.Random(5)
    for f in doc["flows"][::2]:
        f["rate_mbps"] = round(rng.uniform(0.5, 20.0), 2)
    failed = [link["id"] for link in rng.sample(doc["links"], 30)]
    report = analyse_failures(doc, FailureRequest(metric="delay", links=failed, t_s=0.0))
    assert sorted(c.element for c in report.cases) == sorted(failed)
    assert math.isfinite(report.intact_delivered_mbps) and report.intact_delivered_mbps > 0
    links = {link["id"]: link for link in doc["links"]}
    for case in report.cases:
        g = nx.Graph()
        g.add_nodes_from(n["id"] for n in doc["nodes"])
        pair_capacity: dict[frozenset, float] = {}
        for link in doc["links"]:
            if link["id"] in case.links:
                continue
            key = frozenset((link["src"], link["dst"]))
            delay = link.get("delay_ms", 0.0)
            if not g.has_edge(link["src"], link["dst"]) or g[link["src"]][link["dst"]]["delay"] > delay:
                g.add_edge(link["src"], link["dst"], delay=delay)
            pair_capacity[key] = pair_capacity.get(key, 0.0) + links[link["id"]].get("bandwidth_mbps", 100.0)
        assert math.isfinite(case.lost_mbps) and case.lost_mbps >= -1e-9, case.element
        assert case.max_utilization is not None and 0.0 <= case.max_utilization < 1.0, case.element
        load: dict[tuple[str, str], float] = {}
        for fi in case.flows:
            assert fi.reachable == nx.has_path(g, fi.src, fi.dst), (case.element, fi.flow)
            if fi.delivered_mbps is not None:
                assert math.isfinite(fi.delivered_mbps) and fi.delivered_mbps >= 0.0, (case.element, fi.flow)
            if fi.requested_mbps is not None and fi.delivered_mbps is not None:
                assert fi.delivered_mbps <= fi.requested_mbps * (1 + 1e-9), (case.element, fi.flow)
            if not fi.reachable:
                assert not fi.delivered_mbps, (case.element, fi.flow)
                continue
            assert fi.delay_ms == pytest.approx(nx.dijkstra_path_length(g, fi.src, fi.dst, weight="delay"),
                                                rel=1e-9, abs=1e-9), (case.element, fi.flow)
            for a, b in zip(fi.path, fi.path[1:]):
                assert frozenset((a, b)) in pair_capacity, (case.element, fi.flow, a, b)
                if fi.requested_mbps is None:
                    load[a, b] = load.get((a, b), 0.0) + (fi.delivered_mbps or 0.0)
        for (a, b), mbps in load.items():
            # each direction within the capacity of the links joining the two nodes
            assert mbps <= pair_capacity[frozenset((a, b))] * (1 + 1e-9), (case.element, a, b, mbps)
