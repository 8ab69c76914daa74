"""Compiled inner loops of the path algorithms (private; see :mod:`subflow.paths`).

Every kernel works on the arrays of :class:`subflow.network.Network`: ``indptr``
and ``adj`` (outgoing arcs per node, CSR), ``arc_dst`` and per-arc weights. They
are compiled with numba when it is installed (it is a pinned dependency) and
run as plain (slow but identical) Python otherwise.

Label pools grow by doubling; a label is ``(d, q)`` floats and
``(node, parent label, arc, hops)`` integers, parents always having a smaller
pool index than their children.
"""

from __future__ import annotations

import math

import numpy as np

try:  # pragma: no cover - exercised implicitly
    from numba import njit
except ImportError:  # pragma: no cover
    def njit(*args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f

INF = np.inf

# --------------------------------------------------------------------------- heap on pool indices


@njit(cache=True, inline="always")
def _less(k1, k2, k3, i, j):
    if k1[i] != k1[j]:
        return k1[i] < k1[j]
    if k2[i] != k2[j]:
        return k2[i] < k2[j]
    if k3[i] != k3[j]:
        return k3[i] < k3[j]
    return i < j


@njit(cache=True)
def _heap_push(heap, size, x, k1, k2, k3):
    i = size
    heap[i] = x
    while i > 0:
        p = (i - 1) >> 1
        if _less(k1, k2, k3, heap[i], heap[p]):
            t = heap[i]
            heap[i] = heap[p]
            heap[p] = t
            i = p
        else:
            break
    return size + 1


@njit(cache=True)
def _heap_pop(heap, size, k1, k2, k3):
    top = heap[0]
    size -= 1
    if size > 0:
        heap[0] = heap[size]
        i = 0
        while True:
            left = 2 * i + 1
            if left >= size:
                break
            c = left
            r = left + 1
            if r < size and _less(k1, k2, k3, heap[r], heap[left]):
                c = r
            if _less(k1, k2, k3, heap[c], heap[i]):
                t = heap[i]
                heap[i] = heap[c]
                heap[c] = t
                i = c
            else:
                break
    return top, size


@njit(cache=True, inline="always")
def tcpbp_f(d, q):
    """f = d·√p with p = 1 − e^(−q) (thesis Eq. 2.3 in its d·√p form)."""
    if q <= 0.0 or d <= 0.0:
        return 0.0
    return d * math.sqrt(-math.expm1(-q))


# --------------------------------------------------------------------------- exact TCPBP (bi-criteria labels)


@njit(cache=True)
def bicrit(indptr, adj, arc_dst, arc_d, arc_q, s, d0, q0, h0, node_ok, arc_ok, target, lbd, lbq):
    """Pareto label-setting search on (d, q) from ``s``.

    Labels are popped in lexicographic (d, q, hops) order; a label is kept iff
    its q is below every q kept at its node so far (so the kept labels of a
    node are exactly its Pareto front). ``target >= 0`` stops expanding at the
    target and prunes with the lower bounds ``lbd``/``lbq`` (distances to the
    target in d and q alone). Returns the pool ``(PF, PI, npool)`` and, per
    node, the kept label with the least f (ties: first kept, i.e. least d).
    """
    n = indptr.shape[0] - 1
    qmin = np.full(n, INF)
    best = np.full(n, -1, dtype=np.int64)
    bestf = np.full(n, INF)
    cap = 4 * n + 16
    PF = np.empty((cap, 2))
    PI = np.empty((cap, 4), dtype=np.int64)
    heap = np.empty(cap, dtype=np.int64)
    PF[0, 0] = d0
    PF[0, 1] = q0
    PI[0, 0] = s
    PI[0, 1] = -1
    PI[0, 2] = -1
    PI[0, 3] = h0
    npool = 1
    hsize = _heap_push(heap, 0, 0, PF[:, 0], PF[:, 1], PI[:, 3])
    fb = INF
    pruning = target >= 0
    while hsize > 0:
        lab, hsize = _heap_pop(heap, hsize, PF[:, 0], PF[:, 1], PI[:, 3])
        v = PI[lab, 0]
        d = PF[lab, 0]
        q = PF[lab, 1]
        if q >= qmin[v]:
            continue
        if pruning and tcpbp_f(d + lbd[v], q + lbq[v]) >= fb and v != target:
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
        h = PI[lab, 3] + 1
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
                cap *= 2
                PF2 = np.empty((cap, 2))
                PF2[:npool] = PF[:npool]
                PF = PF2
                PI2 = np.empty((cap, 4), dtype=np.int64)
                PI2[:npool] = PI[:npool]
                PI = PI2
                heap2 = np.empty(cap, dtype=np.int64)
                heap2[:hsize] = heap[:hsize]
                heap = heap2
            PF[npool, 0] = nd
            PF[npool, 1] = nq
            PI[npool, 0] = w
            PI[npool, 1] = lab
            PI[npool, 2] = a
            PI[npool, 3] = h
            hsize = _heap_push(heap, hsize, npool, PF[:, 0], PF[:, 1], PI[:, 3])
            npool += 1
    return PF, PI, npool, best, bestf


@njit(cache=True)
def bicrit_all_pairs(indptr, adj, arc_dst, arc_d, arc_q, sources):
    """Exact TCPBP from every node of ``sources`` to every node.

    Returns cost matrices ``F, D, Q, H`` (f, delay, q, hops; inf/-1 when
    unreachable), ``B`` (index of each route's last label in the label arrays,
    -1 when unreachable) and the label arrays ``LA`` (arc of the label,
    -1 for a source) and ``LP`` (parent label, -1 for a source). Only the
    labels on the chosen routes are kept (one compact label tree per source).
    """
    n = indptr.shape[0] - 1
    ns = sources.shape[0]
    F = np.full((ns, n), INF)
    D = np.full((ns, n), INF)
    Q = np.full((ns, n), INF)
    H = np.full((ns, n), -1, dtype=np.int32)
    B = np.full((ns, n), -1, dtype=np.int64)
    cap = 2 * n * ns + 16
    LA = np.empty(cap, dtype=np.int32)
    LP = np.empty(cap, dtype=np.int64)
    nl = 0
    node_ok = np.ones(n, dtype=np.bool_)
    arc_ok = np.ones(arc_dst.shape[0], dtype=np.bool_)
    empty = np.empty(0)
    for si in range(ns):
        s = sources[si]
        PF, PI, npool, best, bestf = bicrit(
            indptr, adj, arc_dst, arc_d, arc_q, s, 0.0, 0.0, 0, node_ok, arc_ok, -1, empty, empty
        )
        mark = np.zeros(npool, dtype=np.int64)
        for t in range(n):
            lab = best[t]
            while lab >= 0 and mark[lab] == 0:
                mark[lab] = 1
                lab = PI[lab, 1]
        count = 0
        for i in range(npool):
            if mark[i] != 0:
                count += 1
        if nl + count > cap:
            newcap = max(2 * cap, nl + count + 16)
            LA2 = np.empty(newcap, dtype=np.int32)
            LA2[:nl] = LA[:nl]
            LA = LA2
            LP2 = np.empty(newcap, dtype=np.int64)
            LP2[:nl] = LP[:nl]
            LP = LP2
            cap = newcap
        for i in range(npool):
            if mark[i] != 0:
                mark[i] = nl
                LA[nl] = PI[i, 2]
                par = PI[i, 1]
                LP[nl] = mark[par] if par >= 0 else -1
                nl += 1
            else:
                mark[i] = -1
        for t in range(n):
            lab = best[t]
            if lab >= 0:
                F[si, t] = bestf[t]
                D[si, t] = PF[lab, 0]
                Q[si, t] = PF[lab, 1]
                H[si, t] = PI[lab, 3]
                B[si, t] = mark[lab]
    return F, D, Q, H, B, LA[:nl], LP[:nl]


# --------------------------------------------------------------------------- thesis Algorithm 1 (single label)


@njit(cache=True)
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
    m = arc_dst.shape[0]
    cap = m + n + 2
    K1 = np.empty(cap)
    K2 = np.empty(cap)
    K3 = np.empty(cap, dtype=np.int64)
    NODE = np.empty(cap, dtype=np.int64)
    heap = np.empty(cap, dtype=np.int64)
    D[s] = d0
    Q[s] = q0
    F[s] = tcpbp_f(d0, q0)
    hops[s] = 0
    K1[0] = F[s]
    K2[0] = d0
    K3[0] = 0
    NODE[0] = s
    np_ = 1
    hsize = _heap_push(heap, 0, 0, K1, K2, K3)
    while hsize > 0:
        e, hsize = _heap_pop(heap, hsize, K1, K2, K3)
        v = NODE[e]
        if done[v] or K1[e] > F[v] or (K1[e] == F[v] and K2[e] != D[v]):
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
                if np_ == cap:
                    cap *= 2
                    K1b = np.empty(cap)
                    K1b[:np_] = K1[:np_]
                    K1 = K1b
                    K2b = np.empty(cap)
                    K2b[:np_] = K2[:np_]
                    K2 = K2b
                    K3b = np.empty(cap, dtype=np.int64)
                    K3b[:np_] = K3[:np_]
                    K3 = K3b
                    Nb = np.empty(cap, dtype=np.int64)
                    Nb[:np_] = NODE[:np_]
                    NODE = Nb
                    hb = np.empty(cap, dtype=np.int64)
                    hb[:hsize] = heap[:hsize]
                    heap = hb
                K1[np_] = nf
                K2[np_] = nd
                K3[np_] = np_
                NODE[np_] = w
                hsize = _heap_push(heap, hsize, np_, K1, K2, K3)
                np_ += 1
    return D, Q, F, pred, hops


@njit(cache=True)
def greedy_all_pairs(indptr, adj, arc_dst, arc_d, arc_q, sources):
    """:func:`greedy` from every source: ``F, D, Q, H, P`` (P: predecessor arc)."""
    n = indptr.shape[0] - 1
    ns = sources.shape[0]
    F = np.empty((ns, n))
    D = np.empty((ns, n))
    Q = np.empty((ns, n))
    H = np.empty((ns, n), dtype=np.int32)
    P = np.empty((ns, n), dtype=np.int32)
    node_ok = np.ones(n, dtype=np.bool_)
    arc_ok = np.ones(arc_dst.shape[0], dtype=np.bool_)
    for si in range(ns):
        d, q, f, pred, hops = greedy(indptr, adj, arc_dst, arc_d, arc_q, sources[si], 0.0, 0.0, node_ok, arc_ok, -1)
        F[si] = f
        D[si] = d
        Q[si] = q
        for t in range(n):
            H[si, t] = hops[t]
            P[si, t] = pred[t]
    return F, D, Q, H, P


# --------------------------------------------------------------------------- additive metrics (lexicographic Dijkstra)


@njit(cache=True)
def lex_dijkstra(indptr, adj, arc_dst, w1, w2, s, node_ok, arc_ok, target):
    """Dijkstra on the lexicographic pair (Σw1, Σw2); ties: first found.

    Returns ``(dist1, dist2, pred_arc, hops)``.
    """
    n = indptr.shape[0] - 1
    d1 = np.full(n, INF)
    d2 = np.full(n, INF)
    pred = np.full(n, -1, dtype=np.int64)
    hops = np.full(n, -1, dtype=np.int64)
    done = np.zeros(n, dtype=np.bool_)
    m = arc_dst.shape[0]
    cap = m + n + 2
    K1 = np.empty(cap)
    K2 = np.empty(cap)
    K3 = np.empty(cap, dtype=np.int64)
    NODE = np.empty(cap, dtype=np.int64)
    heap = np.empty(cap, dtype=np.int64)
    d1[s] = 0.0
    d2[s] = 0.0
    hops[s] = 0
    K1[0] = 0.0
    K2[0] = 0.0
    K3[0] = 0
    NODE[0] = s
    np_ = 1
    hsize = _heap_push(heap, 0, 0, K1, K2, K3)
    while hsize > 0:
        e, hsize = _heap_pop(heap, hsize, K1, K2, K3)
        v = NODE[e]
        if done[v] or K1[e] != d1[v] or K2[e] != d2[v]:
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
                pred[w] = a
                hops[w] = hops[v] + 1
                if np_ == cap:
                    cap *= 2
                    K1b = np.empty(cap)
                    K1b[:np_] = K1[:np_]
                    K1 = K1b
                    K2b = np.empty(cap)
                    K2b[:np_] = K2[:np_]
                    K2 = K2b
                    K3b = np.empty(cap, dtype=np.int64)
                    K3b[:np_] = K3[:np_]
                    K3 = K3b
                    Nb = np.empty(cap, dtype=np.int64)
                    Nb[:np_] = NODE[:np_]
                    NODE = Nb
                    hb = np.empty(cap, dtype=np.int64)
                    hb[:hsize] = heap[:hsize]
                    heap = hb
                K1[np_] = n1
                K2[np_] = n2
                K3[np_] = np_
                NODE[np_] = w
                hsize = _heap_push(heap, hsize, np_, K1, K2, K3)
                np_ += 1
    return d1, d2, pred, hops


@njit(cache=True)
def lex_all_pairs(indptr, adj, arc_dst, w1, w2, sources):
    """:func:`lex_dijkstra` from every source: ``(C1, C2, H, P)``."""
    n = indptr.shape[0] - 1
    ns = sources.shape[0]
    C1 = np.empty((ns, n))
    C2 = np.empty((ns, n))
    H = np.empty((ns, n), dtype=np.int32)
    P = np.empty((ns, n), dtype=np.int32)
    node_ok = np.ones(n, dtype=np.bool_)
    arc_ok = np.ones(arc_dst.shape[0], dtype=np.bool_)
    for si in range(ns):
        d1, d2, pred, hops = lex_dijkstra(indptr, adj, arc_dst, w1, w2, sources[si], node_ok, arc_ok, -1)
        C1[si] = d1
        C2[si] = d2
        for t in range(n):
            H[si, t] = hops[t]
            P[si, t] = pred[t]
    return C1, C2, H, P


@njit(cache=True)
def path_sums(arcs, arc_d, arc_q):
    """(Σd, Σq) along ``arcs``."""
    d = 0.0
    q = 0.0
    for a in arcs:
        d += arc_d[a]
        q += arc_q[a]
    return d, q
