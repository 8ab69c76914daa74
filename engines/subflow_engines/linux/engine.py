"""Engine ``linux``: run a plan on the kernel's own TCP and MPTCP in network namespaces.

One run, in order (every step an argument-list command, nothing through a shell):

1. :func:`validate` checks the plan against :func:`~.capabilities.detect` and fails
   *before anything starts*, naming the parameter the host cannot honour.
2. :func:`~.topology.build_model` / :func:`~.routing.address_flows` /
   :func:`~.routing.desired_state` compute names, addresses, shaping and the routes of
   every plan boundary (a routing conflict fails here too).
3. Set-up: the ownership record, namespaces, veths/bridges, HTB (+ netem, or the
   statistic match and the NFQUEUE delay line), policy rules, MPTCP limits, the
   state at t = 0, one ``iperf3 -s -1 -J`` server per flow.
4. The mobility driver (this thread) applies each boundary on the wall clock:
   wireless hops go down at disassociation/handover start and up at association
   (a down link loses its routes; they are re-installed), routes are replaced,
   MPTCP endpoints added/removed as subflows come and go (the agent plays the
   role of ``mptcpd``). Clients (``iperf3 -c … -J -C <cc>``, under ``mptcpize`` for
   MPTCP) start at each flow's ``start_s``.
5. A sampler thread reads ``ss -tinH`` in the flows' namespaces at every interval
   boundary: receiver ``bytes_received`` per subflow socket gives the per-interval
   goodput (run-clock aligned), sender ``cwnd``/``retrans``/``backoff`` give cwnd,
   retransmissions and observed RTO events.
6. Teardown (always: success, failure, cancel): processes by PID, namespaces, record.

Output: the :class:`~subflow.results.EngineOutput` shape of the embedded engine, with
``t_s`` on the plan's grid. Extras: per flow ``iperf3`` (client and server totals, the
receiver timeline re-aligned to the run clock) and ``observed_subflows_max``; per
subflow ``observed_s``; top level ``linux`` (mechanisms used, notes on parameters that
Linux fixes, the run prefix and the PIDs it started).
"""

from __future__ import annotations

import math
import os
import secrets
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from subflow.plan import RunPlan
from subflow.results import EngineOutput, FlowResult, SubflowResult
from subflow.strategies import STRATEGIES

from . import commands, iperf3, sockets
from .capabilities import HostCapabilities, detect
from .cleanup import RunRecord, teardown, work_dir
from .commands import EngineCannotRun, ip, tc
from .routing import Addressing, DesiredState, Route, active_segment, address_flows, boundaries, desired_state, rules
from .topology import RULE_PRIORITY, Model, build_model, hops_up_at, links_down_at

NAME = "linux"
MIN_INTERVAL_S = 0.1
MPTCP_MAX_SUBFLOWS = 8
#: iperf3 -l for rate-limited flows (bytes): small writes keep -b pacing smooth
PACED_WRITE_BYTES = 16384


def _max_duration() -> float:
    return float(os.environ.get("SUBFLOW_LINUX_MAX_DURATION_S", "3600"))


#: scenario ``transport.congestion_control`` -> Linux module. Linux ``reno`` is NewReno-style
#: (RFC 6582 fast recovery, with SACK when negotiated).
CC_MAP = {"reno": "reno", "newreno": "reno", "cubic": "cubic"}


def congestion_control(plan: RunPlan | None = None) -> str:
    """Per-socket TCP congestion control of a run: ``SUBFLOW_LINUX_CC`` if set, else the plan's
    ``transport.congestion_control`` mapped by :data:`CC_MAP` (default ``reno``). Set with
    ``iperf3 -C`` (TCP_CONGESTION), since the namespaces inherit the host's default (often BBR)."""
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
    for i, fp in enumerate(plan.flows):
        if fp.stop_s - fp.start_s < 1.0:
            raise EngineCannotRun(f"flows[{i}].stop_s: the flow {fp.id} lasts less than 1 s (iperf3 -t is whole seconds)")
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
    return notes


class _Flow:
    """Per-flow bookkeeping of one run."""

    def __init__(self, fp, fa, n_bins: int):
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
        for seg in fp.segments:
            for sp in seg.subflows:
                if sp.id not in self.sub_bytes:
                    self.order.append(sp.id)
                    self.sub_bytes[sp.id] = [0.0] * n_bins
                    self.sub_cwnd[sp.id] = [0.0] * n_bins
                    self.sub_retrans[sp.id] = {}
                self.last_path[sp.id] = list(sp.nodes)


