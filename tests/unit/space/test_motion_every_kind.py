"""Every node kind moves; loiter patterns; association with moving access points."""

from __future__ import annotations

import math

import numpy as np
import pytest

from subflow.radio.association import association_timeline
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import load_scenario
from subflow.space.mobility import LOITER_RADIAL_ERROR, position3_at, relative_legs, trajectory


def _loiter_node(**mob) -> dict:
    m = {"model": "loiter", "center": {"x_m": 500, "y_m": -200}, "radius_m": 1000, "speed_mps": 25, **mob}
    return {"id": "uav", "kind": "access_point", "range_m": 800, "position": {"x_m": 500, "y_m": 800}, "mobility": m}


def _doc(nodes: list[dict], duration_s: float = 600) -> dict:
    return {"name": "motion", "nodes": nodes, "run": {"duration_s": duration_s}}


def test_loiter_circle_stays_on_the_circle_and_keeps_its_period():
    sc = load_scenario(_doc([_loiter_node(alt_m=300)]))
    legs = trajectory(sc.node("uav"), 600.0)
    period = 2 * math.pi * 1000 / 25
    ts = np.linspace(0, 600, 5001)
    pts = np.array([position3_at(legs, t) for t in ts])
    r = np.hypot(pts[:, 0] - 500, pts[:, 1] + 200)
    # circle equation (x−cx)² + (y−cy)² = r², within the chords' radial error
    assert np.max(np.abs(r - 1000)) / 1000 < 0.005
    assert np.max(np.abs(r - 1000)) / 1000 <= LOITER_RADIAL_ERROR + 1e-12
    assert np.all(pts[:, 2] == 300)  # flies at alt_m
    # the corners are on the circle, at the angle the speed gives (clockwise from north: bearing = v·t/r)
    for leg in legs:
        b = 25 * leg.t0_s / 1000
        assert (leg.x0_m, leg.y0_m) == pytest.approx((500 + 1000 * math.sin(b), -200 + 1000 * math.cos(b)), abs=1e-6)
    assert position3_at(legs, period)[:2] == pytest.approx((500, 800), abs=1e-6)  # back at the entry point


def test_loiter_anticlockwise_and_start_time():
    sc = load_scenario(_doc([_loiter_node(clockwise=False, start_s=100, heading_deg=90)]))
    legs = trajectory(sc.node("uav"), 600.0)
    assert position3_at(legs, 50)[:2] == pytest.approx((1500, -200))  # holds at bearing 90° until start_s
    x, y, _ = position3_at(legs, 100 + 0.25 * 2 * math.pi * 1000 / 25)  # a quarter turn later, anticlockwise: north
    assert (x, y) == pytest.approx((500, 800), abs=1.0)


def test_loiter_racetrack_legs_and_turns():
    sc = load_scenario(_doc([_loiter_node(pattern="racetrack", length_m=4000, radius_m=500, heading_deg=0)]))
    legs = trajectory(sc.node("uav"), 2000.0)
    lap_s = (2 * 4000 + 2 * math.pi * 500) / 25
    ts = np.linspace(0, lap_s, 4001)
    pts = np.array([position3_at(legs, t)[:2] for t in ts]) - [500, -200]
    # distance from the axis segment (0, −2000)…(0, 2000) is the turn radius everywhere (stadium curve)
    yc = np.clip(pts[:, 1], -2000, 2000)
    d = np.hypot(pts[:, 0], pts[:, 1] - yc)
    assert np.max(np.abs(d - 500)) / 500 < 0.005
    # clockwise with axis north: outbound northwards on the west side
    assert position3_at(legs, 0)[:2] == pytest.approx((0, -2200), abs=1e-6)
    assert position3_at(legs, 4000 / 25)[:2] == pytest.approx((0, 1800), abs=1e-6)
    assert position3_at(legs, lap_s)[:2] == pytest.approx((0, -2200), abs=1e-6)


