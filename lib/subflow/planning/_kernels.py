"""Compiled inner loops of the path algorithms (private; see :mod:`subflow.planning.shortest_paths`).

Every kernel works on the arrays of :class:`subflow.planning.network.Network`: ``indptr``
and ``adj`` (outgoing arcs per node, CSR), ``arc_dst`` and per-arc weights.
They are compiled with numba (a pinned dependency) and would run as plain,
slow but identical Python without it.

Every search keeps its pending entries in one binary heap (:func:`heap_push`,
:func:`heap_pop`: three lexicographic key columns and a payload column) and
every route is read back by one walk: :func:`tree_path_into`/:func:`tree_path`
over a predecessor tree (one arc per node), :func:`label_path_into`/:func:`label_path`
over a label tree (parent label and arc per label); :mod:`subflow.planning._reduction`
uses the same ones. They are
``inline="always"`` or plain compiled calls, cached with the callers
(``cache=True``). Numba's cache does not notice edits to a *called* function
in another file: after changing one of these, delete ``lib/subflow/__pycache__/*.nbi``
(or touch the calling modules).

Implementation note: buffers are sized before the main loop and never grown
inside it (re-binding an array in a numba loop made these kernels ~3× slower).
Dijkstra-type searches push at most once per scanned arc, so ``m + 1`` heap
slots suffice; the label-setting search returns -1 when its buffer is full and
is retried with a larger one.
"""

from __future__ import annotations

import math

import numpy as np

from subflow.compiled import njit, prange


INF = np.inf


@njit(cache=True, inline="always")
def tcpbp_f(d, q):
    """f = d·√p with p = 1 − e^(−q) (thesis Eq. 2.3 in its d·√p form)."""
    if q <= 0.0 or d <= 0.0:
        return 0.0
    return d * math.sqrt(-math.expm1(-q))


@njit(cache=True, inline="always")
def lex_lt(a1, a2, a3, b1, b2, b3):
    """(a1, a2, a3) < (b1, b2, b3) lexicographically."""
    if a1 != b1:
        return a1 < b1
    if a2 != b2:
        return a2 < b2
    return a3 < b3


# --------------------------------------------------------------------------- shared building blocks
#
# Every search below keeps its pending entries in one binary min-heap held in
# four preallocated arrays: three key columns compared lexicographically
# (K1, K2, K3) and a payload column (V: a node or a label). Callers read the
# top entry at index 0, then call heap_pop.


@njit(cache=True, inline="always")
def heap_push(K1, K2, K3, V, hs, k1, k2, k3, v):
    """Insert ``(k1, k2, k3) -> v`` into the heap of size ``hs`` (sift up); return the new size.

    The arrays must have room for ``hs + 1`` entries.
    """
    j = hs
    while j > 0:
        p = (j - 1) >> 1
        if lex_lt(k1, k2, k3, K1[p], K2[p], K3[p]):
            K1[j] = K1[p]
            K2[j] = K2[p]
            K3[j] = K3[p]
            V[j] = V[p]
            j = p
        else:
            break
    K1[j] = k1
    K2[j] = k2
    K3[j] = k3
    V[j] = v
    return hs + 1


@njit(cache=True, inline="always")
def heap_pop(K1, K2, K3, V, hs):
    """Remove the top entry (index 0) of the heap of size ``hs > 0`` (sift down); return the new size."""
    hs -= 1
    if hs > 0:
        x1 = K1[hs]
        x2 = K2[hs]
        x3 = K3[hs]
        xv = V[hs]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= hs:
                break
            if c + 1 < hs and lex_lt(K1[c + 1], K2[c + 1], K3[c + 1], K1[c], K2[c], K3[c]):
                c += 1
            if lex_lt(K1[c], K2[c], K3[c], x1, x2, x3):
                K1[i] = K1[c]
                K2[i] = K2[c]
                K3[i] = K3[c]
                V[i] = V[c]
                i = c
            else:
                break
        K1[i] = x1
        K2[i] = x2
        K3[i] = x3
        V[i] = xv
    return hs


@njit(cache=True, nogil=True)
def tree_path_into(pred, arc_src, s, t, out, end):
    """Write the arcs of the predecessor-tree path ``s → t`` so that it ends at ``out[end - 1]``;
    return the position of its first arc. ``pred[v]`` is the arc into ``v``."""
    pos = end
    v = t
    while v != s:
        a = pred[v]
        pos -= 1
        out[pos] = a
        v = arc_src[a]
    return pos


@njit(cache=True, nogil=True)
def tree_path(pred, arc_src, s, t):
    """Arcs of the predecessor-tree path ``s → t`` in order (``t`` must be reached)."""
    h = 0
    v = t
    while v != s:
        h += 1
        v = arc_src[pred[v]]
    out = np.empty(h, dtype=np.int64)
    tree_path_into(pred, arc_src, s, t, out, h)
    return out


