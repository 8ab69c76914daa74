"""Every kernel run's output passes :func:`subflow.runplan.output_checks.check_output` before anyone sees it:
through the engine registry (CLI, in-process comparisons) and through the agent (worker runs).

The engine here is an ``EngineInfo`` whose entry point returns a fixed output (named fake: no kernel is
needed to test the wiring); the bounds come from the scenario (a 10 Mbit/s access link).
"""

from __future__ import annotations

import dataclasses

import pytest

from subflow.errors import EngineInvariantViolated
from subflow.results.document import EngineOutput, FlowSeries, SubflowSeries
from subflow.runplan.output_checks import check_output
from subflow.runplan.resolve import resolve_plan
from subflow_agent import app as agent_app
from subflow_engines import EngineInfo, all_engines
from subflow_engines.linux import FIELDS as LINUX_FIELDS


def _plan():
    doc = {"name": "checked",
           "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
           "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10, "queue_packets": 50}],
           "flows": [{"id": "f", "src": "a", "dst": "b"}],
           "run": {"duration_s": 60, "interval_s": 1.0}}
    return resolve_plan(doc, "sptcp", "linux")


def _impossible_output(plan) -> EngineOutput:
    """40 s at 25 Mbit/s over a 10 Mbit/s link: 600 Mbit more than it carried."""
    ts = [float(k) for k in range(60)]
    values = [9.5] * 20 + [25.0] * 40
    sub = SubflowSeries(id="f", path=["a", "b"], t_s=ts, throughput_mbps=values)
    return EngineOutput(engine="linux", strategy=plan.strategy, events=[],
                        flows=[FlowSeries(id="f", src="a", dst="b", t_s=ts, throughput_mbps=values, subflows=[sub])])


def _fake_kernel_engine() -> EngineInfo:
    return EngineInfo(name="linux", description="fake kernel engine returning a fixed output",
                      run_unchecked=lambda plan, **kw: _impossible_output(plan), fields=LINUX_FIELDS,
                      check_output=check_output)


def test_the_kernel_engines_are_registered_with_the_output_check():
    engines = all_engines()
    assert engines["linux"].check_output is check_output
    assert engines["mininet-wifi"].check_output is not None
    assert engines["fluid"].check_output is None  # checks itself at every sample


def test_the_registry_refuses_an_impossible_output():
    with pytest.raises(EngineInvariantViolated, match="path_capacity") as info:
        _fake_kernel_engine().run(_plan())
    assert (info.value.flow, info.value.link) == ("f", "a-b:a>b")


def test_the_agent_fails_the_run_naming_the_flow_and_link(monkeypatch):
    monkeypatch.setattr(agent_app, "get_engine", lambda name: _fake_kernel_engine())
    run = agent_app._Run(_plan())
    agent_app._execute(run)
    assert run.status == "failed" and run.output is None
    assert "path_capacity" in run.error and "flow f" in run.error and "a-b:a>b" in run.error


def test_without_the_check_the_same_output_would_pass():
    """The refusal comes from the check, not from the fake's output being malformed."""
    unchecked = dataclasses.replace(_fake_kernel_engine(), check_output=None)
    assert unchecked.run(_plan()).flows[0].throughput_mbps[-1] == 25.0