def test_relative_motion_of_two_linear_legs_crosses_the_range_at_the_quadratics_root():
    # ap flies east at 20 m/s from (0, 0); station flies north at 10 m/s from (3000, −4000);
    # relative position (3000 − 20t, −4000 + 10t): |.|² = r² with r = 2500 → 500t² − 200000t + 18.75e6 = 0,
    # t = 150 s and 250 s
    nodes = [
        {"id": "ap", "kind": "access_point", "range_m": 2500, "mobility": {
            "model": "linear", "start": {"x_m": 0, "y_m": 0}, "end": {"x_m": 20_000, "y_m": 0}, "speed_mps": 20}},
        {"id": "st", "kind": "station", "mobility": {
            "model": "linear", "start": {"x_m": 3000, "y_m": -4000}, "end": {"x_m": 3000, "y_m": 6000}, "speed_mps": 10}},
    ]
    tl = association_timeline(load_scenario(_doc(nodes, 400)))
    a, b, c = 500.0, -200_000.0, 18.75e6
    t_in = (-b - math.sqrt(b * b - 4 * a * c)) / (2 * a)
    t_out = (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)
    (assoc,) = tl.associations
    assert assoc.access_point == "ap"
    assert (t_in, t_out) == pytest.approx((150.0, 250.0))
    assert assoc.t_start_s == pytest.approx(t_in, abs=1e-9) and assoc.t_end_s == pytest.approx(t_out, abs=1e-9)


def test_a_static_station_associates_with_a_loitering_uav_when_it_passes():
    # station 1500 m north of the loiter centre, circle radius 1000, range 800: in range near the north point
    nodes = [_loiter_node(), {"id": "ship", "kind": "station", "position": {"x_m": 500, "y_m": 1300}},
             {"id": "shore", "kind": "host"}]
    doc = _doc(nodes, 600)
    doc["links"] = [{"id": "l", "src": "uav", "dst": "shore", "bandwidth_mbps": 10}]
    sc = load_scenario(doc)
    tl = association_timeline(sc)
    assert set(tl.trajectories) == {"uav", "ship", "shore"}  # every node's trajectory
    # independent check: sample the distance and compare with the associations' windows
    ts = np.linspace(0, 600, 60_001)
    uav = np.array([position3_at(tl.trajectories["uav"], t)[:2] for t in ts])
    inside = np.hypot(uav[:, 0] - 500, uav[:, 1] - 1300) <= 800
    windows = [(a.t_start_s, a.t_end_s) for a in tl.associations]
    assert len(windows) >= 2  # one pass per lap (period 251 s)
    for t, ok in zip(ts[::50], inside[::50]):
        covered = any(t0 - 0.02 <= t <= t1 + 0.02 for t0, t1 in windows)
        near_edge = any(abs(t - e) < 0.05 for w in windows for e in w)
        assert covered == ok or near_edge
    plan = resolve_plan(sc, "sptcp")  # the plan follows the moving access point too
    assert plan.duration_s == 600


def test_hosts_routers_and_switches_move():
    nodes = [{"id": k, "kind": kind, "mobility": {"model": "waypoints", "points": [
        {"t_s": 0, "x_m": 0, "y_m": 0}, {"t_s": 10, "x_m": 100, "y_m": 0, "alt_m": 50}]}}
        for k, kind in (("h", "host"), ("r", "router"), ("s", "switch"))]
    tl = association_timeline(load_scenario(_doc(nodes, 20)))
    for k in ("h", "r", "s"):
        assert position3_at(tl.trajectories[k], 5) == pytest.approx((50, 0, 25))


def test_relative_legs_cut_at_both_trajectories_corners():
    sc = load_scenario(_doc([_loiter_node(), {"id": "st", "kind": "station", "mobility": {
        "model": "waypoints", "points": [{"t_s": 0, "x_m": 0, "y_m": 0}, {"t_s": 33.3, "x_m": 10, "y_m": 5}]}}], 100))
    a, b = trajectory(sc.node("st"), 100), trajectory(sc.node("uav"), 100)
    rel = relative_legs(a, b)
    for t in np.linspace(0, 100, 777):
        pa, pb, pr = position3_at(a, t), position3_at(b, t), position3_at(rel, t)
        assert pr == pytest.approx(tuple(u - v for u, v in zip(pa, pb)), abs=1e-6)
