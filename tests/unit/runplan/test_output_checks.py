"""The physical checks of a kernel engine's measured output (:mod:`subflow.runplan.output_checks`).

Outputs are written by hand here, with the figures a real run showed (the iperf3 -b burst after an
outage, naval-geo's 9.5 Mbit/s for a 4 Mbit/s flow), against bounds computed from the scenario's own
numbers: a 10 Mbit/s access link, a 100-packet queue, a 4 Mbit/s rate.
"""

from __future__ import annotations

import pytest

from subflow.errors import EngineInvariantViolated
from subflow.results.document import EngineOutput, FlowSeries, SubflowSeries
from subflow.runplan.output_checks import RECEIVE_BUFFER_BITS, check_output
from subflow.runplan.resolve import resolve_plan

DURATION_S = 60


def _scenario(rate_mbps: float | None = None, wifi: bool = False) -> dict:
    if wifi:
        nodes = [{"id": "m", "kind": "station", "position": {"x_m": 10, "y_m": 0}},
                 {"id": "ap", "kind": "access_point", "position": {"x_m": 0, "y_m": 0}, "range_m": 100,
                  "wireless_bandwidth_mbps": 10, "queue_packets": 100},
                 {"id": "b", "kind": "host"}]
        links = [{"id": "ap-b", "src": "ap", "dst": "b", "bandwidth_mbps": 100, "delay_ms": 5, "queue_packets": 100}]
        src = "m"
    else:
        nodes = [{"id": "a", "kind": "host"}, {"id": "r", "kind": "router"}, {"id": "b", "kind": "host"}]
        links = [{"id": "a-r", "src": "a", "dst": "r", "bandwidth_mbps": 10, "delay_ms": 5, "queue_packets": 100},
                 {"id": "r-b", "src": "r", "dst": "b", "bandwidth_mbps": 100, "delay_ms": 5, "queue_packets": 100}]
        src = "a"
    flow = {"id": "f", "src": src, "dst": "b"}
    if rate_mbps is not None:
        flow["rate_mbps"] = rate_mbps
    return {"name": "checks", "nodes": nodes, "links": links, "flows": [flow],
            "run": {"duration_s": DURATION_S, "interval_s": 1.0}}


def _output(values: list[float], engine: str = "linux") -> EngineOutput:
    ts = [float(k) for k in range(len(values))]
    sub = SubflowSeries(id="f", path=["a", "r", "b"], t_s=ts, throughput_mbps=values, cwnd_packets=[10.0] * len(values))
    return EngineOutput(engine=engine, strategy="sptcp", events=[],
                        flows=[FlowSeries(id="f", src="a", dst="b", t_s=ts, throughput_mbps=values, subflows=[sub])])


#: what the flow may release at once: two 100-packet queues of 1514-byte frames and a 6 MiB receive buffer
HELD_BITS = 2 * 100 * 1514 * 8 + RECEIVE_BUFFER_BITS


def test_a_run_within_its_bounds_passes():
    plan = resolve_plan(_scenario(4.0), "sptcp", "linux")
    check_output(plan, _output([3.9, 4.0, 4.1, 0.0, 0.0, 7.9] + [4.0] * (DURATION_S - 6)))


@pytest.mark.parametrize("bad", [-0.5, -1e-9])
def test_a_value_that_cannot_be_is_named(bad):
    """Negative goodput (NaN and infinity the result models refuse themselves)."""
    plan = resolve_plan(_scenario(), "sptcp", "linux")
    values = [5.0] * DURATION_S
    values[17] = bad
    with pytest.raises(EngineInvariantViolated, match="finite_non_negative") as info:
        check_output(plan, _output(values))
    assert (info.value.flow, info.value.t_s) == ("f", 17.0)


def test_a_rated_flow_that_catches_up_after_an_outage_is_refused():
    """naval-geo on the kernel with iperf3 -b alone: 20 s without a path, then 9.5 Mbit/s for 30 s
    on a 4 Mbit/s flow: 165 Mbit above its rate, against 1 s of the rate + HELD_BITS ≈ 56 Mbit."""
    plan = resolve_plan(_scenario(4.0), "sptcp", "linux")
    values = [4.0] * 10 + [0.0] * 20 + [9.5] * 30
    with pytest.raises(EngineInvariantViolated, match="flow_rate") as info:
        check_output(plan, _output(values))
    e = info.value
    assert e.flow == "f" and e.t_s == 59.0
    assert e.value == pytest.approx(30 * 5.5e6)
    assert e.bound == pytest.approx(HELD_BITS + 4e6)


def test_a_flow_above_its_path_for_long_is_refused_naming_the_bottleneck():
    """A bulk flow on a 10 Mbit/s access link reported at 13 Mbit/s for 25 s: 75 Mbit above what the link
    carried, more than any queue or receive buffer could release."""
    plan = resolve_plan(_scenario(), "sptcp", "linux")
    values = [9.5] * 35 + [13.0] * 25
    with pytest.raises(EngineInvariantViolated, match="path_capacity") as info:
        check_output(plan, _output(values))
    assert info.value.link == "a-r:a>r"
    assert info.value.value == pytest.approx(25 * 3e6)


def test_a_short_burst_a_queue_can_release_passes():
    """One sample at 2 × capacity after a stall: what the queue and the receiver held."""
    plan = resolve_plan(_scenario(), "sptcp", "linux")
    check_output(plan, _output([9.5] * 20 + [0.0, 0.0, 20.0] + [9.5] * 37))


def test_mininet_wifi_does_not_bound_a_path_by_the_plans_air_rate():
    """Mininet-WiFi's emulated PHY, not the plan, sets the air rate: 30 Mbit/s through an access point
    planned at 10 Mbit/s is refused against the plan's air, accepted when the air does not bound."""
    plan = resolve_plan(_scenario(wifi=True), "sptcp", "mininet-wifi")
    out = _output([30.0] * DURATION_S, engine="mininet-wifi")
    with pytest.raises(EngineInvariantViolated, match="path_capacity") as info:
        check_output(plan, out)
    assert info.value.link.startswith("air:")
    check_output(plan, out, unbounded_kinds=("air",))
