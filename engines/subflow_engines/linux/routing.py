"""Addresses, policy routes and MPTCP endpoints that realise a plan's subflow paths.

Pure functions (no system calls), so they are unit-tested without root.

Each planned subflow gets a source/destination address pair ``(S, D)``:

* ``single`` (one first hop and one last hop over the whole run, e.g. ``sptcp``):
  ``S``/``D`` are the end nodes' node addresses; a route change moves the same
  connection onto the new path (it resumes on its next retransmission timeout).
* ``src`` (the source uses several first hops: a multi-homed client): ``S`` is the
  source's address on the first-hop interface, ``D`` the destination's node address.
  The client binds to the first subflow's ``S``; the others are MPTCP ``subflow``
  endpoints (``ip mptcp endpoint add S dev IF subflow``).
* ``dst`` (several last hops: a multi-homed server): ``S`` is the source's node
  address, ``D`` the destination's address on the last-hop interface; the extra
  ``D`` are ``signal`` endpoints on the server (ADD_ADDR).

Routes are per source address (policy routing, RFC 1812 §5.2.4 style): at node
``n_j`` of path ``n_0..n_k`` the forward route ``D via n_{j+1}`` lives in table
``T(S)`` (selected by ``ip rule from S``), the reverse route ``S via n_{j-1}`` in
``T(D)``. So two subflows between the same hosts can cross one router on different
next hops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from subflow.runplan.document import FlowPlan, RunPlan

from .commands import EngineCannotRun
from .topology import RULE_PRIORITY, TABLE_BASE, Model

BASE_PORT = 5201


@dataclass(frozen=True)
class Route:
    node: str
    table: int
    dst: str
    via: str
    dev: str


@dataclass
class FlowAddressing:
    flow_id: str
    index: int
    mode: str  #: single | src | dst
    port: int
    #: subflow id -> (S, D)
    keys: dict[str, tuple[str, str]] = field(default_factory=dict)
    connect_addr: str = ""  #: address the client connects to
    bind_addr: str = ""  #: address the client binds to
    #: subflow id -> the key address that tells its sockets apart (S in src mode, D in dst mode, "" in single)
    key_addr: dict[str, str] = field(default_factory=dict)
    #: subflow id -> (node, device) of its MPTCP endpoint (src: at the client, dst: at the server)
    endpoint_dev: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass
class Addressing:
    flows: dict[str, FlowAddressing]
    tables: dict[str, int]  #: address -> policy table number

    def table(self, addr: str) -> int:
        return self.tables[addr]


def _mode(fp: FlowPlan) -> str:
    if not fp.multipath:
        return "single"
    firsts = {sp.nodes[1] for seg in fp.segments for sp in seg.subflows if len(sp.nodes) > 1}
    lasts = {sp.nodes[-2] for seg in fp.segments for sp in seg.subflows if len(sp.nodes) > 1}
    if len(firsts) > 1:
        return "src"
    if len(lasts) > 1:
        return "dst"
    return "single"


def address_flows(plan: RunPlan, model: Model) -> Addressing:
    """Choose ``(S, D)`` per subflow, the client's bind/connect addresses and the policy tables."""
    flows: dict[str, FlowAddressing] = {}
    addrs: list[str] = []

    def note(a: str) -> None:
        if a not in addrs:
            addrs.append(a)

    for i, fp in enumerate(plan.flows):
        mode = _mode(fp)
        fa = FlowAddressing(flow_id=fp.id, index=i, mode=mode, port=BASE_PORT + i)
        src, dst = model.nodes[fp.src], model.nodes[fp.dst]
        first_active = None
        for seg in fp.segments:
            for sp in seg.subflows:
                if len(sp.nodes) < 2:
                    continue
                if mode == "src":
                    s = model.iface_addr(fp.src, sp.nodes[1])
                    d = dst.addr
                    fa.key_addr.setdefault(sp.id, s)
                    fa.endpoint_dev.setdefault(sp.id, (fp.src, model.adjacency[(fp.src, sp.nodes[1])][0]))
                elif mode == "dst":
                    s = src.addr
                    d = model.iface_addr(fp.dst, sp.nodes[-2])
                    fa.key_addr.setdefault(sp.id, d)
                    fa.endpoint_dev.setdefault(sp.id, (fp.dst, model.adjacency[(fp.dst, sp.nodes[-2])][0]))
                else:
                    s, d = src.addr, dst.addr
                    fa.key_addr.setdefault(sp.id, "")
                prev = fa.keys.setdefault(sp.id, (s, d))
                if prev != (s, d):
                    raise EngineCannotRun(
                        f"flows[{i}] ({fp.id}): subflow {sp.id} changes interface during the run; "
                        "the linux engine maps a subflow to one interface"
                    )
                note(s)
                note(d)
                if first_active is None:
                    first_active = (s, d)
        if first_active is None:
            raise EngineCannotRun(f"flows[{i}] ({fp.id}): no subflow path in the plan")
        fa.bind_addr, fa.connect_addr = first_active
        if mode != "src":
            fa.bind_addr = src.addr
        flows[fp.id] = fa
    tables = {a: TABLE_BASE + k for k, a in enumerate(addrs)}
    return Addressing(flows=flows, tables=tables)


