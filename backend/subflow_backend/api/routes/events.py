"""``/api/scenarios/{id}/comparisons/{cid}/events``: a comparison's progress as server-sent events.

The browser opens one ``EventSource`` and is told whenever ``status``,
``progress`` or ``error`` change, instead of polling the REST resource. The
server reads the row (a cheap primary-key read in a short session of its own: an
idle stream holds no database connection; one read per tick for all the streams of a comparison in
the process, :mod:`subflow_backend.stream_hub`) every :data:`FIRST_POLL_S` at first,
backing off by half each read to :data:`POLL_INTERVAL_S` and returning to the
fast pace at every change, so a quick comparison's end is told within tens of
milliseconds; the stream ends after the event that reports a finished status
(``succeeded``, ``failed``, ``cancelled``).

Each message is ``data: {"status", "progress", "error", "units_done", "units_total"}`` (units:
sweep point × repetition, each running every strategy); a comment line
(``: keep-alive``) is sent every :data:`KEEPALIVE_S` seconds of silence so
that proxies keep the connection open.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import aclosing
from typing import TypeVar

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import StreamingResponse

from subflow_backend import comparison_state, crud
from subflow_backend.api.deps import ScenarioDep, SessionDep
from subflow_backend.db import SessionLocal
from subflow_backend.schemas import ComparisonProgress
from subflow_backend.stream_hub import hub

T = TypeVar("T")

router = APIRouter(prefix="/scenarios/{scenario_id}/comparisons", tags=["comparisons"])


class EventStreamResponse(StreamingResponse):
    """A ``text/event-stream`` response (so OpenAPI files the message schema under that type)."""

    media_type = "text/event-stream"

#: Longest wait between two reads of the comparison row, seconds.
POLL_INTERVAL_S = 0.5
#: Wait after the stream opens and after each change, seconds (grows ×1.5 per read without change).
FIRST_POLL_S = 0.02
#: Seconds of silence after which a keep-alive comment is sent.
KEEPALIVE_S = 15.0


def _state(scenario_id: str, comparison_id: str) -> ComparisonProgress | None:
    """``{status, progress, error}`` of the comparison now, or None if it is gone."""
    with SessionLocal() as session:
        row = crud.get_comparison(session, scenario_id, comparison_id)
        if row is None:
            return None
        return ComparisonProgress(status=row.status, progress=row.progress, error=row.error,
                                  units_done=row.units_done, units_total=row.units_total)


def _message(state: ComparisonProgress) -> str:
    return f"data: {state.model_dump_json()}\n\n"


async def poll_events(
    request: Request, key: Hashable, read: Callable[[], T | None], message: Callable[[T], str],
    finished: Callable[[T], bool], gone: Callable[[T | None], str], poll_s: float, first_poll_s: float,
) -> AsyncIterator[str]:
    """The SSE stream of a polled state: ``retry``, then ``message(state)`` for the first state and each
    change, until ``finished(state)``; ``gone(last)`` once if ``read()`` returns None; a keep-alive
    comment after :data:`KEEPALIVE_S` of silence; ends when the client goes. Every stream of the same
    ``key`` in this process shares one poller (:class:`subflow_backend.stream_hub.StreamHub`): ``read``
    runs in the threadpool (it may touch the database) once per tick whatever the number of streams; the
    wait between reads starts at ``first_poll_s`` after each change and grows ×1.5 up to ``poll_s`` (seconds)."""
    yield "retry: 2000\n\n"
    async with aclosing(hub.follow(key, read, finished, poll_s, first_poll_s, KEEPALIVE_S)) as events:
        async for kind, state in events:
            if kind == "state":
                yield message(state)
            elif kind == "gone":
                yield gone(state)
            else:
                yield ": keep-alive\n\n"
            if await request.is_disconnected():
                return


def comparison_events(
    request: Request, scenario_id: str, comparison_id: str, poll_s: float = POLL_INTERVAL_S
) -> AsyncIterator[str]:
    """Yield an SSE message for the current state and one per change, until finished or disconnected."""
    def gone(last: ComparisonProgress | None) -> str:  # deleted meanwhile (the scenario was deleted)
        return _message(ComparisonProgress(status=comparison_state.FAILED, progress=last.progress if last else 0.0,
                                           error="the comparison was deleted"))

    return poll_events(request, ("comparison", scenario_id, comparison_id), lambda: _state(scenario_id, comparison_id),
                       _message,
                       lambda state: comparison_state.is_finished(state.status), gone, poll_s, FIRST_POLL_S)


@router.get(
    "/{comparison_id}/events",
    response_class=EventStreamResponse,
    responses={
        200: {
            "model": ComparisonProgress,
            "description": "Server-sent events: `data: ComparisonProgress` (JSON) on every change; "
            "the stream ends after a finished status.",
        },
        404: {"description": "No such scenario or comparison."},
    },
)
def stream_comparison_events(
    request: Request, session: SessionDep, scenario: ScenarioDep, comparison_id: str
) -> EventStreamResponse:
    """Follow a comparison's progress without polling (``EventSource``): one
    :class:`~subflow_backend.schemas.ComparisonProgress` per change."""
    if crud.get_comparison(session, scenario.id, comparison_id) is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"comparison {comparison_id!r} not found")
    # the request's session would otherwise stay open (with its pooled connection) until the stream
    # ends; the stream reads with a short session of its own at each change
    session.close()
    return EventStreamResponse(
        comparison_events(request, scenario.id, comparison_id),
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
