"""Structured logs of the worker (see :mod:`subflow.service.observability`).

Celery leaves logging to :func:`subflow.service.observability.configure_logging` (``setup_logging``
signal), so every line is JSON with ``service: "worker"``. While a task runs, its lines carry
``task`` (name), ``task_id``, the ``comparison_id`` it works on (comparison tasks) and the
``request_id`` of the API request that queued it (a message header, set by the backend's
``before_task_publish`` handler and, for the units of a sweep, by this process's own); the agent
client sends the ids on to the agent.
"""

from __future__ import annotations

from typing import Any

import structlog
from celery.signals import before_task_publish, setup_logging, task_postrun, task_prerun

from subflow.service.observability import configure_logging, current_ids, request_id_from

from subflow_backend.queue import AGGREGATE_UNITS_TASK, RUN_COMPARISON_TASK, RUN_UNIT_TASK

#: Task name → where its comparison id is among the positional arguments.
COMPARISON_ARG = {RUN_COMPARISON_TASK: 0, RUN_UNIT_TASK: 0, AGGREGATE_UNITS_TASK: -1}


@setup_logging.connect
def _logging(**_: Any) -> None:
    configure_logging("worker")


def _comparison_id(task: Any, args: Any, kwargs: Any) -> str | None:
    if kwargs and "comparison_id" in kwargs:
        return str(kwargs["comparison_id"])
    position = COMPARISON_ARG.get(getattr(task, "name", ""))
    if position is None or not args:
        return None
    try:
        return str(args[position])
    except IndexError:
        return None


@task_prerun.connect
def _bind(task_id: str | None = None, task: Any = None, args: Any = None, kwargs: Any = None, **_: Any) -> None:
    """Bind the task's ids to the logging context of the process (or thread) running it."""
    structlog.contextvars.clear_contextvars()
    ids: dict[str, str] = {"task": getattr(task, "name", "?"), "task_id": str(task_id)}
    header = getattr(getattr(task, "request", None), "request_id", None)
    if header:
        ids["request_id"] = request_id_from(str(header))
    comparison_id = _comparison_id(task, args, kwargs)
    if comparison_id:
        ids["comparison_id"] = comparison_id
    structlog.contextvars.bind_contextvars(**ids)


@task_postrun.connect
def _unbind(**_: Any) -> None:
    structlog.contextvars.clear_contextvars()


@before_task_publish.connect
def _publish_ids(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """Tasks sent by a task (a sweep's units and its callback) carry the request id on."""
    if headers is not None and "request_id" in current_ids():
        headers.setdefault("request_id", current_ids()["request_id"])
