"""Scenario documents of the linux engine tests (written here, checked by hand)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def two_path(duration_s: float = 15.0, with_slow_path: bool = True, delay_ms: float = 5.0) -> dict:
    """Host ``a`` reaches ``b`` over router ``r1`` (10 Mbit/s access link) and router ``r2``
    (3 Mbit/s access link); backbone links are 100 Mbit/s. 4 × ``delay_ms`` base RTT."""
    links = [
        {"id": "a-r1", "src": "a", "dst": "r1", "bandwidth_mbps": 10, "delay_ms": delay_ms},
        {"id": "r1-b", "src": "r1", "dst": "b", "bandwidth_mbps": 100, "delay_ms": delay_ms},
    ]
    nodes = [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}, {"id": "r1", "kind": "router"}]
    if with_slow_path:
        nodes.append({"id": "r2", "kind": "router"})
        links += [
            {"id": "a-r2", "src": "a", "dst": "r2", "bandwidth_mbps": 3, "delay_ms": delay_ms},
            {"id": "r2-b", "src": "r2", "dst": "b", "bandwidth_mbps": 100, "delay_ms": delay_ms},
        ]
    return {
        "name": "two-path" if with_slow_path else "one-path",
        "nodes": nodes,
        "links": links,
        "flows": [{"id": "f", "src": "a", "dst": "b"}],
        "run": {"duration_s": duration_s, "interval_s": 1.0},
    }


#: the station leaves the access point's range at t = 10 s and re-enters at 17.5 s;
#: with a 0.5 s association delay its wireless path is cut during [10, 18): 8 s
CUT_START_S = 10.0
CUT_END_S = 18.0


def path_cut(with_wired_path: bool = True, duration_s: float = 28.0) -> dict:
    """Station ``m`` sends to ``srv`` through access point ``ap`` (its uplink ``ap-srv`` is
    10 Mbit/s) and, if ``with_wired_path``, through router ``r`` (3 Mbit/s access link).
    Waypoints take it out of the AP's 100 m range for [10, 17.5) s."""
    nodes = [
        {"id": "m", "kind": "station", "position": {"x_m": 50, "y_m": 0},
         "mobility": {"model": "waypoints", "points": [
             {"t_s": 0, "x_m": 50, "y_m": 0},
             {"t_s": 9.99, "x_m": 99, "y_m": 0},
             {"t_s": 10.01, "x_m": 101, "y_m": 0},
             {"t_s": 17.49, "x_m": 101, "y_m": 0},
             {"t_s": 17.51, "x_m": 99, "y_m": 0}]}},
        {"id": "ap", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": 100,
         "association_delay_s": 0.5, "wireless_bandwidth_mbps": 54, "wireless_delay_ms": 1},
        {"id": "srv", "kind": "host"},
    ]
    links = [{"id": "ap-srv", "src": "ap", "dst": "srv", "bandwidth_mbps": 10, "delay_ms": 5}]
    if with_wired_path:
        nodes.append({"id": "r", "kind": "router"})
        links += [
            {"id": "m-r", "src": "m", "dst": "r", "bandwidth_mbps": 3, "delay_ms": 5},
            {"id": "r-srv", "src": "r", "dst": "srv", "bandwidth_mbps": 100, "delay_ms": 5},
        ]
    return {
        "name": "path-cut",
        "nodes": nodes,
        "links": links,
        "flows": [{"id": "f", "src": "m", "dst": "srv"}],
        "run": {"duration_s": duration_s, "interval_s": 1.0},
    }


def naval_direct_move(time_scale: float = 1.0) -> dict:
    """``examples/naval-direct-move.json``, optionally time-scaled: speeds × ``time_scale`` and
    duration ÷ ``time_scale`` (the users enter the UAV's range at 60/time_scale s); link
    delays, rates and the 3 s association delay are unchanged."""
    doc = json.loads((EXAMPLES / "naval-direct-move.json").read_text())
    doc = copy.deepcopy(doc)
    if time_scale != 1.0:
        for n in doc["nodes"]:
            mob = n.get("mobility") or {}
            if mob.get("model") == "linear":
                mob["speed_mps"] *= time_scale
        doc["run"]["duration_s"] = doc["run"]["duration_s"] / time_scale
    return doc


def path_cut_moving_ap(duration_s: float = 28.0) -> dict:
    """:func:`path_cut` seen from the other side, on the map: the station ``m`` is static
    and the access point moves (a UAV on waypoints, latitude/longitude), taking the station out of
    its 100 m range for [10, 17.5) s: the same wireless cut [10, 18) with the 0.5 s association delay."""
    from subflow.scenario.geodesy import destination

    lat0, lon0 = 51.03, 1.52

    def east(d_m: float) -> dict:
        lat, lon = destination(lat0, lon0, 90.0, d_m)
        return {"lat_deg": lat, "lon_deg": lon}

    nodes = [
        {"id": "m", "kind": "station", "position": {"lat_deg": lat0, "lon_deg": lon0}},
        {"id": "ap", "kind": "access_point", "position": east(50), "range_m": 100,
         "association_delay_s": 0.5, "wireless_bandwidth_mbps": 54, "wireless_delay_ms": 1,
         "mobility": {"model": "waypoints", "points": [
             {"t_s": 0, **east(50)}, {"t_s": 9.99, **east(99)}, {"t_s": 10.01, **east(101)},
             {"t_s": 17.49, **east(101)}, {"t_s": 17.51, **east(99)}]}},
        {"id": "srv", "kind": "host", "position": east(200)},
    ]
    return {
        "name": "path-cut-moving-ap",
        "geo": {"origin_lat_deg": lat0, "origin_lon_deg": lon0},
        "nodes": nodes,
        "links": [{"id": "ap-srv", "src": "ap", "dst": "srv", "bandwidth_mbps": 10, "delay_ms": 5}],
        "flows": [{"id": "f", "src": "m", "dst": "srv"}],
        "run": {"duration_s": duration_s, "interval_s": 1.0},
    }


