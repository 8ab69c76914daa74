"""Route and allocation requests shared by the REST API, the worker and the CLI.

:func:`routes_document` and :func:`allocation_document` take a scenario
document and options and return the JSON documents of ``subflow routes
--json`` and ``subflow allocate --json``, so every front end gives the same
numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from subflow.errors import ScenarioInvalid
from subflow.planning.fdm import FdmOptions, allocate_fdm
from subflow.planning.network import Network, RoutingMetric
from subflow.planning.shortest_paths import route_report


class RoutesRequest(BaseModel):
    """Routes of node pairs: ``pairs`` as ``[[src, dst], ...]`` (null: every ordered pair),
    ``k`` paths per pair (Yen)."""

    model_config = ConfigDict(extra="forbid")

    metric: RoutingMetric = "tcpbp"
    k: int = Field(default=1, ge=1, le=50)
    pairs: list[tuple[str, str]] | None = Field(default=None, max_length=100_000)
    summary_limit: int | None = Field(
        default=None, ge=1, le=5000,
        description="Answer a summary: per-link counts of the best routes (`link_use`) and only this many "
                    "costliest routes (plus unreachable pairs); k must be 1. For all pairs of large topologies.")
    background: bool = Field(default=False, strict=True, description="Run in the worker; answer 202 with a job.")

    @field_validator("summary_limit")
    @classmethod
    def _summary_needs_k1(cls, v: int | None, info: ValidationInfo) -> int | None:
        if v is not None and info.data.get("k", 1) != 1:
            raise ValueError("a summary counts each pair's best route: k must be 1")
        return v


class AllocationRequest(BaseModel):
    """Flow Deviation allocation of the scenario's flows that have a ``rate_mbps``."""

    model_config = ConfigDict(extra="forbid")

    method: Literal["fdm"] = "fdm"
    demand_scale: float = Field(default=1.0, gt=0, le=1e6)
    include_propagation: bool = Field(default=False, strict=True)
    background: bool = Field(default=False, strict=True, description="Run in the worker; answer 202 with a job.")


def routes_document(scenario: dict[str, Any], request: RoutesRequest,
                    on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """``{"metric", "routes": [{"src", "dst", "reachable", "paths": [...]}], "greedy_differs"}``.

    ``on_progress(done, total)`` (node pairs), if given, is called as batches of sources finish
    (:func:`subflow.planning.shortest_paths.route_report`).

    Raises
    ------
    ScenarioInvalid, UnknownNode, LinkInvalid, ValueError
    """
    net = Network.from_scenario(scenario)  # with the forwarding roles (no transit through end points)
    return route_report(net, request.metric, request.k, request.pairs, on_progress=on_progress,
                        summary_limit=request.summary_limit)


def allocation_document(scenario: dict[str, Any], request: AllocationRequest) -> dict[str, Any]:
    """The ``allocate --json`` document of :func:`subflow.planning.fdm.allocate_fdm`.

    Raises
    ------
    ScenarioInvalid
        If the document is not a valid scenario, or has no flow with a
        ``rate_mbps`` (``loc`` ``["flows"]``: nothing to allocate).
    LinkInvalid, DemandUnreachable, ValueError
        From :func:`subflow.planning.fdm.allocate_fdm`.
    """
    net = Network.from_scenario(scenario)
    if not net.demands:
        raise ScenarioInvalid([{"loc": ["flows"], "msg": "no flow with a rate_mbps: nothing to allocate"}])
    alloc = allocate_fdm(net, demand_scale=request.demand_scale,
                         options=FdmOptions(include_propagation=request.include_propagation))
    return alloc.model_dump(mode="json")
