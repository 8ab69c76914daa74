"""``/api/scenarios/{id}/failures`` and ``/capacity-searches``: what-if failures and capacity planning;
``/api/jobs/{id}/events``: a background job's progress as server-sent events.

Failure analysis is planning (no engine): inline (200) or with ``"background": true`` a worker job
(202). A capacity search runs the engine many times, so it is always a worker job (202); poll
``GET /api/jobs/{job_id}`` or follow ``GET /api/jobs/{job_id}/events``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from typing import Any

from celery.result import AsyncResult
from fastapi import APIRouter, HTTPException, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import Field

from subflow.analysis.capacity import CapacityRequest, check_request
from subflow.analysis.failures import FailureReport, FailureRequest, analyse_failures, failure_count
from subflow.errors import LimitExceeded, ScenarioInvalid
from subflow.scenario.document import load_scenario

from subflow_backend import compute, jobs
from subflow_backend.api.deps import (
    CeleryDep,
    PrincipalDep,
    ScenarioDep,
    ScenarioEditDep,
    SessionDep,
    check_engine_permission,
)
from subflow_backend.api.routes.events import EventStreamResponse, poll_events
from subflow_backend.api.routes.planning import VisibleJob, job_state
from subflow_backend.queue import CAPACITY_TASK, FAILURES_TASK
from subflow_backend.request_checks import check_request as check_comparison
from subflow_backend.schemas import JobAccepted, JobPublic
from subflow_backend.settings import settings

router = APIRouter(tags=["analysis"])

_QUEUED = {202: {"model": JobAccepted, "description": "Queued (background)."}}


class FailureAnalysisRequest(FailureRequest):
    """:class:`subflow.analysis.failures.FailureRequest` plus ``background`` (run in the worker, answer 202)."""

    background: bool = Field(default=False, strict=True, description="Run in the worker; answer 202 with a job.")


def _body_errors(exc: ScenarioInvalid) -> RequestValidationError:
    """A check of the request body that failed, as FastAPI's 422 (``loc`` under ``body``, not the stored
    scenario's document)."""
    return RequestValidationError([{"type": e.get("type", "value_error"), "loc": ("body", *e["loc"]), "msg": e["msg"],
                                    "input": None} for e in exc.errors])


def _accepted(http: Request, session, celery, task: str, scenario, body: dict[str, Any]) -> JSONResponse:
    job_id = jobs.submit_for_caller(http, session, celery, task, scenario, body)
    job = JobAccepted(job_id=job_id, status="queued", status_url=f"/api/jobs/{job_id}")
    return JSONResponse(status_code=status.HTTP_202_ACCEPTED, content=job.model_dump(mode="json"))


@router.post("/scenarios/{scenario_id}/failures", response_model=FailureReport, responses=_QUEUED)
def failures(http: Request, scenario: ScenarioDep, body: FailureAnalysisRequest, celery: CeleryDep,
             session: SessionDep) -> Any:
    """Every single link failure (and with ``"nodes": true`` every node failure) re-planned:
    routes under ``metric`` and the FDM allocation of the rated flows, with each flow's impact
    against the intact plan (delivered Mbit/s, path change, one-way delay change in ms), cases
    sorted worst first (most demand lost, most flows cut, largest added delay). Shape:
    :class:`subflow.analysis.failures.FailureReport`. 422 names an unknown link in ``links``, or
    ``MAX_FAILURE_CASES`` when links + nodes exceed it (refused before any work), or ``background`` when an
    inline analysis has more than ``MAX_INLINE_FAILURE_CASES`` cases (send it to the worker)."""
    request = FailureRequest(**body.model_dump(exclude={"background"}))
    sc = load_scenario(scenario.document)
    known = {link.id for link in sc.links}
    unknown = [{"loc": ["links", i], "msg": f"no link with id {lid!r}"}
               for i, lid in enumerate(request.links or []) if lid not in known]
    if unknown:
        raise _body_errors(ScenarioInvalid(unknown))
    n = failure_count(sc, request)
    if n > settings.MAX_FAILURE_CASES:
        raise _body_errors(LimitExceeded("MAX_FAILURE_CASES", settings.MAX_FAILURE_CASES, n, ["links"],
                                         "failure cases (links + nodes)"))
    if body.background:
        return _accepted(http, session, celery, FAILURES_TASK, scenario, request.model_dump(mode="json"))
    if n > settings.MAX_INLINE_FAILURE_CASES:
        raise RequestValidationError([{
            "type": "value_error", "loc": ("body", "background"), "input": False,
            "msg": f"{n} failure cases, more than MAX_INLINE_FAILURE_CASES = {settings.MAX_INLINE_FAILURE_CASES} "
                   f"computed inside the API; send it with \"background\": true (a worker job) or name fewer links"}])
    return compute.run_json(FailureReport, partial(analyse_failures, max_cases=settings.MAX_FAILURE_CASES),
                            scenario.document, request)


