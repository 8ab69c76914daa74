"""Scenario history and optimistic concurrency.

Every save keeps the version it replaces in ``scenario_version`` (document, name,
description, who saved it and when), in the same transaction as the save. A save
names the version it was made from (the ``If-Match`` ETag of ``PUT``); it is one
conditional ``UPDATE scenario ... WHERE id = :id AND version = :expected``, so of
two concurrent saves from the same version exactly one succeeds and the other gets
:class:`VersionConflict` — on PostgreSQL the second ``UPDATE`` waits for the first's
row lock and then matches no row; on SQLite writers are serialised and the same
``WHERE`` decides.

ETags are strong and name the version: ``"v3"`` (RFC 9110 §8.8.3).
"""

from __future__ import annotations

import copy
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from subflow.errors import ScenarioNameTaken, UnknownVersion, VersionConflict
from subflow.scenario.document import Scenario, check_references, load_scenario

from subflow_backend import crud, models


def etag(version: int) -> str:
    """The ETag of a scenario version: ``"v<version>"``."""
    return f'"v{version}"'


def parse_if_match(header: str | None) -> list[int] | None:
    """Versions named by an ``If-Match`` header (``"v3"``, ``W/"v3"``, or a comma-separated list);
    None if the header is absent or names no version (``*`` included: a save must name the version
    it was made from).

    >>> parse_if_match('"v3"'), parse_if_match('W/"v2", "v5"'), parse_if_match("*"), parse_if_match(None)
    ([3], [2, 5], None, None)
    """
    if not header:
        return None
    versions = []
    for part in header.split(","):
        tag = part.strip().removeprefix("W/").strip('"')
        if tag.startswith("v") and tag[1:].isdigit() and len(tag) < 12:
            versions.append(int(tag[1:]))
    return versions or None


def _validated(scenario: Scenario | dict[str, Any]) -> Scenario:
    if isinstance(scenario, Scenario):
        check_references(scenario)
        return scenario
    return load_scenario(scenario)


def save(
    session: Session,
    row: models.Scenario,
    scenario: Scenario | dict[str, Any],
    expected_version: int,
    author: models.User | None,
) -> models.Scenario:
    """Replace ``row``'s document if it is still at ``expected_version``; the replaced version is
    kept in the history and ``version`` goes up by one.

    Raises
    ------
    ScenarioInvalid
        The document is invalid (nothing stored).
    ScenarioNameTaken
        Another scenario of the project has the new name (nothing stored).
    VersionConflict
        ``row`` is at another version now (nothing stored).
    """
    sc = _validated(scenario)
    session.refresh(row)
    if row.version != expected_version:
        raise VersionConflict(row.id, expected_version, row.version)
    if crud.name_taken(session, sc.name, row.project_id, row.id):
        raise ScenarioNameTaken(sc.name)
    previous = models.ScenarioVersion(
        scenario_id=row.id, version=row.version, name=row.name, description=row.description,
        document=copy.deepcopy(row.document), saved_at=row.updated_at, saved_by=row.updated_by,
        saved_by_name=row.updated_by_name,
    )
    try:
        result = session.execute(
            update(models.Scenario)
            .where(models.Scenario.id == row.id, models.Scenario.version == expected_version)
            .values(
                name=sc.name, description=sc.description, document=sc.model_dump(mode="json"),
                version=models.Scenario.version + 1, updated_at=models.utcnow(),
                updated_by=author.id if author else None, updated_by_name=author.username if author else None,
            )
            .execution_options(synchronize_session=False)
        )
        if result.rowcount != 1:
            session.rollback()
            session.refresh(row)
            raise VersionConflict(row.id, expected_version, row.version)
        session.add(previous)
        session.commit()
    except IntegrityError:
        session.rollback()
        if crud.name_taken(session, sc.name, row.project_id, row.id):
            raise ScenarioNameTaken(sc.name) from None
        session.refresh(row)
        raise VersionConflict(row.id, expected_version, row.version) from None
    session.refresh(row)
    return row


def list_versions(session: Session, row: models.Scenario) -> list[dict[str, Any]]:
    """Every version of the scenario, newest (the current one) first: ``{version, name, description,
    saved_at, saved_by, current}``."""
    out = [_summary(row.version, row.name, row.description, row.updated_at, row.updated_by_name, True)]
    for v in session.scalars(
        select(models.ScenarioVersion).where(models.ScenarioVersion.scenario_id == row.id)
        .order_by(models.ScenarioVersion.version.desc())
    ):
        out.append(_summary(v.version, v.name, v.description, v.saved_at, v.saved_by_name, False))
    return out


def _summary(version, name, description, saved_at, saved_by, current) -> dict[str, Any]:
    return {"version": version, "name": name, "description": description, "saved_at": saved_at,
            "saved_by": saved_by, "current": current}


def get_version(session: Session, row: models.Scenario, version: int) -> dict[str, Any]:
    """One version with its document (``scenario``).

    Raises
    ------
    UnknownVersion
        If the scenario has no such version.
    """
    if version == row.version:
        return {**_summary(row.version, row.name, row.description, row.updated_at, row.updated_by_name, True),
                "scenario": row.document}
    v = session.scalar(select(models.ScenarioVersion).where(
        models.ScenarioVersion.scenario_id == row.id, models.ScenarioVersion.version == version))
    if v is None:
        raise UnknownVersion(row.id, version)
    return {**_summary(v.version, v.name, v.description, v.saved_at, v.saved_by_name, False), "scenario": v.document}


def restore(session: Session, row: models.Scenario, version: int, author: models.User | None) -> models.Scenario:
    """Save ``version``'s document as a new version (the history keeps everything).

    Raises
    ------
    UnknownVersion, VersionConflict, ScenarioNameTaken, ScenarioInvalid
    """
    old = get_version(session, row, version)
    return save(session, row, old["scenario"], row.version, author)


def fork(
    session: Session, row: models.Scenario, name: str, version: int | None, project_id: str,
    author: models.User | None,
) -> models.Scenario:
    """A new scenario (version 1, in ``project_id``) with the document of ``version`` (default: the
    current one) of ``row`` and the name ``name``.

    Raises
    ------
    UnknownVersion, ScenarioNameTaken, ScenarioInvalid
    """
    doc = copy.deepcopy(get_version(session, row, version if version is not None else row.version)["scenario"])
    doc["name"] = name
    return crud.create_scenario(session, doc, project_id=project_id, author=author)
