"""The Celery application of the worker.

Run: ``celery -A subflow_worker.celery_app worker --loglevel=INFO``
(``--pool=solo`` or ``--concurrency=N``). Configuration comes from the backend
settings (:mod:`subflow_backend.queue`): broker ``CELERY_BROKER_URL``
(``filesystem://`` folders under ``$SUBFLOW_DATA_DIR/broker`` by default),
late acknowledgement (a message is acknowledged when its task ends, and handed out again if the
worker process is lost), prefetch 1, heartbeats and the reaper (:mod:`subflow_worker.liveness`), the result backend for background planning jobs
(``CELERY_RESULT_BACKEND``, also read by background planning jobs), per-task time limits
``TASK_SOFT_TIME_LIMIT_S`` / ``TASK_TIME_LIMIT_S``.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery
from celery.signals import worker_process_init

from subflow_backend.queue import celery_config
from subflow_backend.settings import settings

celery_app = Celery("subflow_worker")
celery_app.conf.update(celery_config(settings))
celery_app.conf.update(
    task_soft_time_limit=settings.TASK_SOFT_TIME_LIMIT_S,
    task_time_limit=settings.TASK_TIME_LIMIT_S,
    worker_hijack_root_logger=True,
    worker_send_task_events=False,
)
if settings.CELERY_BROKER_URL.startswith("filesystem://"):
    # the filesystem transport has no fan-out exchange for remote control / events
    celery_app.conf.update(worker_enable_remote_control=False)
celery_app.conf.include = ["subflow_worker.tasks"]
app = celery_app

from subflow_worker import observability  # noqa: E402,F401  (JSON logs with task and comparison ids)

# one line per agent poll is noise at INFO
logging.getLogger("httpx").setLevel(logging.WARNING)


@worker_process_init.connect
def _fresh_db_pool(**_: Any) -> None:
    """A forked pool process must not reuse the parent's database connections."""
    from subflow_backend.db import engine

    engine.dispose(close=False)
