"""``/api/timeline``: node trajectories, the association timeline, the SATCOM uses and inter-satellite links of a
scenario document.

The editor's time scrubber posts the document it is editing (saved or not) and
animates the answer; nothing is stored. The answer is read from the scenario's one network model over
time (:class:`subflow.runplan.topology.NetworkTimeline`, which runs and the planning requests read too),
so the scrubber shows exactly the associations, SATCOM uses and network windows a run and the planners use.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, Field

from subflow.results.document import RadioEvent, parse_radio_events
from subflow.scenario.document import load_scenario
from subflow.scenario.geodesy import frame_of, geo_corners
from subflow.service.limits import Limits, check_scenario
from subflow.space.access import AccessPass, access_report
from subflow.space.mobility import Leg
from subflow.space.satcom import IslState, SatcomUse, ground_tracks, isl_states, satcom_uses
from subflow.runplan.topology import NetworkTimeline

from subflow_backend import compute
from subflow_backend.settings import settings

router = APIRouter(prefix="/timeline", tags=["timeline"])


class AssociationPublic(BaseModel):
    """One association: ``station`` starts associating with ``access_point`` at
    ``t_start_s``, carries traffic from ``t_associated_s`` and leaves at ``t_end_s``."""

    station: str
    access_point: str
    t_start_s: float
    t_associated_s: float
    t_end_s: float


class TimelinePublic(BaseModel):
    """Answer of ``POST /api/timeline``."""

    duration_s: float = Field(description="run.duration_s of the document, seconds.")
    trajectories: dict[str, list[tuple[float, float, float]]] = Field(
        description="Per node (every kind, moving or static), the corners of its piecewise-linear path: "
        "``[t_s, x_m, y_m]``, sorted by time, first at 0 and last at duration_s; positions between corners "
        "are linear. For a geographic scenario x_m/y_m are metres of its local frame (east/north of the origin)."
    )
    geo_trajectories: dict[str, list[tuple[float, float, float, float]]] | None = Field(
        default=None,
        description="Geographic scenarios only (else null): per node the same corners as ``[t_s, lat_deg, "
        "lon_deg, alt_m]`` (WGS84 degrees, metres), the local-frame corners projected back by pyproj.",
    )
    origin: tuple[float, float] | None = Field(
        default=None,
        description="Geographic scenarios only: ``[lat_deg, lon_deg]`` of the local frame's origin (Scenario.geo "
        "or the centroid of the nodes).",
    )
    associations: list[AssociationPublic]
    events: list[RadioEvent] = Field(description="Radio events, as in a result's ``events``.")
    satcom: list[SatcomUse] = Field(
        default_factory=list,
        description="Scenarios with satellites on orbits (satcom settings): every use of a satellite by a "
        "ground terminal, in time order, with the link's delay over it; empty otherwise.")
    isl: list[IslState] = Field(
        default_factory=list,
        description="Inter-satellite links (a link between two satellites on orbits): each one's visible and "
        "blocked intervals over the run, in time order, with its range (km) and one-way delay (ms); empty "
        "without them.")
    access: list[AccessPass] = Field(
        default_factory=list,
        description="With ``?access=true``, for scenarios with satellites on orbits: every pass of a satellite over a ground terminal (rise, "
        "set, highest elevation, the parts in use and, for a budgeted link, MODCOD and capacity at each change), "
        "by terminal then rise; empty otherwise.")
    ground_tracks: dict[str, list[tuple[float, float, float]]] = Field(
        default_factory=dict,
        description="Geographic scenarios with satellites on orbits (satcom settings): per satellite with an "
        "ephemeris, its sub-satellite points over the run, ``[t_s, lat_deg, lon_deg]`` (WGS84 degrees; at most "
        "361 per satellite, evenly spaced, the run's end included) for drawing ground tracks; empty otherwise.")
    windows: list[tuple[float, float]] = Field(
        description="The run cut where the network changes (an association starts or ends, a link or SATCOM "
        "outage starts or ends, an ad-hoc hop comes or goes): ``[t_start_s, t_end_s]`` pairs covering "
        "[0, duration_s], seconds. The routes, allocation and failure requests answer per window.")


def corners(legs: list[Leg]) -> list[tuple[float, float, float]]:
    """The ``(t_s, x_m, y_m)`` corners of a contiguous trajectory (start of every leg and end of the last)."""
    return [(t, x, y) for t, x, y, _ in corners3(legs)]


def corners3(legs: list[Leg]) -> list[tuple[float, float, float, float]]:
    """The ``(t_s, x_m, y_m, z_m)`` corners of a contiguous trajectory."""
    out = [(leg.t0_s, leg.x0_m, leg.y0_m, leg.z0_m) for leg in legs]
    if legs:
        last = legs[-1]
        out.append((last.t1_s, last.x1_m, last.y1_m, last.z1_m))
    return out


@router.post(
    "",
    response_model=TimelinePublic,
    responses={422: {"description": "Invalid scenario, or one over a MAX_* limit (MAX_TIMELINE_LEGS: legs of all "
                                    "trajectories); `detail[].loc` is `['body', ...path]`, as for scenarios."}},
)
def compute_timeline(
    document: dict[str, Any] = Body(description="A scenario document."),
    access: bool = Query(False, description="Also compute ``access``: each satellite pass over each terminal, "
                         "with MODCOD and capacity from the link budgets (costs the budgets, about a second for a "
                         "budgeted scenario; the editor's scrubber leaves it off)."),
) -> TimelinePublic:
    """Trajectories of every node, associations and radio events of a scenario document (not stored).

    The document is validated as ``POST /api/scenarios`` validates it (422 naming
    each field, ``loc`` starting with ``"body"``). For a geographic scenario the
    answer also has ``geo_trajectories`` (WGS84, pyproj inverse of the local
    aeqd frame, :mod:`subflow.scenario.geodesy`) and the frame's ``origin``. With satellites on
    orbits, ``satcom`` lists which satellite each ground terminal uses when, and the
    link's one-way delay over each use (:mod:`subflow.space.satcom`), and ``isl`` when each inter-satellite
    link is visible or blocked, with its range and delay, and ``ground_tracks`` each satellite's sub-satellite
    points; with ``?access=true``, ``access`` lists each pass of a
    satellite over a terminal (:mod:`subflow.space.access`). ``windows`` are the times between
    which the network is fixed (:meth:`subflow.runplan.topology.NetworkTimeline.windows`).
    """
    return compute.run(timeline_of, document, settings.limits, access)


def timeline_of(document: dict[str, Any], limits: Limits, access: bool = False) -> TimelinePublic:
    """The answer of :func:`compute_timeline` (run in :mod:`subflow_backend.compute`'s pool); ``access``: with
    the access report. Raises ScenarioInvalid, or LimitExceeded naming the MAX_* setting (→ 422 at the API edge)."""
    scenario = load_scenario(document)
    check_scenario(scenario, limits)
    network = NetworkTimeline(scenario)
    tl = network.timeline
    frame = frame_of(scenario)
    return TimelinePublic(
        duration_s=scenario.run.duration_s,
        trajectories={sid: corners(legs) for sid, legs in tl.trajectories.items()},
        geo_trajectories=None if frame is None else {
            sid: geo_corners(frame, legs) for sid, legs in tl.trajectories.items()},
        origin=None if frame is None else (frame.origin_lat_deg, frame.origin_lon_deg),
        associations=[AssociationPublic(**a.__dict__) for a in tl.associations],
        events=parse_radio_events(tl.events),
        satcom=satcom_uses(scenario, network.satcom),
        isl=isl_states(scenario, network.satcom),
        access=access_report(scenario, network.satcom) if access else [],
        ground_tracks=ground_tracks(scenario),
        windows=network.windows(),
    )
