"""Minimum-delay bandwidth allocation by the Flow Deviation Method (Fratta, Gerla, Kleinrock 1973).

Problem
-------
Given arcs with capacity C_e (Mbit/s) and demands r_k (Mbit/s) between node
pairs, split every demand over paths (bifurcated multicommodity flow) so that
the mean packet delay of an M/M/1 network of queues is least:

    T = (1/γ) · Σ_e f_e · ( L / ((C_e − f_e)·10⁶) + τ_e )            [s]

with γ = Σ_k r_k the total offered traffic, f_e the flow of arc e, L the mean
packet length in bits (``packet_bits``) and τ_e the propagation delay in s
(included only with ``include_propagation``). Without propagation this is
T = (L/10⁶)/γ · Σ_e f_e/(C_e − f_e), so the quantity minimised is
D(f) = Σ_e f_e/(C_e − f_e) (``sum_flow_over_residual``).

Method
------
*Phase 1 — feasibility.* The flow of every demand on its shortest path
(propagation delay, then hops) is tried first; if some arc would be at or over
capacity, the maximum concurrent flow factor λ* (the largest λ such that
λ·r_k is routable for all k at once) and a flow achieving it are computed by
linear programming (HiGHS). Its path decomposition scaled to the demands is a
strictly feasible start (utilisation ≤ 1/λ* < 1). FGK's own phase 1 scales the
demands down and raises them with FD steps, reaching λ* only in the limit; the
LP gives it exactly.

*Tempering (sd-mptcp §V.C.2).* If λ* ≤ 1 the demands cannot fit at all (the
paper "manually tempers" them). The rule here: every demand is multiplied by
the same factor θ·λ* (θ = ``temper_margin``, default 0.9), i.e. the demand mix
is kept and every link keeps at least 10 % headroom on the bottleneck cut; the
factor is reported as ``tempered`` (1 when nothing was tempered).

*Forwarding roles.* Hosts and stations not marked relay (``Network.no_transit``,
docs/radio.md) may send and receive but carry no transit traffic: a demand's
shortest paths (phase 2), its first path and the λ* LP (phase 1) never leave an
end point other than the demand's source (:func:`source_usable`).

*Phase 2 — flow deviation.* FD moves flow from longer to shorter paths under
the first-derivative lengths l_e = ∂D/∂f_e = C_e/(C_e − f_e)² (+ τ_e·10⁶/L).
As in Bertsekas & Gallager (Data Networks, §5.7) the deviation is done per
demand in path form: each iteration finds every demand's shortest path under
l (a new path joins the demand's path set), then, demand after demand, moves
flow from each of its other paths to the shortest one by an exact line
minimisation of D along that move (safeguarded Newton steps, never crossing
capacity). This reaches FGK's optimum in far fewer iterations than the global
FD step. The stopping rule is FGK's lower bound: with y the all-or-nothing
flow on the current shortest paths, D* ≥ D(f) + ∇D·(y − f), so
``relative_gap`` = (D − LB)/LB bounds the distance to the optimum.

*Phase 3 — Newton polish (small problems).* Demand-by-demand deviation is
coordinate descent: when demands share a strongly curved arc (a nearly full
UAV backhaul) but differ only on weakly curved ones (their own lightly loaded
access links), it crawls along that valley and can stop at the iteration limit
with one demand holding most of the shared arc — the optimum, strictly convex
in those access-link flows, splits it evenly between equal demands. So when
the problem has at most ``newton_max_paths`` paths, FD is followed by
projected Newton steps in path form (Bertsekas & Gallager §5.7, with the full
Hessian Pᵀ·diag(∂²D/∂f²)·P instead of its diagonal): each step solves the
equality-constrained quadratic model over every demand's paths exactly, is
truncated at zero rates and capacity, and backtracks until D decreases. It
converges in a handful of steps where FD needs thousands.

*Candidate paths.* A demand with ``paths`` (e.g. an MPTCP user's SATCOM and
UAV subflows) may only use those; its shortest path is taken among them.

*Warm start.* Given the previous :class:`Allocation`, every path of a demand
that still exists keeps its rate (scaled down if the demand shrank); the rest
goes to the shortest path. If that start is not strictly feasible, phase 1
runs and the old paths stay in the path sets at zero rate. ``moved_mbps`` is
half the L1 distance between old and new per-path rates (traffic that changed
path), ``moved_fraction`` the same over the old total.

References
----------
.. [1] L. Fratta, M. Gerla, L. Kleinrock, "The flow deviation method: an
   approach to store-and-forward communication network design", Networks
   3(2), 97–133, 1973.
.. [2] D. Bertsekas, reduction. Gallager, Data Networks, 2nd ed., Prentice Hall 1992,
   §5.4 (M/M/1 cost), §5.6 (FD / Frank–Wolfe), §5.7 (projection in path form).
.. [3] Q. Zhao et al., "Software Defined Multi-Path TCP Solution for Mobile
   Wireless Tactical Networks", MILCOM 2018, §IV, §V.C.2.
.. [4] P. Du et al., "Traffic optimization in software defined naval network
   for satellite communications", MILCOM 2017 (FDM in the SDN controller).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from subflow.compiled import njit
from subflow.errors import DemandUnreachable, LinkInvalid, UnknownNode
from subflow.planning import _kernels as kernels
from subflow.planning.network import Demand, Network

INF = np.inf
_NEWTON_CHUNK = 50  # FD iterations between Newton polishes (phase 3)
_MAXP = 48  # paths per demand kept by the kernel


class FdmOptions(BaseModel):
    """Parameters of :func:`allocate_fdm`."""

    model_config = ConfigDict(extra="forbid")

    packet_bits: float = Field(12000.0, gt=0, description="Mean packet length 1/μ, bits (1500 bytes).")
    include_propagation: bool = Field(False, description="Add Σ f·τ/γ (propagation) to the delay minimised.")
    tolerance: float = Field(1e-6, gt=0, description="Stop when (D − lower bound)/lower bound is below this.")
    max_iterations: int = Field(2000, ge=1, description="FD iterations at most.")
    temper_margin: float = Field(0.9, gt=0, lt=1, description="θ: demands that cannot fit are scaled to θ·λ*.")
    newton_max_paths: int = Field(
        400, ge=0, description="Polish with projected Newton steps when there are at most this many paths (0: never)."
    )


class PathRate(BaseModel):
    """One path of a demand and the rate it carries, Mbit/s (an OVS queue's limit)."""

    nodes: list[str]
    rate: float


class DemandAllocation(BaseModel):
    """How one demand is split; ``demand`` is the rate allocated, Mbit/s (after
    ``--demand-scale`` and tempering), ``requested`` the rate asked for."""

    id: str | None = None
    src: str
    dst: str
    demand: float
    requested: float
    paths: list[PathRate]


class LinkLoad(BaseModel):
    """One arc (direction of a link): flow and capacity in Mbit/s, utilisation = flow/capacity."""

    link: str
    src: str
    dst: str
    flow: float
    capacity: float
    utilization: float


class Allocation(BaseModel):
    """Result of :func:`allocate_fdm` (the ``allocate --json`` document).

    ``gamma``: total offered traffic γ, Mbit/s; ``sum_flow_over_residual``:
    Σ f/(C − f); ``mean_delay_s``: T, s; ``tempered``: demand factor applied
    (1 if none); ``lambda_max``: maximum concurrent flow factor λ* of the
    demands (after ``--demand-scale``; null when phase 1 was not needed);
    ``relative_gap``: certified bound on (D − D*)/D*; ``moved_mbps`` /
    ``moved_fraction``: traffic that changed path since ``previous`` (null
    without a warm start).
    """

    method: str = "fdm"
    gamma: float
    sum_flow_over_residual: float
    mean_delay_s: float
    tempered: float
    lambda_max: float | None
    relative_gap: float
    iterations: int
    moved_mbps: float | None = None
    moved_fraction: float | None = None
    links: list[LinkLoad]
    demands: list[DemandAllocation]


# --------------------------------------------------------------------------- compiled FD iterations


@njit(cache=True, inline="always")
def _d1(f, c, w):
    r = c - f
    return c / (r * r) + w


@njit(cache=True, inline="always")
def _d2(f, c):
    r = c - f
    return 2.0 * c / (r * r * r)


@njit(cache=True, nogil=True)
def _contains(arcs, off, ln, a):
    for i in range(off, off + ln):
        if arcs[i] == a:
            return True
    return False


@njit(cache=True, nogil=True)
def _move(p_off, p_len, s_off, s_len, arcs, xp, f, C, W):
    """Exact line minimisation of D when moving Δ ∈ [0, xp] from path p to path s.

    Returns Δ (f not modified)."""
    # arcs only on s gain Δ; arcs only on p lose Δ
    hi = xp
    for i in range(s_off, s_off + s_len):
        a = arcs[i]
        if not _contains(arcs, p_off, p_len, a):
            room = (C[a] - f[a]) * (1.0 - 1e-9)
            if room < hi:
                hi = room
    if hi <= 0.0:
        return 0.0

    def grad(delta):
        g = 0.0
        h = 0.0
        for i in range(s_off, s_off + s_len):
            a = arcs[i]
            if not _contains(arcs, p_off, p_len, a):
                g += _d1(f[a] + delta, C[a], W[a])
                h += _d2(f[a] + delta, C[a])
        for i in range(p_off, p_off + p_len):
            a = arcs[i]
            if not _contains(arcs, s_off, s_len, a):
                g -= _d1(f[a] - delta, C[a], W[a])
                h += _d2(f[a] - delta, C[a])
        return g, h

    g0, h0 = grad(0.0)
    if g0 >= 0.0:
        return 0.0
    if hi == xp:
        gh, _ = grad(hi)
        if gh <= 0.0:
            return hi
    lo = 0.0
    up = hi
    delta = min(-g0 / h0, 0.5 * (lo + up)) if h0 > 0 else 0.5 * up
    for _ in range(30):
        g, h = grad(delta)
        if g < 0.0:
            lo = delta
        else:
            up = delta
        if up - lo <= 1e-12 * (1.0 + up):
            break
        nxt = delta - g / h if h > 0 else 0.5 * (lo + up)
        if not (lo < nxt < up):
            nxt = 0.5 * (lo + up)
        if abs(nxt - delta) <= 1e-14 * (1.0 + delta):
            delta = nxt
            break
        delta = nxt
    return lo if delta < lo else (up if delta > up else delta)


@njit(cache=True, nogil=True)
def _shift(p_off, p_len, s_off, s_len, arcs, delta, f):
    for i in range(s_off, s_off + s_len):
        a = arcs[i]
        if not _contains(arcs, p_off, p_len, a):
            f[a] += delta
    for i in range(p_off, p_off + p_len):
        a = arcs[i]
        if not _contains(arcs, s_off, s_len, a):
            f[a] -= delta


@njit(cache=True, nogil=True)
def _path_len(off, ln, arcs, f, C, W):
    s = 0.0
    for i in range(off, off + ln):
        a = arcs[i]
        s += _d1(f[a], C[a], W[a])
    return s


@njit(cache=True, nogil=True)
def fd_iterate(
    indptr, adj, arc_src, arc_dst, C, W, usable, com_src, com_dst, com_r, restricted, sources, src_ptr, src_com,
    path_off, path_len, arcs, counters, com_paths, com_np, x, f, max_iter, tol, stats, end_point,
):
    """Run FD iterations in place (see the module docstring).

    ``end_point[v]``: node ``v`` carries no transit traffic (forwarding roles, :func:`source_usable`):
    the shortest paths of a source never leave another end point.

    ``counters = [paths used, arcs used, iterations done]``. Returns 0 when
    converged or out of iterations, 1 when the path storage is full (the
    caller grows it and calls again). ``stats = [D, lower bound, gap]``.
    """
    m = C.shape[0]
    n = indptr.shape[0] - 1
    K_ = com_src.shape[0]
    node_ok = np.ones(n, dtype=np.bool_)
    has_end = end_point.any()
    ones = np.ones(m)
    zeros = np.zeros(m)
    best = np.empty(K_, dtype=np.int64)
    lstar = np.empty(K_)
    newarcs = np.empty(n, dtype=np.int64)
    while counters[2] < max_iter:
        lengths = np.empty(m)
        for a in range(m):
            lengths[a] = _d1(f[a], C[a], W[a]) if usable[a] else INF
        # shortest path of every demand under the current lengths
        for k in range(K_):
            best[k] = -1
            lstar[k] = INF
            if restricted[k]:
                for j in range(com_np[k]):
                    p = com_paths[k, j]
                    L = _path_len(path_off[p], path_len[p], arcs, f, C, W)
                    if L < lstar[k]:
                        lstar[k] = L
                        best[k] = p
        for si in range(sources.shape[0]):
            s = sources[si]
            us = usable
            if has_end:
                us = usable.copy()
                for a in range(m):
                    if end_point[arc_src[a]] and arc_src[a] != s:
                        us[a] = False
            d1, d2, pred, hops, dd, qq = kernels.lex_dijkstra(
                indptr, adj, arc_dst, lengths, ones, zeros, zeros, s, node_ok, us, -1
            )
            for ci in range(src_ptr[si], src_ptr[si + 1]):
                k = src_com[ci]
                t = com_dst[k]
                lstar[k] = d1[t]
                # the path
                ln = hops[t]
                kernels.tree_path_into(pred, arc_src, s, t, newarcs, ln)
                # find it among the demand's paths
                found = -1
                for j in range(com_np[k]):
                    p = com_paths[k, j]
                    if path_len[p] != ln:
                        continue
                    same = True
                    for i in range(ln):
                        if arcs[path_off[p] + i] != newarcs[i]:
                            same = False
                            break
                    if same:
                        found = p
                        break
                if found < 0:
                    if com_np[k] == com_paths.shape[1]:
                        # replace an unused path, else keep the set as it is
                        slot = -1
                        for j in range(com_np[k]):
                            if x[com_paths[k, j]] <= 0.0:
                                slot = j
                                break
                        if slot < 0:
                            continue
                    else:
                        slot = com_np[k]
                    if counters[0] >= path_off.shape[0] or counters[1] + ln > arcs.shape[0]:
                        return 1
                    p = counters[0]
                    counters[0] += 1
                    path_off[p] = counters[1]
                    path_len[p] = ln
                    for i in range(ln):
                        arcs[counters[1] + i] = newarcs[i]
                    counters[1] += ln
                    x[p] = 0.0
                    if slot == com_np[k]:
                        com_np[k] += 1
                    com_paths[k, slot] = p
                    found = p
                best[k] = found
        # FGK lower bound
        D = 0.0
        lf = 0.0
        for a in range(m):
            if usable[a] and f[a] > 0:
                D += f[a] / (C[a] - f[a]) + W[a] * f[a]
                lf += lengths[a] * f[a]
        ry = 0.0
        for k in range(K_):
            ry += com_r[k] * lstar[k]
        gap = lf - ry
        lb = D - gap
        stats[0] = D
        stats[1] = lb
        stats[2] = gap
        if gap <= tol * max(lb, 1e-300):
            return 0
        # deviate: demand by demand, every path towards the shortest
        for k in range(K_):
            s_ = best[k]
            if s_ < 0:
                continue
            for j in range(com_np[k]):
                p = com_paths[k, j]
                if p == s_ or x[p] <= 0.0:
                    continue
                delta = _move(path_off[p], path_len[p], path_off[s_], path_len[s_], arcs, x[p], f, C, W)
                if delta > 0.0:
                    _shift(path_off[p], path_len[p], path_off[s_], path_len[s_], arcs, delta, f)
                    x[p] -= delta
                    x[s_] += delta
                    if x[p] < 1e-15 * com_r[k]:
                        x[s_] += x[p]
                        x[p] = 0.0
        counters[2] += 1
    return 0


# --------------------------------------------------------------------------- Python driver


def _arc_flows(net: Network, flows: Sequence[dict[tuple[int, ...], float]]) -> np.ndarray:
    f = np.zeros(net.m)
    for per in flows:
        for arcs, rate in per.items():
            for a in arcs:
                f[a] += rate
    return f


def end_point_mask(net: Network) -> np.ndarray:
    """``mask[v]``: node ``v`` is an end point of ``net`` (``net.no_transit``: hosts and stations not
    marked relay, docs/radio.md), which routes may start or end at but never pass through."""
    mask = np.zeros(net.n, dtype=np.bool_)
    for v in net.no_transit:
        mask[net.node_index(v)] = True
    return mask


def source_usable(net: Network, usable: np.ndarray, end_point: np.ndarray, s: int) -> np.ndarray:
    """The arcs a flow from node ``s`` may use: ``usable`` ones that do not leave an end point other
    than ``s`` (forwarding roles; :meth:`subflow.planning.network.Network.restrict_transit` per source)."""
    if not end_point.any():
        return usable
    leaves_end = end_point[net.src] & (net.src != s)
    return usable & ~leaves_end


def _shortest_arcs(net: Network, usable: np.ndarray, s: int, targets: set[int]) -> dict[int, tuple[int, ...]]:
    """Least-delay (then fewest-hop) usable path from ``s`` to each target, through no end point."""
    indptr, adj = net.csr()
    node_ok = np.ones(net.n, dtype=np.bool_)
    zeros = np.zeros(net.m)
    us = source_usable(net, usable, end_point_mask(net), s)
    _, _, pred, _, _, _ = kernels.lex_dijkstra(indptr, adj, net.dst, net.delay_ms, np.ones(net.m), zeros, zeros, s, node_ok, us, -1)
    return {t: tuple(kernels.tree_path(pred, net.src, s, t).tolist()) for t in targets if pred[t] >= 0}


def max_concurrent_flow(
    net: Network,
    src: Sequence[int],
    dst: Sequence[int],
    rate: Sequence[float],
    candidates: Sequence[list[tuple[int, ...]] | None],
    usable: np.ndarray | None = None,
) -> tuple[float, list[dict[tuple[int, ...], float]]]:
    """Maximum concurrent flow factor λ* and path flows achieving it (LP, HiGHS).

    Maximise λ such that every demand k can send λ·r_k at once within the arc
    capacities, demands with ``candidates`` only on those paths. Unrestricted
    demands use a source-aggregated arc formulation whose flow is then
    decomposed into paths.

    Parameters
    ----------
    net : Network
        Topology (capacities in Mbit/s).
    src, dst : sequence of int
        Node indices per demand.
    rate : sequence of float
        r_k, Mbit/s.
    candidates : sequence of (list of arc tuples) or None
        Allowed paths per demand (``None``: any).
    usable : ndarray of bool, optional
        Arcs that may carry flow (default: capacity > 0).

    Returns
    -------
    (float, list of dict)
        λ* and, per demand, ``{arcs: rate}`` carrying λ*·r_k.

    Raises
    ------
    RuntimeError
        If the LP solver fails.
    """
    from scipy.optimize import linprog

    if usable is None:
        usable = net.capacity_mbps > 0
    lp = _McfProgram(net, src, dst, rate, candidates, usable)
    res = linprog(lp.c, A_ub=lp.A_ub, b_ub=net.capacity_mbps[lp.ua], A_eq=lp.A_eq, b_eq=lp.b_eq,
                  bounds=lp.bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"maximum concurrent flow LP failed: {res.message}")
    lam_star = float(res.x[lp.lam])
    return lam_star, lp.path_flows(res.x, lam_star)


class _McfProgram:
    """The maximum concurrent flow LP of :func:`max_concurrent_flow`: one arc-flow block per source of the
    unrestricted demands (``mu`` usable arcs each), one variable per candidate path, then λ (column ``lam``)."""

    def __init__(self, net: Network, src, dst, rate, candidates, usable: np.ndarray):
        import scipy.sparse as sp

        self.net, self.src, self.dst, self.rate = net, src, dst, rate
        self.ua = ua = np.nonzero(usable)[0]
        self.mu = mu = ua.shape[0]
        col_of_arc = np.full(net.m, -1, dtype=np.int64)
        col_of_arc[ua] = np.arange(mu)
        K_ = len(rate)
        self.free = [k for k in range(K_) if candidates[k] is None]
        self.sources = sorted({int(src[k]) for k in self.free})
        self.n_arc_vars = len(self.sources) * mu
        self.path_vars = [(k, p) for k in range(K_) if candidates[k] is not None for p in candidates[k]]
        nv = self.n_arc_vars + len(self.path_vars) + 1
        self.lam = nv - 1
        rows, cols, vals, b_eq = self._conservation()
        r = len(b_eq)
        # restricted demands: Σ x_p − λ r_k = 0
        by_k: dict[int, list[int]] = {}
        for j, (k, _) in enumerate(self.path_vars):
            by_k.setdefault(k, []).append(j)
        for k, js in by_k.items():
            rows.append(np.full(len(js) + 1, r))
            cols.append(np.array([self.n_arc_vars + j for j in js] + [self.lam]))
            vals.append(np.array([1.0] * len(js) + [-rate[k]]))
            b_eq.append(0.0)
            r += 1
        self.A_eq = sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, nv)
        ) if rows else None
        self.b_eq = np.array(b_eq) if b_eq else None
        # capacity per usable arc
        urows, ucols = [], []
        for i in range(len(self.sources)):
            urows.append(np.arange(mu))
            ucols.append(i * mu + np.arange(mu))
        for j, (_, p) in enumerate(self.path_vars):
            for a in p:
                urows.append(np.array([col_of_arc[a]]))
                ucols.append(np.array([self.n_arc_vars + j]))
        self.A_ub = sp.csr_matrix(
            (np.ones(sum(len(x) for x in urows)), (np.concatenate(urows), np.concatenate(ucols))), shape=(mu, nv)
        )
        self.c = np.zeros(nv)
        self.c[self.lam] = -1.0
        # forwarding roles: a source's flow never leaves another end point (upper bound 0 on those arcs)
        upper = np.full(nv, np.inf)
        end_point = end_point_mask(net)
        if end_point.any():
            usrc = net.src[ua]
            for i, s in enumerate(self.sources):
                blocked = end_point[usrc] & (usrc != s)
                upper[i * mu + np.nonzero(blocked)[0]] = 0.0
        self.bounds = np.column_stack([np.zeros(nv), upper])

    def _conservation(self) -> tuple[list, list, list, list[float]]:
        """Rows of flow conservation per (source, node): out − in − λ·b = 0 (triplets and right-hand sides)."""
        net, mu, ua = self.net, self.mu, self.ua
        usrc, udst = net.src[ua], net.dst[ua]
        rows, cols, vals, b_eq = [], [], [], []
        r = 0
        for i, s in enumerate(self.sources):
            base = i * mu
            supply = np.zeros(net.n)
            for k in self.free:
                if self.src[k] == s:
                    supply[s] += self.rate[k]
                    supply[self.dst[k]] -= self.rate[k]
            rows.append(r + usrc)
            cols.append(base + np.arange(mu))
            vals.append(np.ones(mu))
            rows.append(r + udst)
            cols.append(base + np.arange(mu))
            vals.append(-np.ones(mu))
            nz = np.nonzero(supply)[0]
            rows.append(r + nz)
            cols.append(np.full(nz.shape[0], self.lam))
            vals.append(-supply[nz])
            b_eq.extend([0.0] * net.n)
            r += net.n
        return rows, cols, vals, b_eq

    def path_flows(self, xs: np.ndarray, lam_star: float) -> list[dict[tuple[int, ...], float]]:
        """Per demand, ``{arcs: rate}`` of the LP solution ``xs``: its candidate paths' variables, and the
        unrestricted demands' share of their source's arc flow decomposed into paths."""
        net, mu = self.net, self.mu
        flows: list[dict[tuple[int, ...], float]] = [dict() for _ in range(len(self.rate))]
        for j, (k, p) in enumerate(self.path_vars):
            v = float(xs[self.n_arc_vars + j])
            if v > 0:
                flows[k][p] = flows[k].get(p, 0.0) + v
        for i, s in enumerate(self.sources):
            g = np.zeros(net.m)
            g[self.ua] = np.maximum(xs[i * mu: (i + 1) * mu], 0.0)
            ks = [k for k in self.free if self.src[k] == s]
            need: dict[int, float] = {}
            for k in ks:
                need[int(self.dst[k])] = need.get(int(self.dst[k]), 0.0) + lam_star * self.rate[k]
            per_dst = _decompose(net, s, g, need)
            for k in ks:
                t = int(self.dst[k])
                tot = need[t]
                for arcs, v in per_dst.get(t, {}).items():
                    share = v * (lam_star * self.rate[k] / tot) if tot > 0 else 0.0
                    flows[k][arcs] = flows[k].get(arcs, 0.0) + share
        return flows


