"""The audit log: who signed in, used a token, changed, deleted or ran what, from where.

Entries are written by the API edge (routes and :mod:`subflow_backend.api.deps`) with
:func:`record`; admins read them with ``GET /api/audit``. Actions:

``login``, ``login_failed`` (only attempts under the sign-in limit reach the password check, so at
most ``LOGIN_MAX_FAILURES`` per username and window), ``login_throttled`` (once per lockout of a
username or an address, ``detail.key`` ``user`` or ``ip``), ``logout``, ``token_used`` (a personal
API token, at most once per token per :data:`TOKEN_USE_INTERVAL_S`), ``token_create``,
``token_revoke``, ``user_create``, ``user_update``, ``user_delete``, ``project_create``,
``project_update``, ``project_delete``, ``member_set``, ``member_remove``,
``scenario_create``, ``scenario_update``, ``scenario_restore``, ``scenario_fork``,
``scenario_delete``, ``comparison_create``, ``comparison_cancel``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from subflow_backend import models

#: Seconds between two ``token_used`` entries of the same personal token.
TOKEN_USE_INTERVAL_S = 300


def record(
    session: Session,
    action: str,
    *,
    user: models.User | None = None,
    username: str | None = None,
    target: str | None = None,
    ip: str | None = None,
    detail: dict[str, Any] | None = None,
    commit: bool = True,
) -> models.AuditEntry:
    """Append one entry (committed unless ``commit`` is false: then it joins the caller's transaction)."""
    entry = models.AuditEntry(
        user_id=user.id if user is not None else None,
        username=(user.username if user is not None else username),
        action=action,
        target=target[:200] if target else None,
        ip=ip,
        detail=detail,
    )
    session.add(entry)
    if commit:
        session.commit()
    return entry


def list_entries(
    session: Session,
    skip: int = 0,
    limit: int = 100,
    action: str | None = None,
    username: str | None = None,
) -> tuple[Sequence[models.AuditEntry], int]:
    """A page of entries, newest first, optionally of one ``action`` or ``username``, and the total count."""
    where = []
    if action:
        where.append(models.AuditEntry.action == action)
    if username:
        where.append(models.AuditEntry.username == username)
    count = session.scalar(select(func.count()).select_from(models.AuditEntry).where(*where)) or 0
    rows = session.scalars(
        select(models.AuditEntry).where(*where).order_by(models.AuditEntry.id.desc()).offset(skip).limit(limit)
    ).all()
    return rows, count
