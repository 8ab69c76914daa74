"""The fluid engine's constant-rate sources (``subflow_engines.fluid.cbr``): udp (cbr) and voice flows on cases
whose figures are worked out by hand.

One 10 Mbit/s link, 5 ms one-way, a queue of 100 packets of MSS 1448 bytes: a 2 Mbit/s udp flow of 1200-byte
payloads (1228-byte IP packets) crosses it in 5 ms + 1228·8 bit / 10 Mbit/s = 5.9824 ms and loses nothing; a
20 Mbit/s one loses 1 − 10/20 = half of what it sends once the queue is full."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from subflow.results.voice import codec_impairment, voice_rating
from subflow.runplan.resolve import resolve_plan
from subflow_engines import fluid, run_plan
from subflow_engines.fluid import vectorised


def _doc(*flows, bw=10.0, delay=5.0, duration=10.0) -> dict:
    return {"name": "cbr", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
            "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": bw, "delay_ms": delay,
                       "queue_packets": 100}],
            "run": {"duration_s": duration, "interval_s": 1.0}, "flows": list(flows)}


def _udp(rate, **kw) -> dict:
    return {"id": "u", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": rate, **kw}


def test_a_cbr_flow_below_capacity_sees_propagation_plus_transmission_and_no_loss():
    out = run_plan(resolve_plan(_doc(_udp(2.0)), "sptcp"))
    f = out.flows[0]
    assert f.throughput_mbps == pytest.approx([2.0] * 10, abs=1e-6)
    assert f.delay_ms == pytest.approx([5.0 + 1228 * 8 / 10e6 * 1e3] * 10, abs=1e-6)  # 5.9824 ms
    assert f.delay_p95_ms == pytest.approx([5.9824] * 10, abs=1e-6)  # every packet sees the same delay
    assert f.loss == [0.0] * 10 and f.jitter_ms == [0.0] * 10
    assert f.r_factor is None and f.mos is None  # udp: no voice rating
    assert f.subflows[0].cwnd_packets == [0.0] * 10  # no window


def test_a_cbr_flow_above_capacity_loses_one_minus_capacity_over_rate():
    out = run_plan(resolve_plan(_doc(_udp(20.0)), "sptcp"))
    f = out.flows[0]
    assert f.throughput_mbps == pytest.approx([10.0] * 10, abs=1e-6)
    assert f.loss[1:] == pytest.approx([1 - 10 / 20] * 9, abs=1e-6)
    assert 0 < f.loss[0] < 0.5  # the queue fills first
    # steady state: behind a full queue of 100 MSS-sized packets, served at the link's goodput rate
    # (10 Mbit/s · 1448/(1448 + 66), common.goodput_fraction), plus propagation and one packet's transmission
    wire = 1448 / (1448 + 66)
    full = (100 * 1448 * 8 + 1228 * 8 * wire) / (10e6 * wire)
    assert f.delay_ms[-1] == pytest.approx(5.0 + full * 1e3, abs=1e-3)


def test_a_voice_flow_runs_at_its_codec_rate_and_is_rated_by_the_e_model():
    voice = {"id": "call", "src": "a", "dst": "b", "kind": "voice", "dscp": "BE"}
    f = run_plan(resolve_plan(_doc(voice), "sptcp")).flows[0]
    assert f.throughput_mbps == pytest.approx([0.08] * 10, abs=1e-6)  # G.711 every 20 ms: 200 bytes / 20 ms
    assert f.delay_ms == pytest.approx([5.0 + 200 * 8 / 10e6 * 1e3] * 10, abs=1e-6)  # 5.16 ms
    # mouth-to-ear = network delay + 20 ms of packetisation + the default 40 ms playout buffer (G.711 has no
    # look-ahead); G.711 with PLC, no loss
    expected = voice_rating(5.16 + 20.0 + 40.0, 0.0, codec_impairment("g711", plc=True))
    assert f.r_factor == pytest.approx([round(expected.r, 4)] * 10, abs=1e-4)
    assert f.mos == pytest.approx([round(expected.mos, 4)] * 10, abs=1e-4)
    assert 91 < f.r_factor[0] < 93.2


def test_opus_has_no_rating_but_runs():
    opus = {"id": "o", "src": "a", "dst": "b", "kind": "voice", "voice": {"codec": "opus", "opus_bitrate_kbps": 32}}
    f = run_plan(resolve_plan(_doc(opus), "sptcp")).flows[0]
    assert f.throughput_mbps == pytest.approx([0.048] * 10, abs=1e-6)  # 80 + 40 bytes every 20 ms
    assert f.r_factor == [None] * 10 and f.mos == [None] * 10


def test_a_cbr_flow_shares_the_link_with_tcp_and_feels_its_queue():
    """TCP fills what the 4 Mbit/s udp flow leaves and keeps a standing queue: the udp flow still gets its rate
    (it does not back off), its delay rises above the empty link's and varies (jitter > 0)."""
    tcp = {"id": "t", "src": "a", "dst": "b"}
    out = run_plan(resolve_plan(_doc(_udp(4.0), tcp, duration=20.0), "sptcp"))
    u, t = out.flows
    assert min(u.throughput_mbps[2:]) > 3.9
    assert max(u.loss[2:]) < 0.05
    assert sum(t.throughput_mbps[5:]) / 15 > 4.5  # TCP takes most of the remaining 6 Mbit/s
    assert max(u.delay_ms[2:]) > 5.9824 + 1.0
    assert max(u.jitter_ms) > 0.0


