"""Plan resolution: a scenario and a strategy in, a :class:`~subflow.runplan.document.RunPlan` out.

The same :func:`resolve_plan` serves the CLI, the worker and the tests, so
every front end gets the same numbers.

How a plan is resolved
----------------------
* Resources: each direction of a wired link (``"<link>:<a>><b>"``, the link's
  full ``bandwidth_mbps``) and the air of each access point: with a ``radio``
  (and no ``rate_table``) one queue per associated station and direction
  (``"air:<ap>:<a>><b>"``), each with its share of the cell's 802.11 DCF
  airtime (:mod:`subflow.runplan.air_cells`); otherwise one shared ``"air:<ap>"`` at
  ``wireless_bandwidth_mbps``, or with a ``rate_table`` at the slowest associated
  station's rate (:func:`_air_capacity_changes`).
* SATCOM links (a ground terminal and a satellite with an ``ephemeris``,
  :mod:`subflow.space.satcom`): down while the satellite is below the terminal's
  elevation mask or not the one its handover policy uses; their delay is the slant
  range / c (plus the link's ``delay_ms``), changing over the run as
  ``delay_changes`` of the plan (path policies see the delay at each interval's middle).
* The run is cut at every association start/end, link event, SATCOM up/down and flow
  start/stop; within an interval the topology (a
  :class:`~subflow.planning.network.Network` of resources: the links that are up and
  the air hops of the associated stations) is fixed.
* Per flow and interval, the strategy's path policy
  (:data:`subflow.runplan.path_policies.PATH_POLICIES`, keyed by ``Strategy.paths``)
  gives the subflow paths; consecutive intervals with the same paths merge
  into one segment. E.g. ``sptcp`` (``hop``): one subflow ``<flow>/tcp`` on
  the minimum-hop path, none while an endpoint station's association would
  change it (the engine sees the cut and recovers by RTO); ``mptcp``
  (``interfaces``): one subflow per interface of the multi-homed end, so a
  new association adds a subflow and a disassociation removes one.
* Strategies with ``rate_limits="fdm"`` then get the SDN controller's per-subflow
  rate limits (:func:`subflow.runplan.controller.apply_fdm`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from subflow.errors import Unreachable
from subflow.planning.network import Arc
from subflow.radio.association import (Association, association_timeline, hop_budget, hop_rate_steps, radio_budget,
                                 range_windows)
from subflow.runplan.air_cells import (
    air_arcs,
    has_station_queues,
    station_queue_capacity_changes,
    station_queue_resources,
)
from subflow.runplan.controller import apply_fdm
from subflow.runplan.document import CapacityChange, DelayChange, FlowPlan, Resource, RunPlan, Segment, SubflowPath
from subflow.runplan.path_policies import Interval, PATH_POLICIES
from subflow.runplan.strategies import get_strategy
from subflow.scenario.document import AccessPointNode, Scenario, StationNode, end_points, load_scenario
from subflow.space.mobility import distance_at, to_local
from subflow.space.satcom import SatcomTimeline, satcom_timeline


@dataclass(frozen=True)
class AdhocLink:
    """A station-to-station link: resource id ``adhoc:<a>~<b>``, when it is up and its rate steps."""

    resource: str
    a: str
    b: str
    windows: list[tuple[float, float]]
    steps: list[tuple[float, float]]

    def arcs(self) -> list[Arc]:
        """Both directions; the delay and loss of an ad-hoc hop are 0 (the shared resource carries the rate)."""
        cap = self.steps[0][1]
        return [Arc(self.resource, self.a, self.b, 0.0, 0.0, cap), Arc(self.resource, self.b, self.a, 0.0, 0.0, cap)]


def _resources(scenario: Scenario, initial_delay_ms: dict[str, float] | None = None,
               ) -> tuple[list[tuple[str, Arc]], list[Resource]]:
    """The wired arcs ``(link_id, arc)`` (both directions of each link, in ``links`` order) and every resource.

    ``initial_delay_ms``: per SATCOM link id, the delay its resources start with (ms; the link's own
    ``delay_ms`` already included)."""
    wired: list[tuple[str, Arc]] = []
    resources: list[Resource] = []
    initial_delay_ms = initial_delay_ms or {}
    for link in scenario.links:
        for a, b in ((link.src, link.dst), (link.dst, link.src)):
            rid = f"{link.id}:{a}>{b}"
            resources.append(
                Resource(
                    id=rid,
                    kind="link",
                    capacity_mbps=link.bandwidth_mbps,
                    delay_ms=initial_delay_ms.get(link.id, link.delay_ms),
                    loss=link.loss,
                    jitter_ms=link.jitter_ms,
                    queue_packets=link.queue_packets,
                )
            )
            wired.append((link.id, Arc(rid, a, b, link.delay_ms, link.loss, link.bandwidth_mbps)))
    for n in scenario.nodes:
        if isinstance(n, AccessPointNode) and not has_station_queues(n):
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
    return wired, resources


def _with_delay(arc: Arc, delay_ms: float) -> Arc:
    """``arc`` with another delay, ms."""
    return arc._replace(delay_ms=delay_ms)


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


def _rate_at(steps: list[tuple[float, float]], d: float) -> float:
    """The rate of the first step whose distance is at least ``d`` (the last beyond the table)."""
    return next((r for dist, r in steps if dist >= d), steps[-1][1])


def _stepped_capacity(resource: str, cap_mbps: float, members: list[tuple[str, str, float, float, list]],
                      trajectories, duration: float) -> list[CapacityChange]:
    """Capacity changes of a shared resource whose rate follows its members' distances.

    ``members``: ``(node_a, node_b, t_from_s, t_to_s, steps)`` — a hop between two nodes that
    uses the resource over [t_from, t_to) with rate ``_rate_at(steps, distance)``. The capacity is
    the smallest member rate, capped by ``cap_mbps``; with no member present it is ``cap_mbps``.
    """
    cuts = {0.0}
    for a, b, t_from, t_to, steps in members:
        cuts.update((t_from, t_to))
        for dist, _ in steps:
            for t0, t1 in range_windows(trajectories[a], trajectories[b], dist):
                cuts.update(t for t in (t0, t1) if t_from < t < t_to)
    times = sorted(t for t in cuts if t < duration)
    changes: list[CapacityChange] = []
    current = cap_mbps
    for t0, t1 in zip(times, times[1:] + [math.inf]):
        mid = t0 + (0.5 * (t1 - t0) if t1 < math.inf else 1e-6)
        rates = [_rate_at(steps, distance_at(trajectories[a], trajectories[b], mid))
                 for a, b, t_from, t_to, steps in members if t_from <= mid < t_to]
        rate = min([cap_mbps, *rates])
        if rate != current or (t0 == 0.0 and rate != cap_mbps):
            changes.append(CapacityChange(t_s=t0, resource=resource, capacity_mbps=rate))
            current = rate
    return changes


def _air_capacity_changes(scenario: Scenario, timeline) -> list[CapacityChange]:
    """Air capacity of access points with a ``rate_table``, as it changes over the run.

    A station's air rate is the ``bandwidth_mbps`` of the first table entry whose ``distance_m`` is
    at least its slant range to the (possibly moving) access point (the last entry beyond the
    table), and the cell runs at its slowest associated station's rate, capped by
    ``wireless_bandwidth_mbps``. Access points with a radio and no table have per-station queues
    instead (:mod:`subflow.runplan.air_cells`).
    """
    local = to_local(scenario)
    nodes = {n.id: n for n in local.nodes}
    changes: list[CapacityChange] = []
    for ap in local.nodes:
        if not isinstance(ap, AccessPointNode) or not ap.rate_table:
            continue
        members = [(a.station, ap.id, a.t_associated_s, a.t_end_s,
                    hop_rate_steps(hop_budget(local, ap, nodes[a.station], timeline.trajectories), ap))
                   for a in timeline.associations if a.access_point == ap.id]
        changes += _stepped_capacity(f"air:{ap.id}", ap.wireless_bandwidth_mbps, members, timeline.trajectories,
                                     scenario.run.duration_s)
    return changes


def _adhoc_links(scenario: Scenario, timeline) -> list[AdhocLink]:
    """The ad-hoc (station-to-station) links of a scenario with ``radio.adhoc_links``: every pair of
    stations with a radio, the windows when they are within each other's radio range and the rate
    steps, from the budget of the first station's radio (:func:`subflow.radio.association.radio_budget`)."""
    if not scenario.radio.adhoc_links:
        return []
    local = to_local(scenario)
    stations = sorted((n for n in local.nodes if isinstance(n, StationNode) and n.radio is not None),
                      key=lambda n: n.id)
    tr = timeline.trajectories
    out: list[AdhocLink] = []
    for i, a in enumerate(stations):
        for b in stations[i + 1:]:
            budget = radio_budget(local, a.radio, b.radio, tr[a.id][0].z0_m, tr[b.id][0].z0_m)
            windows = range_windows(tr[a.id], tr[b.id], budget.range_m())
            if windows:
                out.append(AdhocLink(f"adhoc:{a.id}~{b.id}", a.id, b.id, windows, budget.rate_steps()))
    return out


