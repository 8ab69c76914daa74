"""Celery tasks of the worker.

``subflow.run_comparison(comparison_id)`` runs a stored comparison through the
one comparison code path, :func:`subflow.comparison.compare.compare`, with the emulator
agent (:class:`subflow_worker.agent_client.AgentClient`) as the runner.
Tasks take ids and re-read the row, so a redelivered or retried message is
harmless: a deleted or finished comparison is left alone, a message of an older
``attempt`` (the reaper restarted the comparison) is dropped, a running comparison
whose worker is alive (fresh heartbeat) is not taken over, and a unit already stored
is not stored twice. While a task runs, :mod:`subflow_worker.liveness` renews its
heartbeat; :mod:`subflow_backend.reaper` restarts what a dead process left behind.

A sweep (or repetitions) runs as units, at most ``SWEEP_WINDOW`` of a comparison in the
queue at a time: each finished unit stores its outcome (``comparison_unit``) and hands out
the next; the one that completes the set aggregates. A cancel stops the hand-out at once.
"""

from __future__ import annotations

import base64
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from datetime import timedelta

from celery import Task
from celery.exceptions import SoftTimeLimitExceeded
from celery.utils.log import get_task_logger
from subflow.comparison.compare import compare
from subflow.comparison.sweeps import (SweepSpec, Unit, aggregate, point_count, representative_points, unit_at, unit_count,
                            unit_summary)
from subflow.errors import AgentUnavailable, ComparisonCancelled, ComparisonGone, SubflowError
from subflow.results.document import EngineOutput, ResultDocument
from subflow.runplan.document import RunPlan
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from subflow_backend import comparison_state
from subflow_backend.db import SessionLocal
from subflow_backend.models import Comparison, ComparisonUnit, PacketCapture, Scenario, utcnow
from subflow_backend.queue import (
    AGGREGATE_UNITS_TASK,
    ALLOCATE_TASK,
    CAPACITY_TASK,
    FAILURES_TASK,
    ROUTES_TASK,
    RUN_COMPARISON_TASK,
    RUN_UNIT_TASK,
)
from subflow_backend.settings import settings
from subflow_worker import liveness
from subflow_worker.agent_client import AgentClient
from subflow_worker.celery_app import celery_app

log = get_task_logger(__name__)

#: Smallest progress step written to the database (fraction of the whole comparison).
PROGRESS_STEP = 0.01
#: Shortest time between two progress writes, seconds (the end, 1, is always written). A fast comparison would
#: otherwise write every few milliseconds (naval-leo's two strategies: a 1 % step every 15 ms), each write a
#: transaction that the API's progress stream reads and the browser draws, on the cores the engine needs; a cancel
#: is still noticed at the next write.
PROGRESS_MIN_INTERVAL_S = 0.1


def _status(comparison_id: str) -> str | None:
    with SessionLocal() as session:
        return comparison_state.status_of(session, comparison_id)


def _claim(comparison_id: str, attempt: int | None = None
           ) -> tuple[dict[str, Any], list[str], str, int, dict | None] | None:
    """Mark the comparison running (:func:`comparison_state.claim`); None if it is gone, already
    finished (a cancel that lands before the claim is never overwritten), of another attempt,
    or running on a live worker (a duplicate message)."""
    stale_before = utcnow() - timedelta(seconds=settings.STALE_AFTER_S)
    with SessionLocal() as session:
        claimed = comparison_state.claim(session, comparison_id, attempt, stale_before)
        row = session.get(Comparison, comparison_id)
        if row is None:
            log.info("comparison %s no longer exists; nothing to do", comparison_id)
            return None
        if not claimed:
            log.info("comparison %s is %s (attempt %d; this message: %s); nothing to do",
                     comparison_id, row.status, row.attempt, attempt)
            return None
        return row.scenario_snapshot, list(row.strategies), row.engine, row.repetitions, row.sweep


