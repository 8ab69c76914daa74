"""Exact all-pairs TCPBP on a contracted graph (private; see :func:`subflow.paths.all_pairs`).

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

from subflow._kernels import INF, njit

try:  # pragma: no cover
    from numba import prange
except ImportError:  # pragma: no cover
    prange = range


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
    m = src.shape[0]
    nbrs: list[dict[int, list[int]]] = [dict() for _ in range(n)]  # neighbour -> arcs (either direction)
    for a in range(m):
        u, v = int(src[a]), int(dst[a])
        if u == v:
            continue
        nbrs[u].setdefault(v, []).append(a)
        nbrs[v].setdefault(u, []).append(a)

    def simple(v: int) -> bool:
        # at most one arc per direction to each neighbour
        for w, arcs in nbrs[v].items():
            outs = sum(1 for a in arcs if src[a] == v)
            if outs > 1 or len(arcs) - outs > 1:
                return False
        return True

    kind = np.zeros(n, dtype=np.int8)  # 0 core, 1 leaf, 2 chain
    for v in range(n):
        deg = len(nbrs[v])
        if deg == 1 and simple(v):
            kind[v] = 1
        elif deg == 2 and simple(v):
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

    def arc(u: int, v: int) -> int:
        for a in nbrs[u].get(v, ()):
            if src[a] == u:
                return a
        return -1

    # walk chains; a ring of chain nodes gets its first node promoted to core
    chains: list[list[int]] = []
    in_chain = np.full(n, -1, dtype=np.int64)

    def walk(origin: int, prev: int, cur: int) -> tuple[list[int], int]:
        seq: list[int] = []
        while kind[cur] == 2 and cur != origin:
            seq.append(cur)
            prev, cur = cur, next(w for w in nbrs[cur] if w != prev)
        return seq, cur

    for v in range(n):
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

    core_nodes = np.array([v for v in range(n) if kind[v] == 0], dtype=np.int64)
    core_of = np.full(n, -1, dtype=np.int64)
    core_of[core_nodes] = np.arange(core_nodes.shape[0])
    nc = core_nodes.shape[0]

    # chain arrays
    chain_ptr = np.zeros(len(chains) + 1, dtype=np.int64)
    for i, c in enumerate(chains):
        chain_ptr[i + 1] = chain_ptr[i] + len(c)
    chain_seq = np.array([v for c in chains for v in c], dtype=np.int64)
    fwd = np.full(chain_seq.shape[0], -1, dtype=np.int64)
    bwd = np.full(chain_seq.shape[0], -1, dtype=np.int64)
    for i, c in enumerate(chains):
        base = chain_ptr[i]
        for j in range(len(c) - 1):
            fwd[base + j] = arc(c[j], c[j + 1])
            bwd[base + j] = arc(c[j + 1], c[j])

    # contracted arcs
    hs, hd, hw, hq, hh, href = [], [], [], [], [], []
    for a in range(m):
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
    h_src = np.array(hs, dtype=np.int64)
    order = np.argsort(h_src, kind="stable")
    h_indptr = np.zeros(nc + 1, dtype=np.int64)
    np.add.at(h_indptr, h_src + 1, 1)
    h_indptr = np.cumsum(h_indptr)
    remap = np.empty(len(hs), dtype=np.int64)
    remap[order] = np.arange(len(hs))
    chain_harc = np.where(chain_harc >= 0, remap[np.maximum(chain_harc, 0)], -1)

    def walk_sums(arcs: list[int]) -> tuple[float, float, int]:
        if any(a < 0 for a in arcs):
            return INF, INF, -1
        sd = 0.0
        sq = 0.0
        for a in arcs:
            sd += d[a]
            sq += q[a]
        return sd, sq, len(arcs)

    nexit = np.zeros(n, dtype=np.int64)
    exit_node = np.full((n, 2), -1, dtype=np.int64)
    to = np.full((3, n, 2), INF)
    fr = np.full((3, n, 2), INF)
    chain_of = np.full(n, -1, dtype=np.int64)
    chain_pos = np.full(n, -1, dtype=np.int64)
    leaf_to = np.full(n, -1, dtype=np.int64)
    leaf_from = np.full(n, -1, dtype=np.int64)
    for v in range(n):
        if kind[v] == 1:
            (w,) = nbrs[v]
            nexit[v] = 1
            exit_node[v, 0] = core_of[w]
            leaf_to[v], leaf_from[v] = arc(w, v), arc(v, w)
            to[:, v, 0] = walk_sums([leaf_to[v]])
            fr[:, v, 0] = walk_sums([leaf_from[v]])
    for i, c in enumerate(chains):
        base, k = chain_ptr[i], len(c) - 1
        for j in range(1, k):
            v = c[j]
            chain_of[v], chain_pos[v] = i, j
            nexit[v] = 2
            exit_node[v, 0], exit_node[v, 1] = core_of[c[0]], core_of[c[-1]]
            to[:, v, 0] = walk_sums(list(fwd[base : base + j]))
            fr[:, v, 0] = walk_sums(list(bwd[base : base + j][::-1]))
            to[:, v, 1] = walk_sums(list(bwd[base + j : base + k][::-1]))
            fr[:, v, 1] = walk_sums(list(fwd[base + j : base + k]))
    return Reduction(
        nc=nc,
        core_of=core_of,
        core_nodes=core_nodes,
        h_indptr=h_indptr,
        h_adj=order.astype(np.int64),
        h_dst=np.array(hd, dtype=np.int64),
        h_d=np.array(hw, dtype=np.float64),
        h_q=np.array(hq, dtype=np.float64),
        h_hops=np.array(hh, dtype=np.int64),
        h_ref=np.array(href, dtype=np.int64),
        nexit=nexit,
        exit_node=exit_node,
        to_d=to[0].copy(),
        to_q=to[1].copy(),
        to_h=to[2].astype(np.int64),
        from_d=fr[0].copy(),
        from_q=fr[1].copy(),
        from_h=fr[2].astype(np.int64),
        chain_of=chain_of,
        chain_pos=chain_pos,
        chain_ptr=chain_ptr,
        chain_seq=chain_seq,
        fwd_arc=fwd,
        bwd_arc=bwd,
        chain_harc=chain_harc,
        leaf_arc_to=leaf_to,
        leaf_arc_from=leaf_from,
    )


# --------------------------------------------------------------------------- kernels


@njit(cache=True, inline="always")
def _less(D, Q, H, i, j):
    if D[i] != D[j]:
        return D[i] < D[j]
    if Q[i] != Q[j]:
        return Q[i] < Q[j]
    if H[i] != H[j]:
        return H[i] < H[j]
    return i < j


@njit(cache=True, inline="always")
def _f(d, q):
    if q <= 0.0 or d <= 0.0:
        return 0.0
    return d * math.sqrt(-math.expm1(-q))


@njit(cache=True, inline="always")
def _better(f1, d1, q1, h1, f2, d2, q2, h2):
    if f1 != f2:
        return f1 < f2
    if d1 != d2:
        return d1 < d2
    if q1 != q2:
        return q1 < q2
    return h1 < h2


@njit(cache=True)
def _search(h_indptr, h_adj, h_dst, h_d, h_q, h_hops, seeds_n, seeds_d, seeds_q, seeds_h, ban0, ban1):
    """Multi-seed Pareto label setting on the contracted graph.

    Returns label arrays (D, Q, N, P, A, H) where A is the contracted arc (or
    ``-1 - seed index`` for a seed), the number of labels, and the kept labels
    grouped per node as CSR ``(kptr, kept)``.
    """
    nc = h_indptr.shape[0] - 1
    qmin = np.full(nc, INF)
    cap = 4 * nc + 16
    D = np.empty(cap)
    Q = np.empty(cap)
    N = np.empty(cap, dtype=np.int32)
    P = np.empty(cap, dtype=np.int32)
    A = np.empty(cap, dtype=np.int32)
    H = np.empty(cap, dtype=np.int32)
    heap = np.empty(cap, dtype=np.int32)
    kept = np.empty(cap, dtype=np.int32)
    nk = 0
    npool = 0
    hs = 0
    for i in range(seeds_n.shape[0]):
        if seeds_d[i] == INF:
            continue
        D[npool] = seeds_d[i]
        Q[npool] = seeds_q[i]
        N[npool] = seeds_n[i]
        P[npool] = -1
        A[npool] = -1 - i
        H[npool] = seeds_h[i]
        j = hs
        hs += 1
        while j > 0:
            p = (j - 1) >> 1
            if _less(D, Q, H, npool, heap[p]):
                heap[j] = heap[p]
                j = p
            else:
                break
        heap[j] = npool
        npool += 1
    while hs > 0:
        lab = heap[0]
        hs -= 1
        if hs > 0:
            x = heap[hs]
            i = 0
            while True:
                left = 2 * i + 1
                if left >= hs:
                    break
                c = left
                if left + 1 < hs and _less(D, Q, H, heap[left + 1], heap[left]):
                    c = left + 1
                if _less(D, Q, H, heap[c], x):
                    heap[i] = heap[c]
                    i = c
                else:
                    break
            heap[i] = x
        v = N[lab]
        q = Q[lab]
        if q >= qmin[v]:
            continue
        qmin[v] = q
        kept[nk] = lab
        nk += 1
        d = D[lab]
        h = H[lab]
        for k in range(h_indptr[v], h_indptr[v + 1]):
            a = h_adj[k]
            if a == ban0 or a == ban1:
                continue
            w = h_dst[a]
            nq = q + h_q[a]
            if nq >= qmin[w]:
                continue
            if npool == cap:
                cap *= 2
                D2 = np.empty(cap)
                D2[:npool] = D[:npool]
                D = D2
                Q2 = np.empty(cap)
                Q2[:npool] = Q[:npool]
                Q = Q2
                N2 = np.empty(cap, dtype=np.int32)
                N2[:npool] = N[:npool]
                N = N2
                P2 = np.empty(cap, dtype=np.int32)
                P2[:npool] = P[:npool]
                P = P2
                A2 = np.empty(cap, dtype=np.int32)
                A2[:npool] = A[:npool]
                A = A2
                H2 = np.empty(cap, dtype=np.int32)
                H2[:npool] = H[:npool]
                H = H2
                hp2 = np.empty(cap, dtype=np.int32)
                hp2[:hs] = heap[:hs]
                heap = hp2
                k2 = np.empty(cap, dtype=np.int32)
                k2[:nk] = kept[:nk]
                kept = k2
            D[npool] = d + h_d[a]
            Q[npool] = nq
            N[npool] = w
            P[npool] = lab
            A[npool] = a
            H[npool] = h + h_hops[a]
            j = hs
            hs += 1
            while j > 0:
                p = (j - 1) >> 1
                if _less(D, Q, H, npool, heap[p]):
                    heap[j] = heap[p]
                    j = p
                else:
                    break
            heap[j] = npool
            npool += 1
    # group kept labels per node (stable: in kept order = increasing d)
    kptr = np.zeros(nc + 1, dtype=np.int64)
    for i in range(nk):
        kptr[N[kept[i]] + 1] += 1
    for v in range(nc):
        kptr[v + 1] += kptr[v]
    fill = kptr[:-1].copy()
    grouped = np.empty(nk, dtype=np.int32)
    for i in range(nk):
        v = N[kept[i]]
        grouped[fill[v]] = kept[i]
        fill[v] += 1
    return D, Q, N, P, A, H, npool, kptr, grouped


@njit(cache=True)
def _one_source(
    s, n, core_of, h_indptr, h_adj, h_dst, h_d, h_q, h_hops, nexit, exit_node,
    to_d, to_q, to_h, from_d, from_q, from_h, chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, chain_harc,
    arc_d, arc_q, Frow, Drow, Qrow, Hrow, Erow, Brow, tree_a, tree_p, slot,
):
    """Resolve every target of source ``s``; writes the rows and the compact
    label tree into ``tree_a``/``tree_p`` (at most ``slot`` labels).

    Returns the tree size, or -needed if ``slot`` is too small.
    """
    cs = core_of[s]
    if cs >= 0:
        seeds_n = np.array([cs], dtype=np.int64)
        seeds_d = np.array([0.0])
        seeds_q = np.array([0.0])
        seeds_h = np.array([0], dtype=np.int64)
        ban0 = -2
        ban1 = -2
    else:
        ne = nexit[s]
        seeds_n = exit_node[s, :ne].copy()
        seeds_d = from_d[s, :ne].copy()
        seeds_q = from_q[s, :ne].copy()
        seeds_h = from_h[s, :ne].copy()
        c = chain_of[s]
        if c >= 0:
            ban0 = chain_harc[c, 0]
            ban1 = chain_harc[c, 1]
            if ban0 < 0:
                ban0 = -2
            if ban1 < 0:
                ban1 = -2
        else:
            ban0 = -2
            ban1 = -2
    D, Q, N, P, A, H, npool, kptr, kept = _search(
        h_indptr, h_adj, h_dst, h_d, h_q, h_hops, seeds_n, seeds_d, seeds_q, seeds_h, ban0, ban1
    )
    chosen = np.full(n, -1, dtype=np.int64)
    for t in range(n):
        bf = INF
        bd = INF
        bq = INF
        bh = -1
        blab = -1
        bex = -1
        if t == s:
            bf = 0.0
            bd = 0.0
            bq = 0.0
            bh = 0
            bex = 3
        else:
            ct = core_of[t]
            if ct >= 0:
                for i in range(kptr[ct], kptr[ct + 1]):
                    lab = kept[i]
                    f = _f(D[lab], Q[lab])
                    if blab < 0 or _better(f, D[lab], Q[lab], H[lab], bf, bd, bq, bh):
                        bf = f
                        bd = D[lab]
                        bq = Q[lab]
                        bh = H[lab]
                        blab = lab
                        bex = -1
            else:
                for e in range(nexit[t]):
                    dw = to_d[t, e]
                    if dw == INF:
                        continue
                    qw = to_q[t, e]
                    hw = to_h[t, e]
                    x = exit_node[t, e]
                    for i in range(kptr[x], kptr[x + 1]):
                        lab = kept[i]
                        dd = D[lab] + dw
                        qq = Q[lab] + qw
                        hh = H[lab] + hw
                        f = _f(dd, qq)
                        if bh < 0 or _better(f, dd, qq, hh, bf, bd, bq, bh):
                            bf = f
                            bd = dd
                            bq = qq
                            bh = hh
                            blab = lab
                            bex = e
                c = chain_of[t]
                if c >= 0 and chain_of[s] == c:
                    i0 = chain_pos[s]
                    j0 = chain_pos[t]
                    base = chain_ptr[c]
                    dd = 0.0
                    qq = 0.0
                    ok = True
                    if i0 < j0:
                        for k in range(i0, j0):
                            a = fwd_arc[base + k]
                            if a < 0:
                                ok = False
                                break
                            dd += arc_d[a]
                            qq += arc_q[a]
                    else:
                        for k in range(i0 - 1, j0 - 1, -1):
                            a = bwd_arc[base + k]
                            if a < 0:
                                ok = False
                                break
                            dd += arc_d[a]
                            qq += arc_q[a]
                    if ok:
                        hh = abs(j0 - i0)
                        f = _f(dd, qq)
                        if bh < 0 or _better(f, dd, qq, hh, bf, bd, bq, bh):
                            bf = f
                            bd = dd
                            bq = qq
                            bh = hh
                            blab = -1
                            bex = 2
        Frow[t] = bf
        Drow[t] = bd
        Qrow[t] = bq
        Hrow[t] = bh
        Erow[t] = bex
        chosen[t] = blab
    # compact tree of the chosen labels
    mark = np.zeros(npool, dtype=np.int32)
    for t in range(n):
        lab = chosen[t]
        while lab >= 0 and mark[lab] == 0:
            mark[lab] = 1
            lab = P[lab]
    count = 0
    for i in range(npool):
        if mark[i] != 0:
            count += 1
    if count > slot:
        return -count
    nl = 0
    for i in range(npool):
        if mark[i] != 0:
            mark[i] = nl
            tree_a[nl] = A[i]
            par = P[i]
            tree_p[nl] = mark[par] if par >= 0 else -1
            nl += 1
    for t in range(n):
        lab = chosen[t]
        Brow[t] = mark[lab] if lab >= 0 else -1
    return nl


@njit(cache=True, parallel=True)
def all_pairs_reduced(
    sources, n, core_of, h_indptr, h_adj, h_dst, h_d, h_q, h_hops, nexit, exit_node,
    to_d, to_q, to_h, from_d, from_q, from_h, chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc, chain_harc,
    arc_d, arc_q, slot,
):
    """Exact TCPBP from every node of ``sources``, in parallel over sources.

    Returns ``F, D, Q, H, E, B, TA, TP, TN``: costs, delays, q, hops (-1:
    unreachable), the exit used (-1 core target, 0/1 exit, 2 direct chain
    walk, 3 the source itself), the chosen label in the source's compact tree
    (``TA``: contracted arc or ``-1 - seed``, ``TP``: parent; row ``i`` of
    ``TA``/``TP`` is source ``i``'s tree, ``TN[i]`` its size). Rows whose tree
    did not fit in ``slot`` have ``TN[i] < 0`` and must be recomputed.
    """
    ns = sources.shape[0]
    F = np.empty((ns, n))
    D = np.empty((ns, n))
    Q = np.empty((ns, n))
    H = np.empty((ns, n), dtype=np.int32)
    E = np.empty((ns, n), dtype=np.int8)
    B = np.empty((ns, n), dtype=np.int32)
    TA = np.empty((ns, slot), dtype=np.int32)
    TP = np.empty((ns, slot), dtype=np.int32)
    TN = np.empty(ns, dtype=np.int64)
    for i in prange(ns):
        TN[i] = _one_source(
            sources[i], n, core_of, h_indptr, h_adj, h_dst, h_d, h_q, h_hops, nexit, exit_node,
            to_d, to_q, to_h, from_d, from_q, from_h, chain_of, chain_pos, chain_ptr, fwd_arc, bwd_arc,
            chain_harc, arc_d, arc_q, F[i], D[i], Q[i], H[i], E[i], B[i], TA[i], TP[i], slot,
        )
    return F, D, Q, H, E, B, TA, TP, TN


def run_all_pairs(red: Reduction, sources: np.ndarray, n: int, arc_d: np.ndarray, arc_q: np.ndarray):
    """Call :func:`all_pairs_reduced`, redoing rows whose tree overflowed."""
    args = (
        red.core_of, red.h_indptr, red.h_adj, red.h_dst, red.h_d, red.h_q, red.h_hops, red.nexit, red.exit_node,
        red.to_d, red.to_q, red.to_h, red.from_d, red.from_q, red.from_h, red.chain_of, red.chain_pos,
        red.chain_ptr, red.fwd_arc, red.bwd_arc, red.chain_harc, arc_d, arc_q,
    )
    slot = 2 * red.nc + 16
    F, D, Q, H, E, B, TA, TP, TN = all_pairs_reduced(sources, n, *args, slot)
    trees: list[tuple[np.ndarray, np.ndarray]] = [(TA[i, : TN[i]], TP[i, : TN[i]]) for i in range(len(sources))]
    for i in np.nonzero(TN < 0)[0]:
        need = int(-TN[i])
        ta = np.empty(need, dtype=np.int32)
        tp = np.empty(need, dtype=np.int32)
        _one_source(
            sources[i], n, *args, F[i], D[i], Q[i], H[i], E[i], B[i], ta, tp, need,
        )
        trees[i] = (ta, tp)
    return F, D, Q, H, E, B, trees


def route_arcs(red: Reduction, s: int, t: int, e: int, b: int, tree: tuple[np.ndarray, np.ndarray]) -> list[int]:
    """Original arcs of the route s → t from the compact tree and the exit code."""
    if e == 3:
        return []
    if e == 2:
        c = red.chain_of[s]
        base = red.chain_ptr[c]
        i0, j0 = int(red.chain_pos[s]), int(red.chain_pos[t])
        if i0 < j0:
            return [int(red.fwd_arc[base + k]) for k in range(i0, j0)]
        return [int(red.bwd_arc[base + k]) for k in range(i0 - 1, j0 - 1, -1)]
    ta, tp = tree
    core: list[int] = []
    lab = b
    seed = -1
    while lab >= 0:
        a = int(ta[lab])
        if a < 0:
            seed = -1 - a
            break
        core.append(a)
        lab = int(tp[lab])
    out = _walk_from(red, s, seed) if red.core_of[s] < 0 else []
    for a in reversed(core):
        ref = int(red.h_ref[a])
        if ref >= 0:
            out.append(ref)
        else:
            c, direction = divmod(-ref - 1, 2)
            base, end = int(red.chain_ptr[c]), int(red.chain_ptr[c + 1])
            k = end - base - 1
            if direction == 0:
                out.extend(int(x) for x in red.fwd_arc[base : base + k])
            else:
                out.extend(int(x) for x in red.bwd_arc[base : base + k][::-1])
    if e in (0, 1):
        out.extend(_walk_to(red, t, e))
    return out


def _walk_from(red: Reduction, v: int, e: int) -> list[int]:
    if red.chain_of[v] < 0:
        return [int(red.leaf_arc_from[v])]
    c, j = int(red.chain_of[v]), int(red.chain_pos[v])
    base, k = int(red.chain_ptr[c]), int(red.chain_ptr[c + 1] - red.chain_ptr[c] - 1)
    if e == 0:
        return [int(x) for x in red.bwd_arc[base : base + j][::-1]]
    return [int(x) for x in red.fwd_arc[base + j : base + k]]


def _walk_to(red: Reduction, v: int, e: int) -> list[int]:
    if red.chain_of[v] < 0:
        return [int(red.leaf_arc_to[v])]
    c, j = int(red.chain_of[v]), int(red.chain_pos[v])
    base, k = int(red.chain_ptr[c]), int(red.chain_ptr[c + 1] - red.chain_ptr[c] - 1)
    if e == 0:
        return [int(x) for x in red.fwd_arc[base : base + j]]
    return [int(x) for x in red.bwd_arc[base + j : base + k][::-1]]
