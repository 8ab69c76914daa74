"""Database operations on scenarios and comparisons.

Functions here raise domain errors (:mod:`subflow.errors`, plus
:class:`ScenarioNameTaken`); the API edge translates them to HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Text, cast, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, defer

from subflow.comparison.sweeps import point_count
from subflow.errors import ScenarioInvalid, ScenarioNameTaken
from subflow.scenario.document import Scenario, check_references, load_scenario
from subflow.service.limits import check_scenario, check_sweep

from subflow_backend import comparison_state, models
from subflow_backend.json_paths import json_paths
from subflow_backend.request_checks import check_request
from subflow_backend.schemas import ComparisonCreate
from subflow_backend.settings import settings


#: Largest ``skip`` of a page (a signed 32-bit offset; any larger one would be past every row).
MAX_SKIP = 2**31 - 1


def name_taken(session: Session, name: str, project_id: str, exclude_id: str | None = None) -> bool:
    """Whether another scenario of project ``project_id`` (not ``exclude_id``) is called ``name``."""
    stmt = select(models.Scenario.id).where(models.Scenario.name == name, models.Scenario.project_id == project_id)
    if exclude_id is not None:
        stmt = stmt.where(models.Scenario.id != exclude_id)
    return session.scalar(stmt) is not None


def _has_nul(value: Any) -> bool:
    return isinstance(value, str) and "\x00" in value


def _validated(scenario: Scenario | dict[str, Any]) -> Scenario:
    """The validated scenario, within the ``MAX_*`` limits; refuses NUL characters in any text.

    PostgreSQL cannot store NUL characters in text.

    Raises
    ------
    ScenarioInvalid
        With the JSON path of each problem.
    LimitExceeded
        A count over one of the ``MAX_*`` settings (a ``ScenarioInvalid`` naming it).
    """
    if isinstance(scenario, Scenario):
        check_references(scenario)
        sc = scenario
    else:
        sc = load_scenario(scenario)
    check_scenario(sc, settings.limits)
    nul = json_paths(sc.model_dump(mode="json"), _has_nul)
    if nul:
        raise ScenarioInvalid(
            [{"loc": list(p), "msg": "text must not contain a NUL character (U+0000)", "type": "string_nul"}
             for p in nul]
        )
    return sc


def _commit_unique(session: Session, name: str, project_id: str) -> None:
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        if name_taken(session, name, project_id):
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
        If the name is in use in the project.
    """
    sc = _validated(scenario)
    if name_taken(session, sc.name, project_id):
        raise ScenarioNameTaken(sc.name)
    row = models.Scenario(
        name=sc.name, description=sc.description, version=1, document=sc.model_dump(mode="json"),
        project_id=project_id, updated_by=author.id if author else None,
        updated_by_name=author.username if author else None,
    )
    session.add(row)
    _commit_unique(session, sc.name, project_id)
    session.refresh(row)
    return row


def get_scenario(session: Session, scenario_id: str) -> models.Scenario | None:
    """The scenario with ``scenario_id``, or None."""
    return session.get(models.Scenario, scenario_id)


def get_scenario_by_name(session: Session, name: str, project_id: str) -> models.Scenario | None:
    """The scenario of project ``project_id`` called ``name``, or None."""
    return session.scalar(
        select(models.Scenario).where(models.Scenario.name == name, models.Scenario.project_id == project_id)
    )


def list_scenarios(
    session: Session, skip: int = 0, limit: int = 100, project_ids: Any = None
) -> tuple[Sequence[models.Scenario], int]:
    """A page of scenarios ordered by name, and the total count; only those whose project is
    in ``project_ids`` (a list or a subquery of ids) unless it is None."""
    where = [] if project_ids is None else [models.Scenario.project_id.in_(project_ids)]
    count = session.scalar(select(func.count()).select_from(models.Scenario).where(*where)) or 0
    rows = session.scalars(
        select(models.Scenario).options(defer(models.Scenario.document))  # summaries: no document read
        .where(*where).order_by(models.Scenario.name, models.Scenario.id).offset(skip).limit(limit)
    ).all()
    return rows, count


