"""Database operations on scenarios and comparisons.

Functions here raise domain errors (:mod:`subflow.errors`, plus
:class:`ScenarioNameTaken`); the API edge translates them to HTTP.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer

from subflow.errors import SubflowError, UnknownEngine, Unreachable
from subflow.plan import resolve_plan
from subflow.scenario import Scenario, check_references, load_scenario
from subflow.strategies import get_strategy
from subflow.sweeps import expand

from subflow_backend import models
from subflow_backend.schemas import ComparisonCreate
from subflow_backend.settings import settings


class ScenarioNameTaken(SubflowError):
    """Another stored scenario already has this name (names are unique)."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(f"a scenario named {name!r} already exists; choose another name")


def _name_taken(session: Session, name: str, exclude_id: str | None = None) -> bool:
    stmt = select(models.Scenario.id).where(models.Scenario.name == name)
    if exclude_id is not None:
        stmt = stmt.where(models.Scenario.id != exclude_id)
    return session.scalar(stmt) is not None


def _validated(scenario: Scenario | dict[str, Any]) -> Scenario:
    if isinstance(scenario, Scenario):
        check_references(scenario)
        return scenario
    return load_scenario(scenario)


def _commit_unique(session: Session, name: str) -> None:
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        if _name_taken(session, name):
            raise ScenarioNameTaken(name) from None
        raise


def create_scenario(
    session: Session, scenario: Scenario | dict[str, Any], project_id: str, author: models.User | None = None
) -> models.Scenario:
    """Validate and store a new scenario at version 1 in project ``project_id``, saved by ``author``.

    Raises
    ------
    ScenarioInvalid
        Structure or cross-reference problems (JSON paths in ``errors``); nothing stored.
    ScenarioNameTaken
        If the name is in use.
    """
    sc = _validated(scenario)
    if _name_taken(session, sc.name):
        raise ScenarioNameTaken(sc.name)
    row = models.Scenario(
        name=sc.name, description=sc.description, version=1, document=sc.model_dump(mode="json"),
        project_id=project_id, updated_by=author.id if author else None,
        updated_by_name=author.username if author else None,
    )
    session.add(row)
    _commit_unique(session, sc.name)
    session.refresh(row)
    return row


def update_scenario(
    session: Session, row: models.Scenario, scenario: Scenario | dict[str, Any]
) -> models.Scenario:
    """Replace the document of ``row``, incrementing ``version`` by one.

    Raises
    ------
    ScenarioInvalid, ScenarioNameTaken
        As :func:`create_scenario`; the stored row is left unchanged.
    """
    sc = _validated(scenario)
    if _name_taken(session, sc.name, exclude_id=row.id):
        raise ScenarioNameTaken(sc.name)
    row.name = sc.name
    row.description = sc.description
    row.document = sc.model_dump(mode="json")
    row.version = row.version + 1
    row.updated_at = models.utcnow()
    _commit_unique(session, sc.name)
    session.refresh(row)
    return row


def get_scenario(session: Session, scenario_id: str) -> models.Scenario | None:
    """The scenario with ``scenario_id``, or None."""
    return session.get(models.Scenario, scenario_id)


def get_scenario_by_name(session: Session, name: str) -> models.Scenario | None:
    """The scenario called ``name``, or None."""
    return session.scalar(select(models.Scenario).where(models.Scenario.name == name))


def list_scenarios(
    session: Session, skip: int = 0, limit: int = 100, project_ids: Any = None
) -> tuple[Sequence[models.Scenario], int]:
    """A page of scenarios ordered by name, and the total count; only those whose project is
    in ``project_ids`` (a list or a subquery of ids) unless it is None."""
    where = [] if project_ids is None else [models.Scenario.project_id.in_(project_ids)]
    count = session.scalar(select(func.count()).select_from(models.Scenario).where(*where)) or 0
    rows = session.scalars(
        select(models.Scenario).where(*where).order_by(models.Scenario.name).offset(skip).limit(limit)
    ).all()
    return rows, count


def delete_scenario(session: Session, row: models.Scenario) -> None:
    """Delete a scenario and (by cascade) its comparisons."""
    session.delete(row)
    session.commit()


