"""Connectivity checks of a scenario: the certain refusal before a run, and save-time warnings.

:func:`check_connectable` refuses a flow whose endpoints are never joined (a comparison request is refused
with it). :func:`scenario_warnings` lists what a valid scenario allows but a planner most likely did not mean;
a warning never blocks saving or running; the editor shows it next to the element it names.

* ``flow_unreachable``: a flow's endpoints have no path during part (or all) of its active window,
  not counting a handover's association delay (from the same interval resolution a run uses, :func:`subflow.runplan.resolve.resolve_plan`, with the
  single-path ``sptcp`` policy: a flow with no path under it has none under any strategy).
* ``path_beyond_run``: a waypoint path whose last waypoint is timed after ``run.duration_s``
  (the rest of the path is never travelled).
* ``access_point_unreached``: an access point no station (and no access point using it as its uplink)
  ever associates with during the run, with the closest approach of any of them and the range it missed.
* ``link_unused``: a link no flow can use: it lies on no loop-free path between the two ends of any flow
  (over the union of the links and the associations of the whole run), so no strategy ever sends on it.
  An edge of a graph lies on a simple s–t path exactly when its biconnected component is on the path
  between s and t in the block-cut tree (every edge of a 2-connected block lies on a simple path between
  any two of its vertices: Menger's theorem; J. Hopcroft, R. Tarjan, "Algorithm 447: efficient algorithms
  for graph manipulation", CACM 16(6), 1973, for the blocks).
* ``satellite_never_in_view``: a satellite with an orbit that is below the elevation mask of every
  terminal linked to it for the whole run.
* ``isl_never_up``: an inter-satellite link that is down for the whole run (the Earth and
  ``satcom.isl_grazing_altitude_km`` block the line of sight, or the satellites stay farther apart than
  ``satcom.isl_max_range_km``), with its best clearance and shortest range.
"""

from __future__ import annotations

import math
from typing import Literal

import networkx as nx
import numpy as np
from pydantic import BaseModel, Field

from subflow.errors import FlowUnreachable, Unreachable
from subflow.radio.association import association_timeline, clients
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import AccessPointNode, Scenario, WaypointsMobility
from subflow.space.mobility import Leg, relative_legs
from subflow.space.satcom import SatcomTimeline, satcom_timeline

WarningCode = Literal["flow_unreachable", "path_beyond_run", "access_point_unreached", "link_unused",
                      "satellite_never_in_view", "isl_never_up"]


class ScenarioWarning(BaseModel):
    """One warning: ``loc`` is the document path of the element (``["flows", 0]``, ``["nodes", 2, "mobility"]``),
    ``message`` a sentence naming the element by id and the times in seconds."""

    code: WarningCode
    loc: list[str | int] = Field(description="Path of the element in the scenario document (0-based indices).")
    message: str
    t_start_s: float | None = Field(default=None, description="Start of the affected time span, seconds.")
    t_end_s: float | None = Field(default=None, description="End of the affected time span, seconds.")


def _fmt(t: float) -> str:
    return f"{t:g}"


def _flow_gaps(scenario: Scenario) -> dict[str, list[tuple[float, float]]]:
    """Per flow id, the spans (seconds) of its active window with no path; ``[(start, stop)]`` if never reachable.

    Flows never reachable make :func:`resolve_plan` raise :class:`Unreachable`: they are recorded and
    removed, and the rest resolved again (at most once per flow).
    """
    gaps: dict[str, list[tuple[float, float]]] = {}
    current = scenario
    duration = scenario.run.duration_s
    for _ in range(len(scenario.flows) + 1):
        if not current.flows:
            break
        try:
            plan = resolve_plan(current, "sptcp")
        except Unreachable as err:
            f = next(f for f in current.flows if f.id == err.flow_id)
            gaps[f.id] = [(f.start_s, f.stop_s if f.stop_s is not None else duration)]
            current = current.model_copy(update={"flows": [g for g in current.flows if g.id != f.id]})
            continue
        for fp in plan.flows:
            spans: list[tuple[float, float]] = []
            for s in fp.segments:
                if s.subflows:
                    continue
                if spans and abs(spans[-1][1] - s.t_start_s) < 1e-9:
                    spans[-1] = (spans[-1][0], s.t_end_s)
                else:
                    spans.append((s.t_start_s, s.t_end_s))
            if spans:
                gaps[fp.id] = spans
        break
    return _without_handovers(scenario, gaps)


