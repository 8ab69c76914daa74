"""The planners read the network the run reads (:class:`subflow.runplan.topology.NetworkTimeline`).

The routes panel (``POST /api/scenarios/{id}/routes``, :func:`subflow.analysis.planning.routes_document`) must show,
at every time, the route a single-path run takes then. Checked on every example we ship, at a grid of times over
the run, against the run plan's segments (what the engine executes; its ``route_change`` events come from them),
for the three single-path metrics. While a flow's end point is in the middle of a handover the run has no route
(the old one is abandoned at handover start) and the panel still answers the network's route: the test checks
that this happens only then.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from subflow.analysis.planning import AllocationRequest, RoutesRequest, allocation_document, routes_document
from subflow.runplan.resolve import resolve_plan
from subflow.runplan.topology import NetworkTimeline

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
SINGLE_PATH = [("sptcp", "hop"), ("sptcp-delay", "delay"), ("sptcp-tcpbp", "tcpbp")]


def _run_path(flow, t: float, duration: float) -> list[str] | None:
    """The nodes of the flow's subflow at ``t`` in the plan ([] while it has none, None outside its segments)."""
    for seg in flow.segments:
        if seg.t_start_s <= t < seg.t_end_s or (t == duration and seg.t_end_s == duration):
            return seg.subflows[0].nodes if seg.subflows else []
    return None


def _panel_path(windows: list[dict], src: str, dst: str, t: float) -> list[str] | None:
    window = next((w for w in windows if w["t_start_s"] <= t < w["t_end_s"]), windows[-1])
    route = next(r for r in window["routes"] if (r["src"], r["dst"]) == (src, dst))
    return route["paths"][0]["nodes"] if route["reachable"] else None


@pytest.mark.parametrize(("strategy", "metric"), SINGLE_PATH)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_routes_panel_shows_the_route_the_run_takes(example, strategy, metric):
    doc = json.loads(example.read_text())
    plan = resolve_plan(doc, strategy)
    network = NetworkTimeline(doc)
    duration = plan.duration_s
    pairs = sorted({(f.src, f.dst) for f in plan.flows})
    answer = routes_document(doc, RoutesRequest(metric=metric, pairs=pairs))
    assert answer["t_s"] is None and answer["duration_s"] == duration
    assert answer["windows"][0]["t_start_s"] == 0.0 and answer["windows"][-1]["t_end_s"] == duration
    compared = handovers = 0
    for t in np.linspace(0.0, duration, 41).tolist():
        for flow in plan.flows:
            run = _run_path(flow, t, duration)
            if run is None:  # the flow is not live then
                continue
            panel = _panel_path(answer["windows"], flow.src, flow.dst, t)
            if run == [] and panel is None:  # no route in the network: neither has one
                compared += 1
                continue
            if run == []:
                window = network.window_at(t)
                pending = {station for station, _ in network.interval(0.5 * sum(window)).pending}
                assert pending & {flow.src, flow.dst}, f"{flow.id} at {t:g} s: no route in the run, {panel} on the panel"
                handovers += 1
                continue
            assert panel == run, f"{example.stem} {flow.id} at {t:g} s: panel {panel}, run {run}"
            compared += 1
    assert compared > handovers


def test_one_time_answers_the_window_holding_it():
    """Asked for one time, the routes are those of the whole-run answer's window holding it, and say the time."""
    doc = json.loads((ROOT / "examples" / "naval-leo.json").read_text())
    whole = routes_document(doc, RoutesRequest(metric="delay", k=3, pairs=[("ship1", "shore")]))
    assert len(whole["windows"]) > 3  # LEO passes and the UAV's range change the routes over the run
    for window in whole["windows"]:
        mid = 0.5 * (window["t_start_s"] + window["t_end_s"])
        one = routes_document(doc, RoutesRequest(metric="delay", k=3, pairs=[("ship1", "shore")], t_s=mid))
        assert one["t_s"] == mid and len(one["windows"]) == 1
        assert [p["nodes"] for p in one["routes"][0]["paths"]] == [p["nodes"] for p in window["routes"][0]["paths"]]
    end = routes_document(doc, RoutesRequest(metric="delay", pairs=[("ship1", "shore")], t_s=900.0))
    assert end["windows"][0]["t_end_s"] == 900.0  # the run's end is part of its last window


