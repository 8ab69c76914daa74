"""Database engine and sessions (SQLAlchemy 2).

The same code runs on SQLite (embedded default) and PostgreSQL. On SQLite every
connection turns on foreign keys (so ``ON DELETE CASCADE`` works), WAL
journaling and a busy timeout, so the API and the worker processes can share
the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from subflow_backend.settings import settings

SQLITE_BUSY_TIMEOUT_MS = 30_000


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()


def make_engine(url: str) -> Engine:
    """Create an engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``).

    For a SQLite file the parent folder is created and the pragmas above are set
    on every connection.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            pool_size=settings.DB_POOL_SIZE, max_overflow=settings.DB_MAX_OVERFLOW,
            pool_timeout=settings.DB_POOL_TIMEOUT_S,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    # each API request holds one connection for its duration only; the pool bounds how many
    # at once (DB_POOL_SIZE + DB_MAX_OVERFLOW), a request waiting longer than DB_POOL_TIMEOUT_S
    # gets 503 (subflow_backend.main)
    return create_engine(
        url, pool_pre_ping=True, pool_size=settings.DB_POOL_SIZE, max_overflow=settings.DB_MAX_OVERFLOW,
        pool_timeout=settings.DB_POOL_TIMEOUT_S, pool_recycle=1800,
    )


engine = make_engine(settings.DATABASE_URL)
SessionLocal = sessionmaker(bind=engine, expire_on_commit=False)


def get_session() -> Iterator[Session]:
    """Yield a session that is closed afterwards (FastAPI dependency)."""
    with SessionLocal() as session:
        yield session
