"""``/api/scenarios/{id}/versions`` and ``/fork``: a scenario's history, restore and fork.

Reading the history needs any role in the scenario's project; restoring needs editor;
forking needs a role in the source project and editor in the target one.
"""

from __future__ import annotations

from subflow.errors import UnknownVersion

from fastapi import APIRouter, HTTPException, Path, Request, Response, status

from subflow_backend import audit, history
from subflow_backend.api.deps import PrincipalDep, ScenarioDep, ScenarioEditDep, SessionDep, client_ip, target_project
from subflow_backend.api.routes.scenarios import _save, to_public
from subflow_backend.schemas import ScenarioPublic
from subflow_backend.schemas_accounts import (
    ScenarioFork,
    ScenarioVersionPublic,
    ScenarioVersionSummary,
    ScenarioVersionsPublic,
)

router = APIRouter(prefix="/scenarios/{scenario_id}", tags=["scenarios"])

_NOT_FOUND = {404: {"description": "No such scenario or version (or not in a project of yours)."}}
_VERSION = Path(ge=1, le=2**31 - 1, description="A version number (1 = as first stored).")


def _version(session, row, version: int) -> dict:
    try:
        return history.get_version(session, row, version)
    except UnknownVersion as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None


@router.get("/versions", response_model=ScenarioVersionsPublic, responses=_NOT_FOUND)
def list_versions(session: SessionDep, row: ScenarioDep) -> ScenarioVersionsPublic:
    """Every saved version, newest (current) first, each with who saved it and when."""
    data = [ScenarioVersionSummary(**v) for v in history.list_versions(session, row)]
    return ScenarioVersionsPublic(data=data, count=len(data))


@router.get("/versions/{version}", response_model=ScenarioVersionPublic, responses=_NOT_FOUND)
def read_version(session: SessionDep, row: ScenarioDep, version: int = _VERSION) -> ScenarioVersionPublic:
    """One version with its document (compare two with any JSON diff)."""
    return ScenarioVersionPublic(**_version(session, row, version))


@router.post(
    "/versions/{version}/restore", response_model=ScenarioPublic,
    responses={**_NOT_FOUND, 403: {"description": "Viewer, or a read-only token."},
               409: {"description": "The old version's name is now another scenario's."},
               412: {"description": "Someone saved meanwhile; retry."}},
)
def restore_version(
    request: Request, response: Response, session: SessionDep, principal: PrincipalDep, row: ScenarioEditDep,
    version: int = _VERSION,
) -> ScenarioPublic:
    """Make ``version``'s document current again, as a new version (nothing is lost)."""
    _version(session, row, version)
    row = _save(history.restore, session, row, version, principal.user)
    audit.record(session, "scenario_restore", user=principal.user, target=row.id, ip=client_ip(request),
                 detail={"restored": version, "version": row.version})
    response.headers["ETag"] = history.etag(row.version)
    return to_public(row)


@router.post(
    "/fork", response_model=ScenarioPublic, status_code=status.HTTP_201_CREATED,
    responses={**_NOT_FOUND, 403: {"description": "Not editor of the target project, or a read-only token."},
               409: {"description": "The name is taken."}},
)
def fork_scenario(
    request: Request, response: Response, session: SessionDep, principal: PrincipalDep, row: ScenarioDep,
    body: ScenarioFork,
) -> ScenarioPublic:
    """Copy the scenario (``body.version``, default the current one) into a new scenario named
    ``body.name`` in ``body.project_id`` (default: the same project). 201 with the new scenario."""
    pid = target_project(session, principal, body.project_id or row.project_id)
    _version(session, row, body.version or row.version)
    new = _save(history.fork, session, row, body.name, body.version, pid, principal.user)
    audit.record(session, "scenario_fork", user=principal.user, target=new.id, ip=client_ip(request),
                 detail={"from": row.id, "version": body.version or row.version, "name": body.name})
    response.headers["ETag"] = history.etag(new.version)
    return to_public(new)
