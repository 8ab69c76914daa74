"""Who may see and change what: project roles and the visibility of scenarios.

A user's role in a project is ``viewer`` < ``editor`` < ``owner`` (admins act as
owner of every project). Viewers read; editors also create, change, delete and run
scenarios; owners also manage the project and its members. Something in a project
the user is not a member of is reported as absent (404), not forbidden.
"""

from __future__ import annotations

from sqlalchemy import Select, case, select
from sqlalchemy.orm import Session

from subflow_backend import models

_RANK = {role: i for i, role in enumerate(models.PROJECT_ROLES)}


def role_in(session: Session, user: models.User, project_id: str) -> str | None:
    """``user``'s role in the project (``owner`` for admins), or None if not a member."""
    if user.is_admin:
        return "owner"
    return session.scalar(
        select(models.ProjectMember.role).where(
            models.ProjectMember.project_id == project_id, models.ProjectMember.user_id == user.id
        )
    )


def at_least(role: str | None, needed: str) -> bool:
    """Whether ``role`` is ``needed`` or stronger."""
    return role is not None and _RANK[role] >= _RANK[needed]


def visible_project_ids(user: models.User) -> Select[tuple[str]] | None:
    """A subquery of the ids of projects ``user`` is a member of (None for admins: all)."""
    if user.is_admin:
        return None
    return select(models.ProjectMember.project_id).where(models.ProjectMember.user_id == user.id)


def default_project_for(session: Session, user: models.User) -> models.Project | None:
    """Where a new scenario goes when the request names no project: the first project (by
    name, ``default`` first) the user may edit, or None."""
    stmt = select(models.Project).order_by(
        case((models.Project.name == models.DEFAULT_PROJECT_NAME, 0), else_=1), models.Project.name
    )
    if not user.is_admin:
        stmt = stmt.join(models.ProjectMember, models.ProjectMember.project_id == models.Project.id).where(
            models.ProjectMember.user_id == user.id, models.ProjectMember.role.in_(("editor", "owner"))
        )
    return session.scalars(stmt.limit(1)).first()
