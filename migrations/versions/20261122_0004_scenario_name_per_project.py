"""Scenario names are unique per project, not across all projects.

A name taken in a project you cannot see no longer makes your save answer 409 (which told you
that the name exists there).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 22:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("scenario") as batch:
        batch.drop_constraint(op.f("uq_scenario_name"), type_="unique")
        batch.create_unique_constraint(op.f("uq_scenario_project_id_name"), ["project_id", "name"])


def downgrade() -> None:
    """Fails if two projects hold scenarios of the same name (rename one first)."""
    with op.batch_alter_table("scenario") as batch:
        batch.drop_constraint(op.f("uq_scenario_project_id_name"), type_="unique")
        batch.create_unique_constraint(op.f("uq_scenario_name"), ["name"])
