"""``/api/scenarios``: create, list, read, replace and delete scenario documents.

Scenarios belong to projects: lists show the caller's projects' scenarios, reads need
any role in the scenario's project (else 404), changes need editor (else 403).
``GET`` answers the version's ``ETag`` (``"v3"``); ``PUT`` needs it in ``If-Match``
(428 without, 412 if someone saved meanwhile). Past versions: :mod:`.versions`.
"""

from __future__ import annotations

from subflow.errors import ScenarioNameTaken, VersionConflict

from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request, Response, status

from subflow.scenario.document import Scenario, scenario_json_schema

from subflow_backend import access, audit, crud, history, models
from subflow_backend.api.deps import (
    NO_NUL,
    PrincipalDep,
    ScenarioDep,
    ScenarioEditDep,
    SessionDep,
    client_ip,
    target_project,
)
from subflow_backend.schemas import ScenarioPublic, ScenarioSummary, ScenariosPublic

router = APIRouter(prefix="/scenarios", tags=["scenarios"])

_CONFLICT = {409: {"description": "Another scenario of the project already has this name."}}
_INVALID = {422: {"description": "Invalid scenario; `detail[].loc` is the JSON path, e.g. `['body', 'links', 0, 'dst']`."}}
_NOT_FOUND = {404: {"description": "No such scenario (or not in a project of yours)."}}
_FORBIDDEN = {403: {"description": "Your role in the project is viewer, or the token is read-only."}}


def to_public(row: models.Scenario) -> ScenarioPublic:
    """API view of a stored scenario."""
    return ScenarioPublic(
        id=row.id,
        project_id=row.project_id,
        name=row.name,
        description=row.description,
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
        updated_by=row.updated_by_name,
        scenario=row.document,
    )


def _save(fn: Any, *args: Any, **kwargs: Any) -> models.Scenario:
    try:
        return fn(*args, **kwargs)
    except ScenarioNameTaken as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None
    except VersionConflict as exc:
        raise HTTPException(status.HTTP_412_PRECONDITION_FAILED, str(exc),
                            headers={"ETag": history.etag(exc.current)}) from None


@router.get("/schema", response_model=dict[str, Any])
def get_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario document (a JSON Schema, hence free-form here)."""
    return scenario_json_schema()


@router.get("", response_model=ScenariosPublic)
def list_scenarios(
    session: SessionDep,
    principal: PrincipalDep,
    skip: int = Query(0, ge=0, le=crud.MAX_SKIP, description="Rows to skip (at most 2^31 − 1)."),
    limit: int = Query(100, ge=1, le=1000),
    project_id: str | None = Query(None, max_length=36, pattern=NO_NUL, description="Only this project's scenarios."),
) -> ScenariosPublic:
    """Scenarios of your projects (admins: all) ordered by name: ``{data: [ScenarioSummary], count}``
    (``count`` is the total)."""
    visible = access.visible_project_ids(principal.user)
    if project_id is not None:
        visible = [project_id] if access.role_in(session, principal.user, project_id) else []
    rows, count = crud.list_scenarios(session, skip, limit, project_ids=visible)
    return ScenariosPublic(data=[ScenarioSummary.model_validate(r) for r in rows], count=count)


@router.post(
    "", response_model=ScenarioPublic, status_code=status.HTTP_201_CREATED,
    responses={**_CONFLICT, **_INVALID, **_FORBIDDEN, 404: {"description": "No such project."}},
)
def create_scenario(
    request: Request, response: Response, session: SessionDep, principal: PrincipalDep, scenario: Scenario,
    project_id: str | None = Query(None, max_length=36, pattern=NO_NUL, description="Project to store it in; default: "
                                   "the first you may edit (`default` first)."),
) -> ScenarioPublic:
    """Store a scenario document (version 1). The body is validated against the
    schema and the cross-reference rules; 422 names each offending field and
    nothing is stored; 409 if the name is taken."""
    pid = target_project(session, principal, project_id)
    row = _save(crud.create_scenario, session, scenario, project_id=pid, author=principal.user)
    audit.record(session, "scenario_create", user=principal.user, target=row.id, ip=client_ip(request),
                 detail={"name": row.name, "project_id": pid})
    response.headers["ETag"] = history.etag(row.version)
    return to_public(row)


@router.get("/{scenario_id}", response_model=ScenarioPublic, responses=_NOT_FOUND)
def read_scenario(response: Response, row: ScenarioDep) -> ScenarioPublic:
    """One scenario with its document; the ``ETag`` header names its version (``"v3"``)."""
    response.headers["ETag"] = history.etag(row.version)
    return to_public(row)


@router.put(
    "/{scenario_id}",
    response_model=ScenarioPublic,
    responses={**_NOT_FOUND, **_FORBIDDEN, **_CONFLICT, **_INVALID,
               412: {"description": "If-Match names a version that is no longer current (someone saved meanwhile); "
                                    "the `ETag` header names the current one."},
               428: {"description": "If-Match is missing (send the ETag of the version you edited)."}},
)
def replace_scenario(
    request: Request, response: Response, session: SessionDep, principal: PrincipalDep, row: ScenarioEditDep,
    scenario: Scenario,
    if_match: Annotated[str | None, Header(description='ETag of the version edited, e.g. `"v3"`.')] = None,
) -> ScenarioPublic:
    """Replace the document if it is still at the version named by ``If-Match``; ``version`` goes up
    by one and the replaced version is kept (``GET .../versions``). Errors as for POST; on error the
    stored scenario is unchanged. Past comparisons keep their snapshot."""
    versions = history.parse_if_match(if_match)
    if versions is None:
        raise HTTPException(status.HTTP_428_PRECONDITION_REQUIRED,
                            'If-Match is required: send the ETag of the version you edited (e.g. "v3")')
    expected = row.version if row.version in versions else versions[0]
    row = _save(history.save, session, row, scenario, expected, principal.user)
    audit.record(session, "scenario_update", user=principal.user, target=row.id, ip=client_ip(request),
                 detail={"version": row.version})
    response.headers["ETag"] = history.etag(row.version)
    return to_public(row)


@router.delete("/{scenario_id}", status_code=status.HTTP_204_NO_CONTENT, responses={**_NOT_FOUND, **_FORBIDDEN})
def delete_scenario(request: Request, session: SessionDep, principal: PrincipalDep, row: ScenarioEditDep) -> Response:
    """Delete the scenario, its history and its comparisons (a running comparison stops storing)."""
    scenario_id, name = row.id, row.name
    crud.delete_scenario(session, row)
    audit.record(session, "scenario_delete", user=principal.user, target=scenario_id, ip=client_ip(request),
                 detail={"name": name})
    return Response(status_code=status.HTTP_204_NO_CONTENT)
