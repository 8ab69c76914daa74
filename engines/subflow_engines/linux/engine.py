"""Engine ``linux``: run a plan on the kernel's own TCP and MPTCP in network namespaces.

One run, in order (every step an argument-list command, nothing through a shell):

1. :func:`validate` checks the plan against :func:`~.capabilities.detect` and fails
   *before anything starts*, naming the parameter the host cannot honour.
2. :func:`~.topology.build_model` / :func:`~.routing.address_flows` /
   :func:`~.routing.desired_state` compute names, addresses, shaping and the routes of
   every plan boundary (a routing conflict fails here too).
3. Set-up: the ownership record, namespaces, veths/bridges, HTB (+ netem, or the
   statistic match and the NFQUEUE delay line), policy rules, MPTCP limits, the
   state at t = 0, one ``iperf3 -s -1 -J`` server per tcp flow, one :mod:`.udpflow` receiver and sender
   (waiting for its start) per udp, voice or video flow; under ``queueing`` strict_priority or drr every shaped direction gets HTB class
   queues with DS-field filters (:func:`.network.class_queues`).
4. The mobility driver (this thread) applies each boundary on the wall clock:
   wireless hops go down at disassociation/handover start and up at association
   (a down link loses its routes; they are re-installed), routes are replaced, the
   plan's capacity changes change the resource's HTB classes (``tc class change``) and its
   delay changes the netem qdisc or the delay line,
   MPTCP endpoints added/removed as subflows come and go (the agent plays the
   role of ``mptcpd``). Clients (``iperf3 -c … -J -C <cc>``, under ``mptcpize`` for
   MPTCP) start at each flow's ``start_s``; a udp, voice or video flow's :mod:`.udpflow` sender is told to
   start its schedule (:mod:`.schedule` for on/off and video flows) at ``start_s`` on the run clock.
5. A sampler thread reads ``ss -tinH`` in the flows' namespaces at every interval
   boundary: receiver ``bytes_received`` per subflow socket gives the per-interval
   goodput (run-clock aligned), sender ``cwnd``/``retrans``/``backoff`` give cwnd,
   retransmissions and observed RTO events.
6. Teardown (always: success, failure, cancel, timeout, SIGTERM): processes by PID, namespaces,
   record (:func:`run`'s docstring lists the guarantees).

:class:`LinuxRun` drives steps 3-6 with three collaborators: :class:`~.network.KernelNetwork`
(set-up and the plan state at each boundary), :class:`~.traffic.Traffic` (iperf3 servers and
clients, their reports) and :class:`~.sampler.Sampler` (the ``ss`` sampling thread).

Output: the :class:`~subflow.results.document.EngineOutput` shape of the embedded engine, with
``t_s`` on the plan's grid; a udp, voice or video flow's series (throughput, delay_ms, delay_p95_ms, jitter_ms,
loss, voice r_factor and mos, video frames_sent, frames_lost and frames_late) come from its packets' send and arrival times (:mod:`.cbrstats`). Extras: per flow ``iperf3`` (client and server totals, the
receiver timeline re-aligned to the run clock) and ``observed_subflows_max``; per
subflow ``observed_s``; top level ``linux`` (mechanisms used, notes on parameters that
Linux fixes, the run prefix and the PIDs it started, and what the run applied on the wall clock:
``rate_limits``, ``rate_caps``, ``delay_changes`` and ``capacity_changes``, the last two with the plan's
``t_s`` and the run clock's ``applied_s`` of each; ``udp_flows``: packets sent and received per udp, voice or video flow (video: frames, and packets whose
frame fields differed from the schedule's);
``queueing``: the class queues installed).
"""

from __future__ import annotations

import logging
import math
import os
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from subflow.errors import RunCancelled
from subflow.results.document import EngineOutput, FlowResult, SubflowResult
from subflow.runplan import ratecap
from subflow.runplan.beams import planned_share_notes
from subflow.runplan.document import RunPlan
from subflow.runplan.strategies import STRATEGIES
from subflow_engines.sources import VIDEO_PACKET_BYTES

