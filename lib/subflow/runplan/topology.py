"""The scenario's network over time: one model for the run planner and the planning requests.

A scenario's network changes during the run: Wi-Fi hops come and go with range, association and handover
(:mod:`subflow.radio.association`), SATCOM links with satellite visibility and handover and their delay
with the slant range (:mod:`subflow.space.satcom`), links with the scenario's ``link_events``, ad-hoc hops
with the stations' distances. :class:`NetworkTimeline` computes all of it once per scenario; the run is
cut at every change into windows during which the network is fixed, and :meth:`NetworkTimeline.network_at`
gives the :class:`~subflow.planning.network.Network` of a window. The plan's intervals
(:func:`subflow.runplan.resolve.resolve_plan`) are these windows further cut at flow starts and stops.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from subflow.planning.network import Arc, Demand, Network
from subflow.radio.association import Association, association_timeline, radio_budget, range_windows
from subflow.runplan.air_cells import AirRates, air_arcs, has_station_queues, station_queue_resources, table_rate_at
from subflow.runplan.document import CapacityChange, DelayChange, Resource
from subflow.runplan.path_policies import Interval
from subflow.scenario.document import AccessPointNode, Scenario, StationNode, end_points, load_scenario
from subflow.space.mobility import distance_at, to_local
from subflow.space.link_budget import LinkBudgetSeries, link_budgets
from subflow.space.satcom import SatcomTimeline, satcom_timeline


@dataclass(frozen=True)
class AdhocLink:
    """A station-to-station link: resource id ``adhoc:<a>~<b>``, when it is up and its rate steps."""

    resource: str
    a: str
    b: str
    windows: list[tuple[float, float]]
    steps: list[tuple[float, float]]

    def arcs(self, capacity_mbps: float | None = None) -> list[Arc]:
        """Both directions at ``capacity_mbps`` (default: the best rate step, Mbit/s); the delay and loss of an
        ad-hoc hop are 0 (the shared resource carries the rate)."""
        cap = self.steps[0][1] if capacity_mbps is None else capacity_mbps
        return [Arc(self.resource, self.a, self.b, 0.0, 0.0, cap), Arc(self.resource, self.b, self.a, 0.0, 0.0, cap)]


def _resources(scenario: Scenario, initial_delay_ms: dict[str, float] | None = None,
               initial_capacity_mbps: dict[str, float] | None = None,
               ) -> tuple[list[tuple[str, Arc]], list[Resource]]:
    """The wired arcs ``(link_id, arc)`` (both directions of each link, in ``links`` order) and every resource.

    ``initial_delay_ms``: per SATCOM link id, the delay its resources start with (ms; the link's own
    ``delay_ms`` already included); ``initial_capacity_mbps``: per resource id of a budgeted SATCOM link,
    the capacity it starts with (Mbit/s)."""
    wired: list[tuple[str, Arc]] = []
    resources: list[Resource] = []
    initial_delay_ms = initial_delay_ms or {}
    initial_capacity_mbps = initial_capacity_mbps or {}
    for link in scenario.links:
        for a, b in ((link.src, link.dst), (link.dst, link.src)):
            rid = f"{link.id}:{a}>{b}"
            resources.append(
                Resource(
                    id=rid,
                    kind="link",
                    capacity_mbps=initial_capacity_mbps.get(rid, link.bandwidth_mbps),
                    delay_ms=initial_delay_ms.get(link.id, link.delay_ms),
                    loss=link.loss,
                    jitter_ms=link.jitter_ms,
                    queue_packets=link.queue_packets,
                )
            )
            wired.append((link.id, Arc(rid, a, b, link.delay_ms, link.loss,
                                       initial_capacity_mbps.get(rid, link.bandwidth_mbps))))
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
    """What the SATCOM links and inter-satellite links add to the plan (:mod:`subflow.space.satcom`).

    Returns
    -------
    initial_delay_ms : dict
        Link id → delay at its first up time (or t = 0), ms: geometry plus the link's ``delay_ms``.
    delay_changes : list of DelayChange
        Both directions of each link, whenever its delay moved by ``satcom.delay_resolution_ms``.
    outages : list of (link_id, t0_s, t1_s)
        When each SATCOM link is down (satellite below the mask or not the one in use) and each ISL is
        down (line of sight blocked by the Earth and its grazing altitude, or beyond the maximum range).
    events : list of dict
        ``link_down`` / ``link_up`` at each change inside the run (``node``: the terminal; an ISL's first
        satellite).
    """
    timed = satcom.timed_links()
    if not timed:
        return {}, [], [], []
    duration = scenario.run.duration_s
    own = {link.id: link for link in scenario.links}
    steps = satcom.delay_steps(scenario.satcom.delay_resolution_ms)
    initial: dict[str, float] = {}
    changes: list[DelayChange] = []
    events: list[dict] = []
    for lid, lk in timed.items():
        link = own[lid]
        extra = link.delay_ms
        mine = steps.get(lid) or [(0.0, round(lk.delay_at(0.0), 3))]
        initial[lid] = mine[0][1] + extra
        for t, d in mine[1:] if mine[0][0] <= 1e-9 else mine:
            for a, b in ((link.src, link.dst), (link.dst, link.src)):
                changes.append(DelayChange(t_s=t, resource=f"{lid}:{a}>{b}", delay_ms=round(d + extra, 3)))
        for t0, t1 in lk.up:
            if t0 > 1e-9:
                events.append({"t_s": t0, "kind": "link_up", "node": lk.event_node, "link": lid})
            if t1 < duration - 1e-9:
                events.append({"t_s": t1, "kind": "link_down", "node": lk.event_node, "link": lid})
    changes.sort(key=lambda c: (c.t_s, c.resource))
    return initial, changes, satcom.down_intervals(duration), events


@dataclass
class BudgetPlan:
    """What the SATCOM link budgets (:mod:`subflow.space.link_budget`) add to the plan.

    Attributes
    ----------
    initial_capacity_mbps : dict
        Resource id → its capacity at the start (the first MODCOD that closes), Mbit/s.
    capacity_changes : list of CapacityChange
        A resource's capacity whenever its MODCOD changes while its link is up (sorted by time, resource).
    steps : dict
        Resource id → ``(t_s, capacity_mbps)`` steps (the initial one at 0), for the windows' arcs.
    outages : list of (link_id, t0_s, t1_s)
        While no MODCOD closes in a direction of an up link (the link is down both ways).
    events : list of dict
        ``link_down`` / ``link_up`` of those outages (``node``: the terminal).
    """

    initial_capacity_mbps: dict[str, float]
    capacity_changes: list[CapacityChange]
    steps: dict[str, list[tuple[float, float]]]
    outages: list[tuple[str, float, float]]
    events: list[dict]

    def capacity_at(self, t_s: float) -> dict[str, float]:
        """Each budgeted resource's capacity at ``t_s``, Mbit/s."""
        out = {}
        for rid, steps in self.steps.items():
            k = bisect_right([t for t, _ in steps], t_s) - 1
            out[rid] = steps[max(k, 0)][1]
        return out