def _without_handovers(scenario: Scenario, gaps: dict[str, list[tuple[float, float]]]) -> dict[str, list[tuple[float, float]]]:
    """Drop the gaps that lie within an association in progress of the flow's station (a handover's
    association delay: expected, and shown as a handover on the results page)."""
    if not gaps:
        return gaps
    pending = association_timeline(scenario).associations
    ends = {f.id: (f.src, f.dst) for f in scenario.flows}
    out: dict[str, list[tuple[float, float]]] = {}
    for fid, spans in gaps.items():
        kept = [
            (t0, t1) for t0, t1 in spans
            if not any(a.station in ends[fid] and a.t_start_s <= t0 + 1e-9 and t1 <= a.t_associated_s + 1e-9
                       for a in pending)
        ]
        if kept:
            out[fid] = kept
    return out


def check_connectable(scenario: Scenario) -> None:
    """Refuse a flow whose endpoints no link and no association ever join.

    The graph is the union over the whole run of the links (up or down) and of
    the associations that carry traffic (:func:`subflow.radio.association.association_timeline`),
    so a refusal is certain; the converse is the worker's to find.

    Raises
    ------
    FlowUnreachable
        For the first such flow, with its index in ``scenario.flows``.
    """
    graph = nx.Graph()
    graph.add_nodes_from(n.id for n in scenario.nodes)
    graph.add_edges_from((link.src, link.dst) for link in scenario.links)
    timeline = association_timeline(scenario)
    graph.add_edges_from(
        (a.station, a.access_point) for a in timeline.associations if a.t_associated_s < a.t_end_s
    )
    for i, f in enumerate(scenario.flows):
        if not nx.has_path(graph, f.src, f.dst):
            raise FlowUnreachable(i, f.id, f.src, f.dst)


def _closest_approach(legs: list[Leg]) -> tuple[float, float]:
    """(distance_m, t_s) of the closest approach to the origin of a piecewise-linear trajectory
    (each leg's minimum of ``|p0 + u (p1 − p0)|`` over ``u`` in [0, 1], in closed form)."""
    best = (math.inf, 0.0)
    for g in legs:
        p0 = (g.x0_m, g.y0_m, g.z0_m)
        d = (g.x1_m - g.x0_m, g.y1_m - g.y0_m, g.z1_m - g.z0_m)
        dd = sum(c * c for c in d)
        u = 0.0 if dd == 0 else min(1.0, max(0.0, -sum(a * b for a, b in zip(p0, d)) / dd))
        dist = math.sqrt(sum((a + u * b) ** 2 for a, b in zip(p0, d)))
        if dist < best[0] - 1e-9:
            best = (dist, g.t0_s + u * (g.t1_s - g.t0_s))
    return best


def _unreached_access_points(scenario: Scenario) -> list[ScenarioWarning]:
    """``access_point_unreached`` for each access point no client ever associates with."""
    timeline = association_timeline(scenario)
    reached = {a.access_point for a in timeline.associations if a.t_associated_s < a.t_end_s}
    out = []
    for i, ap in enumerate(scenario.nodes):
        if not isinstance(ap, AccessPointNode) or ap.id in reached:
            continue
        near = [
            (*_closest_approach(relative_legs(timeline.trajectories[c.id], timeline.trajectories[ap.id])), c.id, aps)
            for c, aps in clients(scenario) if any(a.id == ap.id for a in aps)
        ]
        if not near:
            msg = f"No station can associate with access point {ap.id}: the scenario has no station."
        else:
            dist, t, who, _ = min(near)
            msg = (f"No station associates with access point {ap.id} during the run: the closest, {who}, comes to "
                   f"{dist:.0f} m (at {_fmt(round(t, 1))} s), beyond its association range of {ap.range_m:g} m.")
        out.append(ScenarioWarning(code="access_point_unreached", loc=["nodes", i], message=msg))
    return out


def _usable_links(scenario: Scenario) -> set[frozenset[str]]:
    """Node pairs of the links some flow can use: the edges of the blocks on the block-cut tree path between
    the flow's two ends (graph: every link, and every association of the run)."""
    graph = nx.Graph()
    graph.add_edges_from((lk.src, lk.dst) for lk in scenario.links)
    graph.add_edges_from((a.station, a.access_point) for a in association_timeline(scenario).associations
                         if a.t_associated_s < a.t_end_s)
    blocks = [{frozenset(e) for e in edges} for edges in nx.biconnected_component_edges(graph)]
    cuts = set(nx.articulation_points(graph))
    tree = nx.Graph()
    home: dict[str, tuple] = {}
    for k, edges in enumerate(blocks):
        for v in set().union(*edges):
            if v in cuts:
                tree.add_edge(("block", k), ("cut", v))
                home[v] = ("cut", v)
            else:
                home[v] = ("block", k)
                tree.add_node(("block", k))
    usable: set[frozenset[str]] = set()
    for f in scenario.flows:
        a, b = home.get(f.src), home.get(f.dst)
        if a is None or b is None or not nx.has_path(tree, a, b):
            continue
        for kind, k in nx.shortest_path(tree, a, b):  # a tree: its only path
            if kind == "block":
                usable |= blocks[k]
    return usable


