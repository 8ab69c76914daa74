"""Array form of a topology for the planning algorithms.

:class:`Network` is a directed multigraph held in NumPy arrays, one entry per
*arc* (a direction of a link), so the path and allocation kernels in
:mod:`subflow.planning.shortest_paths`, :mod:`subflow.planning.fdm` and :mod:`subflow.planning.mptcp_path_selection` run
on plain arrays. Arc ``a`` goes from node ``src[a]`` to node ``dst[a]`` and
carries:

* ``delay_ms[a]`` — one-way propagation delay, milliseconds, ``>= 0``;
* ``loss[a]`` — one-way packet loss probability in ``[0, 1)``;
* ``capacity_mbps[a]`` — capacity, Mbit/s, ``>= 0`` (0 means unusable for
  allocation);
* ``link[a]`` — the id of the link the arc belongs to (both directions of a
  full-duplex link share the id).

Arc order is the order the links were given in (for a scenario: ``links``
order, the ``src → dst`` arc before the ``dst → src`` arc); every algorithm
scans arcs in this order, which makes tie-breaking deterministic.

Conventions
-----------
* A scenario link is full duplex: it becomes two arcs, each with the link's
  full ``bandwidth_mbps`` (as :func:`subflow.runplan.resolve.resolve_plan` does).
* :meth:`Network.from_scenario` includes only wired links; the radio hops of
  stations (which change with mobility) are added per interval of a run by
  :func:`subflow.runplan.resolve.resolve_plan`, whose interval topologies are
  ``Network`` objects too, built from :class:`Arc` with the plan's resource id as ``link``
  (``"<link>:<a>><b>"`` per direction, ``"air:<ap>:<a>><b>"`` per station queue; see
  :mod:`subflow.runplan.path_policies`). The SDN controller's FDM view
  (:mod:`subflow.runplan.controller`) is also a ``Network``.
* Parallel arcs (two links joining the same nodes) are allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, NamedTuple, Sequence

import numpy as np

from subflow.errors import LinkInvalid, UnknownNode
from subflow.scenario.document import end_points, load_scenario

RoutingMetric = Literal["hop", "delay", "loss", "tcpbp", "tcpbp-greedy"]
"""A route metric over the arcs (hops, Σ delay_ms, composed loss, TCPBP's d·√p, or the thesis's
greedy TCPBP); defined by :mod:`subflow.planning.shortest_paths` (``ROUTING_METRICS``) and kept here,
light to import, for the request documents of :mod:`subflow.analysis.planning`."""


class Arc(NamedTuple):
    """One directed arc of a topology given as arcs (:meth:`Network.from_arcs`; a run plan's interval
    topologies, :mod:`subflow.runplan.path_policies`): the resource it uses (a link direction ``"<link>:<a>><b>"``, an
    air queue ``"air:<ap>:<a>><b>"`` or a shared ``"air:<ap>"``, an ad-hoc link ``"adhoc:<a>~<b>"``), its ends,
    its one-way delay (ms), loss (fraction in [0, 1)) and capacity (Mbit/s)."""

    resource: str
    src: str
    dst: str
    delay_ms: float
    loss: float
    capacity_mbps: float


@dataclass(frozen=True)
class Demand:
    """A traffic demand to allocate.

    Parameters
    ----------
    src, dst : str
        Node ids.
    demand_mbps : float
        Offered traffic, Mbit/s (``> 0``).
    id : str, optional
        Name used in reports (a scenario flow id, an SNDlib demand id).
    paths : sequence of sequence of str, optional
        Candidate paths as node-id lists from ``src`` to ``dst``; the allocation
        may only use these (e.g. an MPTCP user's SATCOM and UAV subflows).
        ``None``: any path.
    """

    src: str
    dst: str
    demand_mbps: float
    id: str | None = None
    paths: tuple[tuple[str, ...], ...] | None = None


@dataclass
class Network:
    """A directed multigraph in array form (see the module docstring).

    Build one with :meth:`from_scenario`, :meth:`from_links` or
    :meth:`from_arcs`; constructing it directly skips validation. ``cache``
    holds derived structures (e.g. the contracted graph of
    :func:`subflow.planning.shortest_paths.all_pairs`); the arrays must not be modified in
    place — use :meth:`with_arrays` for new link state.
    """

    nodes: list[str]
    src: np.ndarray
    dst: np.ndarray
    delay_ms: np.ndarray
    loss: np.ndarray
    capacity_mbps: np.ndarray
    link: list[str]
    demands: list[Demand] = field(default_factory=list)
    name: str = ""
    #: end points: nodes a route may start or end at but never pass through (hosts and stations
    #: not marked ``relay``, :func:`subflow.scenario.document.end_points`); see :meth:`restrict_transit`
    no_transit: frozenset[str] = frozenset()
    index: dict[str, int] = field(init=False, repr=False)
    _csr: tuple[np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False)
    _rcsr: tuple[np.ndarray, np.ndarray] | None = field(default=None, init=False, repr=False)
    cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.index = {n: i for i, n in enumerate(self.nodes)}
        self.src = np.ascontiguousarray(self.src, dtype=np.int64)
        self.dst = np.ascontiguousarray(self.dst, dtype=np.int64)
        self.delay_ms = np.ascontiguousarray(self.delay_ms, dtype=np.float64)
        self.loss = np.ascontiguousarray(self.loss, dtype=np.float64)
        self.capacity_mbps = np.ascontiguousarray(self.capacity_mbps, dtype=np.float64)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_arcs(
        cls,
        nodes: Sequence[str],
        arcs: Iterable[Arc | tuple[str, str, str, float, float, float]],
        demands: Iterable[Demand] = (),
        name: str = "",
        no_transit: Iterable[str] = (),
    ) -> "Network":
        """Build from directed arcs (:class:`Arc`, or tuples in its order: ``(link_id, src, dst, delay_ms, loss,
        capacity_mbps)``).

        Raises
        ------
        ValueError
            If a node id repeats.
        UnknownNode
            If an arc names a node not in ``nodes``.
        LinkInvalid
            If a delay is negative or not finite, a loss is outside [0, 1), or a
            capacity is negative or not finite; the error names the link.
        """
        nodes = list(nodes)
        index: dict[str, int] = {}
        for i, node in enumerate(nodes):
            if node in index:
                raise ValueError(f"duplicate node id {node!r}")
            index[node] = i
        rows = list(arcs)
        src = np.empty(len(rows), dtype=np.int64)
        dst = np.empty(len(rows), dtype=np.int64)
        delay = np.empty(len(rows))
        loss = np.empty(len(rows))
        cap = np.empty(len(rows))
        links: list[str] = []
        for i, (lid, a, b, d, p, c) in enumerate(rows):
            for end in (a, b):
                if end not in index:
                    raise UnknownNode(end, f"link {lid!r} refers to unknown node {end!r}")
            _check_link(lid, a, b, d, p, c)
            src[i], dst[i], delay[i], loss[i], cap[i] = index[a], index[b], d, p, c
            links.append(str(lid))
        return cls(nodes, src, dst, delay, loss, cap, links, demands=list(demands), name=name,
                   no_transit=frozenset(no_transit))

    @classmethod
    def from_links(
        cls,
        nodes: Sequence[str],
        links: Iterable[tuple[str, str, str, float, float, float]],
        demands: Iterable[Demand] = (),
        name: str = "",
    ) -> "Network":
        """Build from full-duplex links ``(link_id, a, b, delay_ms, loss, capacity_mbps)``.

        Each link becomes the arcs ``a → b`` and ``b → a`` with the same
        delay, loss and full capacity.
        """

        def both() -> Iterable[tuple[str, str, str, float, float, float]]:
            for lid, a, b, d, p, c in links:
                yield (lid, a, b, d, p, c)
                yield (lid, b, a, d, p, c)

        return cls.from_arcs(nodes, both(), demands=demands, name=name)

    @classmethod
    def from_scenario(cls, scenario: Any) -> "Network":
        """Build from a :class:`subflow.scenario.document.Scenario` (or its dict).

        Nodes keep the scenario order; each link gives two arcs (full duplex,
        each with the full ``bandwidth_mbps``). Hosts and stations not marked
        ``relay`` are ``no_transit`` end points (docs/radio.md): route searches
        never pass through them (the FDM allocation does not apply them yet). Flows with a ``rate_mbps``
        become :class:`Demand` objects (bulk flows, ``rate_mbps`` null, have no
        demand to allocate and are left out).

        Raises
        ------
        ScenarioInvalid
            If the document is not a valid scenario.
        """
        sc = load_scenario(scenario)
        demands = [
            Demand(f.src, f.dst, float(f.rate_mbps), id=f.id)
            for f in sc.flows
            if f.rate_mbps is not None
        ]
        net = cls.from_links(
            [n.id for n in sc.nodes],
            ((l.id, l.src, l.dst, l.delay_ms, l.loss, l.bandwidth_mbps) for l in sc.links),
            demands=demands,
            name=sc.name,
        )
        net.no_transit = end_points(sc)
        return net

    # ------------------------------------------------------------------ views

    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.nodes)

    @property
    def m(self) -> int:
        """Number of arcs."""
        return int(self.src.shape[0])

    @property
    def q(self) -> np.ndarray:
        """Additive loss weight ``-ln(1 - loss)`` per arc (so Π(1-p) = exp(-Σq))."""
        return -np.log1p(-self.loss)

    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Outgoing adjacency: ``(indptr, arcs)``; arcs of node ``u`` are
        ``arcs[indptr[u]:indptr[u+1]]`` in input order."""
        if self._csr is None:
            order = np.argsort(self.src, kind="stable")
            indptr = np.zeros(self.n + 1, dtype=np.int64)
            np.add.at(indptr, self.src + 1, 1)
            self._csr = (np.cumsum(indptr), order.astype(np.int64))
        return self._csr

    def reverse_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Incoming adjacency: ``(indptr, arcs)`` grouped by ``dst``."""
        if self._rcsr is None:
            order = np.argsort(self.dst, kind="stable")
            indptr = np.zeros(self.n + 1, dtype=np.int64)
            np.add.at(indptr, self.dst + 1, 1)
            self._rcsr = (np.cumsum(indptr), order.astype(np.int64))
        return self._rcsr

    def node_index(self, node: str) -> int:
        """Index of ``node``.

        Raises
        ------
        UnknownNode
            If the graph has no such node.
        """
        try:
            return self.index[node]
        except KeyError:
            raise UnknownNode(node) from None

    def arcs_of_path(self, nodes: Sequence[str]) -> list[int]:
        """Arc indices along a node-id path (the first matching arc per hop).

        Raises
        ------
        UnknownNode
            If a node is unknown.
        ValueError
            If two consecutive nodes are not joined by an arc.
        """
        indptr, adj = self.csr()
        out: list[int] = []
        for a, b in zip(nodes, nodes[1:]):
            ia, ib = self.node_index(a), self.node_index(b)
            for k in range(indptr[ia], indptr[ia + 1]):
                arc = int(adj[k])
                if self.dst[arc] == ib:
                    out.append(arc)
                    break
            else:
                raise ValueError(f"no link from {a!r} to {b!r}")
        return out

    def restrict_transit(self, src: str, dst: str) -> tuple["Network", np.ndarray]:
        """The topology a route from ``src`` to ``dst`` may use under the forwarding roles.

        Drops every arc leaving an end point (a node of ``no_transit``) other than ``src`` and every
        arc entering one other than ``dst``, so no route passes through an end point; the nodes
        keep their indices. Every path policy and route search of a run plan asks this once per
        flow (:mod:`subflow.runplan.path_policies`, :func:`subflow.planning.mptcp_path_selection.mptcp_lba`).

        Returns
        -------
        (Network, ndarray of int)
            The restricted network (cached per pair; its ``no_transit`` is empty) and, per arc of
            it, the index of the same arc in this network.
        """
        key = ("restrict", src, dst)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        if not self.no_transit:
            out = (self, np.arange(self.m, dtype=np.int64))
        else:
            banned = np.zeros(self.n, dtype=bool)
            for v in self.no_transit:
                if v in self.index:
                    banned[self.index[v]] = True
            out_ok = ~banned
            in_ok = ~banned
            if src in self.index:
                out_ok[self.index[src]] = True
            if dst in self.index:
                in_ok[self.index[dst]] = True
            keep = np.nonzero(out_ok[self.src] & in_ok[self.dst])[0].astype(np.int64)
            net = Network(list(self.nodes), self.src[keep], self.dst[keep], self.delay_ms[keep], self.loss[keep],
                          self.capacity_mbps[keep], [self.link[a] for a in keep], demands=list(self.demands),
                          name=self.name)
            out = (net, keep)
        self.cache[key] = out
        return out

    def with_arrays(
        self,
        delay_ms: np.ndarray | None = None,
        loss: np.ndarray | None = None,
        capacity_mbps: np.ndarray | None = None,
    ) -> "Network":
        """A copy with some per-arc arrays replaced (e.g. measured link state)."""
        return Network(
            list(self.nodes),
            self.src,
            self.dst,
            self.delay_ms if delay_ms is None else np.asarray(delay_ms, dtype=np.float64),
            self.loss if loss is None else np.asarray(loss, dtype=np.float64),
            self.capacity_mbps if capacity_mbps is None else np.asarray(capacity_mbps, dtype=np.float64),
            list(self.link),
            demands=list(self.demands),
            name=self.name,
            no_transit=self.no_transit,
        )

    def validate(self) -> None:
        """Check every arc's delay, loss and capacity.

        Raises
        ------
        LinkInvalid
            Naming the first offending link.
        """
        for a in range(self.m):
            _check_link(
                self.link[a],
                self.nodes[self.src[a]],
                self.nodes[self.dst[a]],
                float(self.delay_ms[a]),
                float(self.loss[a]),
                float(self.capacity_mbps[a]),
            )

    def to_networkx(self):  # pragma: no cover - convenience for notebooks and benchmarks
        """A ``networkx.MultiDiGraph`` with arc attributes ``delay_ms``, ``loss``,
        ``capacity_mbps``, ``link``."""
        import networkx as nx

        g = nx.MultiDiGraph()
        g.add_nodes_from(self.nodes)
        for a in range(self.m):
            g.add_edge(
                self.nodes[self.src[a]],
                self.nodes[self.dst[a]],
                key=a,
                delay_ms=float(self.delay_ms[a]),
                loss=float(self.loss[a]),
                capacity_mbps=float(self.capacity_mbps[a]),
                link=self.link[a],
            )
        return g


def _check_link(lid: str, a: str, b: str, d: float, p: float, c: float) -> None:
    where = f"{a}>{b}"
    d, p, c = _num(d), _num(p), _num(c)
    if not math.isfinite(d) or d < 0:
        raise LinkInvalid(lid, "delay_ms", d, f"delay must be a finite number >= 0 ms ({where})")
    if not math.isfinite(p) or not (0.0 <= p < 1.0):
        raise LinkInvalid(lid, "loss", p, f"loss must be in [0, 1) ({where})")
    if not math.isfinite(c) or c < 0:
        raise LinkInvalid(lid, "capacity_mbps", c, f"capacity must be a finite number >= 0 Mbit/s ({where})")


def _num(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan
