"""Path policies of the run planner: where a flow's subflows go during one interval of a run.

:func:`subflow.runplan.resolve.resolve_plan` cuts a run into intervals during which
the topology is fixed. An interval's topology is a
:class:`~subflow.planning.network.Network` (the one graph model of the library) whose
arcs are the plan's resources: ``link[a]`` is the resource id — a wired link
direction ``"<link>:<a>><b>"`` or an access point's air ``"air:<ap>"`` —
``delay_ms``/``loss`` are one-way values and ``capacity_mbps`` the resource's
capacity. A *path policy* maps a flow and an :class:`Interval` to the flow's
subflow paths; :data:`PATH_POLICIES` holds one per ``Strategy.paths`` name
(:mod:`subflow.runplan.strategies`). Every route is one call of
:func:`route_arcs`, i.e. of :func:`subflow.planning.shortest_paths.shortest_path`, the
search that also answers the routes API:

============  =============================================================
policy        subflows
============  =============================================================
hop           one ``<flow>/tcp`` on the minimum-hop path (ties: smaller
              one-way delay, then arc order)
delay         one ``<flow>/tcp`` on the minimum one-way-delay path (ties:
              fewer hops, then arc order)
tcpbp         one ``<flow>/tcp`` on the path of least d·√p, exactly
interfaces    one ``<flow>/<neighbour>`` per interface (incident hop) of the
              multi-homed end, each on the minimum-hop path through it
sticky        one SCTP-style primary among the per-interface paths: the
              current one while it exists, else the shortest
fastest /     the per-interface path of highest / lowest bottleneck capacity
slowest
lba /         scMPTCP's load- and bottleneck-aware selection (Table 1), and
lba-adjust    its periodic re-routing (Table 2), over the flows of the
              interval (:mod:`subflow.planning.mptcp_path_selection`)
============  =============================================================

The single-path policies (``hop``, ``delay``, ``tcpbp``) give no path while an
endpoint station is associating with an access point that will change its
route (the old route is abandoned at handover start), so the engine sees the
cut.

References
----------
.. [1] E. W. Dijkstra, "A note on two problems in connexion with graphs",
   Numerische Mathematik 1, 269–271, 1959.
.. [2] L. H. M. Rosa, "TCPBP: TCP Best Path", thesis, §3.1, Eq. 2.3.
.. [3] Z. Jiang et al., "scMPTCP", IEEE Access 6, 2018, Tables 1–2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from subflow.planning.mptcp_path_selection import max_min_fair, mptcp_lba, mptcp_lba_adjust
from subflow.planning.network import Arc, Network
from subflow.planning.shortest_paths import shortest_path
from subflow.runplan.document import SubflowPath



def route_arcs(net: Network, src: str, dst: str, metric: str = "hop", avoid: frozenset[str] = frozenset()
               ) -> list[int] | None:
    """Arc indices of ``net`` on the best route from ``src`` to ``dst`` under ``metric``.

    The run planner's routes come from the same search as the routes API:
    :func:`subflow.planning.shortest_paths.shortest_path` (ties as in its module table: ``hop``
    prefers the smaller one-way delay, ``delay`` fewer hops, ``tcpbp`` the smaller delay, then loss,
    then hops; then the topology's arc order, i.e. the scenario's link order before the air hops).

    Returns
    -------
    list of int or None
        ``[]`` if ``src == dst``, ``None`` if ``dst`` is unreachable without the nodes ``avoid``.

    Raises
    ------
    UnknownNode
        If ``src`` or ``dst`` is not a node of ``net``.
    """
    path = shortest_path(net, src, dst, metric, avoid=avoid)
    return None if path is None else list(path.arcs)


def path_nodes(net: Network, arcs: Sequence[int], src: str) -> list[str]:
    """Node ids visited by the arcs ``arcs`` of ``net`` starting at ``src``."""
    return [src] + [net.nodes[net.dst[a]] for a in arcs]


@dataclass
class Interval:
    """What a path policy sees of one interval of the run (topology fixed).

    ``arcs`` are the interval's arcs (wired link directions that are up, then
    the air hops of the stations associated during the interval);
    ``capacity`` maps resource ids to Mbit/s; ``live_flows`` are the scenario
    flows active during the interval; ``pending`` lists the associations under
    way as ``(station, air arcs the association will add)``. ``cache`` holds
    results shared by the flows of the interval.
    """

    nodes: list[str]
    arcs: list[Arc]
    capacity: dict[str, float]
    live_flows: list[Any]
    pending: list[tuple[str, list[Arc]]] = field(default_factory=list)
    #: end points (hosts and stations not marked relay): no route passes through them
    no_transit: frozenset[str] = frozenset()
    cache: dict[str, Any] = field(default_factory=dict)
    _net: Network | None = field(default=None, repr=False)

    @property
    def net(self) -> Network:
        """The interval's topology (with its forwarding roles)."""
        if self._net is None:
            self._net = Network.from_arcs(self.nodes, self.arcs, no_transit=self.no_transit)
        return self._net

    def net_for(self, flow: Any) -> Network:
        """The topology ``flow``'s routes may use: no transit through end points other than its own."""
        return self.net.restrict_transit(flow.src, flow.dst)[0]

    def with_arcs(self, extra: list[Arc], flow: Any) -> Network:
        """The topology of ``flow`` with ``extra`` arcs added after the others."""
        net = Network.from_arcs(self.nodes, self.arcs + extra, no_transit=self.no_transit)
        return net.restrict_transit(flow.src, flow.dst)[0]