@njit(cache=True, nogil=True)
def label_path_into(parent, arc, j, out):
    """Write the arcs of the label-tree path ending at label ``j`` root first at ``out[:count]``; return count.

    ``arc[x]`` is the arc into label ``x`` (< 0 at the root) and ``parent[x]`` its parent label.
    """
    h = 0
    x = j
    while x >= 0 and arc[x] >= 0:
        h += 1
        x = parent[x]
    pos = h
    x = j
    while pos > 0:
        pos -= 1
        out[pos] = arc[x]
        x = parent[x]
    return h


@njit(cache=True, nogil=True)
def label_path(parent, arc, j):
    """Arcs of the label-tree path ending at label ``j``, root first (see :func:`label_path_into`)."""
    h = 0
    x = j
    while x >= 0 and arc[x] >= 0:
        h += 1
        x = parent[x]
    out = np.empty(h, dtype=np.int64)
    label_path_into(parent, arc, j, out)
    return out


# --------------------------------------------------------------------------- exact TCPBP, single source


@njit(cache=True, nogil=True)
def bicrit(indptr, adj, arc_dst, arc_d, arc_q, s, d0, q0, h0, node_ok, arc_ok, target, lbd, lbq, cap):
    """Pareto label-setting search on (d, q) from ``s`` with a start label.

    Labels are popped in lexicographic (d, q, hops) order; a label is kept iff
    its q is below every q kept at its node so far (so the kept labels of a
    node are exactly its Pareto front). With ``target >= 0`` the search does
    not expand the target and prunes a label when f(d + lbd, q + lbq) — the
    lower bounds ``lbd``/``lbq`` being least d and least q to the target — is
    not below the best f found at the target.

    Returns ``(LD, LQ, LI, npool, best, bestf)``: label delays, q, and
    ``LI[:, 0..3]`` = node, parent label, arc, hops; per node the kept label
    of least f (ties: kept first, i.e. least d). ``npool`` is -1 if ``cap``
    labels were not enough.
    """
    n = indptr.shape[0] - 1
    qmin = np.full(n, INF)
    best = np.full(n, -1, dtype=np.int64)
    bestf = np.full(n, INF)
    LD = np.empty(cap)
    LQ = np.empty(cap)
    LI = np.empty((cap, 4), dtype=np.int64)
    HD = np.empty(cap)
    HQ = np.empty(cap)
    HH = np.empty(cap, dtype=np.int64)
    HL = np.empty(cap, dtype=np.int64)
    LD[0] = d0
    LQ[0] = q0
    LI[0, 0] = s
    LI[0, 1] = -1
    LI[0, 2] = -1
    LI[0, 3] = h0
    npool = 1
    hs = heap_push(HD, HQ, HH, HL, 0, d0, q0, h0, 0)
    fb = INF
    pruning = target >= 0
    while hs > 0:
        d = HD[0]
        q = HQ[0]
        lab = HL[0]
        hs = heap_pop(HD, HQ, HH, HL, hs)
        v = LI[lab, 0]
        if q >= qmin[v]:
            continue
        if pruning and tcpbp_f(d + lbd[v], q + lbq[v]) >= fb:
            continue
        qmin[v] = q
        f = tcpbp_f(d, q)
        if f < bestf[v]:
            bestf[v] = f
            best[v] = lab
        if v == target:
            if f < fb:
                fb = f
            continue
        h = LI[lab, 3] + 1
        for k in range(indptr[v], indptr[v + 1]):
            a = adj[k]
            if not arc_ok[a]:
                continue
            w = arc_dst[a]
            if not node_ok[w]:
                continue
            nq = q + arc_q[a]
            if nq >= qmin[w]:
                continue
            nd = d + arc_d[a]
            if pruning:
                if lbd[w] == INF:
                    continue
                if tcpbp_f(nd + lbd[w], nq + lbq[w]) >= fb:
                    continue
            if npool == cap:
                return LD, LQ, LI, -1, best, bestf
            LD[npool] = nd
            LQ[npool] = nq
            LI[npool, 0] = w
            LI[npool, 1] = lab
            LI[npool, 2] = a
            LI[npool, 3] = h
            hs = heap_push(HD, HQ, HH, HL, hs, nd, nq, h, npool)
            npool += 1
    return LD, LQ, LI, npool, best, bestf


def bicrit_search(indptr, adj, arc_dst, arc_d, arc_q, s, d0, q0, h0, node_ok, arc_ok, target, lbd, lbq):
    """:func:`bicrit` with buffers grown (by retrying) until the search fits."""
    cap = 8 * (indptr.shape[0] - 1) + 64
    while True:
        out = bicrit(indptr, adj, arc_dst, arc_d, arc_q, s, d0, q0, h0, node_ok, arc_ok, target, lbd, lbq, cap)
        if out[3] >= 0:
            return out
        cap *= 4


