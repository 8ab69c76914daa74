"""``/api/coverage``: the air rate a station would get around the access points, on a grid, at one time.

The editor posts the document it is editing (saved or not) and the scrubbed time, and draws the answer
as a heat map with its legend; nothing is stored. The grid is the domain library's
(:func:`subflow.radio.coverage.coverage_grid`), whose rule is the run planner's.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, Field

from subflow.radio.coverage import coverage_grid
from subflow.scenario.document import load_scenario
from subflow.scenario.geodesy import frame_of
from subflow.service.limits import Limits, check_scenario

from subflow_backend import compute
from subflow_backend.settings import settings

router = APIRouter(prefix="/coverage", tags=["coverage"])


class CoveragePublic(BaseModel):
    """Answer of ``POST /api/coverage``: a ``ny`` × ``nx`` grid of rates, row 0 the southernmost.

    Cell (i, j) is centred at ``x_min_m + (i + 0.5)·cell_m``, ``y_min_m + (j + 0.5)·cell_m`` in the
    scenario's plane (metres; the local frame of a geographic scenario, whose corners are also given
    in WGS84 as ``geo_bounds``).
    """

    t_s: float = Field(description="The time of the grid, seconds.")
    x_min_m: float
    y_min_m: float
    cell_m: float = Field(description="Side of a cell, metres.")
    nx: int
    ny: int
    rates_mbps: list[list[float]] = Field(
        description="Per row (south to north) and column (west to east): the best access point's air rate for "
        "a station there, Mbit/s (0: out of range).")
    levels_mbps: list[float] = Field(description="The distinct rates the access points can give, ascending (legend).")
    access_points: list[str] = Field(description="Access points the grid covers.")
    positions_m: dict[str, tuple[float, float]] = Field(
        description="Where each access point is at t_s: ``[x_m, y_m]`` in the grid's plane.")
    geo_bounds: tuple[tuple[float, float], tuple[float, float]] | None = Field(
        default=None, description="Geographic scenarios only: ``[[lat_deg, lon_deg] south-west, [lat_deg, lon_deg] "
        "north-east]`` of the grid.")


@router.post(
    "",
    response_model=CoveragePublic,
    responses={422: {"description": "Invalid scenario (`detail[].loc` is `['body', ...path]`), a document "
                                    "over a MAX_* limit, or t_s/cells out of range (`['query', ...]`)."}},
)
def compute_coverage(
    document: dict[str, Any] = Body(description="A scenario document (validated as POST /api/scenarios does)."),
    t_s: float = Query(default=0.0, ge=0, le=86_400, description="Time, seconds (moving access points are where "
                       "they are then); clipped to the run."),
    cells: int = Query(default=48, ge=4, le=128, description="Grid cells per side."),
) -> CoveragePublic:
    """Coverage heat map of a scenario document's access points at ``t_s`` (not stored).

    Per cell: the rate a station standing there (ground level, no radio of its own) would get from
    the best access point in range — from its ``rate_table``, else from the MCS its SNR reaches under
    ``radio.propagation`` (:mod:`subflow.radio.propagation`, IEEE 802.11-2020 sensitivity tables), else
    ``wireless_bandwidth_mbps``.
    """
    return compute.run(coverage_of, document, t_s, cells, settings.limits)


def coverage_of(document: dict[str, Any], t_s: float, cells: int, limits: Limits) -> CoveragePublic:
    """The answer of :func:`compute_coverage` (run in :mod:`subflow_backend.compute`'s pool). Raises
    ScenarioInvalid or LimitExceeded (→ 422 at the API edge, ``loc`` ``["body", ...path]``)."""
    scenario = load_scenario(document)
    check_scenario(scenario, limits)
    grid = coverage_grid(scenario, t_s, cells)
    frame = frame_of(scenario)
    geo = None
    if frame is not None and grid.nx:
        s, w = frame.inverse(grid.x_min_m, grid.y_min_m)
        n, e = frame.inverse(grid.x_min_m + grid.nx * grid.cell_m, grid.y_min_m + grid.ny * grid.cell_m)
        geo = ((float(s), float(w)), (float(n), float(e)))
    return CoveragePublic(**grid.__dict__, geo_bounds=geo)
