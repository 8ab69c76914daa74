"""Routes under the hop, delay, loss and TCPBP metrics; k loopless shortest paths.

Metrics (``metric`` argument everywhere):

========  ==========================================  =======================  ==================================
metric    path cost (``cost`` field)                  unit                     ties broken by
========  ==========================================  =======================  ==================================
hop       number of hops                              hops                     smaller one-way delay, then first found
delay     Σ one-way ``delay_ms``                      ms                       fewer hops, then first found
loss      1 − Π(1 − p) (one-way composed loss)        probability              fewer hops, then first found
tcpbp     f = d·√p, d = Σ delay_ms, p composed loss   ms (d in ms)             smaller d, then smaller p, fewer hops
tcpbp-    the route of the thesis's Algorithm 1,      ms                       smaller d, then first found
greedy    cost f of that route
========  ==========================================  =======================  ==================================

"First found" means the arc order of the :class:`~subflow.planning.network.Network`
(scenario ``links`` order), so every result is deterministic. In the all-pairs
TCPBP search, costs equal within a relative 1e-12 (the same numbers summed in
another order) count as ties.

TCPBP is not isotonic
---------------------
The thesis (§3.2.1) argues that f(d, p) = d·√p is isotonic, so that a
Dijkstra search keeping one label per node is optimal (§3.3.1, Algorithm 1).
It is not. At some node, label B = (d = 0.01 s, p = 0.5) has f ≈ 0.0071 and
beats label A = (d = 1 s, p = 1e−4) with f = 0.01; append the same hop
(d = 1 s, p = 0) to both and A becomes (2 s, 1e−4) with f = 0.02 while B
becomes (1.01 s, 0.5) with f ≈ 0.71 — the order flips, so a node that keeps
only its best label can lose the optimum downstream (see
:func:`isotonicity_counterexample`). ``tcpbp`` is therefore solved exactly by a
*label-setting* search that keeps, per node, every Pareto-optimal pair (d, q)
with q = −ln(1 − p) = Σ −ln(1 − p_i) (both additive); f is non-decreasing in d
and in p, so the optimum is a Pareto-optimal label (Martins 1984; the
"g2_min" dominance test of Hernández et al. 2020 makes each check O(1)).
``tcpbp-greedy`` is Algorithm 1 as published, kept for comparison;
:func:`compute_routes` reports the pairs where it misses the optimum.

All pairs
---------
:func:`all_pairs` runs one compiled search per source (parallel threads for
large jobs). For ``tcpbp`` it first contracts the graph: leaves and chains of
degree-2 nodes are forced detours, so the label search runs on the remaining
*core* (plus one composite arc per chain direction) from every core node once,
and every route — including those from and to non-core nodes — is read off
those Pareto fronts (``subflow.planning._reduction`` explains why this is exact).

k shortest paths
----------------
:func:`k_shortest_paths` is Yen's algorithm (Yen 1971; thesis §2.4.3, §3.5.2).
For ``tcpbp`` each spur search is the exact label-setting search *seeded with
the root path's (d, q)*, so the k paths are exact k best simple paths under f
(the spur minimises f of the whole path, not of the spur alone).

References
----------
.. [1] L. H. M. Rosa, "TCPBP: TCP Best Path", thesis, Ch. 2–4 (Eq. 2.3,
   Algorithm 1, §3.4–§3.5, Tables 2 and 4).
.. [2] J. Y. Yen, "Finding the K shortest loopless paths in a network",
   Management Science 17(11), 712–716, 1971.
.. [3] E. Q. V. Martins, "On a multicriteria shortest path problem",
   European Journal of Operational Research 16(2), 236–245, 1984.
.. [4] C. Hernández, W. Yeoh, J. Baier et al., "A Simple and Fast Bi-Objective
   Search Algorithm", ICAPS 2020 (BOA*).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, get_args

import numpy as np
from pydantic import BaseModel, Field

from subflow.errors import UnknownNode  # noqa: F401 - raised by Network.node_index, documented here
from subflow.planning import _kernels as kernels, _reduction as reduction
from subflow.planning.network import Network, RoutingMetric

#: the routing metrics (``metric`` argument everywhere; see the module table)
ROUTING_METRICS: tuple[str, ...] = get_args(RoutingMetric)
COST_UNITS = {"hop": "hops", "delay": "ms", "loss": "probability", "tcpbp": "ms", "tcpbp-greedy": "ms"}
_REL_TOL = 1e-9


def isotonicity_counterexample() -> dict[str, tuple[float, float]]:
    """f = d·√p (d in s) of the two labels of the module docstring, before and
    after appending the hop (d = 1 s, p = 0).

    Examples
    --------
    >>> r = isotonicity_counterexample()
    >>> r["B"][0] < r["A"][0] and r["A"][1] < r["B"][1]
    True
    """
    a, b = (1.0, 1e-4), (0.01, 0.5)

    def f(d: float, p: float) -> float:
        return d * math.sqrt(p)

    return {"A": (f(*a), f(a[0] + 1.0, a[1])), "B": (f(*b), f(b[0] + 1.0, b[1]))}


def _check_metric(metric: str) -> None:
    if metric not in ROUTING_METRICS:
        raise ValueError(f"unknown metric {metric!r}; known: {', '.join(ROUTING_METRICS)}")


@dataclass(frozen=True)
class Path:
    """A route: node ids, arc indices and its totals.

    ``delay_ms`` is the one-way delay, ``loss`` the composed one-way loss
    1 − Π(1 − p_i) and ``cost`` the metric's cost (see the module table).
    """

    nodes: tuple[str, ...]
    arcs: tuple[int, ...]
    hops: int
    delay_ms: float
    loss: float
    cost: float


def compose_loss(losses: Sequence[float]) -> float:
    """Loss of a path whose hops lose independently: 1 − Π(1 − p_i).

    Examples
    --------
    >>> round(compose_loss([0.1, 0.1]), 4)
    0.19
    """
    survive = 1.0
    for p in losses:
        if not 0.0 <= p < 1.0:
            raise ValueError(f"loss {p!r} outside [0, 1)")
        survive *= 1.0 - p
    return 1.0 - survive


def tcpbp_cost(delay_ms: float, loss: float) -> float:
    """TCPBP path cost f(d, p) = d·√p (thesis §3.1), in ms.

    Parameters
    ----------
    delay_ms : float
        One-way path delay, ms.
    loss : float
        Composed one-way loss in [0, 1).

    Examples
    --------
    >>> round(tcpbp_cost(13.3, 0.0068876), 4)   # route 1⇒3⇒4⇒10 of thesis Table 4
    1.1038
    """
    if delay_ms < 0 or not 0.0 <= loss < 1.0:
        raise ValueError("delay_ms must be >= 0 and loss in [0, 1)")
    return delay_ms * math.sqrt(loss)


def metric_cost(metric: str, hops: int, delay_ms: float, q: float) -> float:
    """Cost of a path under ``metric`` from its totals.

    Parameters
    ----------
    metric : str
        One of :data:`ROUTING_METRICS`.
    hops : int
        Number of hops.
    delay_ms : float
        One-way delay, ms.
    q : float
        Σ −ln(1 − p_i) over the hops (composed loss is 1 − e^(−q)).

    Returns
    -------
    float
        See the module table; ``tcpbp`` is d·√p with d in ms.

    Examples
    --------
    >>> metric_cost("tcpbp", 2, 9.0, -math.log(0.9819 * 0.9961))  # 1→5→10 of the thesis
    1.3327...
    """
    if metric == "hop":
        return float(hops)
    if metric == "delay":
        return float(delay_ms)
    p = -math.expm1(-q)
    if metric == "loss":
        return p
    return float(kernels.tcpbp_f(delay_ms, q))


def _rank_key(metric: str, hops: int, d: float, q: float) -> tuple:
    if metric == "hop":
        return (hops, d)
    if metric == "delay":
        return (d, hops)
    if metric == "loss":
        return (q, hops)
    return (kernels.tcpbp_f(d, q), d, q, hops)


def _make_path(net: Network, metric: str, s: int, arcs: Sequence[int]) -> Path:
    arcs = tuple(int(a) for a in arcs)
    d = float(sum(net.delay_ms[a] for a in arcs))
    qa = net.q
    q = float(sum(qa[a] for a in arcs))
    nodes = (net.nodes[s],) + tuple(net.nodes[net.dst[a]] for a in arcs)
    return Path(nodes, arcs, len(arcs), d, -math.expm1(-q), metric_cost(metric, len(arcs), d, q))


def _weights(net: Network, metric: str) -> tuple[np.ndarray, np.ndarray]:
    ones = np.ones(net.m)
    if metric == "hop":
        return ones, net.delay_ms
    if metric == "delay":
        return net.delay_ms, ones
    if metric == "loss":
        return net.q, ones
    raise ValueError(metric)


# --------------------------------------------------------------------------- single pair


def search_arcs(
    net: Network,
    metric: str,
    s: int,
    t: int,
    node_ok: np.ndarray,
    arc_ok: np.ndarray,
    root_d: float = 0.0,
    root_q: float = 0.0,
    root_h: int = 0,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[int] | None:
    """Best path ``s`` → ``t`` under ``metric`` as a list of arc indices, or ``None`` if unreachable.

    The one route search of the library, on node and arc indices: :func:`shortest_path`,
    :func:`k_shortest_paths` (each spur, whose root path already has totals ``root_d`` ms,
    ``root_q`` = Σ −ln(1 − p) and ``root_h`` hops) and the MPTCP path selection
    (:mod:`subflow.planning.mptcp_path_selection`) call it. Nodes with ``node_ok[v] == False`` and
    arcs with ``arc_ok[a] == False`` are not used; ties as in the module table (then arc order).
    ``bounds`` are the least delay and least q to ``t`` from every node (``tcpbp`` only; computed
    when not given).
    """
    indptr, adj = net.csr()
    if metric == "tcpbp":
        lbd, lbq = bounds if bounds is not None else _lower_bounds(net, t)
        _, _, LI, _, best, _ = kernels.bicrit_search(
            indptr, adj, net.dst, net.delay_ms, net.q, s, root_d, root_q, root_h, node_ok, arc_ok, t, lbd, lbq
        )
        lab = best[t]
        if lab < 0:
            return None
        return kernels.label_path(LI[:, 1], LI[:, 2], lab).tolist()
    if metric == "tcpbp-greedy":
        _, _, _, pred, _ = kernels.greedy(indptr, adj, net.dst, net.delay_ms, net.q, s, root_d, root_q, node_ok, arc_ok, t)
    else:
        w1, w2 = _weights(net, metric)
        pred = kernels.lex_dijkstra(indptr, adj, net.dst, w1, w2, net.delay_ms, net.q, s, node_ok, arc_ok, t)[2]
    if s != t and pred[t] < 0:
        return None
    return kernels.tree_path(pred, net.src, s, t).tolist()


def _lower_bounds(net: Network, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Least d and least q from every node to ``t`` (each on its own)."""
    rindptr, radj = net.reverse_csr()
    ok_n = np.ones(net.n, dtype=np.bool_)
    ok_a = np.ones(net.m, dtype=np.bool_)
    zeros = np.zeros(net.m)
    lbd = kernels.lex_dijkstra(rindptr, radj, net.src, net.delay_ms, zeros, zeros, zeros, t, ok_n, ok_a, -1)[0]
    lbq = kernels.lex_dijkstra(rindptr, radj, net.src, net.q, zeros, zeros, zeros, t, ok_n, ok_a, -1)[0]
    return lbd, lbq


