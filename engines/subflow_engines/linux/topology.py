"""The ``linux`` engine's model of a scenario: namespaces, interfaces, addresses, shaping.

:func:`build_model` is pure (no system calls): it maps a :class:`~subflow.runplan.document.RunPlan`
onto network namespaces and veth pairs with generated names and addresses, so it
can be unit-tested anywhere. :func:`create` then materialises the model with
``ip``/``tc``/``iptables`` argument lists.

Mapping
-------
* Every scenario node (host, switch, router, satellite, station, access point) is a
  network namespace ``<prefix>-n<i>`` acting as an IPv4 router (``ip_forward=1``,
  ``rp_filter=0``) with a node address ``10.200.x.y/32`` on ``lo``.
* A wired link ``j`` is a veth pair ``<prefix>w<j>a`` / ``<prefix>w<j>b`` with the /30
  ``10.64.0.0 + 4j``.
* An access point ``k`` is a Linux bridge ``<prefix>b<k>`` in its namespace (the shared
  radio segment, ``10.{32+k//256}.{k%256}.0/24``, bridge address ``.1``); each
  station that ever associates with it gets a veth pair ``<prefix>s<h>`` (station
  side) / ``<prefix>p<h>`` (bridge port), down while not associated.

Shaping (per direction, from the plan's resources)
--------------------------------------------------
* ``capacity_mbps``: HTB on the sender's egress (class rate = ceil = capacity, a
  ``pfifo`` of ``queue_packets`` under it). Air: the AP bridge's egress carries the
  downlink of all its stations (shared); the uplink is shaped per station.
  HTB counts Ethernet frames, so TCP goodput is about 1448/1514 ≈ 0.956 of the rate.
* ``delay_ms``/``jitter_ms``/``loss``: with netem (child of the HTB class) when the
  kernel has it; otherwise on the *receiving* namespace's PREROUTING: loss with the
  netfilter ``statistic`` match (raw table), delay/jitter with the NFQUEUE delay
  line (:mod:`.delayline`, mangle table). Receiving side, because the sender's skb
  is orphaned on ``ip_rcv`` there, so TCP Small Queues do not throttle the sender.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from subflow.radio.association import Association, association_timeline
from subflow.runplan.document import RunPlan
from subflow.scenario.document import AccessPointNode, Scenario, StationNode, load_scenario

from .commands import IFNAME_MAX, EngineCannotRun, check_name

LINK_BASE = ipaddress.IPv4Address("10.64.0.0")
NODE_BASE = ipaddress.IPv4Address("10.200.0.0")
MAX_NODES = 250
MAX_LINKS = 2000
MAX_STATIONS_PER_AP = 250
#: policy routing tables: 1000 + address index
TABLE_BASE = 1000
RULE_PRIORITY = 100


@dataclass
class Node:
    id: str
    index: int
    ns: str
    addr: str  #: node address (/32 on lo)
    kind: str


@dataclass
class Iface:
    name: str
    ns: str
    node: str
    addr: str
    prefixlen: int


@dataclass
class WiredLink:
    index: int
    id: str
    a: str
    b: str
    ifa: Iface
    ifb: Iface


@dataclass
class Radio:
    ap: str
    index: int
    bridge: Iface


@dataclass
class Hop:
    """A station's wireless hop to one access point."""

    index: int
    station: str
    ap: str
    sta_if: Iface  #: station side of the veth pair
    port: str  #: bridge port (AP side), no address
    ap_ns: str


@dataclass
class Shaper:
    """Egress HTB on ``dev`` in ``ns`` (one direction of a resource)."""

    ns: str
    dev: str
    resource: str
    rate_mbps: float
    queue_packets: int
    #: netem parameters when netem is used (else 0)
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss: float = 0.0


@dataclass
class Impairment:
    """Delay/jitter/loss of packets received on ``in_dev`` in ``ns`` (no-netem path)."""

    ns: str
    in_dev: str
    resource: str
    delay_ms: float
    jitter_ms: float
    loss: float
    queue_num: int = -1