class LinuxRun:
    """One execution of a plan (see the module docstring for the steps)."""

    def __init__(self, plan: RunPlan, caps: HostCapabilities, notes: list[str]):
        self.plan = plan
        self.caps = caps
        self.notes = list(notes)
        self.prefix = "sf" + secrets.token_hex(3)
        self.use_netem = caps.netem
        self.model: Model = build_model(plan, self.prefix, self.use_netem)
        self.addressing: Addressing = address_flows(plan, self.model)
        self.times = boundaries(plan, self.model)
        # computed up front: a routing conflict fails before anything is created
        self.states: dict[float, DesiredState] = {t: desired_state(plan, self.model, self.addressing, t) for t in self.times}
        self.rules = rules(self.model, self.addressing)
        self.cc = congestion_control(plan)
        self.interval = plan.interval_s
        self.n_bins = max(1, int(math.ceil(plan.duration_s / plan.interval_s - 1e-9)))
        self.flows = {fp.id: _Flow(fp, self.addressing.flows[fp.id], self.n_bins) for fp in plan.flows}
        self.record = RunRecord(self.prefix)
        self.procs: list[subprocess.Popen] = []
        self.installed: set[Route] = set()
        self.endpoints: dict[str, dict[str, tuple[int, str, str]]] = {}
        self.link_up: dict[tuple[str, str], bool] = {}
        self.wired_up: dict[str, bool] = {link.id: True for link in self.model.links}
        self.limit_classes: dict[tuple[str, str], tuple[str, str, int, int]] = {}
        self.limit_log: list[dict] = []
        self.events: list[dict] = []
        self.t0: float | None = None
        self.stop = threading.Event()
        self.sampler: threading.Thread | None = None
        self.sampler_error: BaseException | None = None
        # outputs of iperf3 and the delay lines; removed by teardown (also a stale one's)
        self.tmp = work_dir(self.prefix)
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.setup_s = 0.0
        self.mptcp_ns = sorted({self.model.ns(n) for fp in plan.flows if fp.multipath for n in (fp.src, fp.dst)})

    # ------------------------------------------------------------------ helpers
    def now(self) -> float:
        return 0.0 if self.t0 is None else time.monotonic() - self.t0

    def _spawn(self, args: list[str], out: Path) -> subprocess.Popen:
        exe = commands.which(args[0]) or args[0]
        with open(out, "wb") as fh:
            p = subprocess.Popen([exe] + args[1:], stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.procs.append(p)
        self.record.add_pid(p.pid)
        return p

    def _emit(self, t: float, kind: str, flow: _Flow, sub: str | None = None, **extra) -> None:
        ev = {"t_s": round(t, 6), "kind": kind, "node": flow.fp.src, "flow": flow.fp.id}
        if sub is not None:
            ev["subflow"] = sub
        ev.update(extra)
        self.events.append(ev)

    # ------------------------------------------------------------------ set-up
    def setup(self) -> None:
        t_start = time.monotonic()
        m = self.model
        self.record.write()
        for node in m.nodes.values():
            self.record.add_namespace(node.ns)
            commands.run(["ip", "netns", "add", node.ns])
            commands.in_ns(
                node.ns, "sysctl", "-q", "-w",
                "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
                "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1",
            )
            ip(node.ns, "link", "set", "dev", "lo", "up")
            ip(node.ns, "addr", "add", f"{node.addr}/32", "dev", "lo")
        for link in m.links:
            a, b = link.ifa, link.ifb
            ip(None, "link", "add", a.name, "netns", a.ns, "type", "veth", "peer", "name", b.name, "netns", b.ns)
            for itf in (a, b):
                self._iface_up(itf.ns, itf.name, f"{itf.addr}/{itf.prefixlen}")
        for radio in m.radios.values():
            br = radio.bridge
            ip(br.ns, "link", "add", br.name, "type", "bridge", "forward_delay", "0", "stp_state", "0")
            self._iface_up(br.ns, br.name, f"{br.addr}/{br.prefixlen}")
        up0 = hops_up_at(m, 0.0)
        for hop in m.hops.values():
            s = hop.sta_if
            ip(None, "link", "add", s.name, "netns", s.ns, "type", "veth", "peer", "name", hop.port, "netns", hop.ap_ns)
            ip(hop.ap_ns, "link", "set", "dev", hop.port, "mtu", str(m.mtu), "master", m.radios[hop.ap].bridge.name)
            ip(hop.ap_ns, "link", "set", "dev", hop.port, "gso_max_segs", "1", check=False)
            self._iface_up(s.ns, s.name, f"{s.addr}/{s.prefixlen}", up=False)
            self.link_up[(hop.station, hop.ap)] = False
            if (hop.station, hop.ap) in up0:
                self._set_hop(hop, True)
        for sh in m.shapers:
            kbit = _kbit(sh.rate_mbps)
            tc(sh.ns, "qdisc", "add", "dev", sh.dev, "root", "handle", "1:", "htb", "default", "10")
            tc(sh.ns, "class", "add", "dev", sh.dev, "parent", "1:", "classid", "1:1", "htb",
               "rate", f"{kbit}kbit", "ceil", f"{kbit}kbit")
            tc(sh.ns, "class", "add", "dev", sh.dev, "parent", "1:1", "classid", "1:10", "htb",
               "rate", f"{kbit}kbit", "ceil", f"{kbit}kbit")
            self._leaf(sh, 10)
        if not self.use_netem:
            self._impairments()
        for node_id, rs in self.rules.items():
            for addr, table in rs:
                ip(m.ns(node_id), "rule", "add", "from", addr, "lookup", str(table), "priority", str(RULE_PRIORITY))
        for ns in self.mptcp_ns:
            ip(ns, "mptcp", "limits", "set", "subflows", str(MPTCP_MAX_SUBFLOWS), "add_addr_accepted", str(MPTCP_MAX_SUBFLOWS))
        self.apply(0.0)
        for fl in self.flows.values():
            self._start_server(fl)
        for fl in self.flows.values():
            self._wait_listening(fl)
        self.setup_s = time.monotonic() - t_start

    def _leaf(self, sh, minor: int) -> None:
        """The queue under HTB class ``1:minor``: netem (delay/jitter/loss + limit) or pfifo."""
        if self.use_netem and (sh.delay_ms > 0 or sh.jitter_ms > 0 or sh.loss > 0):
            args = ["qdisc", "add", "dev", sh.dev, "parent", f"1:{minor}", "handle", f"{minor}:", "netem",
                    "limit", str(sh.queue_packets)]
            if sh.delay_ms > 0 or sh.jitter_ms > 0:
                args += ["delay", f"{sh.delay_ms:g}ms"] + ([f"{sh.jitter_ms:g}ms"] if sh.jitter_ms > 0 else [])
            if sh.loss > 0:
                args += ["loss", f"{sh.loss * 100:.6g}%"]
            tc(sh.ns, *args)
        else:
            tc(sh.ns, "qdisc", "add", "dev", sh.dev, "parent", f"1:{minor}", "handle", f"{minor}:", "pfifo",
               "limit", str(sh.queue_packets))

    def _apply_limits(self, st: DesiredState, t: float) -> None:
        """FDM rate limits as an SDN controller would install them: one HTB class per
        (subflow source, destination) address pair on the first hop's egress, selected by a
        u32 filter; changed in place (``tc class change``) when the plan's limit changes, and
        opened up to the link's capacity when the plan drops the limit."""
        m = self.model
        for pair, (node, dev, mbps) in sorted(st.limits.items()):
            ns = m.ns(node)
            sh = m.htb[(ns, dev)]
            rate = _kbit(min(mbps, sh.rate_mbps))
            have = self.limit_classes.get(pair)
            if have is None:
                minor = 100 + sum(1 for v in self.limit_classes.values() if v[0] == ns and v[1] == dev)
                tc(ns, "class", "add", "dev", dev, "parent", "1:1", "classid", f"1:{minor}", "htb",
                   "rate", f"{rate}kbit", "ceil", f"{rate}kbit")
                self._leaf(sh, minor)
                tc(ns, "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                   "match", "ip", "src", f"{pair[0]}/32", "match", "ip", "dst", f"{pair[1]}/32", "flowid", f"1:{minor}")
                self.limit_classes[pair] = (ns, dev, minor, rate)
                self.limit_log.append({"t_s": round(t, 6), "src": pair[0], "dst": pair[1], "rate_mbps": rate / 1000})
            elif have[3] != rate:
                tc(ns, "class", "change", "dev", dev, "parent", "1:1", "classid", f"1:{have[2]}", "htb",
                   "rate", f"{rate}kbit", "ceil", f"{rate}kbit")
                self.limit_classes[pair] = have[:3] + (rate,)
                self.limit_log.append({"t_s": round(t, 6), "src": pair[0], "dst": pair[1], "rate_mbps": rate / 1000})
        for pair, (ns, dev, minor, rate) in list(self.limit_classes.items()):
            if pair not in st.limits:
                full = _kbit(self.model.htb[(ns, dev)].rate_mbps)
                if rate != full:
                    tc(ns, "class", "change", "dev", dev, "parent", "1:1", "classid", f"1:{minor}", "htb",
                       "rate", f"{full}kbit", "ceil", f"{full}kbit")
                    self.limit_classes[pair] = (ns, dev, minor, full)
                    self.limit_log.append({"t_s": round(t, 6), "src": pair[0], "dst": pair[1], "rate_mbps": None})

    def _iface_up(self, ns: str, dev: str, cidr: str, up: bool = True) -> None:
        ip(ns, "addr", "add", cidr, "dev", dev)
        ip(ns, "link", "set", "dev", dev, "mtu", str(self.model.mtu))
        # one segment per skb: HTB/pfifo limits then count real packets (no 64 KB GSO bursts)
        ip(ns, "link", "set", "dev", dev, "gso_max_segs", "1", check=False)
        if up:
            ip(ns, "link", "set", "dev", dev, "up")

    def _impairments(self) -> None:
        by_ns: dict[str, list] = {}
        for imp in self.model.impairments:
            by_ns.setdefault(imp.ns, []).append(imp)
        for ns, imps in by_ns.items():
            queues = [i for i in imps if i.queue_num >= 0]
            if queues:
                args = ["ip", "netns", "exec", ns, os.environ.get("SUBFLOW_LINUX_PYTHON", _python()),
                        "-m", "subflow_engines.linux.delayline", "--seed", str(self.plan.seed)]
                for i in queues:
                    args += ["--queue", f"{i.queue_num}:{i.delay_ms:g}:{i.jitter_ms:g}"]
                out = self.tmp / f"delayline-{ns}.log"
                p = self._spawn(args, out)
                deadline = time.monotonic() + 15.0
                while "ready" not in out.read_text(errors="replace"):
                    if p.poll() is not None or time.monotonic() > deadline:
                        raise EngineCannotRun(
                            f"NFQUEUE delay line did not start in {ns}: {out.read_text(errors='replace')[-500:]}"
                        )
                    time.sleep(0.05)
            for i in imps:
                if i.loss > 0:
                    commands.in_ns(ns, "iptables", "-w", "-t", "raw", "-A", "PREROUTING", "-i", i.in_dev, "-m", "statistic",
                                   "--mode", "random", "--probability", f"{i.loss:.8f}", "-j", "DROP")
                if i.queue_num >= 0:
                    commands.in_ns(ns, "iptables", "-w", "-t", "mangle", "-A", "PREROUTING", "-i", i.in_dev,
                                   "-j", "NFQUEUE", "--queue-num", str(i.queue_num))

    def _set_hop(self, hop, up: bool) -> None:
        state = "up" if up else "down"
        ip(hop.sta_if.ns, "link", "set", "dev", hop.sta_if.name, state)
        ip(hop.ap_ns, "link", "set", "dev", hop.port, state)
        self.link_up[(hop.station, hop.ap)] = up
        if not up:  # the kernel drops the routes through a down device
            self.installed = {r for r in self.installed if not (r.node == hop.station and r.dev == hop.sta_if.name)}

    def _route_args(self, r: Route) -> list[str]:
        tr = self.plan.transport
        return [f"{r.dst}/32", "via", r.via, "dev", r.dev, "onlink", "table", str(r.table),
                "initcwnd", str(tr.initial_cwnd_packets), "rto_min", f"{int(round(tr.min_rto_s * 1000))}ms"]

    # ------------------------------------------------------------------ the driver
    def apply(self, t: float) -> None:
        """Bring links, routes and MPTCP endpoints to the plan's state at ``t`` (s)."""
        m = self.model
        st = self.states[t]
        for r in sorted(self.installed - st.routes, key=lambda r: (r.node, r.table, r.dst)):
            ip(m.ns(r.node), "route", "del", f"{r.dst}/32", "table", str(r.table), check=False)
            self.installed.discard(r)
        for node, eps in self.endpoints.items():
            for addr, (eid, _dev, _flag) in eps.items():
                if addr not in st.endpoints.get(node, {}):
                    ip(m.ns(node), "mptcp", "endpoint", "del", "id", str(eid), check=False)
        self.endpoints = {n: {a: e for a, e in eps.items() if a in st.endpoints.get(n, {})} for n, eps in self.endpoints.items()}
        down = links_down_at(m, t)
        for link in m.links:
            want = link.id not in down
            if want != self.wired_up[link.id]:
                state = "up" if want else "down"
                for itf in (link.ifa, link.ifb):
                    ip(itf.ns, "link", "set", "dev", itf.name, state)
                self.wired_up[link.id] = want
                if not want:
                    gone = {(link.a, link.ifa.name), (link.b, link.ifb.name)}
                    self.installed = {r for r in self.installed if (r.node, r.dev) not in gone}
        up = hops_up_at(m, t)
        for key, hop in m.hops.items():
            want = key in up
            if want != self.link_up.get(key, False):
                self._set_hop(hop, want)
        for r in sorted(st.routes - self.installed, key=lambda r: (r.node, r.table, r.dst)):
            ip(m.ns(r.node), "route", "replace", *self._route_args(r))
            self.installed.add(r)
        for node, eps in st.endpoints.items():
            have = self.endpoints.setdefault(node, {})
            for addr, (eid, dev, flag) in sorted(eps.items()):
                if addr not in have:
                    ip(m.ns(node), "mptcp", "endpoint", "add", addr, "dev", dev, "id", str(eid), flag)
                    have[addr] = (eid, dev, flag)
        self._apply_limits(st, t)
        for fid, fl in self.flows.items():
            self._plan_events(fl, st.subflows.get(fid, {}), t)

    def _plan_events(self, fl: _Flow, new: dict[str, list[str]], t: float) -> None:
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

    def _start_server(self, fl: _Flow) -> None:
        ns = self.model.ns(fl.fp.dst)
        args = ["ip", "netns", "exec", ns] + (["mptcpize", "run"] if fl.fp.multipath else [])
        args += ["iperf3", "-4", "-s", "-1", "-J", "-p", str(fl.fa.port)]
        fl.server_out = self.tmp / f"server-{fl.fa.index}.json"
        fl.server = self._spawn(args, fl.server_out)

    def _wait_listening(self, fl: _Flow) -> None:
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

    def _start_client(self, fl: _Flow) -> None:
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
        fl.client_out = self.tmp / f"client-{fa.index}.json"
        fl.launch_s = self.now()
        fl.client = self._spawn(args, fl.client_out)

    def execute(self, on_progress=None, should_stop=None) -> None:
        from subflow_engines.fluid import RunCancelled

        actions: list[tuple[float, int, str, object]] = []
        for t in self.times:
            if t > 0:
                actions.append((t, 1, "apply", t))
        for fl in self.flows.values():
            actions.append((fl.fp.start_s, 0, "start", fl))
        actions.sort(key=lambda a: (a[0], a[1]))
        self.t0 = time.monotonic()
        self.sampler = threading.Thread(target=self._sample_loop, name=f"{self.prefix}-sampler", daemon=True)
        self.sampler.start()
        last_progress = -1.0

        def wait_until(t: float) -> None:
            nonlocal last_progress
            while True:
                now = self.now()
                if should_stop is not None and should_stop():
                    raise RunCancelled()
                if self.sampler_error is not None:
                    raise self.sampler_error
                if on_progress is not None and now - last_progress >= 0.5:
                    on_progress(min(0.99, now / self.plan.duration_s))
                    last_progress = now
                if now >= t:
                    return
                time.sleep(min(0.1, t - now))

        for t, _, kind, arg in actions:
            wait_until(t)
            if kind == "start":
                self._start_client(arg)
            else:
                self.apply(arg)
        wait_until(self.plan.duration_s)
        self.sampler.join(timeout=10)
        if self.sampler_error is not None:
            raise self.sampler_error
        # let clients finish (they started their -t clock after the connection set-up), then servers
        rtt = max((self._rtt_estimate(fl) for fl in self.flows.values()), default=0.1)
        grace = min(15.0, 3.0 + 6 * rtt)
        self._finish([fl.client for fl in self.flows.values()], grace)
        self._finish([fl.server for fl in self.flows.values()], 3.0)

    def _finish(self, procs, grace: float) -> None:
        import signal

        deadline = time.monotonic() + grace
        for p in procs:
            if p is None:
                continue
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGINT)  # iperf3 prints its JSON on SIGINT
                try:
                    p.wait(timeout=3.0)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=3.0)

    def _rtt_estimate(self, fl: _Flow) -> float:
        res = {r.id: r for r in self.plan.resources}
        best = 0.0
        for seg in fl.fp.segments:
            for sp in seg.subflows:
                best = max(best, 2e-3 * sum(res[r].delay_ms for r in sp.resources))
        return best

    # ------------------------------------------------------------------ sampling
    def _sub_for(self, fl: _Flow, addr_rx: str, addr_tx: str, t: float, side: str) -> str | None:
        fa = fl.fa
        if fa.mode == "single":
            seg = active_segment(fl.fp, max(0.0, t - 1e-6))
            if seg is not None and seg.subflows:
                return seg.subflows[0].id
            return fl.order[0] if fl.order else None
        want = addr_rx if side == "rx" else addr_tx
        for sid, a in fa.key_addr.items():
            if a == want:
                return sid
        return None

    def _sample_loop(self) -> None:
        try:
            prev_rx: dict[tuple, float] = {}
            backoff: dict[tuple, float] = {}
            ns_rx = {fl.fp.id: self.model.ns(fl.fp.dst) for fl in self.flows.values()}
            ns_tx = {fl.fp.id: self.model.ns(fl.fp.src) for fl in self.flows.values()}
            for k in range(1, self.n_bins + 1):
                target = min(k * self.interval, self.plan.duration_s)
                while self.now() < target:
                    if self.stop.is_set():
                        return
                    time.sleep(min(0.05, target - self.now()))
                t = self.now()
                b = k - 1
                cache: dict[str, list] = {}

                def get(ns: str) -> list:
                    if ns not in cache:
                        cache[ns] = sockets.sample(ns)
                    return cache[ns]

                for fid, fl in self.flows.items():
                    port = fl.fa.port
                    seen: set[str] = set()
                    for s in get(ns_rx[fid]):
                        if s.lport != port:
                            continue
                        # rx side: local = the server's address, peer = the client's
                        sid = self._sub_for(fl, s.peer if fl.fa.mode == "src" else s.local, "", t, "rx")
                        key = (ns_rx[fid],) + s.key
                        cur = s.num("bytes_received")
                        delta = max(0.0, cur - prev_rx.get(key, 0.0))
                        prev_rx[key] = cur
                        fl.total[b] += delta
                        if sid is not None and sid in fl.sub_bytes:
                            fl.sub_bytes[sid][b] += delta
                            if s.state == "ESTAB" and cur > 0:
                                seen.add(sid)
                    best: dict[str, tuple[float, float]] = {}
                    for s in get(ns_tx[fid]):
                        if s.pport != port:
                            continue
                        sid = self._sub_for(fl, "", s.local if fl.fa.mode == "src" else s.peer, t, "tx")
                        if sid is None or sid not in fl.sub_bytes:
                            continue
                        acked = s.num("bytes_acked")
                        if acked >= best.get(sid, (-1.0, 0.0))[0]:
                            best[sid] = (acked, s.num("cwnd"))
                        fl.sub_retrans[sid][s.key] = max(fl.sub_retrans[sid].get(s.key, 0.0), s.num("retrans"))
                        bo = s.num("backoff")
                        key = (ns_tx[fid],) + s.key
                        if bo > backoff.get(key, 0.0) and acked > 1000:
                            self._emit(t, "rto", fl, sid, backoff=int(bo), observed="ss")
                        backoff[key] = bo
                    for sid, (_, cw) in best.items():
                        fl.sub_cwnd[sid][b] = cw
                    for sid in seen:
                        w = fl.sub_seen.setdefault(sid, [t, t])
                        w[1] = t
                    fl.observed_max = max(fl.observed_max, len(seen))
        except BaseException as exc:  # surfaced by the driver
            self.sampler_error = exc

    # ------------------------------------------------------------------ output
    def output(self) -> EngineOutput:
        t_s = [round(k * self.interval, 9) for k in range(self.n_bins)]
        scale = 8.0 / self.interval / 1e6
        flows = []
        for fl in self.flows.values():
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
            extra = {"observed_subflows_max": fl.observed_max, "iperf3": self._iperf3(fl, total)}
            flows.append(FlowResult(id=fl.fp.id, src=fl.fp.src, dst=fl.fp.dst, t_s=t_s, throughput_mbps=total,
                                    subflows=subs, **extra))
        self.events.sort(key=lambda e: e["t_s"])
        return EngineOutput(
            engine=NAME,
            strategy=self.plan.strategy,
            flows=flows,
            events=self.events,
            linux={
                "prefix": self.prefix,
                "kernel": self.caps.kernel,
                "congestion_control": self.cc,
                "delay_mechanism": "netem" if self.use_netem else ("nfqueue-delay-line" if any(i.queue_num >= 0 for i in self.model.impairments) else None),
                "loss_mechanism": "netem" if self.use_netem else ("iptables-statistic" if any(i.loss > 0 for i in self.model.impairments) else None),
                "iperf3_version": self.caps.iperf3_version,
                "setup_s": round(self.setup_s, 3),
                "notes": self.notes,
                "processes": [p.pid for p in self.procs],
                "throughput_source": "ss bytes_received per subflow socket at the receiver, sampled every interval",
                "rate_limits": self.limit_log,
            },
        )

    def _iperf3(self, fl: _Flow, total: list[float]) -> dict:
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
                offset = _align(run.intervals, total, self.interval, self.n_bins, fl.launch_s)
                out["receiver_offset_s"] = round(offset, 3)
                out["receiver_mbps"] = iperf3.timeline(run.intervals, self.interval, self.n_bins, offset)
        art = os.environ.get("SUBFLOW_LINUX_ARTIFACTS_DIR")
        if art:
            dest = Path(art) / self.prefix
            dest.mkdir(parents=True, exist_ok=True)
            for path in (fl.client_out, fl.server_out):
                if path is not None and path.exists():
                    shutil.copy(path, dest / f"{fl.fp.id}-{path.name}")
        return out

    # ------------------------------------------------------------------ teardown
    def close(self) -> list[str]:
        self.stop.set()
        if self.sampler is not None:
            self.sampler.join(timeout=5)
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


