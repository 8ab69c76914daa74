"""Voice on the kernel: a G.711 call (EF) beside bulk TCP (BE) through a 4 Mbit/s bottleneck, with one FIFO and with
strict priority queues; the linux engine's measured voice delay, jitter and loss against the fluid engine's.

Host ``a`` reaches ``b`` through router ``r``: a→r 100 Mbit/s 1 ms, r→b 4 Mbit/s 10 ms with a 100-packet queue. The
bottleneck is the router's egress, not the sending host's: a host's own qdisc holds only what TCP Small Queues lets
the socket put there (about two packets), so with the bottleneck at ``a`` the kernel builds no standing queue while
the fluid model does. The call is G.711 every 20 ms: 160 bytes of payload + 12 (RTP) + 8 (UDP) + 20 (IPv4) =
200-byte IP packets, 214-byte Ethernet frames (HTB counts frames), 50 packets/s.

Hand-worked reference of the uncongested call: propagation 1 + 10 ms, plus the frame's transmission at each hop,
214 × 8 / 100e6 = 0.017 ms and 214 × 8 / 4e6 = 0.428 ms: 11.445 ms one way, within the delay line's accuracy
(max(0.5 ms, 3 %), tests/linux/test_delay_accuracy.py).
"""

from __future__ import annotations

import math
import statistics
from array import array
from pathlib import Path

import pytest

from subflow.results.voice import codec_impairment, voice_rating
from subflow.runplan.output_checks import check_output
from subflow.runplan.resolve import resolve_plan
from subflow_engines import linux
from subflow_engines.fluid import run as fluid_run

pytestmark = pytest.mark.linux

DURATION_S = 20.0
#: the compared window: after TCP's slow start and its first loss (both engines lose voice packets there)
WINDOW = (5.0, 20.0)
#: hand-worked one-way delay of a G.711 packet through the idle path (module docstring), ms
IDLE_DELAY_MS = 1.0 + 10.0 + 214 * 8 / 100e6 * 1e3 + 214 * 8 / 4e6 * 1e3


def _doc(discipline: str, with_tcp: bool = True, duration_s: float = DURATION_S) -> dict:
    flows = [{"id": "call", "src": "a", "dst": "b", "kind": "voice", "dscp": "EF"}]
    if with_tcp:
        flows.insert(0, {"id": "bulk", "src": "a", "dst": "b"})
    return {
        "name": "voice-beside-tcp",
        "nodes": [{"id": "a", "kind": "host"}, {"id": "r", "kind": "router"}, {"id": "b", "kind": "host"}],
        "links": [{"id": "ar", "src": "a", "dst": "r", "bandwidth_mbps": 100, "delay_ms": 1},
                  {"id": "rb", "src": "r", "dst": "b", "bandwidth_mbps": 4, "delay_ms": 10, "queue_packets": 100}],
        "flows": flows,
        "queueing": {"discipline": discipline},
        "run": {"duration_s": duration_s, "interval_s": 1.0},
    }


def _mean(flow, series: str, window=WINDOW) -> float:
    vals = [v for t, v in zip(flow.t_s, getattr(flow, series)) if window[0] - 1e-9 <= t < window[1] - 1e-9
            and v is not None]
    return statistics.fmean(vals)


def _median(flow, series: str, window=WINDOW) -> float:
    vals = [v for t, v in zip(flow.t_s, getattr(flow, series)) if window[0] - 1e-9 <= t < window[1] - 1e-9
            and v is not None]
    return statistics.median(vals)


def _call(out):
    return next(f for f in out.flows if f.id == "call")


def _close(linux_value: float, fluid_value: float) -> bool:
    """The issue's criterion: within ±20 % of the kernel's, or ±2 ms (loss: ±0.02, as a fraction ×100 ms)."""
    return abs(linux_value - fluid_value) <= max(0.2 * abs(linux_value), 2.0)


def _rfc3550_jitter_ms(records: list[tuple[int, float, float]]) -> list[float]:
    """RFC 3550 §6.4.1 written out again from the text: for packets in arrival order,
    D = (Rj − Ri) − (Sj − Si), J += (|D| − J)/16; J after each packet, ms."""
    out, j, prev = [], 0.0, None
    for _, s, r in records:
        if prev is not None:
            d = (r - prev[1]) - (s - prev[0])
            j = j + (abs(d) - j) / 16.0
        out.append(j * 1e3)
        prev = (s, r)
    return out