def shortest_path(net: Network, src: str, dst: str, metric: str = "tcpbp", *, avoid: Iterable[str] = ()) -> Path | None:
    """Best route from ``src`` to ``dst`` under ``metric``.

    Parameters
    ----------
    net : Network
        Topology.
    src, dst : str
        Node ids.
    metric : str
        One of :data:`ROUTING_METRICS`.
    avoid : iterable of str, optional
        Nodes the route may not visit (ids not in ``net`` are ignored; ``src`` and ``dst`` are
        always allowed). The run planner's per-interface policy routes around an end this way.

    Returns
    -------
    Path or None
        ``None`` if ``dst`` is unreachable; a zero-hop path if ``src == dst``. Ties as in the
        module table. This one function routes the API's requests and every run's subflows
        (:mod:`subflow.runplan.path_policies`).

    Raises
    ------
    UnknownNode
        If ``src`` or ``dst`` is not in ``net``.
    ValueError
        For an unknown metric.

    Examples
    --------
    >>> net = Network.from_links(["a", "b", "c"], [("ab", "a", "b", 1.0, 0.01, 10),
    ...                                            ("bc", "b", "c", 1.0, 0.01, 10),
    ...                                            ("ac", "a", "c", 5.0, 0.0001, 10)])
    >>> shortest_path(net, "a", "c", "delay").nodes
    ('a', 'b', 'c')
    >>> shortest_path(net, "a", "c", "tcpbp").nodes   # 5·√1e-4 = 0.05 < 2·√0.0199 = 0.28
    ('a', 'c')
    """
    avoid = frozenset(avoid) - {src, dst}
    if not avoid:
        paths = k_shortest_paths(net, src, dst, 1, metric)
        return paths[0] if paths else None
    if net.no_transit:  # forwarding roles: search the restricted topology, report arcs of ``net``
        sub, parent = net.restrict_transit(src, dst)
        p = shortest_path(sub, src, dst, metric, avoid=avoid)
        return None if p is None else Path(p.nodes, tuple(int(parent[a]) for a in p.arcs), p.hops, p.delay_ms,
                                           p.loss, p.cost)
    _check_metric(metric)
    s, t = net.node_index(src), net.node_index(dst)
    if s == t:
        return _make_path(net, metric, s, [])
    node_ok = np.ones(net.n, dtype=np.bool_)
    for v in avoid:
        if v in net.index:
            node_ok[net.index[v]] = False
    bounds = _lower_bounds(net, t) if metric == "tcpbp" else None
    arcs = search_arcs(net, metric, s, t, node_ok, np.ones(net.m, dtype=np.bool_), bounds=bounds)
    return None if arcs is None else _make_path(net, metric, s, arcs)


