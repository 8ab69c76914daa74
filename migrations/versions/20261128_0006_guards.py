"""Sign-in counters per user and per address; background jobs with their project.

``login_counter`` holds the attempts of a sign-in key in its window (claimed atomically before the
password hash is checked); ``background_job`` records the project and scenario of each queued job,
so ``GET /api/jobs/{id}`` answers only members of that project.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28 12:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "login_counter",
        sa.Column("key", sa.String(100), nullable=False),
        sa.Column("window_start", _TS, nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("noted", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_login_counter")),
    )
    op.create_table(
        "background_job",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("project_id", sa.String(36), nullable=False),
        sa.Column("scenario_id", sa.String(36), nullable=True),
        sa.Column("task", sa.String(64), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE",
                                name=op.f("fk_background_job_project_id_project")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_background_job")),
    )
    op.create_index(op.f("ix_background_job_project_id"), "background_job", ["project_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_background_job_project_id"), table_name="background_job")
    op.drop_table("background_job")
    op.drop_table("login_counter")
