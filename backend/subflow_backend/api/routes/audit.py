"""``/api/audit``: the audit log (admins)."""

from __future__ import annotations

from fastapi import APIRouter, Query

from subflow_backend import audit, crud
from subflow_backend.api.deps import AdminReader, SessionDep
from subflow_backend.schemas_accounts import AuditEntryPublic, AuditPublic

router = APIRouter(prefix="/audit", tags=["audit"])


@router.get("", response_model=AuditPublic, responses={403: {"description": "Not an admin."}})
def list_audit(
    session: SessionDep,
    _admin: AdminReader,
    action: str | None = Query(None, max_length=40, description="Only this action, e.g. `login_failed`."),
    username: str | None = Query(None, max_length=64),
    skip: int = Query(0, ge=0, le=crud.MAX_SKIP),
    limit: int = Query(100, ge=1, le=1000),
) -> AuditPublic:
    """Audit entries, newest first: ``{data: [{id, at, username, action, target, ip, detail}], count}``
    (actions: see :mod:`subflow_backend.audit`)."""
    rows, count = audit.list_entries(session, skip, limit, action, username)
    return AuditPublic(data=[AuditEntryPublic.model_validate(r) for r in rows], count=count)
