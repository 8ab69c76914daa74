"""``/api/imports``: files of any import format of :mod:`subflow.io.formats` (GraphML, SNDlib native, scenario
JSON, CORE session XML, ns-2 mobility traces) → stored scenarios."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, HTTPException, Query, Request, UploadFile, status
from fastapi.concurrency import run_in_threadpool

from subflow.io.formats import import_file as import_any, names

from subflow_backend import audit, compute, crud
from subflow_backend.api.deps import NO_NUL, PrincipalDep, SessionDep, client_ip, target_project
from subflow_backend.api.routes.scenarios import to_public
from subflow_backend.schemas import ScenarioPublic
from subflow_backend.settings import settings

router = APIRouter(prefix="/imports", tags=["imports"])

#: the import formats' names, as the ``format`` query parameter's values
ImportFormat = Literal[tuple(names("import"))]  # type: ignore[valid-type]


@router.post(
    "",
    response_model=ScenarioPublic,
    status_code=status.HTTP_201_CREATED,
    responses={
        409: {"description": "A scenario with that name exists."},
        413: {"description": "File larger than MAX_UPLOAD_BYTES (default 20 MiB; Kdl.graphml, the largest "
                             "Zoo file used here, is 0.3 MB)."},
        422: {"description": "Unreadable file, XML with a DTD or entities, a link the conventions cannot use "
                             "(`loc` names it), an element the scenario cannot carry (the message names it), "
                             "or a scenario over a MAX_* limit."},
    },
)
async def import_file(
    request: Request,
    session: SessionDep,
    principal: PrincipalDep,
    file: Annotated[UploadFile, File(description="GraphML (Topology Zoo or with delay_ms/loss/bandwidth_mbps "
                                                 "edge attributes), SNDlib native .txt, scenario JSON, CORE "
                                                 "session XML or an ns-2 mobility trace.")],
    name: Annotated[str | None, Form(max_length=120, description="Scenario name; default: the network's.")] = None,
    project_id: Annotated[str | None, Query(max_length=36, pattern=NO_NUL,
                                            description="Project to store it in (editor); "
                                                        "default: the first you may edit.")] = None,
    format: Annotated[ImportFormat | None, Query(description="The file's format (GET /api/formats); default: "
                                                             "detected from the content.")] = None,
) -> ScenarioPublic:
    """Convert an uploaded topology to a scenario and store it (version 1).

    Conventions (:mod:`subflow.io.imports`): Topology Zoo nodes keyed by id, delay from the
    great-circle distance at 2/3 c, capacity from ``LinkSpeedRaw`` or a stated default;
    SNDlib capacity = pre-installed capacity if positive else the first module's, demands
    become flows with ``rate_mbps``. The scenario's description records the source, its
    licence note and any conversion notes. CORE session XML (:mod:`subflow.io.core_xml`) and ns-2
    ``setdest`` traces (:mod:`subflow.io.ns2`) are read too; what they hold that a scenario cannot carry
    is refused with the element or line named.
    """
    limit = settings.MAX_UPLOAD_BYTES
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise HTTPException(status.HTTP_413_CONTENT_TOO_LARGE, f"file larger than MAX_UPLOAD_BYTES = {limit} bytes")

    def store() -> ScenarioPublic:
        # parsing a large file and the database work run in a worker thread, not on the event
        # loop, so one import does not hold up every other request
        pid = target_project(session, principal, project_id)
        result = compute.run(partial(import_any, source=file.filename or "upload", name=name or None,
                                     format=format), data)
        row = crud.create_scenario(session, result.scenario, project_id=pid, author=principal.user)
        audit.record(session, "scenario_create", user=principal.user, target=row.id, ip=client_ip(request),
                     detail={"name": row.name, "project_id": pid, "import": file.filename})
        return to_public(row)

    return await run_in_threadpool(store)
