"""Congestion-window traces of one validation-grid cell: the kernel's (linux engine) and the
fluid engine's, and the figures that compare them.

Kernel: while ``linux.run(plan)`` runs the cell, a tracefs instance records the sender's
``tcp:tcp_probe`` (one event per segment the sender receives: snd_cwnd, ssthresh, srtt,
snd_una before the ACK is processed; ``tcp_rcv_established``), ``tcp:tcp_cong_state_set``
(ca_state: 0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss) and ``tcp:tcp_retransmit_skb``,
filtered on the iperf3 server port; tracepoints are global, so no namespace is entered and
nothing polls the socket (tracefs must be mounted: ``mount -t tracefs nodev /sys/kernel/tracing``;
the instance is removed afterwards). Without tracefs, ``--ss`` samples ``ss -tinH`` in the sender's
namespace every 10 ms instead (cwnd, ssthresh, rtt, retrans; no ca_state).

Fluid: the scalar kernel at the kernel's RTT (``scaled_delays``), every step's cwnd,
ssthresh, recovery flag (fast recovery or a stall), SRTT.

Figures (after the warm-up): time-weighted mean cwnd, loss events per second, mean CA epoch
(Open to the next reduction), reduction factor (cwnd when recovery ends / cwnd when it
starts), time in recovery, timeouts, growth per RTT in congestion avoidance and growth per
"round" (Δcwnd / Σ acked/cwnd: 1 for Reno, α ≈ 0.53 for CUBIC's Reno-friendly region).

Usage (kernel runs need root and the heavy lock)::

    flock /tmp/subflow-heavy.lock python scripts/cwnd_trace.py --kernel cubic newreno --out /tmp/trace
    python scripts/cwnd_trace.py --fluid cubic newreno --rtt-ms 24 --out /tmp/trace
    python scripts/cwnd_trace.py --report /tmp/trace
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

TRACEFS = Path("/sys/kernel/tracing")
WARMUP_S = 5.0
#: set by ``--queue-packets``: trace the grid's queue row cell of that many packets
QUEUE_PACKETS: int | None = None
MSS = 1448


def cell_doc(cc: str, rtt_ms: float, loss: float, spread: str, duration_s: float) -> tuple[dict, object]:
    """The grid cell's scenario and cell; ``QUEUE_PACKETS`` (``--queue-packets``) picks the
    queue row's cell of that queue instead (newreno, RTT 300 ms, lossless)."""
    from subflow_testbeds.grid import QUEUE_ROW, cells

    label = f"{loss * 100:g} %"
    if QUEUE_PACKETS:
        for c in cells(duration_s=duration_s):
            if c.row == QUEUE_ROW and c.label == f"{QUEUE_PACKETS} packets":
                return c.scenario, c
        raise SystemExit(f"no queue cell of {QUEUE_PACKETS} packets")
    for c in cells(duration_s=duration_s):
        if c.row == f"{cc}, RTT {rtt_ms:g} ms, loss on {spread} link{'s' if spread == 'all' else ''}" and c.label == label:
            return c.scenario, c
    raise SystemExit(f"no grid cell {cc} {rtt_ms} ms {label} {spread}")


# ---------------------------------------------------------------------------------------- kernel
class Tracer:
    """A tracefs instance recording the sender's tcp_probe, ca_state changes and retransmissions."""

    def __init__(self, name: str = "subflow_cwnd_trace"):
        self.dir = TRACEFS / "instances" / name

    @staticmethod
    def available() -> bool:
        return (TRACEFS / "events" / "tcp" / "tcp_probe").exists()

    def _w(self, rel: str, value: str) -> None:
        (self.dir / rel).write_text(value)

    def start(self, port: int) -> None:
        if self.dir.exists():
            self.dir.rmdir()
        self.dir.mkdir()
        self._w("buffer_size_kb", "16384")
        self._w("trace_clock", "mono")  # CLOCK_MONOTONIC, as time.monotonic() of the run clock
        for ev in ("tcp_probe", "tcp_cong_state_set", "tcp_retransmit_skb"):
            self._w(f"events/tcp/{ev}/filter", f"dport == {port}")
            self._w(f"events/tcp/{ev}/enable", "1")
        self._w("tracing_on", "1")

    def stop(self) -> str:
        self._w("tracing_on", "0")
        text = (self.dir / "trace").read_text(errors="replace")
        for ev in ("tcp_probe", "tcp_cong_state_set", "tcp_retransmit_skb"):
            self._w(f"events/tcp/{ev}/enable", "0")
        self.dir.rmdir()
        return text


_LINE = re.compile(r"\s(\d+\.\d+): (tcp_\w+): (.*)$")


