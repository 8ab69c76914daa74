"""Celery configuration shared by the API (producer) and the worker (consumer).

The API only *sends* tasks by name (``subflow.run_comparison``); the result
backend serves the chords that fan out sweeps and repetitions; the worker (``subflow_worker.celery_app``) extends this
configuration. With ``CELERY_BROKER_URL=filesystem://`` the broker is a folder
under ``$SUBFLOW_DATA_DIR/broker`` (created here), which both processes share.
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from subflow_backend.settings import Settings, settings

RUN_COMPARISON_TASK = "subflow.run_comparison"
RUN_UNIT_TASK = "subflow.run_unit"
AGGREGATE_UNITS_TASK = "subflow.aggregate_units"
ROUTES_TASK = "subflow.compute_routes"
ALLOCATE_TASK = "subflow.allocate"


def celery_config(s: Settings) -> dict[str, Any]:
    """Celery settings for broker ``s.CELERY_BROKER_URL`` (creates broker folders if needed)."""
    conf: dict[str, Any] = {
        "broker_url": s.CELERY_BROKER_URL,
        "task_serializer": "json",
        "accept_content": ["json"],
        "task_ignore_result": True,  # only the units of a sweep chord keep results
        "result_backend": s.CELERY_RESULT_BACKEND,
        "result_expires": 3600,
        "database_table_names": {"task": "celery_taskmeta", "group": "celery_groupmeta"},
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "broker_connection_retry_on_startup": True,
        "timezone": "UTC",
        "enable_utc": True,
    }
    if s.CELERY_BROKER_URL.startswith("filesystem://"):
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
            "polling_interval": 0.5,
        }
    elif s.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        # an unacknowledged (acks_late) task is redelivered after this; keep it above the hard limit
        conf["broker_transport_options"] = {"visibility_timeout": max(3600, int(s.TASK_TIME_LIMIT_S) + 600)}
    return conf


def make_celery(s: Settings = settings, main: str = "subflow") -> Celery:
    """A Celery app configured from ``s`` (producer side)."""
    app = Celery(main)
    app.conf.update(celery_config(s))
    return app


celery_app = make_celery()
