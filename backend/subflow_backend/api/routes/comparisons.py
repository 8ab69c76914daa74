"""``/api/scenarios/{id}/comparisons``: queue and inspect strategy comparisons."""

from __future__ import annotations

import logging

from fastapi import APIRouter, HTTPException, Path, Query, Request, status
from fastapi.exceptions import RequestValidationError

from subflow.results.document import PlanComparison, ResultDocument
from subflow.results.planned import has_rate_plan, plan_comparison

from subflow.comparison.sweeps import SweepSpec, point_values

from subflow_backend import audit, crud
from subflow_backend.api.deps import (
    CeleryDep,
    PrincipalDep,
    ScenarioDep,
    ScenarioEditDep,
    SessionDep,
    check_engine_permission,
    client_ip,
)
from subflow_backend.queue import RUN_COMPARISON_TASK
from subflow_backend.schemas import (
    ComparisonCreate,
    ComparisonPublic,
    ComparisonSummary,
    ComparisonsPublic,
    SweepPointRunPublic,
    SweepPointRunsPublic,
    SweepPointRunSummary,
)
from subflow_backend.settings import settings

log = logging.getLogger(__name__)

router = APIRouter(prefix="/scenarios/{scenario_id}/comparisons", tags=["comparisons"])


@router.post(
    "",
    response_model=ComparisonPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        403: {"description": "Viewer or read-only token, or a root engine (`linux`) without the "
                             "`can_run_linux` permission."},
        404: {"description": "No such scenario."},
        422: {
            "description": "Unknown strategy (`loc` `['body', 'strategies']`) or engine "
            "(`['body', 'engine']`), a strategy the engine does not run (`['body', 'strategies', i]`), "
            "a bad sweep (`['body', 'sweep', ...]`), or a flow of the scenario whose endpoints "
            "nothing ever connects (`['scenario', 'flows', i]`). Nothing is queued."
        },
        429: {"description": "`QUEUE_MAX_UNFINISHED` comparisons are queued or running already; "
                             "try again after `Retry-After` seconds. Nothing is stored."},
        503: {"description": "The task queue is unreachable; the comparison is stored as failed."},
    },
)
def create_comparison(
    request: Request, session: SessionDep, principal: PrincipalDep, celery: CeleryDep, scenario: ScenarioEditDep,
    body: ComparisonCreate,
) -> ComparisonPublic:
    """Queue a comparison of ``body.strategies`` on the current version of the scenario.

    The request is checked without resolving run plans or waiting for the agent
    (:mod:`subflow_backend.request_checks`); the worker resolves the plans, and a
    plan the agent's host cannot honour makes the comparison ``failed`` with the reason.
    Returns 202 with the comparison (``status`` ``queued``, ``progress`` 0); poll
    ``GET .../comparisons/{cid}`` until ``status`` is ``succeeded`` or ``failed``.
    """
    check_engine_permission(principal.user, body.engine)
    unfinished = crud.count_unfinished_comparisons(session)
    if unfinished >= settings.QUEUE_MAX_UNFINISHED:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"{unfinished} comparisons are queued or running (QUEUE_MAX_UNFINISHED = "
            f"{settings.QUEUE_MAX_UNFINISHED}); try again in {settings.QUEUE_RETRY_AFTER_S} s",
            headers={"Retry-After": str(settings.QUEUE_RETRY_AFTER_S)},
        )
    row = crud.create_comparison(session, scenario, body)
    audit.record(session, "comparison_create", user=principal.user, target=row.id, ip=client_ip(request),
                 detail={"scenario_id": scenario.id, "engine": body.engine, "strategies": list(body.strategies)})
    try:
        celery.send_task(RUN_COMPARISON_TASK, args=[row.id, row.attempt])
    except Exception as exc:  # broker down: record it on the row, tell the caller
        log.exception("could not enqueue comparison %s", row.id)
        crud.mark_comparison_failed(session, row, f"could not queue the comparison: {exc}")
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE, f"task queue unavailable: {exc}"
        ) from None
    return ComparisonPublic.model_validate(row)


@router.get("", response_model=ComparisonsPublic, responses={404: {"description": "No such scenario."}})
def list_comparisons(
    session: SessionDep,
    scenario: ScenarioDep,
    skip: int = Query(0, ge=0, le=crud.MAX_SKIP, description="Rows to skip (at most 2^31 − 1)."),
    limit: int = Query(100, ge=1, le=1000),
) -> ComparisonsPublic:
    """The scenario's comparisons, newest first, without result documents:
    ``{data: [ComparisonSummary], count}``."""
    rows, count = crud.list_comparisons(session, scenario.id, skip, limit)
    return ComparisonsPublic(data=[ComparisonSummary.model_validate(r) for r in rows], count=count)


@router.get(
    "/{comparison_id}", response_model=ComparisonPublic, responses={404: {"description": "No such comparison."}}
)
def read_comparison(session: SessionDep, scenario: ScenarioDep, comparison_id: str) -> ComparisonPublic:
    """One comparison; ``result`` is the result document once ``status`` is ``succeeded``."""
    row = crud.get_comparison(session, scenario.id, comparison_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"comparison {comparison_id!r} not found")
    return ComparisonPublic.model_validate(row)


def _comparison_or_404(session, scenario, comparison_id: str):
    row = crud.get_comparison(session, scenario.id, comparison_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"comparison {comparison_id!r} not found")
    return row


def _point_summary(row, point: int, document: dict | None = None) -> SweepPointRunSummary:
    base_seed = int(((row.scenario_snapshot or {}).get("run") or {}).get("seed", 1))
    seed = int(document["scenario"]["run"]["seed"]) if document else base_seed
    value, value_y = point_values(SweepSpec.model_validate(row.sweep), point)
    return SweepPointRunSummary(point=point, value=value, value_y=value_y, seed=seed)


