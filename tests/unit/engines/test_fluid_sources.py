"""The fluid engine's on/off, voice and video sources (``subflow_engines.fluid.cbr``) on cases worked out by hand.

One 10 Mbit/s link, 5 ms one-way, a queue of 100 packets of MSS 1448 bytes (the step is half the 10 ms RTT:
5 ms, so 50 000 bits leave per step)."""

from __future__ import annotations

import math

import pytest

from subflow.results.voice import codec_impairment, voice_rating
from subflow.runplan.resolve import resolve_plan
from subflow_engines import draws, run_plan
from subflow_engines.fluid.cbr import (
    PAUSE_MEAN_S,
    TALKSPURT_MEAN_S,
    OnOff,
    Source,
    period_length_s,
    video_frame_bits,
    weighted_percentile,
)


def _doc(*flows, duration=10.0, loss=0.0, seed=1) -> dict:
    return {"name": "sources", "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
            "links": [{"id": "a-b", "src": "a", "dst": "b", "bandwidth_mbps": 10.0, "delay_ms": 5.0,
                       "queue_packets": 100, "loss": loss}],
            "run": {"duration_s": duration, "interval_s": 1.0, "seed": seed}, "flows": list(flows)}


def _on_off(**udp) -> dict:
    return {"id": "u", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 2.0, "udp": {"pattern": "on_off", **udp}}


def _video(**video) -> dict:
    return {"id": "v", "src": "a", "dst": "b", "kind": "video", "video": {"bitrate_mbps": 3.0, **video}}


# ---------------------------------------------------------------- on/off periods

def test_period_lengths_invert_the_distributions():
    assert period_length_s(0.5, 2.0, "exponential", 1.5) == pytest.approx(2.0 * math.log(2.0))  # 1.3863 s
    assert period_length_s(0.0, 2.0, "exponential", 1.5) == 0.0
    # Pareto, shape 2, mean 1: x_m = 1·(2 − 1)/2 = 0.5; u = 0.75: 0.5·0.25^(−1/2) = 1 s
    assert period_length_s(0.75, 1.0, "pareto", 2.0) == pytest.approx(1.0)
    # shape 1.5, mean 3: x_m = 3·0.5/1.5 = 1; u = 0.875: 0.125^(−2/3) = 4 s; u = 0: the scale, 1 s
    assert period_length_s(0.875, 3.0, "pareto", 1.5) == pytest.approx(4.0)
    assert period_length_s(0.0, 3.0, "pareto", 1.5) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        period_length_s(0.5, 1.0, "uniform", 1.5)


def test_on_off_edges_with_scripted_draws():
    """Every draw 0.75, Pareto shape 2: on periods of mean 1 s last 1 s, off periods of mean 2 s last 2 s
    (x_m = 1). From the start at 0.5 s: on [0.5, 1.5), off [1.5, 3.5), on [3.5, 4.5), off [4.5, 6.5),
    on [6.5, 7.5)."""
    src = OnOff(0.5, 1.0, 2.0, "pareto", 2.0, draw=lambda k: 0.75)
    assert src.on_fraction(0.0, 0.5) == 0.0  # before the flow starts
    assert src.on_fraction(0.5, 1.0) == 1.0
    assert src.on_fraction(1.0, 2.0) == pytest.approx(0.5)  # the edge at 1.5 s
    assert src.on_fraction(2.0, 3.0) == 0.0
    assert src.on_fraction(3.0, 4.0) == pytest.approx(0.5)  # the edge at 3.5 s
    # one step across three edges (4.5, 6.5, 7.5 s): on [4, 4.5) and [6.5, 7.5) = 1.5 s of 4 s
    assert src.on_fraction(4.0, 8.0) == pytest.approx(1.5 / 4.0)


