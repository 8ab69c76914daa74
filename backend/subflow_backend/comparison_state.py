"""The life of a comparison: its states and the only transitions between them.

Every change of a comparison's ``status`` (and of the fields that go with it:
``progress``, ``units_done``, ``error``, ``result``, the timestamps) goes
through this module, used by the API (:mod:`subflow_backend.crud`, the
server-sent events route) and the worker (:mod:`subflow_worker.tasks`)::

    queued ──claim──▶ running ──succeed──▶ succeeded
      ▲                 │ ▲
      └──requeue/restart┘ └─claim (redelivered task whose worker went quiet)
    queued, running ──fail───▶ failed
    queued, running ──cancel─▶ cancelled

``succeeded``, ``failed`` and ``cancelled`` are final. Each transition is one
conditional ``UPDATE ... WHERE id = :id AND status IN (:sources)``, so two
processes racing on a row cannot undo each other: a user's cancel is never
overwritten by the worker's claim, retry, progress, failure or result, and a
cancel never overwrites a stored result. A transition function returns True
if it changed the row and False if the row is gone or was not in a source
state (nothing is written then).

Dead processes: the worker running a comparison writes ``heartbeat_at`` every few
seconds (:func:`heartbeat`); the reaper (:mod:`subflow_backend.reaper`) restarts a
comparison whose heartbeat went stale (:func:`restart`: a new ``attempt``, so a
message of the old attempt is dropped) and fails it with a reason after
``REAPER_MAX_RESTARTS`` restarts. The units of a sweep are dispatched a few at a
time (:func:`next_unit`) and their outcomes stored once each (:func:`record_unit`).

The database refuses any other status (check constraint ``ck_comparison_status``
in :mod:`subflow_backend.models` and the migrations).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import case, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from subflow_backend.models import Comparison, ComparisonUnit, utcnow

Status = Literal["queued", "running", "succeeded", "failed", "cancelled"]

QUEUED: Status = "queued"
RUNNING: Status = "running"
SUCCEEDED: Status = "succeeded"
FAILED: Status = "failed"
CANCELLED: Status = "cancelled"

#: Every status, in lifecycle order.
STATES: tuple[Status, ...] = get_args(Status)
#: Statuses from which the comparison can still change.
UNFINISHED: frozenset[str] = frozenset({QUEUED, RUNNING})
#: Final statuses: nothing changes a comparison once it has one.
FINISHED: frozenset[str] = frozenset({SUCCEEDED, FAILED, CANCELLED})

#: The message stored in ``error`` when a user cancels.
CANCELLED_BY_USER = "cancelled by the user"

#: transition name -> (statuses it applies to, status it sets; None keeps the status)
TRANSITIONS: dict[str, tuple[frozenset[str], Status | None]] = {
    "claim": (UNFINISHED, RUNNING),
    "requeue": (frozenset({RUNNING}), QUEUED),
    "restart": (UNFINISHED, QUEUED),
    "heartbeat": (frozenset({RUNNING}), None),
    "unit_dispatch": (frozenset({RUNNING}), None),
    "progress": (frozenset({RUNNING}), None),
    "units_total": (frozenset({RUNNING}), None),
    "unit_done": (frozenset({RUNNING}), None),
    "succeed": (frozenset({RUNNING}), SUCCEEDED),
    "fail": (UNFINISHED, FAILED),
    "cancel": (UNFINISHED, CANCELLED),
}


def is_finished(status: str) -> bool:
    """True if ``status`` is final (``succeeded``, ``failed`` or ``cancelled``)."""
    return status in FINISHED


def allowed(transition: str, status: str) -> bool:
    """True if ``transition`` (a key of :data:`TRANSITIONS`) applies to a comparison in ``status``."""
    return status in TRANSITIONS[transition][0]


def _apply(session: Session, comparison_id: str, transition: str, *where: Any, rows: Sequence[Any] = (),
           **values: Any) -> bool:
    """The guarded UPDATE of ``transition``; ``rows`` (new ORM objects) are added in its transaction only when
    the transition happened."""
    sources, target = TRANSITIONS[transition]
    if target is not None:
        values["status"] = target
    changed = session.execute(
        update(Comparison)
        .where(Comparison.id == comparison_id, Comparison.status.in_(sorted(sources)), *where)
        .values(**values)
        .execution_options(synchronize_session=False)
    ).rowcount
    if changed and rows:
        session.add_all(rows)
    session.commit()
    return changed > 0


def status_of(session: Session, comparison_id: str) -> str | None:
    """The stored status of the comparison, or None if it does not exist (read afresh)."""
    session.expire_all()
    row = session.get(Comparison, comparison_id)
    return None if row is None else row.status


def new_comparison(**fields: Any) -> Comparison:
    """A new ``queued`` comparison row (progress 0, no unit done) with ``fields``; not yet added."""
    return Comparison(status=QUEUED, progress=0.0, units_done=0, **fields)


def claim(session: Session, comparison_id: str, attempt: int | None = None,
          stale_before: datetime | None = None) -> bool:
    """queued/running → running, with progress, ``units_done`` and ``error`` reset,
    ``started_at`` set on the first claim and the heartbeat renewed.

    ``attempt``: claim only if the row's ``attempt`` is this (a message of an older attempt
    is dropped). ``stale_before``: a ``running`` row is claimed again (a redelivered task)
    only if its heartbeat is older than this, so a live worker's run is not taken over.
    """
    where = []
    if attempt is not None:
        where.append(Comparison.attempt == attempt)
    if stale_before is not None:
        where.append(or_(Comparison.status == QUEUED, Comparison.heartbeat_at.is_(None),
                         Comparison.heartbeat_at < stale_before))
    return _apply(
        session, comparison_id, "claim", *where,
        progress=0.0, units_done=0, units_dispatched=0, error=None, heartbeat_at=utcnow(),
        started_at=func.coalesce(Comparison.started_at, utcnow()),
    )


def restart(session: Session, comparison_id: str, attempt: int, stale_before: datetime) -> bool:
    """queued/running → queued with ``attempt`` + 1 and ``restarts`` + 1 (the reaper, after the
    worker running attempt ``attempt`` went quiet: no heartbeat since ``stale_before``); False if
    another process got there first (a claim, a heartbeat, another reaper)."""
    return _apply(
        session, comparison_id, "restart", Comparison.attempt == attempt,
        or_(Comparison.heartbeat_at.is_(None), Comparison.heartbeat_at < stale_before),
        attempt=attempt + 1, restarts=Comparison.restarts + 1, progress=0.0, heartbeat_at=utcnow(),
    )


def heartbeat(session: Session, comparison_ids: Iterable[str]) -> int:
    """Renew ``heartbeat_at`` of those of ``comparison_ids`` that are running; returns how many."""
    ids = sorted(set(comparison_ids))
    if not ids:
        return 0
    changed = session.execute(
        update(Comparison)
        .where(Comparison.id.in_(ids), Comparison.status == RUNNING)
        .values(heartbeat_at=utcnow())
        .execution_options(synchronize_session=False)
    ).rowcount
    session.commit()
    return changed


def touch_units(session: Session, comparison_id: str, restarts: int) -> bool:
    """Renew the heartbeat of a running sweep and count one more restart (``restarts`` was read
    by the reaper, which then hands out again the units that never finished); False if another
    reaper got there first."""
    return _apply(session, comparison_id, "heartbeat", Comparison.restarts == restarts,
                  heartbeat_at=utcnow(), restarts=Comparison.restarts + 1)


def next_unit(session: Session, comparison_id: str, attempt: int) -> int | None:
    """Hand out the next unit index of a running sweep (``units_dispatched`` + 1), or None when
    every unit was handed out, the comparison is no longer running (a cancel stops the sweep
    here) or belongs to another attempt."""
    index = session.execute(
        update(Comparison)
        .where(Comparison.id == comparison_id, Comparison.status == RUNNING, Comparison.attempt == attempt,
               Comparison.units_dispatched < Comparison.units_total)
        .values(units_dispatched=Comparison.units_dispatched + 1)
        .returning(Comparison.units_dispatched)
        .execution_options(synchronize_session=False)
    ).scalar_one_or_none()
    session.commit()
    return None if index is None else index - 1


def record_unit(session: Session, comparison_id: str, index: int, summary: dict[str, Any] | None,
                document: dict[str, Any] | None, error: str | None) -> bool:
    """Store unit ``index``'s outcome once (a second delivery's insert is refused: False) and set
    ``units_done`` / ``progress`` from the stored outcomes."""
    session.add(ComparisonUnit(comparison_id=comparison_id, index=index, summary=summary,
                               document=document, error=error))
    try:
        session.commit()
    except IntegrityError:  # already stored by an earlier delivery, or the comparison is gone
        session.rollback()
        return False
    done = select(func.count()).select_from(ComparisonUnit).where(
        ComparisonUnit.comparison_id == comparison_id).scalar_subquery()
    _apply(session, comparison_id, "unit_done", units_done=done,
           progress=case((done >= Comparison.units_total, 1.0), else_=done * 1.0 / Comparison.units_total),
           heartbeat_at=utcnow())
    return True


def units_of(session: Session, comparison_id: str) -> list[ComparisonUnit]:
    """The stored unit outcomes of a comparison, by index."""
    return list(session.scalars(select(ComparisonUnit).where(ComparisonUnit.comparison_id == comparison_id)
                                .order_by(ComparisonUnit.index)))


def requeue(session: Session, comparison_id: str) -> bool:
    """running → queued with progress 0 (the worker retries later, e.g. while the agent is down)."""
    return _apply(session, comparison_id, "requeue", progress=0.0)


def report_progress(session: Session, comparison_id: str, fraction: float) -> bool:
    """Store ``progress`` (``fraction`` clipped to [0, 1]) of a running comparison."""
    return _apply(session, comparison_id, "progress", progress=min(1.0, max(0.0, fraction)))


def set_units_total(session: Session, comparison_id: str, units_total: int, attempt: int | None = None) -> bool:
    """Store how many units (sweep point × repetition) a running comparison has (none handed out yet)."""
    where = [] if attempt is None else [Comparison.attempt == attempt]
    return _apply(session, comparison_id, "units_total", *where, units_total=units_total, units_dispatched=0)


def unit_done(session: Session, comparison_id: str) -> bool:
    """Count one more finished unit of a running comparison; progress = done / total."""
    return _apply(
        session, comparison_id, "unit_done",
        units_done=Comparison.units_done + 1,
        progress=case(
            (Comparison.units_done + 1 >= Comparison.units_total, 1.0),
            else_=(Comparison.units_done + 1) * 1.0 / Comparison.units_total,
        ),
    )


def succeed(session: Session, comparison_id: str, document: dict[str, Any], captures: Sequence[Any] = ()) -> bool:
    """running → succeeded with the result ``document``, progress 1 and a finish time; ``captures``
    (:class:`~subflow_backend.models.PacketCapture` rows of the run) are stored in the same transaction, only
    when the comparison was still running (a cancel that came first keeps none)."""
    return _apply(
        session, comparison_id, "succeed", rows=captures, progress=1.0, result=document, error=None,
        finished_at=utcnow()
    )


def fail(session: Session, comparison_id: str, error: str) -> bool:
    """queued/running → failed with ``error`` (a readable reason) and a finish time."""
    return _apply(session, comparison_id, "fail", error=error, finished_at=utcnow())


def cancel(session: Session, comparison_id: str) -> bool:
    """queued/running → cancelled (the worker drops its remaining runs at its next check)."""
    return _apply(session, comparison_id, "cancel", error=CANCELLED_BY_USER, finished_at=utcnow())
