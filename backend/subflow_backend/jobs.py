"""Background jobs as the API sees them: each is recorded with its project and scenario when it is
queued (table ``background_job``), and its state and result are shown only to members of that
project (OWASP API Security Top 10 2023, API1 "Broken Object Level Authorization"): to anyone
else a job id reads as unknown (404), as the scenario itself does.
"""

from __future__ import annotations

import time
import uuid
from datetime import timedelta
from typing import Any

from celery import Celery
from celery.result import AsyncResult
from fastapi import HTTPException, Request, status
from sqlalchemy import delete
from sqlalchemy.orm import Session
from subflow.errors import QuotaExceeded

from subflow_backend import access, models
from subflow_backend.queue import result_expires_s, send_job
from subflow_backend.quotas import JobLedger, caller_key
from subflow_backend.settings import settings


def submit(session: Session, celery: Celery, task: str, scenario: models.Scenario, body: dict[str, Any]) -> str:
    """Record a job on ``scenario`` (its project) and queue ``task`` with ``[scenario id, version, body]``;
    returns the job id. The record is committed before the message is sent, so the worker's result
    never exists without it; records older than the result backend keeps results are dropped."""
    job_id = str(uuid.uuid4())
    # records whose result the backend has dropped (result_expires) go: their ids answer 404 then
    expired = models.utcnow() - timedelta(seconds=result_expires_s(settings))
    session.execute(delete(models.BackgroundJob).where(models.BackgroundJob.created_at < expired))
    session.add(models.BackgroundJob(id=job_id, project_id=scenario.project_id, scenario_id=scenario.id, task=task))
    session.commit()
    return send_job(celery, task, [scenario.id, scenario.version, body], job_id=job_id)


#: Celery states of a job that will not change any more.
_FINISHED_STATES = frozenset({"SUCCESS", "FAILURE", "REVOKED"})
_ledger: JobLedger | None = None


def _job_over(job_id: str, celery) -> bool:
    """Whether a job is finished, or its worker stopped renewing its heartbeat for ``STALE_AFTER_S``
    (the rule :func:`subflow_backend.api.routes.planning.job_state` reads a dead worker's job by)."""
    res = AsyncResult(job_id, app=celery)
    state = res.state
    if state in _FINISHED_STATES:
        return True
    beat = res.info.get("heartbeat") if state == "PROGRESS" and isinstance(res.info, dict) else None
    return isinstance(beat, (int, float)) and time.time() - beat > settings.STALE_AFTER_S


def submit_for_caller(request: Request, session: Session, celery: Celery, task: str, scenario: models.Scenario,
                      body: dict[str, Any]) -> str:
    """Queue a background job on ``scenario`` for the caller of ``request`` (recorded with its project:
    :func:`submit`) and return its id; 429 with ``Retry-After`` naming ``QUOTA_JOBS``
    if the caller (token or session) has that many jobs queued or running already."""
    global _ledger  # noqa: PLW0603 - made once, on the first job (the Redis client)
    if _ledger is None:
        _ledger = JobLedger(settings.quota_redis_url, settings.TASK_TIME_LIMIT_S * 2)
    caller = caller_key(request.scope)
    try:
        _ledger.check(caller, settings.QUOTA_JOBS, lambda job_id: _job_over(job_id, celery))
    except QuotaExceeded as exc:
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, str(exc),
                            headers={"Retry-After": str(exc.retry_after_s)}) from None
    job_id = submit(session, celery, task, scenario, body)
    _ledger.add(caller, job_id)
    return job_id


def visible(session: Session, user: models.User, job_id: str) -> models.BackgroundJob | None:
    """The job's record if ``user`` is a member of its project (admins: any), else None (absent or hidden)."""
    row = session.get(models.BackgroundJob, job_id)
    if row is None or access.role_in(session, user, row.project_id) is None:
        return None
    return row