@router.get(
    "/{comparison_id}/sweep-points",
    response_model=SweepPointRunsPublic,
    responses={404: {"description": "No such comparison."}},
)
def list_sweep_point_runs(session: SessionDep, scenario: ScenarioDep, comparison_id: str) -> SweepPointRunsPublic:
    """The sweep points of a comparison whose representative run is stored (its first repetition:
    per-flow series of every strategy). All points when the sweep has at most ``SWEEP_POINT_DOCUMENTS``
    (default 16), else that many spread evenly, first and last included; empty for a comparison
    without a sweep, and growing while a sweep runs."""
    row = _comparison_or_404(session, scenario, comparison_id)
    points = crud.sweep_point_runs(session, row)
    return SweepPointRunsPublic(parameter=row.sweep["parameter"] if row.sweep else None,
                                data=[_point_summary(row, p) for p in points])


_POINT = Path(ge=0, le=2**31 - 1, description="0-based index of the sweep point.")


@router.get(
    "/{comparison_id}/sweep-points/{point}",
    response_model=SweepPointRunPublic,
    responses={404: {"description": "No such comparison, or no stored run for this point (see the list)."}},
)
def read_sweep_point_run(session: SessionDep, scenario: ScenarioDep, comparison_id: str,
                         point: int = _POINT) -> SweepPointRunPublic:
    """The representative run of sweep point ``point`` (0-based index into ``sweep.values``, at most
    2^31 − 1: larger is 422 naming ``point``, as the database's integers go no further): the
    scenario as run (parameter and seed applied) and each strategy's result (series in Mbit/s over
    seconds, events, summary)."""
    row = _comparison_or_404(session, scenario, comparison_id)
    document = crud.sweep_point_document(session, row, point)
    if document is None:
        stored = crud.sweep_point_runs(session, row)
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            f"sweep point {point}: no stored run (stored points: {stored})")
    return SweepPointRunPublic(**_point_summary(row, point, document).model_dump(),
                               scenario=document["scenario"], strategies=document["strategies"])


@router.post(
    "/{comparison_id}/cancel",
    response_model=ComparisonPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses={403: {"description": "Viewer or read-only token."}, 404: {"description": "No such comparison."}},
)
def cancel_comparison(
    request: Request, session: SessionDep, principal: PrincipalDep, scenario: ScenarioEditDep, comparison_id: str
) -> ComparisonPublic:
    """Cancel a queued or running comparison: its status becomes ``cancelled`` at once and the
    worker drops its remaining runs. A finished comparison is returned unchanged."""
    row = crud.get_comparison(session, scenario.id, comparison_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"comparison {comparison_id!r} not found")
    audit.record(session, "comparison_cancel", user=principal.user, target=row.id, ip=client_ip(request))
    return ComparisonPublic.model_validate(crud.cancel_comparison(session, row))


def _query_error(field: str, msg: str, value: object) -> RequestValidationError:
    return RequestValidationError([{"type": "value_error", "loc": ("query", field), "msg": msg, "input": value}])


@router.get(
    "/{comparison_id}/planned",
    response_model=PlanComparison,
    responses={404: {"description": "No such comparison."},
               409: {"description": "The comparison has no result (yet)."}},
)
def read_planned(
    session: SessionDep,
    scenario: ScenarioDep,
    comparison_id: str,
    strategy: str = Query(description="A strategy of the comparison whose plan sets rates (`mptcp-fdm`)."),
    t0_s: float = Query(default=0.0, ge=0, allow_inf_nan=False, description="Start of the window, seconds."),
    t1_s: float | None = Query(default=None, gt=0, allow_inf_nan=False,
                               description="End of the window, seconds (exclusive); default: the run's end."),
) -> PlanComparison:
    """Planned next to measured for one strategy of a succeeded comparison: ``{"strategy", "t0_s",
    "t1_s", "subflows": [{"flow", "subflow", "planned_mbps": [Mbit/s | null per sample]}], "links":
    [{"link", "src", "dst", "bandwidth_mbps", "planned_mbps", "measured_mbps", "planned_utilization",
    "measured_utilization"}]}``, link loads averaged over ``[t0_s, t1_s)`` (busier direction;
    :func:`subflow.results.planned.plan_comparison`). 422 names ``strategy`` when the comparison did not run
    it or its plan sets no rate, ``t1_s`` when it is not after ``t0_s``; 409 before a result exists."""
    row = crud.get_comparison(session, scenario.id, comparison_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"comparison {comparison_id!r} not found")
    if not row.result:
        raise HTTPException(status.HTTP_409_CONFLICT, f"comparison {comparison_id!r} has no result ({row.status})")
    strategies = row.result.get("strategies", {})
    if strategy not in strategies:
        raise _query_error("strategy", f"the comparison did not run {strategy!r} (it ran {', '.join(strategies)})",
                           strategy)
    doc = ResultDocument.model_validate(row.result)
    result = doc.strategies[strategy]
    if not has_rate_plan(result):
        raise _query_error("strategy", f"{strategy!r} has no rate plan (no allocation_change event); "
                                       "planned rates exist for mptcp-fdm", strategy)
    end = t1_s if t1_s is not None else float(doc.scenario.run.duration_s)
    if not end > t0_s:
        raise _query_error("t1_s", f"t1_s = {end:g} must be greater than t0_s = {t0_s:g}", t1_s)
    return plan_comparison(doc.scenario, result, t0_s, end)
