"""The emulated network of one ``linux`` run: namespaces, veths, bridges, shaping and
impairments (set-up), and the plan's state at each boundary (links, routes, MPTCP
endpoints, FDM rate limits) applied on the wall clock. See :mod:`.engine` for the steps.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from subflow.runplan import ratecap
from subflow.runplan.document import RunPlan
from subflow.scenario.document import DEFAULT_TRAFFIC_CLASSES, DSCP_CODEPOINTS, QueueingSettings

from . import commands, delayline
from .cleanup import RunRecord
from .commands import EngineCannotRun, ip, tc
from .routing import DesiredState, Route
from .topology import RULE_PRIORITY, Model, hops_up_at, links_down_at

MPTCP_MAX_SUBFLOWS = 8


def kbit(mbps: float) -> int:
    """Mbit/s to the integer kbit/s that tc takes (at least 8 kbit/s)."""
    return max(8, int(round(mbps * 1000)))


#: the rate of a class that only borrows (kbit/s): HTB takes no 0, and this keeps a lower class's packets that
#: leave at their own rate ahead of a higher class to 8 kbit/s (one 1514-byte frame every 1.5 s)
MIN_CLASS_KBIT = 8
#: the HTB class of the class that lists BE (and every unlisted DSCP): the shaper's default leaf
DEFAULT_MINOR = 10


def class_queues(queueing: QueueingSettings, rate_kbit: int, queue_packets: int, frame_bytes: int) -> list[dict]:
    """The HTB child classes of one shaped direction under ``queueing`` (empty for fifo).

    Linux's HTB is the one classful qdisc the engine relies on (kernels built without ``prio``/``drr``, as this
    project's, still have it), so both disciplines are HTB classes under the direction's class ``1:1`` (rate =
    ceil = the capacity), each with a ``pfifo`` of its ``queue_packets`` (the link's when null):

    * ``strict_priority``: HTB ``prio`` = the class's priority (0 first: among the classes that may send, HTB
      serves the lowest prio number; Linux ``sch_htb.c`` ``htb_dequeue`` walks levels, then prios). The class of
      the smallest priority has rate = capacity − :data:`MIN_CLASS_KBIT` × the others, so it never waits for
      tokens; the others rate :data:`MIN_CLASS_KBIT` and borrow the rest (ceil = capacity) in priority order.
    * ``drr``: one HTB prio for all; rate = capacity × weight / Σ weights (what each class gets while all have
      packets), ceil = capacity, quantum = ``frame_bytes`` × weight / the smallest weight (HTB shares what the
      empty classes leave in proportion to the quanta, one maximum frame per round for the lightest class:
      deficit round robin's rule, Shreedhar & Varghese 1996).

    Parameters
    ----------
    queueing : QueueingSettings
        The scenario's ``queueing``.
    rate_kbit : int
        The direction's capacity, kbit/s (HTB counts Ethernet frames).
    queue_packets : int
        The link direction's queue, packets.
    frame_bytes : int
        Largest Ethernet frame (MTU + 14), bytes.

    Returns
    -------
    list of dict
        ``minor`` (HTB class 1:minor; :data:`DEFAULT_MINOR` for the class that lists BE), ``name``,
        ``rate_kbit``, ``ceil_kbit``, ``prio``, ``quantum_bytes``, ``limit_packets``, ``dsfields`` (the DS field
        bytes, code point << 2, that a u32 filter sends to it; empty for the default class).
    """
    if queueing.discipline == "fifo":
        return []
    classes = list(queueing.classes or DEFAULT_TRAFFIC_CLASSES)
    out = []
    extra = 0
    top = min(c.priority for c in classes)
    w_sum = sum(c.weight for c in classes)
    w_min = min(c.weight for c in classes)
    for c in classes:
        default = "BE" in c.dscp
        minor = DEFAULT_MINOR if default else 20 + extra
        extra += 0 if default else 1
        if queueing.discipline == "strict_priority":
            rate = (max(MIN_CLASS_KBIT, rate_kbit - MIN_CLASS_KBIT * (len(classes) - 1)) if c.priority == top
                    else MIN_CLASS_KBIT)
            prio, quantum = c.priority, frame_bytes
        else:
            rate = max(MIN_CLASS_KBIT, int(rate_kbit * c.weight / w_sum))
            prio, quantum = 0, max(frame_bytes, int(round(frame_bytes * c.weight / w_min)))
        out.append({"minor": minor, "name": c.name, "rate_kbit": rate, "ceil_kbit": rate_kbit, "prio": prio,
                    "quantum_bytes": quantum, "limit_packets": c.queue_packets or queue_packets,
                    "dsfields": [] if default else [DSCP_CODEPOINTS[d] << 2 for d in c.dscp]})
    return out


class KernelNetwork:
    """Builds the run's network in the kernel and moves it from one plan state to the next.

    Parameters
    ----------
    plan : RunPlan
        The run's plan (transport settings, seed).
    model : Model
        Names, addresses and shaping of :func:`~.topology.build_model`.
    states : dict of float to DesiredState
        The desired state at every boundary (s), from :func:`~.routing.desired_state`.
    rules : dict
        Policy rules per node, from :func:`~.routing.rules`.
    use_netem : bool
        Delay, jitter and loss by netem; else the statistic match and the NFQUEUE delay line.
    record : RunRecord
        The ownership record; every namespace created is added to it.
    spawn : callable
        ``spawn(args, out_path) -> Popen``: starts a process the run owns (the delay lines).
    tmp : Path
        The run's work directory (delay-line logs).
    mptcp_ns : list of str
        Namespaces of multipath endpoints (MPTCP limits are set there).
    namespace_congestion_control : str
        Every namespace's default congestion control (``net.ipv4.tcp_congestion_control``),
        ``reno``: a new namespace inherits the host's default, and a socket whose connection
        started under BBR stays paced after iperf3's ``-C`` switches it (BBR's init asks for
        pacing, which nothing clears), so the same plan's slow start differed by host
        (docs/validation, grid item 9). Reno, because a namespace other than the host's may only
        default to a congestion control of ``tcp_allowed_congestion_control`` (Reno always is);
        each socket still gets the run's by ``-C``.
    rate_caps : dict of str to list of (str, int, int), optional
        Per source namespace, ``(flow id, iperf3 port, kbit/s)`` of its rated flows, capped at every
        instant (:mod:`subflow.runplan.ratecap`).
    now : callable, optional
        The run clock (s); the logs of capacity and delay changes record when each was applied.
    """

    def __init__(self, plan: RunPlan, model: Model, states: dict[float, DesiredState], rules: dict,
                 use_netem: bool, record: RunRecord, spawn: Callable, tmp: Path, mptcp_ns: list[str],
                 namespace_congestion_control: str = "reno", rate_caps: dict | None = None,
                 now: Callable[[], float] | None = None):
        self.plan = plan
        self.model = model
        self.states = states
        self.rules = rules
        self.use_netem = use_netem
        self.record = record
        self.spawn = spawn
        self.tmp = tmp
        self.mptcp_ns = mptcp_ns
        self.namespace_congestion_control = namespace_congestion_control
        self.rate_caps = rate_caps or {}
        self.now = now or (lambda: 0.0)
        self.installed: set[Route] = set()
        self.endpoints: dict[str, dict[str, tuple[int, str, str]]] = {}
        self.link_up: dict[tuple[str, str], bool] = {}
        self.wired_up: dict[str, bool] = {link.id: True for link in model.links}
        self.limit_classes: dict[tuple[str, str], tuple[str, str, int, int]] = {}
        #: every FDM rate limit installed or changed: ``{"t_s", "src", "dst", "rate_mbps"}``
        self.limit_log: list[dict] = []
        #: the plan's delay changes (SATCOM slant range), in time order, and the next one due
        self.delay_changes = sorted(plan.delay_changes, key=lambda c: (c.t_s, c.resource))
        self.next_delay = 0
        #: the delay line of each namespace (its stdin takes ``NUM DELAY_MS`` commands)
        self.delay_lines: dict[str, object] = {}
        #: the queue numbers each namespace's delay line serves
        self.delay_line_queues: dict[str, list[int]] = {}
        #: every delay change applied: ``{"t_s", "applied_s", "resource", "delay_ms"}`` (plan time, run clock)
        self.delay_log: list[dict] = []
        #: the plan's capacity changes (SATCOM MODCOD steps), in time order, and the next one due
        self.capacity_changes = sorted(plan.capacity_changes, key=lambda c: (c.t_s, c.resource))
        self.next_capacity = 0
        #: every capacity change applied: ``{"t_s", "applied_s", "resource", "capacity_mbps", "rate_kbit",
        #: "classes"}`` (``t_s``: the plan's time; ``applied_s``: the run clock once tc returned; ``classes``:
        #: the HTB classes changed)
        self.capacity_log: list[dict] = []
        self.queueing: QueueingSettings = model.scenario.queueing
        #: the class queues installed: discipline and, per shaped direction, its classes (:func:`class_queues`)
        self.queueing_log: dict = {"discipline": self.queueing.discipline, "shapers": []}
        #: (ns, dev) -> the HTB minors of its class queues
        self.class_minors: dict[tuple[str, str], list[int]] = {}

    # ------------------------------------------------------------------ set-up
    def build(self, check: Callable[[], None] | None = None) -> None:
        """Namespaces, veths, bridges, wireless hops (up as at t = 0), HTB shapers with their
        queues, impairments, policy rules and MPTCP limits. ``check`` is called before each
        namespace and each later step (a cancel raises from it)."""
        check = check or (lambda: None)
        m = self.model
        for node in m.nodes.values():
            check()
            self.record.add_namespace(node.ns)
            commands.run(["ip", "netns", "add", node.ns])
            commands.in_ns(
                node.ns, "sysctl", "-q", "-w",
                "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
                "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1",
                f"net.ipv4.tcp_congestion_control={self.namespace_congestion_control}",
            )
            ip(node.ns, "link", "set", "dev", "lo", "up")
            ip(node.ns, "addr", "add", f"{node.addr}/32", "dev", "lo")
        check()
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
            rate = kbit(sh.rate_mbps)
            tc(sh.ns, "qdisc", "add", "dev", sh.dev, "root", "handle", "1:", "htb", "default", "10")
            tc(sh.ns, "class", "add", "dev", sh.dev, "parent", "1:", "classid", "1:1", "htb",
               "rate", f"{rate}kbit", "ceil", f"{rate}kbit")
            specs = class_queues(self.queueing, rate, sh.queue_packets, m.mtu + 14)
            if not specs:
                tc(sh.ns, "class", "add", "dev", sh.dev, "parent", "1:1", "classid", "1:10", "htb",
                   "rate", f"{rate}kbit", "ceil", f"{rate}kbit")
                self._leaf(sh, 10)
                continue
            for spec in specs:
                self._class(sh, spec, "add")
                self._leaf(sh, spec["minor"], limit=spec["limit_packets"])
                for ds in spec["dsfields"]:
                    tc(sh.ns, "filter", "add", "dev", sh.dev, "parent", "1:", "protocol", "ip", "prio", "2", "u32",
                       "match", "ip", "dsfield", f"{ds:#04x}", "0xfc", "flowid", f"1:{spec['minor']}")
            self.class_minors[(sh.ns, sh.dev)] = [spec["minor"] for spec in specs]
            self.queueing_log["shapers"].append({"ns": sh.ns, "dev": sh.dev, "resource": sh.resource,
                                                 "classes": specs})
        check()
        if not self.use_netem:
            self._impairments()
        for node_id, rs in self.rules.items():
            for addr, table in rs:
                ip(m.ns(node_id), "rule", "add", "from", addr, "lookup", str(table), "priority", str(RULE_PRIORITY))
        for ns in self.mptcp_ns:
            ip(ns, "mptcp", "limits", "set", "subflows", str(MPTCP_MAX_SUBFLOWS), "add_addr_accepted", str(MPTCP_MAX_SUBFLOWS))
        for ns, caps in sorted(self.rate_caps.items()):
            for args in ratecap.cap_commands(self._egress_devs(ns), [(port, kbit) for _, port, kbit in caps]):
                (ip if args[0] == "ip" else tc)(ns, *args[1:])

    def _egress_devs(self, ns: str) -> list[str]:
        """The interfaces a packet sent from namespace ``ns`` leaves by: its wired veths, its station
        interfaces and its access point bridge (not the bridge's ports: a packet reaches those through the
        bridge, and would be redirected twice)."""
        m = self.model
        devs = [itf.name for link in m.links for itf in (link.ifa, link.ifb) if itf.ns == ns]
        devs += [hop.sta_if.name for hop in m.hops.values() if hop.sta_if.ns == ns]
        devs += [r.bridge.name for r in m.radios.values() if r.bridge.ns == ns]
        return sorted(devs)

    def _class(self, sh, spec: dict, verb: str) -> None:
        """``tc class add|change`` of one class queue (:func:`class_queues`) under ``1:1``."""
        tc(sh.ns, "class", verb, "dev", sh.dev, "parent", "1:1", "classid", f"1:{spec['minor']}", "htb",
           "rate", f"{spec['rate_kbit']}kbit", "ceil", f"{spec['ceil_kbit']}kbit", "prio", str(spec["prio"]),
           "quantum", str(spec["quantum_bytes"]))

    def _leaf(self, sh, minor: int, verb: str = "add", limit: int | None = None) -> None:
        """The queue under HTB class ``1:minor``: netem (delay/jitter/loss + limit) or pfifo, of ``limit``
        packets (default the shaper's ``queue_packets``); ``verb`` ``change``: new netem parameters for the
        existing leaf (a delay change)."""
        limit = sh.queue_packets if limit is None else limit
        if self.use_netem and (sh.delay_ms > 0 or sh.jitter_ms > 0 or sh.loss > 0):
            args = ["qdisc", verb, "dev", sh.dev, "parent", f"1:{minor}", "handle", f"{minor}:", "netem",
                    "limit", str(limit)]
            if sh.delay_ms > 0 or sh.jitter_ms > 0:
                args += ["delay", f"{sh.delay_ms:g}ms"] + ([f"{sh.jitter_ms:g}ms"] if sh.jitter_ms > 0 else [])
            if sh.loss > 0:
                args += ["loss", f"{sh.loss * 100:.6g}%"]
            tc(sh.ns, *args)
        else:
            tc(sh.ns, "qdisc", "add", "dev", sh.dev, "parent", f"1:{minor}", "handle", f"{minor}:", "pfifo",
               "limit", str(limit))

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
                # the module's file, not ``-m``: ``-m`` would import the package (the fluid engine,
                # numba), seconds per line on a loaded host; -P keeps its folder off sys.path
                args = ["ip", "netns", "exec", ns, os.environ.get("SUBFLOW_LINUX_PYTHON", sys.executable),
                        "-P", delayline.__file__, "--seed", str(self.plan.seed)]
                for i in queues:
                    args += ["--queue", f"{i.queue_num}:{i.delay_ms:g}:{i.jitter_ms:g}"]
                out = self.tmp / f"delayline-{ns}.log"
                p = self.spawn(args, out, stdin=True)
                self.delay_lines[ns] = p
                self.delay_line_queues[ns] = [i.queue_num for i in queues]
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

    # ------------------------------------------------------------------ plan states
    def apply(self, t: float) -> DesiredState:
        """Bring links, routes, MPTCP endpoints and rate limits to the plan's state at ``t``
        (s, a boundary); returns that state."""
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
        self._apply_capacities(t)
        self._apply_limits(st, t)
        self._apply_delays(t)
        return st

    def _apply_capacities(self, t: float) -> None:
        """The plan's capacity changes due at ``t`` (s, a boundary): ``tc class change`` of the HTB classes
        of the resource's every shaper (one per direction of a wired link; an access point's bridge and its
        stations for ``air:<ap>``), the parent ``1:1`` and the default leaf ``1:10`` to the new rate (rate =
        ceil, :func:`kbit`). An FDM limit class under the same shaper is clamped to the new rate by
        :meth:`_apply_limits`, which runs next. HTB takes no rate of 0: a plan never asks for one
        (:class:`~subflow.runplan.document.CapacityChange` is > 0); an outage (no MODCOD closes) is a
        ``link_down``/``link_up`` of the plan, applied as the link's veths going down
        (:func:`.topology.link_outages`). The queue under the class keeps its packets: at a lower rate they
        leave more slowly, as on the fluid engine's resource. A change of an access point's air that no
        station ever uses changes no class (logged with ``classes`` empty; the engine refuses a change of any
        other resource no shaper carries before the run starts, :func:`.topology.unshaped_changes`)."""
        changes = self.capacity_changes
        while self.next_capacity < len(changes) and changes[self.next_capacity].t_s <= t + 1e-9:
            c = changes[self.next_capacity]
            self.next_capacity += 1
            rate = kbit(c.capacity_mbps)
            classes = []
            for sh in self.model.shapers:
                if sh.resource != c.resource:
                    continue
                sh.rate_mbps = c.capacity_mbps
                specs = class_queues(self.queueing, rate, sh.queue_packets, self.model.mtu + 14)
                for minor in (1,) if specs else (1, 10):
                    tc(sh.ns, "class", "change", "dev", sh.dev, "parent", "1:" if minor == 1 else "1:1",
                       "classid", f"1:{minor}", "htb", "rate", f"{rate}kbit", "ceil", f"{rate}kbit")
                    classes.append(f"{sh.dev} 1:{minor}")
                for spec in specs:  # the class queues: their rates and ceilings follow the capacity
                    self._class(sh, spec, "change")
                    classes.append(f"{sh.dev} 1:{spec['minor']}")
            self.capacity_log.append({"t_s": round(c.t_s, 6), "applied_s": round(self.now(), 6), "resource": c.resource,
                                      "capacity_mbps": c.capacity_mbps, "rate_kbit": rate, "classes": classes})

    def _apply_delays(self, t: float) -> None:
        """The plan's delay changes due at ``t``: ``tc qdisc change … netem delay`` on the resource's
        shaper (and its FDM limit classes), or a ``NUM DELAY_MS`` command to the namespace's delay line.

        Raises
        ------
        EngineCannotRun
            A change for a resource that has no delay queue (it started at 0 ms without netem).
        """
        changes = self.delay_changes
        while self.next_delay < len(changes) and changes[self.next_delay].t_s <= t + 1e-9:
            c = changes[self.next_delay]
            self.next_delay += 1
            done = False
            if self.use_netem:
                for sh in self.model.shapers:
                    if sh.resource == c.resource and (sh.delay_ms > 0 or sh.jitter_ms > 0 or sh.loss > 0):
                        sh.delay_ms = c.delay_ms
                        specs = class_queues(self.queueing, kbit(sh.rate_mbps), sh.queue_packets,
                                             self.model.mtu + 14)
                        for spec in specs or [{"minor": 10, "limit_packets": sh.queue_packets}]:
                            self._leaf(sh, spec["minor"], "change", limit=spec["limit_packets"])
                        for ns, dev, minor, _ in self.limit_classes.values():
                            if (ns, dev) == (sh.ns, sh.dev):
                                self._leaf(sh, minor, "change")
                        done = True
            else:
                for imp in self.model.impairments:
                    if imp.resource == c.resource and imp.queue_num >= 0 and imp.ns in self.delay_lines:
                        imp.delay_ms = c.delay_ms
                        line = self.delay_lines[imp.ns]
                        line.stdin.write(f"{imp.queue_num} {c.delay_ms:.6g}\n".encode())
                        line.stdin.flush()
                        done = True
            if not done:
                raise EngineCannotRun(f"delay change of {c.resource} at {c.t_s:g} s: the resource has no delay queue")
            self.delay_log.append({"t_s": round(c.t_s, 6), "applied_s": round(self.now(), 6), "resource": c.resource,
                                   "delay_ms": c.delay_ms})

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

    def _apply_limits(self, st: DesiredState, t: float) -> None:
        """FDM rate limits as an SDN controller would install them: one HTB class per
        (subflow source, destination) address pair on the first hop's egress, selected by a
        u32 filter; changed in place (``tc class change``) when the plan's limit changes, and
        opened up to the link's capacity when the plan drops the limit."""
        m = self.model
        for pair, (node, dev, mbps) in sorted(st.limits.items()):
            ns = m.ns(node)
            sh = m.htb[(ns, dev)]
            rate = kbit(min(mbps, sh.rate_mbps))
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
                full = kbit(self.model.htb[(ns, dev)].rate_mbps)
                if rate != full:
                    tc(ns, "class", "change", "dev", dev, "parent", "1:1", "classid", f"1:{minor}", "htb",
                       "rate", f"{full}kbit", "ceil", f"{full}kbit")
                    self.limit_classes[pair] = (ns, dev, minor, full)
                    self.limit_log.append({"t_s": round(t, 6), "src": pair[0], "dst": pair[1], "rate_mbps": None})

    def delay_line_stats(self, timeout_s: float = 5.0) -> list[dict]:
        """Ask every NFQUEUE delay line for its ``stats`` and return them, one dict per queue
        (:meth:`.delayline._Line.stats`: packets, untimed, lead_us, max_backlog, realtime,
        read_lag_us and verdict_late_us percentiles in µs); waits up to ``timeout_s`` (s) for the
        answers, and leaves out the lines that did not answer. Empty without delay lines."""
        for line in self.delay_lines.values():
            if line.poll() is None:
                line.stdin.write(b"stats\n")
                line.stdin.flush()
        deadline = time.monotonic() + timeout_s
        out = []
        for ns in sorted(self.delay_lines):
            log = self.tmp / f"delayline-{ns}.log"
            want = len(self.delay_line_queues.get(ns, ()))
            while True:
                latest: dict[int, dict] = {}
                for text in log.read_text(errors="replace").splitlines():
                    if text.startswith("{"):
                        q = json.loads(text)
                        latest[q["queue"]] = q
                if len(latest) >= want or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            out += [{"ns": ns, **latest[k]} for k in sorted(latest)]
        return out

    @property
    def delay_mechanism(self) -> str | None:
        if self.use_netem:
            return "netem"
        return "nfqueue-delay-line" if any(i.queue_num >= 0 for i in self.model.impairments) else None

    @property
    def loss_mechanism(self) -> str | None:
        if self.use_netem:
            return "netem"
        return "iptables-statistic" if any(i.loss > 0 for i in self.model.impairments) else None