@dataclass
class Model:
    prefix: str
    scenario: Scenario
    nodes: dict[str, Node]
    links: list[WiredLink]
    radios: dict[str, Radio]
    hops: dict[tuple[str, str], Hop]
    associations: list[Association]
    shapers: list[Shaper] = field(default_factory=list)
    impairments: list[Impairment] = field(default_factory=list)
    mtu: int = 1500
    #: (node, neighbour) -> (device on node, neighbour's address on that segment)
    adjacency: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    #: flow id -> its FlowPlan
    plan_flows: dict = field(default_factory=dict)
    #: wired link outages (link id, t_down_s, t_up_s) from ``scenario.link_events``
    outages: list[tuple[str, float, float]] = field(default_factory=list)
    #: egress HTB of every shaped device: (ns, dev) -> (capacity Mbit/s, queue packets, netem args)
    htb: dict[tuple[str, str], Shaper] = field(default_factory=dict)

    def ns(self, node: str) -> str:
        return self.nodes[node].ns

    def iface_addr(self, node: str, neighbour: str) -> str:
        """Address of ``node`` on its interface towards ``neighbour``."""
        dev, _ = self.adjacency[(node, neighbour)]
        for link in self.links:
            for itf in (link.ifa, link.ifb):
                if itf.name == dev and itf.node == node:
                    return itf.addr
        for hop in self.hops.values():
            if hop.sta_if.name == dev and hop.station == node:
                return hop.sta_if.addr
        for radio in self.radios.values():
            if radio.bridge.name == dev and radio.ap == node:
                return radio.bridge.addr
        raise KeyError((node, neighbour))

    def namespaces(self) -> list[str]:
        return [n.ns for n in self.nodes.values()]


def _name(prefix: str, suffix: str) -> str:
    return check_name(prefix + suffix, IFNAME_MAX)


