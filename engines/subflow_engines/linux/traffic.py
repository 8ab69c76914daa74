"""The traffic of one ``linux`` run: per-flow bookkeeping, the iperf3 servers and clients
(``iperf3 -J``, under ``mptcpize`` for MPTCP), and their reports re-aligned to the run clock; udp, voice and
video flows by the timestamped sender and receiver of :mod:`.udpflow` (on/off and video packets on the schedule
of :mod:`.schedule`), their figures by :mod:`.cbrstats`.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from subflow.runplan import finish as finish_rule
from subflow.results.voice import interval_ratings
from subflow.runplan.document import FlowPlan, RunPlan
from subflow.scenario.document import DSCP_CODEPOINTS, VideoSource, VoiceSource

from subflow_engines.sources import VideoFrames, onoff_of

from . import cbrstats, commands, iperf3, udpflow
from .schedule import Schedule, onoff_schedule, video_schedule
from .commands import EngineCannotRun
from .topology import Model

MIN_INTERVAL_S = 0.1
#: iperf3 -l for rate-limited flows (bytes): small writes keep -b pacing smooth
PACED_WRITE_BYTES = 16384
#: how long udp receivers keep listening after the run's end (s): a packet still queued then arrives (a full
#: 100-packet queue at 1 Mbit/s drains in 1.2 s); one arriving later counts as lost
UDP_DRAIN_S = 1.5


class FlowRun:
    """Per-flow bookkeeping of one run: bytes and cwnd per output sample (total and per
    subflow), retransmissions per socket, when each subflow was seen, the path events'
    state and the iperf3 processes."""

    def __init__(self, fp: FlowPlan, fa, n_bins: int):
        self.fp = fp
        self.fa = fa
        self.total = [0.0] * n_bins  # bytes per bin
        self.sub_bytes: dict[str, list[float]] = {}
        self.sub_cwnd: dict[str, list[float]] = {}
        self.sub_retrans: dict[str, dict[tuple, float]] = {}
        self.sub_seen: dict[str, list[float]] = {}
        self.order: list[str] = []
        self.last_path: dict[str, list[str]] = {}
        self.current: dict[str, list[str]] = {}
        self.known: dict[str, list[str]] = {}
        self.observed_max = 0
        self.client: subprocess.Popen | None = None
        self.server: subprocess.Popen | None = None
        self.launch_s: float | None = None
        self.client_out: Path | None = None
        self.server_out: Path | None = None
        #: udp, voice and video flows: the sender's and receiver's records (:mod:`.udpflow`)
        self.sent_path: Path | None = None
        self.received_path: Path | None = None
        #: on/off and video flows: every packet's instant and size (:mod:`.schedule`); None for cbr
        self.schedule: Schedule | None = None
        for seg in fp.segments:
            for sp in seg.subflows:
                if sp.id not in self.sub_bytes:
                    self.order.append(sp.id)
                    self.sub_bytes[sp.id] = [0.0] * n_bins
                    self.sub_cwnd[sp.id] = [0.0] * n_bins
                    self.sub_retrans[sp.id] = {}
                self.last_path[sp.id] = list(sp.nodes)


class Traffic:
    """Starts, waits for and stops the iperf3 processes of a run, and reads their reports.

    Parameters
    ----------
    plan : RunPlan
        The run's plan (transport, interval).
    model : Model
        Namespaces of the flows' endpoints.
    cc : str
        Congestion control for ``iperf3 -C``.
    spawn : callable
        ``spawn(args, out_path) -> Popen``: starts a process the run owns.
    tmp : Path
        Where iperf3 writes its JSON.
    now : callable
        Seconds on the run clock.
    """

    def __init__(self, plan: RunPlan, model: Model, cc: str, spawn: Callable, tmp: Path, now: Callable[[], float]):
        self.plan = plan
        self.model = model
        self.cc = cc
        self.spawn = spawn
        self.tmp = tmp
        self.now = now
        self.interval = plan.interval_s
        self.n_bins = max(1, int(math.ceil(plan.duration_s / plan.interval_s - 1e-9)))

    def start_server(self, fl: FlowRun) -> None:
        """``iperf3 -s -1 -J`` in the destination's namespace."""
        ns = self.model.ns(fl.fp.dst)
        args = ["ip", "netns", "exec", ns] + (["mptcpize", "run"] if fl.fp.multipath else [])
        args += ["iperf3", "-4", "-s", "-1", "-J", "-p", str(fl.fa.port)]
        fl.server_out = self.tmp / f"server-{fl.fa.index}.json"
        fl.server = self.spawn(args, fl.server_out)

    def wait_listening(self, fl: FlowRun) -> None:
        """Until the server listens (10 s at most).

        Raises
        ------
        EngineCannotRun
            If it does not.
        """
        ns = self.model.ns(fl.fp.dst)
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            out = commands.run(["ss", "-N", ns, "-ltnH"], check=False).stdout
            if f":{fl.fa.port} " in out or out.rstrip().endswith(f":{fl.fa.port}"):
                return
            if fl.server.poll() is not None:
                break
            time.sleep(0.05)
        raise EngineCannotRun(f"iperf3 server for flow {fl.fp.id} did not start: {fl.server_out.read_text(errors='replace')[-300:]}")

    def start_client(self, fl: FlowRun) -> None:
        """``iperf3 -c`` in the source's namespace: ``-t`` whole seconds or ``-n`` the file size,
        ``-b`` the demand, ``-w`` the receive buffer."""
        fp, fa = fl.fp, fl.fa
        ns = self.model.ns(fp.src)
        dur = max(1, int(round(fp.stop_s - fp.start_s)))
        args = ["ip", "netns", "exec", ns] + (["mptcpize", "run"] if fp.multipath else [])
        args += ["iperf3", "-4", "-c", fa.connect_addr, "-p", str(fa.port), "-B", fa.bind_addr,
                 "-i", f"{max(MIN_INTERVAL_S, self.interval):g}", "-J", "-C", self.cc]
        size = getattr(fp, "size_bytes", None)
        args += ["-n", str(size)] if size else ["-t", str(dur)]
        rbuf = getattr(self.plan.transport, "rbuf_bytes", None)
        if rbuf:
            args += ["-w", str(rbuf)]
        if fp.rate_mbps is not None:
            args += ["-b", f"{fp.rate_mbps * 1e6:.0f}", "-l", str(PACED_WRITE_BYTES)]
        flow = self.scenario_flow(fp.id)
        dscp = DSCP_CODEPOINTS[getattr(flow, "dscp", "BE") or "BE"]
        if dscp:
            args += ["-S", str(dscp << 2)]  # IP_TOS of the data direction
        fl.client_out = self.tmp / f"client-{fa.index}.json"
        fl.launch_s = self.now()
        fl.client = self.spawn(args, fl.client_out)

    # ------------------------------------------------------------------ udp, voice and video flows
    def _python(self, ns: str) -> list[str]:
        # the module's file, not ``-m`` (no package import: numba would cost seconds); -P keeps its folder off
        # sys.path
        return ["ip", "netns", "exec", ns, os.environ.get("SUBFLOW_LINUX_PYTHON", sys.executable), "-P",
                udpflow.__file__]

    def start_udp_receiver(self, fl: FlowRun) -> None:
        """The :mod:`.udpflow` receiver in the destination's namespace, on the flow's address and port; waits
        until it has bound (10 s at most).

        Raises
        ------
        EngineCannotRun
            If it does not start.
        """
        fa = fl.fa
        fl.received_path = self.tmp / f"udp-received-{fa.index}.bin"
        fl.server_out = self.tmp / f"udp-recv-{fa.index}.log"
        args = self._python(self.model.ns(fl.fp.dst)) + ["recv", "--bind", fa.connect_addr, "--port", str(fa.port),
                                                         "--out", str(fl.received_path)]
        if fl.fp.kind == "video":
            args.append("--frames")
        fl.server = self.spawn(args, fl.server_out, stdin=True)
        _wait_ready(fl.server, fl.server_out, f"udp receiver for flow {fl.fp.id}")

    def udp_schedule(self, fl: FlowRun) -> tuple[int, float, int]:
        """(UDP payload bytes, seconds between packets, packets) of a udp (cbr) or voice flow: IP packets of the
        plan's ``packet_bytes`` (payload + 28 bytes of IPv4 and UDP; voice: the codec's payload + 12 bytes of RTP
        inside it) at the plan's ``rate_mbps`` (voice: the codec's IP rate) from ``start_s`` to ``stop_s``."""
        fp = fl.fp
        packet = int(fp.packet_bytes)
        gap_s = packet * 8.0 / (fp.rate_mbps * 1e6)
        count = max(1, int(math.floor((fp.stop_s - fp.start_s) / gap_s + 1e-9)))
        return packet - 28, gap_s, count

    def source_schedule(self, fl: FlowRun) -> Schedule | None:
        """The packets of an on/off udp flow, a voice flow with silence suppression or a video flow
        (:mod:`.schedule`, from the periods and frames of :mod:`subflow_engines.sources` for the plan's seed);
        None for a cbr udp or voice flow (the sender paces it by its interval)."""
        fp = fl.fp
        flow = self.scenario_flow(fp.id)
        if fp.kind == "video":
            video = (flow.video if flow is not None else None) or VideoSource(bitrate_mbps=fp.rate_mbps or 1.0)
            return video_schedule(VideoFrames(video, fp.start_s), fp.stop_s)
        onoff = onoff_of(flow, fp.kind, fp.start_s, self.plan.seed, fp.id)
        if onoff is None:
            return None
        return onoff_schedule(onoff, fp.start_s, fp.stop_s, int(fp.packet_bytes), fp.rate_mbps * 1e6)

    def launch_udp_sender(self, fl: FlowRun) -> None:
        """The :mod:`.udpflow` sender in the source's namespace, bound to the flow's source address, marked with
        its DSCP (``IP_TOS``), started ahead (at set-up: its interpreter's start-up is not in the flow's timing)
        and waiting for :meth:`start_udp_sender`; waits until it is ready (10 s at most).

        Raises
        ------
        EngineCannotRun
            If it does not start.
        """
        fp, fa = fl.fp, fl.fa
        flow = self.scenario_flow(fp.id)
        dscp = DSCP_CODEPOINTS[getattr(flow, "dscp", "BE") or "BE"]
        fl.sent_path = self.tmp / f"udp-sent-{fa.index}.bin"
        fl.client_out = self.tmp / f"udp-send-{fa.index}.log"
        args = self._python(self.model.ns(fp.src)) + [
            "send", "--dst", fa.connect_addr, "--port", str(fa.port), "--bind", fa.bind_addr, "--dscp", str(dscp),
            "--wait-start", "--out", str(fl.sent_path)]
        fl.schedule = self.source_schedule(fl)
        if fl.schedule is None:
            payload, gap_s, count = self.udp_schedule(fl)
            args += ["--payload-bytes", str(payload), "--interval-s", f"{gap_s:.9f}", "--count", str(count)]
        else:
            path = self.tmp / f"udp-schedule-{fa.index}.bin"
            fl.schedule.write(path)
            args += ["--schedule", str(path)]
        fl.client = self.spawn(args, fl.client_out, stdin=True)
        _wait_ready(fl.client, fl.client_out, f"udp sender for flow {fp.id}")

    def start_udp_sender(self, fl: FlowRun, origin_s: float) -> None:
        """Let the sender go: its first packet is due at ``origin_s`` (``CLOCK_MONOTONIC``, s; the flow's
        ``start_s`` on the run clock)."""
        fl.launch_s = self.now()
        try:
            fl.client.stdin.write(f"start {origin_s:.9f}\n".encode())
            fl.client.stdin.flush()
        except OSError as exc:
            raise EngineCannotRun(f"udp sender for flow {fl.fp.id} is gone: "
                                  f"{fl.client_out.read_text(errors='replace')[-300:]}") from exc

    def scenario_flow(self, flow_id: str):
        """The scenario's :class:`~subflow.scenario.document.Flow` of ``flow_id`` (None if absent)."""
        return next((f for f in self.model.scenario.flows if f.id == flow_id), None)

    def finish_udp(self, flows: list[FlowRun]) -> None:
        """Wait for the senders, keep the receivers listening :data:`UDP_DRAIN_S` more, then stop them (``stop``
        on stdin: each writes its records)."""
        _finish([fl.client for fl in flows], finish_rule.client_grace_s(self.plan))
        if flows:
            time.sleep(UDP_DRAIN_S)
        for fl in flows:
            if fl.server is not None and fl.server.poll() is None:
                try:
                    fl.server.stdin.write(b"stop\n")
                    fl.server.stdin.flush()
                except OSError:
                    pass
        _finish([fl.client for fl in flows] + [fl.server for fl in flows], finish_rule.SERVER_GRACE_S)

    def udp_series(self, fl: FlowRun, t0: float) -> dict:
        """The flow's per-interval series (:func:`.cbrstats.cbr_series`, and for voice
        :func:`subflow.results.voice.interval_ratings`) from its records placed on the run clock (``t0``: the run
        clock's origin on ``CLOCK_MONOTONIC``), and a ``udp`` extra (packets sent and received).

        Raises
        ------
        EngineCannotRun
            If the sender or the receiver left no record.
        """
        if fl.sent_path is None or not fl.sent_path.exists():
            raise EngineCannotRun(f"udp sender of flow {fl.fp.id} left no record: "
                                  f"{fl.client_out.read_text(errors='replace')[-300:] if fl.client_out else ''}")
        if fl.received_path is None or not fl.received_path.exists():
            raise EngineCannotRun(f"udp receiver of flow {fl.fp.id} left no record: "
                                  f"{fl.server_out.read_text(errors='replace')[-300:] if fl.server_out else ''}")
        sent = [t - t0 for t in udpflow.read_sent(fl.sent_path)]
        if fl.fp.kind == "video":
            rec5 = udpflow.read_received_frames(fl.received_path)
            received = [(q, s - t0, r - t0) for q, s, r, _, _ in rec5]
        else:
            received = [(q, s - t0, r - t0) for q, s, r in udpflow.read_received(fl.received_path)]
        sizes = fl.schedule.ip_bytes[: len(sent)] if fl.schedule is not None else int(fl.fp.packet_bytes)
        v = None
        if fl.fp.kind == "voice":
            flow = self.scenario_flow(fl.fp.id)
            v = (flow.voice if flow is not None else None) or VoiceSource()
        out = cbrstats.cbr_series(sent, received, sizes, self.interval, self.n_bins,
                                  playout_delay_ms=v.playout_delay_ms if v is not None else None)
        if v is not None:
            out["r_factor"], out["mos"] = interval_ratings(out["delay_ms"], out["loss"], out.pop("late"), v)
        out["udp"] = {"packets_sent": len(sent), "packets_received": len({q for q, _, _ in received}),
                      "packet_bytes": int(fl.fp.packet_bytes or max(fl.schedule.ip_bytes, default=0))}
        if fl.fp.kind == "video":
            flow = self.scenario_flow(fl.fp.id)
            video = (flow.video if flow is not None else None) or VideoSource(bitrate_mbps=fl.fp.rate_mbps or 1.0)
            out.update(cbrstats.video_frames(fl.schedule.frames, sent, received, video.playout_delay_ms,
                                             self.interval, self.n_bins))
            # the frame fields the packets carried, against the schedule's
            mismatched = sum(1 for q, _, _, f, n in rec5 if q >= len(fl.schedule) or
                             (f, n) != (fl.schedule.frame[q], fl.schedule.frame_packets[q]))
            out["udp"]["frames"] = len(fl.schedule.frames)
            out["udp"]["frame_fields_mismatched"] = mismatched
        art = os.environ.get("SUBFLOW_LINUX_ARTIFACTS_DIR")
        if art:
            dest = Path(art) / self.model.prefix
            dest.mkdir(parents=True, exist_ok=True)
            for path in (fl.sent_path, fl.received_path):
                shutil.copy(path, dest / f"{fl.fp.id}-{path.name}")
        return out

    def finish(self, flows: list[FlowRun]) -> None:
        """Let the clients finish, then the servers, by the rule of :mod:`subflow.runplan.finish`: a process
        still running after its grace gets SIGINT (iperf3 prints its JSON), then SIGKILL."""
        _finish([fl.client for fl in flows], finish_rule.client_grace_s(self.plan))
        _finish([fl.server for fl in flows], finish_rule.SERVER_GRACE_S)

    def report(self, fl: FlowRun, total: list[float]) -> dict:
        """The flow's ``iperf3`` extra: client and server summaries, and the receiver's timeline
        (Mbit/s) placed on the run clock by :func:`align` against ``total`` (Mbit/s per sample).
        With ``SUBFLOW_LINUX_ARTIFACTS_DIR`` set, the raw JSON is copied there."""
        out: dict = {}
        for role, path in (("client", fl.client_out), ("server", fl.server_out)):
            if path is None or not path.exists():
                out[role] = {"error": "no output"}
                continue
            text = path.read_text(errors="replace")
            try:
                run = iperf3.parse(text)
            except iperf3.Iperf3ParseError as exc:
                out[role] = {"error": f"unparsable iperf3 output: {exc}"}
                continue
            out[role] = run.summary()
            if role == "server" and run.intervals and fl.launch_s is not None:
                offset = align(run.intervals, total, self.interval, self.n_bins, fl.launch_s)
                out["receiver_offset_s"] = round(offset, 3)
                out["receiver_mbps"] = iperf3.timeline(run.intervals, self.interval, self.n_bins, offset)
        art = os.environ.get("SUBFLOW_LINUX_ARTIFACTS_DIR")
        if art:
            dest = Path(art) / self.model.prefix
            dest.mkdir(parents=True, exist_ok=True)
            for path in (fl.client_out, fl.server_out):
                if path is not None and path.exists():
                    shutil.copy(path, dest / f"{fl.fp.id}-{path.name}")
        return out


