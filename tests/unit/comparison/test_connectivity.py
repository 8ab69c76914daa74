"""Save-time warnings (subflow.comparison.connectivity): expected spans written by hand from the scenarios below."""

import json
import random
from pathlib import Path

import networkx as nx
from networkx.algorithms.connectivity import local_node_connectivity

from subflow.comparison.connectivity import _usable_links, scenario_warnings
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


def test_access_point_no_station_reaches_warns_with_the_closest_approach():
    # a new access point's default range is 100 m; the station's path ends 113 m from it (x 0 → 387, the AP at
    # x 500): closest approach 500 − 387 = 113 m at the path's end (20 s), so it never associates
    doc = wired()
    doc["nodes"] += [
        {"id": "ap", "kind": "access_point", "position": {"x_m": 500, "y_m": 0}, "range_m": 100},  # the editor's default
        {"id": "sta1", "kind": "station", "position": {"x_m": 0, "y_m": 0}, "mobility": {
            "model": "waypoints", "points": [{"t_s": 0, "x_m": 0, "y_m": 0}, {"t_s": 20, "x_m": 387, "y_m": 0}]}},
    ]
    doc["links"].append({"id": "ap-r1", "src": "ap", "dst": "r1", "bandwidth_mbps": 10})
    ws = scenario_warnings(load_scenario(doc))
    ap = [w for w in ws if w.code == "access_point_unreached"]
    assert [w.loc for w in ap] == [["nodes", 3]]
    assert "sta1, comes to 113 m (at 20 s)" in ap[0].message and "range of 100 m" in ap[0].message
    # 87 m further and it associates: no warning
    doc["nodes"][4]["mobility"]["points"][1]["x_m"] = 420
    assert not [w for w in scenario_warnings(load_scenario(doc)) if w.code == "access_point_unreached"]


def test_links_no_flow_can_use_warn_and_a_parallel_path_does_not():
    # h1 – r1 – h2 carries f1; r1 – r2 – h2 is a second loop-free path (used by a multipath strategy);
    # r2 – spare hangs off it and no flow ends at spare, so only that link is unusable
    doc = wired()
    doc["nodes"] += [{"id": "r2", "kind": "switch", "position": {"x_m": 100, "y_m": 100}},
                     {"id": "spare", "kind": "host", "position": {"x_m": 100, "y_m": 200}}]
    doc["links"] += [{"id": "l3", "src": "r1", "dst": "r2", "bandwidth_mbps": 10},
                     {"id": "l4", "src": "r2", "dst": "h2", "bandwidth_mbps": 10},
                     {"id": "l5", "src": "r2", "dst": "spare", "bandwidth_mbps": 10}]
    ws = scenario_warnings(load_scenario(doc))
    assert [(w.code, w.loc) for w in ws] == [("link_unused", ["links", 4])]
    assert "l5 (r2 – spare)" in ws[0].message
    # a flow to spare makes it used
    doc["flows"].append({"id": "f2", "src": "h1", "dst": "spare"})
    assert scenario_warnings(load_scenario(doc)) == []


def test_satellite_below_the_horizon_for_the_whole_run_warns():
    # a geostationary satellite at 171°W is on the far side of the Earth from the Dover Strait (1.5°E):
    # the central angle is ~ 120°, so its elevation is far below the 10° mask for the whole run
    doc = json.loads((EXAMPLES / "naval-geo-rain-fade.json").read_text())
    kusat = next(i for i, n in enumerate(doc["nodes"]) if n["id"] == "kusat")
    doc["nodes"][kusat]["ephemeris"] = {"model": "geostationary", "lon_deg": -171.0}
    doc["nodes"][kusat]["position"]["lon_deg"] = -171.0
    ws = [w for w in scenario_warnings(load_scenario(doc)) if w.code == "satellite_never_in_view"]
    assert [w.loc for w in ws] == [["nodes", kusat]]
    peak = float(ws[0].message.split("highest elevation ")[1].split("°")[0])
    assert peak < -30.0


def test_unusable_links_agree_with_an_independent_menger_check():
    """Independent validator: link a–b lies on a loop-free path from s to t exactly when, without the link, two
    vertex-disjoint paths join {s, t} to {a, b} (Menger's theorem, networkx node connectivity through a super
    source and sink); checked on random graphs against the block-cut tree of ``_usable_links``."""
    rnd = random.Random(7)
    for k in range(12):
        g = nx.gnm_random_graph(14, 18, seed=k)
        g.remove_nodes_from([n for n in list(g) if g.degree(n) == 0])
        nodes = [f"n{n}" for n in g]
        doc = {"name": f"g{k}", "nodes": [{"id": n, "kind": "router", "position": {"x_m": 10 * i, "y_m": 0}}
                                          for i, n in enumerate(nodes)],
               "links": [{"id": f"l{i}", "src": f"n{a}", "dst": f"n{b}", "bandwidth_mbps": 10}
                         for i, (a, b) in enumerate(g.edges)],
               "flows": [{"id": f"f{i}", "src": s, "dst": t} for i, (s, t) in
                         enumerate(rnd.sample(nodes, 2) for _ in range(3))],
               "run": {"duration_s": 10}}
        usable = _usable_links(load_scenario(doc))
        h = nx.Graph((f"n{a}", f"n{b}") for a, b in g.edges)
        for a, b in h.edges:
            without = h.copy()
            without.remove_edge(a, b)
            want = False
            for f in doc["flows"]:
                s, t = f["src"], f["dst"]
                if {s, t} == {a, b}:
                    want = True
                    break
                aux = without.copy()
                aux.add_edges_from([("S", s), ("S", t), ("T", a), ("T", b)])
                if local_node_connectivity(aux, "S", "T") >= 2:
                    want = True
                    break
            assert (frozenset((a, b)) in usable) == want, (k, a, b)
