"""Structured logs and request / run correlation ids shared by the backend, the worker and the agent.

Every process calls :func:`configure_logging` once at start-up. From then on every log record —
ours (``logging.getLogger(__name__)``), uvicorn's, Celery's — is one JSON object per line on stderr
(structlog's :class:`~structlog.stdlib.ProcessorFormatter`), e.g.::

    {"event": "comparison 3f… succeeded in 0.4 s", "level": "info", "logger": "subflow_worker.tasks",
     "service": "worker", "timestamp": "2026-11-22T23:40:01.123Z", "request_id": "9c…",
     "comparison_id": "3f…", "task": "subflow.run_comparison", "task_id": "…"}

Correlation ids live in context variables (:func:`structlog.contextvars.bind_contextvars`), so
every line logged while serving a request or running a task carries them:

* ``request_id``: chosen by the API for each HTTP request (or taken from a well-formed
  ``X-Request-ID`` header, :func:`request_id_from`), answered in ``X-Request-ID``; carried into
  the Celery tasks the request sends (a message header) and into the worker's calls to the agent;
* ``comparison_id`` (and ``task``, ``task_id``): bound by the worker while a task runs, sent to the
  agent as ``X-Comparison-ID`` (:func:`outgoing_headers`), bound again there for the run's lines.

``LOG_FORMAT=console`` renders the same events as aligned text for a terminal instead of JSON;
``LOG_LEVEL`` (default ``INFO``) sets the root level.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import structlog

#: HTTP headers carrying the correlation ids between our processes (and from a client or proxy).
REQUEST_ID_HEADER = "X-Request-ID"
COMPARISON_ID_HEADER = "X-Comparison-ID"
#: key of ``scope["state"]`` by which an inner middleware asks :class:`RequestContext` to log the request at DEBUG
QUIET_LOG = "subflow.quiet_log"
#: Context variables copied into :func:`outgoing_headers`, header by variable.
_HEADERS = {"request_id": REQUEST_ID_HEADER, "comparison_id": COMPARISON_ID_HEADER}
#: An id taken from outside: at most 64 characters of ``[A-Za-z0-9._-]`` (nothing else reaches a log).
_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def configure_logging(service: str, level: str | None = None, fmt: str | None = None) -> None:
    """Route every stdlib log record of this process through structlog, as JSON lines on stderr.

    Parameters
    ----------
    service : str
        Written as ``service`` in every line (``backend``, ``worker``, ``agent``).
    level : str, optional
        Root level name; default ``$LOG_LEVEL`` or ``INFO``.
    fmt : {"json", "console"}, optional
        Default ``$LOG_FORMAT`` or ``json``.

    Idempotent: a second call replaces the handler it installed, not others'. Raises
    ``ValueError`` for an unknown format.
    """
    fmt = (fmt or os.environ.get("LOG_FORMAT") or "json").lower()
    if fmt not in ("json", "console"):
        raise ValueError(f"LOG_FORMAT must be json or console, not {fmt!r}")
    level = (level or os.environ.get("LOG_LEVEL") or "INFO").upper()
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _add_service(service),
    ]
    renderer: Any = structlog.processors.JSONRenderer() if fmt == "json" else structlog.dev.ConsoleRenderer(colors=False)
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder()],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    handler.set_name("subflow-structured")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "subflow-structured"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # uvicorn's and Celery's own loggers write through the root handler, not their own
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "celery", "celery.task"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    # our services write their own access line (with ids); httpx's one line per call is noise at INFO
    for name in ("uvicorn.access", "httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def _add_service(service: str):
    def add(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
        event.setdefault("service", service)
        event.pop("message", None)  # a copy of ``event`` left on the record by another formatter
        return event

    return add


def request_id_from(value: str | None) -> str:
    """``value`` if it is a well-formed id (1–64 of ``[A-Za-z0-9._-]``), else a fresh uuid4 hex."""
    if value and _ID.match(value):
        return value
    return uuid.uuid4().hex


def bind_from_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Bind the well-formed correlation ids found in ``headers`` (case-insensitive names) to the
    logging context; returns what was bound. Malformed ids are ignored."""
    lower = {k.lower(): v for k, v in headers.items()}
    found = {var: lower[h.lower()] for var, h in _HEADERS.items() if h.lower() in lower}
    ids = {var: value for var, value in found.items() if value and _ID.match(value)}
    if ids:
        structlog.contextvars.bind_contextvars(**ids)
    return ids


def outgoing_headers() -> dict[str, str]:
    """The correlation ids bound in this context, as HTTP headers for a call to another of our services."""
    bound = structlog.contextvars.get_contextvars()
    return {h: str(bound[var]) for var, h in _HEADERS.items() if bound.get(var)}


def current_ids() -> dict[str, str]:
    """The correlation ids bound in this context (``request_id``, ``comparison_id``), as a dict."""
    bound = structlog.contextvars.get_contextvars()
    return {var: str(bound[var]) for var in _HEADERS if bound.get(var)}


#: ``observe(method, route, status, seconds)``: where :class:`RequestContext` reports a request's latency.
Observer = Callable[[str, str, int, float], None]


class RequestContext:
    """ASGI middleware (no framework needed) of an HTTP service of ours.

    For each HTTP request: binds ``request_id`` (a well-formed ``X-Request-ID`` header, else a
    new id) and a well-formed ``X-Comparison-ID`` to the logging context, answers with
    ``X-Request-ID``, calls ``observe(method, route template, status, seconds)`` when the response
    starts, and writes one ``request`` line (``method``, ``path``, ``route``, ``status``,
    ``duration_ms``) at INFO, or at DEBUG for paths that ``quiet(method, path)`` names (probes,
    polls) and for a request an inner middleware marked with ``scope["state"][QUIET_LOG]`` (a refusal
    repeated from memory). The route template is the matched route's ``path`` (under ``prefix`` when the route
    was matched inside a router mounted there), ``unmatched`` when nothing matched.
    """

    def __init__(self, app: Any, logger: str, observe: Observer | None = None,
                 quiet: Callable[[str, str], bool] = lambda _m, _p: False, prefix: str = ""):
        self.app = app
        self.log = logging.getLogger(logger)
        self.observe = observe
        self.quiet = quiet
        self.prefix = prefix

    def route(self, scope: dict[str, Any]) -> str:
        """The route template of a handled request (``/api/scenarios/{scenario_id}``), never the raw
        path (ids in metric labels would make one time series per scenario)."""
        template = getattr(scope.get("route"), "path", None)
        if not template:
            return "unmatched"
        if self.prefix and scope["path"].startswith(self.prefix + "/") and not template.startswith(self.prefix):
            template = self.prefix + template
        return template

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        structlog.contextvars.clear_contextvars()
        bind_from_headers(headers)
        request_id = request_id_from(headers.get(REQUEST_ID_HEADER.lower()))
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status_code = 500

        async def send_with_id(message: dict[str, Any]) -> None:
            nonlocal status_code
            if message["type"] == "http.response.start":
                status_code = message["status"]
                message["headers"] = [*message.get("headers", []), (REQUEST_ID_HEADER.encode(), request_id.encode())]
                if self.observe is not None:
                    self.observe(scope["method"], self.route(scope), status_code, time.perf_counter() - started)
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            method, path = scope["method"], scope["path"]
            self.log.log(
                logging.DEBUG if self.quiet(method, path) or scope.get("state", {}).get(QUIET_LOG) else logging.INFO,
                "request",
                extra={"method": method, "path": path, "route": self.route(scope), "status": status_code,
                       "duration_ms": round((time.perf_counter() - started) * 1000, 2)},
            )
            structlog.contextvars.clear_contextvars()
