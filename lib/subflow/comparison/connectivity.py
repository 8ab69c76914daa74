"""Connectivity checks of a scenario: the certain refusal before a run, and save-time warnings.

:func:`check_connectable` refuses a flow whose endpoints are never joined (a comparison request is refused
with it). :func:`scenario_warnings` lists what a valid scenario allows but a planner most likely did not mean;
a warning never blocks saving or running; the editor shows it next to the element it names.

* ``flow_unreachable``: a flow's endpoints have no path during part (or all) of its active window,
  not counting a handover's association delay (from the same interval resolution a run uses, :func:`subflow.runplan.resolve.resolve_plan`, with the
  single-path ``sptcp`` policy: a flow with no path under it has none under any strategy).
* ``path_beyond_run``: a waypoint path whose last waypoint is timed after ``run.duration_s``
  (the rest of the path is never travelled).
"""

from __future__ import annotations

from typing import Literal

import networkx as nx
from pydantic import BaseModel, Field

from subflow.errors import FlowUnreachable, Unreachable
from subflow.radio.association import association_timeline
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import Scenario, WaypointsMobility

WarningCode = Literal["flow_unreachable", "path_beyond_run"]


class ScenarioWarning(BaseModel):
    """One warning: ``loc`` is the document path of the element (``["flows", 0]``, ``["nodes", 2, "mobility"]``),
    ``message`` a sentence naming the element by id and the times in seconds."""

    code: WarningCode
    loc: list[str | int] = Field(description="Path of the element in the scenario document (0-based indices).")
    message: str
    t_start_s: float | None = Field(default=None, description="Start of the affected time span, seconds.")
    t_end_s: float | None = Field(default=None, description="End of the affected time span, seconds.")


def _fmt(t: float) -> str:
    return f"{t:g}"


def _flow_gaps(scenario: Scenario) -> dict[str, list[tuple[float, float]]]:
    """Per flow id, the spans (seconds) of its active window with no path; ``[(start, stop)]`` if never reachable.

    Flows never reachable make :func:`resolve_plan` raise :class:`Unreachable`: they are recorded and
    removed, and the rest resolved again (at most once per flow).
    """
    gaps: dict[str, list[tuple[float, float]]] = {}
    current = scenario
    duration = scenario.run.duration_s
    for _ in range(len(scenario.flows) + 1):
        if not current.flows:
            break
        try:
            plan = resolve_plan(current, "sptcp")
        except Unreachable as err:
            f = next(f for f in current.flows if f.id == err.flow_id)
            gaps[f.id] = [(f.start_s, f.stop_s if f.stop_s is not None else duration)]
            current = current.model_copy(update={"flows": [g for g in current.flows if g.id != f.id]})
            continue
        for fp in plan.flows:
            spans: list[tuple[float, float]] = []
            for s in fp.segments:
                if s.subflows:
                    continue
                if spans and abs(spans[-1][1] - s.t_start_s) < 1e-9:
                    spans[-1] = (spans[-1][0], s.t_end_s)
                else:
                    spans.append((s.t_start_s, s.t_end_s))
            if spans:
                gaps[fp.id] = spans
        break
    return _without_handovers(scenario, gaps)


def _without_handovers(scenario: Scenario, gaps: dict[str, list[tuple[float, float]]]) -> dict[str, list[tuple[float, float]]]:
    """Drop the gaps that lie within an association in progress of the flow's station (a handover's
    association delay: expected, and shown as a handover on the results page)."""
    if not gaps:
        return gaps
    pending = association_timeline(scenario).associations
    ends = {f.id: (f.src, f.dst) for f in scenario.flows}
    out: dict[str, list[tuple[float, float]]] = {}
    for fid, spans in gaps.items():
        kept = [
            (t0, t1) for t0, t1 in spans
            if not any(a.station in ends[fid] and a.t_start_s <= t0 + 1e-9 and t1 <= a.t_associated_s + 1e-9
                       for a in pending)
        ]
        if kept:
            out[fid] = kept
    return out


def check_connectable(scenario: Scenario) -> None:
    """Refuse a flow whose endpoints no link and no association ever join.

    The graph is the union over the whole run of the links (up or down) and of
    the associations that carry traffic (:func:`subflow.radio.association.association_timeline`),
    so a refusal is certain; the converse is the worker's to find.

    Raises
    ------
    FlowUnreachable
        For the first such flow, with its index in ``scenario.flows``.
    """
    graph = nx.Graph()
    graph.add_nodes_from(n.id for n in scenario.nodes)
    graph.add_edges_from((link.src, link.dst) for link in scenario.links)
    timeline = association_timeline(scenario)
    graph.add_edges_from(
        (a.station, a.access_point) for a in timeline.associations if a.t_associated_s < a.t_end_s
    )
    for i, f in enumerate(scenario.flows):
        if not nx.has_path(graph, f.src, f.dst):
            raise FlowUnreachable(i, f.id, f.src, f.dst)


def scenario_warnings(scenario: Scenario) -> list[ScenarioWarning]:
    """Warnings of a valid scenario, flows first, then nodes, in document order.

    Parameters
    ----------
    scenario : Scenario
        A validated scenario (callers check the MAX_* limits first: this resolves every interval).

    Returns
    -------
    list of ScenarioWarning
        Empty when nothing looks unintended.
    """
    out: list[ScenarioWarning] = []
    duration = scenario.run.duration_s
    gaps = _flow_gaps(scenario)
    for i, f in enumerate(scenario.flows):
        for t0, t1 in gaps.get(f.id, []):
            stop = f.stop_s if f.stop_s is not None else duration
            whole = t0 <= f.start_s and t1 >= stop
            when = "at any time of the run" if whole else f"from {_fmt(t0)} s to {_fmt(t1)} s"
            out.append(ScenarioWarning(
                code="flow_unreachable", loc=["flows", i],
                message=f"Flow {f.id} ({f.src} → {f.dst}) has no path {when}.", t_start_s=t0, t_end_s=t1))
    for i, n in enumerate(scenario.nodes):
        mob = getattr(n, "mobility", None)
        if isinstance(mob, WaypointsMobility) and mob.points and mob.points[-1].t_s > duration:
            end = mob.points[-1].t_s
            out.append(ScenarioWarning(
                code="path_beyond_run", loc=["nodes", i, "mobility"],
                message=f"The path of {n.id} ends at {_fmt(end)} s, after the run's {_fmt(duration)} s: "
                        f"its last {_fmt(round(end - duration, 3))} s are never travelled.",
                t_start_s=duration, t_end_s=end))
    return out