def _decompose(net: Network, s: int, g: np.ndarray, need: dict[int, float]) -> dict[int, dict[tuple[int, ...], float]]:
    """Split a single-source arc flow ``g`` into paths to the demand nodes (cycles cancelled)."""
    indptr, adj = net.csr()
    total = sum(need.values())
    eps = 1e-12 * max(total, 1.0)
    need = dict(need)
    out: dict[int, dict[tuple[int, ...], float]] = {}
    ptr = {u: int(indptr[u]) for u in range(net.n)}

    def next_arc(u: int) -> int:
        k = ptr[u]
        while k < indptr[u + 1] and g[adj[k]] <= eps:
            k += 1
        ptr[u] = k
        return int(adj[k]) if k < indptr[u + 1] else -1

    while any(v > eps for v in need.values()):
        path: list[int] = []
        pos = {s: 0}
        u = s
        while not (u != s and need.get(u, 0.0) > eps):
            a = next_arc(u)
            if a < 0:
                return out  # numerical leftovers only
            v = int(net.dst[a])
            if v in pos:
                cyc = path[pos[v] :] + [a]
                amount = min(g[x] for x in cyc)
                for x in cyc:
                    g[x] -= amount
                for w in [int(net.dst[x]) for x in path[pos[v] :]]:
                    pos.pop(w, None)
                del path[pos[v] :]
                u = v
                continue
            path.append(a)
            pos[v] = len(path)
            u = v
        amount = min(min(g[x] for x in path), need[u])
        for x in path:
            g[x] -= amount
        need[u] -= amount
        per = out.setdefault(u, {})
        per[tuple(path)] = per.get(tuple(path), 0.0) + amount
    return out


