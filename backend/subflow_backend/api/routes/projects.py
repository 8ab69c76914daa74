"""``/api/projects``: projects and their members.

Any signed-in user (write credential) may create a project and becomes its owner.
Members see a project (``GET``); owners rename it, delete it (when it holds no
scenario) and set members' roles. A project the caller is not a member of is 404.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response, status
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from subflow_backend import access, accounts, audit, models
from subflow_backend.api.deps import CurrentUser, PrincipalDep, SessionDep, WriteAccess, client_ip, require_role
from subflow_backend.api.routes.users import OWNERS_GUARD
from subflow_backend.schemas_accounts import (
    MemberAdd,
    MemberPublic,
    MemberSet,
    MembersPublic,
    ProjectCreate,
    ProjectPublic,
    ProjectsPublic,
    ProjectUpdate,
)

router = APIRouter(prefix="/projects", tags=["projects"])

_NOT_FOUND = {404: {"description": "No such project (or you are not a member)."}}
_FORBIDDEN = {403: {"description": "Your role is too weak (owner needed) or the token is read-only."}}


def _public(project: models.Project, role: str) -> ProjectPublic:
    return ProjectPublic(id=project.id, name=project.name, description=project.description,
                         created_at=project.created_at, role=role)  # type: ignore[arg-type]


def _project(session: SessionDep, user: models.User, project_id: str) -> tuple[models.Project, str]:
    project = session.get(models.Project, project_id)
    role = access.role_in(session, user, project_id) if project is not None else None
    if project is None or role is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"project {project_id!r} not found")
    return project, role


def _owned(session: SessionDep, principal, project_id: str) -> models.Project:
    require_role(session, principal, project_id, "owner", f"project {project_id!r}")
    project = session.get(models.Project, project_id)
    assert project is not None
    return project


def _commit_name(session: SessionDep, name: str) -> None:
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise HTTPException(status.HTTP_409_CONFLICT, f"a project named {name!r} already exists") from None


@router.get("", response_model=ProjectsPublic)
def list_projects(session: SessionDep, user: CurrentUser) -> ProjectsPublic:
    """Projects you are a member of (admins: all), by name, with your role."""
    if user.is_admin:
        rows = [(p, "owner") for p in session.scalars(select(models.Project).order_by(models.Project.name))]
    else:
        rows = list(session.execute(
            select(models.Project, models.ProjectMember.role)
            .join(models.ProjectMember, models.ProjectMember.project_id == models.Project.id)
            .where(models.ProjectMember.user_id == user.id).order_by(models.Project.name)
        ).tuples())
    return ProjectsPublic(data=[_public(p, r) for p, r in rows], count=len(rows))


@router.post("", response_model=ProjectPublic, status_code=status.HTTP_201_CREATED,
             responses={409: {"description": "The name is taken."}})
def create_project(request: Request, session: SessionDep, principal: WriteAccess, body: ProjectCreate) -> ProjectPublic:
    """Create a project; you become its owner."""
    project = models.Project(name=body.name, description=body.description)
    session.add(project)
    _commit_name(session, body.name)
    session.add(models.ProjectMember(project_id=project.id, user_id=principal.user.id, role="owner"))
    audit.record(session, "project_create", user=principal.user, target=project.id, ip=client_ip(request),
                 detail={"name": body.name}, commit=False)
    session.commit()
    return _public(project, "owner")


@router.get("/{project_id}", response_model=ProjectPublic, responses=_NOT_FOUND)
def read_project(session: SessionDep, user: CurrentUser, project_id: str) -> ProjectPublic:
    """One project with your role."""
    return _public(*_project(session, user, project_id))


@router.patch("/{project_id}", response_model=ProjectPublic,
              responses={**_NOT_FOUND, **_FORBIDDEN, 409: {"description": "The name is taken."}})
def update_project(
    request: Request, session: SessionDep, principal: PrincipalDep, project_id: str, body: ProjectUpdate
) -> ProjectPublic:
    """Rename or describe a project (owners)."""
    project = _owned(session, principal, project_id)
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    for field, value in changes.items():
        setattr(project, field, value)
    _commit_name(session, project.name)
    audit.record(session, "project_update", user=principal.user, target=project.id, ip=client_ip(request),
                 detail=changes)
    return _public(project, access.role_in(session, principal.user, project_id) or "owner")


@router.delete("/{project_id}", status_code=status.HTTP_204_NO_CONTENT,
               responses={**_NOT_FOUND, **_FORBIDDEN, 409: {"description": "The project still holds scenarios."}})
def delete_project(request: Request, session: SessionDep, principal: PrincipalDep, project_id: str) -> Response:
    """Delete an empty project (owners); 409 while it holds scenarios."""
    project = _owned(session, principal, project_id)
    n = session.scalar(select(func.count()).select_from(models.Scenario).where(models.Scenario.project_id == project_id))
    if n:
        raise HTTPException(status.HTTP_409_CONFLICT, f"project {project.name!r} holds {n} scenario(s); "
                            "delete or move them first")
    session.delete(project)
    audit.record(session, "project_delete", user=principal.user, target=project_id, ip=client_ip(request),
                 detail={"name": project.name}, commit=False)
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/{project_id}/members", response_model=MembersPublic, responses=_NOT_FOUND)
def list_members(session: SessionDep, user: CurrentUser, project_id: str) -> MembersPublic:
    """The project's members and roles, by username."""
    _project(session, user, project_id)
    rows = session.execute(
        select(models.ProjectMember.user_id, models.User.username, models.ProjectMember.role)
        .join(models.User, models.User.id == models.ProjectMember.user_id)
        .where(models.ProjectMember.project_id == project_id).order_by(models.User.username)
    ).all()
    return MembersPublic(data=[MemberPublic(user_id=u, username=n, role=r) for u, n, r in rows], count=len(rows))


