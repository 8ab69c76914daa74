"""Vectorised, compiled kernel of the ``fluid`` engine.

Same model and equations as the scalar kernel (see :mod:`subflow_engines.fluid`),
over arrays of all subflows, with the path incidence kept as (subflow, resource)
pairs in CSR form (``M[i, l] = 1`` when subflow i crosses resource l):

    RTT   = base_RTT + M·(q / C)
    network: FIFO queues with per-subflow backlog at every hop, served in forwarding
             order (subflow_engines.fluid.queues.serve, shared with the scalar kernel)
    dropped = Σ over the path of (drop fraction · burst weight) (queues.serve, queues.burst_weight)
    goodput_i = (what i's last hop sends on)·(1 − p_i)

The continuous part of each step (rates, multipath scheduling, queues, losses,
window growth, RTT estimation) is one numba-compiled function, :func:`_step`,
looping over subflows and path incidences, and :func:`_run_steps` runs it for as
many steps as pass before the next discrete event; discrete events (segment changes,
handshakes, retransmission timers, flow start/stop/completion) are handled in
Python for the few subflows they concern. :func:`supports` says which plans
this kernel takes: single-path flows with the ``bare`` handover, MPTCP (LIA)
and CMT (uncoupled) multipath, NewReno congestion control, no jitter. The fluid engine
dispatches to it whenever it supports a plan and runs everything else
on the scalar kernel; tests pin both to the same results on plans both accept.

Every draw (random link loss, queue overflow, the timeout decisions) is
counter-based (:mod:`subflow_engines.draws`) and identical in both kernels.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from subflow.compiled import njit
from subflow.runplan.document import RunPlan, SubflowPath

from subflow_engines import draws
from subflow_engines.fluid.common import (
    ACK_RING_ENTRIES,
    CLOCK_GRANULARITY_S,
    MIN_ALLOW_SEGMENTS,
    PACING_GAIN_CA,
    PACING_GAIN_SS,
    Clock,
    FluidSimulator,
    first_step_at,
    SubflowRecord,
    ack_keep,
    fills_slowest_first,
    linger_fill,
    retransmission_timeout,
    rack_tail_probability,
    rack_tlp_timeout_probability,
    rate_limit_bps,
    tail_probe_pause_s,
)
from subflow_engines.fluid.queues import serve

# phases
DEAD, HANDSHAKE, OPEN, STALLED = 0, 1, 2, 3


def supports(plan: RunPlan) -> bool:
    """True if this kernel implements every feature ``plan`` uses."""
    if plan.transport.congestion_control != "newreno":
        return False
    if any(fp.kind != "tcp" for fp in plan.flows):  # constant-rate sources: scalar kernel (.cbr)
        return False
    if any(r.jitter_ms > 0 for r in plan.resources):  # RTT-sample variance: scalar kernel
        return False
    if plan.queueing.discipline != "fifo" or plan.queueing.wifi == "edca":  # queues by class: scalar (.classes)
        return False
    for fp in plan.flows:
        if not fp.multipath and fp.handover != "bare":
            return False
        if fp.multipath and fp.coupling not in ("lia", "uncoupled"):  # OLIA: scalar kernel
            return False
    return True


class VectorSimulator(FluidSimulator):
    """The vectorised kernel as a simulator object.

    State: one array entry per subflow *slot* (a connection's subflow id; slots are grouped
    by connection) and per resource. One :meth:`step` applies segment changes
    (:meth:`advance_segments`), rebuilds the path incidence when paths changed
    (:meth:`rebuild_incidence`), fires timers and handshakes when due
    (:meth:`refresh_state`), runs the compiled :func:`_step` and counts finished transfers
    (:meth:`finish_transfers`).
    """

    def __init__(self, plan: RunPlan):
        if not supports(plan):
            raise ValueError("plan uses features the vectorised kernel does not implement")
        super().__init__(plan)
        tr = self.transport
        resources = self.resources
        n_res = self.n_res
        self.log_keep = np.array([math.log1p(-r.loss) for r in resources])
        self._set_up_keys()
        S, n_conn = self.n_slots, len(plan.flows)
        flows = plan.flows
        self.multipath = np.array([fp.multipath for fp in flows], dtype=bool)
        self.coupled_conn = np.array([fp.multipath and fp.coupling == "lia" for fp in flows], dtype=bool)
        self.slow_first_conn = np.array([fills_slowest_first(plan, fp) for fp in flows], dtype=bool)
        self.demand = np.array([math.inf if fp.rate_mbps is None else fp.rate_mbps * 1e6 for fp in flows])
        self.remaining_bits = np.array([math.inf if fp.size_bytes is None else fp.size_bytes * 8.0 for fp in flows])
        self.start_s = np.array([fp.start_s for fp in flows])
        self.stop_s = np.array([fp.stop_s for fp in flows])
        self.done_t = np.full(n_conn, np.nan)

        self.phase = np.zeros(S, dtype=np.int8)
        self.cwnd = np.full(S, float(tr.initial_cwnd_packets))
        self.ssthresh = np.full(S, np.inf)
        self.srtt = np.full(S, np.nan)
        self.rttvar = np.zeros(S)
        self.rto = np.full(S, tr.initial_rto_s)
        self.t_open = np.full(S, np.inf)
        self.next_rto_t = np.full(S, np.inf)
        self.next_sample_t = np.zeros(S)
        self.last_red = np.full(S, -np.inf)
        self.recover_end = np.full(S, -np.inf)  # fast recovery: no window growth until then, s
        self.pause_until = np.full(S, -np.inf)  # waiting for a tail loss probe: nothing sent, s
        self.loss_at = np.full(S, np.inf)  # when a pending drop is detected (one RTT after it), s
        self.limit = np.full(S, np.inf)
        self.base_rtt = np.full(S, 1e-4)
        self.path_log_keep = np.zeros(S)
        self.path_keep = np.ones(S)  # Π (1 − loss) along the path
        self.path_log_ack_keep = np.zeros(S)  # log of the ACK path's keep probability
        self.retrans = np.zeros(S, dtype=np.int64)
        self.has_path = np.zeros(S, dtype=bool)
        self.paths: list[list[str]] = [[] for _ in range(S)]
        self.res_lists: list[list[int]] = [[] for _ in range(S)]
        self.order: list[list[int]] = [[] for _ in range(n_conn)]  # slots in order of first appearance
        self.active_slot = [-1] * n_conn  # single-path: slot carrying the connection
        self.seg_idx = [-1] * n_conn

        self.clock = clock = Clock.for_plan(plan, self.path_rtt_s)
        self.init_network()
        self.bits = np.zeros((clock.n_bins, S))  # bits delivered per sample and slot (a sample's row contiguous)
        self.cwnd_samples = np.zeros((S, clock.n_bins))
        self.thr: np.ndarray | None = None  # goodput per slot and sample, Mbit/s (at the end)

        # the network's rows (:class:`~subflow_engines.fluid.queues.Incidence`) are rebuilt when paths change
        self.matrix_dirty = True

        self.flow_times = np.concatenate((self.start_s, self.stop_s))
        self.state_dirty = True
        self.next_state_t = 0.0
        self.live = np.zeros(S, dtype=bool)
        self.next_boundary = [fp.segments[0].t_start_s if fp.segments else math.inf for fp in flows]
        self.next_any_boundary = min(self.next_boundary, default=math.inf)
        self.any_multipath = bool(self.multipath.any())
        self.any_finite = bool(np.isfinite(self.remaining_bits).any())
        self.conn_ptr = np.searchsorted(self.conn_of, np.arange(n_conn + 1)).astype(np.int64)
        self.got = np.zeros(S)
        # slow start's ACK clock: per slot a ring of ACK intervals (t1, t2 s; segments delivered,
        # segments sent; cwnd-limited), oldest at ack_head, ack_n of them (scalar._Sub.acks)
        self.ack_on = np.zeros(S, dtype=np.bool_)
        self.inflight = np.zeros(S)
        self.allow = np.zeros(S)
        self.ack_head = np.zeros(S, dtype=np.int64)
        self.ack_n = np.zeros(S, dtype=np.int64)
        H = ACK_RING_ENTRIES
        self.ack_t1, self.ack_t2, self.ack_del, self.ack_sent = (np.zeros((S, H)) for _ in range(4))
        self.ack_lim = np.zeros((S, H), dtype=np.bool_)

    def _set_up_keys(self) -> None:
        """The counter-based draw keys of every slot (:mod:`subflow_engines.draws`)."""
        plan = self.plan
        self.draw_keys = np.array([draws.subflow_key(plan.seed, sid) for sid in self.slot_id], dtype=np.uint64)
        self.loss_keys = np.array([draws.subflow_key(plan.seed, sid + draws.LOSS_STREAM) for sid in self.slot_id],
                                  dtype=np.uint64)
        self.timeout_keys = np.array(
            [draws.subflow_key(plan.seed, sid + draws.TIMEOUT_STREAM) for sid in self.slot_id], dtype=np.uint64)

    def path_rtt_s(self, sp: SubflowPath) -> float:
        """Base round-trip time of a path (propagation both ways), s."""
        resources, rindex = self.resources, self.index
        return max(1e-4, 2e-3 * sum(resources[rindex[r]].delay_ms for r in sp.resources))

    def emit_slot(self, t: float, kind: str, c: int, slot: int | None = None, **extra) -> None:
        """:meth:`emit` for connection ``c`` and subflow slot ``slot``."""
        self.emit(t, kind, self.plan.flows[c], None if slot is None else self.slot_id[slot], **extra)

    def set_delays(self, changed: set[int]) -> None:
        for slot, res in enumerate(self.res_lists):
            if res and not changed.isdisjoint(res):
                self.base_rtt[slot] = max(1e-4, 2e-3 * sum(self.resources[i].delay_ms for i in res))

    # ------------------------------------------------------------------ slots
    def set_path(self, slot: int, sp: SubflowPath) -> None:
        """Slot ``slot`` now runs on ``sp``."""
        self.paths[slot] = sp.nodes
        res = self.res_lists[slot] = [self.index[r] for r in sp.resources]
        # summed as the scalar kernel sums it (the same float: handshakes end in the same step)
        self.base_rtt[slot] = max(1e-4, 2e-3 * sum(self.resources[i].delay_ms for i in res))
        self.path_log_keep[slot] = math.fsum(self.log_keep[res].tolist())
        self.path_keep[slot] = math.exp(self.path_log_keep[slot]) if res else 1.0  # as the scalar kernel's
        self.path_log_ack_keep[slot] = math.log(max(1e-300, ack_keep(sp.resources, self.index, self.resources)))
        self.limit[slot] = rate_limit_bps(sp, self.wire)
        self.has_path[slot] = True
        self.matrix_dirty = True

    def reset(self, slot: int, t: float) -> None:
        """A fresh connection state for ``slot``: handshake from ``t``, initial window and timer."""
        tr = self.transport
        self.phase[slot] = HANDSHAKE
        self.t_open[slot] = t + self.base_rtt[slot]
        self.cwnd[slot] = float(tr.initial_cwnd_packets)
        self.ssthresh[slot] = np.inf
        self.srtt[slot] = np.nan
        self.rttvar[slot] = 0.0
        self.rto[slot] = tr.initial_rto_s
        self.next_rto_t[slot] = np.inf
        self.next_sample_t[slot] = 0.0
        self.last_red[slot] = -np.inf
        self.recover_end[slot] = -np.inf
        self.pause_until[slot] = -np.inf
        self.loss_at[slot] = np.inf
        self.ack_on[slot] = False
        self.ack_n[slot] = 0
        self.inflight[slot] = 0.0

    def new_slot(self, c: int, slot: int, sp: SubflowPath, t: float) -> None:
        """Connection ``c`` opens ``slot`` on ``sp`` at ``t``."""
        self.set_path(slot, sp)
        self.reset(slot, t)
        self.order[c].append(slot)
        self.emit_slot(t, "subflow_up", c, slot, path=sp.nodes)

    def stall(self, slot: int, t: float) -> None:
        """In-flight data is lost with the path; wait for the retransmission timer."""
        if self.phase[slot] == OPEN:
            self.ssthresh[slot] = max(math.floor(self.cwnd[slot] / 2.0), 2.0)  # whole segments (cwnd >> 1)
        self.phase[slot] = STALLED
        self.next_rto_t[slot] = t + self.rto[slot]
        self.loss_at[slot] = np.inf

    # ------------------------------------------------------------------ segments
    def advance_segments(self, t: float) -> None:
        """Apply every segment change due at ``t``."""
        flows, seg_idx, next_boundary = self.plan.flows, self.seg_idx, self.next_boundary
        for c in range(len(flows)):
            if next_boundary[c] <= t + 1e-12:
                fp = flows[c]
                while seg_idx[c] + 1 < len(fp.segments) and fp.segments[seg_idx[c] + 1].t_start_s <= t + 1e-12:
                    seg_idx[c] += 1
                    self.apply_segment(c, t)
                    self.state_dirty = True
                nxt = seg_idx[c] + 1
                next_boundary[c] = fp.segments[nxt].t_start_s if nxt < len(fp.segments) else math.inf
        self.next_any_boundary = min(next_boundary, default=math.inf)

    def apply_segment(self, c: int, t: float) -> None:
        """Connection ``c`` enters its segment ``seg_idx[c]`` at ``t``."""
        fp = self.plan.flows[c]
        wanted = {sp.id: sp for sp in fp.segments[self.seg_idx[c]].subflows}
        phase, paths, order, slot_of = self.phase, self.paths, self.order, self.slot_of
        if fp.multipath:
            for slot in order[c]:
                if self.slot_id[slot] not in wanted and phase[slot] != DEAD:
                    phase[slot] = DEAD
                    self.has_path[slot] = False
                    self.matrix_dirty = True
                    self.emit_slot(t, "subflow_down", c, slot, path=paths[slot])
            for sid, sp in wanted.items():
                slot = slot_of[(c, sid)]
                if slot not in order[c]:
                    self.new_slot(c, slot, sp, t)
                elif phase[slot] == DEAD or paths[slot] != sp.nodes:
                    self.set_path(slot, sp)
                    self.reset(slot, t)
                    self.emit_slot(t, "subflow_up", c, slot, path=sp.nodes)
                else:
                    self.set_path(slot, sp)
            return
        cur = self.active_slot[c]
        sp = next(iter(wanted.values()), None)
        if sp is None:
            if cur >= 0 and phase[cur] not in (STALLED, DEAD):
                self.stall(cur, t)
                self.emit_slot(t, "route_lost", c, cur, path=paths[cur])
            if cur >= 0:
                self.has_path[cur] = False
                self.matrix_dirty = True
            return
        slot = slot_of[(c, sp.id)]
        if cur < 0:
            self.new_slot(c, slot, sp, t)
            self.active_slot[c] = slot
            return
        if slot == cur and paths[cur] == sp.nodes:
            self.set_path(cur, sp)
            return
        old = paths[cur]
        if phase[cur] != STALLED:
            self.stall(cur, t)
        if slot != cur:  # the connection's state moves to the new path's slot
            for arr in (phase, self.cwnd, self.ssthresh, self.srtt, self.rttvar, self.rto, self.t_open,
                        self.next_rto_t, self.last_red):
                arr[slot] = arr[cur]
            phase[cur] = DEAD
            self.has_path[cur] = False
            if slot not in order[c]:
                order[c].append(slot)
            self.active_slot[c] = slot
        self.set_path(slot, sp)
        if old != sp.nodes:
            self.emit_slot(t, "route_change", c, slot, path=sp.nodes, previous_path=old)

    def rebuild_incidence(self, t: float) -> None:
        """The network's rows after paths changed at ``t`` (:meth:`rebuild_network`)."""
        res_lists, has_path = self.res_lists, self.has_path
        self.rebuild_network(t, [(i, res_lists[i]) for i in range(self.n_slots) if has_path[i] and res_lists[i]])
        self.matrix_dirty = False

    # ------------------------------------------------------------------ timers
    def refresh_state(self, step: int, t: float) -> tuple[np.ndarray, float]:
        """Handshakes that complete, timers that fire (a retransmission lost on the path backs
        the timer off again, RFC 6298 §5.5), flows that start or stop at ``t`` (step ``step``);
        returns the live mask and the next time anything of that kind can happen."""
        phase, t_open, next_rto_t, rto = self.phase, self.t_open, self.next_rto_t, self.rto
        # handshakes and timers run only while the connection is on (started, not stopped, not
        # done), as in the scalar kernel
        conn_on = (t >= self.start_s) & (t < self.stop_s) & np.isnan(self.done_t)
        on = conn_on[self.conn_of]
        opening = (phase == HANDSHAKE) & (t >= t_open) & on
        if opening.any():
            phase[opening] = OPEN
            self.next_sample_t[opening] = t
        timers = np.nonzero((phase == STALLED) & (t >= next_rto_t) & on)[0]
        for slot in timers:
            c = int(self.conn_of[slot])
            self.retrans[slot] += 1
            if self.has_path[slot] and draws.uniform(self.timeout_keys[slot], step) < -math.expm1(
                    self.path_log_keep[slot] + self.path_log_ack_keep[slot]):
                # the retransmission or its ACK is lost too: back off again (RFC 6298 §5.5)
                self.emit_slot(t, "rto", c, int(slot), rto_s=round(float(rto[slot]), 4), resumed=False)
                rto[slot] = min(2.0 * rto[slot], self.transport.max_rto_s)
                next_rto_t[slot] = t + rto[slot]
            elif self.has_path[slot]:
                self.emit_slot(t, "rto", c, int(slot), rto_s=round(float(rto[slot]), 4), resumed=True)
                phase[slot] = OPEN
                self.cwnd[slot] = 1.0
                self.last_red[slot] = t
                self.next_sample_t[slot] = t
            else:
                self.emit_slot(t, "rto", c, int(slot), rto_s=round(float(rto[slot]), 4), resumed=False)
                rto[slot] = min(2.0 * rto[slot], self.transport.max_rto_s)
                next_rto_t[slot] = t + rto[slot]
        live = (phase == OPEN) & self.has_path & on
        pending = [t_open[(phase == HANDSHAKE) & on], next_rto_t[(phase == STALLED) & on]]
        nxt = min((float(a.min()) for a in pending if a.size), default=math.inf)
        later = self.flow_times[self.flow_times > t]  # as conn_on compares them: exactly
        if later.size:
            nxt = min(nxt, float(later.min()))
        return live, nxt

    # ------------------------------------------------------------------ steps
    def events_due(self, step: int, t: float) -> None:
        """The discrete events at step ``step`` (``t``): segment changes, the network's rows
        after paths changed, handshakes, timers, flow starts and stops."""
        if self.next_any_boundary <= t + 1e-12:
            self.advance_segments(t)
        if self.matrix_dirty:
            self.rebuild_incidence(t)
        if self.state_dirty or t >= self.next_state_t:
            self.live, self.next_state_t = self.refresh_state(step, t)
            self.state_dirty = False

    def step(self, step: int, t: float, b: int) -> None:
        self.advance(step, t, b, 1)

    def advance(self, step: int, t: float, b: int, n: int) -> int:
        """Up to ``n`` steps in one compiled call (:func:`_run_steps`), ending before the next
        discrete event (segment change, handshake, timer, flow start or stop) or after a step in
        which a loss episode ended in a timeout or a transfer completed."""
        self.events_due(step, t)
        dt = self.clock.dt_s
        if self.next_any_boundary < math.inf:
            n = min(n, first_step_at(self.next_any_boundary, dt) - step)
        if self.next_state_t < math.inf:
            k = max(step + 1, int(math.ceil(self.next_state_t / dt)) - 1)
            while k * dt < self.next_state_t:
                k += 1
            n = min(n, k - step)
        n = max(1, n)
        tr, net, led = self.transport, self.net, self.ledger
        was_done = np.isnan(self.done_t)
        ran, stalled = _run_steps(
            n, step, self.any_finite, self.start_s, self.stop_s, self.done_t,
            self.clock.dt_s, self.pkt_bits, self.rbuf_bits, tr.min_rto_s, tr.max_rto_s,
            CLOCK_GRANULARITY_S, tr.rto_form == "linux", self.cwnd_clamp_packets,
            self.live, self.conn_of, self.conn_ptr, self.slow_first_conn, self.coupled_conn, self.any_multipath,
            net.row_slot, net.row_first, net.order_res, net.order_ptr, net.srv_next,
            net.srv_slot, net.lag_in, net.ack_ptr, net.ack_slot, self.cap_bps, self.cap_dt_bits, self.buf_bits,
            self.queue_bits, net.backlog, net.pending, net.arriving, net.burst, self.arrived_bits, self.drop_frac_res,
            self.res_delay_s, self.inject, self.dropped_slot, self.qdelay_s, self.queued_bits, self.first_cap_bps,
            self.min_cap_bps, self.min_cap_dt_bits, self.any_finite, led.link_cap_bits, led.slot_cap_bits,
            led.sent_bits, self.base_rtt,
            self.path_keep, self.path_log_keep, self.path_log_ack_keep, self.limit, self.demand,
            self.remaining_bits, self.draw_keys, self.loss_keys, self.timeout_keys,
            self.cwnd, self.ssthresh, self.srtt, self.rttvar, self.rto, self.next_sample_t, self.last_red,
            self.loss_at, self.retrans, self.bits[b], self.got, self.phase, self.next_rto_t, self.recover_end,
            self.pause_until, self.ack_on, self.inflight, self.allow, self.ack_head, self.ack_n,
            self.ack_t1, self.ack_t2, self.ack_del, self.ack_sent, self.ack_lim,
        )
        if stalled:
            self.state_dirty = True  # a loss episode ended in a retransmission timeout
        if self.any_finite:
            for c in np.nonzero(was_done & ~np.isnan(self.done_t))[0]:
                self.state_dirty = True
                done = float(self.done_t[c])
                self.emit_slot(done, "flow_complete", int(c), None, completion_s=round(done - self.start_s[c], 6))
        return ran

    def sample_state(self, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.bits[b], self.cwnd, self.phase == OPEN

    def sample_cwnd(self, b: int) -> None:
        phase = self.phase
        self.cwnd_samples[:, b] = np.where((phase == OPEN) | (phase == HANDSHAKE), np.round(self.cwnd, 3), 0.0)

    # ------------------------------------------------------------------ output
    def flow_records(self, c: int) -> tuple[list[SubflowRecord], float | None]:
        if self.thr is None:
            self.thr = (self.bits / self.clock.interval_s / 1e6).T
        thr = self.thr
        records = [
            SubflowRecord(id=self.slot_id[s], path=self.paths[s], throughput_mbps=thr[s].tolist(),
                          cwnd_packets=self.cwnd_samples[s].tolist(), retransmissions=int(self.retrans[s]))
            for s in self.order[c]
        ]
        done = self.done_t[c]
        return records, None if np.isnan(done) else float(done)


# --------------------------------------------------------------------------- compiled step


@njit(cache=True, nogil=True, error_model="numpy")
def _ack_clock(i, t, cwnd, ssthresh, inflight, allow, ack_head, ack_n, ack_t1, ack_t2, ack_del, ack_sent, ack_lim,
               clamp):
    """Slot ``i`` in slow start: the ACKs due by ``t`` free what they acknowledge and grow the
    window by the segments delivered (RFC 5681 §3.1); ``allow[i]``: segments the window lets out
    now; the window stops at ``clamp`` (packets). As
    :meth:`subflow_engines.fluid.scalar.ScalarSimulator.ack_clock`."""
    H = ack_t1.shape[1]
    while ack_n[i] > 0:
        e = ack_head[i]
        t1 = ack_t1[i, e]
        if not t1 <= t:
            break
        t2 = ack_t2[i, e]
        f = 1.0 if not t < t2 else (t - t1) / (t2 - t1)
        d_ = ack_del[i, e] * f
        s_ = ack_sent[i, e] * f
        if f >= 1.0:
            ack_head[i] = (e + 1) % H
            ack_n[i] -= 1
        else:
            ack_t1[i, e] = t
            ack_del[i, e] -= d_
            ack_sent[i, e] -= s_
        inflight[i] -= s_
        if ack_lim[i, e] or cwnd[i] < 2.0 * inflight[i]:  # tcp_is_cwnd_limited
            v = cwnd[i] + d_
            cap_ = ssthresh[i] if ssthresh[i] > cwnd[i] else cwnd[i]
            if cap_ > clamp:
                cap_ = clamp
            cwnd[i] = v if v < cap_ else cap_
        if f < 1.0:
            break
    if ack_n[i] == 0:
        inflight[i] = 0.0
    a = cwnd[i] - inflight[i]
    allow[i] = a if a > MIN_ALLOW_SEGMENTS else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def _run_steps(n, step0, any_finite, start_s, stop_s, done_t, dt, *args):
    """Run :func:`_step` for steps ``step0 … step0 + n − 1`` (``args``: its arguments after ``t``,
    ``step`` and ``dt``), counting finite transfers after each step (a transfer whose last bit
    arrived in the step from ``t`` completes at ``t + dt``: ``done_t``). Stops early after a step
    in which a loss episode ended in a timeout or a transfer completed; returns (steps run,
    whether a timeout stalled a subflow)."""
    remaining_bits = args[_REMAINING]
    got = args[_GOT]
    conn_ptr = args[_CONN_PTR]
    for k in range(n):
        step = step0 + k
        t = step * dt
        stalled = _step(t, step, dt, *args)
        finished = False
        if any_finite:
            for c in range(conn_ptr.shape[0] - 1):
                if t >= start_s[c] and t < stop_s[c] and np.isnan(done_t[c]):
                    delivered = 0.0
                    for i in range(conn_ptr[c], conn_ptr[c + 1]):
                        delivered += got[i]
                    remaining_bits[c] -= delivered
                    if remaining_bits[c] <= 0:
                        done_t[c] = t + dt
                        finished = True
        if stalled or finished:
            return k + 1, stalled
    return n, False


@njit(cache=True, nogil=True, error_model="numpy")
def _step(
    t, step, dt, pkt_bits, rbuf_bits, min_rto, max_rto, granularity, rto_linux, max_cwnd,
    live, conn_of, conn_ptr, slow_first_conn, coupled_conn, any_multipath,
    path_rows, row_first, order_res, order_ptr, srv_next, srv_slot, lag_in,
    ack_ptr, ack_slot, cap, cap_dt, buf, queue, backlog, pending, arriving, burst, arrived, drop_frac, res_delay, inject,
    dropped,
    qd, queued, first_cap, min_cap, min_cap_dt, any_finite, link_cap_bits, slot_cap_bits, sent_bits, base_rtt,
    path_keep, path_log_keep, path_log_ack_keep, limit, demand, remaining_bits, draw_keys, loss_keys, timeout_keys,
    cwnd, ssthresh, srtt, rttvar, rto, next_sample_t, last_red, loss_at, retrans, bits_col, got,
    phase, next_rto_t, recover_end, pause_until, ack_on, inflight, allow, ack_head, ack_n,
    ack_t1, ack_t2, ack_del, ack_sent, ack_lim,
):
    """One time step of the continuous dynamics, in place (the equations of
    :mod:`subflow_engines.fluid`). Random link loss, overflow losses and timeout decisions
    are counter-based draws (:mod:`subflow_engines.draws`) of the keys given, as in the scalar
    kernel. The network (queues, per-hop backlogs) is served by
    :func:`subflow_engines.fluid.queues.serve` with the rows and order of
    :class:`~subflow_engines.fluid.queues.Incidence`; ``got`` receives the bits each subflow
    delivered in the step, ``sent_bits`` accumulates what each sent. Returns
    True when a loss episode ended in a retransmission timeout (the subflow is then STALLED
    and not live)."""
    S = cwnd.shape[0]
    n_conn = conn_ptr.shape[0] - 1
    # qd: queueing delay of each path (queues.serve of the previous step, or queues.row_state)
    rtt = base_rtt + qd
    H = ack_t1.shape[1]
    w = np.zeros(S)
    tsq = np.zeros(S, dtype=np.bool_)  # slow start: held back by the first hop's rate, not the window
    for i in range(S):
        if live[i] and t >= pause_until[i]:  # (a tail loss waits for its probe: nothing sent)
            if cwnd[i] < ssthresh[i] and t >= recover_end[i]:
                _ack_clock(i, t, cwnd, ssthresh, inflight, allow, ack_head, ack_n, ack_t1, ack_t2, ack_del,
                           ack_sent, ack_lim, max_cwnd)
                ack_on[i] = True
                # slow start: what the window allows now, at once, at most at the first hop's rate
                wi = allow[i] * pkt_bits / dt
                tsq[i] = first_cap[i] < wi
                if tsq[i]:
                    wi = first_cap[i]
            else:
                if ack_on[i]:
                    ack_on[i] = False
                    ack_n[i] = 0
                    inflight[i] = 0.0
                wi = cwnd[i] * pkt_bits / rtt[i]
            w[i] = wi if wi < limit[i] else limit[i]
        elif ack_on[i] and phase[i] != OPEN:
            ack_on[i] = False
            ack_n[i] = 0
            inflight[i] = 0.0
    x = np.zeros(S)
    for c in range(n_conn):
        left = remaining_bits[c]
        if left < np.inf:
            # a finite transfer sends no more than is neither delivered nor in the network (what
            # the queues dropped and the links lost is sent again)
            for i in range(conn_ptr[c], conn_ptr[c + 1]):
                left -= queued[i]
        budget = max(0.0, min(demand[c], left / dt))  # a finished file: nothing left
        a, b = conn_ptr[c], conn_ptr[c + 1]
        if rbuf_bits < np.inf:
            mx = 0.0
            for i in range(a, b):
                if live[i] and rtt[i] > mx:
                    mx = rtt[i]
            if mx > 0:
                budget = min(budget, rbuf_bits / max(mx, 1e-12))
        if any_multipath and b - a > 1 and not slow_first_conn[c]:
            # MPTCP: Linux's scheduler, the subflow that would flush its queue soonest first
            n = b - a
            wl = np.empty(n)
            ell = np.empty(n)
            xs = np.empty(n)
            for j in range(n):
                i = a + j
                wl[j] = w[i]
                ell[j] = rtt[i] / (PACING_GAIN_SS if cwnd[i] < ssthresh[i] else PACING_GAIN_CA)
            linger_fill(wl, ell, budget, xs)
            for j in range(n):
                x[a + j] = xs[j]
        elif any_multipath and b - a > 1:
            # SCTP CMT: slowest path first, in key order, ties by slot (stable)
            n = b - a
            order = np.empty(n, dtype=np.int64)
            keys = np.empty(n)
            for j in range(n):
                i = a + j
                kr = rtt[i] if np.isnan(srtt[i]) else srtt[i]
                keys[j] = -kr
                order[j] = i
            for j in range(1, n):
                kj, oj = keys[j], order[j]
                m = j - 1
                while m >= 0 and keys[m] > kj:
                    keys[m + 1] = keys[m]
                    order[m + 1] = order[m]
                    m -= 1
                keys[m + 1] = kj
                order[m + 1] = oj
            before = 0.0
            for j in range(n):
                i = order[j]
                v = budget - before
                x[i] = 0.0 if v < 0.0 else (w[i] if v > w[i] else v)
                before += w[i]
        else:
            for i in range(a, b):
                x[i] = w[i] if w[i] < budget else budget
    # the network: FIFO drop-tail queues in tandem, per-hop backlogs (queues.serve)
    for i in range(S):
        v = x[i] * dt
        inject[i] = v
        sent_bits[i] += v
        got[i] = 0.0
        dropped[i] = 0.0
    overflow = serve(inject, path_rows, row_first, order_res, order_ptr, srv_next, srv_slot, lag_in,
                     ack_ptr, ack_slot, queue, cap, cap_dt, buf, backlog, pending, arriving, burst, arrived, drop_frac,
                     res_delay, got, dropped, qd, queued, any_finite, link_cap_bits)
    for i in range(S):
        slot_cap_bits[i] += min_cap_dt[i]
    for i in range(S):
        # what the last hop sends on, less random loss along the path
        g = got[i] * path_keep[i]
        got[i] = g
        bits_col[i] += g
    # losses, detected one round trip after the drop
    for i in range(S):
        if x[i] <= 0.0:
            continue
        sent = x[i] * (dt / pkt_bits)
        lost = False
        if path_log_keep[i] < 0.0:  # random loss on the path
            p = -np.expm1(path_log_keep[i])
            if p > 0 and draws.uniform(loss_keys[i], step) < -np.expm1(-sent * p):
                lost = True
        if overflow and dropped[i] > 0:
            if draws.uniform(draw_keys[i], step) < -np.expm1(-sent * min(1.0, dropped[i])):
                lost = True
        if lost:
            retrans[i] += 1
            if np.isinf(loss_at[i]):
                loss_at[i] = t + rtt[i]
    react = np.zeros(S, dtype=np.bool_)
    stalled = False
    for i in range(S):
        if loss_at[i] <= t and x[i] > 0:
            react[i] = True
            loss_at[i] = np.inf
            ref = rtt[i] if np.isnan(srtt[i]) else srtt[i]
            if t - last_red[i] >= ref:
                w_lost = cwnd[i]
                ssthresh[i] = max(np.floor(cwnd[i] / 2.0), 2.0)  # tcp_reno_ssthresh: cwnd >> 1
                cwnd[i] = ssthresh[i]
                last_red[i] = t
                recover_end[i] = t + ref  # fast recovery: no growth for a round trip
                p = -np.expm1(path_log_keep[i])
                q = -np.expm1(path_log_keep[i] + path_log_ack_keep[i])  # a segment yields no SACK
                u = draws.uniform(timeout_keys[i], step) if p > 0 else 1.0
                if u < rack_tlp_timeout_probability(q, w_lost):
                    phase[i] = STALLED  # nothing after the loss nor the tail probe SACKed: RTO
                    live[i] = False
                    next_rto_t[i] = t + rto[i]
                    stalled = True
                elif u < rack_tail_probability(q, w_lost):
                    # a tail loss: the probe's SACK starts the recovery (RFC 8985 §7)
                    pause_until[i] = t + tail_probe_pause_s(ref, w_lost, rto[i])
                    recover_end[i] = max(recover_end[i], pause_until[i] + ref)
    # growth: slow start, then congestion avoidance (LIA for coupled connections)
    ca = np.zeros(S, dtype=np.bool_)
    for i in range(S):
        lim = live[i] and x[i] >= 0.98 * w[i] and w[i] < limit[i]
        if ack_on[i] and not react[i] and x[i] > 0 and live[i]:
            # FIFO: behind the backlog queued before them, spaced by the narrowest hop; what the
            # queues dropped and the links lost is never acknowledged
            sent = x[i] * (dt / pkt_bits)
            inflight[i] += sent
            held = lim and not tsq[i]  # the window, not the first hop, held the sender back
            keep = path_keep[i] * (1.0 - dropped[i] if dropped[i] < 1.0 else 0.0)
            t1 = t + rtt[i]
            sp_ = x[i] * dt / min_cap[i]
            n = ack_n[i]
            if n == H:  # full (ACK_RING_ENTRIES steps in flight): the newest entry takes this step's too
                e = (ack_head[i] + n - 1) % H
                ack_t2[i, e] = max(ack_t2[i, e], t1 + (sp_ if sp_ > dt else dt))
                ack_del[i, e] += sent * keep
                ack_sent[i, e] += sent
                ack_lim[i, e] = ack_lim[i, e] or held
            else:
                e = (ack_head[i] + n) % H
                ack_t1[i, e] = t1
                ack_t2[i, e] = t1 + (sp_ if sp_ > dt else dt)
                ack_del[i, e] = sent * keep
                ack_sent[i, e] = sent
                ack_lim[i, e] = held
                ack_n[i] = n + 1
        elif lim and not react[i] and x[i] > 0 and t >= recover_end[i]:
            ca[i] = True  # congestion avoidance (slow start is ACK-clocked: _ack_clock)
    for c in range(n_conn):
        a, b = conn_ptr[c], conn_ptr[c + 1]
        n_open = 0
        tot_w = 0.0
        denom = 0.0
        best = 0.0
        if coupled_conn[c]:
            for i in range(a, b):
                if live[i]:
                    n_open += 1
                    tot_w += cwnd[i]
                    denom += cwnd[i] / rtt[i]
                    v = cwnd[i] / (rtt[i] * rtt[i])
                    if v > best:
                        best = v
        coupled = n_open > 1
        alpha = tot_w * best / (denom * denom) if coupled else 0.0
        for i in range(a, b):
            if ca[i]:
                acked = x[i] * (dt / pkt_bits)
                inc = 1.0 / cwnd[i]
                if coupled:
                    lia = alpha / tot_w
                    if lia < inc:
                        inc = lia
                v = cwnd[i] + acked * inc
                cwnd[i] = v if v < max_cwnd else max_cwnd
    # RTT estimation (RFC 6298 §2), one sample per round trip
    for i in range(S):
        if live[i] and x[i] > 0 and t >= next_sample_t[i]:
            r = rtt[i]
            if np.isnan(srtt[i]):
                rttvar[i] = r / 2.0
                srtt[i] = r
            else:
                rttvar[i] = 0.75 * rttvar[i] + 0.25 * abs(srtt[i] - r)
                srtt[i] = 0.875 * srtt[i] + 0.125 * r
            rto[i] = retransmission_timeout(srtt[i], rttvar[i], min_rto, max_rto, granularity, rto_linux)
            next_sample_t[i] = t + r
    return stalled


# positions in :func:`_run_steps`'s ``args`` (the arguments of :func:`_step` after ``t, step, dt``)
_STEP_ARGS = list(inspect.signature(_step.py_func).parameters)[3:]
_REMAINING, _GOT, _CONN_PTR = (_STEP_ARGS.index(name) for name in ("remaining_bits", "got", "conn_ptr"))
