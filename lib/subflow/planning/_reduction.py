"""Exact all-pairs TCPBP on a contracted graph (private; see :func:`subflow.planning.shortest_paths.all_pairs`).

Real topologies are full of forced detours: *leaves* (one neighbour) and
*chain* nodes (two neighbours). A path that passes through a chain node must
run along the whole chain, so the label search only needs the *core* (every
other node) joined by the original core–core arcs plus one *composite* arc per
chain direction. Every node that is not core has one (leaf) or two (chain)
*exits*: the core nodes it reaches by its forced walks.

For a source ``s`` the search is seeded at ``s`` (core) or at its exits with the
walk from ``s`` (the composite arcs of ``s``'s own chain are banned). A target
``t`` is then resolved from the Pareto labels kept at its core node, or — when
``t`` is not core — from every Pareto label at each exit extended by the walk
from the exit to ``t``, plus the direct walk when ``s`` and ``t`` share a chain.

Why this is exact: every simple s→t path is its forced prefix, a simple core
path and its forced suffix, and the core path is weakly dominated in (d, q) by
a kept label, whose extension is a candidate; conversely every candidate is a
walk whose loop-free version is a simple path at least as good (d, q ≥ 0).
Ties (f, then d, then q, then hops) prefer the loop-free version, which has
fewer hops. The tests compare against the plain search and brute force.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from subflow.compiled import njit, prange
from subflow.planning._kernels import INF, PARALLEL_MIN_PAIRS, heap_pop, heap_push, label_path_into


@dataclass
class Reduction:
    """The contracted graph and the forced walks of every non-core node."""

    nc: int
    core_of: np.ndarray  # node -> core index or -1
    core_nodes: np.ndarray  # core index -> node
    h_indptr: np.ndarray
    h_adj: np.ndarray
    h_dst: np.ndarray
    h_d: np.ndarray
    h_q: np.ndarray
    h_hops: np.ndarray
    h_ref: np.ndarray  # >= 0: original arc; < 0: -(2*chain + dir) - 1
    nexit: np.ndarray  # node -> 0, 1 or 2
    exit_node: np.ndarray  # [n, 2] core index
    to_d: np.ndarray  # [n, 2] walk exit -> node
    to_q: np.ndarray
    to_h: np.ndarray
    from_d: np.ndarray  # [n, 2] walk node -> exit
    from_q: np.ndarray
    from_h: np.ndarray
    chain_of: np.ndarray  # node -> chain id or -1 (chain nodes only)
    chain_pos: np.ndarray  # position in its chain sequence (1..k)
    chain_ptr: np.ndarray  # chain c: seq = chain_seq[chain_ptr[c]:chain_ptr[c+1]] (a, c1..ck, b)
    chain_seq: np.ndarray
    fwd_arc: np.ndarray  # aligned with chain_seq: arc seq[i] -> seq[i+1] (last entry unused), -1 if none
    bwd_arc: np.ndarray  # arc seq[i+1] -> seq[i]
    chain_harc: np.ndarray  # [nchains, 2] composite arc per direction or -1
    leaf_arc_to: np.ndarray  # leaf: arc exit -> leaf (or -1)
    leaf_arc_from: np.ndarray  # leaf: arc leaf -> exit (or -1)


def build_reduction(n: int, src: np.ndarray, dst: np.ndarray, d: np.ndarray, q: np.ndarray) -> Reduction:
    """Find leaves, chains and the core of a directed multigraph (self-loops ignored)."""
    g = _Adjacency(n, src, dst)
    kind = _classify(g)
    chains = _chains(g, kind)
    core_nodes = np.array([v for v in range(n) if kind[v] == 0], dtype=np.int64)
    core_of = np.full(n, -1, dtype=np.int64)
    core_of[core_nodes] = np.arange(core_nodes.shape[0])
    chain_ptr = np.zeros(len(chains) + 1, dtype=np.int64)
    for i, c in enumerate(chains):
        chain_ptr[i + 1] = chain_ptr[i] + len(c)
    chain_seq = np.array([v for c in chains for v in c], dtype=np.int64)
    fwd = np.full(chain_seq.shape[0], -1, dtype=np.int64)
    bwd = np.full(chain_seq.shape[0], -1, dtype=np.int64)
    for i, c in enumerate(chains):
        base = chain_ptr[i]
        for j in range(len(c) - 1):
            fwd[base + j] = g.arc(c[j], c[j + 1])
            bwd[base + j] = g.arc(c[j + 1], c[j])
    hs, hd, hw, hq, hh, href, chain_harc = _contracted_arcs(g, kind, core_of, chains, chain_ptr, fwd, bwd, d, q)
    h_src = np.array(hs, dtype=np.int64)
    order = np.argsort(h_src, kind="stable")
    h_indptr = np.zeros(core_nodes.shape[0] + 1, dtype=np.int64)
    np.add.at(h_indptr, h_src + 1, 1)
    h_indptr = np.cumsum(h_indptr)
    ex = _exits(g, kind, core_of, chains, chain_ptr, fwd, bwd, d, q)
    return Reduction(
        nc=core_nodes.shape[0],
        core_of=core_of,
        core_nodes=core_nodes,
        h_indptr=h_indptr,
        h_adj=order.astype(np.int64),
        h_dst=np.array(hd, dtype=np.int64),
        h_d=np.array(hw, dtype=np.float64),
        h_q=np.array(hq, dtype=np.float64),
        h_hops=np.array(hh, dtype=np.int64),
        h_ref=np.array(href, dtype=np.int64),
        nexit=ex.nexit,
        exit_node=ex.exit_node,
        to_d=ex.to[0].copy(),
        to_q=ex.to[1].copy(),
        to_h=np.where(np.isinf(ex.to[2]), -1, ex.to[2]).astype(np.int64),
        from_d=ex.fr[0].copy(),
        from_q=ex.fr[1].copy(),
        from_h=np.where(np.isinf(ex.fr[2]), -1, ex.fr[2]).astype(np.int64),
        chain_of=ex.chain_of,
        chain_pos=ex.chain_pos,
        chain_ptr=chain_ptr,
        chain_seq=chain_seq,
        fwd_arc=fwd,
        bwd_arc=bwd,
        chain_harc=chain_harc,
        leaf_arc_to=ex.leaf_to,
        leaf_arc_from=ex.leaf_from,
    )


class _Adjacency:
    """Neighbours of each node (either direction), with the arcs to each; self-loops left out."""

    def __init__(self, n: int, src: np.ndarray, dst: np.ndarray):
        self.n, self.src, self.dst = n, src, dst
        self.nbrs: list[dict[int, list[int]]] = [dict() for _ in range(n)]  # neighbour -> arcs
        for a in range(src.shape[0]):
            u, v = int(src[a]), int(dst[a])
            if u == v:
                continue
            self.nbrs[u].setdefault(v, []).append(a)
            self.nbrs[v].setdefault(u, []).append(a)

    def simple(self, v: int) -> bool:
        """At most one arc per direction to each neighbour of ``v``."""
        for arcs in self.nbrs[v].values():
            outs = sum(1 for a in arcs if self.src[a] == v)
            if outs > 1 or len(arcs) - outs > 1:
                return False
        return True

    def arc(self, u: int, v: int) -> int:
        """The arc u → v, −1 if none."""
        for a in self.nbrs[u].get(v, ()):
            if self.src[a] == u:
                return a
        return -1


def _classify(g: _Adjacency) -> np.ndarray:
    """Per node 0 (core), 1 (leaf: one simple neighbour, in the core) or 2 (chain: two simple neighbours,
    no leaf among them)."""
    n, nbrs = g.n, g.nbrs
    kind = np.zeros(n, dtype=np.int8)
    for v in range(n):
        deg = len(nbrs[v])
        if deg == 1 and g.simple(v):
            kind[v] = 1
        elif deg == 2 and g.simple(v):
            kind[v] = 2
    for v in range(n):  # a leaf needs a core neighbour; a chain node no leaf neighbour
        if kind[v] == 1:
            (w,) = nbrs[v]
            if kind[w] != 0:
                kind[v] = 0
                if kind[w] == 1:
                    kind[w] = 0
    changed = True
    while changed:
        changed = False
        for v in range(n):
            if kind[v] == 2 and any(kind[w] == 1 for w in nbrs[v]):
                kind[v] = 0
                changed = True
        for v in range(n):
            if kind[v] == 1:
                (w,) = nbrs[v]
                if kind[w] != 0:
                    kind[v] = 0
                    changed = True
    return kind


def _chains(g: _Adjacency, kind: np.ndarray) -> list[list[int]]:
    """The chains, each from a core node through chain nodes to a core node; a ring of chain nodes gets its
    first node promoted to core (``kind`` updated)."""
    nbrs = g.nbrs
    chains: list[list[int]] = []
    in_chain = np.full(g.n, -1, dtype=np.int64)

    def walk(origin: int, prev: int, cur: int) -> tuple[list[int], int]:
        seq: list[int] = []
        while kind[cur] == 2 and cur != origin:
            seq.append(cur)
            prev, cur = cur, next(w for w in nbrs[cur] if w != prev)
        return seq, cur

    for v in range(g.n):
        if kind[v] != 2 or in_chain[v] >= 0:
            continue
        w0, w1 = nbrs[v]
        left, a = walk(v, v, w0)
        if a == v:  # ring without core
            kind[v] = 0
            continue
        right, b = walk(v, v, w1)
        full = [a] + left[::-1] + [v] + right + [b]
        chains.append(full)
        for c in full[1:-1]:
            in_chain[c] = len(chains) - 1
    return chains


def _contracted_arcs(g: _Adjacency, kind, core_of, chains, chain_ptr, fwd, bwd, d, q):
    """The core graph's arcs: every arc between core nodes, and per chain (not a loop) one arc each way
    whose delay and loss term are the sums along it, in walk order. Returns the arc lists (source, target,
    d, q, hops, reference) and, per chain, its two core arcs (−1: none)."""
    src, dst = g.src, g.dst
    hs, hd, hw, hq, hh, href = [], [], [], [], [], []
    for a in range(src.shape[0]):
        u, v = int(src[a]), int(dst[a])
        if u != v and kind[u] == 0 and kind[v] == 0:
            hs.append(core_of[u]), hd.append(core_of[v]), hw.append(d[a]), hq.append(q[a]), hh.append(1), href.append(a)
    chain_harc = np.full((len(chains), 2), -1, dtype=np.int64)
    for i, c in enumerate(chains):
        base, k = chain_ptr[i], len(c) - 1
        if c[0] == c[-1]:
            continue
        for direction, arcs in ((0, fwd[base : base + k]), (1, bwd[base : base + k][::-1])):
            if (arcs < 0).any():
                continue
            a0, b0 = (c[0], c[-1]) if direction == 0 else (c[-1], c[0])
            chain_harc[i, direction] = len(hs)
            hs.append(core_of[a0]), hd.append(core_of[b0])
            # sum in walk order, as a brute force would
            sd = 0.0
            sq = 0.0
            for a in arcs:
                sd += d[a]
                sq += q[a]
            hw.append(sd), hq.append(sq), hh.append(k), href.append(-(2 * i + direction) - 1)
    return hs, hd, hw, hq, hh, href, chain_harc


class _Exits:
    """Per leaf or chain node, the core nodes it leaves the reduction by and the (delay, loss, hops) sums
    to and from each (``to``/``fr``: 3 × n × 2, ∞ where none)."""

    def __init__(self, n: int):
        self.nexit = np.zeros(n, dtype=np.int64)
        self.exit_node = np.full((n, 2), -1, dtype=np.int64)
        self.to = np.full((3, n, 2), INF)
        self.fr = np.full((3, n, 2), INF)
        self.chain_of = np.full(n, -1, dtype=np.int64)
        self.chain_pos = np.full(n, -1, dtype=np.int64)
        self.leaf_to = np.full(n, -1, dtype=np.int64)
        self.leaf_from = np.full(n, -1, dtype=np.int64)


def _exits(g: _Adjacency, kind, core_of, chains, chain_ptr, fwd, bwd, d, q) -> _Exits:
    def walk_sums(arcs: list[int]) -> tuple[float, float, int]:
        if any(a < 0 for a in arcs):
            return INF, INF, -1
        sd = 0.0
        sq = 0.0
        for a in arcs:
            sd += d[a]
            sq += q[a]
        return sd, sq, len(arcs)

    ex = _Exits(g.n)
    for v in range(g.n):
        if kind[v] == 1:
            (w,) = g.nbrs[v]
            ex.nexit[v] = 1
            ex.exit_node[v, 0] = core_of[w]
            ex.leaf_to[v], ex.leaf_from[v] = g.arc(w, v), g.arc(v, w)
            ex.to[:, v, 0] = walk_sums([ex.leaf_to[v]])
            ex.fr[:, v, 0] = walk_sums([ex.leaf_from[v]])
    for i, c in enumerate(chains):
        base, k = chain_ptr[i], len(c) - 1
        for j in range(1, k):
            v = c[j]
            ex.chain_of[v], ex.chain_pos[v] = i, j
            ex.nexit[v] = 2
            ex.exit_node[v, 0], ex.exit_node[v, 1] = core_of[c[0]], core_of[c[-1]]
            ex.to[:, v, 0] = walk_sums(list(fwd[base : base + j]))
            ex.fr[:, v, 0] = walk_sums(list(bwd[base : base + j][::-1]))
            ex.to[:, v, 1] = walk_sums(list(bwd[base + j : base + k][::-1]))
            ex.fr[:, v, 1] = walk_sums(list(fwd[base + j : base + k]))
    return ex


# --------------------------------------------------------------------------- kernels


@njit(cache=True, nogil=True)
def _search(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, s, cap, kcap):
    """Pareto label setting on the contracted graph from core node ``s``.

    Pending labels sit in a binary heap keyed by (d, q, hops), keys stored in
    the heap itself; a popped label is kept iff its q is below every q kept
    at its node so far (so the kept labels of a node are its Pareto front,
    fewest hops among equal (d, q)). Returns the kept labels in acceptance
    order — ``(D, Q, N, H, A, P)`` with ``A`` the contracted arc (-1 for the
    root) and ``P`` the parent's position (parents come first) — and their
    count, or -1 if ``cap`` pending or ``kcap`` kept labels were not enough
    (buffers are never grown inside the loop: re-binding arrays there makes
    numba's code ~3× slower; the caller retries with larger buffers).
    """
    nc = h_indptr.shape[0] - 1
    qmin = np.full(nc, INF)
    N = np.empty(cap, dtype=np.int32)
    P = np.empty(cap, dtype=np.int32)
    A = np.empty(cap, dtype=np.int32)
    heap_d = np.empty(cap)
    heap_q = np.empty(cap)
    heap_hops = np.empty(cap, dtype=np.int32)
    heap_label = np.empty(cap, dtype=np.int32)
    front_d = np.empty(kcap)
    front_q = np.empty(kcap)
    front_hops = np.empty(kcap, dtype=np.int32)
    front_count = np.empty(kcap, dtype=np.int32)
    front_arc = np.empty(kcap, dtype=np.int32)
    front_parent = np.empty(kcap, dtype=np.int32)
    nk = 0
    N[0] = s
    P[0] = -1
    A[0] = -1
    npool = 1
    hs = heap_push(heap_d, heap_q, heap_hops, heap_label, 0, 0.0, 0.0, 0, 0)
    while hs > 0:
        d = heap_d[0]
        q = heap_q[0]
        h = heap_hops[0]
        lab = heap_label[0]
        hs = heap_pop(heap_d, heap_q, heap_hops, heap_label, hs)
        v = N[lab]
        if q >= qmin[v]:
            continue
        qmin[v] = q
        if nk == kcap:
            return front_d, front_q, front_count, front_hops, front_arc, front_parent, -1
        front_d[nk] = d
        front_q[nk] = q
        front_hops[nk] = h
        front_count[nk] = v
        front_arc[nk] = A[lab]
        front_parent[nk] = P[lab]
        me = nk
        nk += 1
        for k in range(h_indptr[v], h_indptr[v + 1]):
            a = h_adj[k]
            w = h_dst[a]
            nq = q + h_q[a]
            if nq >= qmin[w]:
                continue
            if npool == cap:
                return front_d, front_q, front_count, front_hops, front_arc, front_parent, -1
            nd = d + h_d[a]
            nh = h + h_hops[a]
            N[npool] = w
            P[npool] = me
            A[npool] = a
            hs = heap_push(heap_d, heap_q, heap_hops, heap_label, hs, nd, nq, nh, npool)
            npool += 1
    return front_d, front_q, front_count, front_hops, front_arc, front_parent, nk


@njit(cache=True, nogil=True)
def _front_row(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores, slot, front_d, front_q, front_loss, front_hops, front_arc, front_parent, front_ptr, front_count, r):
    """Row ``r`` of :func:`core_fronts`."""
    nc = h_indptr.shape[0] - 1
    cap = 16 * nc + 64
    kcap = 8 * nc + 64
    kd, kq, kn, kh, ka, kp, nk = _search(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores[r], cap, kcap)
    while nk < 0:
        cap *= 2
        kcap *= 2
        kd, kq, kn, kh, ka, kp, nk = _search(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores[r], cap, kcap)
    if nk > slot:
        front_count[r] = -nk
        return
    front_count[r] = nk
    ptr = front_ptr[r]
    for i in range(nk):
        ptr[kn[i] + 1] += 1
    for v in range(nc):
        ptr[v + 1] += ptr[v]
    fill = ptr[:-1].copy()
    newpos = np.empty(nk, dtype=np.int32)
    for i in range(nk):
        v = kn[i]
        newpos[i] = fill[v]
        fill[v] += 1
    for i in range(nk):
        j = newpos[i]
        front_d[r, j] = kd[i]
        front_q[r, j] = kq[i]
        front_loss[r, j] = -math.expm1(-kq[i])
        front_hops[r, j] = kh[i]
        front_arc[r, j] = ka[i]
        front_parent[r, j] = newpos[kp[i]] if kp[i] >= 0 else -1


@njit(cache=True, nogil=True, parallel=True)
def _core_fronts_par(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores, slot):
    nr = cores.shape[0]
    nc = h_indptr.shape[0] - 1
    front_d = np.empty((nr, slot))
    front_q = np.empty((nr, slot))
    front_loss = np.empty((nr, slot))
    front_hops = np.empty((nr, slot), dtype=np.int32)
    front_arc = np.empty((nr, slot), dtype=np.int32)
    front_parent = np.empty((nr, slot), dtype=np.int32)
    front_ptr = np.zeros((nr, nc + 1), dtype=np.int32)
    front_count = np.empty(nr, dtype=np.int64)
    for r in prange(nr):
        _front_row(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores, slot, front_d, front_q, front_loss, front_hops, front_arc, front_parent, front_ptr, front_count, r)
    return front_d, front_q, front_loss, front_hops, front_arc, front_parent, front_ptr, front_count


@njit(cache=True, nogil=True)
def _core_fronts_ser(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores, slot):
    nr = cores.shape[0]
    nc = h_indptr.shape[0] - 1
    front_d = np.empty((nr, slot))
    front_q = np.empty((nr, slot))
    front_loss = np.empty((nr, slot))
    front_hops = np.empty((nr, slot), dtype=np.int32)
    front_arc = np.empty((nr, slot), dtype=np.int32)
    front_parent = np.empty((nr, slot), dtype=np.int32)
    front_ptr = np.zeros((nr, nc + 1), dtype=np.int32)
    front_count = np.empty(nr, dtype=np.int64)
    for r in range(nr):
        _front_row(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores, slot, front_d, front_q, front_loss, front_hops, front_arc, front_parent, front_ptr, front_count, r)
    return front_d, front_q, front_loss, front_hops, front_arc, front_parent, front_ptr, front_count


def core_fronts(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores, slot, parallel=True):
    """Pareto fronts from each core node of ``cores`` (one row per core).

    Row ``r`` holds the kept labels of the search from ``cores[r]`` grouped by
    node: labels of node ``v`` are ``front_ptr[r, v]:front_ptr[r, v+1]`` in the row; per
    label ``front_d`` (delay), ``front_q`` (q), ``front_loss`` (loss p), ``front_hops`` (hops), ``front_arc``
    (contracted arc, -1 for the root) and ``front_parent`` (parent position in the row).
    ``front_count[r]`` is the label count, negative (-needed) if ``slot`` was too small.
    Rows run in parallel threads when ``parallel`` (small jobs run serially:
    a thread barrier costs milliseconds on a busy machine).
    """
    fn = _core_fronts_par if parallel else _core_fronts_ser
    return fn(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, cores, slot)


_TIE = 1e-12


@njit(cache=True, inline="always")
def _cmp(a, b):
    """-1, 0 or 1: a below, level with (relative 1e-12) or above b."""
    tol = _TIE * max(abs(a), abs(b))
    if a < b - tol:
        return -1
    if a > b + tol:
        return 1
    return 0


@njit(cache=True, inline="always")
def _cand_better(f2, d, q, h, bf2, bd, bq, bh):
    """Order (f², d, q, hops), the first three compared with a 1e-12 relative
    tolerance: the same walk summed in another order is a tie, and a tie goes
    to fewer hops — which is what keeps zero-delay, zero-loss detours (a walk
    back through the source's own chain) out of the routes."""
    if bh < 0:
        return True
    c = _cmp(f2, bf2)
    if c != 0:
        return c < 0
    c = _cmp(d, bd)
    if c != 0:
        return c < 0
    c = _cmp(q, bq)
    if c != 0:
        return c < 0
    return h < bh


@njit(cache=True, nogil=True)
def _resolve_row(
    sources, n, core_of, row_of_core, nexit, exit_node, to_d, to_q, to_p, to_h, from_d, from_q, from_p, from_h,
    chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, arc_d, arc_q, arc_p,
    front_d, front_q, front_loss, front_hops, front_ptr, rows, F, D, Q, L, H, ENT, LAB, EX, keep, ii,
):
    """Row ``ii`` of :func:`resolve`."""
    i = rows[ii]
    s = sources[ii]
    cs = core_of[s]
    ne = 1 if cs >= 0 else nexit[s]
    g_lb = np.empty(4)
    g_e = np.empty(4, dtype=np.int64)
    g_x = np.empty(4, dtype=np.int64)
    g_y = np.empty(4, dtype=np.int64)
    g_od = np.empty(4)
    g_oq = np.empty(4)
    g_op = np.empty(4)
    g_oh = np.empty(4, dtype=np.int64)
    g_pmin = np.empty(4)
    erow = np.full(2, -1, dtype=np.int64)
    ed = np.zeros(2)
    eq = np.zeros(2)
    ep = np.zeros(2)
    eh = np.zeros(2, dtype=np.int64)
    if cs >= 0:
        erow[0] = row_of_core[cs]
    else:
        for e in range(ne):
            if from_d[s, e] != INF:
                erow[e] = row_of_core[exit_node[s, e]]
                ed[e] = from_d[s, e]
                eq[e] = from_q[s, e]
                ep[e] = from_p[s, e]
                eh[e] = from_h[s, e]
    for t in range(n):
        bf2 = INF
        bd = INF
        bq = INF
        bp = INF
        bh = -1
        bent = -1
        blab = -1
        bex = -1
        if t == s:
            bf2 = 0.0
            bd = 0.0
            bq = 0.0
            bp = 0.0
            bh = 0
            bex = 3
        else:
            ct = core_of[t]
            ntx = 1 if ct >= 0 else nexit[t]
            # candidate groups (entry e, target exit x) with a lower bound on f²
            ng = 0
            for e in range(ne):
                r = erow[e]
                if r < 0:
                    continue
                for x in range(ntx):
                    if ct >= 0:
                        y = ct
                        wd = 0.0
                        wq = 0.0
                        wp = 0.0
                        wh = 0
                    else:
                        wd = to_d[t, x]
                        if wd == INF:
                            continue
                        y = exit_node[t, x]
                        wq = to_q[t, x]
                        wp = to_p[t, x]
                        wh = to_h[t, x]
                    j0 = front_ptr[r, y]
                    j1 = front_ptr[r, y + 1]
                    if j0 == j1:
                        continue
                    od = ed[e] + wd
                    op = ep[e] + wp - ep[e] * wp
                    pl = front_loss[r, j1 - 1]  # least loss of the front: its last label
                    pmin = op + pl - op * pl
                    d0 = od + front_d[r, j0]  # least delay: its first label
                    g_lb[ng] = d0 * d0 * pmin
                    g_e[ng] = e
                    g_x[ng] = x if ct < 0 else -1
                    g_y[ng] = y
                    g_od[ng] = od
                    g_oq[ng] = eq[e] + wq
                    g_op[ng] = op
                    g_oh[ng] = eh[e] + wh
                    g_pmin[ng] = pmin
                    ng += 1
            # most promising group first; skip groups and tails that cannot win
            for _ in range(ng):
                gi = -1
                for k in range(ng):
                    if g_lb[k] != INF and (gi < 0 or g_lb[k] < g_lb[gi]):
                        gi = k
                if gi < 0:
                    break
                lbk = g_lb[gi]
                g_lb[gi] = INF
                if lbk > bf2 * (1.0 + 4 * _TIE):
                    break
                e = g_e[gi]
                r = erow[e]
                y = g_y[gi]
                od = g_od[gi]
                oq = g_oq[gi]
                op = g_op[gi]
                oh = g_oh[gi]
                pmin = g_pmin[gi]
                for j in range(front_ptr[r, y], front_ptr[r, y + 1]):
                    dd = od + front_d[r, j]
                    if dd * dd * pmin > bf2 * (1.0 + 4 * _TIE):
                        break
                    lp = front_loss[r, j]
                    pp = op + lp - op * lp
                    f2 = dd * dd * pp
                    if f2 > bf2 * (1.0 + 4 * _TIE):
                        continue
                    qq = oq + front_q[r, j]
                    hh = oh + front_hops[r, j]
                    if _cand_better(f2, dd, qq, hh, bf2, bd, bq, bh):
                        bf2 = f2
                        bd = dd
                        bq = qq
                        bp = pp
                        bh = hh
                        bent = e
                        blab = j
                        bex = g_x[gi]
            c = chain_of[t]
            if c >= 0 and chain_of[s] == c:
                i0 = chain_pos[s]
                j0 = chain_pos[t]
                base = chain_ptr[c]
                dd = 0.0
                qq = 0.0
                pp = 0.0
                ok = True
                if i0 < j0:
                    for k in range(i0, j0):
                        a = fwd_arc[base + k]
                        if a < 0:
                            ok = False
                            break
                        dd += arc_d[a]
                        qq += arc_q[a]
                        pp = pp + arc_p[a] - pp * arc_p[a]
                else:
                    for k in range(i0 - 1, j0 - 1, -1):
                        a = bwd_arc[base + k]
                        if a < 0:
                            ok = False
                            break
                        dd += arc_d[a]
                        qq += arc_q[a]
                        pp = pp + arc_p[a] - pp * arc_p[a]
                if ok:
                    hh = abs(j0 - i0)
                    f2 = dd * dd * pp
                    if _cand_better(f2, dd, qq, hh, bf2, bd, bq, bh):
                        bf2 = f2
                        bd = dd
                        bq = qq
                        bp = pp
                        bh = hh
                        bent = -1
                        blab = -1
                        bex = 2
        F[i, t] = bd * math.sqrt(bp) if bh >= 0 else INF
        D[i, t] = bd
        Q[i, t] = bq
        L[i, t] = bp
        H[i, t] = bh
        if keep:
            ENT[i, t] = bent
            LAB[i, t] = blab
            EX[i, t] = bex


@njit(cache=True, nogil=True, parallel=True)
def _resolve_par(
    sources, n, core_of, row_of_core, nexit, exit_node, to_d, to_q, to_p, to_h, from_d, from_q, from_p, from_h,
    chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, arc_d, arc_q, arc_p,
    front_d, front_q, front_loss, front_hops, front_ptr, rows, F, D, Q, L, H, ENT, LAB, EX, keep,
):
    for ii in prange(sources.shape[0]):
        _resolve_row(
            sources, n, core_of, row_of_core, nexit, exit_node, to_d, to_q, to_p, to_h, from_d, from_q, from_p,
            from_h, chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, arc_d, arc_q, arc_p,
            front_d, front_q, front_loss, front_hops, front_ptr, rows, F, D, Q, L, H, ENT, LAB, EX, keep, ii,
        )


@njit(cache=True, nogil=True)
def _resolve_ser(
    sources, n, core_of, row_of_core, nexit, exit_node, to_d, to_q, to_p, to_h, from_d, from_q, from_p, from_h,
    chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, arc_d, arc_q, arc_p,
    front_d, front_q, front_loss, front_hops, front_ptr, rows, F, D, Q, L, H, ENT, LAB, EX, keep,
):
    for ii in range(sources.shape[0]):
        _resolve_row(
            sources, n, core_of, row_of_core, nexit, exit_node, to_d, to_q, to_p, to_h, from_d, from_q, from_p,
            from_h, chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, arc_d, arc_q, arc_p,
            front_d, front_q, front_loss, front_hops, front_ptr, rows, F, D, Q, L, H, ENT, LAB, EX, keep, ii,
        )


def resolve(*args, parallel=True):
    """Best TCPBP route from every node of ``sources`` to every node.

    A source enters the core at itself or at its exits (``from_*`` walks); a
    target leaves it at itself or at its exits (``to_*`` walks); candidates are
    every (entry, kept label of the entry's front at the target side, exit)
    plus the direct walk inside a shared chain. Compared by f² = d²·p with
    p = 1 − (1 − p₁)(1 − p₂) evaluated as p₁ + p₂ − p₁p₂, then d, q, hops.

    Writes row ``rows[i]`` of ``F, D, Q, L, H`` (cost f, delay, q, loss p,
    hops; hops -1 when unreachable) and, with ``keep``, of the route codes
    ``ENT`` (entry: 0/1), ``LAB`` (label position in the entry's row, -1
    none) and ``EX`` (-1 core target, 0/1 target exit, 2 direct chain walk,
    3 the source itself).
    """
    (_resolve_par if parallel else _resolve_ser)(*args)


@dataclass
class ReducedAllPairs:
    """Result of :func:`run_all_pairs` (see :func:`resolve` for the codes).

    Sources are processed in blocks; ``block_of[i]`` is the block of source
    row ``i`` and ``blocks[b] = (row_of_core, front_arc, front_parent)`` the fronts' arcs and
    parents of block ``b`` (kept only with ``keep_routes``).
    """

    red: Reduction
    sources: np.ndarray
    F: np.ndarray
    D: np.ndarray
    Q: np.ndarray
    L: np.ndarray
    H: np.ndarray
    ENT: np.ndarray | None
    LAB: np.ndarray | None
    EX: np.ndarray | None
    block_of: np.ndarray | None
    blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]]

    def arcs(self, i: int, t: int) -> list[int] | None:
        if self.H[i, t] < 0:
            return None
        if self.ENT is None:
            raise LookupError("routes were not kept (keep_routes=False)")
        return route_arcs(self, int(self.sources[i]), t, i)


