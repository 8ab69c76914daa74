"""``/api/scenarios``: create, list, read, replace and delete scenario documents."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Response, status

from subflow.scenario import Scenario, scenario_json_schema

from subflow_backend import crud, models
from subflow_backend.api.deps import ScenarioDep, SessionDep
from subflow_backend.schemas import ScenarioPublic, ScenarioSummary, ScenariosPublic

router = APIRouter(prefix="/scenarios", tags=["scenarios"])

_CONFLICT = {409: {"description": "Another scenario already has this name."}}
_INVALID = {422: {"description": "Invalid scenario; `detail[].loc` is the JSON path, e.g. `['body', 'links', 0, 'dst']`."}}


def to_public(row: models.Scenario) -> ScenarioPublic:
    """API view of a stored scenario."""
    return ScenarioPublic(
        id=row.id,
        name=row.name,
        description=row.description,
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
        scenario=row.document,
    )


@router.get("/schema")
def get_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario document."""
    return scenario_json_schema()


@router.get("", response_model=ScenariosPublic)
def list_scenarios(
    session: SessionDep, skip: int = Query(0, ge=0, le=crud.MAX_SKIP, description="Rows to skip (at most 2^31 − 1)."), limit: int = Query(100, ge=1, le=1000)
) -> ScenariosPublic:
    """Scenarios ordered by name: ``{data: [ScenarioSummary], count}`` (``count`` is the total)."""
    rows, count = crud.list_scenarios(session, skip, limit)
    return ScenariosPublic(data=[ScenarioSummary.model_validate(r) for r in rows], count=count)


@router.post(
    "", response_model=ScenarioPublic, status_code=status.HTTP_201_CREATED, responses={**_CONFLICT, **_INVALID}
)
def create_scenario(session: SessionDep, scenario: Scenario) -> ScenarioPublic:
    """Store a scenario document (version 1). The body is validated against the
    schema and the cross-reference rules; 422 names each offending field and
    nothing is stored; 409 if the name is taken."""
    return to_public(crud.create_scenario(session, scenario))  # ScenarioNameTaken -> 409 at the API edge


@router.get("/{scenario_id}", response_model=ScenarioPublic, responses={404: {"description": "No such scenario."}})
def read_scenario(row: ScenarioDep) -> ScenarioPublic:
    """One scenario with its document."""
    return to_public(row)


@router.put(
    "/{scenario_id}",
    response_model=ScenarioPublic,
    responses={404: {"description": "No such scenario."}, **_CONFLICT, **_INVALID},
)
def replace_scenario(session: SessionDep, row: ScenarioDep, scenario: Scenario) -> ScenarioPublic:
    """Replace the document; ``version`` goes up by one. Errors as for POST; on
    error the stored scenario is unchanged. Past comparisons keep their snapshot."""
    return to_public(crud.update_scenario(session, row, scenario))


@router.delete(
    "/{scenario_id}", status_code=status.HTTP_204_NO_CONTENT, responses={404: {"description": "No such scenario."}}
)
def delete_scenario(session: SessionDep, row: ScenarioDep) -> Response:
    """Delete the scenario and its comparisons (a running comparison stops storing)."""
    crud.delete_scenario(session, row)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