@pytest.mark.parametrize("periods, mean_on, mean_off, shape, var_term", [
    # Var((1 − f)X − fY) for f = on/(on + off): exponential means 1, 1: 0.25·1 + 0.25·1 = 0.5;
    # Pareto shape 3 (variance x_m²·a/((a − 1)²(a − 2))), means 1 and 3: x_m 2/3 and 2, variances 1/3 and 3,
    # f = 0.25: 0.5625/3 + 0.0625·3 = 0.375
    ("exponential", 1.0, 1.0, 2.0, 0.5),
    ("pareto", 1.0, 3.0, 3.0, 0.375),
])
def test_long_run_on_fraction_is_on_over_on_plus_off(periods, mean_on, mean_off, shape, var_term):
    """Over T s of alternating periods (a renewal-reward process, n = T/(on + off) cycles), the on fraction F has
    mean f = on/(on + off) and, by the delta method, Var F = Var((1 − f)X − fY)/(T·(on + off)): exponential
    0.5/(2T), Pareto 0.375/(4T). T = 10⁵ s: σ = 0.00158 and 0.00097; the test allows 5σ."""
    t_total = 1e5
    key = draws.subflow_key(7, "u" + "|onoff")
    src = OnOff(0.0, mean_on, mean_off, periods, shape, draw=lambda k: draws.uniform(key, k))
    f = mean_on / (mean_on + mean_off)
    sigma = math.sqrt(var_term / (t_total * (mean_on + mean_off)))
    assert src.on_fraction(0.0, t_total) == pytest.approx(f, abs=5 * sigma)


def test_p59_talkspurts_give_the_speech_activity():
    """Exponential talkspurts of 1.004 s and pauses of 1.587 s: activity f = 1.004/2.591 = 0.38750;
    Var((1 − f)X − fY) = 0.6125²·1.004² + 0.3875²·1.587² = 0.75636, Var F = 0.75636/(2.591·T): σ = 0.00171 at
    T = 10⁵ s."""
    assert (TALKSPURT_MEAN_S, PAUSE_MEAN_S) == (1.004, 1.587)
    key = draws.subflow_key(3, "call|onoff")
    src = OnOff(0.0, TALKSPURT_MEAN_S, PAUSE_MEAN_S, "exponential", 2.0, draw=lambda k: draws.uniform(key, k))
    assert src.on_fraction(0.0, 1e5) == pytest.approx(0.38750, abs=5 * 0.00171)


def test_an_on_off_flow_sends_its_rate_while_on_and_repeats_for_its_seed():
    """2 Mbit/s bursts with exponential periods of 1 s and 1 s on an idle 10 Mbit/s link: every bit sent arrives
    (the fluid crosses the path in its step), so the delivered bits are 2 Mbit/s × the on time of the flow's
    draw stream (seed 1, flow u); over 100 s the mean rate is 1 Mbit/s ± 4σ (σ_F = √(0.25/100) = 0.05)."""
    out = run_plan(resolve_plan(_doc(_on_off(), duration=100.0), "sptcp")).flows[0]
    key = draws.subflow_key(1, "u|onoff")
    on_s = OnOff(0.0, 1.0, 1.0, "exponential", 1.5, draw=lambda k: draws.uniform(key, k)).on_fraction(0.0, 100.0)
    assert sum(out.throughput_mbps) == pytest.approx(2.0 * on_s * 100.0, rel=1e-6)
    assert sum(out.throughput_mbps) / 100.0 == pytest.approx(1.0, abs=4 * 0.05 * 2.0)
    assert max(out.throughput_mbps) <= 2.0 + 1e-6 and min(out.throughput_mbps) < 1.0
    assert set(out.loss) == {0.0, None}  # null in the seconds that sent nothing (off throughout)
    # delivered packets see the idle link's delay (5 ms + 1228·8 bit at 10 Mbit/s); null where nothing arrived
    arrived = [d for d in out.delay_p95_ms if d is not None]
    sending = sum(1 for lo in out.loss if lo is not None)
    assert 0 < sending < 100 and len(arrived) == sending
    assert arrived == pytest.approx([5.9824] * sending, abs=1e-6)
    again = run_plan(resolve_plan(_doc(_on_off(), duration=20.0), "sptcp")).flows[0]
    other = run_plan(resolve_plan(_doc(_on_off(), duration=20.0, seed=2), "sptcp")).flows[0]
    assert again.throughput_mbps == out.throughput_mbps[:20]
    assert other.throughput_mbps != again.throughput_mbps