from . import commands
from .capabilities import HostCapabilities, detect
from .capture import Captures, captured_links
from .cleanup import RunRecord, cleanup_stale, teardown, work_dir
from .commands import EngineCannotRun
from .delayline import host_stalled, late_p90_us
from .network import KernelNetwork
from .routing import Addressing, address_flows, boundaries, desired_state, rules
from .sampler import Sampler
from .topology import Model, build_model, unshaped_changes
from .traffic import MIN_INTERVAL_S, FlowRun, Traffic

NAME = "linux"
log = logging.getLogger("subflow_engines.linux")


def _max_duration() -> float:
    return float(os.environ.get("SUBFLOW_LINUX_MAX_DURATION_S", "3600"))


#: scenario ``transport.congestion_control`` -> Linux module. Linux ``reno`` is NewReno-style
#: (RFC 6582 fast recovery, with SACK when negotiated).
CC_MAP = {"reno": "reno", "newreno": "reno", "cubic": "cubic"}


def congestion_control(plan: RunPlan | None = None) -> str:
    """Per-socket TCP congestion control of a run: ``SUBFLOW_LINUX_CC`` if set, else the plan's
    ``transport.congestion_control`` mapped by :data:`CC_MAP` (default ``reno``), set on each socket
    with ``iperf3 -C`` (TCP_CONGESTION). The namespaces default to Reno, not the host's default
    (often BBR, whose pacing a socket would keep after the switch; :class:`.network.KernelNetwork`)."""
    env = os.environ.get("SUBFLOW_LINUX_CC")
    if env:
        return env
    wanted = getattr(plan.transport, "congestion_control", "newreno") if plan is not None else "newreno"
    return CC_MAP.get(wanted, wanted)


def _resource_label(plan: RunPlan, rid: str) -> tuple[str, str]:
    """(JSON path prefix, human name) of a plan resource in the scenario document."""
    sc = plan.scenario or {}
    if rid.startswith("air:"):
        ap = rid[4:]
        for k, n in enumerate(sc.get("nodes", [])):
            if n.get("id") == ap:
                return f"nodes[{k}].wireless_", f"access point {ap}"
        return "nodes[?].wireless_", f"access point {ap}"
    lid, _, direction = rid.partition(":")
    for j, link in enumerate(sc.get("links", [])):
        if link.get("id") == lid:
            return f"links[{j}].", f"link {lid} ({direction})"
    return "links[?].", f"link {lid}"