def k_shortest_paths(net: Network, src: str, dst: str, k: int, metric: str = "tcpbp") -> list[Path]:
    """Yen's k loopless shortest paths from ``src`` to ``dst``, best first.

    Exact for every metric except ``tcpbp-greedy``, whose spur searches are
    the thesis's Algorithm 1 (as §3.5.2 proposes: "Yen's algorithm based on
    the modified Dijkstra").

    Parameters
    ----------
    net : Network
        Topology.
    src, dst : str
        Node ids.
    k : int
        Number of paths wanted (``>= 1``); fewer are returned if fewer exist.
    metric : str
        One of :data:`ROUTING_METRICS`.

    Returns
    -------
    list of Path
        Best first, ties as in the module table; empty if unreachable.

    Raises
    ------
    UnknownNode
        If ``src`` or ``dst`` is not in ``net``.
    ValueError
        For an unknown metric or ``k < 1``.

    References
    ----------
    .. [1] J. Y. Yen, Management Science 17(11), 1971; thesis §2.4.3.
    """
    if net.no_transit:  # forwarding roles: search the restricted topology, report arcs of ``net``
        sub, parent = net.restrict_transit(src, dst)
        return [Path(p.nodes, tuple(int(parent[a]) for a in p.arcs), p.hops, p.delay_ms, p.loss, p.cost)
                for p in k_shortest_paths(sub, src, dst, k, metric)]
    _check_metric(metric)
    if k < 1:
        raise ValueError("k must be >= 1")
    s, t = net.node_index(src), net.node_index(dst)
    if s == t:
        return [_make_path(net, metric, s, [])]
    node_ok = np.ones(net.n, dtype=np.bool_)
    arc_ok = np.ones(net.m, dtype=np.bool_)
    bounds = _lower_bounds(net, t) if metric == "tcpbp" else None
    first = search_arcs(net, metric, s, t, node_ok, arc_ok, bounds=bounds)
    if first is None:
        return []
    qa = net.q
    found: list[tuple[int, ...]] = [tuple(first)]
    seen = {tuple(first)}
    cands: list[tuple[tuple, int, tuple[int, ...]]] = []
    counter = 0
    while len(found) < k:
        prev = found[-1]
        prev_nodes = [s] + [int(net.dst[a]) for a in prev]
        root_d = root_q = 0.0
        for i in range(len(prev)):
            root = prev[:i]
            spur = prev_nodes[i]
            node_ok[:] = True
            arc_ok[:] = True
            for v in prev_nodes[:i]:
                node_ok[v] = False
            for p in found:
                if len(p) > i and p[:i] == root:
                    arc_ok[p[i]] = False
            tail = search_arcs(net, metric, spur, t, node_ok, arc_ok, root_d, root_q, i, bounds)
            if tail is not None:
                total = root + tuple(tail)
                if total not in seen:
                    seen.add(total)
                    d = float(sum(net.delay_ms[a] for a in total))
                    q = float(sum(qa[a] for a in total))
                    heapq.heappush(cands, (_rank_key(metric, len(total), d, q), counter, total))
                    counter += 1
            root_d += float(net.delay_ms[prev[i]])
            root_q += float(qa[prev[i]])
        if not cands:
            break
        found.append(heapq.heappop(cands)[2])
    return [_make_path(net, metric, s, p) for p in found]