@router.post("/scenarios/{scenario_id}/capacity-searches", status_code=202, response_model=JobAccepted, responses={
    403: {"description": "Viewer or read-only token, or a root engine without the `can_run_linux` permission."}})
def capacity_searches(http: Request, scenario: ScenarioEditDep, body: CapacityRequest, celery: CeleryDep,
                      principal: PrincipalDep, session: SessionDep) -> Any:
    """Start a capacity search (a worker job): the smallest value of the numeric scenario field
    ``parameter`` in [``low``, ``high``] at which (over ``repetitions`` runs of ``strategy``) every tcp flow's
    mean throughput is ≥ ``min_mean_mbps``, every flow's time at zero ≤ ``max_zero_s``, every voice flow's MOS
    ≥ ``min_mos`` and every udp, voice and video flow's delay ≤ ``max_delay_ms`` and loss ≤ ``max_loss`` in every
    interval (but the ``allowed_fraction``), by bisection to ``tolerance`` (:mod:`subflow.analysis.capacity`).
    A null bound is not judged; at least one is given. The job's result is a
    :class:`subflow.analysis.capacity.CapacityResult` with the trace of every step. 422 names a parameter
    path naming no field, a bound that makes the scenario invalid, a voice bound without a flow to judge, an
    unknown strategy, or
    ``MAX_SWEEP_UNITS`` when ``max_steps`` × ``repetitions`` exceed it — all before any run.
    Like a comparison it needs edit rights (it runs the engine)."""
    check_engine_permission(principal.user, body.engine)
    check_comparison(scenario.document, [body.strategy], body.engine, None, 1, None)
    try:
        check_request(scenario.document, body, settings.MAX_SWEEP_UNITS)
    except ScenarioInvalid as exc:
        raise _body_errors(exc) from None
    return _accepted(http, session, celery, CAPACITY_TASK, scenario, body.model_dump(mode="json"))


#: Seconds between two reads of a job's state by its event stream.
JOB_POLL_S = 0.25


def job_events(request: Request, job_id: str, celery, poll_s: float = JOB_POLL_S) -> AsyncIterator[str]:
    """One SSE message per change of the job's :class:`JobPublic` (without its result: fetch it once
    finished), until it succeeds or fails or the client goes (:func:`events.poll_events`)."""
    def read() -> dict:
        return job_state(job_id, celery).model_dump(mode="json", exclude={"result"})

    def message(brief: dict) -> str:
        return f"data: {JobPublic.model_validate({**brief, 'result': None}).model_dump_json()}\n\n"

    return poll_events(request, ("job", job_id), read, message,
                       lambda brief: brief["status"] in ("succeeded", "failed"),
                       lambda _last: "", poll_s, poll_s)


@router.get("/jobs/{job_id}/events", response_class=EventStreamResponse, responses={
    200: {"model": JobPublic, "description": "Server-sent events: `data: JobPublic` (JSON, `result` null) on every "
          "change of status or progress; the stream ends after `succeeded` or `failed`."},
    404: {"description": "No job with this id was submitted (or its record expired), or it belongs to a project "
          "you are not a member of."}})
def stream_job_events(request: Request, job_id: VisibleJob, celery: CeleryDep) -> EventStreamResponse:
    """Follow a background job (``status``, ``progress``, ``runs_done`` / ``runs_total``) without polling."""
    if AsyncResult(job_id, app=celery).state == "PENDING":  # never recorded: jobs are RECEIVED on submission
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"job {job_id!r} not found")
    return EventStreamResponse(job_events(request, job_id, celery),
                               headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
