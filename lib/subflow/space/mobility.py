"""Node trajectories and exact radio-range crossing times.

Every mobility model of a scenario, on every node kind, is turned into a
piecewise-linear trajectory (a list of :class:`Leg`, x/y metres of the planning
plane or of the local frame of a geographic scenario, :func:`to_local`,
and altitude ``z`` metres). Because each leg is a straight constant-speed
segment, and the difference of two such legs over a common time span is again
one, the times at which a station enters or leaves the range sphere of an access
point — fixed or moving — are roots of a quadratic and are computed exactly, not
by sampling (:func:`in_range_intervals`, :func:`relative_legs`). Loiter circles
and racetrack turns are flown along chords whose radial error is below 0.5 % of
the radius (:data:`LOITER_RADIAL_ERROR`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from subflow.errors import LimitExceeded
from subflow.scenario.document import (
    GaussMarkovMobility,
    LinearMobility,
    LoiterMobility,
    RandomWaypointMobility,
    RandomWalkMobility,
    Scenario,
    StaticMobility,
    WaypointsMobility,
    points_of,
)
from subflow.scenario.geodesy import frame_of, geo_corners

#: bound on the radial error of the chords that approximate loiter arcs, as a fraction of the radius
LOITER_RADIAL_ERROR = 0.004


@dataclass(frozen=True)
class Leg:
    """Straight, constant-speed motion from (x0_m, y0_m, z0_m) at t0_s to (x1_m, y1_m, z1_m) at t1_s.

    ``z`` is the altitude in metres (0 unless the model sets one)."""

    t0_s: float
    t1_s: float
    x0_m: float
    y0_m: float
    x1_m: float
    y1_m: float
    z0_m: float = 0.0
    z1_m: float = 0.0

    def _u(self, t_s: float) -> float:
        span = self.t1_s - self.t0_s
        return 0.0 if span <= 0 else min(1.0, max(0.0, (t_s - self.t0_s) / span))

    def at(self, t_s: float) -> tuple[float, float]:
        """Position (x_m, y_m) at ``t_s`` (clamped to the leg's time span)."""
        u = self._u(t_s)
        return self.x0_m + u * (self.x1_m - self.x0_m), self.y0_m + u * (self.y1_m - self.y0_m)

    def at3(self, t_s: float) -> tuple[float, float, float]:
        """Position (x_m, y_m, z_m) at ``t_s`` (clamped to the leg's time span)."""
        u = self._u(t_s)
        x, y = self.at(t_s)
        return x, y, self.z0_m + u * (self.z1_m - self.z0_m)


def effective_seed(model_seed: int, run_seed: int) -> int:
    """Seed of a random mobility model in a run: ``model_seed + 1000003·(run_seed − 1)``.

    With the default ``run.seed`` = 1 the model's own seed is used as is;
    repetitions of a comparison (which vary ``run.seed``) get other walks.
    """
    return model_seed + 1_000_003 * (run_seed - 1)


def trajectory(station, duration_s: float, run_seed: int = 1, max_legs: int | None = None) -> list[Leg]:
    """Piecewise-linear trajectory of a node (any kind) covering [0, ``duration_s``].

    Parameters
    ----------
    station : node
        Any node of a planar scenario (a geographic one goes through
        :func:`subflow.space.mobility.to_local` first). Its ``mobility`` selects the model;
        ``position`` is the start point of ``static`` and the random models.
    duration_s : float
        Length of the run in seconds (> 0).
    run_seed : int
        The run's seed, combined with a random model's seed by :func:`effective_seed`.
    max_legs : int, optional
        Give up (raise) once the trajectory has more legs than this; None: no bound.

    Returns
    -------
    list of Leg
        Contiguous legs, the first starting at 0 and the last ending at
        ``duration_s``. Deterministic for a given ``random_walk.seed``.

    Raises
    ------
    LimitExceeded
        With ``setting`` ``"MAX_TIMELINE_LEGS"``, when ``max_legs`` is given and passed.
    """
    return _trajectory(station, duration_s, run_seed, _Budget(max_legs))


class _Budget:
    """Counts legs as a model draws them; raises once ``max_legs`` is passed."""

    def __init__(self, max_legs: int | None):
        self.max_legs = max_legs

    def check(self, legs: list[Leg]) -> None:
        if self.max_legs is not None and len(legs) > self.max_legs:
            raise LimitExceeded("MAX_TIMELINE_LEGS", self.max_legs, f"more than {self.max_legs}", ["nodes"],
                                "trajectory legs")


def _trajectory(station, duration_s: float, run_seed: int, budget: _Budget) -> list[Leg]:
    legs = _planar(station, duration_s, run_seed, budget)
    m = station.mobility
    if isinstance(m, (StaticMobility, RandomWalkMobility, RandomWaypointMobility, GaussMarkovMobility)):
        z = station.position.alt_m
        if z:
            legs = [Leg(g.t0_s, g.t1_s, g.x0_m, g.y0_m, g.x1_m, g.y1_m, z, z) for g in legs]
    return legs


def _planar(station, duration_s: float, run_seed: int, budget: _Budget) -> list[Leg]:
    m = station.mobility
    x, y = station.position.x_m, station.position.y_m
    if isinstance(m, StaticMobility):
        return [Leg(0.0, duration_s, x, y, x, y)]
    if isinstance(m, WaypointsMobility):
        pts = [(p.t_s, p.x_m, p.y_m, p.alt_m) for p in m.points]
        budget.check(pts[:-1])
        return _legs_through(pts, duration_s)
    if isinstance(m, LinearMobility):
        dist = math.hypot(m.end.x_m - m.start.x_m, m.end.y_m - m.start.y_m)
        t_arrive = m.start_s + dist / m.speed_mps
        pts = [(m.start_s, m.start.x_m, m.start.y_m, m.start.alt_m)]
        if dist > 0:
            pts.append((t_arrive, m.end.x_m, m.end.y_m, m.end.alt_m))
        return _legs_through(pts, duration_s)
    if isinstance(m, LoiterMobility):
        return _loiter(m, duration_s, budget)
    if isinstance(m, (RandomWalkMobility, RandomWaypointMobility, GaussMarkovMobility)):
        m = m.model_copy(update={"seed": effective_seed(m.seed, run_seed)})
    if isinstance(m, RandomWalkMobility):
        return _random_walk(m, x, y, duration_s, budget)
    if isinstance(m, RandomWaypointMobility):
        return _random_waypoint(m, x, y, duration_s, budget)
    if isinstance(m, GaussMarkovMobility):
        return _gauss_markov(m, x, y, duration_s, budget)
    raise TypeError(f"unsupported mobility model {type(m).__name__}")  # pragma: no cover


def _legs_through(points: list[tuple[float, ...]], duration_s: float) -> list[Leg]:
    """Legs through timed points ``(t_s, x_m, y_m[, z_m])``: hold the first before it, the last after it."""
    pts = [p if len(p) == 4 else (*p, 0.0) for p in points]
    legs: list[Leg] = []
    t0, x0, y0, z0 = pts[0]
    if t0 > 0:
        legs.append(Leg(0.0, min(t0, duration_s), x0, y0, x0, y0, z0, z0))
    for t1, x1, y1, z1 in pts[1:]:
        if t0 >= duration_s:
            break
        if t1 > duration_s:  # cut the leg at the end of the run
            u = (duration_s - t0) / (t1 - t0)
            x1, y1, z1, t1 = x0 + u * (x1 - x0), y0 + u * (y1 - y0), z0 + u * (z1 - z0), duration_s
        legs.append(Leg(t0, t1, x0, y0, x1, y1, z0, z1))
        t0, x0, y0, z0 = t1, x1, y1, z1
    if t0 < duration_s:
        legs.append(Leg(t0, duration_s, x0, y0, x0, y0, z0, z0))
    return legs


def loiter_chords(radius_m: float) -> int:
    """Chords per full turn so that the radial error ``r·(1 − cos(π/n))`` is at most
    :data:`LOITER_RADIAL_ERROR` · r (36 for 0.4 %)."""
    return max(8, math.ceil(math.pi / math.acos(1.0 - LOITER_RADIAL_ERROR)))


def loiter_path(m: LoiterMobility) -> list[tuple[float, float, float]]:
    """One lap of a loiter pattern as ``(s_m, x_m, y_m)`` corners, ``s_m`` the distance flown along
    the exact pattern (arc length, so a lap takes ``s/speed`` whatever the chords), first = last point.

    Circle: the centre plus ``r·(sin b, cos b)`` for bearings ``b`` from ``heading_deg``.
    Racetrack: the axis points along ``heading_deg``; the outbound straight leg (along the axis) runs
    on the left of the axis for a clockwise pattern (the right otherwise), then a half turn round the
    far end, the inbound leg and a half turn round the near end.
    """
    cx, cy, r = m.center.x_m, m.center.y_m, m.radius_m
    n = loiter_chords(r)
    sign = 1.0 if m.clockwise else -1.0
    h = math.radians(m.heading_deg)
    ax, ay = math.sin(h), math.cos(h)          # unit axis (bearing heading_deg)
    px, py = -ay * sign, ax * sign              # unit normal: left of the axis when clockwise (seen from above)
    if m.pattern == "circle" or m.length_m == 0:
        out = []
        for k in range(n + 1):
            b = h + sign * 2.0 * math.pi * k / n
            out.append((r * 2.0 * math.pi * k / n, cx + r * math.sin(b), cy + r * math.cos(b)))
        return out
    half = 0.5 * m.length_m
    out: list[tuple[float, float, float]] = []
    s = 0.0
    # outbound leg: from (near end + r·normal) to (far end + r·normal)
    start = (cx - half * ax + r * px, cy - half * ay + r * py)
    out.append((s, *start))
    s += m.length_m
    out.append((s, cx + half * ax + r * px, cy + half * ay + r * py))
    per_half = max(4, math.ceil(n / 2))
    for end_sign in (1.0, -1.0):  # far turn, then near turn
        ex, ey = cx + end_sign * half * ax, cy + end_sign * half * ay
        # the turn sweeps π from +normal (far) or −normal (near), turning towards the pattern's side
        nx, ny = (px, py) if end_sign > 0 else (-px, -py)
        tx, ty = (ax, ay) if end_sign > 0 else (-ax, -ay)
        for k in range(1, per_half + 1):
            a = math.pi * k / per_half
            out.append((s + r * a, ex + r * (math.cos(a) * nx + math.sin(a) * tx),
                        ey + r * (math.cos(a) * ny + math.sin(a) * ty)))
        s += math.pi * r
        if end_sign > 0:
            s += m.length_m
            out.append((s, cx - half * ax - r * px, cy - half * ay - r * py))
    return out


def _loiter(m: LoiterMobility, duration_s: float, budget: _Budget) -> list[Leg]:
    lap = loiter_path(m)
    lap_m = lap[-1][0]
    z = m.alt_m
    pts: list[tuple[float, float, float, float]] = [(m.start_s, lap[0][1], lap[0][2], z)]
    t_lap = m.start_s
    while t_lap < duration_s:
        for s, x, y in lap[1:]:
            pts.append((t_lap + s / m.speed_mps, x, y, z))
        t_lap += lap_m / m.speed_mps
        budget.check(pts)
    return _legs_through(pts, duration_s)


def _random_walk(m: RandomWalkMobility, x: float, y: float, duration_s: float, budget: _Budget) -> list[Leg]:
    rng = random.Random(m.seed)
    b = m.bounds
    legs: list[Leg] = []
    t = 0.0
    while t < duration_s:
        budget.check(legs)
        heading = rng.uniform(0.0, 2.0 * math.pi)
        speed = rng.uniform(m.speed_min_mps, m.speed_max_mps)
        step = min(m.step_s, duration_s - t)
        dx, dy = math.cos(heading) * speed, math.sin(heading) * speed
        # time until the border along this heading (stop there and redraw)
        limit = step
        if dx > 0:
            limit = min(limit, (b.x_max_m - x) / dx)
        elif dx < 0:
            limit = min(limit, (b.x_min_m - x) / dx)
        if dy > 0:
            limit = min(limit, (b.y_max_m - y) / dy)
        elif dy < 0:
            limit = min(limit, (b.y_min_m - y) / dy)
        limit = max(limit, 0.0)
        if limit < 1e-9:  # heading points out of the area: wait out a short pause
            limit = min(step, 1.0)
            dx = dy = 0.0
        x1 = min(b.x_max_m, max(b.x_min_m, x + dx * limit))
        y1 = min(b.y_max_m, max(b.y_min_m, y + dy * limit))
        legs.append(Leg(t, t + limit, x, y, x1, y1))
        t, x, y = t + limit, x1, y1
    return legs


def _random_waypoint(m: RandomWaypointMobility, x: float, y: float, duration_s: float, budget: _Budget) -> list[Leg]:
    rng = random.Random(m.seed)
    b = m.bounds
    legs: list[Leg] = []
    t = 0.0
    while t < duration_s:
        budget.check(legs)
        tx, ty = rng.uniform(b.x_min_m, b.x_max_m), rng.uniform(b.y_min_m, b.y_max_m)
        speed = rng.uniform(m.speed_min_mps, m.speed_max_mps)
        travel = math.hypot(tx - x, ty - y) / speed
        if travel > 0:
            legs.append(Leg(t, t + travel, x, y, tx, ty))
            t, x, y = t + travel, tx, ty
        if m.pause_s > 0 and t < duration_s:
            legs.append(Leg(t, t + m.pause_s, x, y, x, y))
            t += m.pause_s
    return _cut(legs, duration_s)


def _gauss_markov(m: GaussMarkovMobility, x: float, y: float, duration_s: float, budget: _Budget) -> list[Leg]:
    rng = random.Random(m.seed)
    b = m.bounds
    a = m.alpha
    root = math.sqrt(max(0.0, 1.0 - a * a))
    speed = m.mean_speed_mps
    heading = rng.uniform(0.0, 2.0 * math.pi)
    mean_heading = heading
    legs: list[Leg] = []
    t = 0.0
    margin_x = 0.1 * (b.x_max_m - b.x_min_m)
    margin_y = 0.1 * (b.y_max_m - b.y_min_m)
    while t < duration_s:
        budget.check(legs)
        # near a border the mean heading turns towards the centre (Camp, Boleng, Davies 2002, §2.7)
        cx, cy = 0.5 * (b.x_min_m + b.x_max_m), 0.5 * (b.y_min_m + b.y_max_m)
        if (x < b.x_min_m + margin_x or x > b.x_max_m - margin_x
                or y < b.y_min_m + margin_y or y > b.y_max_m - margin_y):
            mean_heading = math.atan2(cy - y, cx - x)
        speed = max(0.0, a * speed + (1 - a) * m.mean_speed_mps + m.speed_std_mps * root * rng.gauss(0, 1))
        heading = a * heading + (1 - a) * mean_heading + m.heading_std_rad * root * rng.gauss(0, 1)
        step = min(m.step_s, duration_s - t)
        x1 = min(b.x_max_m, max(b.x_min_m, x + math.cos(heading) * speed * step))
        y1 = min(b.y_max_m, max(b.y_min_m, y + math.sin(heading) * speed * step))
        legs.append(Leg(t, t + step, x, y, x1, y1))
        t, x, y = t + step, x1, y1
    return legs


def _cut(legs: list[Leg], duration_s: float) -> list[Leg]:
    out: list[Leg] = []
    for leg in legs:
        if leg.t0_s >= duration_s:
            break
        if leg.t1_s > duration_s:
            x1, y1 = leg.at(duration_s)
            leg = Leg(leg.t0_s, duration_s, leg.x0_m, leg.y0_m, x1, y1)
        out.append(leg)
    return out


def position_at(legs: list[Leg], t_s: float) -> tuple[float, float]:
    """Position (x_m, y_m) on a trajectory at time ``t_s``."""
    return position3_at(legs, t_s)[:2]


def position3_at(legs: list[Leg], t_s: float) -> tuple[float, float, float]:
    """Position (x_m, y_m, z_m) on a trajectory at time ``t_s`` (binary search over the legs)."""
    lo, hi = 0, len(legs) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if t_s <= legs[mid].t1_s:
            hi = mid
        else:
            lo = mid + 1
    return legs[lo].at3(t_s)


def distance_at(legs_a: list[Leg], legs_b: list[Leg], t: float) -> float:
    """Slant range between two trajectories at ``t`` (s): the 3-D distance of their positions, metres."""
    x, y, z = position3_at(legs_a, t)
    cx, cy, cz = position3_at(legs_b, t)
    return math.sqrt((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2)


def relative_legs(a: list[Leg], b: list[Leg]) -> list[Leg]:
    """The trajectory of ``a`` relative to ``b`` (``a(t) − b(t)``), both covering the same run.

    Both are cut at the union of their corner times; on each piece both move
    linearly, so their difference is again a straight constant-speed leg and
    :func:`in_range_intervals` of it around (0, 0, 0) stays exact.
    """
    cuts = sorted({g.t0_s for g in a} | {g.t1_s for g in a} | {g.t0_s for g in b} | {g.t1_s for g in b})
    out: list[Leg] = []
    ia = ib = 0
    for t0, t1 in zip(cuts, cuts[1:]):
        if t1 <= t0:
            continue
        while ia < len(a) - 1 and a[ia].t1_s <= t0:
            ia += 1
        while ib < len(b) - 1 and b[ib].t1_s <= t0:
            ib += 1
        a0, a1 = a[ia].at3(t0), a[ia].at3(t1)
        b0, b1 = b[ib].at3(t0), b[ib].at3(t1)
        out.append(Leg(t0, t1, a0[0] - b0[0], a0[1] - b0[1], a1[0] - b1[0], a1[1] - b1[1],
                       a0[2] - b0[2], a1[2] - b1[2]))
    return out


def in_range_intervals(
    legs: list[Leg], centre: tuple[float, ...], range_m: float
) -> list[tuple[float, float]]:
    """Time intervals during which a trajectory is within ``range_m`` (slant range) of ``centre``.

    Parameters
    ----------
    legs : list of Leg
        A trajectory from :func:`trajectory` (or :func:`relative_legs` with centre (0, 0, 0)).
    centre : (float, float) or (float, float, float)
        Access point position (x_m, y_m[, z_m]); z defaults to 0.
    range_m : float
        Radio range in metres (> 0), compared with the 3-D distance (slant
        range; the planar distance when every altitude is 0). A distance equal
        to the range counts as in range.

    Returns
    -------
    list of (float, float)
        Disjoint, sorted ``(t_enter_s, t_exit_s)`` pairs, merged across legs;
        ``t_exit_s`` equals the trajectory end if the station is still in range.
    """
    cx, cy = centre[0], centre[1]
    cz = centre[2] if len(centre) > 2 else 0.0
    r2 = range_m * range_m
    raw: list[tuple[float, float]] = []
    for leg in legs:
        span = leg.t1_s - leg.t0_s
        if span <= 0:
            continue
        # p(u) = p0 + u*(p1-p0), u in [0,1]; solve |p(u)-c|^2 <= r^2
        ax, ay, az = leg.x1_m - leg.x0_m, leg.y1_m - leg.y0_m, leg.z1_m - leg.z0_m
        bx, by, bz = leg.x0_m - cx, leg.y0_m - cy, leg.z0_m - cz
        a = ax * ax + ay * ay + az * az
        bq = 2.0 * (ax * bx + ay * by + az * bz)
        c = bx * bx + by * by + bz * bz - r2
        if a == 0.0:
            if c <= 0:
                raw.append((leg.t0_s, leg.t1_s))
            continue
        disc = bq * bq - 4 * a * c
        if disc < 0:
            continue
        sq = math.sqrt(disc)
        u0 = max(0.0, (-bq - sq) / (2 * a))
        u1 = min(1.0, (-bq + sq) / (2 * a))
        if u0 <= u1:
            raw.append((leg.t0_s + u0 * span, leg.t0_s + u1 * span))
    merged: list[tuple[float, float]] = []
    for t0, t1 in sorted(raw):
        if merged and t0 <= merged[-1][1] + 1e-9:
            merged[-1] = (merged[-1][0], max(merged[-1][1], t1))
        else:
            merged.append((t0, t1))
    # a grazing touch (zero-length interval) is not an association opportunity
    return [(t0, t1) for t0, t1 in merged if t1 - t0 > 1e-9]


def to_local(scenario: Scenario) -> Scenario:
    """The scenario with every point in the local frame (planar metres); a planar scenario is returned as is.

    Node positions, waypoints, linear start/end and loiter centres are projected
    (one vectorised pyproj call); ``alt_m`` is kept. ``Bounds`` of random models are
    already local-frame metres. The result is what the association timeline, the
    plan and the exports compute on.
    """
    frame = frame_of(scenario)
    if frame is None:
        return scenario
    pts = [p for n in scenario.nodes for _, p in points_of(n)]
    xs, ys = frame.forward(np.array([p.lat_deg for p in pts]), np.array([p.lon_deg for p in pts]))
    local = {id(p): (float(x), float(y)) for p, x, y in zip(pts, np.atleast_1d(xs), np.atleast_1d(ys))}

    def flat(p: Any) -> Any:
        x, y = local[id(p)]
        return p.model_copy(update={"x_m": x, "y_m": y, "lat_deg": None, "lon_deg": None})

    nodes = []
    for n in scenario.nodes:
        m = n.mobility
        if isinstance(m, WaypointsMobility):
            m = m.model_copy(update={"points": [flat(p) for p in m.points]})
        elif isinstance(m, LinearMobility):
            m = m.model_copy(update={"start": flat(m.start), "end": flat(m.end)})
        elif isinstance(m, LoiterMobility):
            m = m.model_copy(update={"center": flat(m.center)})
        nodes.append(n.model_copy(update={"position": flat(n.position), "mobility": m}))
    return scenario.model_copy(update={"nodes": nodes})


def node_geo_track(scenario: Scenario, node_id: str) -> list[tuple[float, float, float, float]]:
    """The planned trajectory of one node of a geographic scenario as ``(t_s, lat_deg, lon_deg, alt_m)`` corners.

    Raises
    ------
    KeyError
        No node ``node_id``.
    ValueError
        The scenario is planar.
    """
    frame = frame_of(scenario)
    if frame is None:
        raise ValueError("the scenario is planar (x_m/y_m): it has no geographic track")
    node = to_local(scenario).node(node_id)
    return geo_corners(frame, trajectory(node, scenario.run.duration_s, scenario.run.seed))
