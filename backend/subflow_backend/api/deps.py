"""Shared FastAPI dependencies as ``Annotated`` aliases.

Authentication (:func:`get_principal`), in this order:

1. ``Authorization: Bearer sft_...``: a personal API token (scope ``read`` or ``write``);
2. ``Authorization: Bearer sfa_...``: an access token from ``POST /api/auth/login``;
3. the ``subflow_session`` cookie set by ``POST /api/auth/login`` (HttpOnly, SameSite=Strict).
   A cookie-authenticated request that changes something must come from the same origin
   (``Sec-Fetch-Site`` / ``Origin``), else 403.

No credentials, or unknown/expired ones: 401 with ``WWW-Authenticate: Bearer``.

Authorization: ``CurrentUser`` is any signed-in user; ``WriteAccess`` also refuses a
read-scoped token (403); ``AdminUser`` refuses non-admins (403). ``ScenarioDep`` is a
scenario the caller may read (viewer or more in its project; 404 otherwise) and
``ScenarioEditDep`` one they may change (editor or more and a write credential; 403
if they may only read it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated, Literal
from urllib.parse import urlsplit

from celery import Celery
from fastapi import Depends, HTTPException, Request, status
from fastapi.security import OAuth2PasswordBearer
from sqlalchemy.orm import Session

from subflow_backend import access, accounts, audit, crud, models
from subflow_backend.db import get_session
from subflow_backend.queue import celery_app

#: pattern of an id in a query parameter: PostgreSQL text cannot hold NUL, so an id with one is a 422
#: naming the parameter instead of a database error
NO_NUL = r"^[^\x00]*$"

SESSION_COOKIE = "subflow_session"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

#: Declares the OAuth2 password flow in the OpenAPI document (``/docs`` "Authorize"); the
#: header itself is read by :func:`get_principal`, which also accepts the session cookie.
oauth2_scheme = OAuth2PasswordBearer(tokenUrl="/api/auth/login", auto_error=False)


def get_celery() -> Celery:
    """The Celery producer used to enqueue tasks."""
    return celery_app


SessionDep = Annotated[Session, Depends(get_session)]
CeleryDep = Annotated[Celery, Depends(get_celery)]


@dataclass
class Principal:
    """Who is calling and how: ``via`` ``cookie`` (browser session), ``access`` (bearer access
    token) or ``token`` (personal API token, ``token_id``); ``scope`` ``read`` or ``write``."""

    user: models.User
    via: Literal["cookie", "access", "token"]
    scope: Literal["read", "write"]
    token_id: str | None = None


def client_ip(request: Request) -> str | None:
    """The client's address as the server sees it."""
    return request.client.host if request.client else None


def _unauthorized(detail: str) -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, detail, headers={"WWW-Authenticate": "Bearer"})


