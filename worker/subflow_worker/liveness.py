"""Heartbeats and the reaper, in every worker process.

A daemon thread per process (started by the first task it runs, and at worker start-up)
renews every ``HEARTBEAT_INTERVAL_S`` seconds the heartbeat of what the process is running
right now: ``heartbeat_at`` of its comparisons (:func:`subflow_backend.comparison_state.heartbeat`)
and the ``PROGRESS`` meta of its planning jobs in the result backend (``{"progress",
"done", "total", "heartbeat": unix time}`` plus what the job reported with :func:`report_job`, e.g.
``runs_done`` / ``runs_total``), read by ``GET /api/jobs/{id}``). Every ``REAPER_INTERVAL_S`` it runs
:func:`subflow_backend.reaper.reap`. The thread outlives a database or broker outage (it logs
and tries again); the process dying stops its heartbeats, which is what the reaper sees.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from celery.signals import worker_ready

from subflow_backend import comparison_state
from subflow_backend.db import SessionLocal
from subflow_backend.queue import pending_messages
from subflow_backend.reaper import reap
from subflow_backend.settings import settings
from subflow_worker.celery_app import celery_app

log = logging.getLogger(__name__)

_lock = threading.Lock()
_comparisons: Counter[str] = Counter()
_jobs: dict[str, dict[str, float | int | None]] = {}  # job id -> its progress meta (progress, done, total, runs_*)
_thread_pid: int | None = None


@contextmanager
def running_comparison(comparison_id: str) -> Iterator[None]:
    """Keep renewing the comparison's heartbeat while the block runs."""
    ensure_started()
    with _lock:
        _comparisons[comparison_id] += 1
    try:
        yield
    finally:
        with _lock:
            _comparisons[comparison_id] -= 1
            if _comparisons[comparison_id] <= 0:
                del _comparisons[comparison_id]


@contextmanager
def running_job(job_id: str) -> Iterator[None]:
    """Keep renewing a planning job's heartbeat (its ``PROGRESS`` state) while the block runs."""
    ensure_started()
    meta: dict[str, float | int | None] = {"progress": 0.0, "done": None, "total": None}
    with _lock:
        _jobs[job_id] = meta
        _store_job_heartbeat(job_id, dict(meta))
    try:
        yield
    finally:
        with _lock:
            _jobs.pop(job_id, None)


def report_job(job_id: str, **meta: float | int) -> None:
    """Record a running job's progress (``progress`` 0–1, ``runs_done``, ``runs_total``) and store it
    at once with a fresh heartbeat; later heartbeats keep it."""
    with _lock:
        current = _jobs.get(job_id)
        if current is None:
            return
        current.update(meta)
        _store_job_heartbeat(job_id, dict(current))  # under the lock, as in :func:`job_progress`


#: Least time between two progress writes of one planning job, seconds.
PROGRESS_WRITE_S = 0.25
_last_write: dict[str, float] = {}


def job_progress(job_id: str, done: int, total: int) -> None:
    """Record that a running planning job has done ``done`` of ``total`` items (node pairs); written
    to the result backend at most every :data:`PROGRESS_WRITE_S` seconds, and always at the end."""
    with _lock:
        meta = _jobs.get(job_id)
        if meta is None:
            return
        meta.update(progress=done / total if total else 1.0, done=done, total=total)
        now = time.monotonic()
        if done >= total or now - _last_write.get(job_id, 0.0) >= PROGRESS_WRITE_S:
            # written under the lock, so that an older snapshot (heartbeat thread) never lands after it
            _last_write[job_id] = now
            _store_job_heartbeat(job_id, dict(meta))
            if done >= total:
                _last_write.pop(job_id, None)


def _store_job_heartbeat(job_id: str, meta: dict[str, float | int | None]) -> None:
    celery_app.backend.store_result(job_id, {**meta, "heartbeat": time.time()}, "PROGRESS")


def beat() -> None:
    """Renew the heartbeats of everything this process runs now (one round)."""
    with _lock:
        comparisons, jobs = list(_comparisons), list(_jobs)
    if comparisons:
        with SessionLocal() as session:
            comparison_state.heartbeat(session, comparisons)
    for job_id in jobs:
        # under the lock: a job that finished meanwhile (removed by running_job) gets no PROGRESS
        # written over its result
        with _lock:
            meta = _jobs.get(job_id)
            if meta is not None:
                _store_job_heartbeat(job_id, dict(meta))


def reap_once() -> list[tuple[str, str]]:
    """One round of :func:`subflow_backend.reaper.reap` with this worker's broker."""
    try:
        pending: int | None = pending_messages(settings)
    except Exception as exc:  # broker unreadable now: only the hard bound applies
        log.warning("reaper: cannot count waiting messages (%s)", exc)
        pending = None
    with SessionLocal() as session:
        return reap(session, lambda name, args: celery_app.send_task(name, args=args), pending, settings)


def _loop() -> None:
    next_reap = time.monotonic() + settings.REAPER_INTERVAL_S * 0.5
    while True:
        time.sleep(settings.HEARTBEAT_INTERVAL_S)
        try:
            beat()
        except Exception as exc:  # database or backend down: try again next round
            log.warning("heartbeat failed: %s", exc)
        if time.monotonic() >= next_reap:
            next_reap = time.monotonic() + settings.REAPER_INTERVAL_S
            try:
                reap_once()
            except Exception as exc:
                log.warning("reaper round failed: %s", exc)


def ensure_started() -> None:
    """Start this process's heartbeat thread if it is not running (after a fork, a new one)."""
    global _thread_pid
    with _lock:
        if _thread_pid == os.getpid():
            return
        _thread_pid = os.getpid()
    threading.Thread(target=_loop, name="subflow-liveness", daemon=True).start()


@worker_ready.connect
def _start_when_the_worker_is_ready(**_: object) -> None:
    """Heartbeats and the reaper from the moment the worker is up (this module is imported with the worker's
    tasks, :mod:`subflow_worker.tasks`, before the worker is ready)."""
    ensure_started()