def validate(plan: RunPlan, caps: HostCapabilities) -> list[str]:
    """Check that this host can honour every parameter of ``plan``.

    Returns
    -------
    list of str
        Notes on parameters that Linux fixes (reported in the output, never silent).

    Raises
    ------
    EngineCannotRun
        Naming the first parameter (JSON path in the scenario) the host cannot honour.
    """
    if not caps.available:
        missing = [k for k in ("root", "ip", "tc", "netns", "veth", "htb", "iperf3", "ss") if not getattr(caps, k)]
        raise EngineCannotRun(
            f"engine linux: this host lacks {', '.join(missing)}"
            + (f" ({'; '.join(caps.problems)})" if caps.problems else "")
        )
    if plan.scenario is None:
        raise EngineCannotRun("plan.scenario: the linux engine needs the scenario document in the plan")
    if plan.interval_s < MIN_INTERVAL_S:
        raise EngineCannotRun(f"run.interval_s={plan.interval_s:g}: the linux engine samples at most every {MIN_INTERVAL_S} s")
    if plan.duration_s > _max_duration():
        raise EngineCannotRun(
            f"run.duration_s={plan.duration_s:g}: the linux engine runs in real time; the limit is "
            f"{_max_duration():g} s (SUBFLOW_LINUX_MAX_DURATION_S)"
        )
    for r in plan.resources:
        path, name = _resource_label(plan, r.id)
        if r.delay_ms > 0 and caps.delay_mechanism is None:
            raise EngineCannotRun(
                f"{path}delay_ms={r.delay_ms:g} ({name}): this host has no delay mechanism "
                "(no netem qdisc, and no NFQUEUE target or fnfqueue binding for the delay line)"
            )
        if r.jitter_ms > 0 and caps.delay_mechanism is None:
            raise EngineCannotRun(f"{path}jitter_ms={r.jitter_ms:g} ({name}): this host has no delay mechanism for jitter")
        if r.loss > 0 and caps.loss_mechanism is None:
            raise EngineCannotRun(
                f"{path}loss={r.loss:g} ({name}): this host has neither netem nor the iptables statistic match"
            )
    if plan.delay_changes and caps.delay_mechanism is None:
        c = plan.delay_changes[0]
        path, name = _resource_label(plan, c.resource)
        raise EngineCannotRun(f"{path}delay_ms ({name}): the plan changes this delay during the run (SATCOM orbit) "
                              "and this host has no delay mechanism (netem or the NFQUEUE delay line)")
    cc = congestion_control(plan)
    if cc not in caps.congestion_control:
        raise EngineCannotRun(
            f"transport.congestion_control: {cc!r} is not available on this kernel ({' '.join(caps.congestion_control)})"
        )
    strat = STRATEGIES.get(plan.strategy)
    family = getattr(strat, "family", "mptcp" if any(fp.multipath for fp in plan.flows) else "tcp")
    if family not in ("tcp", "mptcp"):
        raise EngineCannotRun(f"strategy {plan.strategy}: the linux engine runs TCP and MPTCP, not {family}")
    for i, fp in enumerate(plan.flows):
        handover = getattr(fp, "handover", "bare")
        if handover != "bare":
            raise EngineCannotRun(
                f"strategy {plan.strategy}: handover {handover!r} (flows[{i}]) needs an SDN controller the linux "
                "engine does not have; only 'bare' handovers run here"
            )
    for k, n in enumerate((plan.scenario or {}).get("nodes", [])):
        if n.get("rate_table"):
            raise EngineCannotRun(
                f"nodes[{k}].rate_table ({n.get('id')}): distance-dependent air rates are not supported by the linux engine yet"
            )
    if any(fp.multipath for fp in plan.flows):
        if not caps.mptcp_enabled:
            raise EngineCannotRun(f"strategy {plan.strategy}: MPTCP is disabled on this host (sysctl net.mptcp.enabled=0)")
        if not caps.mptcp_endpoints:
            raise EngineCannotRun(f"strategy {plan.strategy}: 'ip mptcp' (MPTCP path manager netlink) does not work here")
        if not caps.mptcpize:
            raise EngineCannotRun(f"strategy {plan.strategy}: mptcpize (Debian package mptcpd) is not installed")
    mtu = plan.transport.mss_bytes + 52
    for i, fp in enumerate(plan.flows):
        if fp.kind == "video":
            if VIDEO_PACKET_BYTES > mtu:
                raise EngineCannotRun(f"flows[{i}].video ({fp.id}): its frames go in IP packets of up to "
                                      f"{VIDEO_PACKET_BYTES} bytes, above the interfaces' MTU of {mtu} bytes "
                                      "(transport.mss_bytes + 52), and the linux engine does not fragment")
        elif fp.kind != "tcp":
            if fp.kind not in ("udp", "voice") or fp.rate_mbps is None or not fp.packet_bytes:
                raise EngineCannotRun(f"flows[{i}].kind={fp.kind!r} ({fp.id}): the linux engine sends udp and "
                                      "voice flows at a rate in packets of a size, and this flow has none")
            if fp.packet_bytes > mtu:
                field = "udp.packet_bytes" if fp.kind == "udp" else "voice.packet_interval_ms"
                raise EngineCannotRun(f"flows[{i}].{field} ({fp.id}): its IP packets of {fp.packet_bytes} bytes "
                                      f"exceed the interfaces' MTU of {mtu} bytes (transport.mss_bytes + 52), and "
                                      "the linux engine does not fragment")
        elif fp.rate_mbps is not None and not caps.rate_cap:
            raise EngineCannotRun(
                f"flows[{i}].rate_mbps={fp.rate_mbps:g} ({fp.id}): this host cannot cap a flow's rate at every "
                "instant (no IFB device, clsact or mirred action), and iperf3 -b alone bursts after an outage"
            )
        if fp.stop_s - fp.start_s < 1.0:
            raise EngineCannotRun(f"flows[{i}].stop_s: the flow {fp.id} lasts less than 1 s (iperf3 -t is whole seconds)")
    if captured_links(plan) and commands.which("tcpdump") is None:
        raise EngineCannotRun("capture: packet capture needs tcpdump, which is not installed on this host "
                              "(Debian package tcpdump)")
    tr = plan.transport
    notes = []
    if tr.max_rto_s != 120.0:
        notes.append(f"transport.max_rto_s={tr.max_rto_s:g} not applied: Linux fixes TCP_RTO_MAX at 120 s")
    if tr.initial_rto_s != 1.0:
        notes.append(f"transport.initial_rto_s={tr.initial_rto_s:g} not applied: Linux fixes TCP_TIMEOUT_INIT at 1 s")
    if any(fp.multipath for fp in plan.flows):
        couplings = sorted({getattr(fp, "coupling", "lia") for fp in plan.flows if fp.multipath})
        notes.append(
            f"coupling {'/'.join(couplings)}: MPTCP subflows run uncoupled {cc} (upstream Linux has no LIA/OLIA "
            "coupled congestion control) under the kernel's default scheduler"
        )
    if getattr(tr, "rbuf_bytes", None):
        notes.append(f"transport.rbuf_bytes={tr.rbuf_bytes}: applied as iperf3 -w (SO_SNDBUF/SO_RCVBUF; Linux doubles it for overhead)")
    if any(r.loss > 0 for r in plan.resources) and caps.loss_mechanism == "iptables-statistic":
        notes.append("loss: drawn by the kernel's prandom (iptables statistic match), not seeded by run.seed")
    if any(r.jitter_ms > 0 for r in plan.resources) and caps.delay_mechanism == "nfqueue-delay-line":
        notes.append("jitter: uniform ±jitter_ms per packet, order preserved (no reordering)")
    return notes + planned_share_notes(plan.scenario, plan.flows)