_BLOCK_BYTES = 256 * 2**20


def run_all_pairs(
    red: Reduction,
    sources: np.ndarray,
    n: int,
    arc_d: np.ndarray,
    arc_q: np.ndarray,
    keep_routes: bool = True,
    slot: int | None = None,
    block_bytes: int = _BLOCK_BYTES,
) -> ReducedAllPairs:
    """Exact TCPBP from ``sources`` to every node via the core fronts.

    Sources are grouped by the core node they enter at and processed in
    blocks whose fronts fit in about ``block_bytes``; each block computes the
    fronts of the core nodes its sources need, then resolves its rows.
    ``slot`` (labels per front row, default 16 per core node) only sizes the
    first buffers; rows that need more are recomputed.
    """
    ns = sources.shape[0]
    F = np.empty((ns, n))
    D = np.empty((ns, n))
    Q = np.empty((ns, n))
    L = np.empty((ns, n))
    H = np.empty((ns, n), dtype=np.int32)
    shape = (ns, n) if keep_routes else (1, 1)
    ENT = np.empty(shape, dtype=np.int8)
    LAB = np.empty(shape, dtype=np.int32)
    EX = np.empty(shape, dtype=np.int8)
    block_of = np.empty(ns, dtype=np.int64) if keep_routes else None
    blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    if ns == 0:
        return ReducedAllPairs(red, sources, F, D, Q, L, H, ENT, LAB, EX, block_of, blocks)
    entry = np.where(red.core_of[sources] >= 0, red.core_of[sources], red.exit_node[sources, 0])
    order = np.argsort(entry, kind="stable")
    hargs = (red.h_indptr, red.h_adj, red.h_dst, red.h_d, red.h_q, red.h_hops)
    arc_p = -np.expm1(-arc_q)
    to_p = -np.expm1(-red.to_q)
    from_p = -np.expm1(-red.from_q)
    slot = 16 * red.nc + 64 if slot is None else slot
    parallel = ns * n > PARALLEL_MIN_PAIRS
    pos = 0
    while pos < ns:
        rows_cap = max(1, int(block_bytes // (36 * slot)))
        take = order[pos : pos + rows_cap]
        srcs = sources[take]
        need = set()
        for s in srcs:
            s = int(s)
            if red.core_of[s] >= 0:
                need.add(int(red.core_of[s]))
            else:
                for e in range(int(red.nexit[s])):
                    need.add(int(red.exit_node[s, e]))
        cores = np.array(sorted(need), dtype=np.int64)
        row_of_core = np.full(max(red.nc, 1), -1, dtype=np.int64)
        row_of_core[cores] = np.arange(cores.shape[0])
        front_d, front_q, front_loss, front_hops, front_arc, front_parent, front_ptr, front_count = core_fronts(*hargs, cores, slot, parallel=parallel)
        over = np.nonzero(front_count < 0)[0]
        if over.size:  # recompute only the rows that did not fit, then widen
            wide = int(-front_count[over].min())
            parts = core_fronts(*hargs, cores[over], wide)
            merged = []
            for old, new in zip((front_d, front_q, front_loss, front_hops, front_arc, front_parent), parts[:6]):
                arr = np.empty((old.shape[0], wide), dtype=old.dtype)
                arr[:, : old.shape[1]] = old
                arr[over] = new
                merged.append(arr)
            front_d, front_q, front_loss, front_hops, front_arc, front_parent = merged
            front_ptr[over] = parts[6]
            front_count[over] = parts[7]
        resolve(
            srcs, n, red.core_of, row_of_core, red.nexit, red.exit_node,
            red.to_d, red.to_q, to_p, red.to_h, red.from_d, red.from_q, from_p, red.from_h,
            red.chain_of, red.chain_pos, red.chain_ptr, red.fwd_arc, red.bwd_arc, arc_d, arc_q, arc_p,
            front_d, front_q, front_loss, front_hops, front_ptr, take, F, D, Q, L, H, ENT, LAB, EX, keep_routes, parallel=parallel,
        )
        if keep_routes:
            block_of[take] = len(blocks)  # type: ignore[index]
            width = int(front_count.max()) if front_count.size else 0
            blocks.append((row_of_core, front_arc[:, :width].copy(), front_parent[:, :width].copy()))
        # size the next blocks' buffers from what this one needed
        slot = max(64, int(1.25 * int(front_count.max())) + 64) if front_count.size else slot
        pos += take.shape[0]
    if not keep_routes:
        return ReducedAllPairs(red, sources, F, D, Q, L, H, None, None, None, None, blocks)
    return ReducedAllPairs(red, sources, F, D, Q, L, H, ENT, LAB, EX, block_of, blocks)


def route_arcs(res: ReducedAllPairs, s: int, t: int, i: int) -> list[int]:
    """Original arcs of the route from source ``s`` (row ``i``) to ``t`` (see :func:`_write_route`)."""
    red = res.red
    row_of_core, front_arc, front_parent = res.blocks[int(res.block_of[i])]  # type: ignore[index]
    out = np.empty(max(int(res.H[i, t]), 0), dtype=np.int64)
    tmp = np.empty(front_arc.shape[1] + 1, dtype=np.int64)
    _write_route(
        i, t, s, res.ENT, res.LAB, res.EX, front_arc, front_parent, row_of_core, red.core_of, red.exit_node, red.chain_of,
        red.chain_pos, red.chain_ptr, red.fwd_arc, red.bwd_arc, red.leaf_arc_from, red.leaf_arc_to, red.h_ref,
        tmp, out, 0,
    )
    return out.tolist()


# --------------------------------------------------------------------------- route expansion (all rows at once)


@njit(cache=True, nogil=True)
def _walk_arcs(v, e, to_node, chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, leaf_from, leaf_to, out, pos):
    """Write the forced walk between non-core node ``v`` and its exit ``e``
    (``to_node``: exit → v, else v → exit) at ``out[pos:]``; returns the new position."""
    c = chain_of[v]
    if c < 0:
        out[pos] = leaf_to[v] if to_node else leaf_from[v]
        return pos + 1
    j = chain_pos[v]
    base = chain_ptr[c]
    k = chain_ptr[c + 1] - base - 1
    if e == 0:
        if to_node:
            for x in range(j):
                out[pos] = fwd_arc[base + x]
                pos += 1
        else:
            for x in range(j - 1, -1, -1):
                out[pos] = bwd_arc[base + x]
                pos += 1
    else:
        if to_node:
            for x in range(k - 1, j - 1, -1):
                out[pos] = bwd_arc[base + x]
                pos += 1
        else:
            for x in range(j, k):
                out[pos] = fwd_arc[base + x]
                pos += 1
    return pos


@njit(cache=True, nogil=True)
def _write_route(
    i, t, s, ENT, LAB, EX, front_arc, front_parent, row_of_core, core_of, exit_node, chain_of, chain_pos, chain_ptr,
    fwd_arc, bwd_arc, leaf_from, leaf_to, h_ref, tmp, out, pos,
):
    """Write the route of source row ``i`` (node ``s``) to ``t`` as original arcs at ``out[pos:]``.

    The route is the forced walk from ``s`` to its entry (unless ``s`` is core),
    the contracted arcs of the kept label (each chain arc expanded to its walk)
    and the forced walk from the exit to ``t`` — or the direct walk when both
    share a chain (``EX == 2``), nothing when ``t == s`` (``EX == 3``). ``tmp``
    holds at least as many entries as a label path. Returns the new position.
    """
    ex = EX[i, t]
    if ex == 3:
        return pos
    if ex == 2:
        c = chain_of[s]
        base = chain_ptr[c]
        i0 = chain_pos[s]
        j0 = chain_pos[t]
        if i0 < j0:
            for x in range(i0, j0):
                out[pos] = fwd_arc[base + x]
                pos += 1
        else:
            for x in range(i0 - 1, j0 - 1, -1):
                out[pos] = bwd_arc[base + x]
                pos += 1
        return pos
    ent = ENT[i, t]
    if core_of[s] >= 0:
        r = row_of_core[core_of[s]]
    else:
        r = row_of_core[exit_node[s, ent]]
        pos = _walk_arcs(s, ent, False, chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, leaf_from, leaf_to, out, pos)
    nl = label_path_into(front_parent[r], front_arc[r], LAB[i, t], tmp)
    for x in range(nl):
        ref = h_ref[tmp[x]]
        if ref >= 0:
            out[pos] = ref
            pos += 1
        else:
            cc = (-ref - 1) // 2
            direction = (-ref - 1) % 2
            base = chain_ptr[cc]
            k = chain_ptr[cc + 1] - base - 1
            if direction == 0:
                for y in range(k):
                    out[pos] = fwd_arc[base + y]
                    pos += 1
            else:
                for y in range(k - 1, -1, -1):
                    out[pos] = bwd_arc[base + y]
                    pos += 1
    if ex == 0 or ex == 1:
        pos = _walk_arcs(t, ex, True, chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, leaf_from, leaf_to, out, pos)
    return pos


@njit(cache=True, nogil=True)
def _expand_rows(
    rows, sources, n, H, ENT, LAB, EX, front_arc, front_parent, row_of_core, core_of, exit_node, chain_of, chain_pos, chain_ptr,
    fwd_arc, bwd_arc, leaf_from, leaf_to, h_ref, offsets, out,
):
    """Write every route of the given source rows as original arcs at ``out[offsets[i, t]:]``."""
    tmp = np.empty(front_arc.shape[1] + 1, dtype=np.int64)
    for ii in range(rows.shape[0]):
        i = rows[ii]
        s = sources[i]
        for t in range(n):
            if H[i, t] <= 0:
                continue
            _write_route(
                i, t, s, ENT, LAB, EX, front_arc, front_parent, row_of_core, core_of, exit_node, chain_of, chain_pos, chain_ptr,
                fwd_arc, bwd_arc, leaf_from, leaf_to, h_ref, tmp, out, offsets[i, t],
            )


def expand_routes(res: ReducedAllPairs) -> tuple[np.ndarray, np.ndarray]:
    """All routes as flat original arcs: route (i, t) is ``out[offsets[i, t]:offsets[i, t] + H[i, t]]``."""
    if res.ENT is None:
        raise LookupError("routes were not kept (keep_routes=False)")
    red = res.red
    lengths = np.maximum(res.H, 0).astype(np.int64)
    offsets = np.zeros(lengths.shape, dtype=np.int64)
    flat = lengths.ravel()
    np.cumsum(flat[:-1], out=offsets.ravel()[1:]) if flat.size > 1 else None
    out = np.empty(int(flat.sum()), dtype=np.int64)
    for b, (row_of_core, front_arc, front_parent) in enumerate(res.blocks):
        rows = np.nonzero(res.block_of == b)[0]
        _expand_rows(
            rows, res.sources, res.H.shape[1], res.H, res.ENT, res.LAB, res.EX, front_arc, front_parent, row_of_core, red.core_of,
            red.exit_node, red.chain_of, red.chain_pos, red.chain_ptr, red.fwd_arc, red.bwd_arc, red.leaf_arc_from,
            red.leaf_arc_to, red.h_ref, offsets, out,
        )
    return offsets, out
