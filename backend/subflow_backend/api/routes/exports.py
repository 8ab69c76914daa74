"""``/api/scenarios/{id}/export``: a scenario in any export format of :mod:`subflow.io.formats`;
``/api/formats``: the formats Subflow reads and writes."""

from __future__ import annotations

import json
import re
from typing import Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response

from subflow.io.formats import FormatInfo, all_formats, export_scenario, get_format, names
from subflow.runplan.strategies import get_strategy

from subflow_backend.api.deps import ScenarioDep

router = APIRouter(prefix="/scenarios/{scenario_id}/export", tags=["scenarios"])
formats_router = APIRouter(prefix="/formats", tags=["formats"])

#: the export formats' names, as the ``format`` query parameter's values
ExportFormat = Literal[tuple(names("export"))]  # type: ignore[valid-type]
_MEDIA = {f.name: f.media_type for f in all_formats("export")}


@formats_router.get("", response_model=list[FormatInfo])
def list_formats() -> list[FormatInfo]:
    """The file formats of ``POST /api/imports`` (``format``) and ``GET /api/scenarios/{id}/export``
    (``format``): name, directions, extension, media type and what each carries."""
    return all_formats()


@router.get(
    "",
    response_class=Response,
    responses={
        200: {"content": {m: {} for m in sorted(set(_MEDIA.values()))}, "description": "The file, as an attachment."},
        404: {"description": "No such scenario."},
        422: {"description": "Unknown format or strategy, or a field the format cannot carry (`loc` names it)."},
    },
)
def export_scenario_file(
    scenario: ScenarioDep,
    format: ExportFormat = Query("json", description="What to export (GET /api/formats lists the formats)."),
    strategy: str = Query("sptcp", description="Transport strategy the Mininet-WiFi script runs."),
) -> Response:
    """Download the scenario for other tools (:mod:`subflow.io.formats`).

    * ``json``: the scenario document (re-importable with ``POST /api/scenarios``);
    * ``mininet-wifi``: a standalone Python script (``sudo python3 file.py`` on a host with
      Mininet-WiFi) that builds the topology, replays the mobility and runs iperf3 per flow
      with ``strategy`` (see :mod:`subflow.io.exports`);
    * ``ns2``: every node's movements as an ns-2 ``setdest`` trace (metres, seconds);
    * ``core-xml``: a CORE session (:mod:`subflow.io.core_xml`; orbits, link budgets and link events
      are refused, naming the field);
    * ``containerlab``: the wired part as a containerlab topology with netem impairments (what was left
      out is listed in the file's comments);
    * ``graphml``: every node and link, through networkx.
    """
    doc = scenario.document
    fmt = get_format(format, "export")
    if format == "json":
        body = json.dumps(doc, indent=1)  # the stored document as it is
    else:
        if format == "mininet-wifi":
            get_strategy(strategy)  # UnknownStrategy -> 422 at the API edge
        body = export_scenario(doc, format, strategy)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", scenario.name).strip("-") or "scenario"
    return Response(
        content=body,
        media_type=fmt.info.media_type,
        headers={"Content-Disposition": f'attachment; filename="{safe}{fmt.info.extension}"'},
    )
