"""Routes for the subflows of an MPTCP connection (scMPTCP, Jiang et al. 2018, §III–V).

Four schemes, all on a :class:`~subflow.planning.network.Network` whose arcs carry
``capacity_mbps``; a connection runs between two *host* nodes, and a host's
*interfaces* are its incident links.

* :func:`mptcp_sp` — k shortest paths (Zannettou et al. 2016; scMPTCP §III.A):
  by default one subflow per interface pair (MPTCP full mesh), each on the
  minimum-hop path between the two interfaces; with ``k`` the k shortest
  host-to-host paths (Yen).
* :func:`mptcp_disjoint` — link-disjoint paths by iterative removal (Sandri et
  al. 2015; scMPTCP §III.A): the minimum-hop path, then the links it used
  are removed and the search repeats. The hosts' own access links are never
  removed (every subflow must leave through one).
* :func:`mptcp_lba` — load and bottleneck aware selection (scMPTCP Table 1,
  §IV.C.1): candidate paths are every simple path with at most
  shortest + ``extra_hops`` hops (H = 3); a link's available bandwidth is
  max(C − load, C/(n + 1)) with n its active flows; a path's is the least of
  its links'. Links that are bottlenecks (utilisation ≥ ``bottleneck_util``)
  on the connection's earlier subflows are avoided. The path with the most
  available bandwidth is taken (ties: fewer hops, less delay, enumeration
  order); its own bottleneck links (those attaining its available bandwidth)
  are then removed, the links it crosses get one more flow and its estimated
  bandwidth as load, and the selection repeats until ``max_subflows`` or no
  path is left — so the controller chooses the subflow count.
* :func:`mptcp_lba_adjust` — periodic re-routing of subflows that share a
  bottleneck (scMPTCP Table 2, §IV.C.2): per connection, subflows crossing
  the same bottleneck arc (utilisation ≥ threshold, or loss ≥ threshold) are
  sorted longest first and all but the shortest are re-routed as in
  :func:`mptcp_lba` (avoiding the bottlenecks of the connection's other
  subflows); a subflow without a new route is stopped.

:func:`max_min_fair` gives the max-min fair rates of single-path flows
(progressive filling), used to evaluate a set of subflow routes.

References
----------
.. [1] Z. Jiang, Q. Wu, H. Li, J. Wu, "scMPTCP: SDN Cooperated Multipath
   Transfer for Satellite Network With Load Awareness", IEEE Access 6, 2018,
   §III–V, Tables 1–2, Fig. 5.
.. [2] D. Bertsekas, reduction. Gallager, Data Networks, 2nd ed., §6.5.2 (max-min
   fairness by progressive filling).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from subflow.planning import _kernels as kernels
from subflow.planning.network import Network
from subflow.planning.shortest_paths import Path, k_shortest_paths, search_arcs

__all__ = [
    "Adjustment",
    "LbaChoice",
    "available_bandwidth",
    "enumerate_paths",
    "max_min_fair",
    "mptcp_disjoint",
    "mptcp_lba",
    "mptcp_lba_adjust",
    "mptcp_sp",
]


def _path(net: Network, s: int, arcs: Sequence[int]) -> Path:
    d = float(sum(net.delay_ms[a] for a in arcs))
    q = float(sum(net.q[a] for a in arcs))
    nodes = (net.nodes[s],) + tuple(net.nodes[net.dst[a]] for a in arcs)
    return Path(nodes, tuple(int(a) for a in arcs), len(arcs), d, -math.expm1(-q), float(len(arcs)))


def _access(net: Network, s: int, t: int) -> set[int]:
    """Arcs incident to the two hosts (their interfaces)."""
    return {a for a in range(net.m) if net.src[a] in (s, t) or net.dst[a] in (s, t)}


def mptcp_sp(net: Network, src: str, dst: str, k: int | None = None) -> list[Path]:
    """Subflow routes of ``mptcp-sp``.

    Parameters
    ----------
    net : Network
        Topology.
    src, dst : str
        The two hosts.
    k : int, optional
        ``None``: one subflow per (sender interface, receiver interface) pair,
        each on the minimum-hop path that leaves and enters through them
        (scMPTCP §III.A's example). An integer: Yen's ``k`` shortest
        host-to-host paths by hop count.

    Returns
    -------
    list of Path
        In interface-pair order (arc order), or best first for ``k``.

    Raises
    ------
    UnknownNode
        For an unknown host.
    """
    s, t = net.node_index(src), net.node_index(dst)
    if k is not None:
        return k_shortest_paths(net, src, dst, k, "hop")
    indptr, adj = net.csr()
    rindptr, radj = net.reverse_csr()
    outs = [int(a) for a in adj[indptr[s] : indptr[s + 1]] if net.dst[a] != t]
    ins = [int(a) for a in radj[rindptr[t] : rindptr[t + 1]] if net.src[a] != s]
    direct = [int(a) for a in adj[indptr[s] : indptr[s + 1]] if net.dst[a] == t]
    node_ok = np.ones(net.n, dtype=np.bool_)
    node_ok[s] = node_ok[t] = False
    arc_ok = np.ones(net.m, dtype=np.bool_)
    out: list[Path] = [_path(net, s, [a]) for a in direct]
    for a in outs:
        for b in ins:
            u, w = int(net.dst[a]), int(net.src[b])
            mid = [] if u == w else search_arcs(net, "hop", u, w, node_ok, arc_ok)
            if mid is not None:
                out.append(_path(net, s, [a] + mid + [b]))
    return out


def mptcp_disjoint(net: Network, src: str, dst: str, n_subflows: int | None = None) -> list[Path]:
    """Subflow routes of ``mptcp-disjoint``: link-disjoint by iterative removal.

    Parameters
    ----------
    net : Network
        Topology.
    src, dst : str
        The two hosts.
    n_subflows : int, optional
        Subflows wanted; default the full-mesh count (sender interfaces ×
        receiver interfaces).

    Returns
    -------
    list of Path
        Fewer than asked when no further disjoint path exists.
    """
    s, t = net.node_index(src), net.node_index(dst)
    if n_subflows is None:
        n_subflows = max(1, _n_ifaces(net, s, out=True) * _n_ifaces(net, t, out=False))
    access = _access(net, s, t)
    node_ok = np.ones(net.n, dtype=np.bool_)
    arc_ok = np.ones(net.m, dtype=np.bool_)
    out: list[Path] = []
    for _ in range(n_subflows):
        arcs = search_arcs(net, "hop", s, t, node_ok, arc_ok)
        if arcs is None:
            break
        out.append(_path(net, s, arcs))
        used = {net.link[a] for a in arcs if a not in access}
        if not used:  # a path of access links only (hosts joined directly): nothing to remove, stop
            break
        for a in range(net.m):
            if net.link[a] in used:
                arc_ok[a] = False
    return out


def _n_ifaces(net: Network, v: int, out: bool) -> int:
    arr = net.src if out else net.dst
    return int(np.count_nonzero(arr == v))


def available_bandwidth(capacity_mbps: np.ndarray, load_mbps: np.ndarray, flows: np.ndarray) -> np.ndarray:
    """scMPTCP §IV.C.1.a: available bandwidth = max(C − load, C/(n + 1)) per arc, Mbit/s.

    Examples
    --------
    >>> available_bandwidth(np.array([10.0, 10.0]), np.array([4.0, 9.0]), np.array([1, 3])).tolist()
    [6.0, 2.5]
    """
    return np.maximum(capacity_mbps - load_mbps, capacity_mbps / (flows + 1.0))


def enumerate_paths(net: Network, src: str, dst: str, extra_hops: int = 3, max_paths: int = 100_000) -> list[list[int]]:
    """Every simple path from ``src`` to ``dst`` with at most (least hops + ``extra_hops``) hops.

    Depth-first with a distance-to-target bound; sorted by (hops, delay,
    discovery order). At most ``max_paths`` are returned (the search stops
    there, so with a cap the set is not guaranteed to hold all short paths).

    Raises
    ------
    UnknownNode
        For an unknown node.
    """
    s, t = net.node_index(src), net.node_index(dst)
    rindptr, radj = net.reverse_csr()
    ok_n = np.ones(net.n, dtype=np.bool_)
    ok_a = np.ones(net.m, dtype=np.bool_)
    zeros = np.zeros(net.m)
    dist = kernels.lex_dijkstra(rindptr, radj, net.src, np.ones(net.m), zeros, zeros, zeros, t, ok_n, ok_a, -1)[0]
    if not math.isfinite(dist[s]):
        return []
    limit = int(dist[s]) + extra_hops
    indptr, adj = net.csr()
    found: list[list[int]] = []
    on_path = np.zeros(net.n, dtype=bool)
    on_path[s] = True
    stack: list[int] = []

    def dfs(v: int) -> bool:
        if v == t:
            found.append(list(stack))
            return len(found) >= max_paths
        for k in range(indptr[v], indptr[v + 1]):
            a = int(adj[k])
            w = int(net.dst[a])
            if on_path[w] or len(stack) + 1 + dist[w] > limit:
                continue
            on_path[w] = True
            stack.append(a)
            stop = dfs(w)
            stack.pop()
            on_path[w] = False
            if stop:
                return True
        return False

    dfs(s)
    order = sorted(range(len(found)), key=lambda i: (len(found[i]), sum(net.delay_ms[a] for a in found[i]), i))
    return [found[i] for i in order]


@dataclass
class LbaChoice:
    """Result of :func:`mptcp_lba`: chosen routes (best first) and their estimated
    bandwidth, Mbit/s, when chosen."""

    paths: list[Path]
    bandwidth_mbps: list[float]
    avoided_links: list[str] = field(default_factory=list)


def mptcp_lba(
    net: Network,
    src: str,
    dst: str,
    load_mbps: np.ndarray | None = None,
    flows: np.ndarray | None = None,
    existing: Sequence[Sequence[str]] = (),
    max_subflows: int = 4,
    extra_hops: int = 3,
    bottleneck_util: float = 0.95,
    max_paths: int = 100_000,
) -> LbaChoice:
    """Subflow routes of ``mptcp-lba`` (scMPTCP Table 1; see the module docstring).

    Parameters
    ----------
    net : Network
        Topology with ``capacity_mbps``.
    src, dst : str
        The two hosts.
    load_mbps : ndarray, optional
        Current load per arc, Mbit/s (default 0).
    flows : ndarray, optional
        Active flows per arc (default 0).
    existing : sequence of node-id paths
        Routes of the connection's already established subflows.
    max_subflows : int
        Limit on the connection's subflows (existing ones included).
    extra_hops : int
        H: candidate paths have at most shortest + H hops (paper: 3).
    bottleneck_util : float
        Utilisation from which a link is a bottleneck.
    max_paths : int
        Cap on enumerated candidates.

    Returns
    -------
    LbaChoice

    Raises
    ------
    UnknownNode
        For an unknown host.
    ValueError
        For arrays of the wrong length.
    """
    s = net.node_index(src)
    net.node_index(dst)
    load = np.zeros(net.m) if load_mbps is None else np.asarray(load_mbps, dtype=float).copy()
    nfl = np.zeros(net.m) if flows is None else np.asarray(flows, dtype=float).copy()
    if load.shape != (net.m,) or nfl.shape != (net.m,):
        raise ValueError(f"load_mbps and flows need one value per arc ({net.m})")
    cap = net.capacity_mbps
    util = np.divide(load, cap, out=np.zeros(net.m), where=cap > 0)
    banned: set[str] = set()
    existing_arcs = []
    for nodes in existing:
        arcs = net.arcs_of_path(list(nodes))
        existing_arcs.append(tuple(arcs))
        banned.update(net.link[a] for a in arcs if util[a] >= bottleneck_util)
    # forwarding roles (Network.restrict_transit): candidates avoid transit through end points
    sub, parent = net.restrict_transit(src, dst)
    cands = [[int(parent[a]) for a in p] for p in enumerate_paths(sub, src, dst, extra_hops, max_paths)]
    taken = set(existing_arcs)
    chosen: list[Path] = []
    bws: list[float] = []
    while len(chosen) + len(existing_arcs) < max_subflows:
        avail = available_bandwidth(cap, load, nfl)
        best = None
        best_key = None
        for i, p in enumerate(cands):
            tp = tuple(p)
            if tp in taken or any(net.link[a] in banned for a in p):
                continue
            bw = float(min(avail[a] for a in p))
            key = (-bw, len(p), sum(net.delay_ms[a] for a in p), i)
            if best_key is None or key < best_key:
                best, best_key = p, key
        if best is None:
            break
        bw = -best_key[0]  # type: ignore[index]
        chosen.append(_path(net, s, best))
        bws.append(bw)
        taken.add(tuple(best))
        banned.update(net.link[a] for a in best if avail[a] <= bw * (1 + 1e-9))
        for a in best:
            nfl[a] += 1
            load[a] += bw
    return LbaChoice(chosen, bws, sorted(banned))


@dataclass
class Adjustment:
    """A re-routed subflow: ``new_nodes`` None means the subflow is to be stopped."""

    connection: str
    subflow: int
    old_nodes: list[str]
    new_nodes: list[str] | None
    bottleneck_link: str


def mptcp_lba_adjust(
    net: Network,
    connections: Mapping[str, Sequence[Sequence[str]]],
    load_mbps: np.ndarray,
    flows: np.ndarray | None = None,
    loss: np.ndarray | None = None,
    bottleneck_util: float = 0.95,
    loss_threshold: float | None = None,
    extra_hops: int = 3,
) -> list[Adjustment]:
    """Re-route subflows that share a bottleneck (scMPTCP Table 2).

    Parameters
    ----------
    net : Network
        Topology.
    connections : mapping of str to list of node-id paths
        Every connection's current subflow routes.
    load_mbps, flows : ndarray
        Load (Mbit/s) and active flow count per arc.
    loss : ndarray, optional
        Measured loss per arc; with ``loss_threshold`` an arc at or above it
        is a bottleneck too (Table 2 line 2: "loss rate and utilization").
    bottleneck_util : float
        Utilisation from which an arc is a bottleneck.
    extra_hops : int
        H of the re-routing (as :func:`mptcp_lba`).

    Returns
    -------
    list of Adjustment
        In processing order; apply them to the connections in that order.
    """
    load = np.asarray(load_mbps, dtype=float)
    nfl = np.zeros(net.m) if flows is None else np.asarray(flows, dtype=float)
    cap = net.capacity_mbps
    util = np.divide(load, cap, out=np.zeros(net.m), where=cap > 0)
    bottleneck = util >= bottleneck_util
    if loss is not None and loss_threshold is not None:
        bottleneck |= np.asarray(loss) >= loss_threshold
    out: list[Adjustment] = []
    for cid, subflows in connections.items():
        current = [list(p) for p in subflows]
        arcs = [net.arcs_of_path(p) for p in current]
        groups: dict[int, list[int]] = {}
        for i, path in enumerate(arcs):
            for a in path:
                if bottleneck[a]:
                    groups.setdefault(a, []).append(i)
        moved: set[int] = set()
        for a, members in groups.items():
            members = [i for i in members if i not in moved and current[i] is not None]
            if len(members) < 2:
                continue
            members.sort(key=lambda i: -len(arcs[i]))  # longest first; the last (shortest) stays
            for i in members[:-1]:
                others = [current[j] for j in range(len(current)) if j != i and current[j] is not None]
                choice = mptcp_lba(
                    net, current[i][0], current[i][-1], load, nfl, existing=others,
                    max_subflows=len(others) + 1, extra_hops=extra_hops, bottleneck_util=bottleneck_util,
                )
                new = list(choice.paths[0].nodes) if choice.paths else None
                out.append(Adjustment(cid, i, current[i], new, net.link[a]))
                moved.add(i)
                current[i] = new  # type: ignore[call-overload]
                arcs[i] = net.arcs_of_path(new) if new else []
    return out


def max_min_fair(capacity_mbps: np.ndarray, paths: Sequence[Sequence[int]]) -> np.ndarray:
    """Max-min fair rates of single-path flows by progressive filling, Mbit/s.

    Parameters
    ----------
    capacity_mbps : ndarray
        Capacity per arc.
    paths : sequence of arc-index lists
        One per flow (a subflow); an empty path gets rate 0.

    Returns
    -------
    ndarray
        Rate per flow.

    Examples
    --------
    >>> max_min_fair(np.array([10.0, 4.0]), [[0], [0, 1], [1]]).tolist()
    [8.0, 2.0, 2.0]
    """
    P = len(paths)
    rate = np.zeros(P)
    if P == 0:
        return rate
    residual = np.asarray(capacity_mbps, dtype=float).copy()
    active = np.array([len(p) > 0 for p in paths])
    inc = np.zeros((P, residual.shape[0]))
    for i, p in enumerate(paths):
        for a in p:
            inc[i, a] += 1.0
    while active.any():
        users = active.astype(float) @ inc
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(users > 0, residual / users, np.inf)
        step = float(share.min())
        if not math.isfinite(step):
            break
        rate[active] += step
        residual -= step * users
        full = (users > 0) & (residual <= 1e-9 * np.maximum(1.0, capacity_mbps))
        frozen = (inc[:, full].sum(axis=1) > 0) & active
        active &= ~frozen
        residual[full] = 0.0
    return rate