def same_origin(request: Request) -> bool:
    """True if the request comes from this origin: ``Sec-Fetch-Site`` ``same-origin``/``none``, or
    (without it) no ``Origin`` or one naming this host."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == request.headers.get("host")


def _from_token(session: Session, request: Request, secret: str) -> Principal:
    row = accounts.find_api_token(session, secret)
    if row is None:
        raise _unauthorized("invalid or expired API token")
    user = session.get(models.User, row.user_id)
    if user is None or not user.is_active:
        raise _unauthorized("the token's account is disabled")
    now = models.utcnow()
    if row.last_used_at is None or now - row.last_used_at >= timedelta(seconds=audit.TOKEN_USE_INTERVAL_S):
        audit.record(session, "token_used", user=user, target=row.id, ip=client_ip(request),
                     detail={"token": row.prefix, "method": request.method, "path": request.url.path},
                     commit=False)
        row.last_used_at = now
        session.commit()
    return Principal(user, "token", row.scope, row.id)  # type: ignore[arg-type]


def get_principal(
    request: Request, session: SessionDep, bearer: Annotated[str | None, Depends(oauth2_scheme)]
) -> Principal:
    """The authenticated caller (see the module docstring); 401 if none, 403 for a cross-origin
    cookie write."""
    if bearer:
        if bearer.startswith(accounts.API_TOKEN_PREFIX):
            return _from_token(session, request, bearer)
        row = accounts.find_session(session, bearer, "access")
        if row is None:
            raise _unauthorized("invalid or expired access token; sign in again")
        via: Literal["cookie", "access"] = "access"
    else:
        cookie = request.cookies.get(SESSION_COOKIE)
        row = accounts.find_session(session, cookie, "cookie") if cookie else None
        if row is None:
            raise _unauthorized("not signed in")
        if request.method not in _SAFE_METHODS and not same_origin(request):
            raise HTTPException(status.HTTP_403_FORBIDDEN, "cross-origin request refused")
        via = "cookie"
    user = session.get(models.User, row.user_id)
    if user is None or not user.is_active:
        raise _unauthorized("the account is disabled")
    return Principal(user, via, "write")


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def get_current_user(principal: PrincipalDep) -> models.User:
    """The signed-in user (any credential, any scope)."""
    return principal.user


CurrentUser = Annotated[models.User, Depends(get_current_user)]


def require_write(principal: PrincipalDep) -> Principal:
    """The caller, if their credential may change things (403 for a ``read`` token)."""
    if principal.scope != "write":
        raise HTTPException(status.HTTP_403_FORBIDDEN, "this API token has scope 'read'; the request needs 'write'")
    return principal


WriteAccess = Annotated[Principal, Depends(require_write)]


def require_admin(principal: WriteAccess) -> models.User:
    """The caller, if an admin with a write credential (403 otherwise)."""
    if not principal.user.is_admin:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "only an admin may do this")
    return principal.user


def require_admin_read(principal: PrincipalDep) -> models.User:
    """The caller, if an admin (any scope; 403 otherwise)."""
    if not principal.user.is_admin:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "only an admin may do this")
    return principal.user


AdminUser = Annotated[models.User, Depends(require_admin)]
AdminReader = Annotated[models.User, Depends(require_admin_read)]


def _not_found(scenario_id: str) -> HTTPException:
    return HTTPException(status.HTTP_404_NOT_FOUND, f"scenario {scenario_id!r} not found")


def get_scenario_or_404(scenario_id: str, session: SessionDep, principal: PrincipalDep) -> models.Scenario:
    """The scenario named by the ``scenario_id`` path parameter if the caller is a member of
    its project; 404 if absent or not visible to them."""
    row = crud.get_scenario(session, scenario_id)
    if row is None or access.role_in(session, principal.user, row.project_id) is None:
        raise _not_found(scenario_id)
    return row


ScenarioDep = Annotated[models.Scenario, Depends(get_scenario_or_404)]


def require_role(session: Session, principal: Principal, project_id: str, needed: str, what: str) -> str:
    """Check ``principal`` may act as ``needed`` in the project: 404 if not a member, 403 if the
    role or the credential's scope is too weak. Returns the role."""
    role = access.role_in(session, principal.user, project_id)
    if role is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"{what} not found")
    if not access.at_least(role, needed):
        raise HTTPException(status.HTTP_403_FORBIDDEN, f"your role in this project is {role}; this needs {needed}")
    if principal.scope != "write":
        raise HTTPException(status.HTTP_403_FORBIDDEN, "this API token has scope 'read'; the request needs 'write'")
    return role


def get_scenario_for_edit(scenario_id: str, session: SessionDep, principal: PrincipalDep) -> models.Scenario:
    """The scenario, if the caller may change it (editor or owner, write credential)."""
    row = crud.get_scenario(session, scenario_id)
    if row is None:
        raise _not_found(scenario_id)
    require_role(session, principal, row.project_id, "editor", f"scenario {scenario_id!r}")
    return row


ScenarioEditDep = Annotated[models.Scenario, Depends(get_scenario_for_edit)]


def check_engine_permission(user: models.User, engine: str) -> None:
    """403 unless ``user`` may run ``engine`` (privileged engines need ``can_run_linux``)."""
    from subflow_backend.settings import settings

    if engine in settings.PRIVILEGED_ENGINES and not user.can_run_linux:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            f"engine {engine!r} runs as root; it needs the 'can_run_linux' permission (an admin grants it)",
        )


def target_project(session: Session, principal: Principal, project_id: str | None) -> str:
    """The project a new scenario goes into: ``project_id`` if the caller may edit it (404 if not a
    member, 403 if a viewer or a read token), else the first project they may edit (422 naming
    ``project_id`` if none)."""
    if project_id is None:
        project = access.default_project_for(session, principal.user)
        if project is None:
            raise HTTPException(
                status.HTTP_422_UNPROCESSABLE_CONTENT,
                [{"loc": ["query", "project_id"], "msg": "you are editor of no project; name one with project_id",
                  "type": "missing_project"}],
            )
        project_id = project.id
    elif session.get(models.Project, project_id) is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"project {project_id!r} not found")
    require_role(session, principal, project_id, "editor", f"project {project_id!r}")
    return project_id
