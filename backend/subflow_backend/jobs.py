"""Background jobs as the API sees them: each is recorded with its project and scenario when it is
queued (table ``background_job``), and its state and result are shown only to members of that
project (OWASP API Security Top 10 2023, API1 "Broken Object Level Authorization"): to anyone
else a job id reads as unknown (404), as the scenario itself does.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from celery import Celery
from sqlalchemy import delete
from sqlalchemy.orm import Session

from subflow_backend import access, models
from subflow_backend.queue import result_expires_s, send_job
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


def visible(session: Session, user: models.User, job_id: str) -> models.BackgroundJob | None:
    """The job's record if ``user`` is a member of its project (admins: any), else None (absent or hidden)."""
    row = session.get(models.BackgroundJob, job_id)
    if row is None or access.role_in(session, user, row.project_id) is None:
        return None
    return row