#: ``policy(interval, flow, previous subflows of the flow) -> subflows``
PathPolicy = Callable[[Interval, Any, list[SubflowPath]], list[SubflowPath]]


def _subflow(net: Network, sid: str, src: str, arcs: Sequence[int]) -> SubflowPath:
    return SubflowPath(id=sid, nodes=path_nodes(net, arcs, src), resources=[net.link[a] for a in arcs])


def _best(net: Network, flow: Any, metric: str) -> list[SubflowPath]:
    arcs = route_arcs(net, flow.src, flow.dst, metric)
    return [] if arcs is None else [_subflow(net, f"{flow.id}/tcp", flow.src, arcs)]


def single_path(metric: str) -> PathPolicy:
    """Policy: one subflow ``<flow>/tcp`` on the best path under ``metric`` (``hop``, ``delay``, ``tcpbp``);
    none while an endpoint's association under way would change that path."""

    def policy(iv: Interval, flow: Any, previous: list[SubflowPath]) -> list[SubflowPath]:
        subflows = _best(iv.net_for(flow), flow, metric)
        for station, air in iv.pending:
            if station in (flow.src, flow.dst) and _best(iv.with_arcs(air, flow), flow, metric) != subflows:
                subflows = []  # the old route is abandoned during the handover
        return subflows

    return policy


def per_interface(net: Network, flow_id: str, src: str, dst: str) -> list[SubflowPath]:
    """One subflow ``<flow>/<neighbour>`` per interface (incident hop) of the multi-homed end
    (the source, or the destination if only it has more), each on the minimum-hop path through it."""
    (indptr, adj), (rindptr, radj) = net.csr(), net.reverse_csr()
    s, t = net.node_index(src), net.node_index(dst)
    out_src = adj[indptr[s] : indptr[s + 1]].tolist()
    into_dst = radj[rindptr[t] : rindptr[t + 1]].tolist()
    name, link = net.nodes, net.link
    subflows: list[SubflowPath] = []
    if len(out_src) >= len(into_dst):
        for first in sorted(out_src, key=lambda a: (name[net.dst[a]], link[a])):
            rest = route_arcs(net, name[net.dst[first]], dst, avoid=frozenset({src}))
            if rest is not None:
                subflows.append(_subflow(net, f"{flow_id}/{name[net.dst[first]]}", src, [first] + rest))
    else:
        for last in sorted(into_dst, key=lambda a: (name[net.src[a]], link[a])):
            head = route_arcs(net, src, name[net.src[last]], avoid=frozenset({dst}))
            if head is not None:
                subflows.append(_subflow(net, f"{flow_id}/{name[net.src[last]]}", src, head + [last]))
    return subflows


def _interfaces(iv: Interval, flow: Any, previous: list[SubflowPath]) -> list[SubflowPath]:
    return per_interface(iv.net_for(flow), flow.id, flow.src, flow.dst)


def _bottleneck(sp: SubflowPath, capacity: dict[str, float]) -> float:
    return min((capacity[r] for r in sp.resources), default=float("inf"))


