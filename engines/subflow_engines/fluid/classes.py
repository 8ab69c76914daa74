"""Queues by class in the ``fluid`` engine: strict priority, deficit round robin and 802.11 EDCA.

With the plan's ``queueing`` (:class:`subflow.scenario.document.QueueingSettings`) not the default (``fifo`` and
``dcf``), every resource keeps one fluid drop-tail queue per class instead of one FIFO, and one step
(:func:`serve_classes`) first shares the resource's capacity among its classes, then serves each class's queue with
the FIFO equations of :mod:`.queues` at that class's share. A flow's packets (its data, and a TCP flow's ACKs on the
reverse direction) are in the class of its DSCP: :func:`subflow.scenario.document.traffic_class_of` on a wired
link (and on an 802.11 hop under ``wifi`` ``dcf``: the host's queueing discipline in front of the interface), its
access category (:data:`subflow.scenario.document.DSCP_ACCESS_CATEGORY`, RFC 8325 §4.3) on an 802.11 hop under
``wifi`` ``edca``. Per step, with ``D_k = Q_k + A_k`` a class's queue plus its arrivals (bits) and ``C`` the
resource's capacity·dt::

    strict_priority   classes in priority order (0 first): c_k = min(D_k, C − Σ_{higher} c_j)
                      (Linux tc prio: a band is served only while every lower band is empty)
    drr               c_k = min(D_k, w_k·L), L the level at which Σ_k c_k = min(C, Σ_k D_k)
                      (water-filling: backlogged classes share C ∝ weight, an idle class's share goes to the
                      others; the fluid limit of deficit round robin with quantum ∝ weight, Shreedhar &
                      Varghese 1996, §3, whose per-class service stays within one maximum packet of it)
    edca (802.11)     the access categories in strict priority AC_VO, AC_VI, AC_BE, AC_BK over the hop's
                      airtime, each bit of category k costing 1/C·(1 + Δ_k·C/S) of it: Δ_k = (AIFS_k +
                      CWmin_k·slot/2) − (AIFS_ref + CWmin_ref·slot/2), the category's channel access (AIFS and
                      mean backoff, IEEE 802.11-2020 10.22.2, default parameters of Table 9-155) less the one
                      the planner's cell capacity already counts (DCF for a/g, AC_BE for n/ac:
                      subflow.radio.airtime.access_parameters), per frame of S = MSS bits; at most C bits in all

then each class ``k`` is a FIFO drop-tail queue of capacity ``c_k`` and buffer ``B_k`` (the class's
``queue_packets`` or the resource's; each access category has the resource's), dropping its own arrivals only
(:mod:`.queues`: s_q, s_a, drop, burst weights, per class). The queueing delay of class ``k`` (in the RTT of a
TCP subflow, in a constant-rate flow's one-way delay) is

    d_k = Q_k' / r_k + W0_k,   r_k = the rate left to class k (strict: C − Σ_{higher} c_j; drr: c_k; at least
                                     C/1000, so that a starved class reads a long, finite delay)
    W0_k = Σ_{j≠k} ρ_j · S_j/2,  ρ_j = the share of the step's airtime (link time) class j used, S_j = one
                                 MSS-sized packet's transmission at the resource's rate (× its EDCA cost)

W0_k is the residual service of the packet in transmission when one of class k arrives: a link does not preempt
the packet it is sending (Cobham, "Priority assignment in waiting line problems", J. Operations Research Society of America 2(1),
1954: the mean
residual Σ_j λ_j E[S_j²]/2 = Σ_j ρ_j S_j/2 for fixed-size packets; Kleinrock, Queueing Systems Vol. II, 1976,
ch. 3). So a voice packet above a backlogged bulk TCP class waits on average half a 1514-byte frame, never more
than one, instead of the whole standing queue. A constant-rate packet's transmission is its packet at the
resource's rate (times its category's cost on an EDCA hop).

Not modelled: EDCA's TXOP bursts (a category sends one frame per access), internal collisions between a
station's categories and collisions with other stations (the access categories of one queue resource are served
in strict priority, as the smaller AIFS and contention window make them win the medium most of the time;
G. Bianchi's DCF model extended to EDCA, e.g. Kong et al., "Performance analysis of IEEE 802.11e contention-based
channel access", IEEE JSAC 22(10), 2004, gives the collision terms), priority *between* stations' queues of a cell
(each per-station air queue keeps the planner's DCF share of the cell, :mod:`subflow.runplan.air_cells`), and a
small frame's larger per-bit overhead (every category's access is counted per MSS-sized frame).
"""

