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
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

#: Roles of a project member, weakest first.
PROJECT_ROLES = ("viewer", "editor", "owner")
#: Name of the project that scenarios stored before projects existed belong to.
DEFAULT_PROJECT_NAME = "default"


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


class User(Base):
    """An account. ``password_hash`` is an argon2 hash (pwdlib); ``is_admin`` manages users and
    sees every project; ``can_run_linux`` allows comparisons on the root ``linux`` engine."""

    __tablename__ = "app_user"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    is_admin: Mapped[bool] = mapped_column(default=False)
    is_active: Mapped[bool] = mapped_column(default=True)
    can_run_linux: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AuthSession(Base):
    """A signed-in browser session (``kind`` ``cookie``) or a short-lived bearer access token
    (``kind`` ``access``) issued by ``POST /api/auth/login``. Only the SHA-256 of the secret is stored."""

    __tablename__ = "auth_session"
    __table_args__ = (CheckConstraint("kind IN ('cookie', 'access')", name="kind"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(8))
    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("app_user.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]


class ApiToken(Base):
    """A personal API token (``Authorization: Bearer sft_...``): shown once, stored as its SHA-256."""

    __tablename__ = "api_token"
    __table_args__ = (CheckConstraint("scope IN ('read', 'write')", name="scope"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: first characters of the token, to recognise it in a list
    prefix: Mapped[str] = mapped_column(String(12))
    name: Mapped[str] = mapped_column(String(100))
    scope: Mapped[str] = mapped_column(String(8))
    user_id: Mapped[str] = mapped_column(String(36), ForeignKey("app_user.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]


class Project(Base):
    """A group of scenarios shared by its members."""

    __tablename__ = "project"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(120), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ProjectMember(Base):
    """``user_id`` is a ``role`` (viewer, editor, owner) of ``project_id``."""

    __tablename__ = "project_member"
    __table_args__ = (CheckConstraint("role IN ('viewer', 'editor', 'owner')", name="role"),)

    project_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("project.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("app_user.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    role: Mapped[str] = mapped_column(String(8))


class ScenarioVersion(Base):
    """A past version of a scenario, kept when a save replaced it: the document, name and
    description as they were, and who saved that version when (``saved_at``, ``saved_by_name``)."""

    __tablename__ = "scenario_version"
    __table_args__ = (UniqueConstraint("scenario_id", "version", name="uq_scenario_version_scenario_id_version"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    scenario_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("scenario.id", ondelete="CASCADE"), index=True
    )
    version: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    document: Mapped[dict[str, Any]]
    saved_at: Mapped[datetime]
    saved_by: Mapped[str | None] = mapped_column(String(36), ForeignKey("app_user.id", ondelete="SET NULL"))
    #: the author's username when saved (kept if the account is deleted)
    saved_by_name: Mapped[str | None] = mapped_column(String(64))


class AuditEntry(Base):
    """One line of the audit log: ``action`` (e.g. ``login``, ``login_failed``, ``token_used``,
    ``scenario_update``, ``scenario_delete``, ``comparison_create``) by ``username`` from ``ip``."""

    __tablename__ = "audit_entry"

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    user_id: Mapped[str | None] = mapped_column(String(36))
    username: Mapped[str | None] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(40), index=True)
    target: Mapped[str | None] = mapped_column(String(200))
    ip: Mapped[str | None] = mapped_column(String(64))
    detail: Mapped[dict[str, Any] | None]


class LoginCounter(Base):
    """Sign-in attempts of one key (``user:<username>`` or ``ip:<address>``) in the current window.

    A sign-in claims a slot with one conditional UPDATE (``attempts < limit``) before the password
    hash is checked, so concurrent attempts cannot overrun the limit (the row lock serialises them on
    PostgreSQL, the write lock on SQLite); a success gives its slots back. ``noted`` says the lockout
    of this window has its one ``login_throttled`` audit row.
    """

    __tablename__ = "login_counter"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    window_start: Mapped[datetime] = mapped_column(default=utcnow)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    noted: Mapped[bool] = mapped_column(default=False)


class BackgroundJob(Base):
    """A background job queued by the API (planning, failure analysis, capacity search): the
    project and scenario it reads, so its state and result are shown only to members of that project."""

    __tablename__ = "background_job"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(36), ForeignKey("project.id", ondelete="CASCADE"), index=True)
    scenario_id: Mapped[str | None] = mapped_column(String(36))
    task: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Scenario(Base):
    """A stored scenario document; ``version`` counts its revisions from 1."""

    __tablename__ = "scenario"
    #: names are unique per project (a name in a project you cannot see is not "taken" for you)
    __table_args__ = (UniqueConstraint("project_id", "name", name="uq_scenario_project_id_name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    project_id: Mapped[str] = mapped_column(String(36), ForeignKey("project.id", ondelete="RESTRICT"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text, default="")
    version: Mapped[int] = mapped_column(Integer, default=1)
    document: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: who saved the current version (null: before accounts existed, or the account is gone)
    updated_by: Mapped[str | None] = mapped_column(String(36), ForeignKey("app_user.id", ondelete="SET NULL"))
    updated_by_name: Mapped[str | None] = mapped_column(String(64))

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
    status: Mapped[str] = mapped_column(String(16), default="queued", index=True)
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
    #: units handed to the queue so far (a sweep runs at most ``SWEEP_WINDOW`` units at a time)
    units_dispatched: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: which delivery of ``run_comparison`` owns the row; a message of an older attempt is dropped
    attempt: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: last sign of life from the worker running it (set on creation, claim and every heartbeat)
    heartbeat_at: Mapped[datetime | None] = mapped_column(default=utcnow)
    #: how many times the reaper restarted it after its worker stopped
    restarts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]

    scenario: Mapped[Scenario] = relationship(back_populates="comparisons")


class ComparisonUnit(Base):
    """The outcome of one unit (sweep point × repetition) of a comparison, written once.

    The primary key makes a redelivered unit harmless: its second insert is refused and
    the stored outcome stays. ``summary`` is ``{strategy: {mean_mbps, jain_index, zero_s}}``;
    ``document`` the full result document of unit 0 and of the first repetition of each representative sweep
    point (``SWEEP_POINT_DOCUMENTS``), else null; ``error`` a reason if it failed.
    """

    __tablename__ = "comparison_unit"

    comparison_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("comparison.id", ondelete="CASCADE"), primary_key=True
    )
    index: Mapped[int] = mapped_column("unit_index", Integer, primary_key=True)
    summary: Mapped[dict[str, Any] | None]
    document: Mapped[dict[str, Any] | None]
    error: Mapped[str | None] = mapped_column(Text)


class PacketCapture(Base):
    """The packets one strategy's run recorded on one link (scenario ``capture``, linux engine): a libpcap
    file of at most ``MAX_CAPTURE_BYTES``, stored once per (comparison, strategy, link) by the worker when
    it stores the result; deleted with its comparison. Readable by the members of the scenario's project
    (``GET .../comparisons/{cid}/captures``)."""

    __tablename__ = "packet_capture"
    __table_args__ = (UniqueConstraint("comparison_id", "strategy", "link", name="uq_packet_capture_run_link"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    comparison_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("comparison.id", ondelete="CASCADE"), index=True
    )
    strategy: Mapped[str] = mapped_column(String(64))
    link: Mapped[str] = mapped_column(String(64))
    #: the link end whose interface was recorded
    node: Mapped[str] = mapped_column(String(64))
    format: Mapped[str] = mapped_column(String(16), default="pcap")
    snaplen_bytes: Mapped[int] = mapped_column(Integer)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    packets: Mapped[int] = mapped_column(BigInteger)
    #: the size cap stopped the recording before the run's end
    truncated: Mapped[bool] = mapped_column(Boolean)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