# --------------------------------------------------------------------------- all pairs


@dataclass
class AllPairs:
    """Best routes from each of ``sources`` to every node (see :func:`all_pairs`).

    Matrices are indexed ``[i, t]`` with ``i`` the position of the source in
    ``sources`` and ``t`` a node index: ``cost`` (inf when unreachable),
    ``delay_ms``, ``loss`` and ``hops`` (-1 when unreachable).
    """

    net: Network
    metric: str
    sources: np.ndarray
    cost: np.ndarray
    delay_ms: np.ndarray
    loss: np.ndarray
    hops: np.ndarray
    _pred: np.ndarray | None = None
    _reduced: reduction.ReducedAllPairs | None = None

    def arcs(self, i: int, t: int) -> list[int] | None:
        """Arc indices of the route from ``sources[i]`` to node ``t`` (None: unreachable)."""
        if self.hops[i, t] < 0:
            return None
        if self._reduced is not None:
            return self._reduced.arcs(i, t)
        assert self._pred is not None
        return kernels.tree_path(self._pred[i], self.net.src, int(self.sources[i]), int(t)).tolist()

    def flat_routes(self) -> tuple[np.ndarray, np.ndarray]:
        """Every route at once: route (i, t) is the arcs
        ``flat[offsets[i, t] : offsets[i, t] + hops[i, t]]`` (compiled; for bulk output)."""
        if self._reduced is not None:
            return reduction.expand_routes(self._reduced)
        assert self._pred is not None
        lengths = np.maximum(self.hops, 0).astype(np.int64).ravel()
        offsets = np.zeros(lengths.shape, dtype=np.int64)
        if lengths.size > 1:
            np.cumsum(lengths[:-1], out=offsets[1:])
        out = np.empty(int(lengths.sum()), dtype=np.int64)
        kernels.expand_pred(self._pred, self.hops, self.sources, self.net.src, offsets.reshape(self.hops.shape), out)
        return offsets.reshape(self.hops.shape), out

    def path(self, i: int, t: int) -> Path | None:
        """The route from ``sources[i]`` to node ``t`` as a :class:`Path`."""
        arcs = self.arcs(i, t)
        if arcs is None:
            return None
        return Path(
            (self.net.nodes[int(self.sources[i])],) + tuple(self.net.nodes[self.net.dst[a]] for a in arcs),
            tuple(arcs),
            int(self.hops[i, t]),
            float(self.delay_ms[i, t]),
            float(self.loss[i, t]),
            float(self.cost[i, t]),
        )


