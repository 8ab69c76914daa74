"""The Subflow REST API (FastAPI ``app``).

Routes live under ``/api`` (OpenAPI UI at ``/docs``). Domain errors from
:mod:`subflow.errors` (every one, the request checks' of
:mod:`subflow_backend.request_checks` and the stored scenarios' included) are translated
to HTTP here and only here, from one table, :data:`ERRORS`: error class →
status, ``type`` and ``loc``. ``loc`` follows FastAPI's convention, first part
where the problem is:

* ``"body"``: the request body (a scenario document being saved or previewed,
  a sweep, the strategies, an uploaded ``file``);
* ``"query"``: a query parameter (``["query", "strategy"]`` of an export);
* ``"scenario"``: the stored scenario named by the ``scenario_id`` path
  parameter, then the path in its document (``["scenario", "flows", 2]``).

Request bodies are refused with 422 before any route runs when they contain
``NaN`` or ``±Infinity`` (not JSON numbers; ``loc`` names the field), and a
422 never echoes more than :data:`INPUT_ECHO_CHARS` characters of the input.

Limits: :class:`~subflow.errors.LimitExceeded` (a ``ScenarioInvalid``) → 422 naming
the ``MAX_*`` setting; request bodies over ``MAX_BODY_BYTES`` / ``MAX_UPLOAD_BYTES``
→ 413 (:class:`subflow_backend.body_limit.BodySizeLimit`, the outermost middleware,
so the NaN check never reads an oversized body).

Observability (:mod:`subflow_backend.observability`): JSON log lines with a ``request_id`` per
request (answered in ``X-Request-ID``), Prometheus metrics at ``GET /metrics`` for
``Authorization: Bearer $METRICS_TOKEN`` (404 while ``METRICS_TOKEN`` is unset).

If the built frontend (``settings.FRONTEND_DIST``, default ``frontend/dist``)
exists, it is served at ``/`` as a single-page app: files by path, and
``index.html`` for any other non-``/api`` path.

Run: ``uvicorn subflow_backend.main:app --port 8000`` (after ``alembic upgrade head``).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException as StarletteHTTPException
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from subflow.errors import (
    DemandUnreachable,
    EngineCannotRun,
    ExportRefused,
    FieldNotHonoured,
    ImportFailed,
    LinkInvalid,
    ScenarioInvalid,
    ScenarioNameTaken,
    StrategyNotSupported,
    SubflowError,
    TrackInvalid,
    TrackTooLarge,
    UnknownEngine,
    UnknownNode,
    UnknownStrategy,
    Unreachable,
)
from subflow.service.observability import configure_logging


from subflow_backend import compute
from subflow_backend.admission import AdmissionLimit
from subflow_backend.api.main import api_router
from subflow_backend.body_limit import BodySizeLimit, limit_for_path
from subflow_backend.headers import SecurityHeadersMiddleware
from subflow_backend.json_paths import json_paths
from subflow_backend.observability import metrics_allowed, metrics_text, request_context
from subflow_backend.quotas import CallerQuotas, Quotas, make_store
from subflow_backend.settings import settings

log = logging.getLogger(__name__)

#: Most characters of a refused input echoed back in a 422's ``detail[].input``.
INPUT_ECHO_CHARS = 200
#: Most characters of an error message (a domain error may quote the input).
MESSAGE_CHARS = 1000


class _Where:
    """Where the documents an error speaks of came from, for one request."""

    def __init__(self, request: Request):
        self.stored = "scenario_id" in request.path_params and request.method != "PUT"
        self.upload = request.url.path.rstrip("/").endswith("/imports")
        self.query = request.query_params

    def document(self, *path: Any) -> list[Any]:
        """``loc`` of ``path`` in the scenario document the request is about."""
        if self.upload:
            return ["body", "file"]
        return ["scenario", *path] if self.stored else ["body", *path]


@dataclass(frozen=True)
class ErrorMapping:
    """HTTP translation of a domain error class: ``status``, detail ``type`` and ``loc(exc, where)``;
    without ``loc`` the detail is the message alone (``{"detail": str}``)."""

    status: int
    type: str
    loc: Callable[[Any, _Where], list[Any]] | None


def _strategy_loc(exc: Any, where: _Where) -> list[Any]:
    if "strategy" in where.query:
        return ["query", "strategy"]
    index = getattr(exc, "index", None)
    return ["body", "strategies"] + ([index] if index is not None else [])


def _flow_loc(exc: Unreachable, where: _Where) -> list[Any]:
    index = getattr(exc, "index", None)
    return where.document("flows", *([index] if index is not None else [exc.flow_id]))


_422 = status.HTTP_422_UNPROCESSABLE_CONTENT

#: Domain error class → HTTP; a subclass uses the entry of its nearest listed base.
ERRORS: dict[type[SubflowError], ErrorMapping] = {
    ScenarioInvalid: ErrorMapping(_422, "value_error", lambda exc, w: w.document()),  # per error: see _details
    UnknownStrategy: ErrorMapping(_422, "unknown_strategy", _strategy_loc),
    UnknownEngine: ErrorMapping(_422, "unknown_engine", lambda exc, w: ["body", "engine"]),
    EngineCannotRun: ErrorMapping(_422, "engine_cannot_run", lambda exc, w: ["body", "engine"]),
    StrategyNotSupported: ErrorMapping(_422, "engine_cannot_run", _strategy_loc),
    FieldNotHonoured: ErrorMapping(_422, "engine_cannot_run", lambda exc, w: w.document(*exc.loc)),
    Unreachable: ErrorMapping(_422, "unreachable", _flow_loc),
    ImportFailed: ErrorMapping(_422, "import_failed", lambda exc, w: ["body", "file"]),
    ExportRefused: ErrorMapping(_422, "export_refused", lambda exc, w: w.document(*exc.loc)),
    LinkInvalid: ErrorMapping(_422, "link_invalid", lambda exc, w: w.document("links", exc.link, exc.field)),
    UnknownNode: ErrorMapping(
        _422, "unknown_node", lambda exc, w: ["body", "pairs"] if w.stored else w.document("nodes", exc.node)
    ),
    DemandUnreachable: ErrorMapping(
        _422, "unreachable", lambda exc, w: w.document("flows", exc.demand_id or f"{exc.src}>{exc.dst}")
    ),
    ScenarioNameTaken: ErrorMapping(status.HTTP_409_CONFLICT, "name_taken", None),
    TrackInvalid: ErrorMapping(_422, "track_invalid", lambda exc, w: exc.loc if exc.loc[:1] == ["query"]
                               else ["body", *exc.loc]),
    TrackTooLarge: ErrorMapping(status.HTTP_413_CONTENT_TOO_LARGE, "track_too_large", None),
}


def mapping_of(exc: SubflowError) -> ErrorMapping | None:
    """The :data:`ERRORS` entry of ``exc``'s class or of its nearest base that has one."""
    return next((ERRORS[c] for c in type(exc).__mro__ if c in ERRORS), None)


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float written as a string (JSON has no NaN/Infinity)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _text_safe(value: Any) -> Any:
    """``value`` with each lone UTF-16 surrogate in its strings (``"\\ud800"`` in a JSON body decodes to
    one, and UTF-8 cannot encode it) replaced by U+FFFD, so that an answer echoing the input serialises."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
        return value
    if isinstance(value, dict):
        return {_text_safe(k): _text_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_text_safe(v) for v in value]
    return value


def _echo(value: Any) -> Any:
    """The refused input as echoed in a 422: as is if short, else its JSON cut to
    :data:`INPUT_ECHO_CHARS` characters and marked ``…``."""
    if isinstance(value, str):
        return value if len(value) <= INPUT_ECHO_CHARS else value[:INPUT_ECHO_CHARS] + "…"
    value = _finite(jsonable_encoder(value))
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    if len(text) <= INPUT_ECHO_CHARS:
        return value
    return text[:INPUT_ECHO_CHARS] + "…"


def _cut(message: str) -> str:
    return message if len(message) <= MESSAGE_CHARS else message[:MESSAGE_CHARS] + "…"


def _details(exc: SubflowError, request: Request, mapping: ErrorMapping) -> list[dict[str, Any]]:
    where = _Where(request)
    if isinstance(exc, ScenarioInvalid):
        return [
            {"loc": where.document(*e["loc"]) if e["loc"][:1] != ["sweep"] else ["body", *e["loc"]],
             "msg": _cut(str(e["msg"])), "type": e.get("type", mapping.type)}
            for e in exc.errors
        ]
    assert mapping.loc is not None
    return [{"loc": mapping.loc(exc, where), "msg": _cut(str(exc)), "type": mapping.type}]


async def _domain_error(request: Request, exc: Exception) -> JSONResponse:
    mapping = mapping_of(exc)  # type: ignore[arg-type]
    if mapping is None:  # registered only for classes of ERRORS, so never here
        raise exc
    if mapping.loc is None:
        return JSONResponse(status_code=mapping.status, content={"detail": _text_safe(_cut(str(exc)))})
    return JSONResponse(status_code=mapping.status,
                        content={"detail": _text_safe(_finite(_details(exc, request, mapping)))})


async def _request_invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's 422 (``detail: [{loc, msg, type, input, ctx}]``), with ``input`` cut short and
    non-finite numbers written as strings and lone surrogates replaced, so that it always serialises."""
    detail = []
    for error in exc.errors():
        item = {k: v for k, v in error.items() if k not in ("input", "ctx", "url")}
        if "input" in error:
            item["input"] = _echo(error["input"])
        if error.get("ctx"):
            item["ctx"] = _finite(jsonable_encoder(error["ctx"], custom_encoder={Exception: str}))
        detail.append(_text_safe(_finite(jsonable_encoder(item))))
    return JSONResponse(status_code=_422, content={"detail": detail})


