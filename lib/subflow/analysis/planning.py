"""Route and allocation requests on the scenario's network over time, shared by the REST API, the worker
and the CLI.

:func:`routes_document` and :func:`allocation_document` take a scenario document and a request and
return the JSON documents of ``POST /api/scenarios/{id}/routes`` and ``/allocations`` (and of
``subflow routes --json`` / ``subflow allocate --json`` on a scenario file), so every front end gives the
same numbers. Both read the network the run reads (:class:`subflow.runplan.topology.NetworkTimeline`):
SATCOM links at their slant-range delay and only while their satellite is the one in use, the air hops of
associated stations, link events. A request names a time ``t_s`` (s into the run; its end is included) or
none: then the answer covers the whole run, one entry per *window* during which the answer is the same
(``windows``), and its top level is the answer at the run's start. Every answer says which time it used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from subflow.errors import ScenarioInvalid
from subflow.planning.fdm import Allocation, FdmOptions, allocate_fdm
from subflow.planning.network import Demand, RoutingMetric
from subflow.planning.shortest_paths import LinkUse, PairRoutes, Routes, route_report
from subflow.results.voice import flow_rate_mbps
from subflow.runplan.topology import NetworkTimeline, stop_of
from subflow.scenario.document import Scenario, load_scenario

_T_S = Field(default=None, ge=0, le=1e7,
             description="The time the answer is for, s into the run (0 to the run's duration, its end included); "
                         "null: the whole run, one answer per window where it differs (`windows`).")


class RoutesRequest(BaseModel):
    """Routes of node pairs: ``pairs`` as ``[[src, dst], ...]`` (null: every ordered pair),
    ``k`` paths per pair (Yen), at ``t_s`` or over the whole run."""

    model_config = ConfigDict(extra="forbid")

    metric: RoutingMetric = "tcpbp"
    k: int = Field(default=1, ge=1, le=50)
    pairs: list[tuple[str, str]] | None = Field(default=None, max_length=100_000)
    summary_limit: int | None = Field(
        default=None, ge=1, le=5000,
        description="Answer a summary: per-link counts of the best routes (`link_use`) and only this many "
                    "costliest routes (plus unreachable pairs); k must be 1. For all pairs of large topologies.")
    t_s: float | None = _T_S
    background: bool = Field(default=False, strict=True, description="Run in the worker; answer 202 with a job.")

    @field_validator("summary_limit")
    @classmethod
    def _summary_needs_k1(cls, v: int | None, info: ValidationInfo) -> int | None:
        if v is not None and info.data.get("k", 1) != 1:
            raise ValueError("a summary counts each pair's best route: k must be 1")
        return v


class AllocationRequest(BaseModel):
    """Flow Deviation allocation of the scenario's flows that have a rate (``rate_mbps``, a voice flow's codec
    rate on the wire, a video flow's bit rate; those live at the time), at ``t_s`` or over the whole run."""

    model_config = ConfigDict(extra="forbid")

    method: Literal["fdm"] = "fdm"
    demand_scale: float = Field(default=1.0, gt=0, le=1e6)
    include_propagation: bool = Field(
        default=True, strict=True,
        description="Add the paths' propagation delay (a SATCOM hop's hundreds of ms included) to the mean delay "
                    "minimised and reported; false: queueing and transmission delay only (Kleinrock's T).")
    t_s: float | None = _T_S
    background: bool = Field(default=False, strict=True, description="Run in the worker; answer 202 with a job.")


class RoutesWindow(BaseModel):
    """The routes over one window of the run (``t_start_s`` ≤ t < ``t_end_s``, s)."""

    t_start_s: float
    t_end_s: float
    routes: list[PairRoutes]
    pairs_reachable: int | None = None
    link_use: list[LinkUse] | None = None