def test_constant_rate_plans_run_on_the_scalar_kernel():
    for flow in (_udp(2.0), _udp(2.0, udp={"pattern": "on_off"}),
                 {"id": "v", "src": "a", "dst": "b", "kind": "video", "video": {"bitrate_mbps": 1}}):
        plan = resolve_plan(_doc(flow), "sptcp")
        assert not vectorised.supports(plan)
        assert isinstance(fluid.simulator(plan), fluid.ScalarSimulator)
    # under the default fifo a DiffServ class changes nothing: one queue for every class
    ef = run_plan(resolve_plan(_doc(_udp(2.0, dscp="EF")), "sptcp")).flows[0]
    be = run_plan(resolve_plan(_doc(_udp(2.0)), "sptcp")).flows[0]
    assert (ef.delay_ms, ef.loss, ef.throughput_mbps) == (be.delay_ms, be.loss, be.throughput_mbps)


def test_two_hops_add_their_propagation_and_transmission_and_random_loss():
    """a → r (10 Mbit/s, 5 ms, 2 % loss) → b (2 Mbit/s, 20 ms): 25 ms + 1228·8 bit at 10 and at 2 Mbit/s =
    25 + 0.9824 + 4.912 = 30.8944 ms; a 1 Mbit/s flow loses only the first hop's random 2 %."""
    doc = {"name": "hops", "nodes": [{"id": "a", "kind": "host"}, {"id": "r", "kind": "router"},
                                     {"id": "b", "kind": "host"}],
           "links": [{"id": "a-r", "src": "a", "dst": "r", "bandwidth_mbps": 10, "delay_ms": 5, "loss": 0.02},
                     {"id": "r-b", "src": "r", "dst": "b", "bandwidth_mbps": 2, "delay_ms": 20}],
           "run": {"duration_s": 5, "interval_s": 1}, "flows": [_udp(1.0)]}
    f = run_plan(resolve_plan(doc, "sptcp")).flows[0]
    assert f.delay_ms == pytest.approx([30.8944] * 5, abs=1e-6)
    assert f.loss == pytest.approx([0.02] * 5, abs=1e-9)
    assert f.throughput_mbps == pytest.approx([0.98] * 5, abs=1e-6)


@settings(max_examples=12, deadline=None)
@given(rate=st.floats(0.5, 40.0), bw=st.floats(1.0, 20.0))
def test_steady_state_loss_is_the_excess_over_capacity(rate, bw):
    """Once the queue is full (or never fills), a flow alone on a link loses max(0, 1 − C/rate) of what it sends
    and delivers min(rate, C). (The 100-packet queue, 1.16 Mbit, fills within the first 5 s when the excess is
    over 0.25 Mbit/s.)"""
    assume(rate <= bw or rate - bw > 0.25)
    f = run_plan(resolve_plan(_doc(_udp(rate), bw=bw, duration=6.0), "sptcp")).flows[0]
    assert f.loss[-1] == pytest.approx(max(0.0, 1 - bw / rate), abs=1e-6)
    assert f.throughput_mbps[-1] == pytest.approx(min(rate, bw), abs=1e-5)
