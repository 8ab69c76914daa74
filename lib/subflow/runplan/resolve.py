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

from subflow.errors import Unreachable
from subflow.radio.association import hop_budget, hop_rate_steps, range_windows
from subflow.results.voice import flow_packet_bytes, flow_rate_mbps
from subflow.runplan.air_cells import station_queue_capacity_changes, table_rate_at
from subflow.runplan.beams import beam_capacity_changes, beam_resources
from subflow.runplan.controller import apply_fdm
from subflow.runplan.document import CapacityChange, FlowPlan, RunPlan, Segment, SubflowPath
from subflow.runplan.path_policies import PATH_POLICIES
from subflow.runplan.strategies import get_strategy
from subflow.runplan.topology import AdhocLink, NetworkTimeline, stop_of
from subflow.scenario.document import AccessPointNode, Scenario, traffic_class_of
from subflow.space.mobility import distance_at, to_local


def _stepped_capacity(resource: str, cap_mbps: float, members: list[tuple[str, str, float, float, list]],
                      trajectories, duration: float) -> list[CapacityChange]:
    """Capacity changes of a shared resource whose rate follows its members' distances.

    ``members``: ``(node_a, node_b, t_from_s, t_to_s, steps)`` — a hop between two nodes that
    uses the resource over [t_from, t_to) with rate ``table_rate_at(steps, distance)``. The capacity is
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
        rates = [table_rate_at(steps, distance_at(trajectories[a], trajectories[b], mid))
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


def _resolve_flow(f, strat, policy, cuts: list[float], topology: NetworkTimeline) -> FlowPlan:
    """One flow's plan: per interval its subflow paths by ``policy``, consecutive equal intervals merged.

    Raises
    ------
    Unreachable
        If the flow has no path in any interval of its active window.
    """
    stop = stop_of(f, topology.scenario.run.duration_s)
    queueing = topology.scenario.queueing
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
    return FlowPlan(id=f.id, src=f.src, dst=f.dst, rate_mbps=flow_rate_mbps(f), size_bytes=f.size_bytes,
                    start_s=f.start_s, stop_s=stop, kind=f.kind, packet_bytes=flow_packet_bytes(f),
                    dscp=f.dscp, traffic_class=(None if queueing.discipline == "fifo"
                                                else traffic_class_of(queueing, f.dscp).name),
                    multipath=strat.multipath, coupling=strat.coupling, handover=strat.handover, segments=segments)


def _capacity_changes(scenario: Scenario, timeline, flows: list[FlowPlan], adhoc: list[AdhocLink],
                      budgeted: list[CapacityChange] = ()) -> list[CapacityChange]:
    """Every resource's capacity changes, by time: rate-table air, per-station air queues, ad-hoc links,
    SATCOM links with a link budget (``budgeted``: their MODCOD changes)."""
    duration = scenario.run.duration_s
    adhoc_changes = [
        c for link in adhoc for c in _stepped_capacity(
            link.resource, link.steps[0][1], [(link.a, link.b, w0, w1, link.steps) for w0, w1 in link.windows],
            timeline.trajectories, duration)
        if c.capacity_mbps != link.steps[0][1] or c.t_s > 0]
    return sorted(_air_capacity_changes(scenario, timeline)
                  + station_queue_capacity_changes(to_local(scenario), timeline, flows) + adhoc_changes
                  + list(budgeted),
                  key=lambda c: (c.t_s, c.resource))


def _budget_changes(scenario: Scenario, network: NetworkTimeline, flows: list[FlowPlan]) -> list[CapacityChange]:
    """The link budgets' capacity changes, those of shared beams' members replaced by their time shares
    (:func:`subflow.runplan.beams.beam_capacity_changes`)."""
    shared = {r for rids in beam_resources(scenario, network.link_budgets).values() for r in rids}
    if not shared:
        return network.budget.capacity_changes
    return ([c for c in network.budget.capacity_changes if c.resource not in shared]
            + beam_capacity_changes(scenario, network.budget, network.link_budgets, flows))


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
    network = NetworkTimeline(scenario)
    scenario, timeline = network.scenario, network.timeline
    strat = get_strategy(strategy)
    policy = PATH_POLICIES[strat.paths]
    duration = scenario.run.duration_s
    cuts = network.cut_times()
    flows = [_resolve_flow(f, strat, policy, cuts, network) for f in scenario.flows]
    events = sorted(timeline.events + network.link_events, key=lambda e: e["t_s"])
    if strat.rate_limits == "fdm":
        events = sorted(events + apply_fdm(flows, network.resources, duration, scenario.controller.interval_s,
                                           network.budget.capacity_changes),
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
        resources=network.resources,
        capacity_changes=_capacity_changes(scenario, timeline, flows, network.adhoc,
                                           _budget_changes(scenario, network, flows)),
        delay_changes=network.delay_changes,
        flows=flows,
        queueing=scenario.queueing,
        events=events,
        scenario=scenario.model_dump(mode="json"),
    )