def _finish(procs, grace: float) -> None:
    deadline = time.monotonic() + grace
    for p in procs:
        if p is None:
            continue
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)  # iperf3 prints its JSON on SIGINT
            try:
                p.wait(timeout=finish_rule.REPORT_WAIT_S)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=finish_rule.REPORT_WAIT_S)


def align(intervals, reference: list[float], interval_s: float, n_bins: int, launch_s: float) -> float:
    """Offset (s) that places iperf3's intervals (relative to its test start) on the run clock:
    the one in [launch, launch + 5 s] (20 ms steps) whose resampled timeline is closest (least
    squares) to the kernel-sampled ``reference``; ties go to the earliest."""
    best, best_cost = launch_s, math.inf
    for step in range(0, 251):
        off = launch_s + 0.02 * step
        tl = iperf3.timeline(intervals, interval_s, n_bins, off)
        cost = sum((a - b) ** 2 for a, b in zip(tl, reference))
        if cost < best_cost - 1e-9:
            best, best_cost = off, cost
    return best


def _wait_ready(proc: subprocess.Popen, out: Path, what: str, timeout_s: float = 10.0) -> None:
    """Wait until the :mod:`.udpflow` process ``proc`` has written ``ready`` to its log ``out``.

    Raises
    ------
    EngineCannotRun
        If it exits or is not ready within ``timeout_s`` (s), naming ``what`` with the log's tail.
    """
    deadline = time.monotonic() + timeout_s
    while "ready" not in out.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise EngineCannotRun(f"{what} did not start: {out.read_text(errors='replace')[-300:]}")
        time.sleep(0.05)