def all_pairs(
    net: Network, metric: str = "tcpbp", sources: Iterable[str] | None = None, keep_routes: bool = True
) -> AllPairs:
    """Best route from every source (default: every node) to every node.

    One compiled search per source: lexicographic Dijkstra for the additive
    metrics, the Pareto label-setting search for ``tcpbp`` (routes kept as a
    compact label tree per source), Algorithm 1 for ``tcpbp-greedy``.

    Parameters
    ----------
    net : Network
        Topology.
    metric : str
        One of :data:`ROUTING_METRICS`.
    sources : iterable of str, optional
        Source node ids; default all nodes in order.
    keep_routes : bool
        ``False`` keeps only the cost, delay, loss and hop matrices (less
        memory on large graphs; :meth:`AllPairs.arcs` then raises
        ``LookupError`` for ``tcpbp``).

    Returns
    -------
    AllPairs

    Raises
    ------
    UnknownNode
        If a source is unknown.
    """
    _check_metric(metric)
    src_idx = np.array(
        [net.node_index(s) for s in sources] if sources is not None else range(net.n), dtype=np.int64
    )
    indptr, adj = net.csr()
    if metric == "tcpbp":
        red = net.cache.get("reduction")
        if red is None:
            red = net.cache["reduction"] = reduction.build_reduction(net.n, net.src, net.dst, net.delay_ms, net.q)
        res = reduction.run_all_pairs(red, src_idx, net.n, net.delay_ms, net.q, keep_routes)
        return AllPairs(net, metric, src_idx, res.F, res.D, res.L, res.H, _reduced=res)
    if metric == "tcpbp-greedy":
        F, D, Q, H, P = kernels.greedy_all_pairs(indptr, adj, net.dst, net.delay_ms, net.q, src_idx)
        return AllPairs(net, metric, src_idx, F, D, -np.expm1(-Q), H, _pred=P)
    w1, w2 = _weights(net, metric)
    C1, D, Q, H, P = kernels.lex_all_pairs(indptr, adj, net.dst, w1, w2, net.delay_ms, net.q, src_idx)
    loss = -np.expm1(-Q)
    cost = loss if metric == "loss" else C1
    return AllPairs(net, metric, src_idx, cost, D, loss, H, _pred=P)


# --------------------------------------------------------------------------- route reports


class PathOut(BaseModel):
    """One route of a :class:`PairRoutes` (units: ``delay_ms`` ms one-way,
    ``loss`` composed one-way probability, ``cost`` per the metric)."""

    nodes: list[str]
    hops: int
    delay_ms: float
    loss: float
    cost: float


class PairRoutes(BaseModel):
    """Routes from ``src`` to ``dst``, best first; ``reachable`` false and
    ``paths`` empty when no path exists."""

    src: str
    dst: str
    reachable: bool
    paths: list[PathOut]


class GreedyDiff(BaseModel):
    """A pair where the thesis's Algorithm 1 (``tcpbp-greedy``) misses the
    exact TCPBP optimum: both routes and their costs f (ms)."""

    src: str
    dst: str
    exact_cost: float
    greedy_cost: float
    exact_nodes: list[str]
    greedy_nodes: list[str]


class LinkUse(BaseModel):
    """How many of the pairs' best routes cross one link (either direction)."""

    link: str
    routes: int


class Routes(BaseModel):
    """Output of :func:`compute_routes` (the ``routes --json`` document).

    A summary (``summary_limit`` of :func:`route_report`) keeps in ``routes`` only
    the costliest reachable pairs and the unreachable ones (``truncated`` true)
    and adds ``link_use``, counted over every pair's best route.
    """

    metric: str
    cost_unit: str
    routes: list[PairRoutes]
    greedy_differs: list[GreedyDiff]
    pairs_total: int | None = Field(default=None, description="Node pairs asked for.")
    pairs_reachable: int | None = Field(default=None, description="Of them, pairs with a route.")
    truncated: bool = Field(default=False, description="``routes`` holds only part of the pairs (a summary).")
    link_use: list[LinkUse] | None = Field(default=None, description="Best routes crossing each link, in the "
                                                                      "scenario's link order (summary only).")


def parse_pairs(spec: str | None, net: Network) -> list[tuple[str, str]] | None:
    """Parse ``"all"`` (→ ``None``) or ``"A:B,C:D"``.

    Raises
    ------
    ValueError
        For a malformed item.
    UnknownNode
        For an unknown node id.
    """
    if spec is None or spec.strip() == "all":
        return None
    pairs = []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        a, sep, b = item.partition(":")
        if not sep or not a or not b:
            raise ValueError(f"bad pair {item!r}; expected SRC:DST")
        net.node_index(a)
        net.node_index(b)
        pairs.append((a, b))
    return pairs


#: Progress callback of :func:`route_report`: ``(done, total)`` node pairs.
ProgressCallback = Callable[[int, int], None]


@dataclass
class _Batch:
    """Best routes (k = 1) of some pairs, as arrays: per pair j ``hops``, ``cost``, ``delay``, ``loss``
    and its arcs ``flat[offs[j] : offs[j] + hops[j]]``."""

    src_i: np.ndarray
    dst_i: np.ndarray
    hops: np.ndarray
    cost: np.ndarray
    delay: np.ndarray
    loss: np.ndarray
    offs: np.ndarray
    flat: np.ndarray

    def route(self, net: Network, j: int) -> dict:
        names = net.nodes
        s, t, h = int(self.src_i[j]), int(self.dst_i[j]), int(self.hops[j])
        if h < 0:
            return {"src": names[s], "dst": names[t], "reachable": False, "paths": []}
        o = int(self.offs[j])
        nodes = [names[s]] + [names[int(net.dst[a])] for a in self.flat[o : o + h]]
        return {"src": names[s], "dst": names[t], "reachable": True,
                "paths": [{"nodes": nodes, "hops": h, "delay_ms": float(self.delay[j]), "loss": float(self.loss[j]),
                           "cost": float(self.cost[j])}]}

    def arc_counts(self, m: int) -> np.ndarray:
        """How many of the routes cross each of the ``m`` arcs."""
        lens = np.maximum(self.hops, 0).astype(np.int64)
        total = int(lens.sum())
        if total == 0:
            return np.zeros(m, dtype=np.int64)
        ends = np.cumsum(lens)
        pos = np.repeat(self.offs.astype(np.int64) - (ends - lens), lens) + np.arange(total, dtype=np.int64)
        return np.bincount(self.flat[pos], minlength=m)


