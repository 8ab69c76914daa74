"""Accounts: password hashes, sign-in sessions, personal API tokens, the first admin.

* Passwords are hashed with argon2 by :mod:`pwdlib` (``PasswordHash.recommended()``).
* Every secret handed to a client (session cookie, bearer access token, personal API
  token) is ``secrets.token_urlsafe(32)`` (256 random bits) and only its SHA-256 is
  stored, so a copy of the database does not let anyone sign in. A secret of that
  entropy needs no slow hash.
* Personal API tokens start with ``sft_`` and access tokens with ``sfa_``, so a bearer
  secret says which table it lives in (and secret scanners can recognise them).

Functions raise :class:`subflow.errors.AccountError` subclasses; the API edge turns them into HTTP.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from pwdlib import PasswordHash
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from subflow.errors import UsernameTaken

from subflow_backend import models
from subflow_backend.settings import settings

password_hash = PasswordHash.recommended()
#: verified against when the username is unknown, so both cases cost the same time
_DUMMY_HASH = password_hash.hash("subflow-dummy-password")

API_TOKEN_PREFIX = "sft_"
ACCESS_TOKEN_PREFIX = "sfa_"
#: Name of the file (in ``SUBFLOW_DATA_DIR``) holding the first admin's credentials.
ADMIN_CREDENTIALS_FILE = "admin-credentials"
FIRST_ADMIN_USERNAME = "admin"


@dataclass(frozen=True)
class Issued:
    """A secret just created: ``secret`` is shown to the client once, ``row`` is what is stored."""

    secret: str
    row: models.AuthSession | models.ApiToken


def hash_secret(secret: str) -> str:
    """Hex SHA-256 of a random token (what the database stores)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- users


def get_user_by_username(session: Session, username: str) -> models.User | None:
    """The user named ``username`` (exact match), or None."""
    return session.scalar(select(models.User).where(models.User.username == username))


def create_user(
    session: Session, username: str, password: str, *, is_admin: bool = False, can_run_linux: bool = False
) -> models.User:
    """Store a new account with an argon2 hash of ``password``.

    Raises
    ------
    UsernameTaken
        If ``username`` is in use.
    """
    if get_user_by_username(session, username) is not None:
        raise UsernameTaken(username)
    user = models.User(
        username=username,
        password_hash=password_hash.hash(password),
        is_admin=is_admin,
        can_run_linux=can_run_linux,
        is_active=True,
    )
    session.add(user)
    session.commit()
    session.refresh(user)
    return user


def set_password(session: Session, user: models.User, password: str) -> None:
    """Replace the user's password and end their sessions and access tokens (API tokens stay)."""
    user.password_hash = password_hash.hash(password)
    session.execute(delete(models.AuthSession).where(models.AuthSession.user_id == user.id))
    session.commit()


def end_sessions(session: Session, user: models.User) -> None:
    """End every browser session and access token of ``user``."""
    session.execute(delete(models.AuthSession).where(models.AuthSession.user_id == user.id))
    session.commit()


def authenticate(session: Session, username: str, password: str) -> models.User | None:
    """The active user with this username and password, or None (same cost either way)."""
    user = get_user_by_username(session, username)
    if user is None:
        password_hash.verify(password, _DUMMY_HASH)
        return None
    valid, new_hash = password_hash.verify_and_update(password, user.password_hash)
    if not valid or not user.is_active:
        return None
    if new_hash is not None:  # parameters of the recommended hash changed: re-hash
        user.password_hash = new_hash
        session.commit()
    return user


# --------------------------------------------------------------------------- sessions and access tokens


def open_session(session: Session, user: models.User, kind: str) -> Issued:
    """Issue a browser session (``kind`` ``cookie``, ``SESSION_TTL_S``) or a bearer access token
    (``access``, ``ACCESS_TOKEN_TTL_S``). Expired sessions of the user are dropped."""
    now = models.utcnow()
    session.execute(
        delete(models.AuthSession).where(models.AuthSession.user_id == user.id, models.AuthSession.expires_at < now)
    )
    ttl = settings.SESSION_TTL_S if kind == "cookie" else settings.ACCESS_TOKEN_TTL_S
    secret = (ACCESS_TOKEN_PREFIX if kind == "access" else "") + secrets.token_urlsafe(32)
    row = models.AuthSession(
        token_hash=hash_secret(secret), kind=kind, user_id=user.id, expires_at=now + timedelta(seconds=ttl)
    )
    session.add(row)
    session.commit()
    return Issued(secret, row)