from __future__ import annotations

import numpy as np

from subflow.compiled import njit
from subflow.radio.airtime import Phy, access_parameters
from subflow.runplan.document import RunPlan
from subflow.scenario.document import DEFAULT_TRAFFIC_CLASSES, DSCP_ACCESS_CATEGORY, traffic_class_of

from subflow_engines.fluid.queues import begin_step, count_queued, drop_shares, fifo_fractions, forward

#: the access categories of an 802.11 hop under EDCA, in the order they win the medium (IEEE 802.11-2020 10.22.2)
ACCESS_CATEGORIES = ("voice", "video", "best_effort", "background")
_AC_CODE = {"voice": "VO", "video": "VI", "best_effort": "BE", "background": "BK"}
#: the slowest a class's queue drains in its delay: this fraction of the resource's capacity (a starved class
#: reads a long but finite delay)
MIN_RATE_FRACTION = 1e-3
MODE_FIFO, MODE_STRICT, MODE_DRR = 0, 1, 2


def is_classed(plan: RunPlan) -> bool:
    """Whether ``plan`` queues by class (a ``discipline`` other than fifo or ``wifi`` edca)."""
    return plan.queueing.discipline != "fifo" or plan.queueing.wifi == "edca"


def _air_phy(plan: RunPlan, rid: str) -> Phy:
    """The PHY of the access point whose air ``rid`` is (``"air:<ap>"`` or ``"air:<ap>:<a>><b>"``), from the
    plan's scenario; 802.11a (OFDM, 9 µs slot, 16 µs SIFS) when the access point has no radio."""
    ap_id = rid.split(":")[1]
    for n in (plan.scenario or {}).get("nodes", []):
        radio = n.get("radio") if n.get("id") == ap_id else None
        if radio:
            phy = radio.get("phy", "g")
            band = (2.4 if radio.get("frequency_mhz", 2412.0) < 4000 else 5.0) if phy == "n" else None
            return Phy(standard=phy, channel_width_mhz=radio.get("channel_width_mhz", 20), band_ghz=band)
    return Phy(standard="a")


def access_delta_s(phy: Phy, category: str) -> float:
    """Channel access time of ``category``'s frames (AIFS + mean backoff CWmin·slot/2, IEEE 802.11-2020 10.22.2,
    Table 9-155 defaults) less that of the access the planner's capacity counts (DCF for a/b/g, AC_BE for n/ac), s:
    in slots, against DCF's 2 + 7.5: AC_VO 2 + 1.5 (−6), AC_VI 2 + 3.5 (−4), AC_BE 3 + 7.5 (+1), AC_BK 7 + 7.5 (+5);
    against AC_BE's 3 + 7.5 on n/ac: −7, −5, 0, +4."""
    ref = access_parameters(phy)
    acc = access_parameters(phy, _AC_CODE[category])
    return (acc.aifs_s + acc.mean_backoff_s) - (ref.aifs_s + ref.mean_backoff_s)