class LinuxRun:
    """One execution of a plan (see the module docstring for the steps): the driver, with
    the network (:class:`~.network.KernelNetwork`), the iperf3 traffic
    (:class:`~.traffic.Traffic`) and the socket sampler (:class:`~.sampler.Sampler`) as
    collaborators."""

    def __init__(self, plan: RunPlan, caps: HostCapabilities, notes: list[str]):
        self.plan = plan
        self.caps = caps
        self.notes = list(notes)
        self.prefix = "sf" + secrets.token_hex(3)
        self.model: Model = build_model(plan, self.prefix, caps.netem)
        unshaped = unshaped_changes(plan, self.model)
        if unshaped:
            raise EngineCannotRun(f"capacity_changes ({', '.join(unshaped)}): the plan changes the capacity of a "
                                  "resource the linux engine does not shape")
        self.addressing: Addressing = address_flows(plan, self.model)
        self.times = boundaries(plan, self.model)
        # computed up front: a routing conflict fails before anything is created
        states = {t: desired_state(plan, self.model, self.addressing, t) for t in self.times}
        discipline = self.model.scenario.queueing.discipline
        if discipline != "fifo" and any(st.limits for st in states.values()):
            raise EngineCannotRun(f"queueing.discipline={discipline!r}: strategy {plan.strategy} installs per-subflow "
                                  "rate limits (FDM HTB classes) on the first hops, and the linux engine does not put "
                                  "class queues under them")
        self.cc = congestion_control(plan)
        self.interval = plan.interval_s
        self.n_bins = max(1, int(math.ceil(plan.duration_s / plan.interval_s - 1e-9)))
        self.flows = {fp.id: FlowRun(fp, self.addressing.flows[fp.id], self.n_bins) for fp in plan.flows}
        self.record = RunRecord(self.prefix)
        self.procs: list[subprocess.Popen] = []
        self.events: list[dict] = []
        self.t0: float | None = None
        # outputs of iperf3 and the delay lines, made by setup after the record; removed by teardown
        # (also a stale one's)
        self.tmp = work_dir(self.prefix)
        self.setup_s = 0.0
        mptcp_ns = sorted({self.model.ns(n) for fp in plan.flows if fp.multipath for n in (fp.src, fp.dst)})
        self.network = KernelNetwork(plan, self.model, states, rules(self.model, self.addressing), caps.netem,
                                     self.record, self._spawn, self.tmp, mptcp_ns, rate_caps=self._rate_caps(),
                                     now=self.now)
        self.traffic = Traffic(plan, self.model, self.cc, self._spawn, self.tmp, self.now)
        self.captures = Captures(plan, self.model, self._spawn, self.tmp)
        self.tcp_flows = {fid: fl for fid, fl in self.flows.items() if fl.fp.kind == "tcp"}
        self.udp_flows = {fid: fl for fid, fl in self.flows.items() if fl.fp.kind != "tcp"}
        #: per udp, voice or video flow: packets sent and received, IP packet size (``linux.udp_flows`` of the
        #: output)
        self.udp_log: dict[str, dict] = {}
        self.sampler = Sampler(plan, self.model, self.tcp_flows, self.now, self._emit)

    # ------------------------------------------------------------------ helpers
    def _rate_caps(self) -> dict[str, list[tuple[str, int, int]]]:
        """Per source namespace, ``(flow id, iperf3 port, cap in kbit/s)`` of each rated flow
        (:func:`subflow.runplan.ratecap.cap_kbit` with the plan's MSS)."""
        out: dict[str, list[tuple[str, int, int]]] = {}
        for fp in self.plan.flows:
            if fp.rate_mbps is not None and fp.kind == "tcp":  # udp and voice senders pace themselves
                kbit = ratecap.cap_kbit(fp.rate_mbps, self.plan.transport.mss_bytes)
                out.setdefault(self.model.ns(fp.src), []).append((fp.id, self.addressing.flows[fp.id].port, kbit))
        return out

    def now(self) -> float:
        """Seconds on the run clock (0 until :meth:`execute` starts it)."""
        return 0.0 if self.t0 is None else time.monotonic() - self.t0

    def _spawn(self, args: list[str], out: Path, stdin: bool = False) -> subprocess.Popen:
        """Start a process the run owns, output to ``out``; ``stdin``: give it a pipe (the delay line's
        commands), else /dev/null."""
        exe = commands.which(args[0]) or args[0]
        owner = os.getpid()
        with open(out, "wb") as fh:
            p = subprocess.Popen([exe] + args[1:], stdout=fh, stderr=subprocess.STDOUT,
                                 stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                 preexec_fn=lambda: commands.die_with_parent(owner))
        self.procs.append(p)
        self.record.add_pid(p.pid)
        return p

    def _emit(self, t: float, kind: str, flow: FlowRun, sub: str | None = None, **extra) -> None:
        ev = {"t_s": round(t, 6), "kind": kind, "node": flow.fp.src, "flow": flow.fp.id}
        if sub is not None:
            ev["subflow"] = sub
        ev.update(extra)
        self.events.append(ev)

    # ------------------------------------------------------------------ set-up
    def setup(self, should_stop: Callable[[], bool] | None = None) -> None:
        """The ownership record (first: nothing of the run exists without it), the work directory,
        the network, the state at t = 0, the packet captures (:mod:`.capture`) and the iperf3 servers.

        Raises
        ------
        RunCancelled
            When ``should_stop`` (polled between the steps and between namespaces) returned True.
        """
        def check() -> None:
            if should_stop is not None and should_stop():
                raise RunCancelled()

        t_start = time.monotonic()
        self.record.write()
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.network.build(check)
        check()
        self.apply(0.0)
        self.captures.start(check)
        for fl in self.tcp_flows.values():
            self.traffic.start_server(fl)
        for fl in self.udp_flows.values():
            check()
            self.traffic.start_udp_receiver(fl)
        for fl in self.udp_flows.values():
            check()
            self.traffic.launch_udp_sender(fl)
        for fl in self.tcp_flows.values():
            check()
            self.traffic.wait_listening(fl)
        self.setup_s = time.monotonic() - t_start

    # ------------------------------------------------------------------ the driver
    def apply(self, t: float) -> None:
        """Bring links, routes and MPTCP endpoints to the plan's state at ``t`` (s)."""
        st = self.network.apply(t)
        for fid, fl in self.flows.items():
            self._plan_events(fl, st.subflows.get(fid, {}), t)

    def _plan_events(self, fl: FlowRun, new: dict[str, list[str]], t: float) -> None:
        old = fl.current
        if fl.fp.multipath:
            for sid, path in old.items():
                if sid not in new:
                    self._emit(t, "subflow_down", fl, sid, path=path)
            for sid, path in new.items():
                if sid not in old or old[sid] != path:
                    self._emit(t, "subflow_up", fl, sid, path=path)
        else:
            for sid, path in old.items():
                if sid not in new:
                    self._emit(t, "route_lost", fl, sid, path=path)
            for sid, path in new.items():
                prev = old.get(sid) or fl.known.get(sid)
                if prev is None:
                    self._emit(t, "subflow_up", fl, sid, path=path)
                elif prev != path:
                    self._emit(t, "route_change", fl, sid, path=path, previous_path=prev)
            fl.known.update(new)
        fl.current = dict(new)

    def execute(self, on_progress=None, should_stop=None) -> None:
        """Start the clock and the sampler, apply every boundary and start every client on
        the wall clock, then let the processes finish.

        Raises
        ------
        RunCancelled
            When ``should_stop`` returned True.
        """
        # at one time the boundary goes first: a flow starting then needs the routes of its first segment
        # (a client started before them fails at once with "Network is unreachable")
        actions: list[tuple[float, int, str, object]] = []
        for t in self.times:
            if t > 0:
                actions.append((t, 0, "apply", t))
        for fl in self.flows.values():
            actions.append((fl.fp.start_s, 1, "start", fl))
        actions.sort(key=lambda a: (a[0], a[1]))
        self.t0 = time.monotonic()
        self.sampler.start(name=f"{self.prefix}-sampler")
        last_progress = -1.0

        def wait_until(t: float) -> None:
            nonlocal last_progress
            while True:
                now = self.now()
                if should_stop is not None and should_stop():
                    raise RunCancelled()
                if self.sampler.error is not None:
                    raise self.sampler.error
                if on_progress is not None and now - last_progress >= 0.5:
                    on_progress(min(0.99, now / self.plan.duration_s))
                    last_progress = now
                if now >= t:
                    return
                time.sleep(min(0.1, t - now))

        for t, _, kind, arg in actions:
            wait_until(t)
            if kind == "start":
                if arg.fp.kind == "tcp":
                    self.traffic.start_client(arg)
                else:
                    self.traffic.start_udp_sender(arg, self.t0 + arg.fp.start_s)
            else:
                self.apply(arg)
        wait_until(self.plan.duration_s)
        self.sampler.join(timeout=10)
        if self.sampler.error is not None:
            raise self.sampler.error
        self.traffic.finish(list(self.tcp_flows.values()))
        self.traffic.finish_udp(list(self.udp_flows.values()))
        self.captures.stop()

    # ------------------------------------------------------------------ output
    def output(self) -> EngineOutput:
        t_s = [round(k * self.interval, 9) for k in range(self.n_bins)]
        scale = 8.0 / self.interval / 1e6
        flows = []
        for fl in self.flows.values():
            if fl.fp.kind != "tcp":
                flows.append(self._udp_result(fl, t_s))
                continue
            total = [round(v * scale, 6) for v in fl.total]
            subs = []
            for sid in fl.order:
                subs.append(SubflowResult(
                    id=sid,
                    path=fl.last_path[sid],
                    t_s=t_s,
                    throughput_mbps=[round(v * scale, 6) for v in fl.sub_bytes[sid]],
                    cwnd_packets=fl.sub_cwnd[sid],
                    retransmissions=int(sum(fl.sub_retrans[sid].values())),
                    observed_s=[round(x, 3) for x in fl.sub_seen[sid]] if sid in fl.sub_seen else None,
                ))
            extra = {"observed_subflows_max": fl.observed_max, "iperf3": self.traffic.report(fl, total)}
            flows.append(FlowResult(id=fl.fp.id, src=fl.fp.src, dst=fl.fp.dst, t_s=t_s, throughput_mbps=total,
                                    subflows=subs, **extra))
        self.events.sort(key=lambda e: e["t_s"])
        lines = self.network.delay_line_stats()
        notes = list(self.notes)
        if host_stalled(lines):
            worst = late_p90_us(lines)
            notes.append(f"the host held the NFQUEUE delay line off the CPU during the run (a tenth of some queue's "
                         f"packets released over {worst / 1000:.1f} ms late, e.g. while another process wrote to "
                         "disk): its delays were longer than configured")
        return EngineOutput(
            engine=NAME,
            strategy=self.plan.strategy,
            flows=flows,
            events=self.events,
            linux={
                "prefix": self.prefix,
                "kernel": self.caps.kernel,
                "congestion_control": self.cc,
                "delay_mechanism": self.network.delay_mechanism,
                "loss_mechanism": self.network.loss_mechanism,
                "iperf3_version": self.caps.iperf3_version,
                "setup_s": round(self.setup_s, 3),
                "notes": notes,
                "processes": [p.pid for p in self.procs],
                "throughput_source": "ss bytes_received per subflow socket at the receiver, sampled every interval",
                "rate_limits": self.network.limit_log,
                "rate_caps": [{"flow": fid, "port": port, "cap_kbit": kbit}
                              for caps in self.network.rate_caps.values() for fid, port, kbit in caps],
                "delay_changes": self.network.delay_log,
                "capacity_changes": self.network.capacity_log,
                "delay_lines": lines,
                "udp_flows": self.udp_log,
                "queueing": self.network.queueing_log,
            },
            captures=self.captures.records(),
        )

    def _udp_result(self, fl: FlowRun, t_s: list[float]) -> FlowResult:
        """A udp, voice or video flow's result: its series from the sender's and receiver's records
        (:meth:`.traffic.Traffic.udp_series`), one subflow (its plan's first: one path, as the fluid engine)."""
        series = self.traffic.udp_series(fl, self.t0 or 0.0)
        throughput = series.pop("throughput_mbps")
        self.udp_log[fl.fp.id] = series.pop("udp")
        sid = fl.order[0]
        sub = SubflowResult(id=sid, path=fl.last_path[sid], t_s=t_s, throughput_mbps=throughput, retransmissions=0)
        return FlowResult(id=fl.fp.id, src=fl.fp.src, dst=fl.fp.dst, t_s=t_s, throughput_mbps=throughput,
                          subflows=[sub], **series)

    # ------------------------------------------------------------------ teardown
    def close(self) -> list[str]:
        """Stop the sampler and every process, remove the namespaces, the record and the work
        directory; returns what could not be removed (never raises: a record whose namespaces
        remain stays, abandoned, for the next sweep, :func:`.cleanup.cleanup_stale`)."""
        self.sampler.stop(timeout=5)
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        problems = teardown(self.prefix, self.record.pids, self.record.namespaces)
        for p in self.procs:
            try:
                p.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)
        return problems