def _non_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


class RefuseNonFiniteJson:
    """ASGI middleware: a JSON request body under ``/api`` with ``NaN``, ``Infinity`` or
    ``-Infinity`` (which Python's parser accepts but JSON does not have) is answered 422
    naming each such field, before any route sees it. Other requests pass untouched."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] not in ("POST", "PUT", "PATCH")
            or not scope["path"].startswith("/api/")
            or b"json" not in dict(scope["headers"]).get(b"content-type", b"")
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, receive, send)  # disconnected: let the app see it
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            paths = json_paths(json.loads(body), _non_finite) if body else []
        except (ValueError, RecursionError):
            paths = []  # malformed: FastAPI answers it
        if paths:
            response = JSONResponse(
                status_code=_422,
                content={"detail": [
                    {"loc": ["body", *p], "msg": "NaN and Infinity are not JSON numbers; give a finite number",
                     "type": "finite_number"} for p in paths[:20]
                ]},
            )
            await response(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


configure_logging("backend")  # JSON lines (uvicorn's too), with the request id of each request
@asynccontextmanager
async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
    """Start the compute pool's processes in the background (:func:`subflow_backend.compute.warm`)."""
    threading.Thread(target=compute.warm, name="compute-warm", daemon=True).start()
    yield


app = FastAPI(
    lifespan=lifespan,
    title="Subflow",
    version="0.1.0",
    description="Network planning: compare single-path and multipath TCP on mobile wireless scenarios.",
)
app.add_middleware(RefuseNonFiniteJson)