class ClassedQueues:
    """The classes of a plan's queues and their state, for :func:`serve_classes`.

    Classes are numbered 0..K−1: first the discipline's (``queueing.classes`` or
    :data:`~subflow.scenario.document.DEFAULT_TRAFFIC_CLASSES`; one class when the discipline is fifo), then, under
    ``wifi`` edca, the four access categories. Attributes (ndarray): ``res_mode`` (n_res,) MODE_*; ``res_set``
    (n_res,) 0 = the discipline's classes, 1 = the access categories; ``set_lo``/``set_hi`` (2,) and ``porder`` (K,):
    each set's classes in serving order; ``weight`` (K,); ``cls_buf`` (n_res, K) buffers, bits; ``delta_s``
    (n_res, K) EDCA access time difference, s; ``qc`` (n_res, K) queues, bits; ``rdc`` (n_res, K) each class's
    queueing delay after the step, s; ``slot_cls`` (2, n_slots) each slot's class in either set.
    """

    def __init__(self, plan: RunPlan, resources, n_slots: int, slot_conn: np.ndarray, pkt_bits: float):
        q = plan.queueing
        wired = list(q.classes or DEFAULT_TRAFFIC_CLASSES) if q.discipline != "fifo" else []
        nw = max(1, len(wired))
        edca = q.wifi == "edca"
        self.names = [c.name for c in wired] or ["fifo"]
        if edca:
            self.names += [f"AC_{_AC_CODE[a]}" for a in ACCESS_CATEGORIES]
        k = len(self.names)
        n_res = len(resources)
        mode = {"fifo": MODE_FIFO, "strict_priority": MODE_STRICT, "drr": MODE_DRR}[q.discipline]
        self.res_mode = np.full(n_res, mode, dtype=np.int64)
        self.res_set = np.zeros(n_res, dtype=np.int64)
        self.set_lo = np.array([0, nw], dtype=np.int64)
        self.set_hi = np.array([nw, k], dtype=np.int64)
        order = sorted(range(nw), key=lambda i: wired[i].priority) if wired else [0]
        self.porder = np.array(order + list(range(nw, k)), dtype=np.int64)
        self.weight = np.ones(k)
        for i, c in enumerate(wired):
            self.weight[i] = c.weight
        self.cls_buf = np.zeros((n_res, k))
        self.delta_s = np.zeros((n_res, k))
        for u, r in enumerate(resources):
            base = r.queue_packets * pkt_bits
            for i, c in enumerate(wired):
                self.cls_buf[u, i] = (c.queue_packets or r.queue_packets) * pkt_bits
            if not wired:
                self.cls_buf[u, 0] = base
            if edca and r.kind == "air":
                self.res_mode[u] = MODE_STRICT
                self.res_set[u] = 1
                phy = _air_phy(plan, r.id)
                for j, ac in enumerate(ACCESS_CATEGORIES):
                    self.cls_buf[u, nw + j] = base
                    self.delta_s[u, nw + j] = access_delta_s(phy, ac)
        self.qc = np.zeros((n_res, k))
        self.rdc = np.zeros((n_res, k))
        self.a_k = np.zeros(k)
        self.c_k = np.zeros(k)
        self.r_k = np.zeros(k)
        self.d_k = np.zeros(k)
        self.slot_cls = np.zeros((2, n_slots), dtype=np.int64)
        for s in range(n_slots):
            fp = plan.flows[int(slot_conn[s])]
            if wired:
                self.slot_cls[0, s] = self.names.index(traffic_class_of(q, fp.dscp).name)
            if edca:
                self.slot_cls[1, s] = nw + ACCESS_CATEGORIES.index(DSCP_ACCESS_CATEGORY.get(fp.dscp, "best_effort"))
        self.pkt_bits = pkt_bits
        self.inc_cls = np.zeros(0, dtype=np.int64)
        self.ack_cls = np.zeros(0, dtype=np.int64)

    def class_of(self, slot: int, u: int) -> int:
        """The class of ``slot``'s packets at resource ``u``."""
        return int(self.slot_cls[self.res_set[u], slot])

    def rows_changed(self, net, queue_bits: np.ndarray) -> None:
        """The network's rows were rebuilt (:class:`.queues.Incidence` ``net``): each incidence's and each ACK
        entry's class; a class queue that no path used meanwhile drained with the resource's queue
        (``queue_bits``), so it is scaled to it."""
        res_of_pos = np.repeat(net.order_res, np.diff(net.order_ptr))
        self.inc_cls = self.slot_cls[self.res_set[res_of_pos], net.srv_slot].astype(np.int64)
        res_of_ack = np.repeat(net.order_res, np.diff(net.ack_ptr))
        self.ack_cls = self.slot_cls[self.res_set[res_of_ack], net.ack_slot].astype(np.int64)
        held = self.qc.sum(axis=1)
        scale = np.where(held > 0, queue_bits / np.where(held > 0, held, 1.0), 0.0)
        self.qc *= scale[:, None]

    def round_trip_delays(self, net, qdelay: np.ndarray) -> None:
        """Each slot's round-trip queueing delay from the classes' delays (after the rows or a capacity changed)."""
        class_round_trip_delay(net.row_slot, net.order_res, net.order_ptr, net.srv_slot, self.inc_cls, net.ack_ptr,
                               net.ack_slot, self.ack_cls, self.rdc, qdelay)

    def one_way_delay_s(self, slot: int, res, resources, cap_bps: np.ndarray, packet_bits: float) -> float:
        """One-way delay of a packet of ``slot`` along ``res``, s: Σ propagation + its class's queueing delay
        (queue over the class's rate + the residual of the packet in service, W0) + its transmission at the
        resource's rate (× its access category's airtime cost on an EDCA hop). ``packet_bits`` goodput-scaled."""
        total = 0.0
        for u in res:
            total += resources[u].delay_ms * 1e-3
            c = float(cap_bps[u])
            if c > 0.0:
                k = self.class_of(slot, u)
                cost = max(0.05, 1.0 + self.delta_s[u, k] * c / self.pkt_bits)
                total += float(self.rdc[u, k]) + packet_bits * cost / c
        return total

    def delay_spread_s(self, slot: int, res, burst_bits: np.ndarray) -> float:
        """Width of the packet-granularity term of a packet of ``slot`` along ``res``, s (:func:`.cbr.delay_spread_s`
        for its class queues): Σ over the hops of the class's queueing delay scaled to at most ``burst_bits``
        of its queue, rdc · min(1, burst / queue); 0 where its class holds nothing (the residual W0 of the
        packet in service, in rdc, is a mean and adds nothing to the width). ``burst_bits`` per resource,
        goodput-scaled."""
        total = 0.0
        for u in res:
            k = self.class_of(slot, u)
            q = float(self.qc[u, k])
            if q > 0.0:
                total += float(self.rdc[u, k]) * min(1.0, float(burst_bits[u]) / q)
        return total