def _unused_links(scenario: Scenario) -> list[ScenarioWarning]:
    """``link_unused`` for each link on no loop-free path between the ends of any flow (none without flows)."""
    if not scenario.flows:
        return []
    usable = _usable_links(scenario)
    return [
        ScenarioWarning(code="link_unused", loc=["links", i],
                        message=f"No flow can use link {lk.id} ({lk.src} – {lk.dst}): it lies on no loop-free path "
                                "between the two ends of any flow.")
        for i, lk in enumerate(scenario.links) if frozenset((lk.src, lk.dst)) not in usable
    ]


def _satellites_out_of_view(scenario: Scenario, timeline: SatcomTimeline) -> list[ScenarioWarning]:
    """``satellite_never_in_view`` for each satellite with an orbit whose links are never up."""
    links = timeline.links
    out = []
    for i, n in enumerate(scenario.nodes):
        own = [lk for lk in links.values() if lk.satellite == n.id]
        if not own or any(lk.up for lk in own):
            continue
        top = max(own, key=lambda lk: float(lk.elevation_deg.max()) if lk.elevation_deg.size else -90.0)
        peak = float(top.elevation_deg.max()) if top.elevation_deg.size else math.nan
        out.append(ScenarioWarning(
            code="satellite_never_in_view", loc=["nodes", i],
            message=f"Satellite {n.id} is below the elevation mask of every terminal linked to it for the whole "
                    f"run (highest elevation {peak:.1f}° from {top.terminal})."))
    return out


def _isls_never_up(scenario: Scenario, timeline: SatcomTimeline) -> list[ScenarioWarning]:
    """``isl_never_up`` for each inter-satellite link that is down for the whole run."""
    out = []
    for i, link in enumerate(scenario.links):
        isl = timeline.isls.get(link.id)
        if isl is None or isl.up:
            continue
        sc = scenario.satcom
        clear = float(np.nanmax(isl.clearance_km)) if np.isfinite(isl.clearance_km).any() else math.nan
        closest = float(isl.range_km.min())
        if not clear >= 0:
            why = (f"the Earth and {sc.isl_grazing_altitude_km:g} km of atmosphere block the line of sight (it "
                   f"comes at best {-clear:.0f} km short of clearing them)")
        elif sc.isl_max_range_km is not None and closest > sc.isl_max_range_km:
            why = (f"the satellites stay farther apart than satcom.isl_max_range_km = {sc.isl_max_range_km:g} km "
                   f"(closest {closest:.0f} km)")
        else:
            why = "whenever the line of sight clears the Earth the satellites are beyond satcom.isl_max_range_km"
        out.append(ScenarioWarning(
            code="isl_never_up", loc=["links", i],
            message=f"Inter-satellite link {link.id} ({isl.a} – {isl.b}) is down for the whole run: {why}."))
    return out


def scenario_warnings(scenario: Scenario) -> list[ScenarioWarning]:
    """Warnings of a valid scenario, flows first, then nodes, then links, in document order.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario (callers check the MAX_* limits first: this resolves every interval).

    Returns
    -------
    list of ScenarioWarning
        Empty when nothing looks unintended.
    """
    out: list[ScenarioWarning] = []
    duration = scenario.run.duration_s
    gaps = _flow_gaps(scenario)
    for i, f in enumerate(scenario.flows):
        for t0, t1 in gaps.get(f.id, []):
            stop = f.stop_s if f.stop_s is not None else duration
            whole = t0 <= f.start_s and t1 >= stop
            when = "at any time of the run" if whole else f"from {_fmt(t0)} s to {_fmt(t1)} s"
            out.append(ScenarioWarning(
                code="flow_unreachable", loc=["flows", i],
                message=f"Flow {f.id} ({f.src} → {f.dst}) has no path {when}.", t_start_s=t0, t_end_s=t1))
    for i, n in enumerate(scenario.nodes):
        mob = getattr(n, "mobility", None)
        if isinstance(mob, WaypointsMobility) and mob.points and mob.points[-1].t_s > duration:
            end = mob.points[-1].t_s
            out.append(ScenarioWarning(
                code="path_beyond_run", loc=["nodes", i, "mobility"],
                message=f"The path of {n.id} ends at {_fmt(end)} s, after the run's {_fmt(duration)} s: "
                        f"its last {_fmt(round(end - duration, 3))} s are never travelled.",
                t_start_s=duration, t_end_s=end))
    satcom = satcom_timeline(scenario)
    out += _unreached_access_points(scenario) + _satellites_out_of_view(scenario, satcom)
    out += _isls_never_up(scenario, satcom) + _unused_links(scenario)
    out.sort(key=lambda w: (w.loc[0] != "flows", w.loc[0] != "nodes", w.loc[1]))
    return out
