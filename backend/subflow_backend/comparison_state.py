"""The life of a comparison: its states and the only transitions between them.

Every change of a comparison's ``status`` (and of the fields that go with it:
``progress``, ``units_done``, ``error``, ``result``, the timestamps) goes
through this module, used by the API (:mod:`subflow_backend.crud`, the
server-sent events route) and the worker (:mod:`subflow_worker.tasks`)::

    queued ──claim──▶ running ──succeed──▶ succeeded
      ▲                 │ ▲
      └────requeue──────┘ └─claim (redelivered task)
    queued, running ──fail───▶ failed
    queued, running ──cancel─▶ cancelled

``succeeded``, ``failed`` and ``cancelled`` are final. Each transition is one
conditional ``UPDATE ... WHERE id = :id AND status IN (:sources)``, so two
processes racing on a row cannot undo each other: a user's cancel is never
overwritten by the worker's claim, retry, progress, failure or result, and a
cancel never overwrites a stored result. A transition function returns True
if it changed the row and False if the row is gone or was not in a source
state (nothing is written then).

The database refuses any other status (check constraint ``ck_comparison_status``
in :mod:`subflow_backend.models` and the migrations).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from sqlalchemy import case, func, update
from sqlalchemy.orm import Session

from subflow_backend.models import Comparison, utcnow

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


def _apply(session: Session, comparison_id: str, transition: str, **values: Any) -> bool:
    sources, target = TRANSITIONS[transition]
    if target is not None:
        values["status"] = target
    changed = session.execute(
        update(Comparison)
        .where(Comparison.id == comparison_id, Comparison.status.in_(sorted(sources)))
        .values(**values)
        .execution_options(synchronize_session=False)
    ).rowcount
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


def claim(session: Session, comparison_id: str) -> bool:
    """queued/running → running, with progress, ``units_done`` and ``error`` reset and
    ``started_at`` set on the first claim (a redelivered task claims again)."""
    return _apply(
        session, comparison_id, "claim",
        progress=0.0, units_done=0, error=None, started_at=func.coalesce(Comparison.started_at, utcnow()),
    )


def requeue(session: Session, comparison_id: str) -> bool:
    """running → queued with progress 0 (the worker retries later, e.g. while the agent is down)."""
    return _apply(session, comparison_id, "requeue", progress=0.0)


def report_progress(session: Session, comparison_id: str, fraction: float) -> bool:
    """Store ``progress`` (``fraction`` clipped to [0, 1]) of a running comparison."""
    return _apply(session, comparison_id, "progress", progress=min(1.0, max(0.0, fraction)))


def set_units_total(session: Session, comparison_id: str, units_total: int) -> bool:
    """Store how many units (sweep point × repetition) a running comparison has."""
    return _apply(session, comparison_id, "units_total", units_total=units_total)


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


def succeed(session: Session, comparison_id: str, document: dict[str, Any]) -> bool:
    """running → succeeded with the result ``document``, progress 1 and a finish time."""
    return _apply(
        session, comparison_id, "succeed", progress=1.0, result=document, error=None, finished_at=utcnow()
    )


def fail(session: Session, comparison_id: str, error: str) -> bool:
    """queued/running → failed with ``error`` (a readable reason) and a finish time."""
    return _apply(session, comparison_id, "fail", error=error, finished_at=utcnow())


def cancel(session: Session, comparison_id: str) -> bool:
    """queued/running → cancelled (the worker drops its remaining runs at its next check)."""
    return _apply(session, comparison_id, "cancel", error=CANCELLED_BY_USER, finished_at=utcnow())