def parse_trace(text: str, t0: float) -> dict:
    """Events of the data connection (the socket with the most tcp_probe events)."""
    probes: dict[str, list] = {}
    states, retrans = [], []
    for line in text.splitlines():
        m = _LINE.search(line)
        if not m:
            continue
        t = float(m.group(1)) - t0
        kv = dict(tok.split("=", 1) for tok in m.group(3).split() if "=" in tok)
        if m.group(2) == "tcp_probe":
            probes.setdefault(kv["skaddr"], []).append(
                (t, int(kv["snd_cwnd"]), int(kv["ssthresh"]), int(kv["srtt"]), int(kv["snd_una"], 16)))
        elif m.group(2) == "tcp_cong_state_set":
            states.append((t, int(kv["cong_state"]), kv.get("sport")))
        else:
            retrans.append((t, kv.get("sport")))
    sk = max(probes, key=lambda k: len(probes[k])) if probes else None
    return {"probe": probes.get(sk, []), "states": states, "retrans": retrans}


def ss_poll(ns: str, port: int, stop: threading.Event, out: list, t0_ref: list, period: float = 0.01) -> None:
    """Fallback without tracefs: ``ss -tinH`` in ``ns`` every ``period`` s."""
    from subflow_engines.linux import sockets

    while not stop.is_set():
        t = time.monotonic()
        for s in sockets.sample(ns):
            if s.pport == port and s.num("bytes_acked") > 10000:
                out.append((t - (t0_ref[0] or t), s.num("cwnd"), s.num("ssthresh", 1e9), s.num("rtt") * 1000,
                            s.num("bytes_acked"), s.num("retrans"), s.info.get("ca_state")))
        stop.wait(max(0.0, period - (time.monotonic() - t)))


def kernel_trace(cc: str, rtt_ms: float, loss: float, spread: str, duration_s: float, use_ss: bool) -> dict:
    from subflow.runplan.resolve import resolve_plan
    from subflow_engines import linux
    from subflow_engines.linux import engine as linux_engine

    doc, _ = cell_doc(cc, rtt_ms, loss, spread, duration_s)
    plan = resolve_plan(doc, "sptcp", "linux")
    tracer = None if use_ss or not Tracer.available() else Tracer()
    result: dict = {"cc": cc, "source": "ss" if tracer is None else "tracefs"}
    orig = linux_engine.LinuxRun.execute

    def execute(self, *a, **k):
        fl = next(iter(self.flows.values()))
        port = fl.fa.port
        stop, samples, t0_ref = threading.Event(), [], [None]
        th = None
        if tracer is not None:
            tracer.start(port)
        else:
            th = threading.Thread(target=ss_poll, args=(self.model.ns(fl.fp.src), port, stop, samples, t0_ref),
                                  daemon=True)
            th.start()
        try:
            t0_ref[0] = time.monotonic()
            return orig(self, *a, **k)
        finally:
            if tracer is not None:
                result.update(parse_trace(tracer.stop(), self.t0 + (fl.launch_s or 0.0)))
            else:
                stop.set()
                th.join(2)
                off = (self.t0 - t0_ref[0]) + (fl.launch_s or 0.0)
                result["ss"] = [(s[0] - off,) + tuple(s[1:]) for s in samples]

    linux_engine.LinuxRun.execute = execute
    try:
        out = linux.run(plan)
    finally:
        linux_engine.LinuxRun.execute = orig
    flow = out.flows[0]
    v = [x for t, x in zip(flow.t_s, flow.throughput_mbps) if t >= WARMUP_S]
    client = (flow.iperf3 or {}).get("client", {})
    result.update(mbps=sum(v) / len(v), mean_rtt_ms=client.get("mean_rtt_ms"), min_rtt_ms=client.get("min_rtt_ms"))
    return result


def kernel_series(tr: dict) -> list[tuple]:
    """(t, cwnd, ssthresh, srtt_s, in_recovery, acked_segments, state) per ACK from a kernel trace;
    ``state``: the ca_state in force (0 Open … 4 Loss)."""
    states = sorted((t, s) for t, s, _ in tr["states"])
    out, k, cur, prev_una = [], 0, 0, None
    for t, cwnd, ssth, srtt_us, una in tr["probe"]:
        while k < len(states) and states[k][0] <= t:
            cur = states[k][1]
            k += 1
        acked = 0.0 if prev_una is None else ((una - prev_una) % (1 << 32)) / MSS
        if acked > 1e6:
            acked = 0.0
        prev_una = una
        out.append((t, float(cwnd), float(ssth), srtt_us / 1e6, cur >= 2, acked, cur))
    return out


