"""Celery tasks of the worker.

``subflow.run_comparison(comparison_id)`` runs a stored comparison through the
one comparison code path, :func:`subflow.compare.compare`, with the emulator
agent (:class:`subflow_worker.agent_client.AgentClient`) as the runner.
Tasks take ids and re-read the row, so a redelivered or retried message is
harmless: a deleted or finished comparison is left alone.
"""

from __future__ import annotations

import time
from typing import Any

from celery import Task, chord
from celery.exceptions import SoftTimeLimitExceeded
from celery.utils.log import get_task_logger
from subflow.compare import compare
from subflow.errors import AgentUnavailable, SubflowError
from subflow.plan import RunPlan
from subflow.results import EngineOutput, ResultDocument
from subflow.sweeps import SweepSpec, aggregate, expand, unit_summary

from subflow_backend import comparison_state
from subflow_backend.db import SessionLocal
from subflow_backend.models import Comparison, Scenario
from subflow_backend.queue import (
    AGGREGATE_UNITS_TASK,
    ALLOCATE_TASK,
    ROUTES_TASK,
    RUN_COMPARISON_TASK,
    RUN_UNIT_TASK,
)
from subflow_backend.settings import settings
from subflow_worker.agent_client import AgentClient
from subflow_worker.celery_app import celery_app

log = get_task_logger(__name__)

#: Smallest progress step written to the database (fraction of the whole comparison).
PROGRESS_STEP = 0.01


class ComparisonGone(Exception):
    """The comparison row was deleted while it ran (its scenario was deleted)."""


class ComparisonCancelled(Exception):
    """The user cancelled the comparison while it ran."""


def _status(comparison_id: str) -> str | None:
    with SessionLocal() as session:
        return comparison_state.status_of(session, comparison_id)


def _claim(comparison_id: str) -> tuple[dict[str, Any], list[str], str, int, dict | None] | None:
    """Mark the comparison running (:func:`comparison_state.claim`); None if it is gone or
    already finished (a cancel that lands before the claim is never overwritten)."""
    with SessionLocal() as session:
        claimed = comparison_state.claim(session, comparison_id)
        row = session.get(Comparison, comparison_id)
        if row is None:
            log.info("comparison %s no longer exists; nothing to do", comparison_id)
            return None
        if not claimed:
            log.info("comparison %s already %s; nothing to do", comparison_id, row.status)
            return None
        return row.scenario_snapshot, list(row.strategies), row.engine, row.repetitions, row.sweep


class _Progress:
    """Writes the comparison's progress (0–1), throttled, and notices deletion."""

    def __init__(self, comparison_id: str, strategies: list[str]):
        self.comparison_id = comparison_id
        self.strategies = strategies
        self.written = 0.0

    def set(self, fraction: float) -> None:
        fraction = min(1.0, max(0.0, fraction))
        if fraction - self.written < PROGRESS_STEP and fraction < 1.0:
            return
        with SessionLocal() as session:
            written = comparison_state.report_progress(session, self.comparison_id, fraction)
        if not written:
            status = _status(self.comparison_id)
            if status is None:
                raise ComparisonGone(self.comparison_id)
            raise ComparisonCancelled(self.comparison_id)
        self.written = fraction

    def runner(self, client: AgentClient):
        """A ``RunPlan -> EngineOutput`` runner reporting strategy i of n plus the agent run's progress."""
        n = len(self.strategies)

        def run(plan: RunPlan) -> EngineOutput:
            i = self.strategies.index(plan.strategy)
            return client.run(plan, on_progress=lambda p: self.set((i + p) / n))

        return run


def _agent_client() -> AgentClient:
    """A client of the configured emulator agent (URL, token and time limits from settings)."""
    return AgentClient(
        settings.AGENT_URL,
        settings.AGENT_TOKEN,
        timeout_s=settings.AGENT_HTTP_TIMEOUT_S,
        poll_interval_s=settings.AGENT_POLL_INTERVAL_S,
        deadline_s=settings.AGENT_RUN_DEADLINE_S,
    )


def _fail(comparison_id: str, error: str) -> None:
    log.warning("comparison %s failed: %s", comparison_id, error)
    with SessionLocal() as session:
        comparison_state.fail(session, comparison_id, error)