class _SignalGuard:
    """SIGTERM and SIGINT while a run is under way: before its teardown they raise
    (:class:`subflow.errors.RunCancelled`, :class:`KeyboardInterrupt`) so the run's ``finally``
    tears it down; during the teardown (:attr:`closing`) they are held and raised once it is done,
    so a second signal cannot cut the teardown short."""

    def __init__(self) -> None:
        self.closing = False
        self.pending: BaseException | None = None

    def handle(self, signum: int, _frame) -> None:
        exc: BaseException = RunCancelled() if signum == signal.SIGTERM else KeyboardInterrupt()
        if self.closing:
            self.pending = self.pending or exc
            return
        raise exc

    def raise_pending(self) -> None:
        """Raise the signal held during the teardown, if one came."""
        if self.pending is not None:
            raise self.pending


@contextmanager
def _signals_tear_down():
    """A :class:`_SignalGuard` installed, for the run's duration, on the signals that are at their
    default action (SIGTERM: ``SIG_DFL``; SIGINT: Python's ``KeyboardInterrupt``) in the main thread
    of the process (the CLI, a script, a test); elsewhere (the agent's worker threads, a process
    with its own handlers) it is installed on nothing. SIGKILL cannot be caught: the sweep at the
    next run or agent start-up (:func:`.cleanup.cleanup_stale`) removes what a killed owner left."""
    guard = _SignalGuard()
    installed: list[tuple[int, object]] = []
    if threading.current_thread() is threading.main_thread():
        for signum, default in ((signal.SIGTERM, signal.SIG_DFL), (signal.SIGINT, signal.default_int_handler)):
            previous = signal.getsignal(signum)
            if previous == default:
                signal.signal(signum, guard.handle)
                installed.append((signum, previous))
    try:
        yield guard
    finally:
        for signum, previous in installed:
            signal.signal(signum, previous)