app.add_middleware(SecurityHeadersMiddleware)
# request bodies over MAX_BODY_BYTES (uploads: MAX_UPLOAD_BYTES) are refused with 413 before any parsing
app.add_middleware(BodySizeLimit, limit=limit_for_path(settings.MAX_BODY_BYTES, settings.MAX_UPLOAD_BYTES,
                                                      settings.MAX_TRACK_BYTES))

if settings.BACKEND_CORS_ORIGINS:
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.BACKEND_CORS_ORIGINS,
        allow_methods=["*"],
        allow_headers=["*"],
    )
# requests beyond MAX_CONCURRENT_REQUESTS wait here, holding neither a thread nor a database connection
app.add_middleware(AdmissionLimit, max_concurrent=min(settings.MAX_CONCURRENT_REQUESTS,
                                                      settings.DB_POOL_SIZE + settings.DB_MAX_OVERFLOW),
                   wait_s=settings.ADMISSION_WAIT_S)
# per-caller quotas in front of that queue: one caller's requests beyond its share get 429 without waiting
app.add_middleware(CallerQuotas, quotas=Quotas(
    concurrent=settings.QUOTA_CONCURRENT, heavy_concurrent=settings.QUOTA_HEAVY_CONCURRENT,
    streams=settings.QUOTA_STREAMS, requests_per_minute=settings.QUOTA_REQUESTS_PER_MINUTE,
    heavy_per_minute=settings.QUOTA_HEAVY_PER_MINUTE), store=make_store(settings.quota_redis_url, settings.QUOTA_LEASE_S))