@celery_app.task(
    name=RUN_COMPARISON_TASK,
    bind=True,
    acks_late=True,
    max_retries=settings.TASK_MAX_RETRIES,
    soft_time_limit=settings.TASK_SOFT_TIME_LIMIT_S,
    time_limit=settings.TASK_TIME_LIMIT_S,
)
def run_comparison(self: Task, comparison_id: str) -> str | None:
    """Run comparison ``comparison_id`` and store its result document.

    Sets ``status`` running → succeeded (``result``, ``progress`` 1) or failed
    (``error``). While the agent is unreachable the task is retried
    ``TASK_MAX_RETRIES`` times after ``TASK_RETRY_BACKOFF_S × 2^attempt`` seconds
    (the row goes back to ``queued``); then, or on :class:`~subflow.errors.AgentRejected`
    or another domain error, it fails with a readable reason. The scenario is
    never modified.

    Returns
    -------
    str or None
        The final status, or None if the comparison was gone or already finished.
    """
    claimed = _claim(comparison_id)
    if claimed is None:
        return None
    snapshot, strategies, engine, repetitions, sweep = claimed
    if repetitions > 1 or sweep is not None:
        return _fan_out(comparison_id, snapshot, repetitions, sweep)
    progress = _Progress(comparison_id, strategies)
    started = time.monotonic()
    try:
        with _agent_client() as client:
            document = compare(
                snapshot,
                strategies,
                runner=progress.runner(client),
                engine=engine,
                on_progress=lambda fraction, _name, _result: progress.set(fraction),
            )
    except ComparisonGone:
        log.info("comparison %s was deleted while running; result dropped", comparison_id)
        return None
    except ComparisonCancelled:
        log.info("comparison %s was cancelled", comparison_id)
        return comparison_state.CANCELLED
    except AgentUnavailable as exc:
        attempt = self.request.retries
        if attempt < self.max_retries:
            countdown = settings.TASK_RETRY_BACKOFF_S * (2**attempt)
            log.warning(
                "comparison %s: agent unavailable (%s); retry %d/%d in %g s",
                comparison_id, exc, attempt + 1, self.max_retries, countdown,
            )
            with SessionLocal() as session:
                if not comparison_state.requeue(session, comparison_id):
                    return None
            raise self.retry(exc=exc, countdown=countdown, max_retries=self.max_retries) from exc
        _fail(
            comparison_id,
            f"emulator agent unreachable at {settings.AGENT_URL} after {self.max_retries} "
            f"retr{'y' if self.max_retries == 1 else 'ies'}: {exc}",
        )
        return comparison_state.FAILED
    except SoftTimeLimitExceeded:
        _fail(comparison_id, f"comparison exceeded the time limit of {settings.TASK_SOFT_TIME_LIMIT_S:g} s")
        return comparison_state.FAILED
    except (SubflowError, ValueError) as exc:  # AgentRejected, ScenarioInvalid, Unreachable, ...
        _fail(comparison_id, str(exc))
        return comparison_state.FAILED
    except Exception as exc:
        log.exception("comparison %s: unexpected error", comparison_id)
        _fail(comparison_id, f"internal error: {type(exc).__name__}: {exc}")
        raise
    if not _finish(comparison_id, document):
        return _status(comparison_id)
    log.info("comparison %s succeeded in %.1f s", comparison_id, time.monotonic() - started)
    return comparison_state.SUCCEEDED


def _finish(comparison_id: str, document: ResultDocument) -> bool:
    """Store the result document (as its JSON) unless the comparison was cancelled or deleted meanwhile."""
    with SessionLocal() as session:
        return comparison_state.succeed(session, comparison_id, document.model_dump(mode="json"))


def _units(snapshot: dict[str, Any], repetitions: int, sweep: dict | None):
    return expand(snapshot, SweepSpec(**sweep) if sweep is not None else None, repetitions)


def _fan_out(comparison_id: str, snapshot: dict[str, Any], repetitions: int, sweep: dict | None) -> str:
    """Run a sweep / repetitions as a Celery chord: one ``run_unit`` per (point, repetition),
    then ``aggregate_units`` with their summaries."""
    units = _units(snapshot, repetitions, sweep)
    with SessionLocal() as session:
        comparison_state.set_units_total(session, comparison_id, len(units))
    chord(run_unit.s(comparison_id, u.index) for u in units)(aggregate_units.s(comparison_id))
    log.info("comparison %s: %d units dispatched", comparison_id, len(units))
    return "dispatched"


def _unit_done(comparison_id: str) -> None:
    with SessionLocal() as session:
        comparison_state.unit_done(session, comparison_id)


@celery_app.task(name=RUN_UNIT_TASK, bind=True, acks_late=True, ignore_result=False,
                 max_retries=settings.TASK_MAX_RETRIES)
