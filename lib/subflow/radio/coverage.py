"""Coverage of a scenario's access points at one time: the air rate a station would get, on a grid.

The editor draws this grid as a heat map at the scrubbed time; the rule is the run planner's
(:func:`subflow.radio.association.hop_budget`, :func:`~subflow.radio.association.hop_range_m`,
:func:`~subflow.radio.association.hop_rate_steps`), so the map shows what a station placed there would be
given: within an access point's range, the rate of its ``rate_table`` or of the MCS its SNR reaches
(:mod:`subflow.radio.propagation`), else ``wireless_bandwidth_mbps``; capped by ``wireless_bandwidth_mbps``; the
best access point wins. The probe station has no radio of its own (0 dBi, the access point's transmit
power both ways) and stands on the ground (altitude 0 m, antenna 1 m above it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from subflow.radio.association import hop_budget, hop_range_m, hop_rate_steps
from subflow.scenario.document import AccessPointNode, Scenario, StationNode
from subflow.space.mobility import Leg, position3_at, to_local, trajectory


#: the grid covers at most this far from an access point (metres; a range_m of 1e300 stays drawable)
_MAX_REACH_M = 1e7


@dataclass(frozen=True)
class CoverageGrid:
    """Rates on a regular grid of the local frame.

    ``rates_mbps[j][i]`` is the rate at ``x = x_min_m + (i + 0.5)·cell_m``, ``y = y_min_m + (j + 0.5)·cell_m``
    (row 0 the southernmost), Mbit/s, 0 out of every access point's range. ``levels_mbps``: the distinct
    rates the access points can give, ascending (the legend).
    """

    t_s: float
    x_min_m: float
    y_min_m: float
    cell_m: float
    nx: int
    ny: int
    rates_mbps: list[list[float]]
    levels_mbps: list[float]
    access_points: list[str]
    #: where each access point is at ``t_s`` (local frame metres ``[x_m, y_m]``)
    positions_m: dict[str, tuple[float, float]]


def coverage_grid(scenario: Scenario, t_s: float, cells: int = 48) -> CoverageGrid:
    """The coverage of every access point of ``scenario`` at ``t_s`` on a ``cells`` × ``cells`` grid.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario (planar or geographic: computed in the local frame of :mod:`subflow.scenario.geodesy`).
    t_s : float
        Time, seconds (positions of moving access points at that time), clipped to the run.
    cells : int
        Cells per side; the grid is the square around every access point's range (its ``range_m``,
        capped by the radio range).

    Returns
    -------
    CoverageGrid
        Empty (``nx = ny = 0``) when the scenario has no access point.
    """
    local = to_local(scenario)
    duration = local.run.duration_s
    t = min(max(t_s, 0.0), duration)
    aps = [n for n in local.nodes if isinstance(n, AccessPointNode)]
    if not aps:
        return CoverageGrid(t, 0.0, 0.0, 0.0, 0, 0, [], [], [], {})
    probe = StationNode(id="probe")
    legs = {ap.id: trajectory(ap, duration, local.run.seed) for ap in aps}
    legs["probe"] = [Leg(0.0, duration, 0.0, 0.0, 0.0, 0.0)]
    hops = []
    for ap in aps:
        budget = hop_budget(local, ap, probe, legs)
        reach = min(hop_range_m(budget, ap), _MAX_REACH_M)
        x, y, z = position3_at(legs[ap.id], t)
        hops.append((ap, (x, y, z), reach, hop_rate_steps(budget, ap)))
    x_min = min(c[0] - r for _, c, r, _ in hops)
    x_max = max(c[0] + r for _, c, r, _ in hops)
    y_min = min(c[1] - r for _, c, r, _ in hops)
    y_max = max(c[1] + r for _, c, r, _ in hops)
    side = max(x_max - x_min, y_max - y_min)
    cell = side / cells
    x_min -= (side - (x_max - x_min)) / 2
    y_min -= (side - (y_max - y_min)) / 2
    xs = x_min + (np.arange(cells) + 0.5) * cell
    ys = y_min + (np.arange(cells) + 0.5) * cell
    gx, gy = np.meshgrid(xs, ys)
    best = np.zeros_like(gx)
    levels: set[float] = set()
    for ap, (cx, cy, cz), reach, steps in hops:
        d = np.sqrt((gx - cx) ** 2 + (gy - cy) ** 2 + cz**2)
        if steps is None:
            rate = np.full_like(d, ap.wireless_bandwidth_mbps)
            levels.add(ap.wireless_bandwidth_mbps)
        else:
            dist = np.array([s[0] for s in steps])
            rates = np.array([min(s[1], ap.wireless_bandwidth_mbps) for s in steps])
            k = np.minimum(np.searchsorted(dist, d, side="left"), len(steps) - 1)
            rate = rates[k]
            levels.update(float(r) for r in rates)
        rate = np.where(d <= reach, rate, 0.0)
        best = np.maximum(best, rate)
    return CoverageGrid(
        t_s=t, x_min_m=float(x_min), y_min_m=float(y_min), cell_m=float(cell), nx=cells, ny=cells,
        rates_mbps=[[float(v) for v in row] for row in best], levels_mbps=sorted(levels),
        access_points=[ap.id for ap in aps],
        positions_m={ap.id: (float(c[0]), float(c[1])) for ap, c, _, _ in hops},
    )

