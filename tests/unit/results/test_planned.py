"""Planned next to measured: ``subflow.results.planned`` on hand-built results whose
expected planned rates and link loads are written out by hand."""

from __future__ import annotations

import pytest

from subflow.results.document import EngineOutput, parse_events, summarize
from subflow.results.planned import has_rate_plan, path_at, plan_comparison, planned_rates
from subflow.scenario.document import Scenario


def _scenario() -> Scenario:
    return Scenario.model_validate({
        "name": "planned",
        "nodes": [{"id": n, "kind": "host"} for n in ("a", "b", "c")],
        "links": [{"id": "ab", "src": "a", "dst": "b", "bandwidth_mbps": 10, "delay_ms": 1},
                  {"id": "bc", "src": "b", "dst": "c", "bandwidth_mbps": 4, "delay_ms": 1},
                  {"id": "ac", "src": "a", "dst": "c", "bandwidth_mbps": 2, "delay_ms": 1}],
        "flows": [{"id": "f", "src": "a", "dst": "c"}],
        "run": {"duration_s": 4, "interval_s": 1},
    })


def _result(events):
    t = [0.0, 1.0, 2.0, 3.0]
    out = EngineOutput.model_validate({
        "engine": "fluid", "strategy": "mptcp-fdm",
        "flows": [{"id": "f", "src": "a", "dst": "c", "t_s": t, "throughput_mbps": [3, 3, 3, 3], "subflows": [
            {"id": "f/long", "path": ["a", "b", "c"], "t_s": t, "throughput_mbps": [2, 2, 1, 1]},
            {"id": "f/short", "path": ["a", "c"], "t_s": t, "throughput_mbps": [1, 1, 2, 0]},
        ]}],
        "events": events,
    })
    return summarize(out, 1.0)


EVENTS = [
    {"t_s": 0.0, "kind": "allocation_change", "node": "controller", "moved_mbps": None, "tempered": 1.0,
     "mean_delay_s": 0.01, "rates_mbps": {"f/long": 2.5}},
    {"t_s": 2.0, "kind": "allocation_change", "node": "controller", "moved_mbps": 1.0, "tempered": 1.0,
     "mean_delay_s": 0.01, "rates_mbps": {"f/long": 1.5, "f/short": 1.0}},
]


def test_planned_rates_step_at_each_allocation():
    r = _result(EVENTS)
    assert has_rate_plan(r)
    got = {p.subflow: p.planned_mbps for p in planned_rates(r)}
    assert got == {"f/long": [2.5, 2.5, 1.5, 1.5], "f/short": [None, None, 1.0, 1.0]}


def test_link_loads_over_the_whole_run_and_a_window():
    r = _result(EVENTS)
    whole = {row.link: row for row in plan_comparison(_scenario(), r).links}
    # ab and bc carry f/long: planned (2.5+2.5+1.5+1.5)/4 = 2, measured (2+2+1+1)/4 = 1.5
    assert whole["ab"].planned_mbps == pytest.approx(2.0) and whole["ab"].measured_mbps == pytest.approx(1.5)
    assert whole["bc"].planned_utilization == pytest.approx(2.0 / 4)
    assert whole["bc"].measured_utilization == pytest.approx(1.5 / 4)
    # ac carries f/short: planned (0+0+1+1)/4 = 0.5, measured (1+1+2+0)/4 = 1
    assert whole["ac"].planned_mbps == pytest.approx(0.5) and whole["ac"].measured_utilization == pytest.approx(0.5)
    late = {row.link: row for row in plan_comparison(_scenario(), r, 2.0, 4.0).links}
    assert late["ac"].planned_mbps == pytest.approx(1.0) and late["ac"].measured_mbps == pytest.approx(1.0)
    assert late["ab"].planned_mbps == pytest.approx(1.5) and late["ab"].measured_mbps == pytest.approx(1.0)


def test_paths_follow_route_changes():
    events = EVENTS + [
        {"t_s": 0.0, "kind": "subflow_up", "node": "a", "flow": "f", "subflow": "f/short", "path": ["a", "c"]},
        {"t_s": 2.0, "kind": "route_change", "node": "a", "flow": "f", "subflow": "f/short",
         "path": ["a", "b", "c"], "previous_path": ["a", "c"]},
    ]
    r = _result(events)
    r.events = parse_events(events)
    assert path_at(r.events, "f/short", 1.0, []) == ["a", "c"]
    assert path_at(r.events, "f/short", 2.5, []) == ["a", "b", "c"]
    late = {row.link: row for row in plan_comparison(_scenario(), r, 2.0, 4.0).links}
    # from 2 s f/short crosses ab and bc: measured ab = ((1+2) + (1+0)) / 2 = 2
    assert late["ab"].measured_mbps == pytest.approx(2.0) and late["ac"].measured_mbps == 0.0
    assert late["ab"].planned_mbps == pytest.approx(1.5 + 1.0)


def test_no_plan_and_bad_window():
    r = _result([])
    assert not has_rate_plan(r)
    with pytest.raises(ValueError, match="t1_s"):
        plan_comparison(_scenario(), _result(EVENTS), 3.0, 2.0)
