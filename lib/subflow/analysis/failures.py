"""Failure analysis (what-if): the plan again with one link or one node removed.

For every single link failure (and, on request, every single node failure) the
routes of the scenario's flows and the Flow Deviation allocation of its rated
flows are computed again on the topology without that element, and each flow's
*impact* is reported against the intact plan: the demand still delivered, whether
its route changed, and how its one-way route delay changed. Failures are sorted
worst first (most demand lost, then most flows cut off, then the largest added
delay). This is planning only, no engine runs: the numbers are those of
``POST /api/scenarios/{id}/routes`` and ``/allocations`` on the reduced topology.

A failed link removes both its directions; a failed node removes every link that
ends at it, and a flow from or to a failed node delivers nothing.

References
----------
.. [1] L. Fratta, M. Gerla, L. Kleinrock, "The flow deviation method: an approach
   to store-and-forward communication network design", Networks 3 (1973) — the
   allocation of :func:`subflow.planning.fdm.allocate_fdm` recomputed per failure.
.. [2] J. Y. Yen, "Finding the k shortest loopless paths in a network" (1971) —
   :func:`subflow.planning.shortest_paths.shortest_path` gives each flow's route.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from subflow.errors import LimitExceeded, ScenarioInvalid
from subflow.planning.fdm import FdmOptions, allocate_fdm
from subflow.planning.network import Demand, Network, RoutingMetric
from subflow.planning.shortest_paths import shortest_path
from subflow.scenario.document import Scenario, load_scenario


class FailureRequest(BaseModel):
    """Which failures to analyse and how to plan.

    ``links``: ids of the links to fail one at a time (null: every link);
    ``nodes``: also fail every node one at a time; ``metric``: the routing metric of
    each flow's route; ``include_propagation``: as in the allocation request.
    """

    model_config = ConfigDict(extra="forbid")

    metric: RoutingMetric = "delay"
    links: list[str] | None = Field(default=None, max_length=10_000)
    nodes: bool = Field(default=False, strict=True)
    include_propagation: bool = Field(default=False, strict=True)


class FlowImpact(BaseModel):
    """One flow under one failure, against the intact plan.

    ``requested_mbps``: the flow's ``rate_mbps`` (null for a bulk flow);
    ``delivered_mbps`` / ``intact_delivered_mbps``: the FDM allocation's rate after
    and before the failure (Mbit/s; 0 if cut off; null for a bulk flow);
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
    """One failure: ``kind`` link or node, ``element`` its id, ``links`` the links it removes.

    Totals over flows: ``lost_mbps`` (Σ lost demand, Mbit/s), ``flows_cut`` (flows with no
    route left), ``paths_changed``, ``max_delay_change_ms`` (null if no flow keeps a route
    with a known change); ``mean_delay_s`` / ``max_utilization``: of the re-planned FDM
    allocation (null without rated flows still reachable); ``flows`` worst first.
    """

    kind: Literal["link", "node"]
    element: str
    links: list[str]
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
    intact_delivered_mbps: float
    intact_mean_delay_s: float | None
    cases: list[FailureCase]


def failure_count(scenario: Scenario, request: FailureRequest) -> int:
    """How many failures :func:`analyse_failures` evaluates (links asked for, plus nodes)."""
    n_links = len(scenario.links) if request.links is None else len(set(request.links))
    return n_links + (len(scenario.nodes) if request.nodes else 0)


def _network(sc: Scenario, removed_links: set[str]) -> Network:
    return Network.from_links(
        [n.id for n in sc.nodes],
        ((l.id, l.src, l.dst, l.delay_ms, l.loss, l.bandwidth_mbps) for l in sc.links if l.id not in removed_links),
        name=sc.name,
    )


