"""Plan resolution: a scenario and a strategy in, a :class:`~subflow.plan.RunPlan` out.

The same :func:`resolve_plan` serves the CLI, the worker and the tests, so
every front end gets the same numbers.

How a plan is resolved
----------------------
* Resources: each direction of a wired link (``"<link>:<a>><b>"``, the link's
  full ``bandwidth_mbps``) and the shared air of each access point
  (``"air:<ap>"``, ``wireless_bandwidth_mbps``; with a ``rate_table`` its
  capacity follows the slowest associated station, see
  :func:`_air_capacity_changes`).
* SATCOM links (a ground terminal and a satellite with an ``ephemeris``,
  :mod:`subflow.satcom`): down while the satellite is below the terminal's
  elevation mask or not the one its handover policy uses; their delay is the slant
  range / c (plus the link's ``delay_ms``), changing over the run as
  ``delay_changes`` of the plan (path policies see the delay at each interval's middle).
* The run is cut at every association start/end, link event, SATCOM up/down and flow
  start/stop; within an interval the topology (a
  :class:`~subflow.network.Network` of resources: the links that are up and
  the air hops of the associated stations) is fixed.
* Per flow and interval, the strategy's path policy
  (:data:`subflow.path_policies.PATH_POLICIES`, keyed by ``Strategy.paths``)
  gives the subflow paths; consecutive intervals with the same paths merge
  into one segment. E.g. ``sptcp`` (``hop``): one subflow ``<flow>/tcp`` on
  the minimum-hop path, none while an endpoint station's association would
  change it (the engine sees the cut and recovers by RTO); ``mptcp``
  (``interfaces``): one subflow per interface of the multi-homed end, so a
  new association adds a subflow and a disassociation removes one.
* Strategies with ``rate_limits="fdm"`` then get the SDN controller's per-subflow
  rate limits (:func:`subflow.controller.apply_fdm`).
"""

from __future__ import annotations

import math

from subflow.association import Association, association_timeline
from subflow.controller import apply_fdm
from subflow.errors import Unreachable
from subflow.path_policies import PATH_POLICIES, Arc, Interval
from subflow.plan import CapacityChange, DelayChange, FlowPlan, Resource, RunPlan, Segment, SubflowPath
from subflow.satcom import SatcomTimeline, satcom_timeline
from subflow.scenario import AccessPointNode, Scenario, load_scenario
from subflow.strategies import get_strategy


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
            wired.append((link.id, (rid, a, b, link.delay_ms, link.loss, link.bandwidth_mbps)))
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
    return wired, resources


def _with_delay(arc: Arc, delay_ms: float) -> Arc:
    """``arc`` with another delay, ms."""
    rid, a, b, _, p, c = arc
    return (rid, a, b, delay_ms, p, c)


def _air_arcs(station: str, ap: AccessPointNode) -> list[Arc]:
    """The two air hops between ``station`` and access point ``ap`` (resource ``air:<ap>``)."""
    rid = f"air:{ap.id}"
    d, p, c = ap.wireless_delay_ms, ap.wireless_loss, ap.wireless_bandwidth_mbps
    return [(rid, station, ap.id, d, p, c), (rid, ap.id, station, d, p, c)]


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


