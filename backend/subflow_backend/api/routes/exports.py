"""``/api/scenarios/{id}/export``: a scenario as JSON, a Mininet-WiFi script or an ns-2 mobility trace."""

from __future__ import annotations

import json
import re
from typing import Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response

from subflow.io.exports import ns2_setdest, script_for
from subflow.runplan.strategies import get_strategy

from subflow_backend.api.deps import ScenarioDep

router = APIRouter(prefix="/scenarios/{scenario_id}/export", tags=["scenarios"])

_MEDIA = {"json": "application/json", "mininet-wifi": "text/x-python", "ns2": "text/plain"}
_SUFFIX = {"json": ".json", "mininet-wifi": ".py", "ns2": ".ns_movements"}


@router.get(
    "",
    response_class=Response,
    responses={
        200: {"content": {m: {} for m in _MEDIA.values()}, "description": "The file, as an attachment."},
        404: {"description": "No such scenario."},
        422: {"description": "Unknown format or strategy."},
    },
)
def export_scenario(
    scenario: ScenarioDep,
    format: Literal["json", "mininet-wifi", "ns2"] = Query("json", description="What to export."),
    strategy: str = Query("sptcp", description="Transport strategy the Mininet-WiFi script runs."),
) -> Response:
    """Download the scenario for other tools.

    * ``json``: the scenario document (re-importable with ``POST /api/scenarios``);
    * ``mininet-wifi``: a standalone Python script (``sudo python3 file.py`` on a host with
      Mininet-WiFi) that builds the topology, replays the mobility and runs iperf3 per flow
      with ``strategy`` (see :mod:`subflow.io.exports`);
    * ``ns2``: the stations' movements as an ns-2 ``setdest`` trace (positions in metres,
      times in seconds).
    """
    doc = scenario.document
    if format == "json":
        body = json.dumps(doc, indent=1)
    elif format == "mininet-wifi":
        get_strategy(strategy)  # UnknownStrategy -> 422 at the API edge
        body = script_for(doc, strategy)
    else:
        body = ns2_setdest(doc)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", scenario.name).strip("-") or "scenario"
    return Response(
        content=body,
        media_type=_MEDIA[format],
        headers={"Content-Disposition": f'attachment; filename="{safe}{_SUFFIX[format]}"'},
    )
