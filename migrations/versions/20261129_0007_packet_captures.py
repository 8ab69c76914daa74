"""Packet captures of comparisons (scenario ``capture``, linux engine).

``packet_capture`` holds one libpcap file per (comparison, strategy, link), deleted with its comparison.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "packet_capture",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("comparison_id", sa.String(36), nullable=False),
        sa.Column("strategy", sa.String(64), nullable=False),
        sa.Column("link", sa.String(64), nullable=False),
        sa.Column("node", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("snaplen_bytes", sa.Integer(), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("packets", sa.BigInteger(), nullable=False),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["comparison_id"], ["comparison.id"], ondelete="CASCADE",
                                name=op.f("fk_packet_capture_comparison_id_comparison")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_packet_capture")),
        sa.UniqueConstraint("comparison_id", "strategy", "link", name=op.f("uq_packet_capture_run_link")),
    )
    op.create_index(op.f("ix_packet_capture_comparison_id"), "packet_capture", ["comparison_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_packet_capture_comparison_id"), table_name="packet_capture")
    op.drop_table("packet_capture")
