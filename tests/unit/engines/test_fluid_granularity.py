"""The packet-granularity term of the fluid engine's per-packet delay (``subflow_engines.fluid.cbr``): its width,
RFC 3550 jitter's expectation over it, and the percentile and late share of a spread delay, on cases worked out
by hand and against a Monte Carlo of the uniforms it stands for."""

from __future__ import annotations

import numpy as np
import pytest

from subflow.runplan.resolve import resolve_plan
from subflow_engines import run_plan
from subflow_engines.fluid.cbr import (
    ACK_BURST_SEGMENTS,
    Source,
    delay_spread_s,
    expected_abs_change,
    share_above,
    spread_percentile,
    weighted_percentile,
)

#: a 1514-byte Ethernet frame's bits and its time at 4 Mbit/s
FRAME_BITS = 1514 * 8
FRAME_S = FRAME_BITS / 4e6


def test_the_spread_is_one_ack_burst_of_each_hops_queue():
    """Two hops: 4 Mbit/s with a standing queue of 50 frames (the burst of two frames bounds it: 2 × 3.028 ms),
    100 Mbit/s with 1 000 bits queued (less than a burst: 10 µs), and a hop without capacity (nothing); a hop
    without ACK-clocked sender (burst 0) adds nothing."""
    queue = np.array([50 * FRAME_BITS, 1000.0, 5e6])
    cap = np.array([4e6, 100e6, 0.0])
    assert ACK_BURST_SEGMENTS == 2
    burst = np.full(3, 2.0 * FRAME_BITS)
    assert delay_spread_s([0, 1, 2], queue, cap, burst) == pytest.approx(2 * FRAME_S + 10e-6)
    assert delay_spread_s([1], np.zeros(3), cap, burst) == 0.0
    # no ACK-clocked sender on the first hop: its queue adds nothing
    assert delay_spread_s([0, 1], queue, cap, np.array([0.0, 2.0 * FRAME_BITS, 0.0])) == pytest.approx(10e-6)


@pytest.mark.parametrize("delta_ms", [0.0, 0.5, 1.5, 3.0, 6.0, 9.0, -2.0])
def test_expected_abs_change_matches_a_monte_carlo_of_two_uniforms(delta_ms):
    """E|Δ + w(U₁ − U₂)| for w = 6 ms: the closed form against 2 × 10⁶ draws (standard error below 0.2 %)."""
    w = 6e-3
    rng = np.random.default_rng(7)
    u1, u2 = rng.random(2_000_000), rng.random(2_000_000)
    mc = float(np.mean(np.abs(delta_ms * 1e-3 + w * (u1 - u2))))
    assert expected_abs_change(delta_ms * 1e-3, w) == pytest.approx(mc, rel=0.01)


def test_expected_abs_change_hand_worked():
    w = 6e-3
    assert expected_abs_change(0.0, w) == pytest.approx(w / 3)  # 2 ms
    assert expected_abs_change(w / 2, w) == pytest.approx(w * (0.5 + 0.125 / 3))
    assert expected_abs_change(-8e-3, w) == pytest.approx(8e-3)  # beyond the width: |Δ|
    assert expected_abs_change(2e-3, 0.0) == pytest.approx(2e-3)


def test_spread_percentile_and_share_above_hand_worked():
    # one step of 10 ms ± 2 ms: the 95th percentile 8 + 0.95 × 4 = 11.8 ms; above 11 ms: 1/4 of it
    assert spread_percentile([(0.010, 1.0, 0.004)], 0.95) == pytest.approx(0.0118, abs=1e-8)
    assert share_above([(0.010, 1.0, 0.004)], 0.011) == pytest.approx(0.25)
    # half the weight uniform on [−1, 1] ms, half a point at 10 ms: the 25th percentile is 0 ms, the 75th 10 ms
    steps = [(0.0, 1.0, 0.002), (0.010, 1.0, 0.0)]
    assert spread_percentile(steps, 0.25) == pytest.approx(0.0, abs=1e-8)
    assert spread_percentile(steps, 0.75) == pytest.approx(0.010, abs=1e-8)
    assert share_above(steps, 0.0005) == pytest.approx(0.25 + 1.0)
    # without spreads: the plain weighted percentile
    plain = [(0.001, 90.0, 0.0), (0.005, 10.0, 0.0)]
    assert spread_percentile(plain, 0.95) == weighted_percentile([(0.001, 90.0), (0.005, 10.0)], 0.95) == 0.005
    assert spread_percentile([], 0.95) is None