def _records(art: Path, prefix: str) -> tuple[array, list[tuple[int, float, float]]]:
    """The sender's send times and the receiver's (seq, send, arrival) of flow ``call`` (float64 files)."""
    folder = art / prefix
    sent = array("d")
    sent.frombytes(next(folder.glob("call-udp-sent-*.bin")).read_bytes())
    raw = array("d")
    raw.frombytes(next(folder.glob("call-udp-received-*.bin")).read_bytes())
    return sent, [(int(raw[i]), raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def test_voice_beside_tcp_fifo_and_priority_match_the_fluid_engine(need_linux, no_leftovers, tmp_path, monkeypatch):
    """(a) fifo: the call waits behind TCP's standing queue (tens to hundreds of ms) in both engines; (b) strict
    priority: the call's delay is the idle path's plus at most one BE frame (3.03 ms at 4 Mbit/s); the linux
    engine's mean voice delay and loss and median jitter over 5-20 s within ±20 % or ±2 ms of the fluid engine's.
    The measured jitter is RFC 3550's J of the recorded send and arrival times."""
    if linux.detect().delay_mechanism is None:
        pytest.skip("linux engine: no delay mechanism (netem, or NFQUEUE + fnfqueue)")
    monkeypatch.setenv("SUBFLOW_LINUX_ARTIFACTS_DIR", str(tmp_path))
    report, results = [], {}
    for discipline in ("fifo", "strict_priority"):
        plan = resolve_plan(_doc(discipline), "sptcp", "linux")
        model = fluid_run(plan)  # first: the kernel run then has the CPU (the delay line runs in this process)
        real = linux.run(plan)
        check_output(plan, real)  # no flow above its path's capacity or its rate (beyond what queues held)
        lc, fc = _call(real), _call(model)
        # J is a running average (gain 1/16): one packet the host released late (the delay line or the receiver
        # off the CPU) lifts it for seconds, so the intervals' median stands for the run; delay and loss: the mean
        figures = {k: (_mean(lc, k), _mean(fc, k)) for k in ("delay_ms", "loss")}
        figures["jitter_ms"] = (_median(lc, "jitter_ms"), _median(fc, "jitter_ms"))
        results[discipline] = (real, figures)
        report.append(f"{discipline}: " + ", ".join(f"{k} linux {a:.3f} fluid {b:.3f}" for k, (a, b) in figures.items()))
    print("\n" + "\n".join(report))

    fifo, prio = results["fifo"][1], results["strict_priority"][1]
    # (a) fifo: TCP's standing queue (up to 100 frames, 303 ms) is in the call's delay
    assert fifo["delay_ms"][0] > IDLE_DELAY_MS + 50.0, report
    assert _close(*fifo["delay_ms"]), report
    assert abs(fifo["loss"][0] - fifo["loss"][1]) <= 0.02, report
    # the kernel's queue moves by whole frames, two at a time (ACK-clocked bursts): the fluid engine's packet
    # granularity term (subflow_engines.fluid.cbr) gives J = 2/3 of a 3.03 ms frame, 2.02 ms
    assert _close(*fifo["jitter_ms"]), report
    # (b) strict priority: the idle path's delay plus the residual of the BE frame in service (≤ 3.03 ms)
    assert IDLE_DELAY_MS - 0.5 <= prio["delay_ms"][0] <= IDLE_DELAY_MS + 3.03 + 1.0, report
    for k in ("delay_ms", "jitter_ms"):
        assert _close(*prio[k]), (k, report)
    assert prio["loss"][0] == 0.0 and prio["loss"][1] == 0.0, report

    # the measured jitter is RFC 3550's J over the recorded times (arrival order), computed again here
    real = results["fifo"][0]
    sent, rec = _records(tmp_path, real.linux["prefix"])
    js = _rfc3550_jitter_ms(rec)
    reported = [v for v in _call(real).jitter_ms if v is not None]
    k = 0
    for v in reported:  # each interval's J is J after some packet (the interval's last arrival), in order
        while k < len(js) and abs(js[k] - v) > 1e-5:
            k += 1
        assert k < len(js), (v, reported)
    # and the loss is the sequence numbers never received
    assert real.linux["udp_flows"]["call"]["packets_sent"] == len(sent) == round(DURATION_S / 0.020)
    assert real.linux["udp_flows"]["call"]["packets_received"] == len({q for q, _, _ in rec})


def test_fifo_jitter_follows_the_bottlenecks_frame_time(need_linux, no_leftovers):
    """The same call and bulk TCP through an 8 Mbit/s bottleneck: a frame takes 1.514 ms, half of 4 Mbit/s's, and
    the fluid engine's packet-granularity term halves its jitter to 2/3 of a frame, 1.01 ms. The kernel's median J
    over 5-20 s within ±20 % or ±2 ms of it, and below the 4 Mbit/s figure of the test above (2/3 of 3.03 ms)."""
    if linux.detect().delay_mechanism is None:
        pytest.skip("linux engine: no delay mechanism (netem, or NFQUEUE + fnfqueue)")
    doc = _doc("fifo")
    doc["links"][1]["bandwidth_mbps"] = 8
    plan = resolve_plan(doc, "sptcp", "linux")
    model = fluid_run(plan)
    real = linux.run(plan)
    check_output(plan, real)
    lj, fj = _median(_call(real), "jitter_ms"), _median(_call(model), "jitter_ms")
    ld, fd = _mean(_call(real), "delay_ms"), _mean(_call(model), "delay_ms")
    report = f"8 Mbit/s fifo: jitter linux {lj:.3f} fluid {fj:.3f}, delay linux {ld:.3f} fluid {fd:.3f}"
    print("\n" + report)
    assert 2 / 3 * 1.514 <= fj <= 2 / 3 * 1.514 * 1.1, report
    assert _close(lj, fj), report
    assert lj < 2 / 3 * 3.028, report
    assert _close(ld, fd), report


def test_an_uncongested_call_loses_nothing_and_has_the_paths_delay(need_linux, no_leftovers):
    """The call alone: no loss in any interval, 50 packets of 200 bytes a second (80 kbit/s), the hand-worked
    one-way delay within the delay line's accuracy, and jitter well under a millisecond; R per interval is the
    fluid engine's rule applied to the measured figures: G.107 for G.711 with PLC at delay_ms + 20 ms
    (packetisation) + 40 ms (the default playout buffer; G.711 has no look-ahead) and the interval's loss (no
    packet of a call this steady arrives 40 ms above its interval's mean)."""
    if linux.detect().delay_mechanism is None:
        pytest.skip("linux engine: no delay mechanism (netem, or NFQUEUE + fnfqueue)")
    out = linux.run(resolve_plan(_doc("strict_priority", with_tcp=False, duration_s=6.0), "sptcp", "linux"))
    call = _call(out)
    assert all(v == 0.0 for v in call.loss if v is not None) and call.loss[1] == 0.0
    assert out.linux["udp_flows"]["call"] == {"packets_sent": 300, "packets_received": 300, "packet_bytes": 200}
    for v in call.throughput_mbps[1:5]:
        assert v == pytest.approx(0.080, abs=0.0041)  # 50 ± 2 packets of 1600 bits in a 1 s interval
    window = (1.0, 6.0)
    # the delay line keeps each hop within max(0.5 ms, 3 %) of its delay; the receiver stamps an arrival when it
    # wakes up in user space (tens of µs on an idle host, up to a millisecond on this project's shared two cores)
    assert IDLE_DELAY_MS - 0.5 <= _mean(call, "delay_ms", window) <= IDLE_DELAY_MS + 1.5
    assert _mean(call, "jitter_ms", window) < 1.0
    g711 = codec_impairment("g711", plc=True)
    for d, lo, r in zip(call.delay_ms, call.loss, call.r_factor):
        assert r == pytest.approx(voice_rating(d + 20.0 + 40.0, lo, g711).r, abs=1e-3)
        assert math.isfinite(r) and r > 90.0


def test_drr_shares_the_bottleneck_by_the_classes_weights(need_linux, no_leftovers):
    """Two bulk TCP flows through a 10 Mbit/s router egress under drr with the default classes: AF41 (video,
    weight 3) and BE (best_effort, weight 2) while both have packets share the link 3:2, 6 and 4 Mbit/s of frames,
    6·1448/1514 = 5.74 and 4·1448/1514 = 3.83 Mbit/s of goodput (the fluid engine's hand-checked case,
    tests/unit/engines/test_fluid_queue_classes.py); the kernel's means over 5-15 s within 10 %."""
    doc = _doc("drr", with_tcp=False, duration_s=15.0)
    doc["links"][1]["bandwidth_mbps"] = 10
    doc["flows"] = [{"id": "video", "src": "a", "dst": "b", "dscp": "AF41"}, {"id": "data", "src": "a", "dst": "b"}]
    out = linux.run(resolve_plan(doc, "sptcp", "linux"))
    flows = {f.id: f for f in out.flows}
    video, data = (_mean(flows[k], "throughput_mbps", (5.0, 15.0)) for k in ("video", "data"))
    print(f"\ndrr: AF41 {video:.2f} BE {data:.2f} Mbit/s")
    assert video == pytest.approx(6.0 * 1448 / 1514, rel=0.10)
    assert data == pytest.approx(4.0 * 1448 / 1514, rel=0.10)
    assert [c["name"] for c in out.linux["queueing"]["shapers"][0]["classes"]] == [
        "voice", "video", "best_effort", "background"]
