"""``/api/health``."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from subflow_backend.api.deps import SessionDep

router = APIRouter(tags=["utils"])


@router.get("/health", responses={503: {"description": "The database is unreachable."}})
def health(session: SessionDep) -> JSONResponse:
    """``{"status": "ok"}`` when the API can reach its database; 503 ``{"status": "unavailable"}`` otherwise."""
    try:
        session.execute(text("SELECT 1"))
    except Exception:
        return JSONResponse({"status": "unavailable"}, status_code=503)
    return JSONResponse({"status": "ok"})
