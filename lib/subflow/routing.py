"""Path computation on a snapshot of the topology.

v0 provides minimum-hop routing; ties between equal-hop paths are broken by
smaller total one-way ``delay_ms``, then by the lexicographically smaller
sequence of node ids, so routes are deterministic.

References
----------
.. [1] E. W. Dijkstra, "A note on two problems in connexion with graphs",
   Numerische Mathematik 1, 269–271, 1959.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Edge:
    """A directed hop ``src`` → ``dst`` that uses resource ``resource``.

    ``delay_ms`` is the one-way propagation delay of the hop, ``loss`` its
    packet loss probability in [0, 1).
    """

    src: str
    dst: str
    resource: str
    delay_ms: float
    loss: float = 0.0


@dataclass
class Graph:
    """Directed multigraph snapshot: ``adj[node]`` lists outgoing edges."""

    adj: dict[str, list[Edge]] = field(default_factory=dict)

    def add(self, edge: Edge) -> None:
        self.adj.setdefault(edge.src, []).append(edge)
        self.adj.setdefault(edge.dst, [])

    def copy(self) -> "Graph":
        return Graph({k: list(v) for k, v in self.adj.items()})


def min_hop_path(
    graph: Graph,
    src: str,
    dst: str,
    banned: frozenset[str] = frozenset(),
    metric: str = "hop",
) -> list[Edge] | None:
    """Minimum-hop (or minimum-delay) path from ``src`` to ``dst``.

    With ``metric="hop"`` ties are broken by smaller total ``delay_ms``; with
    ``metric="delay"`` by fewer hops; then by the node-id sequence.

    Parameters
    ----------
    graph : Graph
        Topology snapshot.
    src, dst : str
        Node ids.
    banned : frozenset of str
        Nodes the path must not visit (other than ``src``).
    metric : {"hop", "delay"}
        What to minimise first.

    Returns
    -------
    list of Edge or None
        The hops in order, ``[]`` if ``src == dst``, ``None`` if ``dst`` is not
        reachable.
    """
    if src == dst:
        return []
    # label = (hops, delay_ms, node-id sequence); the sequence makes ties deterministic
    best: dict[str, tuple] = {src: (0, 0.0, (src,))}
    pred: dict[str, list[Edge]] = {src: []}
    heap: list[tuple[int, float, tuple[str, ...], str]] = [(0, 0.0, (src,), src)]
    done: set[str] = set()
    by_delay = metric == "delay"
    if by_delay:
        heap = [(0.0, 0, (src,), src)]  # type: ignore[list-item]
    while heap:
        a, b, seq, node = heapq.heappop(heap)
        hops, delay = (b, a) if by_delay else (a, b)
        if node in done:
            continue
        done.add(node)
        if node == dst:
            return pred[node]
        for e in graph.adj.get(node, ()):
            if e.dst in done or e.dst in banned:
                continue
            nh, nd, nseq = hops + 1, delay + e.delay_ms, seq + (e.dst,)
            label = (nd, nh, nseq) if by_delay else (nh, nd, nseq)
            if e.dst not in best or label < best[e.dst]:
                best[e.dst] = label
                pred[e.dst] = pred[node] + [e]
                heapq.heappush(heap, (*label, e.dst))
    return None


def tcpbp_path(graph: Graph, src: str, dst: str) -> list[Edge] | None:
    """Path minimising TCPBP's d·√p (one-way delay × √composed loss), exactly.

    Uses the label-setting search of :func:`subflow.paths.shortest_path` (Pareto
    labels; the thesis's greedy Dijkstra can miss the optimum because the metric
    is not isotonic). Among paths of equal cost (e.g. all lossless), fewer hops,
    then smaller delay win.

    References
    ----------
    .. [1] TCPBP thesis §3.1, Eq. 2.3 (tcpbp-thesis.txt).
    """
    from subflow.network import Network
    from subflow.paths import shortest_path

    if src == dst:
        return []
    arcs, by_id = [], {}
    for edges in graph.adj.values():
        for i, e in enumerate(edges):
            aid = f"{e.resource}#{e.src}>{e.dst}#{i}"
            by_id[aid] = e
            arcs.append((aid, e.src, e.dst, e.delay_ms, e.loss, 1.0))
    nodes = sorted(graph.adj)
    if src not in graph.adj or dst not in graph.adj:
        return None
    net = Network.from_arcs(nodes, arcs)
    p = shortest_path(net, src, dst, "tcpbp")
    if p is None:
        return None
    return [by_id[net.link[a]] for a in p.arcs]


def path_nodes(path: list[Edge], src: str) -> list[str]:
    """Node ids visited by ``path`` starting at ``src``."""
    return [src] + [e.dst for e in path]