def test_satcom_delays_come_from_the_orbits():
    """On naval-leo the GEO path's one-way delay is the slant ranges over c (about 258 ms ship → shore), a LEO
    path's tens of ms, and a LEO satellite is offered only while it is the one in use."""
    doc = json.loads((ROOT / "examples" / "naval-leo.json").read_text())
    whole = routes_document(doc, RoutesRequest(metric="delay", k=3, pairs=[("ship1", "shore")]))
    leo_in_use = set()
    for window in whole["windows"]:
        paths = window["routes"][0]["paths"]
        geo = [p for p in paths if "geosat" in p["nodes"]]
        assert len(geo) == 1 and 240.0 < geo[0]["delay_ms"] < 280.0
        leo = [p for p in paths if any(n.startswith("leo-") for n in p["nodes"])]
        assert len(leo) <= 1 and all(5.0 < p["delay_ms"] < 40.0 for p in leo)
        leo_in_use |= {n for p in leo for n in p["nodes"] if n.startswith("leo-")}
    assert len(leo_in_use) >= 2  # handovers between LEO satellites over the run


def test_wifi_hops_are_routes_and_a_time_after_the_run_is_refused():
    """On uav-backhaul-planning sta1 is 100 m from a UAV with 300 m range: its routes to the ship include the UAV."""
    from subflow.errors import ScenarioInvalid

    doc = json.loads((ROOT / "examples" / "uav-backhaul-planning.json").read_text())
    answer = routes_document(doc, RoutesRequest(metric="hop", k=3, pairs=[("sta1", "ship")], t_s=10.0))
    assert ["sta1", "uav", "ship"] in [p["nodes"] for p in answer["routes"][0]["paths"]]
    with pytest.raises(ScenarioInvalid) as err:
        routes_document(doc, RoutesRequest(metric="hop", pairs=[("sta1", "ship")], t_s=1e6))
    assert err.value.errors[0]["loc"] == ["t_s"]


def test_the_allocation_says_its_time_and_counts_propagation():
    """The allocation states the time it is for and, by default, adds propagation: on naval-leo the mean delay
    is at least the delay of the fastest path any rated flow can take (a SATCOM or UAV hop), not a fraction of a ms."""
    doc = json.loads((ROOT / "examples" / "naval-leo.json").read_text())
    doc["flows"] = [dict(f, rate_mbps=1.0) for f in doc["flows"]]
    alloc = allocation_document(doc, AllocationRequest(t_s=100.0))
    assert alloc["t_s"] == 100.0 and alloc["include_propagation"] is True and len(alloc["windows"]) == 1
    routes = routes_document(doc, RoutesRequest(metric="delay", pairs=[(f["src"], f["dst"]) for f in doc["flows"]],
                                                t_s=100.0))
    fastest_s = min(r["paths"][0]["delay_ms"] for r in routes["routes"] if r["reachable"]) / 1000.0
    assert alloc["mean_delay_s"] >= fastest_s
    without = allocation_document(doc, AllocationRequest(t_s=100.0, include_propagation=False))
    assert without["include_propagation"] is False and without["mean_delay_s"] < alloc["mean_delay_s"]


def test_voice_and_video_flows_are_allocated_at_their_rates_on_the_wire():
    """A voice flow offers its codec's IP rate (G.711 every 20 ms: 200 bytes per 20 ms = 0.08 Mbit/s), a video
    flow its encoder's bit rate, a udp flow its rate_mbps: the allocation's offered traffic γ is their sum."""
    doc = {
        "name": "voice", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
        "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10, "delay_ms": 5}],
        "run": {"duration_s": 10},
        "flows": [{"id": "call", "src": "a", "dst": "b", "kind": "voice", "dscp": "EF"},
                  {"id": "cam", "src": "a", "dst": "b", "kind": "video", "video": {"bitrate_mbps": 2.0}},
                  {"id": "u", "src": "b", "dst": "a", "kind": "udp", "rate_mbps": 0.5},
                  {"id": "bulk", "src": "a", "dst": "b"}],
    }
    alloc = allocation_document(doc, AllocationRequest(t_s=1.0))
    assert alloc["gamma"] == pytest.approx(0.08 + 2.0 + 0.5)