def check_engine(engine: str) -> None:
    """Raise :class:`UnknownEngine` unless ``engine`` is in ``settings.ENGINES`` or available
    at the agent (:func:`subflow_backend.agent.engine_names`)."""
    if engine in settings.ENGINES:
        return
    from subflow_backend.agent import engine_names

    names = engine_names()
    if engine not in names:
        raise UnknownEngine(engine, names)


def create_comparison(session: Session, scenario: models.Scenario, body: ComparisonCreate) -> models.Comparison:
    """Check a comparison request and store it as ``queued`` (not yet enqueued).

    Every strategy's plan is resolved once here, so a request that cannot run
    fails before anything is stored.

    Raises
    ------
    UnknownStrategy, UnknownEngine
        A name that is not known.
    Unreachable
        A flow of the scenario with no path at any time (for some strategy);
        its ``loc`` attribute is set to ``["scenario", "flows", index]``.
    ScenarioInvalid
        If the stored document no longer validates.
    """
    for name in body.strategies:
        get_strategy(name)
    check_engine(body.engine)
    snapshot = copy.deepcopy(scenario.document)
    if body.seed is not None:
        snapshot.setdefault("run", {})["seed"] = body.seed
    sc = load_scenario(snapshot)
    units = expand(sc.model_dump(mode="json"), body.sweep, body.repetitions)
    for unit in units:
        if unit.repetition:
            continue  # another seed of a point already checked
        for name in body.strategies:
            try:
                resolve_plan(unit.scenario, name, body.engine)
            except Unreachable as exc:
                # point the API edge at the flow in the scenario document
                index = next((i for i, f in enumerate(sc.flows) if f.id == exc.flow_id), None)
                exc.loc = ["scenario", "flows"] + ([index] if index is not None else [])  # type: ignore[attr-defined]
                raise
    row = models.Comparison(
        scenario_id=scenario.id,
        scenario_version=scenario.version,
        scenario_snapshot=sc.model_dump(mode="json"),
        strategies=list(body.strategies),
        engine=body.engine,
        seed=body.seed,
        repetitions=body.repetitions,
        sweep=body.sweep.model_dump() if body.sweep is not None else None,
        units_total=len(units),
        units_done=0,
        status="queued",
        progress=0.0,
    )
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def cancel_comparison(session: Session, row: models.Comparison) -> models.Comparison:
    """Mark a queued or running comparison ``cancelled`` (the worker stops at its next check).

    One conditional UPDATE, so it cannot overwrite a result the worker stored meanwhile;
    a finished comparison is returned unchanged.
    """
    session.execute(
        update(models.Comparison)
        .where(models.Comparison.id == row.id, models.Comparison.status.in_(("queued", "running")))
        .values(status="cancelled", error="cancelled by the user", finished_at=models.utcnow())
    )
    session.commit()
    session.refresh(row)
    return row


def mark_comparison_failed(session: Session, row: models.Comparison, error: str) -> models.Comparison:
    """Set ``row`` to ``failed`` with ``error`` and a finish time."""
    row.status = "failed"
    row.error = error
    row.finished_at = models.utcnow()
    session.commit()
    session.refresh(row)
    return row


def get_comparison(session: Session, scenario_id: str, comparison_id: str) -> models.Comparison | None:
    """The comparison ``comparison_id`` of scenario ``scenario_id``, or None."""
    row = session.get(models.Comparison, comparison_id)
    if row is None or row.scenario_id != scenario_id:
        return None
    return row


def list_comparisons(
    session: Session, scenario_id: str, skip: int = 0, limit: int = 100
) -> tuple[Sequence[models.Comparison], int]:
    """A page of a scenario's comparisons, newest first, and their total count."""
    where = models.Comparison.scenario_id == scenario_id
    count = session.scalar(select(func.count()).select_from(models.Comparison).where(where)) or 0
    rows = session.scalars(
        select(models.Comparison)
        .options(defer(models.Comparison.result), defer(models.Comparison.scenario_snapshot))
        .where(where)
        .order_by(models.Comparison.created_at.desc(), models.Comparison.id)
        .offset(skip)
        .limit(limit)
    ).all()
    return rows, count