def delete_scenario(session: Session, row: models.Scenario) -> None:
    """Delete a scenario and (by cascade) its comparisons."""
    session.delete(row)
    session.commit()


def create_comparison(session: Session, scenario: models.Scenario, body: ComparisonCreate) -> models.Comparison:
    """Check a comparison request and store it as ``queued`` (not yet enqueued).

    The checks are :func:`subflow_backend.request_checks.check_request`'s: no
    plan is resolved here (the worker does it) and a configured engine is not
    asked anything, so the request answers at once.

    Raises
    ------
    UnknownStrategy, UnknownEngine, StrategyNotSupported
        A strategy or engine that is not known, or an engine that does not run a strategy.
    FlowUnreachable
        A flow of the scenario whose endpoints are never connected (``index`` names it).
    ScenarioInvalid
        A bad sweep, or a stored document that no longer validates.
    LimitExceeded
        More runs (sweep values × repetitions) than ``MAX_SWEEP_UNITS``.
    """
    check_sweep(point_count(body.sweep), body.repetitions, settings.limits)
    sc, units_total = check_request(
        scenario.document, list(body.strategies), body.engine, body.seed, body.repetitions, body.sweep
    )
    row = comparison_state.new_comparison(
        scenario_id=scenario.id,
        scenario_version=scenario.version,
        scenario_snapshot=sc.model_dump(mode="json"),
        strategies=list(body.strategies),
        engine=body.engine,
        seed=body.seed,
        repetitions=body.repetitions,
        sweep=body.sweep.model_dump(exclude_defaults=True) if body.sweep is not None else None,  # a 1-D sweep stored without parameter_y/values_y
        units_total=units_total,
    )
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def cancel_comparison(session: Session, row: models.Comparison) -> models.Comparison:
    """Mark a queued or running comparison ``cancelled`` (the worker stops at its next check).

    A guarded transition (:func:`subflow_backend.comparison_state.cancel`), so it cannot
    overwrite a result the worker stored meanwhile; a finished comparison is returned unchanged.
    """
    comparison_state.cancel(session, row.id)
    session.refresh(row)
    return row


def mark_comparison_failed(session: Session, row: models.Comparison, error: str) -> models.Comparison:
    """Set a queued or running ``row`` to ``failed`` with ``error`` and a finish time
    (:func:`subflow_backend.comparison_state.fail`); a finished one is returned unchanged."""
    comparison_state.fail(session, row.id, error)
    session.refresh(row)
    return row


def get_comparison(session: Session, scenario_id: str, comparison_id: str) -> models.Comparison | None:
    """The comparison ``comparison_id`` of scenario ``scenario_id``, or None."""
    row = session.get(models.Comparison, comparison_id)
    if row is None or row.scenario_id != scenario_id:
        return None
    return row


def sweep_point_runs(session: Session, row: models.Comparison) -> list[int]:
    """Indices of the sweep points of ``row`` whose representative run (first repetition) has a stored
    result document, sorted; ``[]`` for a comparison without a sweep."""
    if row.sweep is None:
        return []
    reps = max(1, row.repetitions)
    indices = session.scalars(
        select(models.ComparisonUnit.index)
        .where(models.ComparisonUnit.comparison_id == row.id, models.ComparisonUnit.document.is_not(None),
               cast(models.ComparisonUnit.document, Text) != "null")
        .order_by(models.ComparisonUnit.index)
    )
    return [i // reps for i in indices if i % reps == 0]


def sweep_point_document(session: Session, row: models.Comparison, point: int) -> dict[str, Any] | None:
    """The stored result document of sweep point ``point``'s first repetition, or None if not stored."""
    if row.sweep is None or point < 0:
        return None
    unit = session.get(models.ComparisonUnit, (row.id, point * max(1, row.repetitions)))
    return unit.document if unit is not None and unit.document else None


def count_unfinished_comparisons(session: Session) -> int:
    """How many comparisons (all users) are ``queued`` or ``running`` now."""
    return session.scalar(
        select(func.count()).select_from(models.Comparison)
        .where(models.Comparison.status.in_(sorted(comparison_state.UNFINISHED)))
    ) or 0


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