def primary(rule: str) -> PathPolicy:
    """Policy: one SCTP-style primary path among the per-interface paths, chosen by ``rule``
    (``sticky``: the current one while it exists, else the shortest; ``fastest``/``slowest``:
    highest/lowest bottleneck capacity, then fewer hops, then subflow id)."""

    def policy(iv: Interval, flow: Any, previous: list[SubflowPath]) -> list[SubflowPath]:
        candidates = per_interface(iv.net_for(flow), flow.id, flow.src, flow.dst)
        if not candidates:
            return []
        if rule == "sticky":
            for sp in previous:
                if any(c.nodes == sp.nodes for c in candidates):
                    return [sp]
            return [min(candidates, key=lambda c: (len(c.nodes), c.id))]
        if rule == "fastest":
            return [max(candidates, key=lambda c: (_bottleneck(c, iv.capacity), -len(c.nodes), c.id))]
        return [min(candidates, key=lambda c: (_bottleneck(c, iv.capacity), len(c.nodes), c.id))]

    return policy


def lba_routes(iv: Interval, adjust: bool) -> dict[str, list[SubflowPath]]:
    """Subflow routes of ``mptcp-lba`` / ``mptcp-lba-adjust`` for the flows live in one interval.

    Connections are placed one after the other (by start time, then id) with
    :func:`subflow.planning.mptcp_path_selection.mptcp_lba` (scMPTCP Table 1), each
    seeing the load and flow count per link of the subflows placed before it,
    estimated as their max-min fair rates (the allocation of scMPTCP's static
    evaluation, §V). With ``adjust``,
    :func:`subflow.planning.mptcp_path_selection.mptcp_lba_adjust` (Table 2) then
    re-routes subflows that share a bottleneck, longest first. Each direction
    of an access point's air is one link here (the shared air is approximated
    per direction). The selection runs on the interval's topology reduced to
    one arc per node pair (the first; a scenario has at most one link per
    pair), nodes in id order.
    """
    import numpy as np


    full = iv.net
    indptr, adj = full.csr()
    arcs, arc_of = [], {}
    for v in range(full.n):
        for k in range(indptr[v], indptr[v + 1]):
            a = int(adj[k])
            pair = (full.nodes[v], full.nodes[full.dst[a]])
            if pair in arc_of:
                continue
            arc_of[pair] = a
            arcs.append((full.link[a], pair[0], pair[1], float(full.delay_ms[a]), float(full.loss[a]),
                         iv.capacity[full.link[a]]))
    net = Network.from_arcs(sorted(full.nodes), arcs, no_transit=full.no_transit)
    placed: dict[str, list[list[str]]] = {}

    def loads() -> tuple[np.ndarray, np.ndarray]:
        arc_paths = [net.arcs_of_path(p) for paths in placed.values() for p in paths]
        rates = max_min_fair(net.capacity_mbps, arc_paths)
        load, count = np.zeros(net.m), np.zeros(net.m)
        for path, r in zip(arc_paths, rates):
            for a in path:
                load[a] += r
                count[a] += 1
        return load, count

    for f in sorted(iv.live_flows, key=lambda g: (g.start_s, g.id)):
        load, count = loads()
        choice = mptcp_lba(net, f.src, f.dst, load, count)
        placed[f.id] = [list(p.nodes) for p in choice.paths]
    if adjust and placed:
        load, count = loads()
        for change in mptcp_lba_adjust(net, placed, load, count):
            paths = placed[change.connection]
            paths[change.subflow] = [] if change.new_nodes is None else change.new_nodes
    out: dict[str, list[SubflowPath]] = {}
    for fid, paths in placed.items():
        subs = []
        for k, nodes in enumerate(paths):
            if len(nodes) < 2:
                continue
            subs.append(_subflow(full, f"{fid}/sf{k}", nodes[0], [arc_of[(a, b)] for a, b in zip(nodes, nodes[1:])]))
        out[fid] = subs
    return out


def lba(adjust: bool) -> PathPolicy:
    """Policy: the flow's routes from :func:`lba_routes` (computed once per interval)."""
    key = "lba-adjust" if adjust else "lba"

    def policy(iv: Interval, flow: Any, previous: list[SubflowPath]) -> list[SubflowPath]:
        if key not in iv.cache:
            iv.cache[key] = lba_routes(iv, adjust)
        return iv.cache[key].get(flow.id, [])

    return policy


#: ``Strategy.paths`` name → path policy
PATH_POLICIES: dict[str, PathPolicy] = {
    "hop": single_path("hop"),
    "delay": single_path("delay"),
    "tcpbp": single_path("tcpbp"),
    "interfaces": _interfaces,
    "sticky": primary("sticky"),
    "fastest": primary("fastest"),
    "slowest": primary("slowest"),
    "lba": lba(adjust=False),
    "lba-adjust": lba(adjust=True),
}
