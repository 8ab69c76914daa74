"""``/api/users``: the signed-in user (``/me``), their personal API tokens, and (admins) all accounts."""

from __future__ import annotations

from subflow.errors import UsernameTaken

from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from sqlalchemy import func, select
from sqlalchemy.orm import aliased

from subflow_backend import accounts, audit, crud, models
from subflow_backend.api.deps import AdminReader, AdminUser, CurrentUser, SessionDep, WriteAccess, client_ip
from subflow_backend.schemas_accounts import (
    ApiTokenCreate,
    ApiTokenCreated,
    ApiTokenPublic,
    ApiTokensPublic,
    PasswordChange,
    UserCreate,
    UserPublic,
    UsersPublic,
    UserUpdate,
)

router = APIRouter(prefix="/users", tags=["users"])

_ADMIN = {403: {"description": "Not an admin (or a read-scoped token)."}}
_NO_USER = {404: {"description": "No such user."}}


@router.get("/me", response_model=UserPublic)
def read_me(user: CurrentUser) -> UserPublic:
    """The signed-in user."""
    return UserPublic.model_validate(user)


@router.put("/me/password", status_code=status.HTTP_204_NO_CONTENT,
            responses={400: {"description": "The current password is wrong."}})
def change_password(request: Request, session: SessionDep, principal: WriteAccess, body: PasswordChange) -> Response:
    """Change your password (``current_password`` must match); ends all your sessions."""
    if accounts.authenticate(session, principal.user.username, body.current_password) is None:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, "current_password is wrong")
    accounts.set_password(session, principal.user, body.new_password)
    audit.record(session, "user_update", user=principal.user, target=principal.user.username,
                 ip=client_ip(request), detail={"password": True})
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/me/tokens", response_model=ApiTokensPublic)
def list_tokens(session: SessionDep, user: CurrentUser) -> ApiTokensPublic:
    """Your personal API tokens (never the secrets), newest first."""
    rows = session.scalars(
        select(models.ApiToken).where(models.ApiToken.user_id == user.id).order_by(models.ApiToken.created_at.desc())
    ).all()
    return ApiTokensPublic(data=[ApiTokenPublic.model_validate(r) for r in rows], count=len(rows))


@router.post("/me/tokens", response_model=ApiTokenCreated, status_code=status.HTTP_201_CREATED)
def create_token(request: Request, session: SessionDep, principal: WriteAccess, body: ApiTokenCreate) -> ApiTokenCreated:
    """Create a personal API token. The answer's ``token`` is shown once; send it as
    ``Authorization: Bearer <token>``. A ``read`` token may read and compute; ``write`` may also
    change and run (within your project roles)."""
    issued = accounts.create_api_token(session, principal.user, body.name, body.scope, body.expires_days)
    audit.record(session, "token_create", user=principal.user, target=issued.row.id, ip=client_ip(request),
                 detail={"name": body.name, "scope": body.scope})
    return ApiTokenCreated(**ApiTokenPublic.model_validate(issued.row).model_dump(), token=issued.secret)


@router.delete("/me/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT,
               responses={404: {"description": "No such token of yours."}})
def revoke_token(request: Request, session: SessionDep, principal: WriteAccess, token_id: str) -> Response:
    """Revoke (delete) one of your tokens; it stops working at once."""
    row = session.get(models.ApiToken, token_id)
    if row is None or row.user_id != principal.user.id:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"token {token_id!r} not found")
    session.delete(row)
    audit.record(session, "token_revoke", user=principal.user, target=token_id, ip=client_ip(request),
                 detail={"name": row.name}, commit=False)
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# --------------------------------------------------------------------------- admin


#: Name of the lock serialising changes that could leave no active admin (:func:`accounts.lock_guard`).
ADMINS_GUARD = "subflow:active-admins"
#: Name of the lock serialising changes that could leave a project without an owner.
OWNERS_GUARD = "subflow:project-owners"


def _other_active_admins(session: SessionDep, user_id: str) -> int:
    return session.scalar(select(func.count()).select_from(models.User).where(
        models.User.is_admin.is_(True), models.User.is_active.is_(True), models.User.id != user_id)) or 0


def sole_owner_of(session: SessionDep, user_id: str) -> list[str]:
    """Names of the projects whose only owner is ``user_id``."""
    other = aliased(models.ProjectMember)
    owners = (select(func.count()).select_from(other)
              .where(other.project_id == models.Project.id, other.role == "owner")
              .correlate(models.Project).scalar_subquery())
    return list(session.scalars(
        select(models.Project.name).join(models.ProjectMember, models.ProjectMember.project_id == models.Project.id)
        .where(models.ProjectMember.user_id == user_id, models.ProjectMember.role == "owner", owners == 1)
        .order_by(models.Project.name)))


def _user_or_404(session: SessionDep, user_id: str) -> models.User:
    user = session.get(models.User, user_id)
    if user is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"user {user_id!r} not found")
    return user