#: the shortened rain fade (:func:`rain_fade_short`): 8 mm/h over the ship during [FADE_START_S, FADE_END_S)
FADE_START_S = 12.0
FADE_END_S = 22.0


def rain_fade_short(duration_s: float = 30.0) -> dict:
    """``examples/naval-geo-rain-fade.json`` in ``duration_s``: its rain cell's 8 mm/h peak held over the
    ship during [FADE_START_S, FADE_END_S) (0 mm/h before and after, steps of 0.1 s), the rest unchanged
    (orbits, budgets, the 14 Mbit/s flow)."""
    doc = copy.deepcopy(json.loads((EXAMPLES / "naval-geo-rain-fade.json").read_text()))
    rain = [[0, 0], [FADE_START_S - 0.1, 0], [FADE_START_S, 8], [FADE_END_S - 0.1, 8], [FADE_END_S, 0]]
    for link in doc["links"]:
        if (link.get("budget") or {}).get("rain_rate_mm_h"):
            link["budget"]["rain_rate_mm_h"] = rain
    doc["name"] = "naval-geo-rain-fade-short"
    doc["run"]["duration_s"] = duration_s
    return doc


#: :func:`leo_isl_short` starts this long after the example's t = 0: the route over the ISL opens at ~201.5 s
ISL_SHIFT_S = 205.0


def leo_isl_short(duration_s: float = 25.0) -> dict:
    """``examples/naval-leo-isl.json`` from ISL_SHIFT_S s after its start (``satcom.start_utc`` moved), for
    ``duration_s``: the ship → leo-b → leo-a → shore route over the inter-satellite link is up throughout,
    and the up and down links' slant ranges change the plan's delays every few seconds."""
    from datetime import datetime, timedelta

    doc = copy.deepcopy(json.loads((EXAMPLES / "naval-leo-isl.json").read_text()))
    start = datetime.fromisoformat(doc["satcom"]["start_utc"].replace("Z", "+00:00")) + timedelta(seconds=ISL_SHIFT_S)
    doc["satcom"]["start_utc"] = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["name"] = "naval-leo-isl-short"
    doc["run"]["duration_s"] = duration_s
    return doc


def _shared_beam(ships: tuple[str, ...], uav: bool) -> dict:
    """``examples/naval-geo-shared-beam.json`` reduced to ``ships`` (and the UAV relay when ``uav``), without
    rain and without flows."""
    doc = copy.deepcopy(json.loads((EXAMPLES / "naval-geo-shared-beam.json").read_text()))
    keep = {"shore", "teleport", "kasat", *ships, *(("uav", "gcs") if uav else ())}
    doc["nodes"] = [n for n in doc["nodes"] if n["id"] in keep]
    doc["links"] = [link for link in doc["links"] if link["src"] in keep and link["dst"] in keep]
    for link in doc["links"]:
        (link.get("budget") or {}).pop("rain_attenuation_db", None)
    beam = doc["satcom"]["beams"][0]
    beam["links"] = [lid for lid in beam["links"] if lid.split("-")[0] in ships]
    doc["flows"] = []
    return doc


#: :func:`beam_two_ships`: the second ship's flow starts this late, s
SECOND_START_S = 10.0


def beam_two_ships(duration_s: float = 30.0, return_msps: float = 2.5) -> dict:
    """Two ships of ``examples/naval-geo-shared-beam.json`` in its Ka spot beam, clear sky, sharing a
    ``return_msps`` return carrier in equal airtime: a bulk flow ship1 → shore from 0 s and one ship2 → shore from
    SECOND_START_S (single path over the satellite)."""
    doc = _shared_beam(("ship1", "ship2"), uav=False)
    doc["name"] = "shared-beam-two-ships"
    doc["satcom"]["beams"][0]["return_symbol_rate_msps"] = return_msps
    doc["flows"] = [{"id": "f1", "src": "ship1", "dst": "shore"},
                    {"id": "f2", "src": "ship2", "dst": "shore", "start_s": SECOND_START_S}]
    doc["run"]["duration_s"] = duration_s
    return doc


#: :func:`beam_fade_uav`: the rain fade over ship2, [start, end) s
BEAM_FADE_START_S, BEAM_FADE_END_S = 13.0, 27.0


def beam_fade_uav(duration_s: float = 34.0, return_msps: float = 2.0, fade_db: float = 6.0) -> dict:
    """Ship2 of ``examples/naval-geo-shared-beam.json`` with its UAV relay: a bulk flow ship2 → shore, its
    Ka uplink (the beam's ``return_msps`` return carrier, ship2 alone on it) under ``fade_db`` of rain at
    19.7 GHz during [BEAM_FADE_START_S, BEAM_FADE_END_S) (steps of 0.1 s), clear before and after."""
    doc = _shared_beam(("ship2",), uav=True)
    doc["name"] = "shared-beam-fade-uav"
    doc["satcom"]["beams"][0]["return_symbol_rate_msps"] = return_msps
    ka = next(link for link in doc["links"] if link["id"] == "ship2-ka")
    ka["budget"]["rain_attenuation_db"] = [[0, 0], [BEAM_FADE_START_S - 0.1, 0], [BEAM_FADE_START_S, fade_db],
                                           [BEAM_FADE_END_S - 0.1, fade_db], [BEAM_FADE_END_S, 0]]
    doc["flows"] = [{"id": "f2", "src": "ship2", "dst": "shore"}]
    doc["run"]["duration_s"] = duration_s
    return doc
