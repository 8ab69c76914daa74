"""Save-time warnings (subflow.comparison.connectivity): expected spans written by hand from the scenarios below."""

import json
from pathlib import Path

from subflow.comparison.connectivity import scenario_warnings
from subflow.scenario.document import load_scenario

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def wired(**extra):
    doc = {
        "name": "checks",
        "nodes": [
            {"id": "h1", "kind": "host", "position": {"x_m": 0, "y_m": 0}},
            {"id": "r1", "kind": "router", "position": {"x_m": 50, "y_m": 0}},
            {"id": "h2", "kind": "host", "position": {"x_m": 100, "y_m": 0}},
        ],
        "links": [{"id": "l1", "src": "h1", "dst": "r1", "bandwidth_mbps": 10}, {"id": "l2", "src": "r1", "dst": "h2", "bandwidth_mbps": 10}],
        "flows": [{"id": "f1", "src": "h1", "dst": "h2"}],
        "run": {"duration_s": 100},
    }
    doc.update(extra)
    return doc


def test_connected_scenario_has_no_warning():
    assert scenario_warnings(load_scenario(wired())) == []


def test_link_down_for_a_while_warns_with_the_span():
    doc = wired(link_events=[{"t_s": 30, "link": "l2", "state": "down"}, {"t_s": 50, "link": "l2", "state": "up"}])
    (w,) = scenario_warnings(load_scenario(doc))
    assert (w.code, w.loc, w.t_start_s, w.t_end_s) == ("flow_unreachable", ["flows", 0], 30.0, 50.0)
    assert "from 30 s to 50 s" in w.message and "f1" in w.message


def test_unconnected_flow_warns_for_the_whole_run_and_the_others_still_checked():
    doc = wired()
    doc["nodes"].append({"id": "lonely", "kind": "host", "position": {"x_m": 0, "y_m": 500}})
    doc["flows"] = [{"id": "fx", "src": "lonely", "dst": "h2"}, {"id": "f1", "src": "h1", "dst": "h2", "start_s": 10}]
    doc["link_events"] = [{"t_s": 80, "link": "l1", "state": "down"}]
    ws = scenario_warnings(load_scenario(doc))
    assert [(w.loc, w.t_start_s, w.t_end_s) for w in ws] == [(["flows", 0], 0.0, 100.0), (["flows", 1], 80.0, 100.0)]
    assert "at any time of the run" in ws[0].message


def test_waypoint_path_longer_than_the_run():
    doc = wired()
    doc["nodes"].append({"id": "sta1", "kind": "station", "position": {"x_m": 0, "y_m": 0}, "mobility": {
        "model": "waypoints", "points": [{"t_s": 0, "x_m": 0, "y_m": 0}, {"t_s": 169, "x_m": 1690, "y_m": 0}]}})
    (w,) = scenario_warnings(load_scenario(doc))
    assert (w.code, w.loc, w.t_start_s, w.t_end_s) == ("path_beyond_run", ["nodes", 3, "mobility"], 100.0, 169.0)
    assert "169 s" in w.message and "69 s" in w.message


def test_handover_association_delay_is_not_a_warning():
    # naval-direct-move: the stations re-associate at 60 s (3 s association delay): a handover, not a planning error
    assert scenario_warnings(load_scenario(json.loads((EXAMPLES / "naval-direct-move.json").read_text()))) == []