# ---------------------------------------------------------------------------------------- fluid
def fluid_trace(cc: str, rtt_ms: float, loss: float, spread: str, duration_s: float, kernel_rtt_ms: float | None,
                seed: int = 1) -> dict:
    from subflow.runplan.resolve import resolve_plan
    from subflow_testbeds.grid import scaled_delays
    from subflow_engines.fluid.scalar import ScalarSimulator

    doc, _ = cell_doc(cc, rtt_ms, loss, spread, duration_s)
    if kernel_rtt_ms:
        doc = scaled_delays(doc, kernel_rtt_ms / rtt_ms)
    doc = {**doc, "run": {**doc["run"], "seed": seed}}
    plan = resolve_plan(doc, "sptcp", "fluid")
    rows: list[tuple] = []
    timeouts = [0]

    class Traced(ScalarSimulator):
        def step(self, step, t, b):
            super().step(step, t, b)
            for conn in self.conns:
                for sub in conn.subs.values():
                    if sub.phase == "handshake":
                        continue
                    rec = sub.phase != "open" or t < sub.recover_end or t < sub.pause_until
                    acked = 0.0 if rec or not sub.limited else sub.x * self.clock.dt_s / self.pkt_bits
                    rows.append((t, sub.cwnd, min(sub.ssthresh, 1e9), sub.srtt or sub.rtt, rec, acked,
                                 4 if sub.phase == "stalled" else 3 if rec else 0))

    sim = Traced(plan)
    out = sim.run()
    flow = out.flows[0]
    v = [x for t, x in zip(flow.t_s, flow.throughput_mbps) if t >= WARMUP_S]
    return {"cc": cc, "source": "fluid scalar", "mbps": sum(v) / len(v), "series": rows,
            "rtt_ms": kernel_rtt_ms or rtt_ms}


# ---------------------------------------------------------------------------------------- figures
def figures(series: list[tuple], t_end: float, kernel: bool) -> dict:
    """Figures of a (t, cwnd, ssthresh, srtt, in_recovery, acked, state) series after the warm-up."""
    s = [r for r in series if WARMUP_S <= r[0] <= t_end]
    if len(s) < 10:
        return {}
    # time-weighted mean cwnd (each sample holds until the next)
    area = sum(a[1] * (b[0] - a[0]) for a, b in zip(s, s[1:]))
    span = s[-1][0] - s[0][0]
    mean_cwnd = area / span
    rec_time = sum(b[0] - a[0] for a, b in zip(s, s[1:]) if a[4])
    # episodes: maximal runs of in_recovery
    episodes, cur = [], None
    for i, r in enumerate(s):
        if r[4] and cur is None:
            cur = [i, i]
        elif r[4]:
            cur[1] = i
        elif cur is not None:
            episodes.append((cur[0], cur[1], i))
            cur = None
    reductions, rto = [], 0
    for a, _, end in episodes:
        before = s[a - 1][1] if a > 0 else s[a][1]
        after = s[end][1]
        states = {r[6] for r in s[a:end]}
        if 4 in states:
            rto += 1
            continue
        if before > 0:
            reductions.append(after / before)
    # congestion-avoidance epochs: from the end of one episode to the start of the next
    growth_rtt, growth_round, epoch_len, epoch_start_cw, epoch_end_cw = [], [], [], [], []
    for (_, _, end), (nxt, _, _) in zip(episodes, episodes[1:]):
        seg = s[end:nxt]
        if len(seg) < 3:
            continue
        dur = seg[-1][0] - seg[0][0]
        if dur <= 0:
            continue
        srtt = statistics.mean(r[3] for r in seg)
        d_cwnd = seg[-1][1] - seg[0][1]
        rounds = sum(r[5] / r[1] for r in seg[1:] if r[1] > 0)
        epoch_len.append(dur)
        epoch_start_cw.append(seg[0][1])
        epoch_end_cw.append(seg[-1][1])
        growth_rtt.append((d_cwnd, dur / srtt))
        growth_round.append((d_cwnd, rounds))
    ep = len(episodes)
    f = {
        "mean_cwnd": round(mean_cwnd, 3),
        "mean_srtt_ms": round(1000 * statistics.mean(r[3] for r in s), 2),
        "loss_events_per_s": round(ep / span, 3),
        "timeouts": rto,
        "time_in_recovery": round(rec_time / span, 3),
        "reduction_factor": round(statistics.mean(reductions), 3) if reductions else None,
        "epochs": len(epoch_len),
        "mean_epoch_s": round(statistics.mean(epoch_len), 4) if epoch_len else None,
        "mean_epoch_rtts": round(sum(g[1] for g in growth_rtt) / len(growth_rtt), 2) if growth_rtt else None,
        "cwnd_epoch_start": round(statistics.mean(epoch_start_cw), 2) if epoch_start_cw else None,
        "cwnd_epoch_end": round(statistics.mean(epoch_end_cw), 2) if epoch_end_cw else None,
        "growth_per_rtt": round(sum(g[0] for g in growth_rtt) / sum(g[1] for g in growth_rtt), 3) if growth_rtt else None,
        "growth_per_round": round(sum(g[0] for g in growth_round) / sum(g[1] for g in growth_round), 3)
        if growth_round and sum(g[1] for g in growth_round) > 0 else None,
    }
    if kernel:
        f["probe_events"] = len(s)
    return f