# --------------------------------------------------------------------------- thesis Algorithm 1 (single label)


@njit(cache=True, nogil=True)
def greedy(indptr, adj, arc_dst, arc_d, arc_q, s, d0, q0, node_ok, arc_ok, target):
    """The thesis's modified Dijkstra: one label per node, relaxation on f.

    A node's label is replaced only when the extended path has a strictly
    smaller f (Algorithm 1); nodes are settled in increasing f (ties: smaller
    d, then first pushed). Returns ``(D, Q, F, pred_arc, hops)``.
    """
    n = indptr.shape[0] - 1
    D = np.full(n, INF)
    Q = np.full(n, INF)
    F = np.full(n, INF)
    pred = np.full(n, -1, dtype=np.int64)
    hops = np.full(n, -1, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    cap = arc_dst.shape[0] + 1
    K1 = np.empty(cap)
    K2 = np.empty(cap)
    K3 = np.empty(cap, dtype=np.int64)
    NODE = np.empty(cap, dtype=np.int64)
    D[s] = d0
    Q[s] = q0
    F[s] = tcpbp_f(d0, q0)
    hops[s] = 0
    hs = heap_push(K1, K2, K3, NODE, 0, F[s], d0, 0, s)
    count = 1
    while hs > 0:
        kf = K1[0]
        kd = K2[0]
        v = NODE[0]
        hs = heap_pop(K1, K2, K3, NODE, hs)
        if done[v] or kf != F[v] or kd != D[v]:
            continue
        done[v] = True
        if v == target:
            break
        for k in range(indptr[v], indptr[v + 1]):
            a = adj[k]
            if not arc_ok[a]:
                continue
            w = arc_dst[a]
            if done[w] or not node_ok[w]:
                continue
            nd = D[v] + arc_d[a]
            nq = Q[v] + arc_q[a]
            nf = tcpbp_f(nd, nq)
            if nf < F[w]:
                F[w] = nf
                D[w] = nd
                Q[w] = nq
                pred[w] = a
                hops[w] = hops[v] + 1
                hs = heap_push(K1, K2, K3, NODE, hs, nf, nd, count, w)
                count += 1
    return D, Q, F, pred, hops


@njit(cache=True, nogil=True)
def _greedy_row(indptr, adj, arc_dst, arc_d, arc_q, sources, node_ok, arc_ok, F, D, Q, H, P, si):
    n = indptr.shape[0] - 1
    d, q, f, pred, hops = greedy(indptr, adj, arc_dst, arc_d, arc_q, sources[si], 0.0, 0.0, node_ok, arc_ok, -1)
    for t in range(n):
        F[si, t] = f[t]
        D[si, t] = d[t]
        Q[si, t] = q[t]
        H[si, t] = hops[t]
        P[si, t] = pred[t]


@njit(cache=True, nogil=True, parallel=True)
def _greedy_all_par(indptr, adj, arc_dst, arc_d, arc_q, sources, node_ok, arc_ok, F, D, Q, H, P):
    for si in prange(sources.shape[0]):
        _greedy_row(indptr, adj, arc_dst, arc_d, arc_q, sources, node_ok, arc_ok, F, D, Q, H, P, si)


@njit(cache=True, nogil=True)
def _greedy_all_ser(indptr, adj, arc_dst, arc_d, arc_q, sources, node_ok, arc_ok, F, D, Q, H, P):
    for si in range(sources.shape[0]):
        _greedy_row(indptr, adj, arc_dst, arc_d, arc_q, sources, node_ok, arc_ok, F, D, Q, H, P, si)


PARALLEL_MIN_PAIRS = 100_000
"""Below this many (source, target) pairs the all-pairs kernels run on one thread
(a thread barrier costs milliseconds on a busy machine)."""


def greedy_all_pairs(indptr, adj, arc_dst, arc_d, arc_q, sources):
    """:func:`greedy` from every source: ``F, D, Q, H, P`` (P: predecessor arc)."""
    n = indptr.shape[0] - 1
    ns = sources.shape[0]
    F = np.empty((ns, n))
    D = np.empty((ns, n))
    Q = np.empty((ns, n))
    H = np.empty((ns, n), dtype=np.int32)
    P = np.empty((ns, n), dtype=np.int32)
    ok_n = np.ones(n, dtype=np.bool_)
    ok_a = np.ones(arc_dst.shape[0], dtype=np.bool_)
    fn = _greedy_all_par if ns * n > PARALLEL_MIN_PAIRS else _greedy_all_ser
    fn(indptr, adj, arc_dst, arc_d, arc_q, sources, ok_n, ok_a, F, D, Q, H, P)
    return F, D, Q, H, P


# --------------------------------------------------------------------------- additive metrics (lexicographic Dijkstra)


@njit(cache=True, nogil=True)
def lex_dijkstra(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, s, node_ok, arc_ok, target):
    """Dijkstra on the lexicographic pair (Σw1, Σw2); ties: first found.

    Also accumulates the delay (Σarc_d) and q (Σarc_q) of each tree path.
    Returns ``(dist1, dist2, pred_arc, hops, delay, q)``.
    """
    n = indptr.shape[0] - 1
    d1 = np.full(n, INF)
    d2 = np.full(n, INF)
    dd = np.full(n, INF)
    qq = np.full(n, INF)
    pred = np.full(n, -1, dtype=np.int64)
    hops = np.full(n, -1, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    cap = arc_dst.shape[0] + 1
    K1 = np.empty(cap)
    K2 = np.empty(cap)
    K3 = np.empty(cap, dtype=np.int64)
    NODE = np.empty(cap, dtype=np.int64)
    d1[s] = 0.0
    d2[s] = 0.0
    dd[s] = 0.0
    qq[s] = 0.0
    hops[s] = 0
    hs = heap_push(K1, K2, K3, NODE, 0, 0.0, 0.0, 0, s)
    count = 1
    while hs > 0:
        k1 = K1[0]
        k2 = K2[0]
        v = NODE[0]
        hs = heap_pop(K1, K2, K3, NODE, hs)
        if done[v] or k1 != d1[v] or k2 != d2[v]:
            continue
        done[v] = True
        if v == target:
            break
        for k in range(indptr[v], indptr[v + 1]):
            a = adj[k]
            if not arc_ok[a]:
                continue
            w = arc_dst[a]
            if done[w] or not node_ok[w]:
                continue
            n1 = d1[v] + w1[a]
            n2 = d2[v] + w2[a]
            if n1 < d1[w] or (n1 == d1[w] and n2 < d2[w]):
                d1[w] = n1
                d2[w] = n2
                dd[w] = dd[v] + arc_d[a]
                qq[w] = qq[v] + arc_q[a]
                pred[w] = a
                hops[w] = hops[v] + 1
                hs = heap_push(K1, K2, K3, NODE, hs, n1, n2, count, w)
                count += 1
    return d1, d2, pred, hops, dd, qq


@njit(cache=True, nogil=True)
def _lex_row(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, sources, node_ok, arc_ok, C1, D, Q, H, P, si):
    n = indptr.shape[0] - 1
    c1, c2, pred, hops, dd, qq = lex_dijkstra(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, sources[si], node_ok, arc_ok, -1)
    for t in range(n):
        C1[si, t] = c1[t]
        D[si, t] = dd[t]
        Q[si, t] = qq[t]
        H[si, t] = hops[t]
        P[si, t] = pred[t]


@njit(cache=True, nogil=True, parallel=True)
def _lex_all_par(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, sources, node_ok, arc_ok, C1, D, Q, H, P):
    for si in prange(sources.shape[0]):
        _lex_row(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, sources, node_ok, arc_ok, C1, D, Q, H, P, si)


@njit(cache=True, nogil=True)
def _lex_all_ser(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, sources, node_ok, arc_ok, C1, D, Q, H, P):
    for si in range(sources.shape[0]):
        _lex_row(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, sources, node_ok, arc_ok, C1, D, Q, H, P, si)


def lex_all_pairs(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, sources):
    """:func:`lex_dijkstra` from every source: ``(C1, D, Q, H, P)``."""
    n = indptr.shape[0] - 1
    ns = sources.shape[0]
    C1 = np.empty((ns, n))
    D = np.empty((ns, n))
    Q = np.empty((ns, n))
    H = np.empty((ns, n), dtype=np.int32)
    P = np.empty((ns, n), dtype=np.int32)
    ok_n = np.ones(n, dtype=np.bool_)
    ok_a = np.ones(arc_dst.shape[0], dtype=np.bool_)
    fn = _lex_all_par if ns * n > PARALLEL_MIN_PAIRS else _lex_all_ser
    fn(indptr, adj, arc_dst, w1, w2, arc_d, arc_q, sources, ok_n, ok_a, C1, D, Q, H, P)
    return C1, D, Q, H, P


@njit(cache=True, nogil=True)
def expand_pred(P, H, sources, arc_src, offsets, out):
    """Routes of predecessor trees as flat arcs: route (i, t) at ``out[offsets[i, t]:][:H[i, t]]``."""
    ns, n = P.shape
    for i in range(ns):
        s = sources[i]
        for t in range(n):
            h = H[i, t]
            if h <= 0:
                continue
            tree_path_into(P[i], arc_src, s, t, out, offsets[i, t] + h)