def sweep() -> list[str]:
    """:func:`.cleanup.cleanup_stale` that never fails a run: the prefixes removed (a failure is logged)."""
    try:
        return cleanup_stale()
    except Exception as exc:  # a failing sweep must not stop the run that triggered it
        log.warning("stale cleanup failed: %s: %s", type(exc).__name__, exc)
        return []


def run(
    plan: RunPlan,
    on_progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> EngineOutput:
    """Execute ``plan`` on the Linux kernel in network namespaces (wall-clock time).

    Parameters
    ----------
    plan : RunPlan
        From :func:`subflow.runplan.resolve.resolve_plan`; must carry ``scenario``.
    on_progress : callable, optional
        Called with the elapsed fraction of ``duration_s`` about every 0.5 s.
    should_stop : callable, optional
        Polled about every 0.1 s; True tears the run down and raises
        :class:`subflow.errors.RunCancelled`.

    Returns
    -------
    EngineOutput
        Same shape as the embedded engine's (see module docstring for extras).

    Raises
    ------
    EngineCannotRun
        Before anything is created, naming the parameter this host cannot honour.
    RunCancelled
        When ``should_stop`` returned True, or (in a main thread with the default SIGTERM action)
        on SIGTERM; the run was torn down first.

    Every way a run ends tears it down before :func:`run` returns or raises (success, an error at
    any step, ``should_stop``, SIGTERM, KeyboardInterrupt): its processes, namespaces, work
    directory and record are gone. Its processes die with the thread that started them
    (``PR_SET_PDEATHSIG``); what a SIGKILLed owner leaves (namespaces, record) is removed by the
    sweep each run starts with (:func:`sweep`) and by the agent's start-up.
    """
    caps = detect()
    notes = validate(plan, caps)
    sweep()
    lr = LinuxRun(plan, caps, notes)
    with _signals_tear_down() as guard:
        try:
            lr.setup(should_stop)
            lr.execute(on_progress, should_stop)
            out = lr.output()
        finally:
            guard.closing = True
            problems = lr.close()
        guard.raise_pending()
    if problems:
        out.linux["cleanup_problems"] = problems  # type: ignore[attr-defined]
    if on_progress is not None:
        on_progress(1.0)
    return out
