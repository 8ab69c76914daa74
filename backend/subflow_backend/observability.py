"""Request ids, access lines, Prometheus metrics and dependency checks of the API.

* :func:`request_context` (ASGI middleware, outermost; :class:`subflow.service.observability.RequestContext`):
  gives each HTTP request a ``request_id`` (a well-formed ``X-Request-ID`` from the client, else a
  new one; answered in ``X-Request-ID``), binds it to the logging context, writes one ``request``
  log line (method, path, route template, status, ``duration_ms``) and observes
  ``subflow_http_request_duration_seconds{method, route, status}``.
* Celery: the ids bound when a task is *sent* travel in its message headers
  (:func:`_publish_ids`), so the worker's lines carry the request that queued them.
* ``GET /metrics`` (Prometheus text format, outside ``/api`` and the OpenAPI document): served
  only when ``METRICS_TOKEN`` is set, to ``Authorization: Bearer <METRICS_TOKEN>``; 404 otherwise
  (the metrics name no user data but say how busy the service is). Besides request latency:
  ``subflow_comparisons{state}`` (comparisons by state, read from the database at each scrape),
  ``subflow_queue_depth`` (messages waiting in the broker) and the process' own
  ``process_*`` figures (one process; with ``SUBFLOW_API_WORKERS`` > 1 the latency histogram adds up
  every API process and ``process_*`` is left out). Engine time is measured where engines run: the agent's ``/metrics``
  (``subflow_engine_run_seconds``).
* :func:`dependencies`: the database, broker and agent checks of ``GET /api/health``.
"""

from __future__ import annotations

import hmac
import logging
import os
import threading
import time
from collections.abc import Iterable
from typing import Any

import httpx
from celery.signals import before_task_publish
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, ProcessCollector, generate_latest
from prometheus_client.core import GaugeMetricFamily
from sqlalchemy import func, select, text
from starlette.types import ASGIApp

from subflow.service.observability import RequestContext, current_ids

from subflow_backend.queue import pending_messages
from subflow_backend.settings import Settings, settings

log = logging.getLogger("subflow_backend.requests")

#: Set when the API runs as several processes (``SUBFLOW_API_WORKERS`` > 1, scripts/serve.sh and the
#: backend image): each process writes its samples under this folder and a scrape, answered by any
#: one of them, adds up all of theirs (prometheus_client's multiprocess mode).
MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR")

REGISTRY = CollectorRegistry()
if not MULTIPROC_DIR:  # process_* figures describe one process; not offered in multiprocess mode
    ProcessCollector(registry=REGISTRY)
REQUEST_SECONDS = Histogram(
    "subflow_http_request_duration_seconds",
    "Time from a request's arrival to its response's start, seconds, by method, route template and status.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
    registry=REGISTRY,
)
#: Paths logged at DEBUG, not INFO (health checks every few seconds would drown the rest).
QUIET_PATHS = frozenset({"/api/health", "/metrics"})


def request_context(app: ASGIApp) -> RequestContext:
    """The API's :class:`subflow.service.observability.RequestContext`: latency into
    :data:`REQUEST_SECONDS`, health probes and scrapes logged at DEBUG."""
    return RequestContext(
        app, "subflow_backend.requests", prefix="/api", quiet=lambda _method, path: path in QUIET_PATHS,
        observe=lambda method, route, code, seconds: REQUEST_SECONDS.labels(method, route, str(code)).observe(seconds),
    )


