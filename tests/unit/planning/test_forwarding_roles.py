"""Forwarding roles: only switches, routers, access points, satellites and nodes marked
``relay`` carry transit traffic, for every strategy; ``mptcp-fdm`` with the SATCOM out.

The rule is checked by an independent validator over the resolved plans: no subflow path has a host or a
station without ``relay`` strictly inside it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from subflow.errors import Unreachable
from subflow.planning.network import Network
from subflow.planning.shortest_paths import k_shortest_paths
from subflow.runplan.resolve import resolve_plan
from subflow.runplan.strategies import STRATEGIES

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def transits(doc: dict, plan) -> list[tuple[str, str, list[str]]]:
    """(flow, node, path) for every path passing through a host or station not marked relay."""
    end_points = {n["id"] for n in doc["nodes"] if n["kind"] in ("host", "station") and not n.get("relay")}
    bad = []
    for f in plan.flows:
        for seg in f.segments:
            for sp in seg.subflows:
                bad += [(f.id, v, sp.nodes) for v in sp.nodes[1:-1] if v in end_points]
    return bad


def browser_built() -> dict:
    """The scenario built in the browser where a flow went sta2 -> sat1 -> sta1 -> ap1 -> h1."""
    return {
        "name": "through-a-user", "nodes": [
            {"id": "h1", "kind": "host", "position": {"x_m": 0, "y_m": 0}},
            {"id": "ap1", "kind": "access_point", "position": {"x_m": 100, "y_m": 0}, "range_m": 200},
            {"id": "sat1", "kind": "satellite", "position": {"x_m": 1000, "y_m": 1000}},
            {"id": "sta1", "kind": "station", "position": {"x_m": 150, "y_m": 0}},
            {"id": "sta2", "kind": "station", "position": {"x_m": 3000, "y_m": 0}},
        ],
        "links": [
            {"id": "l1", "src": "ap1", "dst": "h1", "bandwidth_mbps": 10},
            {"id": "s1", "src": "sta1", "dst": "sat1", "bandwidth_mbps": 5, "delay_ms": 250},
            {"id": "s2", "src": "sta2", "dst": "sat1", "bandwidth_mbps": 5, "delay_ms": 250},
        ],
        "flows": [{"id": "f1", "src": "sta2", "dst": "h1"}],
        "run": {"duration_s": 10},
    }


def test_a_route_no_longer_runs_through_another_users_station():
    with pytest.raises(Unreachable):
        resolve_plan(browser_built(), "sptcp")
    doc = browser_built()
    doc["nodes"][3]["relay"] = True
    plan = resolve_plan(doc, "sptcp")
    assert plan.flows[0].segments[0].subflows[0].nodes == ["sta2", "sat1", "sta1", "ap1", "h1"]


def naval_satcom_out() -> dict:
    doc = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    doc["link_events"] = [{"t_s": 0, "link": "sta1-satcom", "state": "down"}]
    return doc


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_no_strategy_routes_through_an_end_point(strategy):
    doc = naval_satcom_out()
    plan = resolve_plan(doc, strategy)
    assert transits(doc, plan) == []
    # before sta1 reaches the UAV it has no path at all (the only other one ran through sta2)
    f1 = next(f for f in plan.flows if f.id == "f1")
    assert all(not s.subflows for s in f1.segments if s.t_end_s <= 60.0)
    assert any(s.subflows for s in f1.segments)


def test_the_relay_chain_example_obeys_the_rule_for_every_strategy():
    doc = json.loads((EXAMPLES / "uav-relay-chain.json").read_text())
    for strategy in sorted(STRATEGIES):
        plan = resolve_plan(doc, strategy)
        assert transits(doc, plan) == [], strategy
        assert any("sta1" in sp.nodes[1:-1] for f in plan.flows for s in f.segments for sp in s.subflows), strategy


def test_mptcp_fdm_with_the_satcom_out_and_a_relay_in_the_cell():
    """The ValueError ('visits a node twice') came from sta1 -> uav -> sta2 -> satcom: the path crosses
    the UAV's air twice. Without relays the path is gone; with sta2 a relay, the controller allocates it."""
    doc = naval_satcom_out()
    plan = resolve_plan(doc, "mptcp-fdm")
    assert [e for e in plan.events if e["kind"] == "allocation_change"]
    doc["nodes"][4]["relay"] = True
    plan = resolve_plan(doc, "mptcp-fdm")
    f1 = next(f for f in plan.flows if f.id == "f1")
    late = next(s for s in f1.segments if s.t_start_s >= 62.0)
    paths = {tuple(sp.nodes): sp.rate_limit_mbps for sp in late.subflows}
    assert ("sta1", "uav", "sta2", "satcom", "ship") in paths
    assert all(r is not None and r >= 0 for r in paths.values())
    # the two subflows of f1 together carry its 3 Mbit/s demand
    assert sum(paths.values()) == pytest.approx(3.0, rel=1e-3)


def test_the_route_search_honours_the_end_points_of_a_network():
    arcs = [("a", "s", "x", 1.0, 0.0, 10.0), ("b", "x", "t", 1.0, 0.0, 10.0),
            ("c", "s", "y", 1.0, 0.0, 10.0), ("d", "y", "z", 1.0, 0.0, 10.0), ("e", "z", "t", 1.0, 0.0, 10.0)]
    free = Network.from_arcs(["s", "x", "y", "z", "t"], arcs)
    assert k_shortest_paths(free, "s", "t", 2, "hop")[0].nodes == ("s", "x", "t")
    roles = Network.from_arcs(["s", "x", "y", "z", "t"], arcs, no_transit={"x", "s", "t"})
    paths = k_shortest_paths(roles, "s", "t", 2, "hop")
    assert [p.nodes for p in paths] == [("s", "y", "z", "t")]
    assert [roles.link[a] for a in paths[0].arcs] == ["c", "d", "e"]  # arc indices of the given network
    assert k_shortest_paths(roles, "s", "x", 1, "hop")[0].nodes == ("s", "x")  # an end point as destination


@pytest.mark.parametrize("metric", ["hop", "delay", "loss", "tcpbp", "tcpbp-greedy"])
def test_planning_routes_obey_the_roles_for_every_metric(metric):
    from subflow.analysis.planning import RoutesRequest, routes_document

    doc = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    routes = {(r["src"], r["dst"]): r for r in routes_document(doc, RoutesRequest(metric=metric))["routes"]}
    # the wired graph reaches the UAV only through the ship's host: not a route unless the host relays
    assert not routes[("sta1", "uav")]["reachable"]
    assert routes[("sta1", "sta2")]["paths"][0]["nodes"] == ["sta1", "satcom", "sta2"]
    end_points = {"ship", "sta1", "sta2"}
    for r in routes.values():
        for p in r["paths"]:
            assert not end_points & set(p["nodes"][1:-1]), p
    doc["nodes"][0]["relay"] = True
    routes = {(r["src"], r["dst"]): r for r in routes_document(doc, RoutesRequest(metric=metric))["routes"]}
    assert routes[("sta1", "uav")]["paths"][0]["nodes"] == ["sta1", "satcom", "ship", "uav"]