def _air_capacity_changes(scenario: Scenario, timeline) -> list[CapacityChange]:
    """Air capacity of access points with a ``rate_table``, as it changes over the run.

    A station's air rate is the ``bandwidth_mbps`` of the first table entry whose
    ``distance_m`` is at least its slant range to the (possibly moving) access point
    (the last entry beyond the table).
    Following the 802.11 performance anomaly (Heusse et al., INFOCOM 2003), a
    cell runs at the rate of its slowest associated station, capped by
    ``wireless_bandwidth_mbps``.
    """
    from subflow.association import range_windows
    from subflow.mobility import position3_at

    changes: list[CapacityChange] = []
    for ap in scenario.nodes:
        if not isinstance(ap, AccessPointNode) or not ap.rate_table:
            continue
        mine = [a for a in timeline.associations if a.access_point == ap.id]
        ap_legs = timeline.trajectories[ap.id]
        cuts = {0.0}
        for a in mine:
            cuts.update((a.t_associated_s, a.t_end_s))
            legs = timeline.trajectories[a.station]
            for step in ap.rate_table:
                for t0, t1 in range_windows(legs, ap_legs, step.distance_m):
                    cuts.update(t for t in (t0, t1) if a.t_associated_s < t < a.t_end_s)
        times = sorted(t for t in cuts if t < scenario.run.duration_s)
        current = ap.wireless_bandwidth_mbps
        for t0, t1 in zip(times, times[1:] + [math.inf]):
            mid = t0 + (0.5 * (t1 - t0) if t1 < math.inf else 1e-6)
            rate = ap.wireless_bandwidth_mbps
            for a in mine:
                if a.t_associated_s <= mid < a.t_end_s:
                    x, y, z = position3_at(timeline.trajectories[a.station], mid)
                    cx, cy, cz = position3_at(ap_legs, mid)
                    d = math.sqrt((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2)
                    r = next((st.bandwidth_mbps for st in ap.rate_table if st.distance_m >= d),
                             ap.rate_table[-1].bandwidth_mbps)
                    rate = min(rate, r)
            if rate != current or (t0 == 0.0 and rate != ap.wireless_bandwidth_mbps):
                changes.append(CapacityChange(t_s=t0, resource=f"air:{ap.id}", capacity_mbps=rate))
                current = rate
    return sorted(changes, key=lambda c: (c.t_s, c.resource))


def _satcom_plan(scenario: Scenario, satcom: SatcomTimeline
                 ) -> tuple[dict[str, float], list[DelayChange], list[tuple[str, float, float]], list[dict]]:
    """What the SATCOM links add to the plan (:mod:`subflow.satcom`).

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


def resolve_plan(scenario: Scenario | dict, strategy: str, engine: str = "fluid") -> RunPlan:
    """Resolve ``scenario`` under ``strategy`` into a :class:`~subflow.plan.RunPlan`.

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
    policy = PATH_POLICIES[strat.paths]
    duration = scenario.run.duration_s
    timeline = association_timeline(scenario)
    satcom = satcom_timeline(scenario)
    initial_delay, delay_changes, satcom_outages, satcom_events = _satcom_plan(scenario, satcom)
    wired, resources = _resources(scenario, initial_delay)
    nodes = [n.id for n in scenario.nodes]
    aps = {n.id: n for n in scenario.nodes if isinstance(n, AccessPointNode)}
    capacity = {r.id: r.capacity_mbps for r in resources}
    own_delay = {link.id: link.delay_ms for link in scenario.links}

    outages, link_events = _link_states(scenario)
    outages += satcom_outages
    link_events += satcom_events
    bounds = {0.0, duration}
    for _, t0, t1 in outages:
        bounds.update((t0, t1))
    for a in timeline.associations:
        bounds.update((a.t_start_s, a.t_associated_s, a.t_end_s))
    for f in scenario.flows:
        bounds.add(f.start_s)
        bounds.add(f.stop_s if f.stop_s is not None else duration)
    cuts = sorted(b for b in bounds if 0.0 <= b <= duration)

    def stop_of(f) -> float:
        return f.stop_s if f.stop_s is not None else duration

    intervals: dict[float, Interval] = {}

    def interval(mid: float) -> Interval:
        """The topology and context of the interval containing ``mid`` (built once)."""
        if mid not in intervals:
            down = {link for link, d0, d1 in outages if d0 <= mid < d1}
            active: list[Association] = [a for a in timeline.associations if a.t_associated_s <= mid < a.t_end_s]
            pending = [a for a in timeline.associations if a.t_start_s <= mid < a.t_associated_s]
            arcs = [arc if link not in satcom.links else _with_delay(arc, satcom.links[link].delay_at(mid)
                                                                     + own_delay[link])
                    for link, arc in wired if link not in down]
            for a in active:
                arcs += _air_arcs(a.station, aps[a.access_point])
            intervals[mid] = Interval(
                nodes=nodes,
                arcs=arcs,
                capacity=capacity,
                live_flows=[g for g in scenario.flows if g.start_s <= mid < stop_of(g)],
                pending=[(a.station, _air_arcs(a.station, aps[a.access_point])) for a in pending],
            )
        return intervals[mid]

    flows: list[FlowPlan] = []
    for f in scenario.flows:
        stop = stop_of(f)
        segments: list[Segment] = []
        for t0, t1 in zip(cuts, cuts[1:]):
            if t1 <= f.start_s or t0 >= stop or t1 - t0 <= 0:
                continue
            previous: list[SubflowPath] = segments[-1].subflows if segments else []
            subflows = policy(interval(0.5 * (t0 + t1)), f, previous)
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
        delay_changes=delay_changes,
        flows=flows,
        events=events,
        scenario=scenario.model_dump(mode="json"),
    )
