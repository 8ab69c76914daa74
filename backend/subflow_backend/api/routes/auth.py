"""``/api/auth``: sign in (OAuth2 password flow) and sign out.

``POST /api/auth/login`` takes the form FastAPI documents for the OAuth2 password
flow (``username``, ``password``; ``application/x-www-form-urlencoded``). It answers
a short-lived bearer access token (``ACCESS_TOKEN_TTL_S``) for scripts and sets the
``subflow_session`` cookie (HttpOnly, SameSite=Strict, ``SESSION_TTL_S``) for the
browser. Failed sign-ins are counted per username and client address; after
``LOGIN_MAX_FAILURES`` within ``LOGIN_WINDOW_S`` seconds the answer is 429 with
``Retry-After`` (even for the right password) until the window has passed.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response, status
from fastapi.security import OAuth2PasswordRequestForm

from subflow_backend import accounts, audit
from subflow_backend.api.deps import PrincipalDep, SESSION_COOKIE, SessionDep, client_ip, oauth2_scheme
from subflow_backend.schemas_accounts import AccessToken
from subflow_backend.settings import settings

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post(
    "/login",
    response_model=AccessToken,
    responses={
        401: {"description": "Wrong username or password, or a disabled account."},
        429: {"description": "Too many failed sign-ins for this username from this address; see Retry-After."},
    },
)
def login(
    request: Request, response: Response, session: SessionDep,
    form: Annotated[OAuth2PasswordRequestForm, Depends()],
) -> AccessToken:
    """Sign in with a username and password: ``{access_token, token_type: "bearer", expires_in}``
    and a session cookie."""
    ip = client_ip(request)
    username = form.username[:64]
    wait_s = accounts.retry_after_s(session, username, ip)
    if wait_s:
        audit.record(session, "login_throttled", username=username, target=username, ip=ip)
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, f"too many failed sign-ins; try again in {wait_s} s",
                            headers={"Retry-After": str(wait_s)})
    user = accounts.authenticate(session, username, form.password)
    if user is None:
        audit.record(session, "login_failed", username=username, target=username, ip=ip)
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "wrong username or password",
                            headers={"WWW-Authenticate": "Bearer"})
    cookie = accounts.open_session(session, user, "cookie")
    access = accounts.open_session(session, user, "access")
    audit.record(session, "login", user=user, target=user.username, ip=ip)
    response.set_cookie(
        SESSION_COOKIE, cookie.secret, max_age=settings.SESSION_TTL_S, path="/api", httponly=True,
        samesite="strict", secure=settings.SESSION_COOKIE_SECURE,
    )
    return AccessToken(access_token=access.secret, expires_in=settings.ACCESS_TOKEN_TTL_S)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT, responses={401: {"description": "Not signed in."}})
def logout(
    request: Request, session: SessionDep, principal: PrincipalDep,
    bearer: Annotated[str | None, Depends(oauth2_scheme)],
) -> Response:
    """Sign out: ends the browser session (cookie) and the access token of this request, if any.
    A personal API token is not revoked by this (``DELETE /api/users/me/tokens/{id}`` does)."""
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        accounts.close_session(session, cookie)
    if bearer and principal.via == "access":
        accounts.close_session(session, bearer)
    audit.record(session, "logout", user=principal.user, ip=client_ip(request))
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(SESSION_COOKIE, path="/api", httponly=True, samesite="strict",
                           secure=settings.SESSION_COOKIE_SECURE)
    return response
