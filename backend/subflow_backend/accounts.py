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
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
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
    try:
        session.commit()
    except IntegrityError:  # created by a concurrent request since the check above (unique username)
        session.rollback()
        raise UsernameTaken(username) from None
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


@dataclass(frozen=True)
class Refusal:
    """A sign-in refused by the rate limit: ``key`` (``user:<name>`` or ``ip:<address>``), seconds
    until its window ends, and ``first`` (true once per lockout: the one that gets an audit row)."""

    key: str
    retry_after_s: int
    first: bool


def _insert_ignore(session: Session, key: str, now: datetime) -> None:
    table = models.LoginCounter.__table__
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    session.execute(insert(table).values(key=key, window_start=now, attempts=0, noted=False)
                    .on_conflict_do_nothing(index_elements=["key"]))


def _claim(session: Session, key: str, limit: int, now: datetime) -> Refusal | None:
    """Take one attempt of ``key`` (None) or say why not, in the caller's transaction.

    Each statement is one conditional UPDATE of the key's row: PostgreSQL re-checks the condition on
    the row's newest version after a concurrent writer commits (READ COMMITTED), SQLite serialises
    writers; so N concurrent claims get at most ``limit`` slots (OWASP Authentication Cheat Sheet,
    "Protect Against Automated Attacks")."""
    counter = models.LoginCounter
    since = now - timedelta(seconds=settings.LOGIN_WINDOW_S)
    _insert_ignore(session, key, now)
    session.execute(update(counter).where(counter.key == key, counter.window_start <= since)
                    .values(window_start=now, attempts=0, noted=False).execution_options(synchronize_session=False))
    taken = session.execute(update(counter).where(counter.key == key, counter.attempts < limit)
                            .values(attempts=counter.attempts + 1).execution_options(synchronize_session=False))
    if taken.rowcount == 1:
        return None
    first = session.execute(update(counter).where(counter.key == key, counter.noted.is_(False))
                            .values(noted=True).execution_options(synchronize_session=False)).rowcount == 1
    start = session.scalar(select(counter.window_start).where(counter.key == key)) or now
    wait = (start + timedelta(seconds=settings.LOGIN_WINDOW_S) - now).total_seconds()
    return Refusal(key, max(1, int(wait) + 1), first)


def _keys(username: str, ip: str | None) -> tuple[str, str]:
    return "user:" + username[:64], "ip:" + (ip or "unknown")[:64]


def claim_sign_in(session: Session, username: str, ip: str | None) -> Refusal | None:
    """Claim one sign-in attempt for ``username`` (``LOGIN_MAX_FAILURES`` per ``LOGIN_WINDOW_S``) and
    for the client address ``ip`` across usernames (``LOGIN_MAX_FAILURES_PER_ADDRESS``) before the
    password hash is checked; None if both were taken (committed), else the :class:`Refusal`.
    A failed sign-in keeps its slots; :func:`sign_in_succeeded` gives them back."""
    now = models.utcnow()
    user_key, ip_key = _keys(username, ip)
    refused = _claim(session, user_key, settings.LOGIN_MAX_FAILURES, now)
    if refused is None:
        refused = _claim(session, ip_key, settings.LOGIN_MAX_FAILURES_PER_ADDRESS, now)
        if refused is not None:  # the user's slot goes back: this attempt was never checked
            _release(session, user_key)
    session.commit()
    return refused


def _release(session: Session, key: str, *, reset: bool = False) -> None:
    counter = models.LoginCounter
    session.execute(update(counter).where(counter.key == key, counter.attempts > 0)
                    .values(attempts=0 if reset else counter.attempts - 1)
                    .execution_options(synchronize_session=False))


def sign_in_succeeded(session: Session, username: str, ip: str | None) -> None:
    """After a right password: the user's failures are forgotten, the address gets its slot back."""
    user_key, ip_key = _keys(username, ip)
    _release(session, user_key, reset=True)
    _release(session, ip_key)
    session.commit()


# --------------------------------------------------------------------------- guards of invariants


def lock_guard(session: Session, name: str) -> None:
    """Serialise the transactions guarding one invariant (the last active admin, a project's last
    owner) until the caller commits or rolls back: on PostgreSQL a transaction-level advisory lock
    on ``name``, on SQLite the database's write lock (taken by a write that changes nothing). The
    caller then counts and changes inside the same transaction, so two concurrent requests cannot
    both see the other still there."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(hashtext(:name))"), {"name": name})
    else:
        session.execute(update(models.LoginCounter).where(text("0 = 1")).values(attempts=0)
                        .execution_options(synchronize_session=False))


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
