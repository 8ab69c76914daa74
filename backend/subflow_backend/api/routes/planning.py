"""``/api/scenarios/{id}/routes`` and ``/allocations``: the planning core over REST; ``/api/jobs/{id}``.

Small requests are computed inline (200). With ``"background": true`` the
request goes to the worker (202 with a job); ``GET /api/jobs/{job_id}`` then
reports ``{"status": "queued|running|succeeded|failed", "progress", "result",
"error"}``.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from celery.result import AsyncResult
from fastapi import APIRouter, Depends, HTTPException, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from subflow.analysis.planning import (
    AllocationOverTime,
    AllocationRequest,
    RoutesOverTime,
    RoutesRequest,
    allocation_document,
    routes_cost,
    routes_document,
)

from subflow_backend import compute, jobs
from subflow_backend.api.deps import CeleryDep, CurrentUser, ScenarioDep, SessionDep
from subflow_backend.queue import ALLOCATE_TASK, ROUTES_TASK
from subflow_backend.schemas import JobAccepted, JobPublic
from subflow_backend.settings import settings

router = APIRouter(tags=["planning"])

_STATES = {"PENDING": "queued", "RECEIVED": "queued", "STARTED": "running", "PROGRESS": "running",
           "RETRY": "queued", "SUCCESS": "succeeded", "FAILURE": "failed", "REVOKED": "failed"}


def _job(request: Request, session, celery, task: str, scenario, body) -> JSONResponse:
    job_id = jobs.submit_for_caller(request, session, celery, task, scenario, body.model_dump(mode="json"))
    job = JobAccepted(job_id=job_id, status="queued", status_url=f"/api/jobs/{job_id}")
    return JSONResponse(status_code=status.HTTP_202_ACCEPTED, content=job.model_dump(mode="json"))


def _check_route_paths(document: dict[str, Any], body: RoutesRequest) -> None:
    """422 naming ``MAX_ROUTE_PATHS`` if pairs × k exceeds it (checked before any work)."""
    n = len(document.get("nodes", []))
    pairs = len(body.pairs) if body.pairs is not None else n * (n - 1)
    if pairs * body.k > settings.MAX_ROUTE_PATHS:
        raise RequestValidationError([{
            "type": "value_error", "loc": ("body", "pairs" if body.pairs is not None else "k"),
            "msg": f"{pairs} node pairs × k = {body.k} asks for {pairs * body.k} paths, more than MAX_ROUTE_PATHS = "
                   f"{settings.MAX_ROUTE_PATHS}; ask for fewer pairs or a smaller k",
            "input": body.k,
        }])


_QUEUED = {202: {"model": JobAccepted, "description": "Queued (background)."}}


def _check_inline_cost(document: dict[str, Any], body: RoutesRequest) -> None:
    """422 on ``background`` if the request's cost (pairs × k × windows, :func:`routes_cost`) exceeds
    ``MAX_INLINE_ROUTE_COST``: it is too heavy to compute inside the API; the worker takes it."""
    cost = routes_cost(document, body, settings.MAX_INLINE_ROUTE_COST)
    if cost > settings.MAX_INLINE_ROUTE_COST:
        raise RequestValidationError([{
            "type": "value_error", "loc": ("body", "background"),
            "msg": f"this request costs {cost} (node pairs × k × network windows), more than MAX_INLINE_ROUTE_COST = "
                   f"{settings.MAX_INLINE_ROUTE_COST} computed inside the API; send it with \"background\": true "
                   f"(a worker job), or ask for fewer pairs, a smaller k or one time t_s",
            "input": False,
        }])


_QUEUED = {202: {"model": JobAccepted, "description": "Queued (background)."}}


@router.post("/scenarios/{scenario_id}/routes", response_model=RoutesOverTime, responses=_QUEUED)
def routes(request: Request, scenario: ScenarioDep, body: RoutesRequest, celery: CeleryDep,
           session: SessionDep) -> Any:
    """Routes of the scenario's node pairs under ``metric`` (hop, delay, loss, tcpbp exact,
    tcpbp-greedy = thesis Algorithm 1), ``k`` paths per pair, with the pairs where the greedy
    search misses the exact TCPBP optimum. Shape: ``{"metric", "routes": [{"src", "dst",
    "reachable", "paths": [{"nodes", "hops", "delay_ms", "loss", "cost"}]}], "greedy_differs", "t_s",
    "duration_s", "windows": [{"t_start_s", "t_end_s", "routes"}]}``; delay in ms one-way, loss composed
    1−Π(1−p). The network is the run's at ``t_s`` (SATCOM delays from the orbits, Wi-Fi hops from
    association, link events; :mod:`subflow.analysis.planning`); without ``t_s`` ``windows`` covers the
    whole run and the top level is its start. 422 names a bad link or node, a ``t_s`` after the run, or
    ``MAX_ROUTE_PATHS`` when pairs × ``k`` exceed it (refused before any work), or ``background`` when an
    inline request's cost (pairs × ``k`` × windows) exceeds ``MAX_INLINE_ROUTE_COST`` (send it to the worker)."""
    _check_route_paths(scenario.document, body)
    if body.background:
        return _job(request, session, celery, ROUTES_TASK, scenario, body)
    _check_inline_cost(scenario.document, body)
    return compute.run_json(RoutesOverTime, routes_document, scenario.document, body)


