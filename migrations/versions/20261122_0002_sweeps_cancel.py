"""Comparisons: repetitions, one-parameter sweeps, unit counters, and the cancelled status.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # batch mode: SQLite cannot alter a CHECK constraint in place
    with op.batch_alter_table("comparison") as batch:
        batch.add_column(sa.Column("repetitions", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("sweep", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("units_total", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("units_done", sa.Integer(), nullable=False, server_default="0"))
        batch.drop_constraint(op.f("ck_comparison_status"), type_="check")
        batch.create_check_constraint(
            op.f("ck_comparison_status"), "status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')"
        )


def downgrade() -> None:
    op.execute("UPDATE comparison SET status = 'failed' WHERE status = 'cancelled'")
    with op.batch_alter_table("comparison") as batch:
        batch.drop_constraint(op.f("ck_comparison_status"), type_="check")
        batch.create_check_constraint(
            op.f("ck_comparison_status"), "status IN ('queued', 'running', 'succeeded', 'failed')"
        )
        batch.drop_column("units_done")
        batch.drop_column("units_total")
        batch.drop_column("sweep")
        batch.drop_column("repetitions")
