"""SATCOM from orbits: geometry against closed forms, visibility against skyfield's own
rise/set search, handover policies, bad input, and the plan's time-varying delay in the fluid engine.

References used by the tests, computed here and not by :mod:`subflow.space.satcom`:

* GEO slant range by the law of cosines, d² = r_s² + r_t² − 2·r_s·r_t·cos γ, with the terminal's
  geocentric position from the closed-form WGS84 geodetic → ECEF formulas (x = (N + h) cos φ cos λ,
  z = (N(1 − e²) + h) sin φ, N = a / √(1 − e² sin² φ)); on the equator the ellipsoid's radius is a,
  so the spherical elevation formula is exact there (Maral & Bousquet, §2.2.4).
* LEO rise and set times from skyfield's ``EarthSatellite.find_events`` (its own root search on
  the topocentric altitude), to 1 s.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from subflow.errors import ScenarioInvalid
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import load_scenario
from subflow.space.mobility import node_geo_track
from subflow.space.satcom import satcom_timeline

ROOT = Path(__file__).resolve().parents[3]
TLES = ROOT / "examples" / "tles" / "walker-53-48-6-1.tle"
C_KM_S = 299_792.458
A_KM = 6378.137  # WGS84 equatorial radius
E2 = 6.69437999014e-3  # WGS84 first eccentricity squared
R_GEO_KM = A_KM + 35_786.0
START = "2026-06-01T12:00:00Z"


def _tles() -> list[tuple[str, str, str]]:
    lines = [ln for ln in TLES.read_text().splitlines() if ln.strip()]
    return [(lines[i], lines[i + 1], lines[i + 2]) for i in range(0, len(lines), 3)]


def _scenario(terminals: list[tuple[str, float, float]], sats: list[dict], duration_s: float = 60.0,
              **satcom) -> dict:
    nodes = [{"id": tid, "kind": "host", "position": {"lat_deg": lat, "lon_deg": lon}} for tid, lat, lon in terminals]
    nodes += [{"id": s["id"], "kind": "satellite", "position": {"lat_deg": 0.0, "lon_deg": 0.0, "alt_m": 1e6},
               **{k: v for k, v in s.items() if k != "id"}} for s in sats]
    links = [{"id": f"{t}-{s['id']}", "src": t, "dst": s["id"], "bandwidth_mbps": 5}
             for t, _, _ in terminals for s in sats]
    return {"name": "satcom", "nodes": nodes, "links": links, "run": {"duration_s": duration_s},
            "geo": {"origin_lat_deg": terminals[0][1], "origin_lon_deg": terminals[0][2]},
            "satcom": {"start_utc": START, **satcom}}


def _geo_sat(lon: float) -> dict:
    return {"id": "geo", "ephemeris": {"model": "geostationary", "lon_deg": lon}}


def _ecef_km(lat_deg: float, lon_deg: float, h_km: float = 0.0) -> np.ndarray:
    phi, lam = math.radians(lat_deg), math.radians(lon_deg)
    n = A_KM / math.sqrt(1 - E2 * math.sin(phi) ** 2)
    return np.array([(n + h_km) * math.cos(phi) * math.cos(lam), (n + h_km) * math.cos(phi) * math.sin(lam),
                     (n * (1 - E2) + h_km) * math.sin(phi)])


# ----------------------------------------------------------------------------- GEO against closed forms


def test_geo_delay_at_the_sub_satellite_point_is_35786_km_over_c():
    tl = satcom_timeline(load_scenario(_scenario([("ship", 0.0, 20.0)], [_geo_sat(20.0)])))
    link = tl.links["ship-geo"]
    assert link.delay_at(0.0) == pytest.approx(35_786.0 / C_KM_S * 1000, abs=1e-3)  # 119.369 ms
    assert round(link.delay_at(30.0), 1) == 119.4
    assert link.elevation_deg[0] == pytest.approx(90.0, abs=1e-6)
    assert link.up == [(0.0, 60.0)]


def test_geo_delay_at_10_degrees_elevation_matches_the_law_of_cosines():
    eps = math.radians(10.0)
    # on the equator the WGS84 surface is at radius a and the normal is radial: the sphere formulas are exact
    gamma = math.acos(A_KM * math.cos(eps) / R_GEO_KM) - eps
    d = math.sqrt(R_GEO_KM**2 + A_KM**2 - 2 * R_GEO_KM * A_KM * math.cos(gamma))
    assert d == pytest.approx(40_586.1, abs=0.1)
    tl = satcom_timeline(load_scenario(_scenario([("ship", 0.0, 30.0 + math.degrees(gamma))], [_geo_sat(30.0)])))
    link = tl.links["ship-geo"]
    assert link.elevation_deg[0] == pytest.approx(10.0, abs=1e-6)
    assert link.delay_at(0.0) == pytest.approx(d / C_KM_S * 1000, abs=1e-4)
    assert round(link.delay_at(0.0), 1) == 135.4


def test_geo_delay_from_dover_matches_the_law_of_cosines_on_the_ellipsoid():
    lat, lon, sat_lon = 51.129, 1.34, 5.0
    term = _ecef_km(lat, lon)
    sat = np.array([R_GEO_KM * math.cos(math.radians(sat_lon)), R_GEO_KM * math.sin(math.radians(sat_lon)), 0.0])
    r_t = float(np.linalg.norm(term))
    cos_gamma = float(term @ sat) / (r_t * R_GEO_KM)
    d = math.sqrt(R_GEO_KM**2 + r_t**2 - 2 * R_GEO_KM * r_t * cos_gamma)
    tl = satcom_timeline(load_scenario(_scenario([("shore", lat, lon)], [_geo_sat(sat_lon)])))
    assert tl.links["shore-geo"].delay_at(0.0) == pytest.approx(d / C_KM_S * 1000, abs=1e-4)


def test_a_geo_satellite_below_the_mask_is_never_up():
    # 30 degrees of latitude past the horizon of a satellite at 0 E
    sc = load_scenario(_scenario([("far", 0.0, 100.0)], [_geo_sat(0.0)], elevation_mask_deg=5.0))
    tl = satcom_timeline(sc)
    assert tl.links["far-geo"].up == []
    assert tl.down_intervals(60.0) == [("far-geo", 0.0, 60.0)]


# ----------------------------------------------------------------------------- LEO against skyfield


def test_leo_visibility_windows_match_skyfield_find_events_within_1_s():
    from skyfield.api import EarthSatellite, load, wgs84

    name, l1, l2 = _tles()[0]
    lat, lon, mask, duration = 51.0, 1.5, 10.0, 6 * 3600.0
    doc = _scenario([("gw", lat, lon)], [{"id": "leo", "ephemeris": {"model": "tle", "line1": l1, "line2": l2}}],
                    duration_s=duration, elevation_mask_deg=mask, gateways=["gw"])
    tl = satcom_timeline(load_scenario(doc))
    ours = tl.links["gw-leo"].up
    ts = load.timescale(builtin=True)
    sat = EarthSatellite(l1, l2, name, ts)
    t0 = ts.from_datetime(datetime(2026, 6, 1, 12, tzinfo=timezone.utc))
    t, kinds = sat.find_events(wgs84.latlon(lat, lon), t0, t0 + duration / 86400.0, altitude_degrees=mask)
    secs = (t - t0) * 86400.0
    rises = [float(s) for s, k in zip(secs, kinds) if k == 0]
    sets = [float(s) for s, k in zip(secs, kinds) if k == 2]
    assert len(ours) >= 3, "six hours of a 1200 km LEO give several passes"
    assert len(rises) == len(ours) and len(sets) == len(ours)
    for (a, b), r, s in zip(ours, rises, sets):
        assert abs(a - r) < 1.0 and abs(b - s) < 1.0


def _leo_pair_scenario(policy: str) -> tuple[dict, list[tuple[str, str, str]]]:
    sats = [{"id": f"s{k}", "constellation": "walker", "ephemeris": {"model": "tle", "line1": l1, "line2": l2}}
            for k, (_, l1, l2) in enumerate(_tles())]
    return _scenario([("ship", 51.0, 1.5)], sats, duration_s=1800.0, handover_policy=policy), _tles()


def _skyfield_elevations(tles, lat, lon, times_s):
    from skyfield.api import EarthSatellite, load, wgs84

    ts = load.timescale(builtin=True)
    t0 = ts.from_datetime(datetime(2026, 6, 1, 12, tzinfo=timezone.utc))
    t = t0 + np.asarray(times_s) / 86400.0
    here = wgs84.latlon(lat, lon)
    return {f"s{k}": (EarthSatellite(l1, l2, n, ts) - here).at(t).altaz()[0].degrees
            for k, (n, l1, l2) in enumerate(tles)}


def _skyfield_range_km(l1: str, l2: str, lat: float, lon: float, t_s: float) -> float:
    from skyfield.api import EarthSatellite, load, wgs84

    ts = load.timescale(builtin=True)
    t = ts.from_datetime(datetime(2026, 6, 1, 12, tzinfo=timezone.utc)) + t_s / 86400.0
    return float((EarthSatellite(l1, l2, "x", ts) - wgs84.latlon(lat, lon)).at(t).altaz()[2].km)


def test_highest_elevation_uses_the_highest_visible_satellite():
    doc, tles = _leo_pair_scenario("highest_elevation")
    tl = satcom_timeline(load_scenario(doc))
    uses = tl.uses["ship"]
    assert len(uses) >= 3, "handovers in 30 minutes"
    probe = np.arange(0.5, 1800.0, 7.0)
    elev = _skyfield_elevations(tles, 51.0, 1.5, probe)
    checked = 0
    for k, t in enumerate(probe):
        use = next((u for u in uses if u.t0_s + 1 < t < u.t1_s - 1), None)
        best = max(elev, key=lambda s: elev[s][k])
        if use is None:
            assert elev[best][k] < 10.0 + 0.05 or any(abs(t - u.t0_s) <= 1 or abs(t - u.t1_s) <= 1 for u in uses)
            continue
        assert use.satellite == best
        assert elev[use.satellite][k] >= 10.0
        checked += 1
    assert checked > 100
    for a, b in zip(uses, uses[1:]):
        assert b.t0_s >= a.t1_s - 1e-9  # one satellite at a time


def test_longest_visibility_keeps_a_satellite_until_it_sets():
    doc, tles = _leo_pair_scenario("longest_visibility")
    uses = satcom_timeline(load_scenario(doc)).uses["ship"]
    assert len(uses) >= 2
    times = [u.t1_s for u in uses[:-1]]
    elev = _skyfield_elevations(tles, 51.0, 1.5, times)
    for u, t in zip(uses[:-1], times):
        i = times.index(t)
        assert elev[u.satellite][i] == pytest.approx(10.0, abs=0.02)  # handed over when it set


def test_delay_steps_follow_the_resolution():
    doc, _ = _leo_pair_scenario("highest_elevation")
    tl = satcom_timeline(load_scenario(doc))
    steps = tl.delay_steps(0.1)
    for lid, st in steps.items():
        lk = tl.links[lid]
        for (t, d), (t2, d2) in zip(st, st[1:]):
            if lk.is_up(t) and lk.is_up(t2) and any(a <= t < t2 <= b for a, b in lk.up):
                assert abs(d2 - d) >= 0.1 - 1e-6
                assert abs(lk.delay_at(t) - d) < 1e-3


# ----------------------------------------------------------------------------- bad input


def _leo_doc(**satcom) -> dict:
    _, l1, l2 = _tles()[0]
    return _scenario([("ship", 51.0, 1.5)], [{"id": "leo", "ephemeris": {"model": "tle", "line1": l1, "line2": l2}}],
                     **satcom)


def _locs(exc: ScenarioInvalid) -> list[list]:
    return [e["loc"] for e in exc.errors]


def test_a_bad_tle_checksum_is_refused_naming_the_line():
    doc = _leo_doc()
    eph = doc["nodes"][1]["ephemeris"]
    eph["line2"] = eph["line2"][:68] + str((int(eph["line2"][68]) + 1) % 10)
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert _locs(exc.value) == [["nodes", 1, "satellite", "ephemeris", "tle", "line2"]]
    assert "bad TLE checksum" in exc.value.errors[0]["msg"]


def test_a_tle_epoch_far_from_the_run_is_refused():
    doc = _leo_doc(start_utc="2026-09-01T00:00:00Z")
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert _locs(exc.value) == [["nodes", 1, "ephemeris", "line1"]]
    assert "days from satcom.start_utc" in exc.value.errors[0]["msg"]


@pytest.mark.parametrize("mask", [-1.0, 90.5])
def test_an_elevation_mask_outside_0_90_is_refused(mask):
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(_leo_doc(elevation_mask_deg=mask))
    assert _locs(exc.value) == [["satcom", "elevation_mask_deg"]]


def test_an_ephemeris_needs_satcom_settings_and_a_naive_start_is_refused():
    doc = _leo_doc()
    del doc["satcom"]
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert ["satcom"] in _locs(exc.value)
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(_leo_doc(start_utc="2026-06-01T12:00:00"))
    assert _locs(exc.value) == [["satcom", "start_utc"]]


# ----------------------------------------------------------------------------- the plan and the fluid engine


def test_fluid_honours_a_delay_change_window_limited_rate_follows_the_rtt():
    """A receive-buffer-limited flow carries rbuf·8/RTT (no loss, capacity to spare): it must drop tenfold when
    the plan raises the link's delay tenfold at t = 20 s."""
    from subflow.runplan.document import DelayChange
    from subflow_engines import fluid

    rbuf = 65_536
    doc = {"name": "d", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
           "links": [{"id": "l", "src": "a", "dst": "b", "bandwidth_mbps": 100, "delay_ms": 10,
                      "queue_packets": 1000}],
           "flows": [{"id": "f", "src": "a", "dst": "b"}], "run": {"duration_s": 40},
           "transport": {"rbuf_bytes": rbuf}}
    plan = resolve_plan(doc, "sptcp")
    plan.delay_changes = [DelayChange(t_s=20.0, resource=r, delay_ms=100.0) for r in ("l:a>b", "l:b>a")]
    for kernel in ("scalar", "vector"):
        out = fluid.run(plan, kernel=kernel)
        thr = out.flows[0].throughput_mbps
        before, after = np.mean(thr[10:19]), np.mean(thr[25:39])
        assert before == pytest.approx(rbuf * 8 / 0.020 / 1e6, rel=0.1), kernel
        assert after == pytest.approx(rbuf * 8 / 0.200 / 1e6, rel=0.1), kernel


