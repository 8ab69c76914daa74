"""The network of the ``fluid`` engine: the plan's resources as FIFO drop-tail queues that
subflows cross in tandem, shared by both kernels.

Every subflow with a path is a *row*: its resources (link directions, access point air) in
path order, one *incidence* per (row, resource). Each incidence keeps the subflow's bits
waiting in that resource's queue (its backlog), so bits are conserved per subflow and per hop:
what a hop sends on is exactly what the subflow lost from that hop's queue.

One step (:func:`serve`), for every resource in *forwarding order* (every resource after
those that feed it, :func:`forwarding_order`)::

    A      = Σ_j a_j                                  bits arriving in the step (incidences j)
    Q      = the queue at the start of the step (backlog of every incidence, plus the bits of
             paths that no longer use it), C = capacity·dt, B = buffer (bits)
    s_q    = min(Q, C)/Q                              FIFO: the backlog leaves first
    s_a    = min(A, C − min(Q, C))/A                  then the arrivals, as far as C allows
    drop   = max(0, Q − min(Q, C) + A(1 − s_a) − B)   drop-tail: arrivals beyond the buffer
    w̄      = Σ_j a_j·w_j / A                          w_j: arrival j's burst weight (burst_weight)
    δ_j    = w_j/w̄ · drop / (A(1 − s_a))              its share of the drop (all alike, w_j = 1,
                                                      where some δ_j would exceed 1)
    d_j    = b_j·s_q + a_j·s_a                        what incidence j sends to its next hop
    b_j'   = b_j·(1 − s_q) + a_j·(1 − s_a)·(1 − δ_j)

so a hop never sends more than it holds (s_q, s_a ≤ 1) nor more than its capacity
(Σ d_j ≤ C), and Σ_j (d_j + b_j' − b_j) + a_j·(1 − s_a)·δ_j = Σ_j a_j (nothing created). A
subflow's loss signal is Σ over its path of w_j·drop/(A·w̄), the fraction of its bits dropped. A
subflow's bits cross its whole path in the step they were sent (the fluid approximation: per-hop
propagation is in the RTT, not in the fluid), through the queues as they are in that step.

A row's queueing delay (``qdelay``, which both kernels add to the base RTT) is the sum of
queue/capacity over the resources of its path *and* over the resources its ACKs cross: the
opposite direction of each wired hop (:func:`reverse_rows`), where an ACK waits behind the data
queued there by the subflows that send that way, FIFO. An access point's air, shared by both
directions, and a hop whose opposite direction no path uses add nothing (the air's queue already
counts once on the data path; an unused direction holds no data). ACKs are not fluid in the
queues: their bytes (a 66-byte frame per two segments, RFC 1122 §4.2.3.2 delayed ACKs, about
2 % of the data's rate) do not take capacity from the reverse direction's data.

Before, a hop received a subflow's rate times the *previous* step's pass fractions
(departed/arrived) of the hops before it. A draining queue passes more than arrives
(fraction > 1), and after a step with almost no arrivals (slow start's ACK-clocked bursts) the
fraction was up to capacity/arrivals: on long paths across several shared queues these
multiplied to 10^96 Mbit/s and then to infinities and NaN (docs/validation, "Correct at any
scale").

References
----------
.. [1] R. L. Cruz, "A calculus for network delay, part II: network analysis", IEEE Trans.
   Inf. Theory 37(1), 1991 (FIFO servers in tandem, per-flow conservation).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np

from subflow.compiled import njit


def forwarding_order(paths: Sequence[Sequence[int]], n_res: int) -> tuple[list[int], np.ndarray]:
    """The order in which one step serves the resources that ``paths`` cross.

    A resource is served after every resource that feeds it (an edge u → v where a path
    crosses v right after u): Kahn's topological order, lowest resource index first among
    those ready, so the order does not depend on the order of ``paths``. Where paths form a
    cycle of feeding (u feeds v on one path, v feeds u on another), the unserved resource with
    the fewest unserved feeders (lowest index on ties) is served next; the hops into
    resources already served then carry their bits into the next step (:func:`lagged_hops`).

    Parameters
    ----------
    paths : sequence of sequences of int
        Resource indices of each path, in path order (no resource twice in one path).
    n_res : int
        Number of resources (indices are in ``range(n_res)``).

    Returns
    -------
    order : list of int
        The resources that some path crosses, in serving order.
    rank : ndarray of int64, shape (n_res,)
        Position of each resource in ``order``; -1 for resources no path crosses.

    References
    ----------
    .. [1] A. B. Kahn, "Topological sorting of large networks", Comm. ACM 5(11), 1962.
    """
    succ: dict[int, set[int]] = {}
    indeg: dict[int, int] = {}
    for path in paths:
        for u in path:
            indeg.setdefault(u, 0)
            succ.setdefault(u, set())
        for u, v in zip(path, path[1:]):
            if v not in succ[u]:
                succ[u].add(v)
                indeg[v] += 1
    ready = [u for u, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    order: list[int] = []
    rank = np.full(n_res, -1, dtype=np.int64)
    left = set(indeg)
    while left:
        if ready:
            u = heapq.heappop(ready)
        else:  # a cycle of feeding: break it at the resource with the fewest unserved feeders
            u = min(left, key=lambda r: (indeg[r], r))
        left.discard(u)
        rank[u] = len(order)
        order.append(u)
        for v in succ[u]:
            if v in left:
                indeg[v] -= 1
                if indeg[v] == 0:
                    heapq.heappush(ready, v)
    return order, rank


def reverse_rows(row_ptr: np.ndarray, inc_res: np.ndarray, rank: np.ndarray,
                 reverse: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the resources that carry its ACKs: for each hop ``u`` of the row (``inc_res``,
    rows delimited by ``row_ptr``), ``reverse[u]`` (the opposite direction of a wired link;
    -1 for an access point's air or a link without one) when some row crosses it (``rank`` ≥ 0,
    :func:`forwarding_order`): only served resources have queues that :func:`serve` keeps
    up to date. Returns ``(rev_ptr, rev_res)`` (int64; row ``i``'s are
    ``rev_res[rev_ptr[i]:rev_ptr[i + 1]]``, in hop order); empty rows without ``reverse``."""
    k = row_ptr.shape[0] - 1
    rev_ptr = np.zeros(k + 1, dtype=np.int64)
    if reverse is None or not inc_res.size:
        return rev_ptr, np.zeros(0, dtype=np.int64)
    rev = reverse[inc_res]
    keep = rev >= 0
    keep[keep] = rank[rev[keep]] >= 0
    row_of = np.repeat(np.arange(k, dtype=np.int64), np.diff(row_ptr))
    np.cumsum(np.bincount(row_of[keep], minlength=k), out=rev_ptr[1:])
    return rev_ptr, rev[keep].astype(np.int64)