def _batch_of_sources(net: Network, metric: str, src_i: np.ndarray, dst_i: np.ndarray,
                      sources: list[int]) -> tuple[_Batch, AllPairs]:
    """Best routes (k = 1) of the pairs ``(src_i[j], dst_i[j])`` whose sources are ``sources``."""
    pos = np.full(net.n, -1, dtype=np.int64)
    pos[sources] = np.arange(len(sources))
    rows = pos[src_i] if len(src_i) else np.zeros(0, dtype=np.int64)
    ap = all_pairs(net, metric, [net.nodes[s] for s in sources])
    offsets, flat = ap.flat_routes()
    return _Batch(src_i, dst_i, ap.hops[rows, dst_i], ap.cost[rows, dst_i], ap.delay_ms[rows, dst_i],
                  ap.loss[rows, dst_i], offsets[rows, dst_i], flat), ap


def _routes_of_sources(net: Network, metric: str, src_i: np.ndarray, dst_i: np.ndarray,
                       sources: list[int]) -> tuple[list[dict], list[tuple[int, dict]], AllPairs]:
    """Best routes (k = 1) of the pairs ``(src_i[j], dst_i[j])`` whose sources are ``sources``, and
    the greedy-vs-exact differences ``(j, diff)`` among them."""
    names = np.array(net.nodes, dtype=object)
    pos = np.full(net.n, -1, dtype=np.int64)
    pos[sources] = np.arange(len(sources))
    src_names = [net.nodes[s] for s in sources]
    rows = pos[src_i] if len(src_i) else np.zeros(0, dtype=np.int64)
    ap = all_pairs(net, metric, src_names)
    offsets, flat = ap.flat_routes()
    hops, cost = ap.hops[rows, dst_i], ap.cost[rows, dst_i]
    delay, loss, offs = ap.delay_ms[rows, dst_i], ap.loss[rows, dst_i], offsets[rows, dst_i]
    routes: list[dict] = []
    for j in range(len(src_i)):
        s, t, h = int(src_i[j]), int(dst_i[j]), int(hops[j])
        if h < 0:
            routes.append({"src": names[s], "dst": names[t], "reachable": False, "paths": []})
            continue
        o = int(offs[j])
        nodes = [names[s]] + names[net.dst[flat[o : o + h]]].tolist()
        routes.append({
            "src": names[s], "dst": names[t], "reachable": True,
            "paths": [{"nodes": nodes, "hops": h, "delay_ms": float(delay[j]), "loss": float(loss[j]),
                       "cost": float(cost[j])}],
        })
    return routes, _greedy_differs(net, metric, src_i, dst_i, sources, ap), ap


def _greedy_differs(net: Network, metric: str, src_i: np.ndarray, dst_i: np.ndarray, sources: list[int],
                    ap: AllPairs | None) -> list[tuple[int, dict]]:
    """``(j, diff)`` for the pairs j whose Algorithm 1 route costs more than the exact TCPBP optimum."""
    if metric not in ("tcpbp", "tcpbp-greedy") or not sources:
        return []
    pos = np.full(net.n, -1, dtype=np.int64)
    pos[sources] = np.arange(len(sources))
    src_names = [net.nodes[s] for s in sources]
    rows = pos[src_i] if len(src_i) else np.zeros(0, dtype=np.int64)
    exact = ap if (ap is not None and metric == "tcpbp") else all_pairs(net, "tcpbp", src_names)
    greedy = ap if (ap is not None and metric == "tcpbp-greedy") else all_pairs(net, "tcpbp-greedy", src_names)
    ec = exact.cost[rows, dst_i]
    gc = greedy.cost[rows, dst_i]
    reach = exact.hops[rows, dst_i] >= 0
    worse = np.nonzero(reach & (gc > ec * (1 + _REL_TOL) + 1e-300))[0]
    out = []
    for j in worse.tolist():
        r, t = int(rows[j]), int(dst_i[j])
        e, g = exact.path(r, t), greedy.path(r, t)
        out.append((j, {
            "src": net.nodes[int(src_i[j])], "dst": net.nodes[t], "exact_cost": e.cost, "greedy_cost": g.cost,
            "exact_nodes": list(e.nodes), "greedy_nodes": list(g.nodes),
        }))
    return out


