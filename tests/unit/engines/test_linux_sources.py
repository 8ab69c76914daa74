"""The linux engine's schedules of on/off and video sources (:mod:`subflow_engines.linux.schedule`) and its video
frame bookkeeping on recorded arrivals (:func:`subflow_engines.linux.cbrstats.video_frames`), on cases worked by
hand; no kernel (the sender is run once over the loopback interface)."""

from __future__ import annotations

import math
import subprocess
import sys
from array import array

import pytest

from subflow.scenario.document import Flow, VideoSource
from subflow_engines import draws
from subflow_engines.fluid.cbr import OnOff as FluidOnOff
from subflow_engines.linux import udpflow
from subflow_engines.linux.cbrstats import cbr_series, video_frames
from subflow_engines.linux.schedule import Schedule, frame_packet_bytes, onoff_schedule, video_schedule
from subflow_engines.sources import OnOff, VideoFrames, onoff_of


def _scripted(lengths: list[float], start: float = 0.0) -> OnOff:
    """Periods of the given lengths: a draw u gives an exponential of mean 1 s of length −ln(1 − u), so
    u = 1 − e^(−L)."""
    return OnOff(start, 1.0, 1.0, "exponential", 2.0, draw=lambda k: 1.0 - math.exp(-lengths[k]))


def test_on_off_packets_follow_the_cumulative_on_time():
    """gap 0.1 s (1250-byte packets at 0.1 Mbit/s), on [0, 0.25), off 0.75 s, on [1, 1.3), off 10 s: on-time
    marks 0, 0.1, 0.2 in the first period (offsets 0, 0.1, 0.2) and 0.3, 0.4, 0.5 in the second, which begins
    at on time 0.25: offsets 1.05, 1.15, 1.25; nothing after 1.3."""
    s = onoff_schedule(_scripted([0.25, 0.75, 0.3, 10.0, 1.0]), 0.0, 5.0, 1250, 0.1e6)
    assert s.offsets_s == pytest.approx([0.0, 0.1, 0.2, 1.05, 1.15, 1.25])
    assert s.ip_bytes == [1250] * 6 and s.frame == [-1] * 6 and s.frames == []


def test_on_off_offsets_count_from_the_flows_start_and_stop_at_its_stop():
    """Start 2 s, on 0.5 s, off 0.5 s, on 1 s, stop 3.2 s: gap 0.1 s, on-time marks 0 … 0.4 in [2, 2.5), then
    0.5, 0.6 in [3, 3.2) (cut at the stop): 7 packets at offsets 0 … 0.4, 1.0, 1.1."""
    s = onoff_schedule(_scripted([0.5, 0.5, 1.0, 1.0], start=2.0), 2.0, 3.2, 1250, 0.1e6)
    assert s.offsets_s == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 1.0, 1.1])


def test_on_off_schedule_carries_the_fluid_engines_bits_within_one_packet():
    """Over every prefix [start, t) of a 60 s Pareto flow the schedule's packets carry the fluid engine's bits
    (rate × its on fraction of each 10 ms step) within one packet: the periods are the same draws."""
    flow = Flow.model_validate({"id": "u", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 2.0,
                                "udp": {"pattern": "on_off", "periods": "pareto", "pareto_shape": 1.8,
                                        "mean_on_s": 0.7, "mean_off_s": 1.3}})
    start, stop, packet, rate = 1.0, 61.0, 1228, 2e6
    sched = onoff_schedule(onoff_of(flow, "udp", start, 7, "u"), start, stop, packet, rate)
    # the fluid engine's source (same draws: seed 7, flow id u)
    key = draws.subflow_key(7, "u|onoff")
    fluid = FluidOnOff(start, 0.7, 1.3, "pareto", 1.8, lambda k: draws.uniform(key, k))
    bits, k = 0.0, 0
    for step in range(6000):
        t = start + step * 0.01
        bits += rate * 0.01 * fluid.on_fraction(t, t + 0.01)
        while k < len(sched) and start + sched.offsets_s[k] < t + 0.01 - 1e-12:
            k += 1
        assert abs(k * packet * 8 - bits) <= packet * 8 + 1e-6, (t, k, bits)
    assert 0 < len(sched) < rate * 60 / (packet * 8)


def test_on_off_periods_are_the_draws_by_inversion():
    """Exponential periods of means 1 and 2 s written out from the draws: L_k = −mean·ln(1 − u_k)."""
    flow = Flow.model_validate({"id": "x", "src": "a", "dst": "b", "kind": "udp", "rate_mbps": 1.0,
                                "udp": {"pattern": "on_off", "mean_on_s": 1.0, "mean_off_s": 2.0}})
    key = draws.subflow_key(3, "x|onoff")
    t, expected = 0.5, []
    for k in range(8):
        length = -(1.0, 2.0)[k % 2] * math.log(1.0 - float(draws.uniform(key, k)))
        if k % 2 == 0:
            expected.append((t, t + length))
        t += length
    got = onoff_of(flow, "udp", 0.5, 3, "x").on_periods(t)
    assert got[:4] == [pytest.approx(p) for p in expected]


