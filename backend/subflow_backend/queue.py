"""Celery configuration shared by the API (producer) and the worker (consumer).

The API only *sends* tasks by name (``subflow.run_comparison``); the result
backend keeps the state of background planning jobs; the worker (``subflow_worker.celery_app``) extends this
configuration. With ``CELERY_BROKER_URL=filesystem://`` the broker is a folder
under ``$SUBFLOW_DATA_DIR/broker`` (created here), which both processes share.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from celery import Celery
from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

from subflow_backend.settings import Settings, settings

RUN_COMPARISON_TASK = "subflow.run_comparison"
RUN_UNIT_TASK = "subflow.run_unit"
AGGREGATE_UNITS_TASK = "subflow.aggregate_units"
ROUTES_TASK = "subflow.compute_routes"
ALLOCATE_TASK = "subflow.allocate"
FAILURES_TASK = "subflow.analyse_failures"
CAPACITY_TASK = "subflow.capacity_search"


def send_job(celery: Celery, task: str, args: list[Any], job_id: str | None = None) -> str:
    """Queue a background job and return its id (``job_id``, or a new UUID). The job is recorded as
    ``RECEIVED`` in the result backend before the message is sent (so the worker's later states always
    follow it). Its project is recorded by :func:`subflow_backend.jobs.submit`, the API's way in."""
    job_id = job_id or str(uuid.uuid4())
    celery.backend.store_result(job_id, {"progress": 0.0}, "RECEIVED")
    celery.send_task(task, args=args, task_id=job_id)
    return job_id


class _AtomicFilesystemChannel(filesystem.Channel):
    """kombu's filesystem channel, but a message file appears in the queue folder only once it is
    complete: written under a name no consumer picks (``….msg.part``), then renamed. (kombu
    creates the final file and then writes into it, so a consumer polling often can take an empty
    file and the message is lost.)"""

    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        name = f"{int(round(time.monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        part = final + ".part"
        try:
            with open(part, "wb", buffering=0) as fh:
                fh.write(str_to_bytes(dumps(payload)))
            os.replace(part, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class AtomicFilesystemTransport(filesystem.Transport):
    """The ``filesystem://`` broker with whole-file message delivery (see the channel)."""

    Channel = _AtomicFilesystemChannel


def celery_config(s: Settings) -> dict[str, Any]:
    """Celery settings for broker ``s.CELERY_BROKER_URL`` (creates broker folders if needed)."""
    conf: dict[str, Any] = {
        "broker_url": s.CELERY_BROKER_URL,
        "task_serializer": "json",
        "accept_content": ["json"],
        "task_ignore_result": True,  # only background planning jobs keep results
        "result_backend": s.CELERY_RESULT_BACKEND,
        # results (planning jobs) outlive any redelivery: a day, and at least twice the visibility timeout
        "result_expires": result_expires_s(s),
        "database_table_names": {"task": "celery_taskmeta", "group": "celery_groupmeta"},
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "broker_connection_retry_on_startup": True,
        "timezone": "UTC",
        "enable_utc": True,
    }
    if s.CELERY_BROKER_URL.startswith("filesystem://"):
        conf["broker_transport"] = "subflow_backend.queue:AtomicFilesystemTransport"
        queue = s.broker_dir / "queue"
        processed = s.broker_dir / "processed"
        control = s.broker_dir / "control"
        for folder in (queue, processed, control):
            folder.mkdir(parents=True, exist_ok=True)
        conf["broker_transport_options"] = {
            "data_folder_in": str(queue),
            "data_folder_out": str(queue),
            "processed_folder": str(processed),
            "store_processed": False,
            "control_folder": str(control),
            "polling_interval": s.BROKER_POLL_INTERVAL_S,
        }
    elif s.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        # an unacknowledged (acks_late) task is redelivered after this; keep it above the hard limit
        conf["broker_transport_options"] = {"visibility_timeout": visibility_timeout(s)}
    return conf


def result_expires_s(s: Settings) -> int:
    """Seconds a background job's result is kept: a day, and at least twice the visibility timeout."""
    return max(86400, 2 * visibility_timeout(s))


def visibility_timeout(s: Settings) -> int:
    """Seconds after which Redis hands an unacknowledged (``acks_late``) message out again:
    above the hard time limit, so a task still running is never run twice; a run whose worker
    died is restarted sooner by the reaper (:mod:`subflow_backend.reaper`)."""
    return max(3600, int(s.TASK_TIME_LIMIT_S) + 600)


def pending_messages(s: Settings = settings, queue: str = "celery") -> int:
    """Messages waiting in the broker's ``queue`` (not those a worker holds): the files in the
    filesystem broker's folder, or the Redis list's length. Raises OSError / redis errors if the
    broker cannot be read."""
    if s.CELERY_BROKER_URL.startswith("filesystem://"):
        folder = s.broker_dir / "queue"
        return sum(1 for name in os.listdir(folder) if name.endswith(f".{queue}.msg"))
    if s.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        import redis

        client = redis.Redis.from_url(s.CELERY_BROKER_URL, socket_timeout=5, socket_connect_timeout=5)
        try:
            return int(client.llen(queue))
        finally:
            client.close()
    raise ValueError(f"cannot count the messages of broker {s.CELERY_BROKER_URL.split(':', 1)[0]}")


def make_celery(s: Settings = settings, main: str = "subflow") -> Celery:
    """A Celery app configured from ``s`` (producer side)."""
    app = Celery(main)
    app.conf.update(celery_config(s))
    return app


celery_app = make_celery()