def _greedy_differs_per_pair(net: Network, metric: str, src_i: np.ndarray, dst_i: np.ndarray
                             ) -> list[tuple[int, dict]]:
    """:func:`_greedy_differs` pair by pair, for a network with forwarding roles (``no_transit``),
    which the all-pairs trees do not know: each search runs on :meth:`Network.restrict_transit`."""
    if metric not in ("tcpbp", "tcpbp-greedy"):
        return []
    out = []
    for j, (s, t) in enumerate(zip(src_i.tolist(), dst_i.tolist())):
        e = shortest_path(net, net.nodes[s], net.nodes[t], "tcpbp")
        g = shortest_path(net, net.nodes[s], net.nodes[t], "tcpbp-greedy")
        if e is not None and g is not None and g.cost > e.cost * (1 + _REL_TOL) + 1e-300:
            out.append((j, {"src": net.nodes[s], "dst": net.nodes[t], "exact_cost": e.cost, "greedy_cost": g.cost,
                            "exact_nodes": list(e.nodes), "greedy_nodes": list(g.nodes)}))
    return out


def route_report(
    net: Network,
    metric: str = "tcpbp",
    k: int = 1,
    pairs: Sequence[tuple[str, str]] | None = None,
    on_progress: ProgressCallback | None = None,
    progress_steps: int = 50,
    summary_limit: int | None = None,
) -> dict:
    """:func:`compute_routes` as a plain JSON-ready dict (fast for many pairs).

    Same arguments, same document; routes of all pairs are expanded by
    compiled code and only the greedy routes that miss the optimum are
    rebuilt. With ``on_progress``, the sources are searched in about
    ``progress_steps`` batches (k = 1) or pair by pair (k > 1), and
    ``on_progress(done, total)`` is called after each with the node pairs
    done so far out of all (``done`` reaches ``total`` once, at the end).

    With ``summary_limit`` (k = 1 only), the document is a summary: ``routes``
    holds the unreachable pairs and the ``summary_limit`` reachable pairs of
    highest cost (costliest first), and ``link_use`` counts, for every link of
    ``net``, the best routes of all pairs that cross it (either direction);
    ``pairs_total``, ``pairs_reachable`` and ``truncated`` say what was left out.
    Only the routes kept are built, which is what makes all pairs of a large
    topology fit in a browser.

    Raises
    ------
    ValueError
        For an unknown metric, ``k < 1``, or ``summary_limit`` with ``k > 1``.
    UnknownNode
        If a pair names an unknown node.
    """
    if summary_limit is not None:
        if k != 1:
            raise ValueError("a summary (summary_limit) is for k = 1")
        return _route_summary(net, metric, pairs, on_progress, progress_steps, summary_limit)
    _check_metric(metric)
    if k < 1:
        raise ValueError("k must be >= 1")
    if pairs is None:
        src_i = np.repeat(np.arange(net.n), net.n)
        dst_i = np.tile(np.arange(net.n), net.n)
        keep = src_i != dst_i
        src_i, dst_i = src_i[keep], dst_i[keep]
    else:
        idx = [(net.node_index(a), net.node_index(b)) for a, b in pairs]
        src_i = np.array([p[0] for p in idx], dtype=np.int64)
        dst_i = np.array([p[1] for p in idx], dtype=np.int64)
    total = len(src_i)
    sources = list(dict.fromkeys(src_i.tolist()))
    routes: list[dict | None]
    differs: list[tuple[int, dict]] = []
    if k == 1 and sources and not net.no_transit:  # all-pairs trees ignore forwarding roles: per pair then
        batches = [sources] if on_progress is None else np.array_split(
            np.array(sources, dtype=np.int64), min(len(sources), max(1, progress_steps)))
        routes = [None] * total
        done = 0
        for batch in batches:
            batch = [int(b) for b in batch]
            js = np.nonzero(np.isin(src_i, batch))[0]
            part, diff, _ = _routes_of_sources(net, metric, src_i[js], dst_i[js], batch)
            for j, r in zip(js.tolist(), part):
                routes[j] = r
            differs += [(int(js[jj]), d) for jj, d in diff]
            done += len(js)
            if on_progress is not None:
                on_progress(done, total)
    else:
        routes = []
        for j, (s, t) in enumerate(zip(src_i.tolist(), dst_i.tolist())):
            ps = k_shortest_paths(net, net.nodes[s], net.nodes[t], k, metric)
            routes.append({
                "src": net.nodes[s], "dst": net.nodes[t], "reachable": bool(ps),
                "paths": [{"nodes": list(p.nodes), "hops": p.hops, "delay_ms": p.delay_ms, "loss": p.loss,
                           "cost": p.cost} for p in ps],
            })
            if on_progress is not None and (j + 1 == total or (j + 1) % max(1, total // progress_steps) == 0):
                on_progress(j + 1, total)
        differs = (_greedy_differs_per_pair(net, metric, src_i, dst_i) if net.no_transit
                   else _greedy_differs(net, metric, src_i, dst_i, sources, None))
    differs.sort(key=lambda d: d[0])
    return {"metric": metric, "cost_unit": COST_UNITS[metric], "routes": routes,
            "greedy_differs": [d for _, d in differs], "pairs_total": total,
            "pairs_reachable": sum(1 for r in routes if r["reachable"]), "truncated": False, "link_use": None}


def _pair_indices(net: Network, pairs: Sequence[tuple[str, str]] | None) -> tuple[np.ndarray, np.ndarray]:
    if pairs is None:
        src_i = np.repeat(np.arange(net.n), net.n)
        dst_i = np.tile(np.arange(net.n), net.n)
        keep = src_i != dst_i
        return src_i[keep], dst_i[keep]
    idx = [(net.node_index(a), net.node_index(b)) for a, b in pairs]
    return (np.array([p[0] for p in idx], dtype=np.int64), np.array([p[1] for p in idx], dtype=np.int64))


def _summary_of_report(net: Network, doc: dict, limit: int) -> dict:
    """The summary (``summary_limit``) of a full :func:`route_report` document: for a network with
    forwarding roles, whose routes are searched pair by pair. A hop between two nodes joined by
    several links counts against the cheapest arc between them (the one the search takes)."""
    cheapest: dict[tuple[int, int], int] = {}
    for e in range(net.m):
        key = (int(net.src[e]), int(net.dst[e]))
        if key not in cheapest or net.delay_ms[e] < net.delay_ms[cheapest[key]]:
            cheapest[key] = e
    link_use = dict.fromkeys(net.link, 0)
    reachable, unreachable = [], []
    for r in doc["routes"]:
        if not r["reachable"]:
            unreachable.append(r)
            continue
        reachable.append(r)
        nodes = [net.node_index(v) for v in r["paths"][0]["nodes"]]
        for a, b in zip(nodes, nodes[1:]):
            e = cheapest.get((a, b))
            if e is not None:
                link_use[net.link[e]] += 1
    kept = sorted(reachable, key=lambda r: -r["paths"][0]["cost"])[:limit]
    routes = unreachable + kept
    return {**doc, "routes": routes, "truncated": len(routes) < doc["pairs_total"],
            "link_use": [{"link": lid, "routes": c} for lid, c in link_use.items()]}


def _route_summary(net: Network, metric: str, pairs: Sequence[tuple[str, str]] | None,
                   on_progress: ProgressCallback | None, progress_steps: int, limit: int) -> dict:
    """The summary document of :func:`route_report` (``summary_limit``)."""
    _check_metric(metric)
    if net.no_transit:
        return _summary_of_report(net, route_report(net, metric, 1, pairs, on_progress, progress_steps), limit)
    src_i, dst_i = _pair_indices(net, pairs)
    total = len(src_i)
    sources = list(dict.fromkeys(src_i.tolist()))
    arc_use = np.zeros(net.m, dtype=np.int64)
    kept: list[tuple[float, int, dict]] = []  # (cost, j, route) of the costliest so far
    unreachable: list[tuple[int, dict]] = []
    differs: list[tuple[int, dict]] = []
    reachable = 0
    done = 0
    batches = np.array_split(np.array(sources, dtype=np.int64), max(1, min(len(sources), progress_steps)))
    for batch_arr in batches if sources else []:
        batch = [int(b) for b in batch_arr]
        js = np.nonzero(np.isin(src_i, batch))[0]
        b, ap = _batch_of_sources(net, metric, src_i[js], dst_i[js], batch)
        arc_use += b.arc_counts(net.m)
        ok = b.hops >= 0
        reachable += int(ok.sum())
        unreachable += [(int(js[jj]), b.route(net, int(jj))) for jj in np.nonzero(~ok)[0].tolist()]
        cand = np.nonzero(ok)[0]
        if len(cand) > limit:
            cand = cand[np.argsort(-b.cost[cand], kind="stable")[:limit]]
        kept += [(float(b.cost[jj]), int(js[jj]), b.route(net, int(jj))) for jj in cand.tolist()]
        kept.sort(key=lambda x: (-x[0], x[1]))
        del kept[limit:]
        differs += [(int(js[jj]), d) for jj, d in _greedy_differs(net, metric, src_i[js], dst_i[js], batch, ap)]
        done += len(js)
        if on_progress is not None:
            on_progress(done, total)
    link_index = {lid: i for i, lid in enumerate(dict.fromkeys(net.link))}
    per_link = np.zeros(len(link_index), dtype=np.int64)
    np.add.at(per_link, np.array([link_index[lid] for lid in net.link], dtype=np.int64), arc_use)
    differs.sort(key=lambda d: d[0])
    routes = [r for _, r in sorted(unreachable, key=lambda x: x[0])] + [r for _, _, r in kept]
    return {"metric": metric, "cost_unit": COST_UNITS[metric], "routes": routes,
            "greedy_differs": [d for _, d in differs], "pairs_total": total, "pairs_reachable": reachable,
            "truncated": len(routes) < total,
            "link_use": [{"link": lid, "routes": int(c)} for lid, c in zip(link_index, per_link.tolist())]}


def compute_routes(
    net: Network,
    metric: str = "tcpbp",
    k: int = 1,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> Routes:
    """Routes for many node pairs, with the greedy-vs-exact report.

    Parameters
    ----------
    net : Network
        Topology.
    metric : str
        One of :data:`ROUTING_METRICS`.
    k : int
        Paths per pair (Yen), best first.
    pairs : sequence of (str, str), optional
        Ordered pairs; default every ordered pair of distinct nodes, in node
        order.

    Returns
    -------
    Routes
        ``greedy_differs`` lists, for ``tcpbp`` and ``tcpbp-greedy``, the pairs
        whose Algorithm 1 route costs more than the exact optimum (relative
        tolerance 1e-9); it is empty for the other metrics.

    Raises
    ------
    UnknownNode
        If a pair names an unknown node.
    ValueError
        For an unknown metric or ``k < 1``.
    """
    return Routes.model_validate(route_report(net, metric, k, pairs))
