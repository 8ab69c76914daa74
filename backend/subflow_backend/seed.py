"""Create the first admin and load example scenarios into the database (idempotent).

Usage: ``python -m subflow_backend.seed [DIR] [--no-examples]`` or ``subflow-seed [DIR]``
(``DIR`` defaults to ``examples``). If there is no account yet, an admin ``admin``
with a random password is created, its ``username:password`` written to
``$SUBFLOW_DATA_DIR/admin-credentials`` (mode 600), and made owner of the
``default`` project. Each ``DIR/*.json`` is validated and stored in the ``default``
project unless a scenario with its name already exists. Exit status 1 if a file
could not be loaded (the others are still loaded).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sqlalchemy.orm import Session

from subflow.errors import ScenarioNameTaken, SubflowError

from subflow_backend import accounts, crud, models
from subflow_backend.db import SessionLocal
from subflow_backend.settings import settings


def seed_directory(
    session: Session, directory: Path, author: models.User | None = None
) -> tuple[list[str], list[str], list[str]]:
    """Store every scenario of ``directory/*.json`` whose name is not taken (in the ``default``
    project, saved by ``author``).

    Returns
    -------
    (created, skipped, failed)
        Scenario names created, names already present, and ``"file: reason"``
        for files that are not valid scenarios.
    """
    created: list[str] = []
    skipped: list[str] = []
    failed: list[str] = []
    project_id = accounts.default_project(session).id
    for path in sorted(directory.glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            name = doc.get("name") if isinstance(doc, dict) else None
            if isinstance(name, str) and crud.get_scenario_by_name(session, name, project_id) is not None:
                skipped.append(name)
                continue
            row = crud.create_scenario(session, doc, project_id=project_id, author=author)
            created.append(row.name)
        except ScenarioNameTaken as exc:  # created concurrently
            skipped.append(exc.name)
        except (OSError, ValueError, SubflowError) as exc:
            session.rollback()
            failed.append(f"{path.name}: {exc}")
    return created, skipped, failed


def main(argv: list[str] | None = None) -> int:
    """Console entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="subflow-seed", description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", default="examples", type=Path)
    parser.add_argument("--no-examples", action="store_true", help="only create the first admin")
    args = parser.parse_args(argv)
    if not args.no_examples and not args.directory.is_dir():
        print(f"subflow-seed: {args.directory} is not a directory", file=sys.stderr)
        return 2
    with SessionLocal() as session:
        admin, password = accounts.ensure_first_admin(session, settings.SUBFLOW_DATA_DIR)
        if password is not None:
            path = (settings.SUBFLOW_DATA_DIR / accounts.ADMIN_CREDENTIALS_FILE).resolve()
            print(f"created the first admin {admin.username!r}; its password is in {path} (mode 600)")
        if args.no_examples:
            return 0
        created, skipped, failed = seed_directory(session, args.directory, admin)
    for name in created:
        print(f"created scenario {name!r}")
    for name in skipped:
        print(f"exists, skipped {name!r}")
    for line in failed:
        print(f"invalid, not loaded: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
