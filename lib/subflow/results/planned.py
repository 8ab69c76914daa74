"""Planned next to measured: the subflow rates a plan set, and the link loads they imply, against the run.

``mptcp-fdm``'s controller (:mod:`subflow.runplan.controller`) records each allocation
as an ``allocation_change`` event whose ``rates_mbps`` are the subflow rate
limits from that time on. :func:`plan_comparison` turns those events into a
planned rate per subflow sample and, over a time window, compares the planned
and the measured load of every wired link.

Definitions, stated:

* The planned rate of a subflow at ``t`` is its ``rates_mbps`` entry in the
  last ``allocation_change`` at or before ``t``; none (null) before the first
  allocation naming it or when the last allocation does not name it.
* A subflow's path at ``t`` follows its path events (``subflow_up``,
  ``route_change``, ``route_lost``, ``subflow_down``), as the result page does
  (``frontend/src/lib/routes.ts`` ``subflowPathAt``); without events it is the
  series' ``path``.
* A link's load in one direction at sample ``k`` is the sum of the rates
  (planned or measured) of the subflows whose path crosses it in that
  direction; its utilization is the busier direction's load over
  ``bandwidth_mbps``. Wireless hops (a station and its access point) are not
  scenario links and are left out. Window means are over the samples whose
  start lies in ``[t0_s, t1_s)``.

References
----------
.. [1] Zhao et al., "SDN-based MPTCP for tactical networks", MILCOM 2018,
   §IV and §V.C (the controller's per-subflow rate limits).
"""

from __future__ import annotations

from collections.abc import Sequence

from subflow.results.document import (
    AllocationChange,
    Event,
    LinkPlanUsage,
    PlanComparison,
    PlannedSubflow,
    RouteChange,
    StrategyResult,
)
from subflow.scenario.document import Scenario

_PATH_KINDS = ("subflow_up", "route_change", "route_lost", "subflow_down")


def has_rate_plan(result: StrategyResult) -> bool:
    """True if the strategy's plan set subflow rates (it has ``allocation_change`` events)."""
    return any(isinstance(e, AllocationChange) for e in result.events)


def path_at(events: Sequence[Event], subflow: str, t: float, fallback: Sequence[str]) -> list[str]:
    """Node path ``subflow`` used at ``t`` (seconds), from its path events.

    The path of the last ``subflow_up``/``route_change``/``route_lost``/``subflow_down`` at or
    before ``t``; before its first event, the path that event names as in use (``previous_path``
    of a ``route_change``, else its ``path``); without events, ``fallback``.
    """
    mine = sorted((e for e in events if e.kind in _PATH_KINDS and getattr(e, "subflow", None) == subflow),
                  key=lambda e: e.t_s)
    current: list[str] | None = None
    for e in mine:
        if e.t_s > t:
            if current is not None:
                return current
            if isinstance(e, RouteChange) and e.previous_path:
                return list(e.previous_path)
            return list(e.path)
        current = list(e.path)
    return current if current is not None else list(fallback)


def planned_rates(result: StrategyResult) -> list[PlannedSubflow]:
    """Planned rate (Mbit/s, or None) of every subflow at the start of each of its samples."""
    allocations = sorted((e for e in result.events if isinstance(e, AllocationChange)), key=lambda e: e.t_s)
    out = []
    for f in result.flows:
        for s in f.subflows:
            rates: list[float | None] = []
            j, current = 0, None
            for t in s.t_s:
                while j < len(allocations) and allocations[j].t_s <= t + 1e-9:
                    current = allocations[j].rates_mbps
                    j += 1
                rates.append(None if current is None else current.get(s.id))
            out.append(PlannedSubflow(flow=f.id, subflow=s.id, planned_mbps=rates))
    return out


def plan_comparison(scenario: Scenario, result: StrategyResult, t0_s: float = 0.0,
                    t1_s: float | None = None) -> PlanComparison:
    """Planned per-subflow rates and, over ``[t0_s, t1_s)``, planned vs measured load of each wired link.

    Parameters
    ----------
    scenario : Scenario
        The scenario as run (its links give the capacities, Mbit/s).
    result : StrategyResult
        The strategy's result; its ``allocation_change`` events are the plan.
    t0_s, t1_s : float
        Window of the link table, seconds; ``t1_s`` None: the end of the run (``run.duration_s``).

    Returns
    -------
    PlanComparison
        ``links`` in the scenario's link order, each with the mean planned and measured load
        (Mbit/s) and utilization (fraction of ``bandwidth_mbps``, busier direction).

    Raises
    ------
    ValueError
        If ``t1_s`` <= ``t0_s``.
    """
    end = float(scenario.run.duration_s) if t1_s is None else float(t1_s)
    if not end > t0_s:
        raise ValueError(f"t1_s = {end:g} must be greater than t0_s = {t0_s:g}")
    planned = planned_rates(result)
    by_pair: dict[tuple[str, str], int] = {}
    links = list(scenario.links)
    for i, link in enumerate(links):
        by_pair.setdefault((link.src, link.dst), i)
        by_pair.setdefault((link.dst, link.src), i)
    # per link: [forward planned, backward planned, forward measured, backward measured] summed over samples
    sums = [[0.0, 0.0, 0.0, 0.0] for _ in links]
    times: set[float] = set()
    plan_of = {p.subflow: p for p in planned}
    for f in result.flows:
        for s in f.subflows:
            plan = plan_of[s.id].planned_mbps
            for k, t in enumerate(s.t_s):
                if not (t0_s - 1e-9 <= t < end - 1e-9):
                    continue
                times.add(round(t, 9))
                measured = s.throughput_mbps[k] if k < len(s.throughput_mbps) else 0.0
                rate = plan[k] or 0.0
                if measured <= 0.0 and rate <= 0.0:
                    continue
                nodes = path_at(result.events, s.id, t, s.path)
                for a, b in zip(nodes, nodes[1:]):
                    i = by_pair.get((a, b))
                    if i is None:
                        continue
                    back = int(links[i].src != a)
                    sums[i][back] += rate
                    sums[i][2 + back] += measured
    n = max(1, len(times))
    rows = []
    for link, (pf, pb, mf, mb) in zip(links, sums):
        p, m = max(pf, pb) / n, max(mf, mb) / n
        cap = float(link.bandwidth_mbps)
        rows.append(LinkPlanUsage(link=link.id, src=link.src, dst=link.dst, bandwidth_mbps=cap, planned_mbps=p,
                                  measured_mbps=m, planned_utilization=p / cap, measured_utilization=m / cap))
    return PlanComparison(strategy=result.strategy, t0_s=float(t0_s), t1_s=end, subflows=planned, links=rows)