def test_naval_leo_hands_over_and_its_leo_delay_varies():
    from subflow_engines import fluid

    doc = json.loads((ROOT / "examples" / "naval-leo.json").read_text())
    plan = resolve_plan(doc, "mptcp")
    downs = [e for e in plan.events if e["kind"] == "link_down" and e["node"] == "ship1"]
    ups = {(round(e["t_s"], 6), e["link"]) for e in plan.events if e["kind"] == "link_up" and e["node"] == "ship1"}
    handovers = [d for d in downs if any(abs(t - d["t_s"]) < 1e-6 for t, _ in ups)]
    assert handovers, "ship1 hands its LEO link over at least once"
    out = fluid.run(plan)
    ev = [e.model_dump() for e in out.events]
    track = node_geo_track(load_scenario(doc), "ship1")  # (t_s, lat_deg, lon_deg, alt_m) corners
    sats = {n["id"]: n["ephemeris"] for n in doc["nodes"] if n.get("ephemeris", {}).get("model") == "tle"}
    for h in handovers:
        t = h["t_s"]
        old = h["link"].split("-", 1)[1]
        new = next(link for tt, link in ups if abs(tt - t) < 1e-6).split("-", 1)[1]
        assert any(e["kind"] == "subflow_down" and e["subflow"] == f"f1/{old}" and abs(e["t_s"] - t) < 0.02
                   for e in ev)
        assert any(e["kind"] == "subflow_up" and e["subflow"] == f"f1/{new}" and abs(e["t_s"] - t) < 0.02
                   for e in ev)
        # the new link's delay at the handover is its slant range / c, by skyfield's own topocentric distance
        change = next(c for c in plan.delay_changes if abs(c.t_s - t) < 1e-6 and c.resource.startswith(f"ship1-{new}:"))
        lat = float(np.interp(t, [c[0] for c in track], [c[1] for c in track]))
        lon = float(np.interp(t, [c[0] for c in track], [c[2] for c in track]))
        rho_km = _skyfield_range_km(sats[new]["line1"], sats[new]["line2"], lat, lon, t)
        assert change.delay_ms == pytest.approx(rho_km / C_KM_S * 1000, abs=0.01)
    ship1_leo = [c for c in plan.delay_changes if c.resource.startswith("ship1-leo") and c.resource.endswith(">ship1")]
    assert max(c.delay_ms for c in ship1_leo) - min(c.delay_ms for c in ship1_leo) > 2.0
    geo = [c for c in plan.delay_changes if c.resource.startswith("ship1-geo")]
    res = {r.id: r for r in plan.resources}
    assert 125 < res["ship1-geo:ship1>geosat"].delay_ms < 130  # Dover to 5 E: about 128 ms per leg
    assert len(geo) <= 2 * 2  # a ship moving a few km changes the GEO delay by well under a few 0.1 ms
    f1 = next(f for f in out.flows if f.id == "f1")
    assert {s.id for s in f1.subflows} >= {"f1/geosat", "f1/uav"} | {f"f1/{h['link'].split('-', 1)[1]}"
                                                                      for h in handovers}