def _call_doc(duration: float = 2.0) -> dict:
    return {"name": "g", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
            "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10.0, "delay_ms": 5.0}],
            "run": {"duration_s": duration, "interval_s": 1.0},
            "flows": [{"id": "call", "src": "a", "dst": "b", "kind": "voice"}]}


def test_a_steady_spread_drives_the_jitter_to_a_third_of_it():
    """A G.711 call's ledger (one 1600-bit packet per 20 ms step) at a constant delay with a 6 ms spread: each
    packet's E|D| is 2 ms, so J = 2·(1 − (15/16)^(n−1)) after n packets; after 50, 1.91 ms."""
    plan = resolve_plan(_call_doc(), "sptcp")
    src = Source(plan.flows[0], plan, n_bins=1, dt_s=0.02)
    for k in range(50):
        assert src.begin_step(k * 0.02) == pytest.approx(1600.0)
        src.record(0, 0.100, 1600.0, 0.0, 0.0, 0.006)
    out = src.series(None, 1.0)
    assert out["jitter_ms"] == [pytest.approx(2.0 * (1 - (15 / 16) ** 49), rel=1e-6)]
    assert out["delay_ms"] == [pytest.approx(100.0)]
    assert out["delay_p95_ms"] == [pytest.approx(97.0 + 0.95 * 6.0, abs=1e-5)]


def _bottleneck_doc(bandwidth_mbps: float) -> dict:
    """A G.711 call beside bulk TCP through a router's egress of ``bandwidth_mbps``, 100-packet queue (the
    scenario of tests/linux/test_voice.py)."""
    return {"name": "voice-beside-tcp",
            "nodes": [{"id": "a", "kind": "host"}, {"id": "r", "kind": "router"}, {"id": "b", "kind": "host"}],
            "links": [{"id": "ar", "src": "a", "dst": "r", "bandwidth_mbps": 100, "delay_ms": 1},
                      {"id": "rb", "src": "r", "dst": "b", "bandwidth_mbps": bandwidth_mbps, "delay_ms": 10,
                       "queue_packets": 100}],
            "flows": [{"id": "bulk", "src": "a", "dst": "b"},
                      {"id": "call", "src": "a", "dst": "b", "kind": "voice", "dscp": "EF"}],
            "run": {"duration_s": 12.0, "interval_s": 1.0}}


@pytest.mark.parametrize("bandwidth_mbps", [4.0, 8.0])
def test_a_call_behind_tcps_standing_queue_has_two_thirds_of_a_frame_of_jitter(bandwidth_mbps):
    """Behind TCP's standing queue the spread is two 1514-byte frames at the bottleneck; with packet gaps of 20 ms
    J settles at a third of it, 2/3 of a frame: 2.019 ms at 4 Mbit/s, 1.009 ms at 8 (the fluid queue's own slow
    drift adds a little). Under strict priority the call's class holds no queue: no spread, J under 0.01 ms (what
    is left is the fluid delay's own microsecond moves when TCP's queue changes the residual W0)."""
    frame_ms = 1514 * 8 / (bandwidth_mbps * 1e6) * 1e3
    doc = _bottleneck_doc(bandwidth_mbps)
    call = next(f for f in run_plan(resolve_plan(doc, "sptcp")).flows if f.id == "call")
    jitter = sorted(v for v in call.jitter_ms[5:] if v is not None)
    median = jitter[len(jitter) // 2]
    assert 2 / 3 * frame_ms <= median <= 2 / 3 * frame_ms * 1.10
    doc["queueing"] = {"discipline": "strict_priority"}
    call = next(f for f in run_plan(resolve_plan(doc, "sptcp")).flows if f.id == "call")
    assert all(v < 0.01 for v in call.jitter_ms[5:] if v is not None)