def subflow_routes(model: Model, addressing: Addressing, flow_id: str, sub_id: str, nodes: list[str]) -> list[Route]:
    """Forward and reverse routes of one subflow along ``nodes``."""
    s, d = addressing.flows[flow_id].keys[sub_id]
    ts, td = addressing.table(s), addressing.table(d)
    out: list[Route] = []
    for j in range(len(nodes) - 1):
        dev, via = model.adjacency[(nodes[j], nodes[j + 1])]
        out.append(Route(nodes[j], ts, d, via, dev))
    for j in range(1, len(nodes)):
        dev, via = model.adjacency[(nodes[j], nodes[j - 1])]
        out.append(Route(nodes[j], td, s, via, dev))
    return out


def rules(model: Model, addressing: Addressing) -> dict[str, list[tuple[str, int]]]:
    """``ip rule from ADDR lookup TABLE`` entries per node: every node that carries a route
    of that table (computed over all segments)."""
    need: dict[str, set[tuple[str, int]]] = {}
    by_table = {t: a for a, t in addressing.tables.items()}
    for r in all_routes(model, addressing):
        need.setdefault(r.node, set()).add((by_table[r.table], r.table))
    return {n: sorted(v, key=lambda x: x[1]) for n, v in need.items()}


def all_routes(model: Model, addressing: Addressing) -> set[Route]:
    out: set[Route] = set()
    for fid, fa in addressing.flows.items():
        fp = _flow(model, fid)
        for seg in fp.segments:
            for sp in seg.subflows:
                out.update(subflow_routes(model, addressing, fid, sp.id, sp.nodes))
    return out


def _flow(model: Model, fid: str) -> FlowPlan:
    return model.plan_flows[fid]


def active_segment(fp: FlowPlan, t_s: float):
    """The segment of ``fp`` in force at ``t_s`` (None outside its segments)."""
    for seg in fp.segments:
        if seg.t_start_s <= t_s + 1e-9 and t_s < seg.t_end_s - 1e-9:
            return seg
    return None


@dataclass
class DesiredState:
    routes: set[Route]
    #: node -> {address: (endpoint id, device, flag "subflow"|"signal")}
    endpoints: dict[str, dict[str, tuple[int, str, str]]]
    #: flow id -> {subflow id: path}
    subflows: dict[str, dict[str, list[str]]]
    #: controller rate limits: (S, D) -> (node, first-hop device, Mbit/s)
    limits: dict[tuple[str, str], tuple[str, str, float]] = field(default_factory=dict)


def desired_state(plan: RunPlan, model: Model, addressing: Addressing, t_s: float) -> DesiredState:
    """Routes, MPTCP endpoints and subflow paths the plan wants at ``t_s``.

    Raises
    ------
    EngineCannotRun
        If two active subflows need different next hops for the same (node, table,
        destination).
    """
    routes: dict[tuple[str, int, str], Route] = {}
    endpoints: dict[str, dict[str, tuple[int, str, str]]] = {}
    subflows: dict[str, dict[str, list[str]]] = {}
    limits: dict[tuple[str, str], tuple[str, str, float]] = {}
    ep_ids = {a: (t - TABLE_BASE) + 1 for a, t in addressing.tables.items()}
    for fp in plan.flows:
        fa = addressing.flows[fp.id]
        seg = active_segment(fp, t_s)
        subflows[fp.id] = {}
        if seg is None:
            continue
        for sp in seg.subflows:
            subflows[fp.id][sp.id] = list(sp.nodes)
            limit = getattr(sp, "rate_limit_mbps", None)
            if limit is not None and len(sp.nodes) > 1:
                dev, _ = model.adjacency[(sp.nodes[0], sp.nodes[1])]
                limits[fa.keys[sp.id]] = (sp.nodes[0], dev, float(limit))
            for r in subflow_routes(model, addressing, fp.id, sp.id, sp.nodes):
                key = (r.node, r.table, r.dst)
                other = routes.get(key)
                if other is not None and other != r:
                    raise EngineCannotRun(
                        f"flows ({fp.id}): at t={t_s:g} s node {r.node!r} would need two next hops towards the "
                        "same address in one table; the linux engine cannot route these subflows at once"
                    )
                routes[key] = r
            if fa.mode in ("src", "dst"):
                node, dev = fa.endpoint_dev[sp.id]
                addr = fa.key_addr[sp.id]
                if fa.mode == "dst" and addr == fa.connect_addr:
                    continue  # the initial subflow's address is not signalled
                flag = "subflow" if fa.mode == "src" else "signal"
                endpoints.setdefault(node, {})[addr] = (ep_ids[addr], dev, flag)
    return DesiredState(set(routes.values()), endpoints, subflows, limits)


def boundaries(plan: RunPlan, model: Model) -> list[float]:
    """Times (s) at which routes, endpoints, wireless links, delays (``plan.delay_changes``) or
    capacities (``plan.capacity_changes``) change, ascending, in [0, duration)."""
    ts = {0.0}
    ts.update(c.t_s for c in plan.delay_changes)
    ts.update(c.t_s for c in plan.capacity_changes)
    for fp in plan.flows:
        for seg in fp.segments:
            ts.add(seg.t_start_s)
            ts.add(seg.t_end_s)
    for a in model.associations:
        ts.update((a.t_start_s, a.t_associated_s, a.t_end_s))
    for _, t0, t1 in model.outages:
        ts.update((t0, t1))
    return sorted(t for t in ts if 0.0 <= t < plan.duration_s - 1e-9)


__all__ = [
    "Route", "FlowAddressing", "Addressing", "address_flows", "subflow_routes", "rules",
    "desired_state", "boundaries", "active_segment", "RULE_PRIORITY", "BASE_PORT",
]