def _satcom_plan(scenario: Scenario, satcom: SatcomTimeline
                 ) -> tuple[dict[str, float], list[DelayChange], list[tuple[str, float, float]], list[dict]]:
    """What the SATCOM links add to the plan (:mod:`subflow.space.satcom`).

    Returns
    -------
    initial_delay_ms : dict
        Link id → delay at its first up time (or t = 0), ms: geometry plus the link's ``delay_ms``.
    delay_changes : list of DelayChange
        Both directions of each link, whenever its delay moved by ``satcom.delay_resolution_ms``.
    outages : list of (link_id, t0_s, t1_s)
        When each SATCOM link is down (satellite below the mask or not the one in use).
    events : list of dict
        ``link_down`` / ``link_up`` at each change inside the run (``node``: the terminal).
    """
    if not satcom.links:
        return {}, [], [], []
    duration = scenario.run.duration_s
    own = {link.id: link for link in scenario.links}
    steps = satcom.delay_steps(scenario.satcom.delay_resolution_ms)
    initial: dict[str, float] = {}
    changes: list[DelayChange] = []
    events: list[dict] = []
    for lid, lk in satcom.links.items():
        link = own[lid]
        extra = link.delay_ms
        mine = steps.get(lid) or [(0.0, round(lk.delay_at(0.0), 3))]
        initial[lid] = mine[0][1] + extra
        for t, d in mine[1:] if mine[0][0] <= 1e-9 else mine:
            for a, b in ((link.src, link.dst), (link.dst, link.src)):
                changes.append(DelayChange(t_s=t, resource=f"{lid}:{a}>{b}", delay_ms=round(d + extra, 3)))
        for t0, t1 in lk.up:
            if t0 > 1e-9:
                events.append({"t_s": t0, "kind": "link_up", "node": lk.terminal, "link": lid})
            if t1 < duration - 1e-9:
                events.append({"t_s": t1, "kind": "link_down", "node": lk.terminal, "link": lid})
    changes.sort(key=lambda c: (c.t_s, c.resource))
    return initial, changes, satcom.down_intervals(duration), events


