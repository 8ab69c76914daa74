"""Shared FastAPI dependencies as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated

from celery import Celery
from fastapi import Depends, HTTPException, status
from sqlalchemy.orm import Session

from subflow_backend import crud, models
from subflow_backend.db import get_session
from subflow_backend.queue import celery_app


def get_celery() -> Celery:
    """The Celery producer used to enqueue tasks."""
    return celery_app


SessionDep = Annotated[Session, Depends(get_session)]
CeleryDep = Annotated[Celery, Depends(get_celery)]


def get_scenario_or_404(scenario_id: str, session: SessionDep) -> models.Scenario:
    """The scenario named by the ``scenario_id`` path parameter; 404 if absent."""
    row = crud.get_scenario(session, scenario_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"scenario {scenario_id!r} not found")
    return row


ScenarioDep = Annotated[models.Scenario, Depends(get_scenario_or_404)]