def test_an_on_off_flow_reports_what_it_sent_in_each_interval():
    """sent_mbps (the weights of the run's loss): 2 Mbit/s × the share of each 1 s interval the flow's draw stream
    (seed 1, flow u) has it on; 0 and a null loss where it is off throughout."""
    out = run_plan(resolve_plan(_doc(_on_off(), duration=20.0), "sptcp")).flows[0]
    key = draws.subflow_key(1, "u|onoff")
    src = OnOff(0.0, 1.0, 1.0, "exponential", 1.5, draw=lambda k: draws.uniform(key, k))
    assert out.sent_mbps == pytest.approx([2.0 * src.on_fraction(k, k + 1.0) for k in range(20)], abs=1e-6)
    assert [lo is None for lo in out.loss] == [s == 0.0 for s in out.sent_mbps]
    assert 0.0 in out.sent_mbps and 0.0 < min(s for s in out.sent_mbps if s > 0) < 2.0


def test_pareto_on_off_runs():
    out = run_plan(resolve_plan(_doc(_on_off(periods="pareto", pareto_shape=1.5, mean_on_s=0.5, mean_off_s=0.5),
                                     duration=10.0), "sptcp")).flows[0]
    assert 0.0 < sum(out.throughput_mbps) < 20.0


# ---------------------------------------------------------------- voice

def test_silence_suppressed_g729a_is_rated_with_vad_values_and_the_playout_buffer():
    """G.729A every 20 ms: 20 bytes of payload + 40 of headers, 24 kbit/s while talking, 5 ms + 480 bit / 10 Mbit/s
    = 5.048 ms one way. Mouth-to-ear = 5.048 + 20 (packetisation) + 40 (playout buffer) + 5 (G.729A look-ahead)
    = 70.048 ms, no loss; Ie 11 and Bpl 19 of G.729A + VAD (G.113)."""
    call = {"id": "call", "src": "a", "dst": "b", "kind": "voice",
            "voice": {"codec": "g729a", "silence_suppression": True}}
    f = run_plan(resolve_plan(_doc(call), "sptcp")).flows[0]
    assert max(f.throughput_mbps) <= 0.024 + 1e-9 and min(f.throughput_mbps) < 0.024  # silent some of the time
    expected = voice_rating(70.048, 0.0, codec_impairment("g729a", plc=True, vad=True))
    rated = [r for r in f.r_factor if r is not None]
    assert rated and rated == pytest.approx([round(expected.r, 4)] * len(rated), abs=1e-4)


def test_g711_with_silence_suppression_runs_without_a_rating():
    """G.113 Appendix I has no G.711 + VAD value: the call runs, R and MOS stay null."""
    call = {"id": "call", "src": "a", "dst": "b", "kind": "voice", "voice": {"silence_suppression": True}}
    f = run_plan(resolve_plan(_doc(call), "sptcp")).flows[0]
    assert sum(f.throughput_mbps) < 0.08 * 10
    assert f.r_factor == [None] * 10 and f.mos == [None] * 10


def _ledger(playout_ms: float) -> Source:
    """A G.711 call's ledger (80 kbit/s: 800 bits per 10 ms step) over ten steps: nine packets' steps at 10 ms,
    one at 100 ms, all delivered."""
    call = {"id": "call", "src": "a", "dst": "b", "kind": "voice", "voice": {"playout_delay_ms": playout_ms}}
    plan = resolve_plan(_doc(call, duration=1.0), "sptcp")
    src = Source(plan.flows[0], plan, n_bins=1, dt_s=0.01)
    for k in range(10):
        assert src.begin_step(k * 0.01) == pytest.approx(800.0)
        src.record(0, 0.100 if k == 9 else 0.010, 800.0, 0.0)
    return src


def test_packets_later_than_the_playout_buffer_count_as_lost():
    """Mean delay (9·10 + 100)/10 = 19 ms; with a 40 ms buffer the 100 ms packets (above 19 + 40 = 59 ms) are
    discarded: Ppl 0.1, mouth-to-ear 19 + 20 + 40 = 79 ms. With a 100 ms buffer nothing is late (19 + 100 = 119 ms
    ≥ 100), mouth-to-ear 139 ms. The 95th percentile: 90 % of the bits at 10 ms, so 100 ms."""
    src = _ledger(40.0)
    assert src.late_fraction(0) == pytest.approx(0.1)
    out = src.series(None, 1.0)
    assert out["delay_ms"] == [pytest.approx(19.0)] and out["delay_p95_ms"] == [pytest.approx(100.0)]
    assert out["loss"] == [0.0]  # late packets are the receiver's discards, not network loss
    g711 = codec_impairment("g711", plc=True)
    assert out["r_factor"] == [pytest.approx(round(voice_rating(79.0, 0.1, g711).r, 4), abs=1e-4)]
    wide = _ledger(100.0).series(None, 1.0)
    assert wide["r_factor"] == [pytest.approx(round(voice_rating(139.0, 0.0, g711).r, 4), abs=1e-4)]


