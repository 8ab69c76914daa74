"""``/api/auth``: sign in (OAuth2 password flow) and sign out.

``POST /api/auth/login`` takes the form FastAPI documents for the OAuth2 password
flow (``username``, ``password``; ``application/x-www-form-urlencoded``). It answers
a short-lived bearer access token (``ACCESS_TOKEN_TTL_S``) for scripts and sets the
``subflow_session`` cookie (HttpOnly, SameSite=Strict, ``SESSION_TTL_S``) for the
browser (``Secure`` over HTTPS or with ``SESSION_COOKIE_SECURE``). A form posted from another
site is refused (403). Sign-in attempts are counted per username (``LOGIN_MAX_FAILURES``) and
per client address across usernames (``LOGIN_MAX_FAILURES_PER_ADDRESS``) within
``LOGIN_WINDOW_S`` seconds, atomically in the database before the password hash is checked
(:func:`subflow_backend.accounts.claim_sign_in`); beyond the limit the answer is 429 with
``Retry-After`` (even for the right password) until the window has passed, and only the first
refusal of a lockout is audited.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response, status
from fastapi.security import OAuth2PasswordRequestForm

from subflow_backend import accounts, audit
from subflow_backend.api.deps import (
    PrincipalDep,
    SESSION_COOKIE,
    SessionDep,
    client_ip,
    oauth2_scheme,
    same_origin,
)
from subflow_backend.schemas_accounts import AccessToken
from subflow_backend.settings import settings

router = APIRouter(prefix="/auth", tags=["auth"])


def cookie_secure(request: Request) -> bool:
    """Whether the session cookie gets ``Secure``: always with ``SESSION_COOKIE_SECURE`` (set in the
    compose file), else whenever the request came over HTTPS (the scheme uvicorn reports, which
    follows ``X-Forwarded-Proto`` only from the proxies of ``FORWARDED_ALLOW_IPS``; RFC 6265 §4.1.2.5)."""
    return settings.SESSION_COOKIE_SECURE or request.url.scheme == "https"


def sign_in_origin_allowed(request: Request) -> bool:
    """False for a sign-in form posted from another site (login CSRF, OWASP CSRF Prevention Cheat
    Sheet "Login CSRF"): ``Sec-Fetch-Site`` other than ``same-origin``/``none``, or an ``Origin`` that is
    neither this host nor one of ``BACKEND_CORS_ORIGINS``. Requests with neither header (scripts) pass."""
    origin = request.headers.get("origin")
    if origin is not None and origin in settings.BACKEND_CORS_ORIGINS:
        return True
    return same_origin(request)


@router.post(
    "/login",
    response_model=AccessToken,
    responses={
        401: {"description": "Wrong username or password, or a disabled account."},
        403: {"description": "The form was posted from another site (Origin / Sec-Fetch-Site)."},
        429: {"description": "Too many failed sign-ins for this username, or from this address; see Retry-After."},
    },
)
def login(
    request: Request, response: Response, session: SessionDep,
    form: Annotated[OAuth2PasswordRequestForm, Depends()],
) -> AccessToken:
    """Sign in with a username and password: ``{access_token, token_type: "bearer", expires_in}``
    and a session cookie."""
    if not sign_in_origin_allowed(request):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "cross-site sign-in refused: the form was posted from "
                            f"another site (Origin {request.headers.get('origin')!r}, Sec-Fetch-Site "
                            f"{request.headers.get('sec-fetch-site')!r})")
    ip = client_ip(request)
    username = form.username[:64]
    refused = accounts.claim_sign_in(session, username, ip)
    if refused is not None:
        if refused.first:  # one audit row per lockout, not one per refused attempt
            audit.record(session, "login_throttled", username=username, target=username, ip=ip,
                         detail={"key": refused.key.split(":", 1)[0]})
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS,
                            f"too many failed sign-ins; try again in {refused.retry_after_s} s",
                            headers={"Retry-After": str(refused.retry_after_s)})
    user = accounts.authenticate(session, username, form.password)
    if user is None:
        audit.record(session, "login_failed", username=username, target=username, ip=ip)
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "wrong username or password",
                            headers={"WWW-Authenticate": "Bearer"})
    accounts.sign_in_succeeded(session, username, ip)
    cookie = accounts.open_session(session, user, "cookie")
    access = accounts.open_session(session, user, "access")
    audit.record(session, "login", user=user, target=user.username, ip=ip)
    response.set_cookie(
        SESSION_COOKIE, cookie.secret, max_age=settings.SESSION_TTL_S, path="/api", httponly=True,
        samesite="strict", secure=cookie_secure(request),
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
                           secure=cookie_secure(request))
    return response