@before_task_publish.connect
def _publish_ids(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """Copy the correlation ids bound where a task is sent into its message headers."""
    if headers is not None:
        for key, value in current_ids().items():
            headers.setdefault(key, value)


# --------------------------------------------------------------------------- scraped figures


class _StateCollector:
    """``subflow_comparisons{state}`` and ``subflow_queue_depth``, read at each scrape."""

    def collect(self) -> Iterable[GaugeMetricFamily]:
        from subflow_backend import comparison_state
        from subflow_backend.db import SessionLocal
        from subflow_backend.models import Comparison

        states = GaugeMetricFamily("subflow_comparisons", "Comparisons by state (all users).", labels=["state"])
        try:
            with SessionLocal() as session:
                counts = dict(session.execute(select(Comparison.status, func.count()).group_by(Comparison.status)).all())
        except Exception as exc:  # a scrape must answer even when the database does not
            log.warning("metrics: comparisons by state unavailable: %s", type(exc).__name__)
        else:
            for state in comparison_state.STATES:
                states.add_metric([state], counts.get(state, 0))
            yield states
        try:
            depth = pending_messages(settings)
        except Exception as exc:
            log.warning("metrics: queue depth unavailable: %s", type(exc).__name__)
        else:
            yield GaugeMetricFamily("subflow_queue_depth", "Task messages waiting in the broker's queue "
                                    "(not those a worker holds).", value=depth)


REGISTRY.register(_StateCollector())  # type: ignore[arg-type]


def _scrape_registry() -> CollectorRegistry:
    """What a scrape reads: :data:`REGISTRY`, or with several API processes the samples of all of them
    (:class:`prometheus_client.multiprocess.MultiProcessCollector`) plus the figures read at scrape time."""
    if not MULTIPROC_DIR:
        return REGISTRY
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=MULTIPROC_DIR)
    registry.register(_StateCollector())  # type: ignore[arg-type]
    return registry


def metrics_allowed(authorization: str | None, s: Settings = settings) -> bool:
    """Whether a ``GET /metrics`` with this ``Authorization`` header is answered: only with
    ``METRICS_TOKEN`` set and given as a bearer token (constant-time comparison)."""
    if not s.METRICS_TOKEN or authorization is None:
        return False
    return hmac.compare_digest(authorization.encode(), f"Bearer {s.METRICS_TOKEN}".encode())


def metrics_text() -> tuple[bytes, str]:
    """The Prometheus exposition (of every API process, see :data:`MULTIPROC_DIR`) and its content type."""
    return generate_latest(_scrape_registry()), CONTENT_TYPE_LATEST


# --------------------------------------------------------------------------- health checks

#: Seconds a dependency check may take, and how long its answer is reused.
CHECK_TIMEOUT_S = 2.0
CHECK_CACHE_S = 5.0
_cache: dict[str, tuple[float, str | None]] = {}
_cache_lock = threading.Lock()


def _cached(name: str, check) -> str | None:
    """``check()``'s error (None: fine), reused for :data:`CHECK_CACHE_S` seconds."""
    now = time.monotonic()
    with _cache_lock:
        hit = _cache.get(name)
        if hit is not None and now - hit[0] < CHECK_CACHE_S:
            return hit[1]
    try:
        check()
        error = None
    except Exception as exc:
        error = f"{type(exc).__name__}"
    with _cache_lock:
        _cache[name] = (time.monotonic(), error)
    return error


def _check_database(session) -> None:
    session.execute(text("SELECT 1"))


def _check_broker() -> None:
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        folder = settings.broker_dir / "queue"
        if not os.access(folder, os.W_OK):
            raise PermissionError(f"broker folder {folder} is not writable")
        return
    if settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        import redis

        client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=CHECK_TIMEOUT_S,
                                      socket_connect_timeout=CHECK_TIMEOUT_S)
        try:
            client.ping()
        finally:
            client.close()
        return
    from kombu import Connection

    with Connection(settings.CELERY_BROKER_URL, connect_timeout=CHECK_TIMEOUT_S) as conn:
        conn.ensure_connection(max_retries=1)


def _check_agent() -> None:
    r = httpx.get(f"{settings.AGENT_URL.rstrip('/')}/health", timeout=CHECK_TIMEOUT_S)
    r.raise_for_status()


def dependencies(session) -> dict[str, str | None]:
    """``{"database", "broker", "agent"}`` → None when reachable, else the error's class name
    (never a URL or a message: the health answer is public). The database is checked on each
    call; the broker and the agent at most every :data:`CHECK_CACHE_S` seconds."""
    try:
        _check_database(session)
        database = None
    except Exception as exc:
        database = type(exc).__name__
    return {"database": database, "broker": _cached("broker", _check_broker),
            "agent": _cached("agent", _check_agent)}