def build_model(plan: RunPlan, prefix: str, use_netem: bool) -> Model:
    """Map ``plan`` onto namespaces, veths, bridges, addresses and shaping specs.

    Parameters
    ----------
    plan : RunPlan
        Must carry ``plan.scenario`` (the validated scenario document).
    prefix : str
        The run prefix, ``sf`` + 6 hex digits.
    use_netem : bool
        Put delay/jitter/loss in netem (True) or in :class:`Impairment` entries for
        the netfilter/NFQUEUE path (False).

    Raises
    ------
    EngineCannotRun
        If the plan has no scenario document or exceeds the engine's size limits.
    """
    check_name(prefix)
    if plan.scenario is None:
        raise EngineCannotRun("plan.scenario: the linux engine needs the scenario document in the plan")
    scenario = load_scenario(plan.scenario)
    if len(scenario.nodes) > MAX_NODES:
        raise EngineCannotRun(f"nodes: {len(scenario.nodes)} nodes exceed the linux engine's limit of {MAX_NODES}")
    if len(scenario.links) > MAX_LINKS:
        raise EngineCannotRun(f"links: {len(scenario.links)} links exceed the linux engine's limit of {MAX_LINKS}")
    nodes: dict[str, Node] = {}
    for i, n in enumerate(scenario.nodes):
        addr = str(NODE_BASE + (i + 1))
        nodes[n.id] = Node(id=n.id, index=i, ns=check_name(f"{prefix}-n{i}"), addr=addr, kind=n.kind)
    res = {r.id: r for r in plan.resources}
    model = Model(prefix=prefix, scenario=scenario, nodes=nodes, links=[], radios={}, hops={}, associations=[])
    model.plan_flows = {fp.id: fp for fp in plan.flows}
    model.mtu = plan.transport.mss_bytes + 52  # IPv4 (20) + TCP (20) + timestamps (12)

    def direction(rid: str, ns: str, dev: str, rx_ns: str, rx_dev: str) -> None:
        r = res.get(rid)
        if r is None:
            raise EngineCannotRun(f"resources: the plan has no resource {rid!r}")
        if use_netem:
            model.shapers.append(Shaper(ns, dev, rid, r.capacity_mbps, r.queue_packets, r.delay_ms, r.jitter_ms, r.loss))
        else:
            model.shapers.append(Shaper(ns, dev, rid, r.capacity_mbps, r.queue_packets))
            if r.delay_ms > 0 or r.jitter_ms > 0 or r.loss > 0:
                model.impairments.append(Impairment(rx_ns, rx_dev, rid, r.delay_ms, r.jitter_ms, r.loss))

    for j, link in enumerate(scenario.links):
        net = LINK_BASE + 4 * j
        a, b = nodes[link.src], nodes[link.dst]
        ifa = Iface(_name(prefix, f"w{j}a"), a.ns, a.id, str(net + 1), 30)
        ifb = Iface(_name(prefix, f"w{j}b"), b.ns, b.id, str(net + 2), 30)
        model.links.append(WiredLink(j, link.id, a.id, b.id, ifa, ifb))
        model.adjacency[(a.id, b.id)] = (ifa.name, ifb.addr)
        model.adjacency[(b.id, a.id)] = (ifb.name, ifa.addr)
        direction(f"{link.id}:{a.id}>{b.id}", a.ns, ifa.name, b.ns, ifb.name)
        direction(f"{link.id}:{b.id}>{a.id}", b.ns, ifb.name, a.ns, ifa.name)

    timeline = association_timeline(scenario)
    model.associations = list(timeline.associations)
    aps = [n for n in scenario.nodes if isinstance(n, AccessPointNode)]
    stations = {n.id for n in scenario.nodes if isinstance(n, StationNode)}
    hop_index = 0
    for k, ap in enumerate(aps):
        subnet = ipaddress.IPv4Network(f"10.{32 + k // 256}.{k % 256}.0/24")
        if 32 + k // 256 > 63:
            raise EngineCannotRun("nodes: too many access points for the linux engine's address plan")
        apn = nodes[ap.id]
        bridge = Iface(_name(prefix, f"b{k}"), apn.ns, ap.id, str(subnet.network_address + 1), 24)
        model.radios[ap.id] = Radio(ap.id, k, bridge)
        members = sorted({a.station for a in model.associations if a.access_point == ap.id})
        if len(members) > MAX_STATIONS_PER_AP:
            raise EngineCannotRun(f"nodes: access point {ap.id!r} has too many stations for the linux engine")
        rid = f"air:{ap.id}"
        if members:
            # downlink, shared by the AP's stations: the bridge's egress
            r = res.get(rid)
            if r is None:
                raise EngineCannotRun(f"resources: the plan has no resource {rid!r}")
        for m, st in enumerate(members):
            assert st in stations
            stn = nodes[st]
            sta_if = Iface(_name(prefix, f"s{hop_index}"), stn.ns, st, str(subnet.network_address + 2 + m), 24)
            hop = Hop(hop_index, st, ap.id, sta_if, _name(prefix, f"p{hop_index}"), apn.ns)
            model.hops[(st, ap.id)] = hop
            model.adjacency[(st, ap.id)] = (sta_if.name, bridge.addr)
            model.adjacency[(ap.id, st)] = (bridge.name, sta_if.addr)
            hop_index += 1
            # uplink: station egress (per station); its delay/loss on the AP's bridge input
            r = res[rid]
            if use_netem:
                model.shapers.append(Shaper(stn.ns, sta_if.name, rid, r.capacity_mbps, r.queue_packets, r.delay_ms, r.jitter_ms, r.loss))
            else:
                model.shapers.append(Shaper(stn.ns, sta_if.name, rid, r.capacity_mbps, r.queue_packets))
                if r.delay_ms > 0 or r.jitter_ms > 0 or r.loss > 0:
                    # downlink impairment at the station's input
                    model.impairments.append(Impairment(stn.ns, sta_if.name, rid, r.delay_ms, r.jitter_ms, r.loss))
        if members:
            r = res[rid]
            if use_netem:
                model.shapers.append(Shaper(apn.ns, bridge.name, rid, r.capacity_mbps, r.queue_packets, r.delay_ms, r.jitter_ms, r.loss))
            else:
                model.shapers.append(Shaper(apn.ns, bridge.name, rid, r.capacity_mbps, r.queue_packets))
                if r.delay_ms > 0 or r.jitter_ms > 0 or r.loss > 0:
                    model.impairments.append(Impairment(apn.ns, bridge.name, rid, r.delay_ms, r.jitter_ms, r.loss))
    model.outages = link_outages(scenario) + budget_outages(plan, scenario)
    model.htb = {(sh.ns, sh.dev): sh for sh in model.shapers}
    # NFQUEUE numbers, per namespace
    per_ns: dict[str, int] = {}
    for imp in model.impairments:
        if imp.delay_ms > 0 or imp.jitter_ms > 0:
            imp.queue_num = per_ns.get(imp.ns, 0)
            per_ns[imp.ns] = imp.queue_num + 1
    return model