def find_session(session: Session, secret: str, kind: str) -> models.AuthSession | None:
    """The unexpired session or access token for ``secret``, or None."""
    # the account comes in the same query, so the caller's ``session.get(User, row.user_id)``
    # finds it in the identity map (one round trip per authenticated request, not two)
    found = session.execute(
        select(models.AuthSession, models.User).join(models.User, models.User.id == models.AuthSession.user_id).where(
            models.AuthSession.token_hash == hash_secret(secret), models.AuthSession.kind == kind
        )
    ).first()
    row = found[0] if found else None
    if row is None or row.expires_at <= models.utcnow():
        return None
    return row


def close_session(session: Session, secret: str) -> None:
    """End the session or access token ``secret`` (no error if it does not exist)."""
    session.execute(delete(models.AuthSession).where(models.AuthSession.token_hash == hash_secret(secret)))
    session.commit()


# --------------------------------------------------------------------------- personal API tokens


def create_api_token(
    session: Session, user: models.User, name: str, scope: str, expires_days: int | None = None
) -> Issued:
    """A new personal token ``sft_...`` for ``user`` with ``scope`` ``read`` or ``write``."""
    secret = API_TOKEN_PREFIX + secrets.token_urlsafe(32)
    expires = models.utcnow() + timedelta(days=expires_days) if expires_days else None
    row = models.ApiToken(
        token_hash=hash_secret(secret), prefix=secret[:12], name=name, scope=scope, user_id=user.id, expires_at=expires
    )
    session.add(row)
    session.commit()
    session.refresh(row)
    return Issued(secret, row)


def find_api_token(session: Session, secret: str) -> models.ApiToken | None:
    """The unexpired personal token for ``secret``, or None."""
    found = session.execute(  # with its account, as in :func:`find_session`
        select(models.ApiToken, models.User).join(models.User, models.User.id == models.ApiToken.user_id)
        .where(models.ApiToken.token_hash == hash_secret(secret))
    ).first()
    row = found[0] if found else None
    if row is None or (row.expires_at is not None and row.expires_at <= models.utcnow()):
        return None
    return row


# --------------------------------------------------------------------------- sign-in rate limit


def recent_failures(session: Session, username: str, ip: str | None, now: datetime | None = None) -> list[datetime]:
    """Times of failed sign-ins for ``username`` from ``ip`` within ``LOGIN_WINDOW_S``, oldest first
    (read from the audit log, so the limit holds across API processes)."""
    now = now or models.utcnow()
    since = now - timedelta(seconds=settings.LOGIN_WINDOW_S)
    return list(
        session.scalars(
            select(models.AuditEntry.at)
            .where(
                models.AuditEntry.action == "login_failed",
                models.AuditEntry.target == username[:200],
                models.AuditEntry.ip == ip,
                models.AuditEntry.at > since,
            )
            .order_by(models.AuditEntry.at)
        ).all()
    )


def retry_after_s(session: Session, username: str, ip: str | None) -> int:
    """Seconds until ``username`` may try to sign in again from ``ip`` (0: now)."""
    now = models.utcnow()
    failures = recent_failures(session, username, ip, now)
    if len(failures) < settings.LOGIN_MAX_FAILURES:
        return 0
    oldest_counted = failures[-settings.LOGIN_MAX_FAILURES]
    return max(1, int((oldest_counted + timedelta(seconds=settings.LOGIN_WINDOW_S) - now).total_seconds()) + 1)


# --------------------------------------------------------------------------- first admin


def ensure_first_admin(session: Session, data_dir: Path) -> tuple[models.User, str | None]:
    """Create the first admin (``admin``, random password) if there is no user yet.

    The credentials are written to ``data_dir/admin-credentials`` (mode 600) as
    ``username:password``; the admin becomes owner of the ``default`` project.
    Returns the admin and the new password (None if users existed already; then the
    first admin by creation time is returned).
    """
    count = session.scalar(select(func.count()).select_from(models.User)) or 0
    if count:
        admin = session.scalar(
            select(models.User).where(models.User.is_admin.is_(True)).order_by(models.User.created_at)
        )
        return admin or session.scalars(select(models.User).order_by(models.User.created_at)).first(), None
    password = secrets.token_urlsafe(18)
    admin = create_user(session, FIRST_ADMIN_USERNAME, password, is_admin=True)
    project = default_project(session)
    session.add(models.ProjectMember(project_id=project.id, user_id=admin.id, role="owner"))
    session.commit()
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / ADMIN_CREDENTIALS_FILE
    path.unlink(missing_ok=True)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as fh:
        fh.write(f"{admin.username}:{password}\n")
    return admin, password


def default_project(session: Session) -> models.Project:
    """The ``default`` project (created by the migration; created here if missing)."""
    project = session.scalar(select(models.Project).where(models.Project.name == models.DEFAULT_PROJECT_NAME))
    if project is None:
        project = models.Project(name=models.DEFAULT_PROJECT_NAME, description="Scenarios stored before projects existed.")
        session.add(project)
        session.commit()
    return project
