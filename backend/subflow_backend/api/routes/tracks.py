"""``/api/scenarios/{id}/nodes/{node}/track``: import a GPX / AIS / NMEA track as a node's motion; GPX export.

Import: the file is read by :mod:`subflow.io.tracks` (gpxpy, pyais), resampled onto the run's clock
and stored as the node's ``waypoints`` mobility in a new version of the scenario (the replaced
version stays in the history). Any error leaves the stored scenario unchanged.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from fastapi import APIRouter, File, Header, HTTPException, Query, Request, Response, UploadFile, status

from subflow.io.tracks import apply_track, check_size, read_track, write_gpx
from subflow.scenario.document import load_scenario
from subflow.service.limits import check_scenario
from subflow.space.mobility import node_geo_track

from subflow_backend import audit, history
from subflow_backend.api.deps import PrincipalDep, ScenarioDep, ScenarioEditDep, SessionDep, client_ip
from subflow_backend.api.routes.scenarios import _save, to_public
from subflow_backend.schemas import ScenarioPublic
from subflow_backend.settings import settings

router = APIRouter(prefix="/scenarios/{scenario_id}/nodes/{node_id}", tags=["scenarios"])

_NOT_FOUND = {404: {"description": "No such scenario (or not in a project of yours), or no such node."}}


@router.post(
    "/track",
    response_model=ScenarioPublic,
    responses={
        **_NOT_FOUND,
        403: {"description": "Your role in the project is viewer, or the token is read-only."},
        412: {"description": "If-Match names a version that is no longer current."},
        413: {"description": "File larger than MAX_TRACK_BYTES (default 20 MiB)."},
        422: {"description": "Unreadable track: `loc` names the line (`['body', 'file', 'line', 12]`), the point "
                             "(`['body', 'file', 'point', 3]`, GPX), the field (`..., 'lat_deg']`), `['query', "
                             "'mmsi']` (several vessels), or the node of a planar scenario "
                             "(`['scenario', 'nodes', i, 'position']`)."},
    },
)
async def import_track(
    request: Request,
    response: Response,
    session: SessionDep,
    principal: PrincipalDep,
    row: ScenarioEditDep,
    node_id: str,
    file: Annotated[UploadFile, File(description="GPX 1.0/1.1, AIS CSV (MMSI,time,lat,lon,SOG,COG) or NMEA AIVDM "
                                                 "sentences, one per line, each with a time.")],
    format: Annotated[Literal["gpx", "ais-csv", "nmea"], Query(description="File format.")],
    mmsi: Annotated[str | None, Query(max_length=20, pattern=r"^[0-9]{1,20}$",
                                      description="Vessel of an AIS file holding several.")] = None,
    if_match: Annotated[str | None, Header(description='Optional ETag of the version edited, e.g. `"v3"`.')] = None,
) -> ScenarioPublic:
    """Make node ``node_id`` follow an uploaded track; answers the scenario at its new version.

    The fixes (absolute UTC times) become ``waypoints`` relative to the first fix, sampled every
    ``run.interval_s`` up to ``run.duration_s`` along WGS84 geodesics (:func:`subflow.io.tracks.resample`);
    the node's ``position`` becomes the first fix. The scenario must be geographic.
    """
    limit = settings.MAX_TRACK_BYTES
    data = await file.read(limit + 1)
    check_size(len(data), limit)  # TrackTooLarge → 413 naming MAX_TRACK_BYTES
    if node_id not in {n.get("id") for n in row.document.get("nodes", [])}:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no node {node_id!r} in the scenario")
    fixes = read_track(data, format, mmsi)  # TrackInvalid → 422 naming the line / field
    document = apply_track(row.document, node_id, fixes)  # ScenarioInvalid → 422
    check_scenario(load_scenario(document), settings.limits)
    versions = history.parse_if_match(if_match) if if_match else None
    expected = row.version if not versions or row.version in versions else versions[0]
    row = _save(history.save, session, row, document, expected, principal.user)
    audit.record(session, "scenario_update", user=principal.user, target=row.id, ip=client_ip(request),
                 detail={"version": row.version, "track": {"node": node_id, "format": format,
                                                           "fixes": len(fixes)}})
    response.headers["ETag"] = history.etag(row.version)
    return to_public(row)


@router.get(
    "/track.gpx",
    response_class=Response,
    responses={
        200: {"content": {"application/gpx+xml": {"schema": {"type": "string", "description": "GPX 1.1 XML text."}}},
              "description": "GPX 1.1 track, as an attachment."},
        **_NOT_FOUND,
        422: {"description": "The scenario is planar (no geographic track); `loc` names the node's position."},
    },
)
def export_track(row: ScenarioDep, node_id: str) -> Response:
    """The node's planned trajectory (every corner of its piecewise-linear path) as GPX 1.1.

    Times are seconds from the run start written from 1970-01-01T00:00:00Z; latitude/longitude
    are the local frame's corners projected back to WGS84 (pyproj), elevation is ``alt_m``.
    """
    sc = load_scenario(row.document)
    ids = [n.id for n in sc.nodes]
    if node_id not in ids:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no node {node_id!r} in the scenario")
    if not sc.is_geo:
        from subflow.errors import ScenarioInvalid

        raise ScenarioInvalid([{"loc": ["nodes", ids.index(node_id), "position"],
                                "msg": "the scenario is planar (x_m/y_m): GPX export needs a geographic scenario"}])
    body = write_gpx(node_id, node_geo_track(sc, node_id))
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{row.name}-{node_id}").strip("-") or "track"
    return Response(content=body, media_type="application/gpx+xml",
                    headers={"Content-Disposition": f'attachment; filename="{safe}.gpx"'})