def test_video_frames_and_their_packets_by_hand():
    """3 Mbit/s, 30 frame/s, G = 30: I = 441 176.5 bits = 55 147 bytes in 37 packets (36 × 1500 + 1147),
    P = 88 235.3 bits = 11 029 bytes in 8 (7 × 1500 + 529); 2 s = 60 frames, 2 × (37 + 29 × 8) = 538 packets, all
    of a frame at its instant n/30."""
    s = video_schedule(VideoFrames(VideoSource(bitrate_mbps=3.0), 0.0), 2.0)
    assert len(s.frames) == 60 and len(s) == 538
    assert s.frames[:3] == [(0, 0, 37), (1, 37, 8), (2, 45, 8)]
    assert s.ip_bytes[:37] == [1500] * 36 + [1147] and s.ip_bytes[37:45] == [1500] * 7 + [529]
    assert all(t == pytest.approx(1 / 30) for t in s.offsets_s[37:45])
    assert s.frame[36:38] == [0, 1] and s.frame_packets[36:38] == [37, 8]
    assert s.frames[30] == (30, 269, 37)  # the next I frame, after 37 + 29 × 8 = 269 packets
    # the IP bytes over a group of pictures are the bit rate's (within the rounding of each frame)
    assert sum(s.ip_bytes) * 8 == pytest.approx(3e6 * 2, abs=60 * 8)
    assert frame_packet_bytes(12_000.4, 2) == [1500, 46]  # a last packet still holds its headers


def test_video_frames_on_recorded_arrivals():
    """Interval 1 s, deadline 100 ms; frames of 2, 1, 3 and 1 packets (seq 0-1, 2, 3-5, 6):
    frame A sent at 0.5 s, both packets by 0.55 s: in time; frame B sent at 0.95 s, arrives 1.2 s (250 ms):
    late, counted in interval 0 where it was sent; frame C sent at 1.1 s, seq 4 never arrives: lost; frame D
    sent at 1.5 s arrives at 1.6 s exactly at its deadline: in time. Interval 0: 2 sent, 0 lost, 1 late;
    interval 1: 2 sent, 1 lost, 0 late."""
    frames = [(0, 0, 2), (1, 2, 1), (2, 3, 3), (3, 6, 1)]
    sent = [0.5, 0.5004, 0.95, 1.1, 1.1002, 1.1004, 1.5]
    received = [(0, 0.5, 0.53), (1, 0.5004, 0.55), (2, 0.95, 1.2), (3, 1.1, 1.12), (5, 1.1004, 1.13),
                (6, 1.5, 1.6), (6, 1.5, 1.7)]  # a duplicate of seq 6 counts once (its first arrival)
    out = video_frames(frames, sent, received, 100.0, 1.0, 3)
    assert out == {"frames_sent": [2, 2, 0], "frames_lost": [0, 1, 0], "frames_late": [1, 0, 0]}


def test_packets_of_different_sizes_weigh_by_their_bytes():
    """Two packets in interval 0: 1500 bytes with 10 ms, 500 bytes with 30 ms: byte-weighted mean
    (1500·10 + 500·30)/2000 = 15 ms; a third (500 bytes) lost: loss 500/2500 = 0.2; throughput 2000·8 bits/s."""
    sent = [0.0, 0.1, 0.2]
    received = [(0, 0.0, 0.010), (1, 0.1, 0.130)]
    out = cbr_series(sent, received, [1500, 500, 500], 1.0, 1)
    assert out["delay_ms"] == [pytest.approx(15.0)]
    assert out["loss"] == [pytest.approx(0.2)]
    assert out["throughput_mbps"] == [pytest.approx(0.016)]


def test_the_sender_sends_a_schedule_with_frame_fields_over_loopback(tmp_path):
    """udpflow.py send --schedule / recv --frames as scripts on 127.0.0.1 (no namespaces): every packet arrives
    with the schedule's frame number and count, the frames 40 ms apart as scheduled, a frame's packets back to back
    (all gone before the next frame's instant; the slack is for a host whose two cores are busy)."""
    sched = Schedule()
    sched.frames = [(0, 0, 3), (1, 3, 2)]
    for size in (1500, 1500, 700):
        sched.add(0.0, size, 0, 3)
    for size in (1500, 100):
        sched.add(0.04, size, 1, 2)
    path = tmp_path / "schedule.bin"
    sched.write(path)
    recv = subprocess.Popen([sys.executable, "-P", udpflow.__file__, "recv", "--bind", "127.0.0.1", "--port",
                             "47391", "--frames", "--out", str(tmp_path / "rx.bin")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert recv.stdout.readline().strip() == b"ready"
        send = subprocess.run([sys.executable, "-P", udpflow.__file__, "send", "--dst", "127.0.0.1", "--port",
                               "47391", "--bind", "127.0.0.1", "--schedule", str(path), "--out",
                               str(tmp_path / "tx.bin")], capture_output=True, timeout=30)
        assert send.returncode == 0, send.stderr
        recv.communicate(b"stop\n", timeout=10)
    finally:
        if recv.poll() is None:
            recv.kill()
    sent = udpflow.read_sent(tmp_path / "tx.bin")
    rx = udpflow.read_received_frames(tmp_path / "rx.bin")
    assert [(q, f, n) for q, _, _, f, n in rx] == [(0, 0, 3), (1, 0, 3), (2, 0, 3), (3, 1, 2), (4, 1, 2)]
    assert sent[3] - sent[0] == pytest.approx(0.04, abs=0.02)
    assert sent[2] - sent[0] < 0.03 and sent[3] > sent[2]
    raw = array("d")
    raw.frombytes((tmp_path / "tx.bin").read_bytes())
    assert len(raw) == 5
