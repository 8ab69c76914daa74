"""The reaper: no comparison stays ``queued`` or ``running`` forever because a process died.

Every worker process renews ``heartbeat_at`` of the comparisons it runs every
``HEARTBEAT_INTERVAL_S`` seconds (:mod:`subflow_worker.liveness`), whatever the run's
progress. :func:`reap` (run by every worker every ``REAPER_INTERVAL_S``; two reapers
racing are harmless: each change is a guarded transition of
:mod:`subflow_backend.comparison_state`) looks at the unfinished comparisons whose
heartbeat is older than ``STALE_AFTER_S``:

* ``running``, one run per strategy: its worker died (kill -9, out of memory, the
  machine) or lost the database mid-run. It is restarted: :func:`comparison_state.restart`
  (new ``attempt``, so the message of the old attempt, if the broker hands it out again,
  is dropped) and a new ``run_comparison`` message.
* ``running`` sweep (units handed out a few at a time): when the broker holds no waiting
  message (nothing queued can move it any more), the units handed out but never stored
  are handed out again (:func:`comparison_state.touch_units`); finished units are kept.
* ``queued``: its message was lost (the filesystem broker drops a message a killed worker
  had taken; an API killed between storing the row and sending the message). Restarted as
  above once the broker holds no waiting message, or after ``STALE_QUEUED_S`` in any case.

After ``REAPER_MAX_RESTARTS`` restarts a comparison fails with a reason naming the
bound. The worst case from a worker's death to the restart is ``STALE_AFTER_S +
REAPER_INTERVAL_S`` (plus a worker's start-up, if the only worker died).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from subflow_backend import comparison_state as cs
from subflow_backend.models import Comparison, ComparisonUnit, utcnow
from subflow_backend.queue import RUN_COMPARISON_TASK, RUN_UNIT_TASK
from subflow_backend.settings import Settings

log = logging.getLogger(__name__)

#: ``send(task_name, args)``: puts a message on the broker.
Send = Callable[[str, list], object]


def is_fanned_out(row: Comparison) -> bool:
    """True if the comparison runs as units (a sweep or repetitions)."""
    return row.sweep is not None or row.repetitions > 1


def _fail_exhausted(session: Session, row: Comparison, s: Settings) -> None:
    cs.fail(
        session, row.id,
        f"the worker running this comparison stopped {row.restarts + 1} times (the last sign of life was at "
        f"{row.heartbeat_at:%Y-%m-%d %H:%M:%S} UTC; REAPER_MAX_RESTARTS = {s.REAPER_MAX_RESTARTS}); see the "
        "worker's log, then run it again",
    )


def reap(session: Session, send: Send, pending: int | None, s: Settings) -> list[tuple[str, str]]:
    """Restart or fail the stale unfinished comparisons (see the module docstring).

    Parameters
    ----------
    session : Session
    send : callable
        ``send(task_name, args)`` puts a message on the broker.
    pending : int or None
        Messages waiting in the broker (:func:`subflow_backend.queue.pending_messages`);
        None if it could not be read (then only the ``STALE_QUEUED_S`` bound applies to
        queued comparisons and sweeps).
    s : Settings

    Returns
    -------
    list of (comparison id, action)
        ``action`` is ``"restarted"``, ``"units re-dispatched"`` or ``"failed"``.
    """
    now = utcnow()
    stale_before = now - timedelta(seconds=s.STALE_AFTER_S)
    hard_before = now - timedelta(seconds=s.STALE_QUEUED_S)
    rows = session.scalars(
        select(Comparison).where(
            Comparison.status.in_(sorted(cs.UNFINISHED)),
            or_(Comparison.heartbeat_at.is_(None), Comparison.heartbeat_at < stale_before),
        ).order_by(Comparison.created_at).limit(100).execution_options(populate_existing=True)
    ).all()
    actions: list[tuple[str, str]] = []
    for row in rows:
        waiting = row.status == cs.QUEUED or (is_fanned_out(row) and row.units_dispatched > 0)
        if waiting and pending != 0 and (row.heartbeat_at is not None and row.heartbeat_at >= hard_before):
            continue  # its messages may still be waiting behind others
        if row.restarts >= s.REAPER_MAX_RESTARTS:
            _fail_exhausted(session, row, s)
            actions.append((row.id, "failed"))
            continue
        if row.status == cs.RUNNING and is_fanned_out(row) and row.units_dispatched > 0:
            if not cs.touch_units(session, row.id, row.restarts):
                continue
            stored = set(session.scalars(select(ComparisonUnit.index).where(ComparisonUnit.comparison_id == row.id)))
            missing = [i for i in range(row.units_dispatched) if i not in stored]
            for index in missing:
                send(RUN_UNIT_TASK, [row.id, index, row.attempt])
            log.warning("comparison %s: no sign of life since %s; units %s handed out again",
                        row.id, row.heartbeat_at, missing)
            actions.append((row.id, "units re-dispatched"))
            continue
        if not cs.restart(session, row.id, row.attempt, stale_before):
            continue
        send(RUN_COMPARISON_TASK, [row.id, row.attempt + 1])
        log.warning("comparison %s (%s, attempt %d): no sign of life since %s; restarted as attempt %d",
                    row.id, row.status, row.attempt, row.heartbeat_at, row.attempt + 1)
        actions.append((row.id, "restarted"))
    return actions