def _stop_of(f, duration: float) -> float:
    return f.stop_s if f.stop_s is not None else duration


class _Topology:
    """The run's network interval by interval: :meth:`interval` builds (once) the :class:`Interval` that holds
    at a time — the wired links that are up (SATCOM links at their slant-range delay), the air hops of the
    associations that carry traffic, the ad-hoc links in range."""

    def __init__(self, scenario: Scenario, timeline, satcom: SatcomTimeline, wired: list[tuple[str, Arc]],
                 adhoc: list[AdhocLink], outages: list[tuple[str, float, float]], capacity: dict[str, float]):
        self.scenario, self.timeline, self.satcom = scenario, timeline, satcom
        self.wired, self.adhoc, self.outages, self.capacity = wired, adhoc, outages, capacity
        self.nodes = [n.id for n in scenario.nodes]
        self.aps = {n.id: n for n in scenario.nodes if isinstance(n, AccessPointNode)}
        self.own_delay = {link.id: link.delay_ms for link in scenario.links}
        self.no_transit = end_points(scenario)
        self._cache: dict[float, Interval] = {}

    def interval(self, mid: float) -> Interval:
        """The topology and context of the interval containing ``mid`` (s)."""
        if mid not in self._cache:
            self._cache[mid] = self._build(mid)
        return self._cache[mid]

    def _build(self, mid: float) -> Interval:
        down = {link for link, d0, d1 in self.outages if d0 <= mid < d1}
        associations = self.timeline.associations
        active: list[Association] = [a for a in associations if a.t_associated_s <= mid < a.t_end_s]
        pending = [a for a in associations if a.t_start_s <= mid < a.t_associated_s]
        sat = self.satcom.links
        arcs = [arc if link not in sat else _with_delay(arc, sat[link].delay_at(mid) + self.own_delay[link])
                for link, arc in self.wired if link not in down]
        for a in active:
            arcs += air_arcs(a.station, self.aps[a.access_point])
        for link in self.adhoc:
            if any(w0 <= mid < w1 for w0, w1 in link.windows):
                arcs += link.arcs()
        duration = self.scenario.run.duration_s
        return Interval(
            nodes=self.nodes,
            arcs=arcs,
            capacity=self.capacity,
            live_flows=[g for g in self.scenario.flows if g.start_s <= mid < _stop_of(g, duration)],
            pending=[(a.station, air_arcs(a.station, self.aps[a.access_point])) for a in pending],
            no_transit=self.no_transit,
        )


