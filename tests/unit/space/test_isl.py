"""Inter-satellite links: range and delay against sgp4's own positions, Earth blockage against
hand-computed geometry, visibility over time, refusals naming the field, and examples/naval-leo-isl.json
on the fluid engine and in the planners.

References computed here, not by :mod:`subflow.space.satcom`:

* range: the distance between the two satellites' TEME positions from the ``sgp4`` package directly
  (``Satrec.sgp4``); a distance is the same in any frame rotated from it, so no Earth orientation (and
  no skyfield) is involved; delay = range / c with c = 299,792.458 km/s written out;
* blockage: a chord between two points at radius r and angle 2θ apart passes r·cos θ from the centre
  (elementary geometry); in the equatorial plane the grazing surface is the circle of radius a + h, over
  the pole the point b + h (WGS84 a = 6378.137 km, b = 6356.752 km); the distance of the line through
  r1, r2 from the centre, |r1 × r2| / |r2 − r1|.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sgp4.api import WGS72, Satrec, jday
from sgp4.exporter import export_tle

from subflow.analysis.planning import AllocationRequest, RoutesRequest, allocation_document, routes_document
from subflow.comparison.compare import compare
from subflow.errors import FieldNotHonoured, ScenarioInvalid
from subflow.runplan.capabilities import Honours, Refuses, check_fields
from subflow.runplan.resolve import resolve_plan
from subflow.runplan.topology import NetworkTimeline
from subflow.scenario.document import load_scenario
from subflow.space.satcom import isl_states, isl_timeline, line_of_sight_clearance_km, satcom_timeline
from subflow_engines import fluid, linux, mininet_wifi, run_plan

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "naval-leo-isl.json"
C_KM_S = 299_792.458
A_KM = 6378.137
B_KM = 6356.752314245
H_KM = 80.0
START = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
MU = 398_600.8  # WGS72, as TLEs


def _example() -> dict:
    return json.loads(EXAMPLE.read_text())


def _tle(number: int, altitude_km: float, mean_anomaly_deg: float, inclination_deg: float = 0.0,
         raan_deg: float = 0.0) -> tuple[str, str]:
    a = 6378.135 + altitude_km
    sat = Satrec()
    epoch_days = (START - datetime(1949, 12, 31, tzinfo=timezone.utc)).total_seconds() / 86400.0
    sat.sgp4init(WGS72, "i", number, epoch_days, 0.0, 0.0, 0.0, 0.0, 0.0, math.radians(inclination_deg),
                 math.radians(mean_anomaly_deg) % (2 * math.pi), math.sqrt(MU / a**3) * 60.0, math.radians(raan_deg))
    return export_tle(sat)


def _isl_scenario(sats: dict[str, tuple[str, str]], duration_s: float = 60.0, **satcom) -> dict:
    nodes = [{"id": "host", "kind": "host", "position": {"lat_deg": 0.0, "lon_deg": 0.0}}]
    nodes += [{"id": sid, "kind": "satellite", "position": {"lat_deg": 0.0, "lon_deg": 0.0, "alt_m": 1e6},
               "ephemeris": {"model": "tle", "line1": l1, "line2": l2}} for sid, (l1, l2) in sats.items()]
    ids = list(sats)
    links = [{"id": "isl", "src": ids[0], "dst": ids[1], "bandwidth_mbps": 50}]
    return {"name": "isl", "nodes": nodes, "links": links, "run": {"duration_s": duration_s},
            "geo": {"origin_lat_deg": 0.0, "origin_lon_deg": 0.0},
            "satcom": {"start_utc": START.isoformat(), **satcom}}


#: equatorial orbits at 550 and 2000 km, 30° apart at the start, the lower one leading
_DRIFTING = {"low": _tle(91001, 550.0, 30.0), "high": _tle(91002, 2000.0, 0.0)}


def _teme_km(line1: str, line2: str, t_s: np.ndarray) -> np.ndarray:
    sat = Satrec.twoline2rv(line1, line2)
    jd, fr = jday(START.year, START.month, START.day, START.hour, START.minute, 0.0)
    e, r, _ = sat.sgp4_array(np.full(len(t_s), jd), fr + np.asarray(t_s) / 86400.0)
    assert not e.any()
    return r.T


# ----------------------------------------------------------------------------- range and delay


def test_range_and_delay_match_the_distance_of_sgp4_positions_over_c():
    doc = _example()
    isl = isl_timeline(load_scenario(doc))["isl-ab"]
    eph = {n["id"]: n["ephemeris"] for n in doc["nodes"] if "ephemeris" in n}
    ra = _teme_km(eph["leo-a"]["line1"], eph["leo-a"]["line2"], isl.t_s)
    rb = _teme_km(eph["leo-b"]["line1"], eph["leo-b"]["line2"], isl.t_s)
    rng = np.linalg.norm(rb - ra, axis=0)
    assert len(isl.t_s) == 901
    np.testing.assert_allclose(isl.range_km, rng, atol=1e-3)  # 1 m
    np.testing.assert_allclose(isl.delay_ms, rng / C_KM_S * 1000.0, atol=1e-5)
    # 35° apart on one circular orbit at 550 km: the chord 2 r sin 17.5° (SGP4's short-period terms: a few km)
    r = 6378.135 + 550.0
    assert isl.range_km.mean() == pytest.approx(2 * r * math.sin(math.radians(17.5)), rel=5e-3)
    assert isl.delay_at(450.0) == pytest.approx(13.9, abs=0.05)


# ----------------------------------------------------------------------------- Earth blockage by hand


def test_two_satellites_on_opposite_sides_of_the_earth_are_blocked():
    for h in (550.0, 1200.0, 35_786.0):
        r = A_KM + h
        clear = line_of_sight_clearance_km(np.array([r, 0.0, 0.0]), np.array([-r, 0.0, 0.0]))
        assert clear[0] == pytest.approx(-(A_KM + H_KM))  # the chord passes through the centre
        polar = line_of_sight_clearance_km(np.array([0.0, 0.0, r]), np.array([0.0, 0.0, -r]))
        assert polar[0] < 0


@pytest.mark.parametrize("margin_km", [1.0, -1.0, 0.01, -0.01])
def test_an_equatorial_chord_clears_the_earth_plus_80_km_by_r_cos_theta(margin_km):
    """Two points at radius r, 2θ apart in the equatorial plane: the chord's nearest point is r cos θ from
    the centre; the line of sight clears when r cos θ ≥ a + 80 km."""
    r = A_KM + 550.0
    theta = math.acos((A_KM + H_KM + margin_km) / r)  # θ ≈ 21.2°: r cos θ = a + 80 km + margin
    for lon in (0.0, 1.0, 2.5):  # anywhere around the equator
        p = r * np.array([math.cos(lon + theta), math.sin(lon + theta), 0.0])
        q = r * np.array([math.cos(lon - theta), math.sin(lon - theta), 0.0])
        clear = line_of_sight_clearance_km(p, q, H_KM)[0]
        assert clear == pytest.approx(margin_km, abs=1e-6)
        assert (clear >= 0) == (margin_km > 0)


@pytest.mark.parametrize("margin_km", [1.0, -1.0])
def test_a_chord_over_the_pole_clears_the_polar_radius_plus_80_km(margin_km):
    """The same chord with its middle over the North Pole: there the grazing surface is b + 80 km."""
    r = A_KM + 550.0
    theta = math.acos((B_KM + H_KM + margin_km) / r)
    p = np.array([r * math.sin(theta), 0.0, r * math.cos(theta)])
    q = np.array([-r * math.sin(theta), 0.0, r * math.cos(theta)])
    clear = line_of_sight_clearance_km(p, q, H_KM)[0]
    assert (clear >= 0) == (margin_km > 0)
    assert abs(clear) == pytest.approx(1.0, rel=0.01)  # (a + h)/(b + h) scaling: 1 km is 1.003 km


_vec = st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)).filter(lambda v: sum(x * x for x in v) > 1e-3)


@settings(max_examples=200, deadline=None)
@given(u=_vec, v=_vec, r1=st.floats(6400.0, 50_000.0), r2=st.floats(6400.0, 50_000.0), h=st.floats(0.0, 500.0))
@example(u=(0.0, 1.0, 0.0), v=(0.0, -1.0, 0.0), r1=6400.0, r2=8421.0, h=0.0)  # a chord through the centre
def test_the_clearance_is_the_minimum_over_the_segment_sampled_densely(u, v, r1, r2, h):
    """Against brute force: 20,001 points along the segment, the polar components scaled by (a + h)/(b + h)."""
    p = r1 * np.array(u) / np.linalg.norm(u)
    q = r2 * np.array(v) / np.linalg.norm(v)
    clear = line_of_sight_clearance_km(p, q, h)[0]
    # float cancellation grows with the magnitude: a chord through the centre (-6,378 km) carries ~0.1 m
    tol = 1e-6 + 1e-7 * abs(clear)
    assert clear == pytest.approx(line_of_sight_clearance_km(q, p, h)[0], abs=tol)  # symmetric
    pts = p[:, None] + np.linspace(0.0, 1.0, 20_001)[None, :] * (q - p)[:, None]
    pts[2] *= (A_KM + h) / (B_KM + h)
    brute = float(np.linalg.norm(pts, axis=0).min()) - (A_KM + h)
    half_step = 1.01 * np.linalg.norm(q - p) / 40_000  # the distance moves at most this much between samples
    assert brute - half_step - tol <= clear <= brute + tol


def test_the_nearest_point_is_an_end_when_the_chord_points_away_from_the_earth():
    r1, r2 = A_KM + 500.0, A_KM + 36_000.0
    clear = line_of_sight_clearance_km(np.array([r1, 0.0, 0.0]), np.array([r2, 10.0, 0.0]), 0.0)[0]
    assert clear == pytest.approx(500.0)
    # an end below the grazing altitude blocks, wherever the other is
    low = line_of_sight_clearance_km(np.array([A_KM + 50.0, 0.0, 0.0]), np.array([r2, 0.0, 0.0]), H_KM)[0]
    assert low == pytest.approx(-30.0)


def test_a_grazing_altitude_and_a_maximum_range_take_the_link_down_as_the_satellites_drift_apart():
    """Equatorial orbits at 550 and 2000 km drift apart (0.0156°/s, from 30°): the link sets when the segment
    between them comes within a + 80 km of the centre (the line's distance |r1 × r2| / |r2 − r1| where its
    foot falls between them, else the nearer satellite; from sgp4's positions), near 61° apart."""
    doc = _isl_scenario(_DRIFTING, duration_s=3000.0)
    sc = load_scenario(doc)
    isl = isl_timeline(sc)["isl"]
    eph = {n["id"]: n["ephemeris"] for n in doc["nodes"] if "ephemeris" in n}
    ra = _teme_km(eph["low"]["line1"], eph["low"]["line2"], isl.t_s)
    rb = _teme_km(eph["high"]["line1"], eph["high"]["line2"], isl.t_s)
    line = np.linalg.norm(np.cross(ra.T, rb.T), axis=1) / np.linalg.norm(rb - ra, axis=0)
    foot = -np.sum(ra * (rb - ra), axis=0) / np.sum((rb - ra) ** 2, axis=0)
    inside = (foot > 0) & (foot < 1)
    assert inside[-1] and not inside[0]  # the nearest point is the low satellite at first, then between them
    d = np.where(inside, line, np.minimum(np.linalg.norm(ra, axis=0), np.linalg.norm(rb, axis=0)))
    visible = d >= A_KM + H_KM
    assert visible[0] and not visible[-1]
    t_set = isl.t_s[np.flatnonzero(~visible)[0]]
    assert len(isl.up) == 1 and isl.up[0][0] == 0.0
    assert isl.up[0][1] == pytest.approx(t_set, abs=1.0)
    np.testing.assert_array_equal(isl.visible, visible)
    # the plan: the link goes down there, with a link_down event, and its delay follows the range
    plan = resolve_plan(doc, "sptcp")
    links = [(e["kind"], e["link"], e["node"]) for e in plan.events if e["kind"].startswith("link")]
    assert links == [("link_down", "isl", "low")]
    assert [e["t_s"] for e in plan.events if e["kind"] == "link_down"] == [pytest.approx(isl.up[0][1])]
    changes = [c for c in plan.delay_changes if c.resource == "isl:low>high"]
    assert len(changes) > 10 and all(c.t_s < isl.up[0][1] for c in changes)
    assert changes[-1].delay_ms == pytest.approx(isl.delay_at(changes[-1].t_s), abs=1e-3)
    # a higher grazing altitude sets it earlier; a maximum range sets it when the range passes it
    higher = isl_timeline(load_scenario({**doc, "satcom": {**doc["satcom"], "isl_grazing_altitude_km": 300}}))
    assert higher["isl"].up[0][1] < isl.up[0][1] - 60
    limit = float(np.interp(1000.0, isl.t_s, isl.range_km))
    ranged = isl_timeline(load_scenario({**doc, "satcom": {**doc["satcom"], "isl_max_range_km": limit}}))["isl"]
    assert ranged.up == [(0.0, pytest.approx(1000.0, abs=0.5))]
    states = isl_states(sc)
    assert [(s.visible, s.t_start_s) for s in states] == [(True, 0.0), (False, pytest.approx(isl.up[0][1]))]
    assert states[-1].t_end_s == 3000.0 and states[0].delay_ms[0][1] == pytest.approx(isl.delay_at(0), abs=1e-3)


# ----------------------------------------------------------------------------- input and engines


@pytest.mark.parametrize(("field", "value"), [("isl_grazing_altitude_km", -1), ("isl_grazing_altitude_km", 5000),
                                              ("isl_max_range_km", 0), ("isl_max_range_km", -10)])
def test_bad_isl_settings_are_refused_naming_the_field(field, value):
    doc = _example()
    doc["satcom"][field] = value
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert any(list(e["loc"])[:2] == ["satcom", field] for e in exc.value.errors), exc.value.errors


def test_a_link_budget_on_an_isl_is_refused_naming_the_link():
    doc = _example()
    k = next(i for i, lk in enumerate(doc["links"]) if lk["id"] == "isl-ab")
    doc["links"][k]["budget"] = {"terminal_eirp_dbw": 50, "terminal_g_t_dbk": 10, "uplink_ghz": 30,
                                 "downlink_ghz": 20, "symbol_rate_msps": 5}
    with pytest.raises(ScenarioInvalid) as exc:
        load_scenario(doc)
    assert ["links", k, "budget"] in [list(e["loc"]) for e in exc.value.errors]


def test_the_engines_declare_the_isl_fields():
    for name in ("SatcomSettings.isl_grazing_altitude_km", "SatcomSettings.isl_max_range_km"):
        assert isinstance(fluid.FIELDS[name], Honours)
        assert isinstance(linux.FIELDS[name], Honours)
        assert isinstance(mininet_wifi.FIELDS[name], Refuses)


def test_mininet_wifi_refuses_an_isl_naming_the_field():
    doc = _example()
    with pytest.raises(FieldNotHonoured) as exc:
        check_fields(doc, mininet_wifi.FIELDS, "mininet-wifi")
    assert exc.value.loc[-1] == "ephemeris"  # the orbits first: its links have fixed delays
    doc["satcom"]["isl_max_range_km"] = 5000
    orbits_exported = {**mininet_wifi.FIELDS, **{f"{c}.{p}": Honours("test") for c, p in (
        ("SatelliteNode", "ephemeris"), ("TleEphemeris", "model"), ("TleEphemeris", "line1"),
        ("TleEphemeris", "line2"))}}
    with pytest.raises(FieldNotHonoured) as exc:
        check_fields(doc, orbits_exported, "mininet-wifi")
    assert exc.value.loc == ["satcom", "isl_max_range_km"] and "satcom.isl_max_range_km=5000" in str(exc.value)
    check_fields(doc, fluid.FIELDS, "fluid")
    check_fields(doc, linux.FIELDS, "linux")


def test_the_linux_engine_takes_an_isl_down_with_the_plan():
    from subflow_engines.linux.topology import link_outages

    doc = _isl_scenario(_DRIFTING, duration_s=3000.0)
    isl = isl_timeline(load_scenario(doc))["isl"]
    assert link_outages(load_scenario(doc)) == [("isl", pytest.approx(isl.up[0][1]), 3000.0)]


# ----------------------------------------------------------------------------- the example


def test_the_example_reaches_shore_only_over_the_isl_in_the_planners():
    doc = _example()
    network = NetworkTimeline(doc)
    tl = satcom_timeline(load_scenario(doc))
    ship_b, shore_a = tl.links["ship-leo-b"].up, tl.links["shore-leo-a"].up
    assert len(ship_b) == len(shore_a) == 1
    t0, t1 = max(ship_b[0][0], shore_a[0][0]), min(ship_b[0][1], shore_a[0][1])
    assert 480 < t1 - t0 < 510 and t0 > 150  # about 8 minutes in the middle of the run
    arcs = {a.resource: a for a in network.arcs_at(450.0)}
    assert "isl-ab" in arcs and arcs["isl-ab"].delay_ms == pytest.approx(tl.isls["isl-ab"].delay_at(450.0), abs=0.02)
    answer = routes_document(doc, RoutesRequest(metric="delay", k=3, pairs=[("ship", "shore")]))
    for w in answer["windows"]:
        route = w["routes"][0]
        mid = 0.5 * (w["t_start_s"] + w["t_end_s"])
        if t0 < mid < t1:
            assert [p["nodes"] for p in route["paths"]] == [["ship", "leo-b", "leo-a", "shore"]]
        else:
            assert not route["reachable"]
    plan = resolve_plan(doc, "mptcp-fdm")
    paths = {tuple(s.nodes) for f in plan.flows for seg in f.segments for s in seg.subflows}
    assert paths == {("ship", "leo-b", "leo-a", "shore")}
    # the route's delay is the three legs' propagation at the window's middle: up, across, down
    at = routes_document(doc, RoutesRequest(metric="delay", pairs=[("ship", "shore")], t_s=450.0))
    (path,) = at["routes"][0]["paths"]
    mid = 0.5 * (t0 + t1)
    legs = tl.links["ship-leo-b"].delay_at(mid) + tl.isls["isl-ab"].delay_at(mid) + tl.links["shore-leo-a"].delay_at(mid)
    assert path["delay_ms"] == pytest.approx(legs, abs=1e-6) and 17 < legs < 18
    # FDM allocates the demand across the ISL, leo-b → leo-a
    alloc = allocation_document(doc, AllocationRequest(t_s=450.0))
    use = {(lk["link"], lk["src"], lk["dst"]): lk["flow"] for lk in alloc["links"]}
    assert use[("isl-ab", "leo-b", "leo-a")] == pytest.approx(8.0) and use[("isl-ab", "leo-a", "leo-b")] == 0.0
    assert alloc["demands"][0]["paths"] == [{"nodes": ["ship", "leo-b", "leo-a", "shore"], "rate": pytest.approx(8.0)}]


def test_the_example_runs_on_the_fluid_engine_over_the_isl():
    doc = _example()
    result = compare(doc, ["sptcp", "mptcp"], run_plan)
    for name, res in result.strategies.items():
        (flow,) = res.flows
        th, t = np.array(flow.throughput_mbps), np.array(flow.t_s)
        assert np.isfinite(th).all() and (th >= 0).all(), name
        assert [sf.path for sf in flow.subflows if any(sf.throughput_mbps)] == [["ship", "leo-b", "leo-a", "shore"]]
        assert th[(t > 260) & (t < 690)].mean() == pytest.approx(8.0, rel=0.02), name  # the demand, over the ISL
        assert th[t < 200].max() == 0.0 and th[t > 700].max() == 0.0  # no route before and after


def test_an_isl_never_up_is_warned_about_naming_the_link():
    from subflow.comparison.connectivity import scenario_warnings

    doc = _isl_scenario({"a": _tle(91003, 550.0, 0.0), "b": _tle(91004, 550.0, 180.0)})  # opposite sides
    (w,) = [w for w in scenario_warnings(load_scenario(doc)) if w.code == "isl_never_up"]
    assert w.loc == ["links", 0] and "isl (a – b)" in w.message and "block the line of sight" in w.message
    doc = _isl_scenario({"a": _tle(91003, 550.0, 0.0), "b": _tle(91004, 550.0, 20.0)}, isl_max_range_km=1000)
    (w,) = [w for w in scenario_warnings(load_scenario(doc)) if w.code == "isl_never_up"]
    assert "isl_max_range_km = 1000 km (closest 24" in w.message  # 2 r sin 10° ≈ 2406 km
    assert not [w for w in scenario_warnings(load_scenario(_example())) if w.code == "isl_never_up"]


def test_the_satcom_sample_limit_counts_the_isls():
    from subflow.errors import LimitExceeded
    from subflow.service.limits import Limits, check_scenario

    doc = _isl_scenario(_DRIFTING, duration_s=998.0)  # 2 satellites + 1 ISL, 1000 samples each
    check_scenario(load_scenario(doc), Limits(max_satcom_samples=3000))
    with pytest.raises(LimitExceeded) as exc:
        check_scenario(load_scenario(doc), Limits(max_satcom_samples=2999))
    assert "MAX_SATCOM_SAMPLES" in str(exc.value)