class _Progress:
    """Writes the comparison's progress (0–1), throttled (steps of at least :data:`PROGRESS_STEP`, at most one
    write per :data:`PROGRESS_MIN_INTERVAL_S`), and notices deletion and cancellation. Safe to call from the
    threads of strategies running side by side (each reports its own fraction; the sum is written)."""

    def __init__(self, comparison_id: str, strategies: list[str], clock: Callable[[], float] = time.monotonic):
        self.comparison_id = comparison_id
        self.strategies = strategies
        self.clock = clock
        self.written = 0.0
        self.written_at = -math.inf
        self._each = [0.0] * len(strategies)
        self._lock = threading.Lock()

    def set(self, fraction: float) -> None:
        fraction = min(1.0, max(0.0, fraction))
        with self._lock:
            now = self.clock()
            if fraction < 1.0 and (fraction - self.written < PROGRESS_STEP
                                   or now - self.written_at < PROGRESS_MIN_INTERVAL_S):
                return
            if fraction <= self.written and self.written > 0.0:
                return
            with SessionLocal() as session:
                written = comparison_state.report_progress(session, self.comparison_id, fraction)
            if not written:
                status = _status(self.comparison_id)
                if status is None:
                    raise ComparisonGone(self.comparison_id)
                raise ComparisonCancelled(self.comparison_id)
            self.written = fraction
            self.written_at = now

    def runner(self, client: AgentClient):
        """A ``RunPlan -> EngineOutput`` runner reporting the mean of every strategy's agent-run progress."""
        n = len(self.strategies)

        def run(plan: RunPlan) -> EngineOutput:
            i = self.strategies.index(plan.strategy)

            def one(p: float) -> None:
                with self._lock:
                    self._each[i] = max(self._each[i], min(1.0, max(0.0, p)))
                    total = sum(self._each) / n
                self.set(total)

            return client.run(plan, on_progress=one)

        return run


#: seconds a worker process trusts the agent's engine list before asking again
_CAPABILITIES_TTL_S = 60.0
_capabilities: dict[str, Any] = {"at": -_CAPABILITIES_TTL_S, "real_time": {}}


def _strategies_at_once(client: AgentClient, engine: str) -> int:
    """How many strategies of a comparison on ``engine`` run side by side: ``PARALLEL_STRATEGIES`` when the
    agent declares the engine not real time (``supports.real_time`` false: a simulator, whose figures do not
    depend on what else runs), else 1 (a kernel engine measures on a shared host, or the agent does not say)."""
    if settings.PARALLEL_STRATEGIES == 1:
        return 1
    if time.monotonic() - _capabilities["at"] > _CAPABILITIES_TTL_S:
        engines = client.capabilities().engines
        _capabilities.update(at=time.monotonic(), real_time={e.name: e.supports.get("real_time") for e in engines})
    return settings.PARALLEL_STRATEGIES if _capabilities["real_time"].get(engine) is False else 1