def _demand_key(d: Demand, i: int) -> tuple:
    return ("id", d.id) if d.id else ("ix", i, d.src, d.dst)


def allocate_fdm(
    net: Network,
    demands: Sequence[Demand] | None = None,
    *,
    demand_scale: float = 1.0,
    options: FdmOptions | None = None,
    previous: Allocation | None = None,
) -> Allocation:
    """Allocate ``demands`` over ``net`` for least mean delay (see the module docstring).

    Parameters
    ----------
    net : Network
        Topology; ``capacity_mbps`` per arc (Mbit/s), ``delay_ms`` used for the
        first shortest paths and, with ``include_propagation``, the objective.
    demands : sequence of Demand, optional
        Default ``net.demands`` (scenario flows with a rate, SNDlib demands).
    demand_scale : float
        Every demand is multiplied by this first (``--demand-scale``).
    options : FdmOptions, optional
        Packet length, propagation, tolerance, tempering margin.
    previous : Allocation, optional
        Warm start (e.g. the allocation before a topology change); demands are
        matched by id, else by position.

    Returns
    -------
    Allocation

    Raises
    ------
    ValueError
        No demand, a non-positive demand or scale, a demand to itself, an
        invalid candidate path.
    UnknownNode
        A demand endpoint not in ``net``.
    LinkInvalid
        A link with zero capacity while there is demand to allocate.
    DemandUnreachable
        A demand with no path.

    Examples
    --------
    >>> net = Network.from_links(["a", "b", "c"], [("ab", "a", "b", 1, 0, 10), ("bc", "b", "c", 1, 0, 10),
    ...                                            ("ac", "a", "c", 1, 0, 10)])
    >>> al = allocate_fdm(net, [Demand("a", "c", 10.0)])
    >>> [(p.nodes, round(p.rate, 3)) for p in al.demands[0].paths]   # optimum: 10/(1 + √2) via b
    [(['a', 'c'], 5.858), (['a', 'b', 'c'], 4.142)]
    """
    opts = options or FdmOptions()
    demands = list(net.demands if demands is None else demands)
    src, dst, requested = _checked_demands(net, demands, demand_scale)
    usable = np.ones(net.m, dtype=np.bool_)
    cands = _candidate_paths(net, demands)
    shortest_for = _shortest_paths_of(net, demands, src, dst, cands, usable)
    if previous is not None:
        init, old_rates = _warm_start(net, demands, previous, cands, requested, shortest_for)
    else:
        old_rates = None
        init = [{shortest_for(k): float(requested[k])} if cands[k] is None
                else {p: requested[k] / len(cands[k]) for p in cands[k]}  # type: ignore[union-attr,arg-type]
                for k in range(len(demands))]
    lam: float | None = None
    tempered = 1.0
    alloc = requested.copy()
    if np.max(_arc_flows(net, init) / net.capacity_mbps) >= 1.0 - 1e-9:
        lam, tempered, alloc, init = _feasible_start(net, src, dst, requested, cands, usable, opts, init,
                                                     shortest_for, previous is not None)
    return _run(net, demands, src, dst, requested, alloc, cands, init, usable, opts, lam, tempered, old_rates)