def _kbit(mbps: float) -> int:
    """Mbit/s to the integer kbit/s that tc takes (at least 8 kbit/s)."""
    return max(8, int(round(mbps * 1000)))


def _python() -> str:
    import sys

    return sys.executable


def _align(intervals, reference: list[float], interval_s: float, n_bins: int, launch_s: float) -> float:
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


def run(
    plan: RunPlan,
    on_progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> EngineOutput:
    """Execute ``plan`` on the Linux kernel in network namespaces (wall-clock time).

    Parameters
    ----------
    plan : RunPlan
        From :func:`subflow.resolve.resolve_plan`; must carry ``scenario``.
    on_progress : callable, optional
        Called with the elapsed fraction of ``duration_s`` about every 0.5 s.
    should_stop : callable, optional
        Polled about every 0.1 s; True tears the run down and raises
        :class:`subflow_engines.fluid.RunCancelled`.

    Returns
    -------
    EngineOutput
        Same shape as the embedded engine's (see module docstring for extras).

    Raises
    ------
    EngineCannotRun
        Before anything is created, naming the parameter this host cannot honour.
    """
    caps = detect()
    notes = validate(plan, caps)
    lr = LinuxRun(plan, caps, notes)
    try:
        lr.setup()
        lr.execute(on_progress, should_stop)
        out = lr.output()
    finally:
        problems = lr.close()
    if problems:
        out.linux["cleanup_problems"] = problems  # type: ignore[attr-defined]
    if on_progress is not None:
        on_progress(1.0)
    return out