def _budget_plan(series: dict[str, LinkBudgetSeries], satcom: SatcomTimeline, duration_s: float) -> BudgetPlan:
    """Capacity steps and outages of the budgeted SATCOM links: a new step only when a direction's MODCOD
    changes at a sample where the link is up; an outage while either direction has none."""
    plan = BudgetPlan({}, [], {}, [], [])
    for lid, s in series.items():
        lk = satcom.links[lid]
        rids = (f"{lid}:{s.terminal}>{s.satellite}", f"{lid}:{s.satellite}>{s.terminal}")
        caps = (s.up_capacity_mbps, s.down_capacity_mbps)
        closing = np.flatnonzero((caps[0] > 0) & (caps[1] > 0))
        first = int(closing[0]) if len(closing) else None
        current = [float(caps[d][first]) if first is not None else None for d in (0, 1)]
        for d in (0, 1):
            if current[d] is not None:
                plan.initial_capacity_mbps[rids[d]] = current[d]
                plan.steps[rids[d]] = [(0.0, current[d])]
        down_since: float | None = None
        for k, t in enumerate(s.t_s):
            t = float(t)
            if not lk.is_up(t):
                continue
            closes = caps[0][k] > 0 and caps[1][k] > 0
            if not closes:
                if down_since is None:
                    down_since = t
                    plan.events.append({"t_s": t, "kind": "link_down", "node": s.terminal, "link": lid})
                continue
            if down_since is not None:
                plan.outages.append((lid, down_since, t))
                if t > 0:
                    plan.events.append({"t_s": t, "kind": "link_up", "node": s.terminal, "link": lid})
                down_since = None
            for d in (0, 1):
                value = float(caps[d][k])
                if value != current[d]:
                    current[d] = value
                    plan.capacity_changes.append(CapacityChange(t_s=t, resource=rids[d], capacity_mbps=value))
                    plan.steps[rids[d]].append((t, value))
        if down_since is not None:
            plan.outages.append((lid, down_since, duration_s))
    plan.capacity_changes.sort(key=lambda c: (c.t_s, c.resource))
    return plan


def stop_of(f, duration: float) -> float:
    """When flow ``f`` stops, s: its ``stop_s``, else the run's end."""
    return f.stop_s if f.stop_s is not None else duration


