"""Start-up detection of what this host can do for the ``linux`` engine.

Probes run once per process (:func:`detect`, cached) in a throw-away namespace
``sf<6 hex>-probe`` that carries the usual ownership record, so an interrupted
probe is cleaned like any run. Nothing is sent on the host's own interfaces.
"""

from __future__ import annotations

import os
import secrets
import threading
from dataclasses import asdict, dataclass, field

from subflow.runplan import ratecap

from . import cleanup, commands


@dataclass
class HostCapabilities:
    root: bool = False
    ip: bool = False
    tc: bool = False
    netns: bool = False
    veth: bool = False
    bridge: bool = False
    htb: bool = False
    u32: bool = False
    #: IFB devices, clsact and the mirred action: a rated flow's per-instant cap (:mod:`subflow.runplan.ratecap`)
    rate_cap: bool = False
    netem: bool = False
    iptables: bool = False
    statistic_match: bool = False
    nfqueue_target: bool = False
    nfqueue_binding: bool = False
    mptcp_enabled: bool = False
    mptcp_endpoints: bool = False
    mptcpize: bool = False
    iperf3: bool = False
    iperf3_version: str = ""
    ss: bool = False
    congestion_control: list[str] = field(default_factory=list)
    system_default_cc: str = ""
    kernel: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def available(self) -> bool:
        """Enough to run a plan without delay/loss: root, netns, veth, HTB, iperf3, ss."""
        return all((self.root, self.ip, self.tc, self.netns, self.veth, self.htb, self.iperf3, self.ss))

    @property
    def delay_mechanism(self) -> str | None:
        if self.netem:
            return "netem"
        if self.nfqueue_target and self.nfqueue_binding:
            return "nfqueue-delay-line"
        return None

    @property
    def loss_mechanism(self) -> str | None:
        if self.netem:
            return "netem"
        if self.statistic_match:
            return "iptables-statistic"
        return None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["available"] = self.available
        d["delay_mechanism"] = self.delay_mechanism
        d["loss_mechanism"] = self.loss_mechanism
        return d


_lock = threading.Lock()
_cached: HostCapabilities | None = None


def _ok(args: list[str]) -> bool:
    try:
        return commands.run(args, check=False, timeout=10).returncode == 0
    except commands.CommandFailed:
        return False


def _probe(caps: HostCapabilities) -> None:
    prefix = "sf" + secrets.token_hex(3)
    ns = f"{prefix}-probe"
    rec = cleanup.RunRecord(prefix)
    try:
        rec.write()
        rec.add_namespace(ns)
    except OSError as exc:
        caps.problems.append(f"cannot write the run record in {cleanup.state_dir()}: {exc}")
        return
    try:
        caps.netns = _ok(["ip", "netns", "add", ns])
        if not caps.netns:
            caps.problems.append("ip netns add failed")
            return
        a, b = f"{prefix}pa", f"{prefix}pb"
        caps.veth = _ok(["ip", "-n", ns, "link", "add", a, "type", "veth", "peer", "name", b])
        caps.bridge = _ok(["ip", "-n", ns, "link", "add", f"{prefix}pc", "type", "bridge"])
        if caps.veth:
            caps.htb = _ok(["tc", "-n", ns, "qdisc", "add", "dev", a, "root", "handle", "1:", "htb", "default", "1"])
            if caps.htb:
                _ok(["tc", "-n", ns, "class", "add", "dev", a, "parent", "1:", "classid", "1:1", "htb", "rate", "10mbit"])
                caps.netem = _ok(["tc", "-n", ns, "qdisc", "add", "dev", a, "parent", "1:1", "handle", "10:",
                                  "netem", "delay", "10ms"])
                caps.u32 = _ok(["tc", "-n", ns, "filter", "add", "dev", a, "parent", "1:", "protocol", "ip", "prio", "1",
                                "u32", "match", "ip", "dport", "5201", "0xffff", "flowid", "1:1"])
            else:
                caps.netem = _ok(["tc", "-n", ns, "qdisc", "add", "dev", a, "root", "netem", "delay", "10ms"])
            caps.rate_cap = all(_ok(["ip" if c[0] == "ip" else "tc", "-n", ns] + c[1:])
                                for c in ratecap.cap_commands([a], [(5201, 1000)]))
        if commands.which("iptables"):
            caps.iptables = _ok(["ip", "netns", "exec", ns, "iptables", "-t", "raw", "-S"])
            caps.statistic_match = _ok(["ip", "netns", "exec", ns, "iptables", "-t", "raw", "-A", "PREROUTING",
                                        "-i", a, "-m", "statistic", "--mode", "random", "--probability", "0.5",
                                        "-j", "DROP"])
            caps.nfqueue_target = _ok(["ip", "netns", "exec", ns, "iptables", "-t", "mangle", "-A", "PREROUTING",
                                       "-i", a, "-j", "NFQUEUE", "--queue-num", "0"])
        caps.mptcp_endpoints = _ok(["ip", "netns", "exec", ns, "ip", "mptcp", "limits", "set", "subflows", "2"])
        en = commands.run(["ip", "netns", "exec", ns, "sysctl", "-n", "net.mptcp.enabled"], check=False)
        caps.mptcp_enabled = en.returncode == 0 and en.stdout.strip() == "1"
    finally:
        problems = cleanup.teardown(prefix, [], [ns])
        caps.problems.extend(problems)


def detect(refresh: bool = False) -> HostCapabilities:
    """What this host offers the ``linux`` engine (probed once per process)."""
    global _cached
    with _lock:
        if _cached is not None and not refresh:
            return _cached
        caps = HostCapabilities()
        caps.root = os.geteuid() == 0
        caps.kernel = os.uname().release
        caps.ip = commands.which("ip") is not None
        caps.tc = commands.which("tc") is not None
        caps.ss = commands.which("ss") is not None
        caps.mptcpize = commands.which("mptcpize") is not None
        if commands.which("iperf3"):
            caps.iperf3 = True
            try:
                v = commands.run(["iperf3", "--version"], check=False, timeout=5).stdout.split()
                caps.iperf3_version = v[1] if len(v) > 1 else ""
            except commands.CommandFailed:
                pass
        try:
            import fnfqueue  # noqa: F401

            caps.nfqueue_binding = True
        except Exception as exc:  # ImportError, or a cffi load failure
            caps.problems.append(f"fnfqueue unavailable: {exc}")
        try:
            with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
                caps.congestion_control = f.read().split()
            with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
                caps.system_default_cc = f.read().strip()
        except OSError:
            pass
        if caps.root and caps.ip and caps.tc:
            try:
                _probe(caps)
            except Exception as exc:  # a probe must never break the agent's start-up
                caps.problems.append(f"probe failed: {type(exc).__name__}: {exc}")
        elif not caps.root:
            caps.problems.append("not root: network namespaces need CAP_NET_ADMIN/CAP_SYS_ADMIN")
        _cached = caps
        return caps