def _checked_demands(net: Network, demands: list[Demand], demand_scale: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Source and destination node indices and requested rates (Mbit/s, scaled) of ``demands``.

    Raises
    ------
    ValueError
        No demand, a non-positive demand or scale, a demand to itself.
    UnknownNode
        A demand endpoint not in ``net``.
    LinkInvalid
        A link with zero capacity.
    """
    if not demands:
        raise ValueError("no demands to allocate")
    if not (demand_scale > 0 and math.isfinite(demand_scale)):
        raise ValueError("demand_scale must be a positive number")
    src = np.array([net.node_index(d.src) for d in demands], dtype=np.int64)
    dst = np.array([net.node_index(d.dst) for d in demands], dtype=np.int64)
    requested = np.array([float(d.demand_mbps) * demand_scale for d in demands])
    for i, d in enumerate(demands):
        if not (requested[i] > 0 and math.isfinite(requested[i])):
            raise ValueError(f"demand {d.id or i}: rate must be a positive number of Mbit/s")
        if src[i] == dst[i]:
            raise ValueError(f"demand {d.id or i}: source and destination are the same node")
    zero = np.nonzero(~(net.capacity_mbps > 0))[0]
    if zero.size:
        a = int(zero[0])
        raise LinkInvalid(
            net.link[a], "capacity_mbps", float(net.capacity_mbps[a]),
            f"zero capacity while demands are to be allocated ({net.nodes[net.src[a]]}>{net.nodes[net.dst[a]]})",
        )
    return src, dst, requested


def _candidate_paths(net: Network, demands: list[Demand]) -> list[list[tuple[int, ...]] | None]:
    """Per demand, its candidate paths as arc tuples (duplicates removed), or None when it may use any path.

    Raises
    ------
    ValueError
        A candidate path that does not run from the demand's source to its destination, visits a node
        twice or is not a path of ``net``; more than ``_MAXP`` candidates.
    """
    cands: list[list[tuple[int, ...]] | None] = []
    for i, d in enumerate(demands):
        if not d.paths:
            cands.append(None)
            continue
        lst = []
        for p in d.paths:
            if len(p) < 2 or p[0] != d.src or p[-1] != d.dst:
                raise ValueError(f"demand {d.id or i}: candidate path {list(p)} must run from {d.src} to {d.dst}")
            if len(set(p)) != len(p):
                raise ValueError(f"demand {d.id or i}: candidate path {list(p)} visits a node twice")
            try:
                lst.append(tuple(net.arcs_of_path(list(p))))
            except ValueError as exc:
                raise ValueError(f"demand {d.id or i}: candidate path {list(p)}: {exc}") from None
        if len(lst) > _MAXP:
            raise ValueError(f"demand {d.id or i}: at most {_MAXP} candidate paths")
        cands.append(list(dict.fromkeys(lst)))
    return cands


def _shortest_paths_of(net: Network, demands: list[Demand], src: np.ndarray, dst: np.ndarray,
                       cands: list, usable: np.ndarray):
    """A function k → demand k's shortest path (arcs): the least-delay one for an unrestricted demand, its
    least-delay (then fewest-hop) candidate otherwise.

    Raises
    ------
    DemandUnreachable
        An unrestricted demand with no path.
    """
    K_ = len(demands)
    sp_of: dict[int, dict[int, tuple[int, ...]]] = {}
    for s in sorted({int(src[k]) for k in range(K_) if cands[k] is None}):
        sp_of[s] = _shortest_arcs(net, usable, s, {int(dst[k]) for k in range(K_) if cands[k] is None and src[k] == s})
    for k in range(K_):
        if cands[k] is None and int(dst[k]) not in sp_of[int(src[k])]:
            raise DemandUnreachable(demands[k].src, demands[k].dst, demands[k].id)

    def shortest_for(k: int) -> tuple[int, ...]:
        if cands[k] is None:
            return sp_of[int(src[k])][int(dst[k])]
        return min(cands[k], key=lambda p: (sum(net.delay_ms[a] for a in p), len(p)))

    return shortest_for


def _warm_start(net: Network, demands: list[Demand], previous: Allocation, cands: list, requested: np.ndarray,
                shortest_for) -> tuple[list[dict[tuple[int, ...], float]], list[dict[tuple[str, ...], float]]]:
    """The start from ``previous``: each demand's old paths that still exist (and are candidates), scaled to
    its request, the rest on its shortest path; and the old rates by node path (for the moved-rate figure)."""
    prev = {}
    for i, pd in enumerate(previous.demands):
        prev[("id", pd.id) if pd.id else ("ix", i, pd.src, pd.dst)] = pd
    old_rates: list[dict[tuple[str, ...], float]] = []
    init: list[dict[tuple[int, ...], float]] = []
    for k, d in enumerate(demands):
        pd = prev.get(_demand_key(d, k))
        kept: dict[tuple[int, ...], float] = {}
        old: dict[tuple[str, ...], float] = {}
        if pd is not None:
            for pr in pd.paths:
                old[tuple(pr.nodes)] = old.get(tuple(pr.nodes), 0.0) + pr.rate
                try:
                    arcs = tuple(net.arcs_of_path(pr.nodes))
                except (ValueError, LookupError, UnknownNode):
                    continue  # the path is gone (a node or link left the topology)
                if cands[k] is not None and arcs not in cands[k]:
                    continue
                kept[arcs] = kept.get(arcs, 0.0) + pr.rate
        old_rates.append(old)
        tot = sum(kept.values())
        if tot > requested[k]:
            kept = {p: v * requested[k] / tot for p, v in kept.items()}
        elif tot < requested[k]:
            p = shortest_for(k)
            kept[p] = kept.get(p, 0.0) + requested[k] - tot
        init.append(kept)
    return init, old_rates


def _feasible_start(net: Network, src: np.ndarray, dst: np.ndarray, requested: np.ndarray, cands: list,
                    usable: np.ndarray, opts: FdmOptions, init: list, shortest_for, warm: bool):
    """A start below capacity when ``init`` overloads an arc: the maximum concurrent flow's paths, scaled to
    the requests (or, when λ ≤ 1, to the tempered requests ``temper_margin``·λ·d); returns
    (λ, tempering factor, allocated rates, start)."""
    lam, lp = max_concurrent_flow(net, src, dst, requested, cands, usable)
    if lam <= 0:  # cannot happen: every demand has a path of positive capacity
        raise RuntimeError("maximum concurrent flow factor is 0")
    factor = opts.temper_margin if lam <= 1.0 else 1.0 / lam
    tempered = 1.0
    alloc = requested.copy()
    if lam <= 1.0:
        tempered = opts.temper_margin * lam
        alloc = requested * tempered
    start = [{p: v * factor for p, v in per.items()} for per in lp]
    for k in range(len(start)):
        tot = sum(start[k].values())
        if tot <= 0:
            start[k] = {shortest_for(k): float(alloc[k])}
        elif abs(tot - alloc[k]) > 0:
            start[k] = {p: v * alloc[k] / tot for p, v in start[k].items()}
        if warm:
            for p in init[k]:
                start[k].setdefault(p, 0.0)
    return lam, tempered, alloc, start


def _arc_flows_of(x, path_off, path_len, arcs, n_paths: int, m: int) -> np.ndarray:
    f = np.zeros(m)
    for i in range(n_paths):
        f[arcs[path_off[i] : path_off[i] + path_len[i]]] += x[i]
    return f


def _newton_polish(
    x: np.ndarray,
    groups: list[list[int]],
    members: list[list[int]],
    C: np.ndarray,
    W: np.ndarray,
    usable: np.ndarray,
    max_steps: int = 60,
) -> bool:
    """Projected Newton steps on the path rates ``x`` (in place); True if ``x`` changed.

    ``groups[k]``: the path indices of demand k (their rates sum to its
    allocation, kept exactly); ``members[p]``: the arcs of path p. Minimises
    D(f) = Σ_e f_e/(C_e − f_e) + W_e·f_e with f = P·x over x ≥ 0. A path at zero
    rate is free only while it is shorter (first derivative) than the demand's
    mean used path, i.e. while moving flow onto it lowers D.

    References
    ----------
    .. [1] D. Bertsekas, E. Gafni, reduction. Gallager, "Second derivative algorithms
       for minimum delay distributed routing in networks", IEEE Trans. Commun.
       32(8), 1984.
    .. [2] D. Bertsekas, "Projected Newton methods for optimization problems
       with simple constraints", SIAM J. Control Optim. 20(2), 1982.
    """
    n = len(members)
    used_arcs = sorted({a for p in range(n) for a in members[p]})
    col = {a: i for i, a in enumerate(used_arcs)}
    P = np.zeros((len(used_arcs), n))
    for p in range(n):
        for a in members[p]:
            P[col[a], p] = 1.0
    Cu, Wu = C[used_arcs], W[used_arcs]
    if not usable[used_arcs].all():
        return False

    def cost(xv: np.ndarray) -> float:
        f = P @ xv
        if np.any(f >= Cu):
            return math.inf
        return float(np.sum(f / (Cu - f) + Wu * f))

    changed = False
    scale = max(float(np.max(np.abs(x[:n]))), 1e-12)
    xv = x[:n].copy()
    D = cost(xv)
    for _ in range(max_steps):
        f = P @ xv
        r = Cu - f
        g = P.T @ (Cu / (r * r) + Wu)
        h2 = 2.0 * Cu / (r * r * r)
        free = np.zeros(n, dtype=bool)
        for grp in groups:
            pos = [p for p in grp if xv[p] > 0.0]
            if not pos:
                continue
            ref = min(g[p] for p in pos)
            for p in grp:
                free[p] = xv[p] > 0.0 or g[p] < ref - 1e-12 * abs(ref)
        idx = np.nonzero(free)[0]
        rows = [[i for i, p in enumerate(idx) if p in set(grp)] for grp in groups]
        rows = [r_ for r_ in rows if r_]
        nf, nk = len(idx), len(rows)
        H = (P[:, idx].T * h2) @ P[:, idx]
        H[np.diag_indices(nf)] += 1e-12 * max(float(np.max(np.diag(H))), 1e-300)
        E = np.zeros((nk, nf))
        for k, r_ in enumerate(rows):
            E[k, r_] = 1.0
        kkt = np.block([[H, E.T], [E, np.zeros((nk, nk))]])
        rhs = np.concatenate([-g[idx], np.zeros(nk)])
        try:
            sol = np.linalg.solve(kkt, rhs)
        except np.linalg.LinAlgError:
            sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0]
        d = np.zeros(n)
        d[idx] = sol[:nf]
        if np.max(np.abs(d)) <= 1e-13 * scale:
            break
        # project out decreases of rates already at zero, take the longest step that keeps
        # rates ≥ 0, then backtrack until D decreases
        d[(xv <= 0.0) & (d < 0.0)] = 0.0
        neg = d < 0
        alpha = min(1.0, float(np.min(-xv[neg] / d[neg]))) if neg.any() else 1.0
        while alpha > 1e-12:
            trial = np.maximum(xv + alpha * d, 0.0)
            Dt = cost(trial)
            if Dt < D:
                break
            alpha *= 0.5
        else:
            break
        for grp in groups:  # keep each demand's sum exact
            tot_old, tot_new = xv[grp].sum(), trial[grp].sum()
            if tot_new > 0:
                trial[grp] *= tot_old / tot_new
        trial[np.abs(trial) < 1e-15 * scale] = 0.0
        Dt = cost(trial)
        if not Dt < D:
            break
        xv, D, changed = trial, Dt, True
    if changed:
        x[:n] = xv
    return changed


def _run(
    net: Network,
    demands: list[Demand],
    src: np.ndarray,
    dst: np.ndarray,
    requested: np.ndarray,
    alloc: np.ndarray,
    cands: list[list[tuple[int, ...]] | None],
    init: list[dict[tuple[int, ...], float]],
    usable: np.ndarray,
    opts: FdmOptions,
    lam: float | None,
    tempered: float,
    old_rates: list[dict[tuple[str, ...], float]] | None,
) -> Allocation:
    """Phase 2 (FD iterations in :func:`fd_iterate`) and the report."""
    store = _PathStore(demands, cands, init)
    stats = _iterate(net, store, src, dst, alloc, cands, usable, opts)
    return _report(net, demands, store, src, requested, alloc, opts, stats, lam, tempered, old_rates)


class _PathStore:
    """The path flows FD works on, in the flat arrays :func:`fd_iterate` takes: path ``i`` is
    ``arcs[path_off[i]:path_off[i] + path_len[i]]`` with flow ``x[i]``; demand ``k``'s paths are
    ``com_paths[k, :com_np[k]]``; ``counters`` = (paths, arcs used, iterations done)."""

    def __init__(self, demands: list[Demand], cands: list, init: list[dict[tuple[int, ...], float]]):
        K_ = len(demands)
        n_init = sum(len(p) for p in init)
        n_cand = sum(len(c) for c in cands if c is not None)
        self.pcap = n_init + n_cand + 8 * K_ + 64
        self.acap = self.pcap * 8
        self.path_off = np.zeros(self.pcap, dtype=np.int64)
        self.path_len = np.zeros(self.pcap, dtype=np.int64)
        self.arcs = np.zeros(self.acap, dtype=np.int64)
        self.x = np.zeros(self.pcap)
        self.com_paths = np.full((K_, _MAXP), -1, dtype=np.int64)
        self.com_np = np.zeros(K_, dtype=np.int64)
        self.counters = np.zeros(3, dtype=np.int64)
        for k in range(K_):
            if cands[k] is not None:
                for p in cands[k]:
                    self.add(k, p, 0.0)
            for p, v in init[k].items():
                self.add(k, p, float(v))

    def add(self, k: int, p: tuple[int, ...], rate: float) -> None:
        """Add ``rate`` on path ``p`` (arcs) of demand ``k``, a new path if it has none such."""
        for j in range(self.com_np[k]):
            q = self.com_paths[k, j]
            if self.path_len[q] == len(p) and tuple(self.arcs[self.path_off[q]: self.path_off[q] + self.path_len[q]]) == p:
                self.x[q] += rate
                return
        if self.com_np[k] >= _MAXP:
            # fold the flow onto the first path (only with very many warm-start paths)
            self.x[self.com_paths[k, 0]] += rate
            return
        i, o = int(self.counters[0]), int(self.counters[1])
        self.path_off[i], self.path_len[i] = o, len(p)
        self.arcs[o: o + len(p)] = p
        self.x[i] = rate
        self.com_paths[k, self.com_np[k]] = i
        self.com_np[k] += 1
        self.counters[0] += 1
        self.counters[1] += len(p)

    def grow(self) -> None:
        """Double the room for paths and arcs (:func:`fd_iterate` returned 1: out of room)."""
        self.path_off = np.concatenate([self.path_off, np.zeros(self.pcap, dtype=np.int64)])
        self.path_len = np.concatenate([self.path_len, np.zeros(self.pcap, dtype=np.int64)])
        self.x = np.concatenate([self.x, np.zeros(self.pcap)])
        self.arcs = np.concatenate([self.arcs, np.zeros(self.acap, dtype=np.int64)])
        self.pcap, self.acap = self.pcap * 2, self.acap * 2

    def arc_flows(self, m: int) -> np.ndarray:
        """Every arc's flow, summed from the path flows (no drift)."""
        return _arc_flows_of(self.x, self.path_off, self.path_len, self.arcs, int(self.counters[0]), m)


def _iterate(net: Network, store: _PathStore, src: np.ndarray, dst: np.ndarray, alloc: np.ndarray, cands: list,
             usable: np.ndarray, opts: FdmOptions) -> np.ndarray:
    """FD iterations in chunks until the relative gap is below ``opts.tolerance`` or ``max_iterations``;
    between chunks, small problems get Newton steps (phase 3). Returns ``stats`` (D, lower bound, gap)."""
    K_ = len(alloc)
    f = store.arc_flows(net.m)
    W = (net.delay_ms / 1000.0) * (1e6 / opts.packet_bits) if opts.include_propagation else np.zeros(net.m)
    restricted = np.array([c is not None for c in cands], dtype=np.bool_)
    free_sources = sorted({int(src[k]) for k in range(K_) if not restricted[k]})
    src_ptr = [0]
    src_com: list[int] = []
    for s in free_sources:
        src_com.extend(k for k in range(K_) if not restricted[k] and src[k] == s)
        src_ptr.append(len(src_com))
    indptr, adj = net.csr()
    stats = np.zeros(3)
    fs, sp_, sc_ = (np.array(v, dtype=np.int64) for v in (free_sources, src_ptr, src_com))
    end_point = end_point_mask(net)
    chunk = _NEWTON_CHUNK if opts.newton_max_paths > 0 else opts.max_iterations
    newton_at = -1  # path count when Newton last failed to improve
    while True:
        limit = min(opts.max_iterations, int(store.counters[2]) + chunk)
        code = fd_iterate(
            indptr, adj, net.src, net.dst, net.capacity_mbps, W, usable, src, dst, alloc, restricted,
            fs, sp_, sc_, store.path_off, store.path_len, store.arcs, store.counters, store.com_paths, store.com_np,
            store.x, f, limit, opts.tolerance, stats, end_point,
        )
        if code == 1:
            store.grow()
            continue
        converged = stats[2] <= opts.tolerance * max(stats[1], 1e-300)
        if converged or int(store.counters[2]) >= opts.max_iterations:
            return stats
        n_paths = int(store.counters[0])
        if n_paths != newton_at and n_paths <= opts.newton_max_paths:
            groups = [[int(store.com_paths[k, j]) for j in range(store.com_np[k])] for k in range(K_)]
            members = [[int(a) for a in store.arcs[store.path_off[p]: store.path_off[p] + store.path_len[p]]]
                       for p in range(n_paths)]
            if not _newton_polish(store.x, groups, members, net.capacity_mbps, W, usable):
                newton_at = n_paths
            f = store.arc_flows(net.m)


def _report(net: Network, demands: list[Demand], store: _PathStore, src: np.ndarray, requested: np.ndarray,
            alloc: np.ndarray, opts: FdmOptions, stats: np.ndarray, lam: float | None, tempered: float,
            old_rates: list[dict[tuple[str, ...], float]] | None) -> Allocation:
    """The :class:`Allocation` of the path flows: mean delay (Kleinrock), link loads, each demand's paths and,
    from a warm start, how much rate moved."""
    f = store.arc_flows(net.m)
    gamma = float(alloc.sum())
    residual = net.capacity_mbps - f
    sfr = float(np.sum(f / residual))
    prop = float(np.sum(f * net.delay_ms / 1000.0))
    mean_delay = (opts.packet_bits / 1e6 * sfr + (prop if opts.include_propagation else 0.0)) / gamma
    D, lb = stats[0], stats[1]
    rel_gap = float(max(D - lb, 0.0) / lb) if lb > 0 else 0.0
    links = [
        LinkLoad.model_construct(
            link=net.link[a], src=net.nodes[net.src[a]], dst=net.nodes[net.dst[a]], flow=float(f[a]),
            capacity=float(net.capacity_mbps[a]), utilization=float(f[a] / net.capacity_mbps[a]),
        )
        for a in range(net.m)
    ]
    x, arcs, path_off, path_len = store.x, store.arcs, store.path_off, store.path_len
    out_demands = []
    moved = 0.0
    old_total = 0.0
    for k, d in enumerate(demands):
        rates: dict[tuple[str, ...], float] = {}
        for j in range(store.com_np[k]):
            p = store.com_paths[k, j]
            if x[p] > 1e-12 * max(1.0, alloc[k]):
                nodes = (net.nodes[src[k]],) + tuple(net.nodes[net.dst[a]] for a in arcs[path_off[p]: path_off[p] + path_len[p]])
                rates[nodes] = rates.get(nodes, 0.0) + float(x[p])
        paths = [PathRate.model_construct(nodes=list(nd), rate=v) for nd, v in sorted(rates.items(), key=lambda kv: -kv[1])]
        out_demands.append(
            DemandAllocation.model_construct(
                id=d.id, src=d.src, dst=d.dst, demand=float(alloc[k]), requested=float(requested[k]), paths=paths
            )
        )
        if old_rates is not None:
            old = old_rates[k]
            old_total += sum(old.values())
            for nd in sorted(set(old) | set(rates)):
                moved += abs(rates.get(nd, 0.0) - old.get(nd, 0.0))
    return Allocation(
        method="fdm",
        gamma=gamma,
        sum_flow_over_residual=sfr,
        mean_delay_s=float(mean_delay),
        tempered=float(tempered),
        lambda_max=lam,
        relative_gap=rel_gap,
        iterations=int(store.counters[2]),
        moved_mbps=None if old_rates is None else moved / 2.0,
        moved_fraction=None if old_rates is None else (moved / 2.0 / old_total if old_total > 0 else 0.0),
        links=links,
        demands=out_demands,
    )