@router.get("", response_model=UsersPublic, responses=_ADMIN)
def list_users(
    session: SessionDep, _admin: AdminReader, skip: int = Query(0, ge=0, le=crud.MAX_SKIP),
    limit: int = Query(100, ge=1, le=1000),
) -> UsersPublic:
    """All accounts by username (admins)."""
    count = session.scalar(select(func.count()).select_from(models.User)) or 0
    rows = session.scalars(select(models.User).order_by(models.User.username).offset(skip).limit(limit)).all()
    return UsersPublic(data=[UserPublic.model_validate(r) for r in rows], count=count)


@router.post("", response_model=UserPublic, status_code=status.HTTP_201_CREATED,
             responses={**_ADMIN, 409: {"description": "The username is taken."}})
def create_user(request: Request, session: SessionDep, admin: AdminUser, body: UserCreate) -> UserPublic:
    """Create an account (admins). New users are members of no project and may not run root engines
    unless ``can_run_linux``."""
    try:
        user = accounts.create_user(session, body.username, body.password, is_admin=body.is_admin,
                                    can_run_linux=body.can_run_linux)
    except UsernameTaken as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None
    audit.record(session, "user_create", user=admin, target=user.username, ip=client_ip(request),
                 detail={"is_admin": body.is_admin, "can_run_linux": body.can_run_linux})
    return UserPublic.model_validate(user)


@router.get("/{user_id}", response_model=UserPublic, responses={**_ADMIN, **_NO_USER})
def read_user(session: SessionDep, _admin: AdminReader, user_id: str) -> UserPublic:
    """One account (admins)."""
    return UserPublic.model_validate(_user_or_404(session, user_id))


@router.patch("/{user_id}", response_model=UserPublic,
              responses={**_ADMIN, **_NO_USER, 409: {"description": "It would leave no active admin."}})
def update_user(request: Request, session: SessionDep, admin: AdminUser, user_id: str, body: UserUpdate) -> UserPublic:
    """Change an account (admins): password, admin flag, active flag, ``can_run_linux``.
    Disabling an account or changing its password ends its sessions. 409 if it would leave no active
    admin, checked under a lock (:func:`subflow_backend.accounts.lock_guard`) so two admins disabling
    each other at once cannot both succeed."""
    user = _user_or_404(session, user_id)
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    if changes.get("is_admin") is False or changes.get("is_active") is False:
        accounts.lock_guard(session, ADMINS_GUARD)  # held until the commit below
        session.refresh(user)
        if user.is_admin and user.is_active and not _other_active_admins(session, user.id):
            session.rollback()
            raise HTTPException(status.HTTP_409_CONFLICT, f"{user.username!r} is the last active admin")
    for field in ("is_admin", "is_active", "can_run_linux"):
        if field in changes:
            setattr(user, field, changes[field])
    session.commit()
    if "password" in changes:
        accounts.set_password(session, user, changes["password"])  # also ends the sessions
    elif changes.get("is_active") is False:
        accounts.end_sessions(session, user)
    audit.record(session, "user_update", user=admin, target=user.username, ip=client_ip(request),
                 detail={k: (True if k == "password" else v) for k, v in changes.items()})
    session.refresh(user)
    return UserPublic.model_validate(user)


@router.delete("/{user_id}", status_code=status.HTTP_204_NO_CONTENT,
               responses={**_ADMIN, **_NO_USER, 409: {"description": "Yourself, the last active admin, or the only "
                                                                  "owner of a project."}})
def delete_user(request: Request, session: SessionDep, admin: AdminUser, user_id: str) -> Response:
    """Delete an account with its sessions, tokens and memberships (admins; not yourself, not the last
    active admin, not the only owner of a project: 409 naming it). Scenario versions it saved keep its
    username. The checks run under the guards' locks (:func:`subflow_backend.accounts.lock_guard`),
    so concurrent deletions and demotions cannot together break them."""
    user = _user_or_404(session, user_id)
    if user.id == admin.id:
        raise HTTPException(status.HTTP_409_CONFLICT, "you cannot delete your own account")
    accounts.lock_guard(session, ADMINS_GUARD)  # both held until the commit below
    accounts.lock_guard(session, OWNERS_GUARD)
    session.refresh(user)
    if user.is_admin and user.is_active and not _other_active_admins(session, user.id):
        session.rollback()
        raise HTTPException(status.HTTP_409_CONFLICT, f"{user.username!r} is the last active admin")
    owned = sole_owner_of(session, user.id)
    if owned:
        session.rollback()
        raise HTTPException(status.HTTP_409_CONFLICT, f"{user.username!r} is the only owner of project(s) "
                            f"{', '.join(repr(n) for n in owned)}; make someone else owner or delete the project first")
    session.delete(user)
    audit.record(session, "user_delete", user=admin, target=user.username, ip=client_ip(request), commit=False)
    session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