def _owners(session: SessionDep, project_id: str) -> int:
    return session.scalar(select(func.count()).select_from(models.ProjectMember).where(
        models.ProjectMember.project_id == project_id, models.ProjectMember.role == "owner")) or 0


def _set_role(request: Request, session: SessionDep, principal, project_id: str, user: models.User,
              role: str) -> MemberPublic:
    """Give ``user`` ``role`` in the project (the caller's ownership and the lock are checked by the
    callers); 409 if it would leave the project without an owner."""
    member = session.get(models.ProjectMember, (project_id, user.id))
    if member is not None and member.role == "owner" and role != "owner" and _owners(session, project_id) <= 1:
        session.rollback()
        raise HTTPException(status.HTTP_409_CONFLICT, "the project would have no owner")
    if member is None:
        session.add(models.ProjectMember(project_id=project_id, user_id=user.id, role=role))
    else:
        member.role = role
    audit.record(session, "member_set", user=principal.user, target=project_id, ip=client_ip(request),
                 detail={"user": user.username, "role": role}, commit=False)
    session.commit()
    return MemberPublic(user_id=user.id, username=user.username, role=role)  # type: ignore[arg-type]


@router.put("/{project_id}/members/{user_id}", response_model=MemberPublic,
            responses={**_NOT_FOUND, **_FORBIDDEN, 409: {"description": "It would leave the project without an owner."},
                       422: {"description": "No such user."}})
def set_member(
    request: Request, session: SessionDep, principal: PrincipalDep, project_id: str, user_id: str, body: MemberSet
) -> MemberPublic:
    """Add a user to the project or change their role (owners). 409 if it would leave the project
    without an owner (checked under a lock, :func:`subflow_backend.accounts.lock_guard`, so owners
    demoting each other at once cannot both succeed)."""
    accounts.lock_guard(session, OWNERS_GUARD)  # held until the commit below
    _owned(session, principal, project_id)
    user = session.get(models.User, user_id)
    if user is None:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT,
                            [{"loc": ["path", "user_id"], "msg": f"no user {user_id!r}", "type": "unknown_user"}])
    return _set_role(request, session, principal, project_id, user, body.role)


@router.post("/{project_id}/members", response_model=MemberPublic,
             responses={**_NOT_FOUND, **_FORBIDDEN, 409: {"description": "It would leave the project without an owner."},
                        422: {"description": "No user of that name."}})
def add_member_by_name(
    request: Request, session: SessionDep, principal: PrincipalDep, project_id: str, body: MemberAdd
) -> MemberPublic:
    """Add a user, named by ``username``, to the project or change their role (owners): the same as
    ``PUT .../members/{user_id}`` for owners who cannot list the users (only admins may). 422 naming
    ``username`` when no user has that name."""
    accounts.lock_guard(session, OWNERS_GUARD)  # held until the commit below
    _owned(session, principal, project_id)
    user = session.scalar(select(models.User).where(models.User.username == body.username))
    if user is None:
        session.rollback()
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, [
            {"loc": ["body", "username"], "msg": f"no user named {body.username!r}", "type": "unknown_user"}])
    return _set_role(request, session, principal, project_id, user, body.role)


@router.delete("/{project_id}/members/{user_id}", status_code=status.HTTP_204_NO_CONTENT,
               responses={**_NOT_FOUND, **_FORBIDDEN, 409: {"description": "The last owner cannot leave."}})
def remove_member(request: Request, session: SessionDep, principal: PrincipalDep, project_id: str, user_id: str) -> Response:
    """Remove a member (owners); 409 for the last owner (checked under the same lock as :func:`set_member`)."""
    accounts.lock_guard(session, OWNERS_GUARD)  # held until the commit below
    _owned(session, principal, project_id)
    member = session.get(models.ProjectMember, (project_id, user_id))
    if member is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"user {user_id!r} is not a member")
    if member.role == "owner" and _owners(session, project_id) <= 1:
        session.rollback()
        raise HTTPException(status.HTTP_409_CONFLICT, "the project would have no owner")
    session.delete(member)
    audit.record(session, "member_remove", user=principal.user, target=project_id, ip=client_ip(request),
                 detail={"user_id": user_id}, commit=False)
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