@router.post("/scenarios/{scenario_id}/allocations", response_model=AllocationOverTime, responses=_QUEUED)
def allocations(request: Request, scenario: ScenarioDep, body: AllocationRequest, celery: CeleryDep,
                session: SessionDep) -> Any:
    """Minimum-delay (Flow Deviation) allocation of the scenario's rated flows: ``{"method",
    "gamma", "sum_flow_over_residual", "mean_delay_s", "tempered", "links": [{"src", "dst",
    "flow", "capacity", "utilization"}], "demands": [{"src", "dst", "demand", "paths": [{"nodes",
    "rate"}]}], "t_s", "duration_s", "include_propagation", "windows": [{"t_start_s", "t_end_s",
    "allocation"}]}`` (rates in Mbit/s, delays in s, propagation included by default), on the run's
    network at ``t_s`` or, without it, over each window of the run (the top level: its start). 422 names
    a zero-capacity link, an unreachable demand, a ``t_s`` after the run, or says the scenario has no
    rated flow."""
    if body.background:
        return _job(request, session, celery, ALLOCATE_TASK, scenario, body)
    return compute.run_json(AllocationOverTime, allocation_document, scenario.document, body)


def visible_job_or_404(job_id: str, session: SessionDep, user: CurrentUser) -> str:
    """The ``job_id`` path parameter if the caller is a member of the job's project; 404 otherwise
    (an id never submitted, or a job of a project the caller cannot see: :mod:`subflow_backend.jobs`)."""
    if jobs.visible(session, user, job_id) is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"job {job_id!r} not found")
    return job_id


VisibleJob = Annotated[str, Depends(visible_job_or_404)]


@router.get("/jobs/{job_id}", response_model=JobPublic,
            responses={404: {"description": "No such job, or it belongs to a project you are not a member of."}})
def job(job_id: VisibleJob, celery: CeleryDep) -> JobPublic:
    """State of a background job of one of your projects: ``{"job_id", "status", "progress" (0–1), "done",
    "total", "result", "error"}`` (``done``/``total``: node pairs of a routes job, updated as it goes).
    A running job whose worker stopped renewing its heartbeat for ``STALE_AFTER_S`` seconds
    (the worker died) reads as ``failed`` with the reason; submit it again."""
    return job_state(job_id, celery)


def job_state(job_id: str, celery) -> JobPublic:
    """The job's :class:`JobPublic` as the result backend holds it (no access check: callers check)."""
    res = AsyncResult(job_id, app=celery)
    state = res.state
    info = res.info if isinstance(res.info, dict) else {}
    beat = info.get("heartbeat")
    if state == "PROGRESS" and isinstance(beat, (int, float)) and time.time() - beat > settings.STALE_AFTER_S:
        return JobPublic(job_id=job_id, status="failed", progress=float(info.get("progress", 0.0)), result=None,
                         error=f"the worker running this job stopped (no sign of life for {time.time() - beat:.0f} s, "
                               f"STALE_AFTER_S = {settings.STALE_AFTER_S:g}); submit it again")
    out: dict[str, Any] = {"job_id": job_id, "status": _STATES.get(state, "queued"), "progress": 0.0,
                           "result": None, "error": None}
    if state == "SUCCESS":
        out.update(progress=1.0, result=res.result)
        if isinstance(res.result, dict) and isinstance(res.result.get("routes"), list):
            pairs = res.result.get("pairs_total")
            pairs = pairs if isinstance(pairs, int) else len(res.result["routes"])
            out.update(done=pairs, total=pairs)
    elif state == "FAILURE":
        out.update(error=str(res.result))
    elif info:
        # one read of the job's meta: each ``res.info`` asks the result backend again
        out["progress"] = float(info.get("progress", 0.0))
        for key in ("done", "total", "runs_done", "runs_total"):
            if isinstance(info.get(key), int):
                out[key] = info[key]
    if state == "SUCCESS" and isinstance(res.result, dict) and "runs" in res.result and "trace" in res.result:
        out.update(runs_done=res.result["runs"], runs_total=res.result["runs"])
    return JobPublic.model_validate(out)