class RoutesOverTime(Routes):
    """:class:`~subflow.planning.shortest_paths.Routes` at ``t_s`` (or at the run's start when ``t_s`` is
    null), and ``windows``: the routes over each window of the run where they differ (one window, the one
    holding ``t_s``, when a time was asked)."""

    t_s: float | None = Field(description="The time asked for, s; null: the whole run.")
    duration_s: float = Field(description="The run's duration, s.")
    windows: list[RoutesWindow]


class AllocationWindow(BaseModel):
    """The allocation over one window of the run (``t_start_s`` ≤ t < ``t_end_s``, s)."""

    t_start_s: float
    t_end_s: float
    allocation: Allocation


class AllocationOverTime(Allocation):
    """:class:`~subflow.planning.fdm.Allocation` at ``t_s`` (or at the run's start when ``t_s`` is null), the
    propagation choice made, and ``windows``: the allocation over each window of the run where the network or
    the live demands differ."""

    t_s: float | None = Field(description="The time asked for, s; null: the whole run.")
    duration_s: float = Field(description="The run's duration, s.")
    include_propagation: bool = Field(description="Whether the paths' propagation delay was minimised too.")
    windows: list[AllocationWindow]


def _windows(network: NetworkTimeline, t_s: float | None) -> list[tuple[float, float]]:
    if t_s is None:
        return network.windows()
    if t_s > network.duration_s:
        raise ScenarioInvalid([{"loc": ["t_s"], "msg": f"{t_s:g} s is after the run's end, "
                                                        f"{network.duration_s:g} s"}])
    return [network.window_at(t_s)]


def routes_cost(scenario: dict[str, Any], request: RoutesRequest, bound: int | None = None) -> int:
    """Cost estimate of :func:`routes_document`: node pairs (every ordered pair when ``pairs`` is null) × ``k``
    × network windows computed (1 at ``t_s``, else every window of the run). The CPU time grows with it
    (measured 0.29 ms per unit: all pairs of a 121-node grid at one time, hop metric). If pairs × ``k`` alone exceeds ``bound`` that product
    is returned without building the network timeline.

    Raises
    ------
    ScenarioInvalid
        If the scenario is invalid, or ``t_s`` is after the run's end (``loc`` ``["t_s"]``).
    """
    n = len(scenario.get("nodes", []))
    paths = (len(request.pairs) if request.pairs is not None else n * (n - 1)) * request.k
    if request.t_s is not None or (bound is not None and paths > bound):
        return paths
    return paths * len(_windows(NetworkTimeline(scenario), None))


def _route_key(doc: dict[str, Any]) -> tuple:
    return tuple((r["src"], r["dst"], tuple(tuple(p["nodes"]) for p in r["paths"])) for r in doc["routes"])


