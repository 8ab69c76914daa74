"""Initial tables: scenario and comparison.

Revision ID: 0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "scenario",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scenario")),
        sa.UniqueConstraint("name", name=op.f("uq_scenario_name")),
    )
    op.create_table(
        "comparison",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column(
            "scenario_id",
            sa.String(36),
            sa.ForeignKey("scenario.id", ondelete="CASCADE", name=op.f("fk_comparison_scenario_id_scenario")),
            nullable=False,
        ),
        sa.Column("scenario_version", sa.Integer(), nullable=False),
        sa.Column("scenario_snapshot", sa.JSON(), nullable=False),
        sa.Column("strategies", sa.JSON(), nullable=False),
        sa.Column("engine", sa.String(32), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_comparison")),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'succeeded', 'failed')", name=op.f("ck_comparison_status")
        ),
        sa.CheckConstraint("progress >= 0 AND progress <= 1", name=op.f("ck_comparison_progress")),
    )
    op.create_index(op.f("ix_comparison_scenario_id"), "comparison", ["scenario_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_comparison_scenario_id"), table_name="comparison")
    op.drop_table("comparison")
    op.drop_table("scenario")