def growth_profile(series: list[tuple], t_end: float, max_rounds: int = 12) -> list:
    """Mean cwnd gain over the epoch's first cwnd, per round of acknowledged segments since the
    epoch began (a round = the epoch-start window's worth of segments acknowledged), averaged
    over epochs lasting at least that many rounds: how fast CA grows early and late."""
    s = [r for r in series if WARMUP_S <= r[0] <= t_end]
    sums = [[0.0, 0] for _ in range(max_rounds)]
    i = 0
    n = len(s)
    while i < n:
        if s[i][4] or (i > 0 and not s[i - 1][4]):
            i += 1
            continue
        # s[i] is the first sample after an episode
        w0, rounds, k, j = s[i][1], 0.0, 0, i + 1
        while j < n and not s[j][4] and k < max_rounds:
            rounds += s[j][5] / w0
            while k < max_rounds and rounds >= k + 1:
                sums[k][0] += s[j][1] - w0
                sums[k][1] += 1
                k += 1
            j += 1
        i = j
    return [(k + 1, round(a / c, 3), c) for k, (a, c) in enumerate(sums) if c]


def report(d: Path) -> None:
    rows = []
    for p in sorted(d.glob("*.json")):
        tr = json.loads(p.read_text())
        if "series" in tr:
            series, kernel = [tuple(r) for r in tr["series"]], False
        elif "probe" in tr:
            series, kernel = kernel_series(tr), True
        else:
            continue
        f = figures(series, 31.0, kernel)
        f = {"name": p.stem, "mbps": round(tr["mbps"], 3), **f}
        rows.append(f)
        print(json.dumps(f))
        print("   growth profile (round, mean Δcwnd, epochs):", growth_profile(series, 31.0))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", nargs="*", default=[], help="congestion controls to run on the linux engine")
    ap.add_argument("--fluid", nargs="*", default=[], help="congestion controls to run on the fluid engine")
    ap.add_argument("--rtt-ms", type=float, default=20.0, help="the grid cell's RTT")
    ap.add_argument("--kernel-rtt-ms", type=float, default=None, help="fluid: base RTT to scale the delays to")
    ap.add_argument("--loss", type=float, default=0.01)
    ap.add_argument("--spread", default="one")
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--seeds", type=int, nargs="*", default=[1])
    ap.add_argument("--ss", action="store_true", help="poll ss every 10 ms instead of tracefs")
    ap.add_argument("--queue-packets", type=int, default=None,
                    help="trace the queue row's cell with this bottleneck queue (newreno, RTT 300 ms, lossless)")
    ap.add_argument("--tag", default="")
    ap.add_argument("--out", type=Path, default=Path("/tmp/cwnd_trace"))
    ap.add_argument("--report", type=Path, default=None)
    a = ap.parse_args()
    global QUEUE_PACKETS
    QUEUE_PACKETS = a.queue_packets
    if a.report:
        report(a.report)
        return 0
    a.out.mkdir(parents=True, exist_ok=True)
    stem = f"rtt{a.rtt_ms:g}-p{a.loss:g}-{a.spread}" + (f"-q{a.queue_packets}" if a.queue_packets else "")
    for cc in a.kernel:
        for k in range(a.runs):
            t0 = time.time()
            tr = kernel_trace(cc, a.rtt_ms, a.loss, a.spread, a.duration, a.ss)
            p = a.out / f"kernel-{cc}-{stem}{a.tag}-{int(t0)}.json"
            p.write_text(json.dumps(tr))
            print(f"{p}: {tr['mbps']:.3f} Mbit/s, RTT {tr['mean_rtt_ms']}/{tr['min_rtt_ms']} ms, "
                  f"{len(tr.get('probe', tr.get('ss', [])))} samples, {time.time() - t0:.0f} s", flush=True)
    for cc in a.fluid:
        for seed in a.seeds:
            tr = fluid_trace(cc, a.rtt_ms, a.loss, a.spread, a.duration, a.kernel_rtt_ms, seed)
            p = a.out / f"fluid-{cc}-{stem}{a.tag}-s{seed}.json"
            p.write_text(json.dumps(tr))
            print(f"{p}: {tr['mbps']:.3f} Mbit/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
