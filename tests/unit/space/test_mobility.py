"""Trajectories and range crossings, checked against analytic values and sampling."""

from __future__ import annotations

import math
import random

import pytest

from subflow.scenario.document import StationNode
from subflow.space.mobility import Leg, in_range_intervals, position_at, trajectory


def _station(mobility: dict, x: float = 0.0, y: float = 0.0) -> StationNode:
    return StationNode.model_validate({"id": "s", "position": {"x_m": x, "y_m": y}, "mobility": mobility})


def test_linear_enters_range_at_the_analytic_time():
    # 100 m -> 900 m at 10 m/s towards an AP at x = 1000 m with a 300 m range: enters at x = 700, t = 60 s
    st = _station({"model": "linear", "start": {"x_m": 100, "y_m": 0}, "end": {"x_m": 900, "y_m": 0}, "speed_mps": 10})
    legs = trajectory(st, 100.0)
    assert position_at(legs, 30.0) == pytest.approx((400.0, 0.0))
    assert position_at(legs, 95.0) == pytest.approx((900.0, 0.0))  # arrived at 80 s and stays
    assert in_range_intervals(legs, (1000.0, 0.0), 300.0) == [pytest.approx((60.0, 100.0))]


def test_waypoints_interpolate_and_hold():
    st = _station({"model": "waypoints", "points": [
        {"t_s": 10, "x_m": 0, "y_m": 0}, {"t_s": 20, "x_m": 100, "y_m": 0}, {"t_s": 40, "x_m": 100, "y_m": 200}]})
    legs = trajectory(st, 60.0)
    assert position_at(legs, 5.0) == pytest.approx((0.0, 0.0))
    assert position_at(legs, 15.0) == pytest.approx((50.0, 0.0))
    assert position_at(legs, 30.0) == pytest.approx((100.0, 100.0))
    assert position_at(legs, 59.0) == pytest.approx((100.0, 200.0))
    assert legs[0].t0_s == 0 and legs[-1].t1_s == 60.0


def test_waypoint_times_must_increase():
    with pytest.raises(ValueError, match="t_s"):
        _station({"model": "waypoints", "points": [{"t_s": 5, "x_m": 0, "y_m": 0}, {"t_s": 5, "x_m": 1, "y_m": 0}]})


@pytest.mark.parametrize("seed", range(5))
def test_random_walk_is_seeded_and_bounded(seed):
    mob = {"model": "random_walk", "bounds": {"x_min_m": 0, "y_min_m": 0, "x_max_m": 200, "y_max_m": 100},
           "speed_min_mps": 1, "speed_max_mps": 30, "step_s": 3, "seed": seed}
    a = trajectory(_station(mob, 50, 50), 300.0)
    b = trajectory(_station(mob, 50, 50), 300.0)
    assert a == b
    assert a[-1].t1_s == pytest.approx(300.0)
    for leg in a:
        for x, y in ((leg.x0_m, leg.y0_m), (leg.x1_m, leg.y1_m)):
            assert -1e-9 <= x <= 200 + 1e-9 and -1e-9 <= y <= 100 + 1e-9
    for prev, nxt in zip(a, a[1:]):  # contiguous in time and space
        assert prev.t1_s == pytest.approx(nxt.t0_s)
        assert (prev.x1_m, prev.y1_m) == pytest.approx((nxt.x0_m, nxt.y0_m))


@pytest.mark.parametrize("seed", range(20))
def test_range_intervals_agree_with_dense_sampling(seed):
    rng = random.Random(seed)
    legs, t = [], 0.0
    x, y = rng.uniform(-300, 300), rng.uniform(-300, 300)
    for _ in range(8):
        dt = rng.uniform(1, 10)
        x1, y1 = rng.uniform(-300, 300), rng.uniform(-300, 300)
        legs.append(Leg(t, t + dt, x, y, x1, y1))
        t, x, y = t + dt, x1, y1
    centre, r = (rng.uniform(-100, 100), rng.uniform(-100, 100)), rng.uniform(50, 250)
    intervals = in_range_intervals(legs, centre, r)
    step = 0.01
    for k in range(int(t / step)):
        ts = k * step
        px, py = position_at(legs, ts)
        inside = math.hypot(px - centre[0], py - centre[1]) <= r
        near_edge = any(abs(ts - a) < 2 * step or abs(ts - b) < 2 * step for a, b in intervals)
        if not near_edge:
            assert inside == any(a <= ts <= b for a, b in intervals), ts


@pytest.mark.parametrize("model", ["random_waypoint", "gauss_markov"])
@pytest.mark.parametrize("seed", range(3))
def test_other_random_models_are_seeded_contiguous_and_bounded(model, seed):
    bounds = {"x_min_m": 0, "y_min_m": 0, "x_max_m": 300, "y_max_m": 200}
    mob = {"model": model, "bounds": bounds, "seed": seed}
    if model == "random_waypoint":
        mob.update(speed_min_mps=2, speed_max_mps=10, pause_s=2)
    else:
        mob.update(mean_speed_mps=5, alpha=0.8, step_s=1)
    a = trajectory(_station(mob, 150, 100), 200.0)
    assert a == trajectory(_station(mob, 150, 100), 200.0)
    assert a[0].t0_s == 0 and a[-1].t1_s == pytest.approx(200.0)
    for prev, nxt in zip(a, a[1:]):
        assert prev.t1_s == pytest.approx(nxt.t0_s)
        assert (prev.x1_m, prev.y1_m) == pytest.approx((nxt.x0_m, nxt.y0_m))
    for leg in a:
        assert 0 <= leg.x1_m <= 300 and 0 <= leg.y1_m <= 200
    moved = sum(math.hypot(l.x1_m - l.x0_m, l.y1_m - l.y0_m) for l in a)
    assert moved > 100  # it does move


def test_random_waypoint_speed_stays_in_range():
    mob = {"model": "random_waypoint", "bounds": {"x_min_m": 0, "y_min_m": 0, "x_max_m": 500, "y_max_m": 500},
           "speed_min_mps": 3, "speed_max_mps": 4, "pause_s": 0, "seed": 9}
    for leg in trajectory(_station(mob, 10, 10), 500.0)[:-1]:
        v = math.hypot(leg.x1_m - leg.x0_m, leg.y1_m - leg.y0_m) / (leg.t1_s - leg.t0_s)
        assert 3 - 1e-9 <= v <= 4 + 1e-9
