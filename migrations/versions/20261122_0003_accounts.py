"""Accounts, sessions, API tokens, projects and members, scenario history, audit log.

Scenarios stored before this revision move into a project named ``default``
(its first owner is added by ``subflow-seed`` when it creates the first admin).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 21:00:00
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timezone

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "app_user",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("can_run_linux", sa.Boolean(), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_app_user")),
        sa.UniqueConstraint("username", name=op.f("uq_app_user_username")),
    )
    op.create_table(
        "auth_session",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("user_id", sa.String(36), sa.ForeignKey("app_user.id", ondelete="CASCADE",
                  name=op.f("fk_auth_session_user_id_app_user")), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_session")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_auth_session_token_hash")),
        sa.CheckConstraint("kind IN ('cookie', 'access')", name=op.f("ck_auth_session_kind")),
    )
    op.create_index(op.f("ix_auth_session_user_id"), "auth_session", ["user_id"])
    op.create_table(
        "api_token",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("prefix", sa.String(12), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("scope", sa.String(8), nullable=False),
        sa.Column("user_id", sa.String(36), sa.ForeignKey("app_user.id", ondelete="CASCADE",
                  name=op.f("fk_api_token_user_id_app_user")), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=True),
        sa.Column("last_used_at", _TS, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_token")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_token_token_hash")),
        sa.CheckConstraint("scope IN ('read', 'write')", name=op.f("ck_api_token_scope")),
    )
    op.create_index(op.f("ix_api_token_user_id"), "api_token", ["user_id"])
    project = op.create_table(
        "project",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_project")),
        sa.UniqueConstraint("name", name=op.f("uq_project_name")),
    )
    op.create_table(
        "project_member",
        sa.Column("project_id", sa.String(36), sa.ForeignKey("project.id", ondelete="CASCADE",
                  name=op.f("fk_project_member_project_id_project")), nullable=False),
        sa.Column("user_id", sa.String(36), sa.ForeignKey("app_user.id", ondelete="CASCADE",
                  name=op.f("fk_project_member_user_id_app_user")), nullable=False),
        sa.Column("role", sa.String(8), nullable=False),
        sa.PrimaryKeyConstraint("project_id", "user_id", name=op.f("pk_project_member")),
        sa.CheckConstraint("role IN ('viewer', 'editor', 'owner')", name=op.f("ck_project_member_role")),
    )
    op.create_index(op.f("ix_project_member_user_id"), "project_member", ["user_id"])
    op.create_table(
        "audit_entry",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("at", _TS, nullable=False),
        sa.Column("user_id", sa.String(36), nullable=True),
        sa.Column("username", sa.String(64), nullable=True),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.String(200), nullable=True),
        sa.Column("ip", sa.String(64), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_entry")),
    )
    op.create_index(op.f("ix_audit_entry_at"), "audit_entry", ["at"])
    op.create_index(op.f("ix_audit_entry_action"), "audit_entry", ["action"])

    # every existing scenario goes into the default project
    default_id = str(uuid.uuid4())
    op.bulk_insert(project, [{"id": default_id, "name": "default", "description": "Scenarios stored before projects existed.",
                              "created_at": datetime.now(timezone.utc)}])
    with op.batch_alter_table("scenario") as batch:
        batch.add_column(sa.Column("project_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("updated_by", sa.String(36), nullable=True))
        batch.add_column(sa.Column("updated_by_name", sa.String(64), nullable=True))
    op.execute(sa.text("UPDATE scenario SET project_id = :p").bindparams(p=default_id))
    with op.batch_alter_table("scenario") as batch:
        batch.alter_column("project_id", existing_type=sa.String(36), nullable=False)
        batch.create_foreign_key(op.f("fk_scenario_project_id_project"), "project", ["project_id"], ["id"],
                                 ondelete="RESTRICT")
        batch.create_foreign_key(op.f("fk_scenario_updated_by_app_user"), "app_user", ["updated_by"], ["id"],
                                 ondelete="SET NULL")
        batch.create_index(op.f("ix_scenario_project_id"), ["project_id"])

    op.create_table(
        "scenario_version",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("scenario_id", sa.String(36), sa.ForeignKey("scenario.id", ondelete="CASCADE",
                  name=op.f("fk_scenario_version_scenario_id_scenario")), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("saved_at", _TS, nullable=False),
        sa.Column("saved_by", sa.String(36), sa.ForeignKey("app_user.id", ondelete="SET NULL",
                  name=op.f("fk_scenario_version_saved_by_app_user")), nullable=True),
        sa.Column("saved_by_name", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scenario_version")),
        sa.UniqueConstraint("scenario_id", "version", name="uq_scenario_version_scenario_id_version"),
    )
    op.create_index(op.f("ix_scenario_version_scenario_id"), "scenario_version", ["scenario_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_scenario_version_scenario_id"), table_name="scenario_version")
    op.drop_table("scenario_version")
    with op.batch_alter_table("scenario") as batch:
        batch.drop_index(op.f("ix_scenario_project_id"))
        batch.drop_constraint(op.f("fk_scenario_updated_by_app_user"), type_="foreignkey")
        batch.drop_constraint(op.f("fk_scenario_project_id_project"), type_="foreignkey")
        batch.drop_column("updated_by_name")
        batch.drop_column("updated_by")
        batch.drop_column("project_id")
    op.drop_index(op.f("ix_audit_entry_action"), table_name="audit_entry")
    op.drop_index(op.f("ix_audit_entry_at"), table_name="audit_entry")
    op.drop_table("audit_entry")
    op.drop_index(op.f("ix_project_member_user_id"), table_name="project_member")
    op.drop_table("project_member")
    op.drop_table("project")
    op.drop_index(op.f("ix_api_token_user_id"), table_name="api_token")
    op.drop_table("api_token")
    op.drop_index(op.f("ix_auth_session_user_id"), table_name="auth_session")
    op.drop_table("auth_session")
    op.drop_table("app_user")