# outermost: every answer (413s and 422s of the middlewares above included) has a request id and a log line
app.add_middleware(request_context)



#: Operations anyone may call (no credentials needed, so never 401).
PUBLIC_PATHS = frozenset({"/api/health", "/api/auth/login"})
#: Path parameters → what a 404 says when the id names nothing (of yours).
_NOT_FOUND_PARAMS = {
    "{comparison_id}": "No such scenario or comparison.",
    "{scenario_id}": "No such scenario (or not in a project of yours).",
    "{project_id}": "No such project (or not one of yours).",
    "{user_id}": "No such user.",
    "{token_id}": "No such token of yours.",
}


def _add_common_responses(path: str, method: str, operation: dict[str, Any]) -> None:
    """Add to ``operation``'s responses the errors FastAPI or a dependency answers for it (a
    route's own description of the same status wins): 400 for a body that cannot be parsed, 413 for one
    over the body limit (:mod:`subflow_backend.body_limit`),
    401 without credentials, 429 beyond a per-caller quota (:mod:`subflow_backend.quotas`), 403 for a write with a read-only token (or a cross-origin cookie
    write), 404 for an unknown id in the path or in the ``project_id`` query parameter."""
    responses = operation.setdefault("responses", {})
    if "requestBody" in operation:
        responses.setdefault("400", {"description": "The request body cannot be parsed."})
        responses.setdefault("413", {"description": "The request body is larger than `MAX_BODY_BYTES` (uploads: "
                                                    "`MAX_UPLOAD_BYTES`); nothing was read or done."})
    if path not in PUBLIC_PATHS:
        responses.setdefault("401", {"description": "Not signed in (no, expired or revoked credentials)."})
        responses.setdefault("429", {"description": "A quota of the caller is exhausted (the `QUOTA_*` setting named in "
                                                    "`detail`); nothing was done: try again after `Retry-After` seconds."})
        if method != "get":
            responses.setdefault("403", {"description": "A read-only token, a role too weak for this, "
                                                        "or a cross-origin write with the session cookie."})
    for param, description in _NOT_FOUND_PARAMS.items():
        if param in path:
            responses.setdefault("404", {"description": description})
            break
    if any(p.get("name") == "project_id" and p.get("in") == "query" for p in operation.get("parameters", [])):
        responses.setdefault("404", {"description": "No such project (or not one of yours)."})


def openapi() -> dict[str, Any]:
    """The OpenAPI document, with the errors FastAPI or a dependency answers for a route added
    to its responses (:func:`_add_common_responses`)."""
    if app.openapi_schema is None:
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        for path, operations in schema.get("paths", {}).items():
            for method, operation in operations.items():
                _add_common_responses(path, method, operation)
        app.openapi_schema = schema
    return app.openapi_schema


app.openapi = openapi  # type: ignore[method-assign]


@functools.cache
def _path_patterns() -> list[tuple[re.Pattern[str], frozenset[str], bool]]:
    """``(regex of the path, its methods, whether the path has no parameter)`` of every API path
    in the OpenAPI document."""
    out = []
    for path, operations in openapi().get("paths", {}).items():
        regex = "^" + re.sub(r"\\{[^}/]+\\}", "[^/]+", re.escape(path)) + "$"
        out.append((re.compile(regex), frozenset(m.upper() for m in operations), "{" not in path))
    return out