def test_weighted_percentile():
    assert weighted_percentile([(0.001, 90.0), (0.005, 10.0)], 0.95) == 0.005
    assert weighted_percentile([(0.005, 4.0), (0.001, 96.0)], 0.95) == 0.001
    assert weighted_percentile([], 0.95) is None and weighted_percentile([(1.0, 0.0)], 0.95) is None


# ---------------------------------------------------------------- video

def test_frame_sizes_keep_the_bitrate():
    """3 Mbit/s, 30 frame/s, 30 frames per group, I = 5·P: 34 P-sizes per second, P = 3·10⁶/34 = 88 235.29 bits,
    I = 441 176.47; intra only: every frame 3·10⁶/30 = 10⁵ bits."""
    i_bits, p_bits = video_frame_bits(3e6, 30.0, 30)
    assert p_bits == pytest.approx(88235.294, abs=1e-3) and i_bits == pytest.approx(441176.47, abs=1e-2)
    assert video_frame_bits(3e6, 30.0, 1) == (pytest.approx(1e5), pytest.approx(2e4))


def test_an_i_frame_burst_queues_and_misses_a_short_deadline():
    """3 Mbit/s at 30 frame/s, a group of 30 frames: one I frame (441 176.47 bits) at the start of every second.
    Its step (5 ms) sends 50 000 bits and leaves 391 176.47 queued: its last packet waits 39.1176 ms, plus 5 ms of
    propagation and one 1500-byte packet's 1.2 ms: 45.3176 ms, past a 40 ms deadline; every P frame (88 235.29
    bits, behind at most the I frame's remaining 91 176.47 bits: 24.14 ms) is in time. The queue drains 50 000
    bits per step, so the I frame's first four steps deliver 50 000 bits each at 45.32, 40.32, 35.32 and
    30.32 ms; the top three are 150 000 bits = 5 % of the second's 3 Mbit, so the 95th percentile is the fourth,
    5 + (441 176.47 − 200 000)/10⁷ s + 1.2 = 30.3176 ms."""
    f = run_plan(resolve_plan(_doc(_video(playout_delay_ms=40.0), duration=3.0), "sptcp")).flows[0]
    assert f.throughput_mbps == pytest.approx([3.0] * 3, abs=1e-6)
    assert f.frames_sent == [30, 30, 30] and f.frames_lost == [0, 0, 0]
    assert f.frames_late == [1, 1, 1]
    assert f.delay_p95_ms == pytest.approx([30.317647] * 3, abs=1e-5)
    assert f.loss == [0.0] * 3
    relaxed = run_plan(resolve_plan(_doc(_video(), duration=3.0), "sptcp")).flows[0]  # 150 ms by default
    assert relaxed.frames_late == [0, 0, 0]


def test_frames_are_lost_with_any_of_their_packets():
    """2 % random loss per packet: an I frame of ⌈441 176.47/12 000⌉ = 37 packets is lost with probability
    1 − 0.98³⁷ = 0.52645, a P frame of ⌈88 235.29/12 000⌉ = 8 packets with 1 − 0.98⁸ = 0.14924. Per second
    0.52645 + 29·0.14924 = 4.8543 frames, variance 0.52645·0.47355 + 29·0.14924·0.85076 = 3.9314; over 50 s
    242.7 ± 4·√196.6 = ± 56."""
    f = run_plan(resolve_plan(_doc(_video(), duration=50.0, loss=0.02), "sptcp")).flows[0]
    assert sum(f.frames_sent) == 1500
    assert sum(f.frames_lost) == pytest.approx(242.7, abs=56)
    assert f.loss == pytest.approx([0.02] * 50, abs=2e-3)