def _plan(sc: Scenario, removed_links: set[str], removed_node: str | None, request: FailureRequest):
    """Routes and delivered rates of every flow on the reduced topology.

    Returns ``(routes, delivered, mean_delay_s, max_utilization)``: ``routes[flow] = Path | None``,
    ``delivered[flow] = Mbit/s`` (rated flows only).
    """
    net = _network(sc, removed_links)
    routes: dict[str, Any] = {}
    for f in sc.flows:
        cut = removed_node is not None and removed_node in (f.src, f.dst)
        routes[f.id] = None if cut else shortest_path(net, f.src, f.dst, request.metric)
    demands = [Demand(f.src, f.dst, float(f.rate_mbps), id=f.id) for f in sc.flows
               if f.rate_mbps is not None and routes[f.id] is not None]
    delivered = {f.id: 0.0 for f in sc.flows if f.rate_mbps is not None}
    mean_delay_s = max_util = None
    # a zero-capacity link carries nothing: left out of the allocation, as a failed one
    usable = _network(sc, removed_links | {l.id for l in sc.links if not l.bandwidth_mbps > 0})
    reachable = []
    for d in demands:
        if shortest_path(usable, d.src, d.dst, "hop") is not None:
            reachable.append(d)
    if reachable:
        alloc = allocate_fdm(usable, reachable, options=FdmOptions(include_propagation=request.include_propagation))
        for d, a in zip(reachable, alloc.demands):
            delivered[d.id] = a.demand
        mean_delay_s = alloc.mean_delay_s
        max_util = max((ln.utilization for ln in alloc.links), default=0.0)
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
        Invalid scenario, or ``links`` naming an unknown link (``loc ["links", i]``).
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
    total = failure_count(sc, request)
    if total > max_cases:
        raise LimitExceeded("MAX_FAILURE_CASES", max_cases, total, ["links"], "failure cases (links + nodes)")
    rate = {f.id: f.rate_mbps for f in sc.flows}
    base_routes, base_delivered, base_delay, _ = _plan(sc, set(), None, request)

    failures: list[tuple[str, str, set[str]]] = []
    for lid in (list(dict.fromkeys(request.links)) if request.links is not None else [l.id for l in sc.links]):
        failures.append(("link", lid, {lid}))
    if request.nodes:
        for n in sc.nodes:
            failures.append(("node", n.id, {l.id for l in sc.links if n.id in (l.src, l.dst)}))

    cases: list[FailureCase] = []
    for done, (kind, element, removed) in enumerate(failures, start=1):
        routes, delivered, mean_delay_s, max_util = _plan(sc, removed, element if kind == "node" else None, request)
        flows: list[FlowImpact] = []
        for f in sc.flows:
            before, after = base_routes[f.id], routes[f.id]
            d_before = base_delivered.get(f.id)
            d_after = delivered.get(f.id)
            change = after.delay_ms - before.delay_ms if before is not None and after is not None else None
            flows.append(FlowImpact(
                flow=f.id, src=f.src, dst=f.dst, reachable=after is not None,
                path_changed=(list(after.nodes) if after else []) != (list(before.nodes) if before else []),
                path=list(after.nodes) if after else [], intact_path=list(before.nodes) if before else [],
                delay_ms=after.delay_ms if after else None, intact_delay_ms=before.delay_ms if before else None,
                delay_change_ms=change, requested_mbps=rate[f.id],
                delivered_mbps=d_after, intact_delivered_mbps=d_before,
                lost_mbps=max(0.0, (d_before or 0.0) - (d_after or 0.0)),
            ))
        flows.sort(key=lambda x: (-x.lost_mbps, x.reachable, -(x.delay_change_ms or 0.0), x.flow))
        changes = [x.delay_change_ms for x in flows if x.delay_change_ms is not None]
        cases.append(FailureCase(
            kind=kind, element=element, links=sorted(removed),
            lost_mbps=math.fsum(x.lost_mbps for x in flows),
            flows_cut=sum(1 for x in flows if not x.reachable and base_routes[x.flow] is not None),
            paths_changed=sum(1 for x in flows if x.path_changed),
            max_delay_change_ms=max(changes) if changes else None,
            mean_delay_s=mean_delay_s, max_utilization=max_util, flows=flows,
        ))
        if on_progress:
            on_progress(done, len(failures))
    cases.sort(key=_severity)
    return FailureReport(metric=request.metric, intact_delivered_mbps=math.fsum(base_delivered.values()),
                         intact_mean_delay_s=base_delay, cases=cases)