def link_name(resource: str) -> str:
    """The link a plan resource belongs to, as the planners name it: ``"<link>:<a>><b>"`` → ``"<link>"``,
    a per-station air queue ``"air:<ap>:<a>><b>"`` → ``"air:<ap>:<station>"``; ``"air:<ap>"`` and
    ``"adhoc:<a>~<b>"`` stay as they are."""
    if resource.startswith("adhoc:"):
        return resource
    if resource.startswith("air:"):
        parts = resource.split(":")
        if len(parts) == 3:
            a, _, b = parts[2].partition(">")
            return f"air:{parts[1]}:{a if b == parts[1] else b}"
        return resource
    return resource.rpartition(":")[0]


class NetworkTimeline:
    """The scenario's network over the run, built once: which links are up when, at which delay and
    capacity, and which air and ad-hoc hops exist.

    Everything that reads the network over time reads this object: plan resolution
    (:func:`subflow.runplan.resolve.resolve_plan`), the routes and allocation requests
    (:mod:`subflow.analysis.planning`) and failure analysis (:mod:`subflow.analysis.failures`).

    * wired links, both directions, at their ``bandwidth_mbps``, ``delay_ms`` and ``loss``; down during
      ``link_events`` outages;
    * SATCOM links (:mod:`subflow.space.satcom`): down while the satellite is below the terminal's mask or
      not the one its handover policy uses; delay = slant range / c + the link's ``delay_ms``;
    * inter-satellite links: down while the Earth (and its grazing altitude) blocks the line of sight or
      the range exceeds ``satcom.isl_max_range_km``; delay = range / c + the link's ``delay_ms``;
    * air hops (:func:`subflow.runplan.air_cells.air_arcs`) while a station is associated
      (:func:`subflow.radio.association.association_timeline`: range, association and handover);
    * ad-hoc hops while two stations with radios are in range.

    Attributes
    ----------
    scenario : Scenario
        In its local frame's coordinates as given (validated).
    timeline : AssociationTimeline
    satcom : SatcomTimeline
    resources : list of Resource
        Wired link directions, shared air, per-station air queues, ad-hoc hops (the plan's resources).
    delay_changes : list of DelayChange
        SATCOM and ISL delays over the run.
    link_events : list of dict
        ``link_down`` / ``link_up`` events of link events and SATCOM visibility.
    outages : list of (link_id, t0_s, t1_s)
    adhoc : list of AdhocLink
    """

    def __init__(self, scenario: Scenario | dict):
        scenario = load_scenario(scenario)
        self.scenario = scenario
        self.timeline = association_timeline(scenario)
        self.satcom = satcom_timeline(scenario)
        initial_delay, self.delay_changes, satcom_outages, satcom_events = _satcom_plan(scenario, self.satcom)
        self.link_budgets = link_budgets(scenario, self.satcom)
        self.budget = _budget_plan(self.link_budgets, self.satcom, scenario.run.duration_s)
        self.wired, self.resources = _resources(scenario, initial_delay, self.budget.initial_capacity_mbps)
        self.resources += station_queue_resources(scenario, self.timeline)
        self.adhoc = _adhoc_links(scenario, self.timeline)
        for link in self.adhoc:
            self.resources.append(Resource(id=link.resource, kind="air", capacity_mbps=link.steps[0][1],
                                           delay_ms=0.0, loss=0.0, queue_packets=100))
        self.outages, self.link_events = _link_states(scenario)
        self.outages += satcom_outages + self.budget.outages
        self.link_events += satcom_events + self.budget.events
        self.capacity = {r.id: r.capacity_mbps for r in self.resources}
        self.air_rates = AirRates(to_local(scenario), self.timeline)
        self.nodes = [n.id for n in scenario.nodes]
        self.aps = {n.id: n for n in scenario.nodes if isinstance(n, AccessPointNode)}
        self.own_delay = {link.id: link.delay_ms for link in scenario.links}
        self.no_transit = end_points(scenario)
        self._cache: dict[float, Interval] = {}

    @property
    def duration_s(self) -> float:
        """The run's duration, s."""
        return self.scenario.run.duration_s

    def cut_times(self, flows: bool = True) -> list[float]:
        """Where the network changes (every association start/end, link or SATCOM outage, ad-hoc window) and,
        with ``flows``, where a flow starts or stops: times in [0, duration], sorted, both ends included."""
        return _cut_times(self.scenario, self.timeline, self.adhoc, self.outages, flows,
                          [c.t_s for c in self.budget.capacity_changes])

    def windows(self) -> list[tuple[float, float]]:
        """The run cut where the network changes: ``(t_start_s, t_end_s)`` pairs covering [0, duration]."""
        cuts = self.cut_times(flows=False)
        return [(t0, t1) for t0, t1 in zip(cuts, cuts[1:]) if t1 > t0]

    def window_at(self, t_s: float) -> tuple[float, float]:
        """The window holding ``t_s``: ``t0 <= t_s < t1``, the last one closed at the run's end.

        Raises
        ------
        ValueError
            If ``t_s`` is outside [0, duration].
        """
        if not 0.0 <= t_s <= self.duration_s:
            raise ValueError(f"t_s = {t_s:g} s is outside the run, [0, {self.duration_s:g}] s")
        windows = self.windows()
        return next((w for w in windows if w[0] <= t_s < w[1]), windows[-1])

    def interval(self, mid: float) -> Interval:
        """The topology and context of the plan interval containing ``mid`` (s), built once per time."""
        if mid not in self._cache:
            self._cache[mid] = self._build(mid)
        return self._cache[mid]

    def arcs_at(self, t_s: float) -> list[Arc]:
        """The arcs in effect at ``t_s`` as the planners read them: those of the window holding ``t_s``
        (taken at the window's middle, as the plan does), each named by its link (:func:`link_name`:
        the scenario link, ``air:<ap>`` or ``air:<ap>:<station>``, ``adhoc:<a>~<b>``).

        Raises
        ------
        ValueError
            If ``t_s`` is outside [0, duration].
        """
        t0, t1 = self.window_at(t_s)
        return [arc._replace(resource=link_name(arc.resource)) for arc in self.interval(0.5 * (t0 + t1)).arcs]

    def network_at(self, t_s: float, demands: Iterable[Demand] = ()) -> Network:
        """The :class:`~subflow.planning.network.Network` of :meth:`arcs_at` with the forwarding roles (no
        transit through end points) and ``demands``.

        Raises
        ------
        ValueError
            If ``t_s`` is outside [0, duration].
        """
        return Network.from_arcs(self.nodes, self.arcs_at(t_s), demands=demands, name=self.scenario.name,
                                 no_transit=self.no_transit)

    def _build(self, mid: float) -> Interval:
        down = {link for link, d0, d1 in self.outages if d0 <= mid < d1}
        associations = self.timeline.associations
        active: list[Association] = [a for a in associations if a.t_associated_s <= mid < a.t_end_s]
        pending = [a for a in associations if a.t_start_s <= mid < a.t_associated_s]
        sat = self.satcom.timed_links()
        budgeted = self.budget.capacity_at(mid)
        arcs = [arc if link not in sat else _with_delay(arc, sat[link].delay_at(mid) + self.own_delay[link])
                for link, arc in self.wired if link not in down]
        arcs = [arc._replace(capacity_mbps=budgeted[arc.resource]) if arc.resource in budgeted else arc
                for arc in arcs]
        capacity = {**self.capacity, **self.air_rates.at(mid), **budgeted}
        for a in active:
            arcs += [arc._replace(capacity_mbps=capacity[arc.resource])
                     for arc in air_arcs(a.station, self.aps[a.access_point])]
        tr = self.timeline.trajectories
        for link in self.adhoc:
            if any(w0 <= mid < w1 for w0, w1 in link.windows):
                capacity[link.resource] = table_rate_at(link.steps, distance_at(tr[link.a], tr[link.b], mid))
                arcs += link.arcs(capacity[link.resource])
        duration = self.scenario.run.duration_s
        return Interval(
            nodes=self.nodes,
            arcs=arcs,
            capacity=capacity,
            live_flows=[g for g in self.scenario.flows if g.start_s <= mid < stop_of(g, duration)],
            pending=[(a.station, air_arcs(a.station, self.aps[a.access_point])) for a in pending],
            no_transit=self.no_transit,
        )




def _cut_times(scenario: Scenario, timeline, adhoc: list[AdhocLink], outages: list[tuple[str, float, float]],
               flows: bool = True, changes: Iterable[float] = ()) -> list[float]:
    """Where the run is cut: every association start/end, link or SATCOM outage, ad-hoc window, SATCOM MODCOD
    change (``changes``) and (with ``flows``) flow start/stop, in [0, duration], sorted."""
    duration = scenario.run.duration_s
    bounds = {0.0, duration, *changes}
    for link in adhoc:
        for t0, t1 in link.windows:
            bounds.update((t0, t1))
    for _, t0, t1 in outages:
        bounds.update((t0, t1))
    for a in timeline.associations:
        bounds.update((a.t_start_s, a.t_associated_s, a.t_end_s))
    for f in scenario.flows if flows else []:
        bounds.add(f.start_s)
        bounds.add(stop_of(f, duration))
    return sorted(b for b in bounds if 0.0 <= b <= duration)
