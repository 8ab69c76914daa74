"""Resolve a scenario and a strategy into a run plan for an engine.

The run plan is the engine interface (scenario + strategy in, timelines +
events out): it lists the capacity *resources* (each direction of a wired
link, and the shared air of each access point) and, per flow, the time
segments during which its subflows follow fixed paths. Engines never route;
they execute a plan. The same :func:`resolve_plan` serves the CLI, the worker
and the tests, so every front end gets the same numbers.

Plan rules (v0)
---------------
* Paths are minimum-hop (:func:`subflow.routing.min_hop_path`).
* ``sptcp``: one subflow ``<flow>/tcp`` on the best path of the moment. While
  an endpoint station is associating with an access point that will change
  that path, the flow has no path (the old route is abandoned at handover
  start), so the engine sees the cut and recovers by RTO.
* ``mptcp``: one subflow ``<flow>/<neighbour>`` per interface (incident hop)
  of the multi-homed end (the source, or the destination if only it has
  several), each on the minimum-hop path through that interface. A new
  association adds a subflow; a disassociation removes one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from subflow.association import Association, association_timeline
from subflow.errors import Unreachable
from subflow.routing import Edge, Graph, min_hop_path, path_nodes, tcpbp_path
from subflow.scenario import (
    Identifier,
    AccessPointNode,
    ControllerSettings,
    Scenario,
    TransportSettings,
    load_scenario,
)
from subflow.strategies import get_strategy

PLAN_VERSION = 1


class Resource(BaseModel):
    """A capacity shared by every subflow that crosses it (one direction of a wired
    link, or an access point's air, shared by both directions)."""

    id: str
    kind: Literal["link", "air"]
    capacity_mbps: float = Field(gt=0)
    delay_ms: float = Field(ge=0)
    loss: float = Field(ge=0, lt=1)
    jitter_ms: float = Field(default=0.0, ge=0)
    queue_packets: int = Field(ge=1)


class SubflowPath(BaseModel):
    """One subflow's path; ``rate_limit_mbps`` is a controller-installed cap (null: none)."""

    id: str
    nodes: list[str]
    resources: list[str]
    rate_limit_mbps: float | None = None


class Segment(BaseModel):
    """During [t_start_s, t_end_s) the flow's subflows follow these paths
    (an empty list: no path, the flow is cut)."""

    t_start_s: float
    t_end_s: float
    subflows: list[SubflowPath]


class FlowPlan(BaseModel):
    """One flow of the plan; ``id``, ``src`` and ``dst`` are scenario identifiers
    (:data:`subflow.scenario.Identifier`: engines may use them in file names)."""

    id: Identifier
    src: Identifier
    dst: Identifier
    rate_mbps: float | None
    size_bytes: int | None = None
    start_s: float
    stop_s: float
    multipath: bool
    coupling: Literal["lia", "olia", "uncoupled", "none"] = "none"
    handover: Literal["bare", "zwa", "spurious", "seamless"] = "bare"
    segments: list[Segment]


class CapacityChange(BaseModel):
    """From ``t_s`` on, resource ``resource`` carries ``capacity_mbps``."""

    t_s: float
    resource: str
    capacity_mbps: float = Field(gt=0)


class RunPlan(BaseModel):
    """What an engine executes. ``events`` holds the radio events of the plan."""

    plan_version: Literal[1] = PLAN_VERSION
    strategy: str
    engine: str = "fluid"
    scenario_name: str
    duration_s: float = Field(gt=0)
    interval_s: float = Field(gt=0)
    seed: int
    transport: TransportSettings
    controller: ControllerSettings = Field(default_factory=ControllerSettings)
    resources: list[Resource]
    capacity_changes: list[CapacityChange] = Field(default_factory=list)
    flows: list[FlowPlan]
    events: list[dict] = Field(default_factory=list)
    #: the validated scenario document, for engines that build the topology itself (linux, mininet-wifi)
    scenario: dict | None = None


def _base_graph(scenario: Scenario) -> tuple[Graph, list[Resource]]:
    graph = Graph()
    resources: list[Resource] = []
    for n in scenario.nodes:
        graph.adj.setdefault(n.id, [])
    for link in scenario.links:
        for a, b in ((link.src, link.dst), (link.dst, link.src)):
            rid = f"{link.id}:{a}>{b}"
            resources.append(
                Resource(
                    id=rid,
                    kind="link",
                    capacity_mbps=link.bandwidth_mbps,
                    delay_ms=link.delay_ms,
                    loss=link.loss,
                    jitter_ms=link.jitter_ms,
                    queue_packets=link.queue_packets,
                )
            )
            graph.add(Edge(a, b, rid, link.delay_ms, link.loss))
    for n in scenario.nodes:
        if isinstance(n, AccessPointNode):
            resources.append(
                Resource(
                    id=f"air:{n.id}",
                    kind="air",
                    capacity_mbps=n.wireless_bandwidth_mbps,
                    delay_ms=n.wireless_delay_ms,
                    loss=n.wireless_loss,
                    queue_packets=n.queue_packets,
                )
            )
    return graph, resources


def _link_states(scenario: Scenario) -> tuple[list[tuple[str, float, float]], list[dict]]:
    """Down intervals ``(link_id, t_down_s, t_up_s)`` from ``scenario.link_events``, and their events."""
    duration = scenario.run.duration_s
    ends = {link.id: (link.src, link.dst) for link in scenario.links}
    down_since: dict[str, float] = {}
    intervals: list[tuple[str, float, float]] = []
    events: list[dict] = []
    for ev in sorted(scenario.link_events, key=lambda e: e.t_s):
        if ev.state == "down" and ev.link not in down_since:
            down_since[ev.link] = ev.t_s
            events.append({"t_s": ev.t_s, "kind": "link_down", "node": ends[ev.link][0], "link": ev.link})
        elif ev.state == "up" and ev.link in down_since:
            intervals.append((ev.link, down_since.pop(ev.link), ev.t_s))
            events.append({"t_s": ev.t_s, "kind": "link_up", "node": ends[ev.link][0], "link": ev.link})
    intervals.extend((link, t0, duration) for link, t0 in down_since.items())
    return intervals, events


def _without_links(base: Graph, down: set[str]) -> Graph:
    if not down:
        return base
    return Graph(
        {n: [e for e in edges if e.resource.split(":", 1)[0] not in down] for n, edges in base.adj.items()}
    )


def _air_capacity_changes(scenario: Scenario, timeline) -> list[CapacityChange]:
    """Air capacity of access points with a ``rate_table``, as it changes over the run.

    A station's air rate is the ``bandwidth_mbps`` of the first table entry whose
    ``distance_m`` is at least its distance (the last entry beyond the table).
    Following the 802.11 performance anomaly (Heusse et al., INFOCOM 2003), a
    cell runs at the rate of its slowest associated station, capped by
    ``wireless_bandwidth_mbps``.
    """
    import math

    from subflow.mobility import in_range_intervals, position_at

    changes: list[CapacityChange] = []
    for ap in scenario.nodes:
        if not isinstance(ap, AccessPointNode) or not ap.rate_table:
            continue
        mine = [a for a in timeline.associations if a.access_point == ap.id]
        centre = (ap.position.x_m, ap.position.y_m)
        cuts = {0.0}
        for a in mine:
            cuts.update((a.t_associated_s, a.t_end_s))
            legs = timeline.trajectories[a.station]
            for step in ap.rate_table:
                for t0, t1 in in_range_intervals(legs, centre, step.distance_m):
                    cuts.update(t for t in (t0, t1) if a.t_associated_s < t < a.t_end_s)
        times = sorted(t for t in cuts if t < scenario.run.duration_s)
        current = ap.wireless_bandwidth_mbps
        for t0, t1 in zip(times, times[1:] + [math.inf]):
            mid = t0 + (0.5 * (t1 - t0) if t1 < math.inf else 1e-6)
            rate = ap.wireless_bandwidth_mbps
            for a in mine:
                if a.t_associated_s <= mid < a.t_end_s:
                    x, y = position_at(timeline.trajectories[a.station], mid)
                    d = math.hypot(x - centre[0], y - centre[1])
                    r = next((st.bandwidth_mbps for st in ap.rate_table if st.distance_m >= d),
                             ap.rate_table[-1].bandwidth_mbps)
                    rate = min(rate, r)
            if rate != current or (t0 == 0.0 and rate != ap.wireless_bandwidth_mbps):
                changes.append(CapacityChange(t_s=t0, resource=f"air:{ap.id}", capacity_mbps=rate))
                current = rate
    return sorted(changes, key=lambda c: (c.t_s, c.resource))


def _with_wireless(base: Graph, links: list[tuple[str, AccessPointNode]]) -> Graph:
    g = base.copy()
    for station, ap in links:
        rid = f"air:{ap.id}"
        g.add(Edge(station, ap.id, rid, ap.wireless_delay_ms, ap.wireless_loss))
        g.add(Edge(ap.id, station, rid, ap.wireless_delay_ms, ap.wireless_loss))
    return g


def _subflow(sid: str, src: str, path: list[Edge]) -> SubflowPath:
    return SubflowPath(id=sid, nodes=path_nodes(path, src), resources=[e.resource for e in path])


def _single_path(graph: Graph, flow_id: str, src: str, dst: str, metric: str = "hop") -> list[SubflowPath]:
    path = tcpbp_path(graph, src, dst) if metric == "tcpbp" else min_hop_path(graph, src, dst, metric=metric)
    return [] if path is None else [_subflow(f"{flow_id}/tcp", src, path)]


def _bottleneck(sp: SubflowPath, capacity: dict[str, float]) -> float:
    return min((capacity[r] for r in sp.resources), default=float("inf"))


def _primary(
    graph: Graph,
    flow_id: str,
    src: str,
    dst: str,
    policy: str,
    previous: list[SubflowPath],
    capacity: dict[str, float],
) -> list[SubflowPath]:
    """One SCTP-style primary path among the per-interface paths."""
    candidates = _multipath(graph, flow_id, src, dst)
    if not candidates:
        return []
    if policy == "sticky":
        for sp in previous:
            if any(c.nodes == sp.nodes for c in candidates):
                return [sp]
        return [min(candidates, key=lambda c: (len(c.nodes), c.id))]
    if policy == "fastest":
        return [max(candidates, key=lambda c: (_bottleneck(c, capacity), -len(c.nodes), c.id))]
    return [min(candidates, key=lambda c: (_bottleneck(c, capacity), len(c.nodes), c.id))]


def _multipath(graph: Graph, flow_id: str, src: str, dst: str) -> list[SubflowPath]:
    out_src = graph.adj.get(src, [])
    into_dst = [e for edges in graph.adj.values() for e in edges if e.dst == dst]
    subflows: list[SubflowPath] = []
    if len(out_src) >= len(into_dst):
        for first in sorted(out_src, key=lambda e: (e.dst, e.resource)):
            rest = min_hop_path(graph, first.dst, dst, banned=frozenset({src}))
            if rest is not None:
                subflows.append(_subflow(f"{flow_id}/{first.dst}", src, [first] + rest))
    else:
        for last in sorted(into_dst, key=lambda e: (e.src, e.resource)):
            head = min_hop_path(graph, src, last.src, banned=frozenset({dst}))
            if head is not None:
                subflows.append(_subflow(f"{flow_id}/{last.src}", src, head + [last]))
    return subflows


def _lba_epoch(graph: Graph, flows: list, capacity: dict[str, float], adjust: bool) -> dict[str, list[SubflowPath]]:
    """Subflow routes of ``mptcp-lba`` / ``mptcp-lba-adjust`` for the flows active in one epoch.

    Connections are placed one after the other (by start time, then id) with
    :func:`subflow.mptcp_routing.mptcp_lba` (scMPTCP Table 1), each seeing the
    load and flow count per link of the subflows placed before it, estimated as
    their max-min fair rates (the allocation of scMPTCP's static evaluation,
    §V). With ``adjust``, :func:`subflow.mptcp_routing.mptcp_lba_adjust`
    (Table 2) then re-routes subflows that share a bottleneck, longest first.
    Each direction of an access point's air is one link here (the shared air
    is approximated per direction).
    """
    import numpy as np

    from subflow.mptcp_routing import max_min_fair, mptcp_lba, mptcp_lba_adjust
    from subflow.network import Network

    arcs, edge_of = [], {}
    for edges in graph.adj.values():
        for e in edges:
            if (e.src, e.dst) in edge_of:
                continue  # one arc per node pair (the scenario has at most one link per pair)
            edge_of[(e.src, e.dst)] = e
            arcs.append((e.resource, e.src, e.dst, e.delay_ms, e.loss, capacity[e.resource]))
    net = Network.from_arcs(sorted(graph.adj), arcs)
    placed: dict[str, list[list[str]]] = {}

    def loads() -> tuple[np.ndarray, np.ndarray]:
        arc_paths = [net.arcs_of_path(p) for paths in placed.values() for p in paths]
        rates = max_min_fair(net.capacity_mbps, arc_paths)
        load, count = np.zeros(net.m), np.zeros(net.m)
        for path, r in zip(arc_paths, rates):
            for a in path:
                load[a] += r
                count[a] += 1
        return load, count

    for f in sorted(flows, key=lambda g: (g.start_s, g.id)):
        load, count = loads()
        choice = mptcp_lba(net, f.src, f.dst, load, count)
        placed[f.id] = [list(p.nodes) for p in choice.paths]
    if adjust and placed:
        load, count = loads()
        for adj in mptcp_lba_adjust(net, placed, load, count):
            paths = placed[adj.connection]
            if adj.new_nodes is None:
                paths[adj.subflow] = []
            else:
                paths[adj.subflow] = adj.new_nodes
    out: dict[str, list[SubflowPath]] = {}
    for fid, paths in placed.items():
        subs = []
        for k, nodes in enumerate(paths):
            if len(nodes) < 2:
                continue
            edges = [edge_of[(a, b)] for a, b in zip(nodes, nodes[1:])]
            subs.append(_subflow(f"{fid}/sf{k}", nodes[0], edges))
        out[fid] = subs
    return out


def resolve_plan(scenario: Scenario | dict, strategy: str, engine: str = "fluid") -> RunPlan:
    """Resolve ``scenario`` under ``strategy`` into a :class:`RunPlan`.

    Parameters
    ----------
    scenario : Scenario or dict
        A scenario (validated again here).
    strategy : str
        A name from :data:`subflow.strategies.STRATEGIES`.
    engine : str
        Engine the plan is meant for; recorded in the plan.

    Returns
    -------
    RunPlan

    Raises
    ------
    ScenarioInvalid
        If the scenario is invalid.
    UnknownStrategy
        If ``strategy`` is not registered.
    Unreachable
        If a flow has no path at any time of its active window.
    """
    scenario = load_scenario(scenario)
    strat = get_strategy(strategy)
    duration = scenario.run.duration_s
    timeline = association_timeline(scenario)
    base, resources = _base_graph(scenario)
    aps = {n.id: n for n in scenario.nodes if isinstance(n, AccessPointNode)}
    capacity = {r.id: r.capacity_mbps for r in resources}

    outages, link_events = _link_states(scenario)
    bounds = {0.0, duration}
    for _, t0, t1 in outages:
        bounds.update((t0, t1))
    for a in timeline.associations:
        bounds.update((a.t_start_s, a.t_associated_s, a.t_end_s))
    for f in scenario.flows:
        bounds.add(f.start_s)
        bounds.add(f.stop_s if f.stop_s is not None else duration)
    cuts = sorted(b for b in bounds if 0.0 <= b <= duration)

    def active(mid: float) -> list[Association]:
        return [a for a in timeline.associations if a.t_associated_s <= mid < a.t_end_s]

    def pending(mid: float) -> list[Association]:
        return [a for a in timeline.associations if a.t_start_s <= mid < a.t_associated_s]

    lba_cache: dict[float, dict[str, list[SubflowPath]]] = {}
    flows: list[FlowPlan] = []
    for f in scenario.flows:
        stop = f.stop_s if f.stop_s is not None else duration
        segments: list[Segment] = []
        for t0, t1 in zip(cuts, cuts[1:]):
            if t1 <= f.start_s or t0 >= stop or t1 - t0 <= 0:
                continue
            mid = 0.5 * (t0 + t1)
            down = {link for link, d0, d1 in outages if d0 <= mid < d1}
            graph = _with_wireless(
                _without_links(base, down), [(a.station, aps[a.access_point]) for a in active(mid)]
            )
            if strat.paths in ("lba", "lba-adjust"):
                if mid not in lba_cache:
                    live = [g for g in scenario.flows
                            if g.start_s <= mid < (g.stop_s if g.stop_s is not None else duration)]
                    lba_cache[mid] = _lba_epoch(graph, live, capacity, adjust=strat.paths == "lba-adjust")
                subflows = lba_cache[mid].get(f.id, [])
            elif strat.paths == "interfaces":
                subflows = _multipath(graph, f.id, f.src, f.dst)
            elif strat.paths in ("sticky", "fastest", "slowest"):
                previous = segments[-1].subflows if segments else []
                subflows = _primary(graph, f.id, f.src, f.dst, strat.paths, previous, capacity)
            else:
                subflows = _single_path(graph, f.id, f.src, f.dst, strat.paths)
                for a in pending(mid):
                    if a.station in (f.src, f.dst):
                        after = _with_wireless(graph, [(a.station, aps[a.access_point])])
                        if _single_path(after, f.id, f.src, f.dst, strat.paths) != subflows:
                            subflows = []  # the old route is abandoned during the handover
            if segments and segments[-1].subflows == subflows:
                segments[-1].t_end_s = t1
            else:
                segments.append(Segment(t_start_s=t0, t_end_s=t1, subflows=subflows))
        if not any(s.subflows for s in segments):
            raise Unreachable(f.id, f.src, f.dst)
        flows.append(
            FlowPlan(
                id=f.id,
                src=f.src,
                dst=f.dst,
                rate_mbps=f.rate_mbps,
                size_bytes=f.size_bytes,
                start_s=f.start_s,
                stop_s=stop,
                multipath=strat.multipath,
                coupling=strat.coupling,
                handover=strat.handover,
                segments=segments,
            )
        )
    events = sorted(timeline.events + link_events, key=lambda e: e["t_s"])
    if strat.rate_limits == "fdm":
        from subflow.controller import apply_fdm

        events = sorted(events + apply_fdm(flows, resources, duration, scenario.controller.interval_s),
                        key=lambda e: e["t_s"])
    return RunPlan(
        strategy=strat.name,
        engine=engine,
        scenario_name=scenario.name,
        duration_s=duration,
        interval_s=scenario.run.interval_s,
        seed=scenario.run.seed,
        transport=scenario.transport,
        controller=scenario.controller,
        resources=resources,
        capacity_changes=_air_capacity_changes(scenario, timeline),
        flows=flows,
        events=events,
        scenario=scenario.model_dump(mode="json"),
    )
