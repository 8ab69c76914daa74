"""Per-terminal access report: each pass of a satellite over a ground terminal, as satellite tools report access.

For every SATCOM link (a ground terminal and a satellite on an orbit, :mod:`subflow.space.satcom`) a *pass* is
a maximal interval during which the satellite is at or above the terminal's elevation mask
(``satcom.elevation_mask_deg``): its rise and set (the mask crossings, interpolated linearly between geometry
samples as the SATCOM timeline does; the run's start or end when the satellite is already or still above
it), its maximum elevation and when, the parts of the pass the terminal actually uses the satellite (its
handover policy), and, for a link with a budget, the MODCOD and capacity of each direction at the start of the
pass and at every change (:func:`subflow.space.link_budget.link_budgets`: the ACM choice at each sample).

A geostationary satellite seen from a fixed terminal gives one pass covering the run.

References
----------
.. [1] ETSI EN 302 307-1 V1.4.1, §5 and Annex D (ACM: a terminal's MODCOD follows its Es/N0).
.. [2] D. A. Vallado, *Fundamentals of Astrodynamics and Applications*, 4th ed., §4.4 (site-track
   coordinates: elevation of a satellite seen from a site).
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, Field

from subflow.scenario.document import Scenario
from subflow.space.link_budget import LinkBudgetSeries, link_budgets
from subflow.space.satcom import SatcomLink, SatcomTimeline, satcom_timeline


class AccessStep(BaseModel):
    """From ``t_s`` on (until the next step or the pass's set), the link's MODCOD and capacity per direction."""

    t_s: float = Field(description="Seconds from the start of the run.")
    up_modcod: str | None = Field(description="Terminal → satellite MODCOD (EN 302 307 name); null: none closes.")
    down_modcod: str | None = Field(description="Satellite → terminal MODCOD; null: none closes.")
    up_capacity_mbps: float = Field(description="Terminal → satellite capacity, Mbit/s (0: no MODCOD closes).")
    down_capacity_mbps: float = Field(description="Satellite → terminal capacity, Mbit/s.")


class AccessPass(BaseModel):
    """One pass of ``satellite`` over ground ``terminal`` (link ``link``); ``POST /api/timeline`` ``access`` and
    ``subflow satcom --access``."""

    terminal: str
    satellite: str
    link: str
    rise_s: float = Field(description="Elevation rises through the mask (0 when already above it at the start), s.")
    set_s: float = Field(description="Elevation sets through the mask (the run's end when still above it), s.")
    max_elevation_deg: float = Field(description="Highest elevation over the pass, degrees.")
    t_max_elevation_s: float = Field(description="When the highest elevation is reached, s.")
    in_use: list[tuple[float, float]] = Field(
        description="``[t_start_s, t_end_s]`` parts of the pass during which the terminal uses this satellite "
        "(its handover policy); empty: visible but not used.")
    steps: list[AccessStep] | None = Field(
        default=None, description="Links with a budget: MODCOD and capacity at the rise and at every change; null "
        "without a budget.")


def _crossing(t0: float, t1: float, e0: float, e1: float, mask: float) -> float:
    """Time where the elevation, linear between ``(t0, e0)`` and ``(t1, e1)``, equals ``mask``."""
    return t0 if e1 == e0 else t0 + (mask - e0) / (e1 - e0) * (t1 - t0)


def _passes(lk: SatcomLink, mask: float, duration_s: float) -> list[tuple[float, float, int, int]]:
    """``(rise_s, set_s, first, last)``: each pass with its first and last sample index above the mask."""
    t, e = lk.t_s, lk.elevation_deg
    above = e >= mask
    out = []
    k, n = 0, len(t)
    while k < n:
        if not above[k]:
            k += 1
            continue
        first = k
        while k + 1 < n and above[k + 1]:
            k += 1
        rise = 0.0 if first == 0 else _crossing(t[first - 1], t[first], e[first - 1], e[first], mask)
        fall = duration_s if k == n - 1 else _crossing(t[k], t[k + 1], e[k], e[k + 1], mask)
        out.append((float(rise), float(min(fall, duration_s)), first, k))
        k += 1
    return out


def _steps(series: LinkBudgetSeries, first: int, last: int, rise_s: float) -> list[AccessStep]:
    out: list[AccessStep] = []
    for k in range(first, last + 1):
        step = AccessStep(t_s=round(rise_s if not out else float(series.t_s[k]), 3),
                          up_modcod=series.up_modcod[k], down_modcod=series.down_modcod[k],
                          up_capacity_mbps=round(float(series.up_capacity_mbps[k]), 6),
                          down_capacity_mbps=round(float(series.down_capacity_mbps[k]), 6))
        if not out or step.model_dump(exclude={"t_s"}) != out[-1].model_dump(exclude={"t_s"}):
            out.append(step)
    return out


def access_report(scenario: Scenario, timeline: SatcomTimeline | None = None) -> list[AccessPass]:
    """Every pass of every satellite over every ground terminal of a validated scenario (see the module
    docstring), sorted by terminal, then rise time.

    Parameters
    ----------
    scenario : Scenario
        Validated; without satellites on orbits the report is empty.
    timeline : SatcomTimeline, optional
        The scenario's :func:`subflow.space.satcom.satcom_timeline`, when the caller has it.

    Returns
    -------
    list of AccessPass
        Times in seconds from the start of the run, elevations in degrees, capacities in Mbit/s.
    """
    tl = satcom_timeline(scenario) if timeline is None else timeline
    if not tl.links:
        return []
    mask = scenario.satcom.elevation_mask_deg
    duration = scenario.run.duration_s
    budgets = link_budgets(scenario, tl)
    out = []
    for lk in tl.links.values():
        for rise, fall, first, last in _passes(lk, mask, duration):
            k = first + int(np.argmax(lk.elevation_deg[first:last + 1]))
            used = [(round(max(t0, rise), 3), round(min(t1, fall), 3)) for t0, t1 in lk.up
                    if min(t1, fall) > max(t0, rise)]
            series = budgets.get(lk.link)
            out.append(AccessPass(
                terminal=lk.terminal, satellite=lk.satellite, link=lk.link, rise_s=round(rise, 3),
                set_s=round(fall, 3), max_elevation_deg=round(float(lk.elevation_deg[k]), 3),
                t_max_elevation_s=round(float(lk.t_s[k]), 3), in_use=used,
                steps=None if series is None else _steps(series, first, last, rise)))
    return sorted(out, key=lambda p: (p.terminal, p.rise_s, p.satellite))


__all__ = ["AccessPass", "AccessStep", "access_report"]