@njit(cache=True, nogil=True, error_model="numpy")
def class_round_trip_delay(row_slot, order_res, order_ptr, srv_slot, inc_cls, ack_ptr, ack_slot, ack_cls, rdc,
                           qdelay):
    """Per slot with a row: Σ over its path's resources and its ACKs' resources of its class's delay ``rdc``, s."""
    for k in range(row_slot.shape[0]):
        qdelay[row_slot[k]] = 0.0
    for r in range(order_res.shape[0]):
        u = order_res[r]
        for j in range(order_ptr[r], order_ptr[r + 1]):
            qdelay[srv_slot[j]] += rdc[u, inc_cls[j]]
        for j in range(ack_ptr[r], ack_ptr[r + 1]):
            qdelay[ack_slot[j]] += rdc[u, ack_cls[j]]


@njit(cache=True, nogil=True, error_model="numpy")
def class_shares(mode, lo, hi, porder, weight, demand, cap_dt, cost, alloc, avail):
    """The step's capacity ``cap_dt`` (bits) shared among the classes ``porder[lo:hi]`` with demands ``demand``
    (bits: queue + arrivals): ``alloc[k]`` the bits class k may send, ``avail[k]`` the bits it could have sent had
    it more (what the classes before it left; drr: its share). ``cost[k]``: airtime per bit relative to the
    resource's rate (1 on a wired link). Strict priority (``mode`` 1 or 0 with one class) or water-filling by
    ``weight`` (``mode`` 2)."""
    if mode != 2:
        air = cap_dt
        bits = cap_dt
        for i in range(lo, hi):
            k = porder[i]
            can = air / cost[k]
            if can > bits:
                can = bits
            avail[k] = can
            c = demand[k] if demand[k] < can else can
            alloc[k] = c
            air -= c * cost[k]
            bits -= c
            if air < 0.0:
                air = 0.0
        return
    # drr: water-filling, level L with Σ min(D_k, w_k·L) = min(C, ΣD)
    total = 0.0
    for i in range(lo, hi):
        total += demand[porder[i]]
    n = hi - lo
    done = np.zeros(n, dtype=np.bool_)
    left = cap_dt
    if total <= cap_dt:
        for i in range(lo, hi):
            k = porder[i]
            alloc[k] = demand[k]
    else:
        for _ in range(n):
            w_sum = 0.0
            for i in range(n):
                if not done[i]:
                    w_sum += weight[porder[lo + i]]
            if w_sum <= 0.0:
                break
            level = left / w_sum
            changed = False
            for i in range(n):
                k = porder[lo + i]
                if not done[i] and demand[k] <= weight[k] * level:
                    alloc[k] = demand[k]
                    left -= demand[k]
                    done[i] = True
                    changed = True
            if not changed:
                for i in range(n):
                    k = porder[lo + i]
                    if not done[i]:
                        alloc[k] = weight[k] * level
                        done[i] = True
                break
    w_all = 0.0
    for i in range(lo, hi):
        w_all += weight[porder[i]]
    for i in range(lo, hi):
        k = porder[i]
        share = cap_dt * weight[k] / w_all
        avail[k] = alloc[k] if alloc[k] > share else share