def _allowed_methods(path: str) -> set[str]:
    """Methods of the API path that ``path`` is (the frontend catch-all is not one): a path
    without parameters (``/api/users/me``) wins over templates that also match it
    (``/api/users/{user_id}``)."""
    matches = [(methods, literal) for regex, methods, literal in _path_patterns() if regex.match(path)]
    literal = [methods for methods, is_literal in matches if is_literal]
    return set().union(*(literal or [methods for methods, _ in matches]))


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's HTTP errors, with a 405 that lists every method of the path in ``Allow``
    (Starlette names only the first route's), and 404 when no API route has the path."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == status.HTTP_405_METHOD_NOT_ALLOWED:
        allowed = _allowed_methods(request.url.path)
        if not allowed:
            return JSONResponse({"detail": "Not Found"}, status_code=status.HTTP_404_NOT_FOUND)
        return JSONResponse(
            {"detail": "Method Not Allowed"},
            status_code=exc.status_code,
            headers={"Allow": ", ".join(sorted(allowed))},
        )
    if not isinstance(exc.detail, str) or _text_safe(exc.detail) is not exc.detail:  # a detail quoting the input
        exc = StarletteHTTPException(exc.status_code, _text_safe(exc.detail), getattr(exc, "headers", None))
    return await http_exception_handler(request, exc)


async def _database_unavailable(_request: Request, exc: Exception) -> Response:
    """503 with ``Retry-After`` while the database cannot be reached or every pooled connection
    is busy (``DB_POOL_TIMEOUT_S``), instead of a 500; nothing was written."""
    log.warning("database unavailable: %s", exc)
    return JSONResponse({"detail": f"database unavailable, try again shortly ({type(exc).__name__})"},
                        status_code=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": "2"})


for _cls in ERRORS:
    app.add_exception_handler(_cls, _domain_error)
app.add_exception_handler(OperationalError, _database_unavailable)
app.add_exception_handler(PoolTimeout, _database_unavailable)
app.add_exception_handler(RequestValidationError, _request_invalid)  # type: ignore[arg-type]
app.add_exception_handler(StarletteHTTPException, _http_error)

app.include_router(api_router, prefix="/api")


def _frontend_file(dist: Path, path: str) -> Path | None:
    """The file of the built frontend for URL ``path`` (never outside ``dist``)."""
    if not path:
        return None
    root = dist.resolve()
    candidate = (root / path).resolve()
    if candidate.is_relative_to(root) and candidate.is_file():
        return candidate
    return None


@app.get("/metrics", include_in_schema=False)
def metrics(authorization: str | None = Header(default=None)) -> Response:
    """Prometheus metrics (text exposition format) for ``Authorization: Bearer $METRICS_TOKEN``;
    404 without ``METRICS_TOKEN`` set or with another token (the path gives nothing away).
    Figures: see :mod:`subflow_backend.observability`."""
    if not metrics_allowed(authorization):
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Not Found")
    body, content_type = metrics_text()
    return Response(body, media_type=content_type)


@app.get("/{full_path:path}", include_in_schema=False)
def spa(full_path: str) -> FileResponse:
    """Serve the built frontend: a file if it exists, else ``index.html`` (client routing).

    ``/api/...`` paths that matched no route are 404 (JSON), as is everything when
    no frontend is built; an API path that has no ``GET`` (nor ``HEAD``) is 405 with ``Allow``.
    """
    dist = settings.FRONTEND_DIST
    index = dist / "index.html"
    if (full_path == "api" or full_path.startswith("api/")) and _allowed_methods("/" + full_path):
        # an API path without GET (``/api/timeline``): 405 with its methods, not the SPA's 404
        raise HTTPException(status.HTTP_405_METHOD_NOT_ALLOWED, "Method Not Allowed")
    if full_path == "api" or full_path.startswith("api/") or not index.is_file():
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Not Found")
    file = _frontend_file(dist, full_path)
    if file is not None:
        return FileResponse(file)
    return FileResponse(index, headers={"Cache-Control": "no-cache"})
