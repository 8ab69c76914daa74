"""Association timeline: handover start, association delay, AP-to-AP handover."""

from __future__ import annotations

import pytest

from subflow.radio.association import association_timeline
from subflow.scenario.document import load_scenario


def test_direct_move_associates_after_the_delay(naval_direct):
    tl = association_timeline(load_scenario(naval_direct))
    assert [(a.station, a.access_point) for a in tl.associations] == [("sta1", "uav"), ("sta2", "uav")]
    for a in tl.associations:
        assert a.t_start_s == pytest.approx(60.0)
        assert a.t_associated_s == pytest.approx(63.0)  # association_delay_s = 3
        assert a.t_end_s == pytest.approx(100.0)
    kinds = [(e["kind"], e["node"]) for e in tl.events]
    assert ("handover_start", "sta1") in kinds and ("association", "sta2") in kinds


def _two_ap_doc(speed: float) -> dict:
    return {
        "name": "two-aps",
        "nodes": [
            {"id": "h", "kind": "host"},
            {"id": "ap1", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": 100, "association_delay_s": 1},
            {"id": "ap2", "kind": "access_point", "position": {"x_m": 150, "y_m": 0}, "range_m": 100, "association_delay_s": 1},
            {"id": "s", "kind": "station", "position": {"x_m": 0, "y_m": 0},
             "mobility": {"model": "linear", "start": {"x_m": 0, "y_m": 0}, "end": {"x_m": 400, "y_m": 0}, "speed_mps": speed}},
        ],
        "links": [{"id": "a", "src": "ap1", "dst": "h", "bandwidth_mbps": 10}, {"id": "b", "src": "ap2", "dst": "h", "bandwidth_mbps": 10}],
        "run": {"duration_s": 40},
    }


def test_sticky_strongest_signal_then_ap_to_ap_handover():
    # the station is with ap1 from t=0 (no delay at start), stays while in range although ap2 is nearer
    # from x=75 m, leaves ap1 at x=100 (t=10 s) and associates with ap2 at t=11 s; leaves ap2 at x=250 (t=25 s)
    tl = association_timeline(load_scenario(_two_ap_doc(10)))
    got = [(a.access_point, a.t_start_s, a.t_associated_s, a.t_end_s) for a in tl.associations]
    assert got == [("ap1", 0.0, 0.0, pytest.approx(10.0)), ("ap2", pytest.approx(10.0), pytest.approx(11.0), pytest.approx(25.0))]
    assert [e["kind"] for e in tl.events] == ["association", "disassociation", "handover_start", "association", "disassociation"]


def test_association_abandoned_when_the_station_is_too_fast():
    doc = _two_ap_doc(200)  # crosses ap2's range (50..250 m, from t=0.5 s to 1.25 s) faster than the 1 s delay
    tl = association_timeline(load_scenario(doc))
    assert [a.access_point for a in tl.associations] == ["ap1"]
    assert any(e["kind"] == "association_abandoned" and e["access_point"] == "ap2" for e in tl.events)


def test_least_loaded_first_spreads_stations():
    # two co-located APs; three static stations nearer to ap1: ssf puts all on ap1, llf alternates
    doc = {
        "name": "llf",
        "nodes": [
            {"id": "h", "kind": "host"},
            {"id": "ap1", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": 100},
            {"id": "ap2", "kind": "access_point", "position": {"x_m": 10, "y_m": 0}, "range_m": 100},
        ] + [
            {"id": f"s{i}", "kind": "station", "position": {"x_m": -5 - i, "y_m": 0}} for i in range(3)
        ],
        "run": {"duration_s": 10},
    }
    ssf = association_timeline(load_scenario(doc))
    assert [a.access_point for a in ssf.associations] == ["ap1", "ap1", "ap1"]
    doc["radio"] = {"association_policy": "llf"}
    llf = association_timeline(load_scenario(doc))
    assert sorted(a.access_point for a in llf.associations) == ["ap1", "ap1", "ap2"]