def _cut_times(scenario: Scenario, timeline, adhoc: list[AdhocLink], outages: list[tuple[str, float, float]]
               ) -> list[float]:
    """Where the run is cut: every association start/end, link or SATCOM outage, ad-hoc window and flow
    start/stop, in [0, duration], sorted."""
    duration = scenario.run.duration_s
    bounds = {0.0, duration}
    for link in adhoc:
        for t0, t1 in link.windows:
            bounds.update((t0, t1))
    for _, t0, t1 in outages:
        bounds.update((t0, t1))
    for a in timeline.associations:
        bounds.update((a.t_start_s, a.t_associated_s, a.t_end_s))
    for f in scenario.flows:
        bounds.add(f.start_s)
        bounds.add(_stop_of(f, duration))
    return sorted(b for b in bounds if 0.0 <= b <= duration)


def _resolve_flow(f, strat, policy, cuts: list[float], topology: _Topology) -> FlowPlan:
    """One flow's plan: per interval its subflow paths by ``policy``, consecutive equal intervals merged.

    Raises
    ------
    Unreachable
        If the flow has no path in any interval of its active window.
    """
    stop = _stop_of(f, topology.scenario.run.duration_s)
    segments: list[Segment] = []
    for t0, t1 in zip(cuts, cuts[1:]):
        if t1 <= f.start_s or t0 >= stop or t1 - t0 <= 0:
            continue
        previous: list[SubflowPath] = segments[-1].subflows if segments else []
        subflows = policy(topology.interval(0.5 * (t0 + t1)), f, previous)
        if segments and segments[-1].subflows == subflows:
            segments[-1].t_end_s = t1
        else:
            segments.append(Segment(t_start_s=t0, t_end_s=t1, subflows=subflows))
    if not any(s.subflows for s in segments):
        raise Unreachable(f.id, f.src, f.dst)
    return FlowPlan(id=f.id, src=f.src, dst=f.dst, rate_mbps=f.rate_mbps, size_bytes=f.size_bytes,
                    start_s=f.start_s, stop_s=stop, multipath=strat.multipath, coupling=strat.coupling,
                    handover=strat.handover, segments=segments)


def _capacity_changes(scenario: Scenario, timeline, flows: list[FlowPlan], adhoc: list[AdhocLink]
                      ) -> list[CapacityChange]:
    """Every resource's capacity changes, by time: rate-table air, per-station air queues, ad-hoc links."""
    duration = scenario.run.duration_s
    adhoc_changes = [
        c for link in adhoc for c in _stepped_capacity(
            link.resource, link.steps[0][1], [(link.a, link.b, w0, w1, link.steps) for w0, w1 in link.windows],
            timeline.trajectories, duration)
        if c.capacity_mbps != link.steps[0][1] or c.t_s > 0]
    return sorted(_air_capacity_changes(scenario, timeline)
                  + station_queue_capacity_changes(to_local(scenario), timeline, flows) + adhoc_changes,
                  key=lambda c: (c.t_s, c.resource))


def resolve_plan(scenario: Scenario | dict, strategy: str, engine: str = "fluid") -> RunPlan:
    """Resolve ``scenario`` under ``strategy`` into a :class:`~subflow.runplan.document.RunPlan`.

    Parameters
    ----------
    scenario : Scenario or dict
        A scenario (validated again here).
    strategy : str
        A name from :data:`subflow.runplan.strategies.STRATEGIES`.
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
    policy = PATH_POLICIES[strat.paths]
    duration = scenario.run.duration_s
    timeline = association_timeline(scenario)
    satcom = satcom_timeline(scenario)
    initial_delay, delay_changes, satcom_outages, satcom_events = _satcom_plan(scenario, satcom)
    wired, resources = _resources(scenario, initial_delay)
    resources += station_queue_resources(scenario, timeline)
    adhoc = _adhoc_links(scenario, timeline)
    for link in adhoc:
        resources.append(Resource(id=link.resource, kind="air", capacity_mbps=link.steps[0][1], delay_ms=0.0,
                                  loss=0.0, queue_packets=100))
    outages, link_events = _link_states(scenario)
    outages += satcom_outages
    link_events += satcom_events
    topology = _Topology(scenario, timeline, satcom, wired, adhoc, outages, {r.id: r.capacity_mbps for r in resources})
    cuts = _cut_times(scenario, timeline, adhoc, outages)
    flows = [_resolve_flow(f, strat, policy, cuts, topology) for f in scenario.flows]
    events = sorted(timeline.events + link_events, key=lambda e: e["t_s"])
    if strat.rate_limits == "fdm":
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
        capacity_changes=_capacity_changes(scenario, timeline, flows, adhoc),
        delay_changes=delay_changes,
        flows=flows,
        events=events,
        scenario=scenario.model_dump(mode="json"),
    )
