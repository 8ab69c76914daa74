"""``/api/health``."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from subflow_backend import observability
from subflow_backend.api.deps import SessionDep
from subflow_backend.schemas import DependencyHealth, Health

router = APIRouter(tags=["utils"])


@router.get("/health", response_model=Health,
            responses={503: {"model": Health, "description": "The database is unreachable."}})
def health(session: SessionDep) -> JSONResponse:
    """The API's dependencies: ``{"status", "database", "broker", "agent"}``, each dependency
    ``{"status": "ok" | "unavailable", "error": error class name or null}``.

    ``status`` is ``ok`` (200) when all three answer, ``degraded`` (200) when the broker (Redis or
    the filesystem broker's folder) or the emulator agent (``GET {AGENT_URL}/health``, 2 s) does
    not, ``unavailable`` (503) when the database does not. Broker and agent answers are reused
    for 5 s, so frequent probes do not load them. Public: no credentials needed, and no address
    or message is given away.
    """
    errors = observability.dependencies(session)
    parts = {name: DependencyHealth(status="ok" if error is None else "unavailable", error=error)
             for name, error in errors.items()}
    if errors["database"] is not None:
        overall, code = "unavailable", 503
    elif any(errors.values()):
        overall, code = "degraded", 200
    else:
        overall, code = "ok", 200
    return JSONResponse(Health(status=overall, **parts).model_dump(mode="json"), status_code=code)