@njit(cache=True, nogil=True, error_model="numpy")
def serve_classes(inject, row_slot, row_first, order_res, order_ptr, srv_next, srv_slot, lag_in, ack_ptr, ack_slot,
                  queue, cap, cap_dt, backlog, pending, arriving, burst, arrived, res_delay, got, dropped, qdelay,
                  queued, track_queued, link_cap_bits, inc_cls, ack_cls, res_mode, res_set, set_lo, set_hi, porder,
                  weight, cls_buf, delta_s, qc, rdc, a_k, c_k, r_k, d_k, pkt_bits, dt):
    """One step of the network with queues by class, in place: :func:`subflow_engines.fluid.queues.serve`'s
    arguments (``queue`` is each resource's total over its classes), then the :class:`ClassedQueues` arrays and
    work arrays ``a_k``, ``c_k``, ``r_k``, ``d_k`` (K,), the MSS in bits and the step (s). Per resource the classes share
    its capacity (:func:`class_shares`), then each class is a FIFO drop-tail queue at its share (the equations of
    :mod:`.queues`, over the class's incidences); ``rdc`` gets each class's queueing delay (module docstring),
    ``res_delay`` the resource's total queue over its capacity. Returns True when some class overflowed."""
    n_cls = qc.shape[1]
    cost = np.ones(n_cls)
    begin_step(inject, row_slot, row_first, lag_in, pending, arriving, got, dropped, qdelay)
    overflow = False
    for r in range(order_res.shape[0]):
        u = order_res[r]
        st = res_set[u]
        lo, hi = set_lo[st], set_hi[st]
        c_u = cap[u]
        for i in range(lo, hi):
            k = porder[i]
            a_k[k] = 0.0
            cost[k] = 1.0 + delta_s[u, k] * c_u / pkt_bits
            if cost[k] < 0.05:
                cost[k] = 0.05
        a_sum = 0.0
        for j in range(order_ptr[r], order_ptr[r + 1]):
            a_k[inc_cls[j]] += arriving[j]
            a_sum += arriving[j]
        mode = res_mode[u]
        for i in range(lo, hi):
            k = porder[i]
            d_k[k] = qc[u, k] + a_k[k]
        class_shares(mode, lo, hi, porder, weight, d_k, cap_dt[u], cost, c_k, r_k)
        # per class: the FIFO equations of queues.serve at the class's share c_k
        total_q = 0.0
        for i in range(lo, hi):
            k = porder[i]
            a_tot = a_k[k]
            s_q, s_a, rest_a, rest, drop, full = fifo_fractions(qc[u, k], c_k[k], a_tot, cls_buf[u, k])
            delta = 0.0
            df = 0.0
            uniform = True
            if full:
                overflow = True
                if rest_a > 0.0:
                    w_sum = 0.0
                    w_max = 0.0
                    for j in range(order_ptr[r], order_ptr[r + 1]):
                        if inc_cls[j] != k:
                            continue
                        a = arriving[j]
                        w_sum += a * burst[j]
                        if a > 0.0 and burst[j] > w_max:
                            w_max = burst[j]
                    delta, df, uniform = drop_shares(drop, rest_a, a_tot, w_sum, w_max)
            qc[u, k] = rest
            total_q += rest
            for j in range(order_ptr[r], order_ptr[r + 1]):
                if inc_cls[j] != k:
                    continue
                a = arriving[j]
                arriving[j] = 0.0
                forward(j, a, s_q, s_a, 1.0 - (delta if uniform else delta * burst[j]), backlog, srv_next,
                        srv_slot, arriving, got, pending)
                if df > 0.0:
                    dropped[srv_slot[j]] += df * burst[j]
        # each class's delay: its queue over the rate left to it, plus the residual of the packet in service
        c_dt = cap_dt[u]
        for i in range(lo, hi):
            k = porder[i]
            w0 = 0.0
            if hi - lo > 1 and c_dt > 0.0:
                for i2 in range(lo, hi):
                    k2 = porder[i2]
                    if k2 != k:
                        rho = c_k[k2] * cost[k2] / c_dt
                        w0 += rho * 0.5 * pkt_bits * cost[k2] / c_u
            rate = r_k[k] / dt
            if rate < MIN_RATE_FRACTION * c_u:
                rate = MIN_RATE_FRACTION * c_u
            rdc[u, k] = qc[u, k] / rate + w0
        queue[u] = total_q
        res_delay[u] = total_q / c_u
        arrived[u] = a_sum
        link_cap_bits[u] += c_dt
        for j in range(order_ptr[r], order_ptr[r + 1]):
            qdelay[srv_slot[j]] += rdc[u, inc_cls[j]]
        for j in range(ack_ptr[r], ack_ptr[r + 1]):
            qdelay[ack_slot[j]] += rdc[u, ack_cls[j]]
    if track_queued:
        count_queued(row_slot, srv_slot, backlog, pending, queued)
    return overflow
