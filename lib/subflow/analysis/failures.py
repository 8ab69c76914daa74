"""Failure analysis (what-if): the plan again with one link or one node removed.

For every single link failure (and, on request, every single node failure) the
routes of the scenario's flows and the rates they get are computed again on the
network without that element, and each flow's *impact* is reported against the
intact plan: the rate still delivered, whether its route changed, and how its
one-way route delay changed. Failures are sorted worst first (most rate lost, then
most flows cut off, then the largest added delay). This is planning only, no engine
runs: the numbers are those of ``POST /api/scenarios/{id}/routes`` and ``/allocations``
on the reduced network.

The network is the run's (:class:`subflow.runplan.topology.NetworkTimeline`): Wi-Fi
hops of the associated stations, SATCOM links while their satellite is in use, at
their slant-range delay, link events. ``t_s`` picks one time; without it every window
of the run is analysed and each failure is reported at the window where it loses the
most (``FailureCase.t_s``).

Rates: flows with a rate (``rate_mbps``; a voice flow's codec rate on the wire, a video flow's bit rate:
:func:`subflow.results.voice.flow_rate_mbps`) get the Flow Deviation allocation (demands that do
not fit tempered, as ``/allocations`` does); bulk flows share what the rated flows
leave, max-min fairly along their routes (progressive filling, the fair share TCP
flows converge to on their bottlenecks). A failed link removes both its directions;
a failed node removes every link and air hop that ends at it, and a flow from or to
a failed node delivers nothing.

References
----------
.. [1] L. Fratta, M. Gerla, L. Kleinrock, "The flow deviation method: an approach
   to store-and-forward communication network design", Networks 3 (1973) — the
   allocation of :func:`subflow.planning.fdm.allocate_fdm` recomputed per failure.
.. [2] J. Y. Yen, "Finding the k shortest loopless paths in a network" (1971) —
   :func:`subflow.planning.shortest_paths.shortest_path` gives each flow's route.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from subflow.errors import LimitExceeded, ScenarioInvalid
from subflow.planning.fdm import FdmOptions, allocate_fdm
from subflow.planning.mptcp_path_selection import max_min_fair
from subflow.planning.network import Demand, Network, RoutingMetric
from subflow.planning.shortest_paths import shortest_path
from subflow.results.voice import flow_rate_mbps
from subflow.runplan.topology import NetworkTimeline, stop_of
from subflow.scenario.document import Identifier, SatelliteNode, Scenario, load_scenario


class RiskGroup(BaseModel):
    """Elements that fail together (a shared risk: one power supply, one satellite operator, one UAV)."""

    model_config = ConfigDict(extra="forbid")

    id: Identifier
    links: list[str] = Field(default_factory=list, max_length=1000)
    nodes: list[str] = Field(default_factory=list, max_length=1000)


class FailureRequest(BaseModel):
    """Which failures to analyse and how to plan.

    ``links``: ids of the links to fail one at a time (null: every link);
    ``nodes``: also fail every node one at a time; ``metric``: the routing metric of
    each flow's route; ``include_propagation``: as in the allocation request;
    ``t_s``: the time analysed (null: every window of the run, each case at its worst);
    ``k``: elements failing together (every combination of ``k`` of the links, and nodes with
    ``nodes``); ``shared_risk``: also fail each built-in shared-risk group (every SATCOM link; the
    links to each constellation's satellites); ``groups``: the planner's own groups.
    """

    model_config = ConfigDict(extra="forbid")

    metric: RoutingMetric = "delay"
    links: list[str] | None = Field(default=None, max_length=10_000)
    nodes: bool = Field(default=False, strict=True)
    include_propagation: bool = Field(default=True, strict=True)
    t_s: float | None = Field(default=None, ge=0, le=1e7,
                              description="The time analysed, s into the run; null: every window of the run, "
                                          "each failure reported where it loses the most.")
    k: int = Field(default=1, ge=1, le=3, description="How many elements fail at once: every combination of k "
                                                      "of the links (and of the nodes, with `nodes`).")
    shared_risk: bool = Field(default=False, strict=True,
                              description="Also fail each built-in shared-risk group at once: every SATCOM link "
                                          "(`satcom`), the links to each constellation (`constellation:<id>`).")
    groups: list[RiskGroup] | None = Field(default=None, max_length=100,
                                           description="Shared-risk groups of the planner's, each failed at once.")


class FlowImpact(BaseModel):
    """One flow under one failure, against the intact plan.

    ``requested_mbps``: the flow's ``rate_mbps`` (null for a bulk flow);
    ``delivered_mbps`` / ``intact_delivered_mbps``: the rate after and before the failure
    (Mbit/s; 0 if cut off): the FDM allocation's for a rated flow, the max-min fair share
    of what rated flows leave for a bulk flow;
    ``lost_mbps`` = intact − delivered; ``path`` / ``intact_path``: the route's node
    ids under ``metric`` (empty when unreachable); ``delay_ms`` / ``intact_delay_ms``:
    one-way route delay (null when unreachable); ``delay_change_ms``: their
    difference (null when either is unreachable).
    """

    flow: str
    src: str
    dst: str
    reachable: bool
    path_changed: bool
    path: list[str]
    intact_path: list[str]
    delay_ms: float | None
    intact_delay_ms: float | None
    delay_change_ms: float | None
    requested_mbps: float | None
    delivered_mbps: float | None
    intact_delivered_mbps: float | None
    lost_mbps: float


class FailureCase(BaseModel):
    """One failure: ``kind`` link, node, combination (``k`` elements) or group (a shared risk),
    ``element`` its name, ``links`` the links it removes, ``nodes`` the nodes it removes.

    Totals over flows: ``lost_mbps`` (Σ lost demand, Mbit/s), ``flows_cut`` (flows with no
    route left), ``paths_changed``, ``max_delay_change_ms`` (null if no flow keeps a route
    with a known change); ``mean_delay_s`` / ``max_utilization``: of the re-planned FDM
    allocation (null without rated flows still reachable); ``flows`` worst first.
    """

    kind: Literal["link", "node", "combination", "group"]
    element: str = Field(description="The link or node id; a combination's ids joined by `+`; a group's id.")
    links: list[str]
    nodes: list[str] = Field(default_factory=list)
    t_s: float = Field(description="Start of the window analysed (the worst one over the run), s.")
    lost_mbps: float
    flows_cut: int
    paths_changed: int
    max_delay_change_ms: float | None
    mean_delay_s: float | None
    max_utilization: float | None
    flows: list[FlowImpact]


class FailureReport(BaseModel):
    """The failure analysis document (``subflow failures --json``, ``POST
    /api/scenarios/{id}/failures``): the intact plan's per-flow figures and the cases, worst first."""

    metric: str
    t_s: float | None = Field(description="The time asked for, s; null: the whole run.")
    duration_s: float = Field(description="The run's duration, s.")
    intact_delivered_mbps: float = Field(description="Σ delivered rate of the intact plan at the start of the "
                                                     "time analysed (t_s, or t = 0), Mbit/s.")
    intact_mean_delay_s: float | None
    cases: list[FailureCase]


def failure_count(scenario: Scenario, request: FailureRequest) -> int:
    """How many failures :func:`analyse_failures` evaluates: combinations of ``k`` of the elements, plus groups."""
    n_links = len(scenario.links) if request.links is None else len(set(request.links))
    n = n_links + (len(scenario.nodes) if request.nodes else 0)
    return math.comb(n, request.k) + len(_groups(scenario, request))


def _groups(sc: Scenario, request: FailureRequest) -> list[tuple[str, set[str], set[str]]]:
    """``(id, links, nodes)`` of every shared-risk group asked for (built-in ones, then the request's)."""
    out: list[tuple[str, set[str], set[str]]] = []
    if request.shared_risk:
        sats = {n.id: n for n in sc.nodes if isinstance(n, SatelliteNode)}
        satcom = {l.id for l in sc.links if l.src in sats or l.dst in sats}
        if satcom:
            out.append(("satcom", satcom, set()))
        for name in sorted({n.constellation for n in sats.values() if n.constellation}):
            members = {s for s, n in sats.items() if n.constellation == name}
            out.append((f"constellation:{name}",
                        {l.id for l in sc.links if l.src in members or l.dst in members}, set()))
    for g in request.groups or []:
        out.append((g.id, set(g.links), set(g.nodes)))
    return out


def _failures(sc: Scenario, request: FailureRequest) -> list[tuple[str, str, set[str], set[str]]]:
    """``(kind, element, links removed, nodes removed)`` of every failure asked for."""
    links = list(dict.fromkeys(request.links)) if request.links is not None else [l.id for l in sc.links]
    elements: list[tuple[str, str]] = [("link", lid) for lid in links]
    if request.nodes:
        elements += [("node", n.id) for n in sc.nodes]
    out: list[tuple[str, str, set[str], set[str]]] = []
    for combo in itertools.combinations(elements, request.k):
        nodes = {e for kind, e in combo if kind == "node"}
        removed = {e for kind, e in combo if kind == "link"} | {l.id for l in sc.links if {l.src, l.dst} & nodes}
        kind = combo[0][0] if len(combo) == 1 else "combination"
        out.append((kind, "+".join(e for _, e in combo), removed, nodes))
    for gid, glinks, gnodes in _groups(sc, request):
        out.append(("group", gid, glinks | {l.id for l in sc.links if {l.src, l.dst} & gnodes}, gnodes))
    return out


def _live(sc: Scenario, t_s: float) -> list:
    return [f for f in sc.flows if f.start_s <= t_s < stop_of(f, sc.run.duration_s)]


def _plan(network: NetworkTimeline, t_s: float, removed_links: set[str], removed_nodes: set[str],
          request: FailureRequest):
    """Routes and delivered rates of the flows live at ``t_s`` on the network then, without the failed elements.

    Returns ``(routes, delivered, mean_delay_s, max_utilization)``: ``routes[flow] = Path | None``,
    ``delivered[flow] = Mbit/s`` (every live flow: FDM for rated flows, max-min fair share for bulk ones).
    """
    arcs = [a for a in network.arcs_at(t_s) if a.resource not in removed_links
            and a.src not in removed_nodes and a.dst not in removed_nodes]
    net = Network.from_arcs(network.nodes, arcs, no_transit=network.no_transit, name=network.scenario.name)
    flows = _live(network.scenario, t_s)
    routes: dict[str, Any] = {}
    for f in flows:
        cut = f.src in removed_nodes or f.dst in removed_nodes
        routes[f.id] = None if cut else shortest_path(net, f.src, f.dst, request.metric)
    delivered = {f.id: 0.0 for f in flows}
    mean_delay_s = max_util = None
    # a zero-capacity hop carries nothing: left out of the allocation, as a failed one
    usable = Network.from_arcs(network.nodes, [a for a in arcs if a.capacity_mbps > 0],
                               no_transit=network.no_transit, name=network.scenario.name)
    rated = [Demand(f.src, f.dst, float(rate), id=f.id) for f in flows
             if (rate := flow_rate_mbps(f)) is not None and routes[f.id] is not None
             and shortest_path(usable, f.src, f.dst, "hop") is not None]
    load: dict[tuple[str, str, str], float] = {}
    if rated:
        alloc = allocate_fdm(usable, rated, options=FdmOptions(include_propagation=request.include_propagation))
        for d, a in zip(rated, alloc.demands):
            delivered[d.id] = a.demand
        load = {(ln.link, ln.src, ln.dst): ln.flow for ln in alloc.links}
        mean_delay_s = alloc.mean_delay_s
        max_util = max((ln.utilization for ln in alloc.links), default=0.0)
    bulk = [f for f in flows if flow_rate_mbps(f) is None and routes[f.id] is not None]
    if bulk:
        residual = np.array([max(0.0, net.capacity_mbps[i] - load.get((net.link[i], net.nodes[net.src[i]],
                                                                          net.nodes[net.dst[i]]), 0.0))
                             for i in range(net.m)])
        for f, rate in zip(bulk, max_min_fair(residual, [list(routes[f.id].arcs) for f in bulk])):
            delivered[f.id] = float(rate)
    return routes, delivered, mean_delay_s, max_util


def _severity(case: FailureCase) -> tuple:
    return (-case.lost_mbps, -case.flows_cut, -(case.max_delay_change_ms or 0.0), -case.paths_changed,
            case.kind, case.element)


def analyse_failures(
    scenario: Scenario | dict[str, Any],
    request: FailureRequest,
    max_cases: int = 500,
    on_progress: Callable[[int, int], None] | None = None,
) -> FailureReport:
    """Re-plan the scenario under every single link (and node) failure.

    Parameters
    ----------
    scenario : Scenario or dict
    request : FailureRequest
    max_cases : int
        Bound on the failures evaluated (``MAX_FAILURE_CASES``).
    on_progress : callable, optional
        Called after each failure with ``(done, total)``.

    Returns
    -------
    FailureReport
        Cases sorted worst first (most demand lost, most flows cut, largest added delay).

    Raises
    ------
    ScenarioInvalid
        Invalid scenario, ``links`` naming an unknown link (``loc ["links", i]``), a group naming an unknown
        link or node (``loc ["groups", i, "links"|"nodes", j]``) or nothing, or ``t_s`` after the run's end
        (``loc ["t_s"]``).
    LimitExceeded
        More failures than ``max_cases`` (``loc ["links"]``).
    DemandUnreachable, LinkInvalid
        From :func:`subflow.planning.fdm.allocate_fdm` on the intact topology.
    """
    sc = load_scenario(scenario)
    known = {l.id for l in sc.links}
    if request.links is not None:
        for i, lid in enumerate(request.links):
            if lid not in known:
                raise ScenarioInvalid([{"loc": ["links", i], "msg": f"no link with id {lid!r}"}])
    node_ids = {n.id for n in sc.nodes}
    for i, g in enumerate(request.groups or []):
        for field, ids, have in (("links", g.links, known), ("nodes", g.nodes, node_ids)):
            for j, x in enumerate(ids):
                if x not in have:
                    raise ScenarioInvalid([{"loc": ["groups", i, field, j], "msg": f"no {field[:-1]} with id {x!r}"}])
        if not g.links and not g.nodes:
            raise ScenarioInvalid([{"loc": ["groups", i], "msg": "a group names at least one link or node"}])
    total = failure_count(sc, request)
    if total > max_cases:
        raise LimitExceeded("MAX_FAILURE_CASES", max_cases, total, ["links"],
                            "failure cases (combinations of k links and nodes, plus groups)")
    network = NetworkTimeline(sc)
    times = _times(network, request.t_s)
    failures = _failures(sc, request)
    intact = [_plan(network, t, set(), set(), request) for t in times]
    cases: list[FailureCase] = []
    for done, (kind, element, removed, nodes) in enumerate(failures, start=1):
        worst = [_case(sc, t, kind, element, removed, nodes, base, _plan(network, t, removed, nodes, request))
                 for t, base in zip(times, intact)]
        cases.append(min(worst, key=_severity))
        if on_progress:
            on_progress(done, len(failures))
    cases.sort(key=_severity)
    base_delivered, base_delay = intact[0][1], intact[0][2]
    return FailureReport(metric=request.metric, t_s=request.t_s, duration_s=network.duration_s,
                         intact_delivered_mbps=math.fsum(base_delivered.values()),
                         intact_mean_delay_s=base_delay, cases=cases)


def _times(network: NetworkTimeline, t_s: float | None) -> list[float]:
    """The times analysed: ``t_s``, or the start of every window of the run."""
    if t_s is None:
        return [t0 for t0, _ in network.windows()]
    if t_s > network.duration_s:
        raise ScenarioInvalid([{"loc": ["t_s"], "msg": f"{t_s:g} s is after the run's end, "
                                                        f"{network.duration_s:g} s"}])
    return [t_s]


def _case(sc: Scenario, t_s: float, kind: str, element: str, removed: set[str], nodes: set[str], base, after
          ) -> FailureCase:
    """One failure at one time: each live flow's impact against the intact plan then, worst first."""
    base_routes, base_delivered = base[0], base[1]
    routes, delivered, mean_delay_s, max_util = after
    flows: list[FlowImpact] = []
    for f in _live(sc, t_s):
        before, now = base_routes[f.id], routes[f.id]
        d_before, d_after = base_delivered.get(f.id), delivered.get(f.id)
        change = now.delay_ms - before.delay_ms if before is not None and now is not None else None
        flows.append(FlowImpact(
            flow=f.id, src=f.src, dst=f.dst, reachable=now is not None,
            path_changed=(list(now.nodes) if now else []) != (list(before.nodes) if before else []),
            path=list(now.nodes) if now else [], intact_path=list(before.nodes) if before else [],
            delay_ms=now.delay_ms if now else None, intact_delay_ms=before.delay_ms if before else None,
            delay_change_ms=change, requested_mbps=flow_rate_mbps(f),
            delivered_mbps=d_after, intact_delivered_mbps=d_before,
            lost_mbps=max(0.0, (d_before or 0.0) - (d_after or 0.0)),
        ))
    flows.sort(key=lambda x: (-x.lost_mbps, x.reachable, -(x.delay_change_ms or 0.0), x.flow))
    changes = [x.delay_change_ms for x in flows if x.delay_change_ms is not None]
    return FailureCase(
        kind=kind, element=element, links=sorted(removed), nodes=sorted(nodes), t_s=t_s,
        lost_mbps=math.fsum(x.lost_mbps for x in flows),
        flows_cut=sum(1 for x in flows if not x.reachable and base_routes[x.flow] is not None),
        paths_changed=sum(1 for x in flows if x.path_changed),
        max_delay_change_ms=max(changes) if changes else None,
        mean_delay_s=mean_delay_s, max_utilization=max_util, flows=flows,
    )