def acks_by_resource(row_slot: np.ndarray, rev_ptr: np.ndarray, rev_res: np.ndarray, rank: np.ndarray,
                     n_served: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`reverse_rows` turned around: per served resource (in forwarding order, ``rank``), the
    slots whose ACKs cross it. Returns ``(ack_ptr, ack_slot)`` (int64; the slots of the resource
    served ``q``-th are ``ack_slot[ack_ptr[q]:ack_ptr[q + 1]]``, rows in slot order)."""
    ack_ptr = np.zeros(n_served + 1, dtype=np.int64)
    if not rev_res.size:
        return ack_ptr, np.zeros(0, dtype=np.int64)
    slots = np.repeat(row_slot, np.diff(rev_ptr)).astype(np.int64)
    q = rank[rev_res]
    perm = np.argsort(q, kind="stable")
    np.cumsum(np.bincount(q, minlength=n_served), out=ack_ptr[1:])
    return ack_ptr, slots[perm]


class Incidence:
    """The rows of the network and their per-hop state, rebuilt when paths change.

    Incidences are stored twice over: in *row order* (row after row, each in path order) for
    what walks paths, and in *serving order* (resource after resource in forwarding order) for
    the per-hop state that :func:`serve` walks every step, so that walk reads memory in sequence.

    Attributes (all ``ndarray``; ``n`` incidences, ``k`` rows, ``r`` served resources)
    ----------
    row_ptr : int64, shape (k + 1,)
        Row ``i``'s incidences are ``row_ptr[i]:row_ptr[i + 1]`` in row order.
    row_slot : int64, shape (k,)
        The subflow slot of each row (rows in slot order).
    inc_res : int64, shape (n,)
        The resource of each incidence, row order.
    pos : int64, shape (n,)
        The serving position of each incidence given in row order.
    row_first : int64, shape (k,)
        Serving position of each row's first hop.
    order_res : int64, shape (r,)
        The resources some row crosses, in forwarding order (:func:`forwarding_order`); resource
        ``order_res[q]`` holds serving positions ``order_ptr[q]:order_ptr[q + 1]``.
    order_ptr : int64, shape (r + 1,)
    srv_next : int64, shape (n,)
        Where what the incidence sends goes: the serving position ``p`` of the next hop of the
        same row; -1 at the last hop; ``-2 - p`` when the next hop ``p`` is served before this one
        (a cycle of feeding: a *lagged* hop, what this hop sends reaches it in the next step).
    srv_slot : int64, shape (n,)
        The slot of each serving position.
    lag_in : int64
        The serving positions that lagged hops feed.
    rev_ptr : int64, shape (k + 1,)
        Row ``i``'s reverse resources are ``rev_res[rev_ptr[i]:rev_ptr[i + 1]]``.
    rev_res : int64
        The resources that carry each row's ACKs, in the order of the hops they reverse
        (:func:`reverse_rows`).
    ack_ptr : int64, shape (r + 1,)
        The slots whose ACKs cross the resource served ``q``-th are ``ack_slot[ack_ptr[q]:ack_ptr[q + 1]]``
        (:func:`acks_by_resource`).
    ack_slot : int64
    backlog, pending, arriving : float64, shape (n,), serving order
        Bits of the row waiting in the hop's queue; bits sent to the hop in the previous step
        over a lagged hop; bits arriving in the current step (work array, zero between steps).
    burst : float64, shape (n,), serving order
        Each incidence's burst weight (:func:`burst_weight`), set by :func:`row_state` when rows or
        capacities change and read by :func:`serve`.
    """

    def __init__(self, rows: Sequence[tuple[int, Sequence[int]]], n_res: int,
                 previous: "Incidence | None" = None, reverse: np.ndarray | None = None):
        rows = sorted(rows, key=lambda r: r[0])
        self.row_slot = np.array([s for s, _ in rows], dtype=np.int64)
        lengths = [len(p) for _, p in rows]
        self.row_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.row_ptr[1:])
        n = int(self.row_ptr[-1])
        self.inc_res = inc_res = np.array([u for _, p in rows for u in p], dtype=np.int64)
        inc_slot = np.repeat(self.row_slot, lengths).astype(np.int64)
        order, rank = forwarding_order([p for _, p in rows], n_res)
        nxt = np.arange(1, n + 1, dtype=np.int64)
        if len(rows):
            nxt[self.row_ptr[1:] - 1] = -1
        has_next = nxt >= 0
        lag = np.zeros(n, dtype=np.bool_)
        if n:
            lag[has_next] = rank[inc_res[nxt[has_next]]] <= rank[inc_res[has_next]]
        # serving order: by the resource's rank, rows in slot order within a resource (stable)
        perm = np.argsort(rank[inc_res], kind="stable").astype(np.int64) if n else np.zeros(0, dtype=np.int64)
        self.pos = pos = np.empty(n, dtype=np.int64)
        pos[perm] = np.arange(n, dtype=np.int64)
        self.row_first = pos[self.row_ptr[:-1]] if len(rows) else np.zeros(0, dtype=np.int64)
        self.order_res = np.array(order, dtype=np.int64)
        counts = np.bincount(rank[inc_res], minlength=len(order)) if n else np.zeros(len(order), dtype=np.int64)
        self.order_ptr = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(counts, out=self.order_ptr[1:])
        nxt_p = nxt[perm]
        srv_next = np.where(nxt_p >= 0, pos[np.maximum(nxt_p, 0)], -1).astype(np.int64) if n else nxt_p
        srv_lag = lag[perm]
        #: serving positions that receive bits over a lagged hop (from ``pending``)
        self.lag_in = srv_next[srv_lag].astype(np.int64)
        self.srv_next = np.where(srv_lag, -2 - srv_next, srv_next).astype(np.int64)
        self.srv_slot = inc_slot[perm]
        self.rev_ptr, self.rev_res = reverse_rows(self.row_ptr, inc_res, rank, reverse)
        self.ack_ptr, self.ack_slot = acks_by_resource(self.row_slot, self.rev_ptr, self.rev_res, rank, len(order))
        self.backlog = np.zeros(n)
        self.pending = np.zeros(n)
        self.arriving = np.zeros(n)
        self.burst = np.ones(n)
        if previous is not None and previous.inc_res.size and n:
            # a subflow keeps its bits in the queues its new path shares with the old one (same slot,
            # same resource); the rest stay in their queues, owned by no path, and are never delivered
            old_slot = np.repeat(previous.row_slot, np.diff(previous.row_ptr))
            old = {(int(s), int(u)): int(p) for s, u, p in zip(old_slot, previous.inc_res, previous.pos)}
            for j, (s, u) in enumerate(zip(inc_slot.tolist(), inc_res.tolist())):
                p = old.get((s, u))
                if p is not None:
                    self.backlog[pos[j]] = previous.backlog[p]
                    self.pending[pos[j]] = previous.pending[p]

    @property
    def used(self) -> np.ndarray:
        """The resources some row crosses (int64)."""
        return self.order_res

    def row_arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays :func:`row_state` reads: ``row_ptr, row_slot, inc_res, pos, order_res, order_ptr,
        srv_slot, ack_ptr, ack_slot``."""
        return (self.row_ptr, self.row_slot, self.inc_res, self.pos, self.order_res, self.order_ptr,
                self.srv_slot, self.ack_ptr, self.ack_slot)


#: α of :func:`burst_weight`: how much more of a full drop-tail queue's drop falls on an arrival that
#: comes in line-rate bursts than on one smoothed by an upstream bottleneck as slow as the queue
BURST_DROP_BIAS = 2.0


@njit(cache=True, nogil=True)
def burst_weight(rho):
    """The weight of an arrival in a full drop-tail queue's drop: ``1 + α(1 − 1/ρ)`` for ``ρ`` > 1,
    else 1, where ``ρ`` is the narrowest capacity before the queue on the arrival's path (∞ at its
    first hop, where the sender's window leaves in bursts) over the queue's capacity and α is
    :data:`BURST_DROP_BIAS`. An arrival that crossed a hop no faster than this queue reaches it
    spread at most at the queue's rate and adds to it only while others do; one whose bursts
    come faster fills the queue itself, and a full queue drops the bursts' tails (drop-tail's
    bias against bursty traffic: S. Floyd, V. Jacobson, "Random early detection gateways for
    congestion avoidance", IEEE/ACM ToN 1(4), 1993, §2). α is fitted to the kernel's 14-node mesh
    (docs/validation, "Multiple bottlenecks"; 12 flows, four bottlenecks): with every arrival alike
    (α = 0) three flows missed ±20 % of the kernel's goodput (0.75–1.25), with α = 1 one did (1.21),
    with α = 2 every flow is within 0.85–1.15; the parking lot, not used to fit it, reads 1.10 on
    its long flow (0.99 with α = 0). A fit, not a derivation: the weight stands for the share of
    a burst's packets that find the queue full, which depends on the burst's length and the
    queue's occupancy, neither of which the fluid model has.
    """
    if rho <= 1.0:
        return 1.0
    return 1.0 + BURST_DROP_BIAS * (1.0 - 1.0 / rho)


@njit(cache=True, nogil=True, error_model="numpy")
def begin_step(inject, row_slot, row_first, lag_in, pending, arriving, got, dropped, qdelay):
    """The start of one step of :func:`serve` (and of :func:`.classes.serve_classes`), in place: the bits sent
    over a lagged hop in the previous step (``pending``, at the serving positions ``lag_in``) and the bits each
    row's slot injects in this one (``inject[slot]``, at its first hop ``row_first``) join ``arriving``
    (float64, incidences, serving order; bits); ``pending`` is emptied there, and the per-slot outputs ``got``,
    ``dropped`` and ``qdelay`` (float64, slots) are zeroed for every slot with a row (``row_slot``)."""
    for m in range(lag_in.shape[0]):
        j = lag_in[m]
        arriving[j] += pending[j]
        pending[j] = 0.0
    for k in range(row_slot.shape[0]):
        s = row_slot[k]
        got[s] = 0.0
        dropped[s] = 0.0
        qdelay[s] = 0.0
        v = inject[s]
        if v > 0.0:
            arriving[row_first[k]] += v


@njit(cache=True, nogil=True, error_model="numpy")
def count_queued(row_slot, srv_slot, backlog, pending, queued):
    """The end of one step for finite transfers: ``queued[slot]`` (float64, slots; bits) = the bits the slot's row
    holds in its queues and on its lagged hops (``backlog`` + ``pending``, float64, incidences, serving order),
    for every slot with a row (``row_slot``; ``srv_slot`` the slot of each serving position)."""
    for k in range(row_slot.shape[0]):
        queued[row_slot[k]] = 0.0
    for j in range(srv_slot.shape[0]):
        queued[srv_slot[j]] += backlog[j] + pending[j]


@njit(cache=True, nogil=True, error_model="numpy")
def fifo_fractions(q, c, a, buf):
    """One FIFO drop-tail queue in one step (the equations of :mod:`subflow_engines.fluid.queues`): ``q`` the
    queue at the step's start, ``c`` what it may send in the step, ``a`` the bits arriving in it, ``buf`` its
    buffer (all bits, ≥ 0). Returns ``(s_q, s_a, rest_a, rest, drop, full)``: the fractions of the backlog and of
    the arrivals sent on (the backlog first, then the arrivals as far as ``c`` allows; 1 for an empty part), the
    arrivals left in the queue before any drop, the queue after the step (at most ``buf``), the bits dropped
    (0 unless ``full``) and whether the queue overflowed. E.g. q 4, c 6, a 5, buf 2: s_q 1, s_a 0.4, rest_a 3,
    rest 2, drop 1."""
    served_q = q if q < c else c
    s_q = served_q / q if q > 0.0 else 1.0
    room = c - served_q
    served_a = a if a < room else room
    s_a = served_a / a if a > 0.0 else 1.0
    rest_a = a - served_a
    rest = q - served_q + rest_a
    if rest > buf:
        return s_q, s_a, rest_a, buf, rest - buf, True
    return s_q, s_a, rest_a, rest, 0.0, False


@njit(cache=True, nogil=True, error_model="numpy")
def drop_shares(drop, rest_a, a, w_sum, w_max):
    """How a full queue's ``drop`` (bits, > 0) falls on its arrivals (``a`` bits in all, ``rest_a`` > 0 of them
    left in the queue): drop-tail's bias against bursts gives each arrival a share in proportion to its bits
    times its burst weight (:func:`burst_weight`; ``w_sum`` = Σ bits·weight, ``w_max`` the largest weight of an
    arrival with bits), unless that would drop more than some arrival holds. Returns ``(delta, df, uniform)``:
    the fraction of its left bits every arrival loses (``uniform``) or, not ``uniform``, the fraction per unit
    of weight; and the drop per unit of burst weight of a bit (an arrival's loss signal is its weight × ``df``;
    0 when ``w_sum`` is 0)."""
    delta = drop / rest_a
    if delta > 1.0:
        delta = 1.0
    df = 0.0
    uniform = True
    if w_sum > 0.0:
        df = drop / w_sum
        if delta * w_max * a < w_sum:
            uniform = False
            delta = delta * a / w_sum
    return delta, df, uniform


@njit(cache=True, nogil=True, error_model="numpy")
def forward(j, a, s_q, s_a, keep, backlog, srv_next, srv_slot, arriving, got, pending):
    """Incidence ``j`` (serving order) after its queue's step: of its backlog b and its arrivals ``a`` (bits) it
    sends d = b·s_q + a·s_a on (to its next hop's ``arriving``, to ``got`` of its slot at the last hop, or to
    ``pending`` over a lagged hop, :class:`Incidence`'s ``srv_next``) and keeps b·(1 − s_q) + a·(1 − s_a)·``keep``
    (``keep`` = 1 − the fraction of its left arrivals dropped)."""
    b = backlog[j]
    d = b * s_q + a * s_a
    backlog[j] = b * (1.0 - s_q) + a * (1.0 - s_a) * keep
    nj = srv_next[j]
    if nj >= 0:
        arriving[nj] += d
    elif nj == -1:
        got[srv_slot[j]] = d
    else:
        pending[-2 - nj] += d


@njit(cache=True, nogil=True, error_model="numpy")
def serve(inject, row_slot, row_first, order_res, order_ptr, srv_next, srv_slot, lag_in, ack_ptr, ack_slot, queue,
          cap, cap_dt, buf, backlog, pending, arriving, burst, arrived, drop_frac, res_delay, got, dropped, qdelay,
          queued, track_queued, link_cap_bits):
    """One step of the network, in place (the equations of :mod:`subflow_engines.fluid.queues`).

    Parameters
    ----------
    inject : float64 (slots,)
        Bits each subflow slot sends into its first hop in the step.
    row_slot, row_first, order_res, order_ptr, srv_next, srv_slot, lag_in, ack_ptr, ack_slot
        :class:`Incidence` arrays.
    queue, cap, cap_dt, buf : float64 (resources,)
        Queue (bits, updated), capacity (bit/s), capacity per step (bits), buffer (bits) of each
        resource.
    backlog, pending, arriving : float64 (incidences,)
        :class:`Incidence` state, serving order (updated).
    burst : float64 (incidences,)
        Each incidence's burst weight (:func:`burst_weight`), serving order, as :func:`row_state` set it.
    arrived, drop_frac, res_delay : float64 (resources,)
        Out: bits that arrived at each served resource, its drop per unit of burst weight (an
        arrival of weight w loses w·drop_frac of its bits, and that is its loss signal; where that
        would exceed some arrival's bits, the bits are dropped alike and the signal stays
        weighted), and its queueing delay after the step (queue/capacity, s).
    got, dropped, qdelay, queued : float64 (slots,)
        Out, for the slots that have a row: bits out of the row's last hop (before random loss);
        sum of the drop fractions along its path; queueing delay of its round trip after the step,
        Σ queue/capacity over its path and over its ACKs' resources (s; summed resource by
        resource in forwarding order, as :func:`round_trip_delay` sums it); bits the row holds in
        its queues after the step (sent and neither delivered nor dropped; only when
        ``track_queued``, for finite transfers).
    link_cap_bits : float64 (resources,)
        Accumulated for the invariants (:mod:`subflow_engines.fluid.invariants`): each served
        resource's capacity·dt.

    Returns
    -------
    bool
        True when some queue overflowed (dropped bits) in the step.

    Notes
    -----
    The per-slot sums (loss signal, queueing delay) are taken resource by resource, over the
    incidences of the resources that dropped bits or hold a queue only: on a large network most
    hops are idle in a step, and a walk of every row's path would cost as much as the step.
    """
    begin_step(inject, row_slot, row_first, lag_in, pending, arriving, got, dropped, qdelay)
    overflow = False
    for r in range(order_res.shape[0]):
        u = order_res[r]
        a_sum = 0.0
        for j in range(order_ptr[r], order_ptr[r + 1]):
            a_sum += arriving[j]
        c = cap_dt[u]
        s_q, s_a, rest_a, rest, drop, full = fifo_fractions(queue[u], c, a_sum, buf[u])
        delta = 0.0
        df = 0.0
        uniform = True
        if full:
            overflow = True
            if rest_a > 0.0:
                w_sum = 0.0
                w_max = 0.0
                for j in range(order_ptr[r], order_ptr[r + 1]):
                    a = arriving[j]
                    w_sum += a * burst[j]
                    if a > 0.0 and burst[j] > w_max:
                        w_max = burst[j]
                delta, df, uniform = drop_shares(drop, rest_a, a_sum, w_sum, w_max)
        queue[u] = rest
        rd = rest / cap[u]
        res_delay[u] = rd
        drop_frac[u] = df
        arrived[u] = a_sum
        link_cap_bits[u] += c
        for j in range(order_ptr[r], order_ptr[r + 1]):
            a = arriving[j]
            arriving[j] = 0.0
            forward(j, a, s_q, s_a, 1.0 - (delta if uniform else delta * burst[j]), backlog, srv_next, srv_slot,
                    arriving, got, pending)
            sj = srv_slot[j]
            if df > 0.0:
                dropped[sj] += df * burst[j]
            if rd > 0.0:
                qdelay[sj] += rd
        if rd > 0.0:
            for j in range(ack_ptr[r], ack_ptr[r + 1]):
                qdelay[ack_slot[j]] += rd
    if track_queued:
        count_queued(row_slot, srv_slot, backlog, pending, queued)
    return overflow


@njit(cache=True, nogil=True, error_model="numpy")
def round_trip_delay(row_slot, order_res, order_ptr, srv_slot, ack_ptr, ack_slot, res_delay, qdelay):
    """Per slot with a row, the queueing delay of its round trip (s): ``res_delay`` (queue/capacity,
    s) summed over the resources of its path and those its ACKs cross (:class:`Incidence`'s
    ``ack_ptr``/``ack_slot``), resource by resource in forwarding order, as :func:`serve` sums it."""
    for k in range(row_slot.shape[0]):
        qdelay[row_slot[k]] = 0.0
    for r in range(order_res.shape[0]):
        rd = res_delay[order_res[r]]
        if rd > 0.0:
            for j in range(order_ptr[r], order_ptr[r + 1]):
                qdelay[srv_slot[j]] += rd
            for j in range(ack_ptr[r], ack_ptr[r + 1]):
                qdelay[ack_slot[j]] += rd


@njit(cache=True, nogil=True, error_model="numpy")
def downstream_backlog(row_ptr, row_slot, inc_res, pos, backlog, pending, slot_tol, link_tol):
    """At the start of an output sample: per row, the bits it holds in its queues (``slot_tol``,
    by slot), and per resource the bits that rows crossing it hold *after* it on their paths
    (``link_tol``): what can be delivered in the sample beyond what crosses a hop in it.
    Both out arrays are overwritten where rows exist (bits)."""
    for k in range(row_slot.shape[0]):
        a, b = row_ptr[k], row_ptr[k + 1]
        after = 0.0
        for j in range(b - 1, a - 1, -1):
            link_tol[inc_res[j]] += after
            after += backlog[pos[j]] + pending[pos[j]]
        slot_tol[row_slot[k]] = after


@njit(cache=True, nogil=True, error_model="numpy")
def row_state(net_rows, res_delay, qdelay, first_cap, min_cap, cap, burst):
    """Per slot, from the rows and each resource's queueing delay ``res_delay`` (queue/capacity,
    s): the queueing delay of its round trip (:func:`round_trip_delay`; s), the capacity of its
    first and of its narrowest hop (bit/s, from ``cap``); slots without a row get 0, ∞, ∞. Per
    incidence, its burst weight (``burst``, serving order: :func:`burst_weight` of the narrowest
    capacity before it on its row over its own). ``net_rows``: :class:`Incidence`'s ``row_ptr,
    row_slot, inc_res, pos, order_res, order_ptr, srv_slot, ack_ptr, ack_slot``
    (:meth:`Incidence.row_arrays`). Called when rows or capacities change; :func:`serve` keeps
    ``qdelay`` up to date from step to step, summing in the same order."""
    row_ptr, row_slot, inc_res, pos, order_res, order_ptr, srv_slot, ack_ptr, ack_slot = net_rows
    for s in range(qdelay.shape[0]):
        qdelay[s] = 0.0
        first_cap[s] = np.inf
        min_cap[s] = np.inf
    for k in range(row_slot.shape[0]):
        s = row_slot[k]
        for j in range(row_ptr[k], row_ptr[k + 1]):
            u = inc_res[j]
            if j == row_ptr[k]:
                first_cap[s] = cap[u]
            burst[pos[j]] = burst_weight(min_cap[s] / cap[u]) if cap[u] > 0.0 else 1.0
            if cap[u] < min_cap[s]:
                min_cap[s] = cap[u]
    round_trip_delay(row_slot, order_res, order_ptr, srv_slot, ack_ptr, ack_slot, res_delay, qdelay)
