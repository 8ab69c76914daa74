"""Comparisons survive dead processes: heartbeat, attempt, restarts, windowed units and their outcomes.

``heartbeat_at`` is the last sign of life of the worker running a comparison (the reaper restarts
a comparison whose worker went quiet); ``attempt`` tells the current delivery of its task from a
stale one; ``units_dispatched`` counts the units of a sweep handed to the queue (a few at a time);
``comparison_unit`` keeps each unit's outcome once, instead of a Celery chord's result backend.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 23:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("comparison") as batch:
        batch.add_column(sa.Column("units_dispatched", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("attempt", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("restarts", sa.Integer(), nullable=False, server_default="0"))
        batch.create_index(op.f("ix_comparison_status"), ["status"])
    op.create_table(
        "comparison_unit",
        sa.Column("comparison_id", sa.String(36), nullable=False),
        sa.Column("unit_index", sa.Integer(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("document", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["comparison_id"], ["comparison.id"], ondelete="CASCADE",
                                name=op.f("fk_comparison_unit_comparison_id_comparison")),
        sa.PrimaryKeyConstraint("comparison_id", "unit_index", name=op.f("pk_comparison_unit")),
    )


def downgrade() -> None:
    op.drop_table("comparison_unit")
    with op.batch_alter_table("comparison") as batch:
        batch.drop_index(op.f("ix_comparison_status"))
        batch.drop_column("restarts")
        batch.drop_column("heartbeat_at")
        batch.drop_column("attempt")
        batch.drop_column("units_dispatched")
