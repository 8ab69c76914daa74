"""ORM classes (SQLAlchemy 2 declarative). API schemas live in :mod:`schemas`.

JSON columns use the portable :class:`sqlalchemy.JSON` type (``json`` on
PostgreSQL, text on SQLite), so documents come back exactly as stored.
Timestamps are timezone-aware UTC on both databases.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


def new_id() -> str:
    """A new random UUID as a string."""
    return str(uuid.uuid4())


class UTCDateTime(TypeDecorator[datetime]):
    """``TIMESTAMP WITH TIME ZONE``; naive values read back (SQLite) are UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(timezone.utc)
            if dialect.name == "sqlite":
                value = value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value


NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime, dict[str, Any]: JSON, list[str]: JSON}


class Scenario(Base):
    """A stored scenario document; ``version`` counts its revisions from 1."""

    __tablename__ = "scenario"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    version: Mapped[int] = mapped_column(Integer, default=1)
    document: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    comparisons: Mapped[list["Comparison"]] = relationship(
        back_populates="scenario", cascade="all, delete-orphan", passive_deletes=True
    )


class Comparison(Base):
    """One run of several strategies on a snapshot of a scenario.

    ``scenario_snapshot`` is the document as run (with ``seed`` applied), so the
    result stays reproducible after the scenario is edited.
    """

    __tablename__ = "comparison"
    #: the statuses of :mod:`subflow_backend.comparison_state` (a unit test keeps them equal)
    __table_args__ = (
        CheckConstraint(
            "status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')", name="status"
        ),
        CheckConstraint("progress >= 0 AND progress <= 1", name="progress"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    scenario_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("scenario.id", ondelete="CASCADE"), index=True
    )
    scenario_version: Mapped[int] = mapped_column(Integer)
    scenario_snapshot: Mapped[dict[str, Any]]
    strategies: Mapped[list[str]]
    engine: Mapped[str] = mapped_column(String(32))
    seed: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None] = mapped_column(Text)
    result: Mapped[dict[str, Any] | None]
    #: runs per sweep point (seeds run.seed, run.seed + 1, ...)
    repetitions: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    #: ``{"parameter", "values"}`` of a one-parameter sweep, or null
    sweep: Mapped[dict[str, Any] | None]
    #: units (sweep point x repetition) to run, and how many have finished
    units_total: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    units_done: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]

    scenario: Mapped[Scenario] = relationship(back_populates="comparisons")
