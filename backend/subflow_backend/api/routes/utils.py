"""``/api/health``."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from subflow_backend.api.deps import SessionDep
from subflow_backend.schemas import Health

router = APIRouter(tags=["utils"])


@router.get("/health", response_model=Health,
            responses={503: {"model": Health, "description": "The database is unreachable."}})
def health(session: SessionDep) -> JSONResponse:
    """``{"status": "ok"}`` when the API can reach its database; 503 ``{"status": "unavailable"}`` otherwise."""
    try:
        session.execute(text("SELECT 1"))
    except Exception:
        return JSONResponse({"status": "unavailable"}, status_code=503)
    return JSONResponse({"status": "ok"})
