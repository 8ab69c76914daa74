"""Access points on overlapping channels that hear each other share one medium (subflow.runplan.air_cells.co_channel_windows):
each cell's airtime capacity then counts the other cell's stations (Heusse et al., INFOCOM 2003, §III: every
station of one collision domain gets the same transmission opportunities). The radio's `channel` field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from subflow.runplan.air_cells import channels_overlap
from subflow.runplan.resolve import resolve_plan
from subflow.scenario.document import NodeRadio, channel_frequency_mhz


def _two_cells(channel_1: int, channel_2: int, spacing_m: float, far_station_m: float = 110.0) -> dict:
    """ap1 at x = 0 with sta1 10 m away; ap2 at x = spacing with sta2 ``far_station_m`` away; h1 behind both."""
    def ap(i: int, x: float, channel: int) -> dict:
        return {"id": f"ap{i}", "kind": "access_point", "position": {"x_m": x, "y_m": 0.0}, "range_m": 5000.0,
                "wireless_bandwidth_mbps": 1000.0, "radio": {"tx_power_dbm": 20, "channel": channel, "phy": "g"}}

    return {
        "name": "two-cells",
        "nodes": [{"id": "h1", "kind": "host"}, ap(1, 0.0, channel_1), ap(2, spacing_m, channel_2),
                  {"id": "sta1", "kind": "station", "position": {"x_m": 0.0, "y_m": 10.0}},
                  {"id": "sta2", "kind": "station", "position": {"x_m": spacing_m, "y_m": far_station_m}}],
        "links": [{"id": "l1", "src": "h1", "dst": "ap1", "bandwidth_mbps": 1000.0, "delay_ms": 1.0},
                  {"id": "l2", "src": "h1", "dst": "ap2", "bandwidth_mbps": 1000.0, "delay_ms": 1.0}],
        "flows": [{"id": "f1", "src": "h1", "dst": "sta1"}, {"id": "f2", "src": "h1", "dst": "sta2"}],
        "run": {"duration_s": 5.0, "interval_s": 1.0},
        "radio": {"propagation": {"model": "log_distance", "exponent": 3.0}},
    }


def _air_capacities(doc: dict) -> dict[str, float]:
    """At t = 0, the capacity of each access point's downlink queue to its station (``air:apN`` → that queue)."""
    plan = resolve_plan(doc, "sptcp")
    out = {r.id: r.capacity_mbps for r in plan.resources if r.id.startswith("air:")}
    for c in plan.capacity_changes:
        if c.t_s == 0.0 and c.resource in out:
            out[c.resource] = c.capacity_mbps
    return {"air:ap1": out["air:ap1:ap1>sta1"], "air:ap2": out["air:ap2:ap2>sta2"]}


def test_channel_numbers_and_overlap():
    assert channel_frequency_mhz(1) == 2412.0 and channel_frequency_mhz(6) == 2437.0
    assert channel_frequency_mhz(14) == 2484.0 and channel_frequency_mhz(36) == 5180.0
    r = lambda ch, w=20, phy="g": NodeRadio(channel=ch, channel_width_mhz=w, phy=phy)  # noqa: E731
    assert not channels_overlap(r(1), r(6))  # 25 MHz apart at 20 MHz: the classic non-overlapping set
    assert channels_overlap(r(1), r(3)) and channels_overlap(r(6), r(6))
    assert channels_overlap(r(38, 40, "n"), r(40, 20, "n"))  # a 40 MHz channel covers 36 and 40
    assert not channels_overlap(r(36, 20, "n"), r(40, 20, "n"))


@pytest.mark.parametrize("radio, needle", [({"channel": 6, "frequency_mhz": 2412}, "channel 6 is 2437 MHz"),
                                           ({"channel": 20}, "channel 20 is not an 802.11 channel"),
                                           ({"channel": 0}, "channel"),
                                           ({"channel": 36, "phy": "g"}, "frequency_mhz 5180")])
def test_bad_channels_are_refused_naming_the_field(radio, needle):
    with pytest.raises(ValidationError) as err:
        NodeRadio(**radio)
    assert needle in str(err.value)


def test_co_channel_cells_share_airtime_by_equal_opportunities():
    alone = _air_capacities(_two_cells(1, 6, 100.0))  # channels 1 and 6 do not overlap
    shared = _air_capacities(_two_cells(1, 1, 100.0))
    a, b = alone["air:ap1"], alone["air:ap2"]
    assert a > b  # sta1 at 10 m runs a faster MCS than sta2 at 110 m
    # one station per cell, one collision domain: each station gets 1/(1/g1 + 1/g2) (capacities are a goodput
    # times a constant framing factor, so the form holds for them too)
    want = 1.0 / (1.0 / a + 1.0 / b)
    assert shared["air:ap1"] == pytest.approx(want, rel=1e-9)
    assert shared["air:ap2"] == pytest.approx(want, rel=1e-9)


def test_cells_beyond_carrier_sense_range_do_not_share():
    # 20 dBm, no antenna gain, log-distance exponent 3 from Friis at 1 m (40.1 dB at 2412 MHz): −82 dBm at
    # 10^((20 + 82 − 40.1)/30) = 116 m
    near, far = _air_capacities(_two_cells(1, 1, 110.0)), _air_capacities(_two_cells(1, 1, 125.0))
    alone = _air_capacities(_two_cells(1, 6, 125.0))
    assert far == pytest.approx(alone)
    assert near["air:ap1"] < alone["air:ap1"]


def test_the_fluid_run_carries_at_most_the_shared_medium():
    from subflow_engines.fluid import run

    doc = _two_cells(1, 1, 100.0)
    plan = resolve_plan(doc, "sptcp")
    shared = _air_capacities(doc)
    out = run(plan)
    for f, ap in (("f1", "air:ap1"), ("f2", "air:ap2")):
        series = next(x for x in out.flows if x.id == f).throughput_mbps
        assert max(series[1:]) <= shared[ap]
