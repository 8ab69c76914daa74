"""Logs and metrics of the emulator agent (see :mod:`subflow.service.observability`).

Each request's lines carry its ``request_id`` and, for the worker's calls, the ``comparison_id``
(``X-Comparison-ID``); a run keeps the ids of the request that created it, so its ``run finished``
line (engine, strategy, status, ``engine_s``) can be joined with the worker's and the API's lines.
``GET /metrics`` (bearer ``AGENT_TOKEN``, like every endpoint but ``/health``):
``subflow_engine_run_seconds{engine, status}`` (wall-clock time of each run on its engine),
``subflow_agent_runs_active`` and ``subflow_agent_http_request_duration_seconds{method, route, status}``.
"""

from __future__ import annotations

import re

from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Gauge, Histogram, ProcessCollector, generate_latest

from subflow.service.observability import RequestContext

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)
ENGINE_SECONDS = Histogram(
    "subflow_engine_run_seconds",
    "Wall-clock time of one run on its engine, from start to end, seconds, by engine and final status.",
    ["engine", "status"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0),
    registry=REGISTRY,
)
RUNS_ACTIVE = Gauge("subflow_agent_runs_active", "Runs queued or running on this agent.", registry=REGISTRY)
REQUEST_SECONDS = Histogram(
    "subflow_agent_http_request_duration_seconds",
    "Time from a request's arrival to its response's start, seconds, by method, route template and status.",
    ["method", "route", "status"],
    registry=REGISTRY,
)
#: The worker polls a run several times a second: those lines (and probes, scrapes) go to DEBUG.
_QUIET = re.compile(r"^/(health|metrics|runs/[^/]+)$")


def request_context(app):
    """The agent's :class:`subflow.service.observability.RequestContext` (latency into :data:`REQUEST_SECONDS`)."""
    return RequestContext(
        app, "subflow_agent.requests",
        quiet=lambda method, path: method == "GET" and bool(_QUIET.match(path)),
        observe=lambda method, route, code, seconds: REQUEST_SECONDS.labels(method, route, str(code)).observe(seconds),
    )


def metrics_response() -> Response:
    """The Prometheus text exposition of :data:`REGISTRY`."""
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