def link_outages(scenario: Scenario) -> list[tuple[str, float, float]]:
    """Down intervals ``(link id, t_down_s, t_up_s)`` of wired links from ``scenario.link_events``
    (a ``down`` opens an interval, the next ``up`` of that link closes it; an interval left open
    lasts to the end of the run) — the same reading as :mod:`subflow.runplan.document` — and of SATCOM links
    (satellite below the elevation mask or not in use, :func:`subflow.space.satcom.satcom_timeline`)."""
    duration = scenario.run.duration_s
    down_since: dict[str, float] = {}
    out: list[tuple[str, float, float]] = []
    for ev in sorted(getattr(scenario, "link_events", []) or [], key=lambda e: e.t_s):
        if ev.state == "down" and ev.link not in down_since:
            down_since[ev.link] = ev.t_s
        elif ev.state == "up" and ev.link in down_since:
            out.append((ev.link, down_since.pop(ev.link), ev.t_s))
    out.extend((link, t0, duration) for link, t0 in down_since.items())
    if getattr(scenario, "satcom", None) is not None:
        from subflow.space.satcom import satcom_timeline

        out.extend(satcom_timeline(scenario).down_intervals(duration))
    return out


def budget_outages(plan: RunPlan, scenario: Scenario) -> list[tuple[str, float, float]]:
    """Down intervals ``(link id, t_down_s, t_up_s)`` of SATCOM links with a link budget, read from the plan's
    ``link_down``/``link_up`` events of those links (the plan's outages while no MODCOD closes in a
    direction, :mod:`subflow.runplan.topology`, mixed there with the links' visibility, which
    :func:`link_outages` computes itself): a link is down while more ``link_down`` than ``link_up`` events
    have passed, and from t = 0 when its first event is a ``link_up`` (a budget outage nests inside a
    visibility window, so the count never needs more). An interval left open lasts to the end of the run.
    Recomputing the budgets here would cost seconds of ITU-R attenuation per run."""
    budgeted = {link.id for link in scenario.links if getattr(link, "budget", None) is not None}
    if not budgeted:
        return []
    duration = plan.duration_s
    depth: dict[str, int] = {}
    since: dict[str, float] = {}
    out: list[tuple[str, float, float]] = []
    for ev in sorted((e for e in plan.events if e.get("kind") in ("link_down", "link_up")
                      and e.get("link") in budgeted), key=lambda e: (e["t_s"], e["kind"] == "link_up")):
        lid, t = ev["link"], float(ev["t_s"])
        if lid not in depth:
            depth[lid] = 1 if ev["kind"] == "link_up" else 0
            if depth[lid]:
                since[lid] = 0.0
        if ev["kind"] == "link_down":
            if depth[lid] == 0:
                since[lid] = t
            depth[lid] += 1
        elif depth[lid] > 0:
            depth[lid] -= 1
            if depth[lid] == 0:
                out.append((lid, since.pop(lid), t))
    out.extend((lid, t0, duration) for lid, t0 in since.items())
    return out


def unshaped_changes(plan: RunPlan, model: Model) -> list[str]:
    """Resources of ``plan.capacity_changes`` that no shaper of ``model`` carries and that are not an access
    point's air no station ever uses (such a change carries no traffic): the engine refuses a plan with any."""
    shaped = {sh.resource for sh in model.shapers}
    return sorted({c.resource for c in plan.capacity_changes
                   if c.resource not in shaped and not (c.resource.startswith("air:") and c.resource.count(":") == 1)})


def links_down_at(model: Model, t_s: float) -> set[str]:
    """Wired link ids that are down at ``t_s``."""
    return {link for link, t0, t1 in model.outages if t0 <= t_s + 1e-9 and t_s < t1 - 1e-9}


def hops_up_at(model: Model, t_s: float) -> set[tuple[str, str]]:
    """Wireless hops (station, ap) that carry traffic at ``t_s`` (associated, not handing over)."""
    return {
        (a.station, a.access_point)
        for a in model.associations
        if a.t_associated_s <= t_s + 1e-9 and t_s < a.t_end_s - 1e-9
    }
