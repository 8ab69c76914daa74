"""The fluid engine checks its own output on every run and fails loudly, naming the flow, the
link and the time; result documents refuse non-finite numbers."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from pydantic import ValidationError

from subflow.errors import EngineInvariantViolated
from subflow.results.document import FlowSeries
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import load_scenario
from subflow_engines.fluid import run, scalar
from subflow_engines.fluid.queues import forwarding_order, serve


def _parking_lot() -> dict:
    """Three 10 Mbit/s bottlenecks in a row, one long flow across all and one short flow on each."""
    nodes = [{"id": f"r{i}", "kind": "router"} for i in range(4)]
    links = [{"id": f"b{i}", "src": f"r{i}", "dst": f"r{i + 1}", "bandwidth_mbps": 10.0, "delay_ms": 5.0,
              "queue_packets": 50} for i in range(3)]
    flows = [{"id": "long", "src": "r0", "dst": "r3"}] + [
        {"id": f"s{i}", "src": f"r{i}", "dst": f"r{i + 1}"} for i in range(3)]
    return {"name": "parking-lot", "nodes": nodes, "links": links, "flows": flows,
            "run": {"duration_s": 10.0, "interval_s": 1.0}}


def doubling_serve(*args):
    """:func:`subflow_engines.fluid.queues.serve`, then twice the bits out of each row's last hop: a
    network step that creates bits (patched into the scalar kernel by the tests of a broken run)."""
    overflow = serve(*args)
    got = args[list(inspect.signature(serve.py_func).parameters).index("got")]
    got *= 2.0
    return overflow


def test_result_models_refuse_nan_and_infinity():
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValidationError, match="finite"):
            FlowSeries(id="f", src="a", dst="b", t_s=[0.0], throughput_mbps=[bad], subflows=[])


def test_a_network_step_that_creates_bits_fails_the_run_naming_flow_link_and_time(monkeypatch):
    """A network step that hands a flow twice what its last hop sent (a bug of the kind that once
    gave 10^96 Mbit/s) ends the run with EngineInvariantViolated, not a result."""

    monkeypatch.setattr(scalar, "serve", doubling_serve)
    plan = resolve_plan(load_scenario(_parking_lot()), "sptcp", "fluid")
    with pytest.raises(EngineInvariantViolated) as info:
        run(plan, kernel="scalar")
    err = info.value
    assert err.t_s >= 0.0 and err.value > err.bound
    assert err.flow in {"long", "s0", "s1", "s2"} or err.link is not None
    assert "fluid engine broke an invariant" in str(err) and f"t = {err.t_s:g} s" in str(err)


def test_the_parking_lot_shares_each_bottleneck_within_its_capacity():
    """Every bottleneck carries the long flow and its short flow: their sum stays within the
    bottleneck's goodput capacity (10 Mbit/s × 1448/1514) in every sample after the first, and
    near it on average (the queues keep the links busy)."""
    plan = resolve_plan(load_scenario(_parking_lot()), "sptcp", "fluid")
    for kernel in ("scalar", "vector"):
        out = run(plan, kernel=kernel)
        by_id = {f.id: np.array(f.throughput_mbps) for f in out.flows}
        cap = 10.0 * 1448 / 1514
        for i in range(3):
            total = by_id["long"] + by_id[f"s{i}"]
            assert (total[1:] <= cap * 1.02).all(), (kernel, i, total)
            assert total[2:].mean() > 0.85 * cap, (kernel, i, total)
        assert by_id["long"][2:].mean() < min(by_id[f"s{i}"][2:].mean() for i in range(3))  # the long RTT loses


def test_forwarding_order_serves_feeders_first_and_breaks_cycles():
    order, rank = forwarding_order([[3, 1, 2], [1, 2, 0]], 5)
    assert order == [3, 1, 2, 0] and rank[4] == -1
    # a cycle (0 feeds 1 on one path, 1 feeds 0 on another): still every resource once
    order, rank = forwarding_order([[0, 1], [1, 0]], 2)
    assert sorted(order) == [0, 1]


def test_a_stopped_flow_sends_nothing_when_another_flow_opens_at_its_stop_time():
    """A flow whose stop time lies a rounding error above the moment another flow's handshake
    completes (3.0·0.8 = 2.4000000000000004 against a 2.4 s round trip) stops there in both
    kernels: the vectorised kernel refreshed its live flows at 2.4, took the stop for "now" and
    never looked again, so the stopped flow kept sending to the end of the run."""
    nodes = [{"id": n, "kind": "host"} for n in ("a", "b", "c", "d")]
    links = [{"id": "ab", "src": "a", "dst": "b", "bandwidth_mbps": 10.0, "delay_ms": 2.5},
             {"id": "cd", "src": "c", "dst": "d", "bandwidth_mbps": 10.0, "delay_ms": 1200.0}]
    flows = [{"id": "stops", "src": "a", "dst": "b", "stop_s": 3.0 * 0.8},
             {"id": "opens", "src": "c", "dst": "d"}]
    doc = {"name": "stop-open", "nodes": nodes, "links": links, "flows": flows,
           "run": {"duration_s": 4.0, "interval_s": 0.1}}
    plan = resolve_plan(load_scenario(doc), "sptcp", "fluid")
    for kernel in ("scalar", "vector"):
        out = run(plan, kernel=kernel)
        stops = next(f for f in out.flows if f.id == "stops")
        after = [v for t, v in zip(stops.t_s, stops.throughput_mbps) if t >= 2.5 - 1e-9]
        assert after and max(after) == 0.0, (kernel, after)
        assert max(stops.throughput_mbps) > 5.0, kernel  # it did run before its stop