def routes_document(scenario: dict[str, Any], request: RoutesRequest,
                    on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The routes of ``request`` on the scenario's network at ``request.t_s``, or over the whole run.

    Returns
    -------
    dict
        A :class:`RoutesOverTime` document: ``{"metric", "cost_unit", "routes": [{"src", "dst",
        "reachable", "paths": [{"nodes", "hops", "delay_ms", "loss", "cost"}]}], "greedy_differs", "t_s",
        "duration_s", "windows": [{"t_start_s", "t_end_s", "routes", ...}]}``; consecutive windows whose
        routes take the same nodes are merged (the delays shown are those at the merged window's start).
        ``on_progress(done, total)`` (node pairs over every window) is called as batches of sources finish
        (:func:`subflow.planning.shortest_paths.route_report`).

    Raises
    ------
    ScenarioInvalid
        If the scenario is invalid, or ``t_s`` is after the run's end (``loc`` ``["t_s"]``).
    UnknownNode, LinkInvalid, ValueError
        From :func:`subflow.planning.shortest_paths.route_report`.
    """
    network = NetworkTimeline(scenario)
    windows = _windows(network, request.t_s)
    first: dict[str, Any] | None = None
    out: list[dict[str, Any]] = []
    for i, (t0, t1) in enumerate(windows):
        net = network.network_at(t0)
        progress = None if on_progress is None else (
            lambda done, total, i=i: on_progress(i * total + done, len(windows) * total))
        doc = route_report(net, request.metric, request.k, request.pairs, on_progress=progress,
                           summary_limit=request.summary_limit)
        if first is None:
            first = doc
        if out and _route_key(out[-1]) == _route_key(doc) and out[-1].get("link_use") == doc.get("link_use"):
            out[-1]["t_end_s"] = t1
            continue
        out.append({"t_start_s": t0, "t_end_s": t1, "routes": doc["routes"],
                    "pairs_reachable": doc.get("pairs_reachable"), "link_use": doc.get("link_use")})
    assert first is not None  # a run has at least one window
    return {**first, "t_s": request.t_s, "duration_s": network.duration_s, "windows": out}


def _demands_at(scenario: Scenario, t_s: float) -> list[Demand]:
    """The flows with a rate live at ``t_s`` as demands (:func:`subflow.results.voice.flow_rate_mbps`: a tcp or
    udp flow's ``rate_mbps``, a voice flow's codec rate on the wire, a video flow's bit rate; bulk flows have
    none to allocate)."""
    duration = scenario.run.duration_s
    return [Demand(f.src, f.dst, float(rate), id=f.id) for f in scenario.flows
            if (rate := flow_rate_mbps(f)) is not None and f.start_s <= t_s < stop_of(f, duration)]


def allocation_document(scenario: dict[str, Any], request: AllocationRequest) -> dict[str, Any]:
    """The Flow Deviation allocation of the rated flows on the scenario's network at ``request.t_s``, or over
    the whole run.

    Returns
    -------
    dict
        An :class:`AllocationOverTime` document: the :class:`~subflow.planning.fdm.Allocation` (rates in
        Mbit/s, ``mean_delay_s`` in s, propagation included when ``include_propagation``) at ``t_s`` or at the
        run's start, ``t_s``, ``duration_s``, ``include_propagation`` (the choice made) and ``windows``:
        ``[{"t_start_s", "t_end_s", "allocation"}]``, a new entry wherever the network or the live demands
        change (windows with no live rated flow are left out).

    Raises
    ------
    ScenarioInvalid
        If the document is not a valid scenario, has no flow with a ``rate_mbps`` (``loc`` ``["flows"]``:
        nothing to allocate), or ``t_s`` is after the run's end.
    LinkInvalid, DemandUnreachable, ValueError
        From :func:`subflow.planning.fdm.allocate_fdm`.
    """
    scenario_model = load_scenario(scenario)
    if not any(flow_rate_mbps(f) is not None for f in scenario_model.flows):
        raise ScenarioInvalid([{"loc": ["flows"], "msg": "no flow with a rate_mbps: nothing to allocate"}])
    network = NetworkTimeline(scenario_model)
    propagation = request.include_propagation
    options = FdmOptions(include_propagation=propagation)
    out: list[dict[str, Any]] = []
    previous: tuple | None = None
    for t0, t1 in _windows(network, request.t_s):
        at = t0 if request.t_s is None else request.t_s
        demands = _demands_at(scenario_model, at)
        if not demands:
            continue
        key = (tuple(network.arcs_at(t0)), tuple((d.id, d.src, d.dst, d.demand_mbps) for d in demands))
        if out and key == previous:
            out[-1]["t_end_s"] = t1
            continue
        previous = key
        alloc = allocate_fdm(network.network_at(t0, demands), demand_scale=request.demand_scale, options=options)
        out.append({"t_start_s": t0, "t_end_s": t1, "allocation": alloc.model_dump(mode="json")})
    if not out:
        raise ScenarioInvalid([{"loc": ["t_s"], "msg": "no flow with a rate_mbps is live then: nothing to allocate"}])
    return {**out[0]["allocation"], "t_s": request.t_s, "duration_s": network.duration_s,
            "include_propagation": propagation, "windows": out}