def _agent_client() -> AgentClient:
    """A client of the configured emulator agent (URL, token and time limits from settings)."""
    return AgentClient(
        settings.AGENT_URL,
        settings.AGENT_TOKEN,
        timeout_s=settings.AGENT_HTTP_TIMEOUT_S,
        poll_interval_s=settings.AGENT_POLL_INTERVAL_S,
        deadline_s=settings.AGENT_RUN_DEADLINE_S,
        progress_interval_s=PROGRESS_MIN_INTERVAL_S,  # no progress answers faster than they are written
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
def run_comparison(self: Task, comparison_id: str, attempt: int | None = None) -> str | None:
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
    try:
        claimed = _claim(comparison_id, attempt)
    except OperationalError as exc:
        log.warning("comparison %s: database unavailable (%s); the reaper restarts it later", comparison_id, exc)
        return None
    if claimed is None:
        return None
    snapshot, strategies, engine, repetitions, sweep = claimed
    if repetitions > 1 or sweep is not None:
        return _fan_out(comparison_id, repetitions, sweep)
    progress = _Progress(comparison_id, strategies)
    started = time.monotonic()
    try:
        with liveness.running_comparison(comparison_id), _agent_client() as client:
            document = compare(
                snapshot,
                strategies,
                runner=progress.runner(client),
                engine=engine,
                on_progress=lambda fraction, _name, _result: progress.set(fraction),
                parallel=_strategies_at_once(client, engine),
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
    except OperationalError as exc:  # the database went away: transient, the reaper restarts it
        log.warning("comparison %s: database unavailable (%s); the reaper restarts it later", comparison_id, exc)
        return None
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


def take_captures(comparison_id: str, document: ResultDocument) -> list[PacketCapture]:
    """The packet captures of ``document``'s strategies as rows, their files moved out of the document
    (each ``data_b64`` becomes null: the result document keeps only their description). A file over
    ``MAX_CAPTURE_BYTES`` is not stored (its description stays, and a warning is logged)."""
    rows = []
    for name, result in document.strategies.items():
        for cap in result.captures:
            if cap.data_b64 is None:  # already moved out (a sweep's documents keep none)
                continue
            data = base64.b64decode(cap.data_b64)
            cap.data_b64 = None
            if len(data) > settings.MAX_CAPTURE_BYTES:
                log.warning("comparison %s: capture of %s on %s has %d bytes, over MAX_CAPTURE_BYTES = %d; not stored",
                            comparison_id, name, cap.link, len(data), settings.MAX_CAPTURE_BYTES)
                continue
            rows.append(PacketCapture(comparison_id=comparison_id, strategy=name, link=cap.link, node=cap.node,
                                      format=cap.format, snaplen_bytes=cap.snaplen_bytes, size_bytes=len(data),
                                      packets=cap.packets, truncated=cap.truncated, data=data))
    return rows


def _finish(comparison_id: str, document: ResultDocument) -> bool:
    """Store the result document (as its JSON) and its packet captures (:func:`take_captures`) unless the
    comparison was cancelled or deleted meanwhile."""
    captures = take_captures(comparison_id, document)
    with SessionLocal() as session:
        return comparison_state.succeed(session, comparison_id, document.model_dump(mode="json"), captures)


def _fan_out(comparison_id: str, repetitions: int, sweep: dict | None) -> str:
    """Start a sweep / repetitions: store the unit count and hand out the first ``SWEEP_WINDOW``
    units (each finished unit hands out the next: :func:`_next_unit`)."""
    total = unit_count(SweepSpec(**sweep) if sweep is not None else None, repetitions)
    with SessionLocal() as session:
        attempt = session.get(Comparison, comparison_id).attempt
        if not comparison_state.set_units_total(session, comparison_id, total, attempt):
            return _status(comparison_id) or "gone"
    for _ in range(min(total, settings.SWEEP_WINDOW)):
        _next_unit(comparison_id, attempt)
    log.info("comparison %s: %d units, %d at a time", comparison_id, total, settings.SWEEP_WINDOW)
    return "dispatched"


def _next_unit(comparison_id: str, attempt: int) -> None:
    """Hand out the next unit of a running sweep, if any is left (none after a cancel)."""
    with SessionLocal() as session:
        index = comparison_state.next_unit(session, comparison_id, attempt)
    if index is not None:
        run_unit.apply_async(args=[comparison_id, index, attempt])


def _unit_outcome(comparison_id: str, index: int, strategies: list[str], engine: str, unit_doc: dict,
                  task: Task, keep_document: bool) -> tuple[dict | None, dict | None, str | None]:
    """Run one unit: (summary, its result document if ``keep_document`` (unit 0 and the first repetition
    of each representative sweep point), error)."""
    try:
        with _agent_client() as client:
            document = compare(unit_doc, strategies, runner=lambda plan: client.run(plan), engine=engine)
    except AgentUnavailable as exc:
        if task.request.retries < task.max_retries:
            raise task.retry(exc=exc, countdown=settings.TASK_RETRY_BACKOFF_S * 2**task.request.retries) from exc
        return None, None, f"emulator agent unreachable at {settings.AGENT_URL}: {exc}"
    except (SubflowError, ValueError) as exc:
        return None, None, str(exc)
    for result in document.strategies.values():  # a sweep keeps no capture file (only their descriptions)
        for cap in result.captures:
            cap.data_b64 = None
    return unit_summary(document), document.model_dump(mode="json") if keep_document else None, None


@celery_app.task(name=RUN_UNIT_TASK, bind=True, acks_late=True, max_retries=settings.TASK_MAX_RETRIES)
def run_unit(self: Task, comparison_id: str, index: int, attempt: int = 0) -> str:
    """Run unit ``index`` (one sweep point × repetition, every strategy) of a comparison, store
    its outcome once (:func:`comparison_state.record_unit`), hand out the next unit, and
    aggregate if it was the last one.

    Skips itself at once (returns ``"skipped"``) if the comparison is no longer running (a
    cancel), belongs to another attempt, or the unit's outcome is stored already (a
    redelivered message). A failed unit fails the comparison with the unit's reason.
    """
    try:
        with SessionLocal() as session:
            head = session.execute(
                select(Comparison.status, Comparison.attempt, Comparison.strategies, Comparison.engine,
                       Comparison.repetitions, Comparison.sweep).where(Comparison.id == comparison_id)
            ).first()
            if head is None or head.status != comparison_state.RUNNING or head.attempt != attempt:
                return "skipped"
            if session.get(ComparisonUnit, (comparison_id, index)) is not None:
                return "skipped"
            snapshot = session.scalar(select(Comparison.scenario_snapshot).where(Comparison.id == comparison_id))
        sweep = SweepSpec(**head.sweep) if head.sweep is not None else None
        with liveness.running_comparison(comparison_id):
            try:
                unit = unit_at(snapshot, sweep, head.repetitions, index)
            except (SubflowError, ValueError, IndexError) as exc:
                summary, document, error = None, None, str(exc)
            else:
                del snapshot
                keep = unit.repetition == 0 and unit.point in representative_points(
                    point_count(sweep), settings.SWEEP_POINT_DOCUMENTS)
                summary, document, error = _unit_outcome(comparison_id, index, list(head.strategies), head.engine,
                                                         unit.scenario, self, keep or index == 0)
            with SessionLocal() as session:
                comparison_state.record_unit(session, comparison_id, index, summary, document, error)
        if error is not None:
            point, repetition = divmod(index, head.repetitions)
            _fail(comparison_id, f"run {index + 1} (sweep point {point}, repetition {repetition}) failed: {error}")
            return "failed"
        _next_unit(comparison_id, attempt)
        _aggregate_if_complete(comparison_id)
    except OperationalError as exc:  # the database went away: the reaper hands the unit out again
        log.warning("comparison %s unit %d: database unavailable (%s)", comparison_id, index, exc)
        return "database unavailable"
    return "done"


def _aggregate_if_complete(comparison_id: str) -> str | None:
    """If every unit of the running comparison is stored, aggregate their summaries (mean and
    95 % CI per point and strategy) into the result document and finish the comparison."""
    with SessionLocal() as session:
        row = session.get(Comparison, comparison_id)
        if row is None or row.status != comparison_state.RUNNING or row.units_done < row.units_total:
            return None
        repetitions, sweep = row.repetitions, row.sweep
        outcomes = comparison_state.units_of(session, comparison_id)
    if len(outcomes) < unit_count(SweepSpec(**sweep) if sweep else None, repetitions):
        return None
    spec = SweepSpec(**sweep) if sweep else None
    units = [Unit(o.index, *divmod(o.index, repetitions), None, {}) for o in outcomes]  # aggregate reads .point
    # unit 0's document crossed the database as JSON; it is validated again here
    document = ResultDocument.model_validate(
        {**outcomes[0].document, **aggregate(units, [o.summary for o in outcomes], spec)}
    )
    if not _finish(comparison_id, document):
        return _status(comparison_id)
    log.info("comparison %s: %d units aggregated", comparison_id, len(outcomes))
    return comparison_state.SUCCEEDED


@celery_app.task(name=AGGREGATE_UNITS_TASK, acks_late=True)
def aggregate_units(_results: Any, comparison_id: str) -> str | None:
    """Aggregate a comparison whose units are all stored (kept for messages queued by an older
    version, which ended sweeps with a chord callback)."""
    return _aggregate_if_complete(comparison_id)


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
    """Background ``POST /api/scenarios/{id}/routes``: the routes document (see :mod:`subflow.analysis.planning`);
    the job's progress is the node pairs done so far (``done``/``total``), written as they go."""
    from subflow.analysis.planning import RoutesRequest, routes_document

    job_id = self.request.id
    with liveness.running_job(job_id):
        return routes_document(_scenario_document(scenario_id, version), RoutesRequest(**request),
                               on_progress=lambda done, total: liveness.job_progress(job_id, done, total))


@celery_app.task(name=ALLOCATE_TASK, bind=True, acks_late=True, ignore_result=False)
def allocate(self: Task, scenario_id: str, version: int, request: dict[str, Any]) -> dict[str, Any]:
    """Background ``POST /api/scenarios/{id}/allocations``: the FDM allocation document."""
    from subflow.analysis.planning import AllocationRequest, allocation_document

    with liveness.running_job(self.request.id):
        return allocation_document(_scenario_document(scenario_id, version), AllocationRequest(**request))


@celery_app.task(name=FAILURES_TASK, bind=True, acks_late=True, ignore_result=False)
def analyse_failures(self: Task, scenario_id: str, version: int, request: dict[str, Any]) -> dict[str, Any]:
    """Background ``POST /api/scenarios/{id}/failures``: the failure analysis document
    (:mod:`subflow.analysis.failures`), reporting failures done / total as it goes."""
    from subflow.analysis.failures import FailureRequest, analyse_failures as analyse

    job_id = self.request.id
    with liveness.running_job(job_id):
        report = analyse(
            _scenario_document(scenario_id, version), FailureRequest(**request),
            max_cases=settings.MAX_FAILURE_CASES,
            on_progress=lambda done, total: (done == total or done % max(1, total // 100) == 0)
            and liveness.report_job(job_id, progress=done / total),
        )
        return report.model_dump(mode="json")


@celery_app.task(name=CAPACITY_TASK, bind=True, acks_late=True, ignore_result=False,
                 autoretry_for=(AgentUnavailable,), max_retries=settings.TASK_MAX_RETRIES,
                 retry_backoff=True)
def capacity_search(self: Task, scenario_id: str, version: int, request: dict[str, Any]) -> dict[str, Any]:
    """Background ``POST /api/scenarios/{id}/capacity-searches``: bisection over a scenario parameter
    (:func:`subflow.analysis.capacity.capacity_search`), each run on the emulator agent. Reports
    ``runs_done`` / ``runs_total`` (the bound ``max_steps`` × ``repetitions``) after each run.
    Only an unreachable agent (transient) is retried; a retry starts the search again."""
    from subflow.analysis.capacity import CapacityRequest, capacity_search as search, max_runs

    job_id = self.request.id
    body = CapacityRequest(**request)
    with _agent_client() as client, liveness.running_job(job_id):
        liveness.report_job(job_id, runs_done=0, runs_total=max_runs(body))
        result = search(
            _scenario_document(scenario_id, version), body, runner=lambda plan: client.run(plan),
            on_run=lambda done, bound: liveness.report_job(
                job_id, progress=min(1.0, done / bound), runs_done=done, runs_total=bound),
        )
        return result.model_dump(mode="json")
