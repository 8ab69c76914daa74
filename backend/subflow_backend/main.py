"""The Subflow REST API (FastAPI ``app``).

Routes live under ``/api`` (OpenAPI UI at ``/docs``). Domain errors from
:mod:`subflow.errors` are translated to HTTP here and only here:

* :class:`~subflow.errors.ScenarioInvalid` → 422, ``detail`` in FastAPI's
  shape with ``loc`` prefixed by ``"body"`` (``["body", "links", 0, "dst"]``);
* :class:`~subflow.errors.UnknownStrategy` / :class:`~subflow.errors.UnknownEngine`
  → 422 naming ``["body", "strategies"]`` / ``["body", "engine"]``;
* :class:`~subflow.errors.Unreachable` → 422 naming ``["scenario", "flows", i]``;
* :class:`subflow_backend.crud.ScenarioNameTaken` → 409.

If the built frontend (``settings.FRONTEND_DIST``, default ``frontend/dist``)
exists, it is served at ``/`` as a single-page app: files by path, and
``index.html`` for any other non-``/api`` path.

Run: ``uvicorn subflow_backend.main:app --port 8000`` (after ``alembic upgrade head``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, status
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse

from subflow.errors import (
    DemandUnreachable,
    ImportFailed,
    LinkInvalid,
    ScenarioInvalid,
    UnknownEngine,
    UnknownNode,
    UnknownStrategy,
    Unreachable,
)

from subflow_backend.api.main import api_router
from subflow_backend.crud import ScenarioNameTaken
from subflow_backend.headers import SecurityHeadersMiddleware
from subflow_backend.settings import settings

app = FastAPI(
    title="Subflow",
    version="0.1.0",
    description="Network planning: compare single-path and multipath TCP on mobile wireless scenarios.",
)

app.add_middleware(SecurityHeadersMiddleware)

if settings.BACKEND_CORS_ORIGINS:
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.BACKEND_CORS_ORIGINS,
        allow_methods=["*"],
        allow_headers=["*"],
    )


def _unprocessable(errors: list[dict[str, Any]]) -> JSONResponse:
    return JSONResponse(status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, content={"detail": errors})


@app.exception_handler(ScenarioInvalid)
async def _scenario_invalid(_request: Request, exc: ScenarioInvalid) -> JSONResponse:
    return _unprocessable(
        [
            {"loc": ["body", *e["loc"]], "msg": e["msg"], "type": e.get("type", "value_error")}
            for e in exc.errors
        ]
    )


@app.exception_handler(UnknownStrategy)
async def _unknown_strategy(_request: Request, exc: UnknownStrategy) -> JSONResponse:
    return _unprocessable([{"loc": ["body", "strategies"], "msg": str(exc), "type": "unknown_strategy"}])


@app.exception_handler(UnknownEngine)
async def _unknown_engine(_request: Request, exc: UnknownEngine) -> JSONResponse:
    return _unprocessable([{"loc": ["body", "engine"], "msg": str(exc), "type": "unknown_engine"}])


@app.exception_handler(Unreachable)
async def _unreachable(_request: Request, exc: Unreachable) -> JSONResponse:
    loc = getattr(exc, "loc", ["scenario", "flows"])
    return _unprocessable([{"loc": loc, "msg": str(exc), "type": "unreachable"}])


@app.exception_handler(ImportFailed)
async def _import_failed(_request: Request, exc: ImportFailed) -> JSONResponse:
    return _unprocessable([{"loc": ["body", "file"], "msg": str(exc), "type": "import_failed"}])


@app.exception_handler(LinkInvalid)
async def _link_invalid(_request: Request, exc: LinkInvalid) -> JSONResponse:
    return _unprocessable([{"loc": ["body", "links", exc.link, exc.field], "msg": str(exc), "type": "link_invalid"}])


@app.exception_handler(UnknownNode)
async def _unknown_node(_request: Request, exc: UnknownNode) -> JSONResponse:
    return _unprocessable([{"loc": ["body", "nodes", exc.node], "msg": str(exc), "type": "unknown_node"}])


@app.exception_handler(DemandUnreachable)
async def _demand_unreachable(_request: Request, exc: DemandUnreachable) -> JSONResponse:
    return _unprocessable([{"loc": ["body", "demands", exc.demand_id or f"{exc.src}>{exc.dst}"], "msg": str(exc),
                            "type": "unreachable"}])


@app.exception_handler(ScenarioNameTaken)
async def _name_taken(_request: Request, exc: ScenarioNameTaken) -> JSONResponse:
    return JSONResponse(status_code=status.HTTP_409_CONFLICT, content={"detail": str(exc)})


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


@app.get("/{full_path:path}", include_in_schema=False)
def spa(full_path: str) -> FileResponse:
    """Serve the built frontend: a file if it exists, else ``index.html`` (client routing).

    ``/api/...`` paths that matched no route are 404 (JSON), as is everything when
    no frontend is built.
    """
    dist = settings.FRONTEND_DIST
    index = dist / "index.html"
    if full_path == "api" or full_path.startswith("api/") or not index.is_file():
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Not Found")
    file = _frontend_file(dist, full_path)
    if file is not None:
        return FileResponse(file)
    return FileResponse(index, headers={"Cache-Control": "no-cache"})