def run_unit(self: Task, comparison_id: str, index: int) -> dict[str, Any]:
    """Run unit ``index`` (one sweep point x repetition, every strategy) of a comparison.

    Returns ``{"index", "summary": {strategy: {mean_mbps, jain_index, zero_s}}, "document":
    the full result document (JSON) for unit 0 else None, "error": str or None}``; a unit never
    raises past its retries, so the chord's callback always runs.
    """
    with SessionLocal() as session:
        row = session.get(Comparison, comparison_id)
        if row is None or row.status != comparison_state.RUNNING:
            return {"index": index, "summary": None, "document": None, "error": "skipped"}
        snapshot, strategies, engine = row.scenario_snapshot, list(row.strategies), row.engine
        repetitions, sweep = row.repetitions, row.sweep
    unit = _units(snapshot, repetitions, sweep)[index]
    try:
        with _agent_client() as client:
            document = compare(unit.scenario, strategies, runner=lambda plan: client.run(plan), engine=engine)
    except AgentUnavailable as exc:
        if self.request.retries < self.max_retries:
            raise self.retry(exc=exc, countdown=settings.TASK_RETRY_BACKOFF_S * 2**self.request.retries) from exc
        return {"index": index, "summary": None, "document": None,
                "error": f"emulator agent unreachable at {settings.AGENT_URL}: {exc}"}
    except (SubflowError, ValueError) as exc:
        return {"index": index, "summary": None, "document": None, "error": str(exc)}
    _unit_done(comparison_id)
    return {"index": index, "summary": unit_summary(document),
            "document": document.model_dump(mode="json") if index == 0 else None, "error": None}


@celery_app.task(name=AGGREGATE_UNITS_TASK, acks_late=True)
def aggregate_units(results: list[dict[str, Any]], comparison_id: str) -> str | None:
    """Chord callback: aggregate the units' summaries (mean and 95 % CI per point and strategy)
    into the result document and finish the comparison."""
    with SessionLocal() as session:
        row = session.get(Comparison, comparison_id)
        if row is None or row.status != comparison_state.RUNNING:
            return None if row is None else row.status
        snapshot, repetitions, sweep = row.scenario_snapshot, row.repetitions, row.sweep
    errors = [r["error"] for r in results if r.get("error")]
    if errors:
        _fail(comparison_id, f"{len(errors)} of {len(results)} runs failed; first: {errors[0]}")
        return comparison_state.FAILED
    results = sorted(results, key=lambda r: r["index"])
    units = _units(snapshot, repetitions, sweep)
    # unit 0's document crossed the result backend as JSON; it is validated again here
    document = ResultDocument.model_validate(
        {**results[0]["document"],
         **aggregate(units, [r["summary"] for r in results], SweepSpec(**sweep) if sweep else None)}
    )
    if not _finish(comparison_id, document):
        return _status(comparison_id)
    return comparison_state.SUCCEEDED


def _scenario_document(scenario_id: str, version: int) -> dict[str, Any]:
    """The stored document at ``version`` (a planning job on a since-edited scenario fails clearly)."""
    with SessionLocal() as session:
        row = session.get(Scenario, scenario_id)
        if row is None:
            raise LookupError(f"scenario {scenario_id} no longer exists")
        if row.version != version:
            raise LookupError(f"scenario {scenario_id} changed (version {row.version}, job asked {version})")
        return row.document


@celery_app.task(name=ROUTES_TASK, bind=True, acks_late=True, ignore_result=False)
def compute_routes(self: Task, scenario_id: str, version: int, request: dict[str, Any]) -> dict[str, Any]:
    """Background ``POST /api/scenarios/{id}/routes``: the routes document (see :mod:`subflow.planning_requests`)."""
    from subflow.planning_requests import RoutesRequest, routes_document

    self.update_state(state="PROGRESS", meta={"progress": 0.0})
    return routes_document(_scenario_document(scenario_id, version), RoutesRequest(**request))


@celery_app.task(name=ALLOCATE_TASK, bind=True, acks_late=True, ignore_result=False)
def allocate(self: Task, scenario_id: str, version: int, request: dict[str, Any]) -> dict[str, Any]:
    """Background ``POST /api/scenarios/{id}/allocations``: the FDM allocation document."""
    from subflow.planning_requests import AllocationRequest, allocation_document

    self.update_state(state="PROGRESS", meta={"progress": 0.0})
    return allocation_document(_scenario_document(scenario_id, version), AllocationRequest(**request))
