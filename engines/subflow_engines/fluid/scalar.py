"""Scalar kernel of the ``fluid`` engine: every feature (CUBIC, Reno, NewReno, LIA, OLIA,
uncoupled CMT; ``bare``, ``zwa``, ``spurious`` and ``seamless`` handovers), one Python object
per connection and per subflow.

The model and its equations are in :mod:`subflow_engines.fluid`.
"""

from __future__ import annotations

import math
import random
from collections import deque

from subflow.runplan.document import FlowPlan, RunPlan, SubflowPath

import numpy as np

from subflow_engines import draws
from subflow_engines.fluid.common import (
    PACING_GAIN_CA,
    PACING_GAIN_SS,
    ACK_RING_ENTRIES,
    CLOCK_GRANULARITY_S,
    DELAYED_ACK_SEGMENTS,
    MIN_ALLOW_SEGMENTS,
    Clock,
    FluidSimulator,
    SubflowRecord,
    ack_keep,
    fifo_jitter_delay_s,
    fills_slowest_first,
    goodput_fraction,
    linger_fill,
    retransmission_timeout,
    rack_tail_probability,
    rack_tlp_timeout_probability,
    rate_limit_bps,
    reverse_resource_id,
    tail_probe_pause_s,
    throughput_mbps,
)
from subflow_engines.fluid.cbr import ACK_BURST_SEGMENTS, CBR_KINDS, Source, delay_spread_s, one_way_delay_s
from subflow_engines.fluid.classes import ClassedQueues, is_classed, serve_classes
from subflow_engines.fluid.queues import serve

CUBIC_C = 0.4  # RFC 9438 §5, packets / s^3
CUBIC_BETA = 0.7  # RFC 9438 §4.6
CUBIC_ALPHA = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)  # RFC 9438 §4.3 (Eq. 4), Linux's tcp_friendliness
#: Linux's β_cubic and fast-convergence factor in its integer arithmetic (tcp_cubic.c: beta = 717,
#: BICTCP_BETA_SCALE = 1024; last_max_cwnd = cwnd·(1024 + 717)/2048)
LINUX_CUBIC_BETA, LINUX_BETA_SCALE = 717, 1024
#: how often Linux's CUBIC recomputes its growth rate while the window is unchanged, s: bictcp_update
#: returns early while ``last_cwnd == cwnd && now − last_time <= HZ/32`` jiffies, i.e. for 32 ms
#: (8 jiffies at HZ = 250, 32 at HZ = 1000), so the Reno-friendly estimate is seen at most every 32 ms
LINUX_CUBIC_UPDATE_S = 0.032


class _Sub:
    __slots__ = (
        "id", "path", "res", "base_rtt", "jitter_s", "loss_keep", "phase", "t_open",
        "cwnd", "ssthresh", "srtt", "rttvar", "rto", "next_rto_t", "next_sample_t",
        "last_reduction_t", "key", "loss_at", "drops_pending", "rtt", "bits", "cwnd_samples", "x", "limited",
        "retransmissions", "w_max", "t_epoch", "k", "w_est", "window_losses", "limit",
        "saved_cwnd", "saved_ssthresh", "resume_t", "cut_t", "l_cur", "l_prev", "wire",
        "loss_key", "timeout_key", "recover_end", "ack_keep", "jitter_hops", "pause_until",
        "acks", "inflight", "ack_clocked", "allow", "tsq", "slot", "got",
    )

    def __init__(self, sp: SubflowPath, index: dict[str, int], resources, plan: RunPlan, t: float, n_bins: int,
                 slot: int):
        self.id = sp.id
        self.slot = slot  # the network's row (common.FluidSimulator._set_up_slots)
        self.got = 0.0  # bits delivered in the current step
        self.key = draws.subflow_key(plan.seed, sp.id)
        self.loss_key = draws.subflow_key(plan.seed, sp.id + draws.LOSS_STREAM)
        self.timeout_key = draws.subflow_key(plan.seed, sp.id + draws.TIMEOUT_STREAM)
        self.wire = goodput_fraction(plan.transport.mss_bytes)
        self.bits = [0.0] * n_bins
        self.cwnd_samples = [0.0] * n_bins
        self.retransmissions = 0
        self.set_path(sp, index, resources)
        self.reset(plan, t)

    def set_path(self, sp: SubflowPath, index: dict[str, int], resources) -> None:
        self.path = sp.nodes
        self.res = [index[r] for r in sp.resources]
        self.base_rtt = max(1e-4, 2e-3 * sum(resources[i].delay_ms for i in self.res))
        self.jitter_s = 2e-3 * sum(resources[i].jitter_ms for i in self.res)
        # hops with jitter: (data resource, its reverse (the ACKs'), jitter s), for the FIFO delay
        self.jitter_hops = [(i, index.get(reverse_resource_id(resources[i].id), i), resources[i].jitter_ms * 1e-3)
                            for i in self.res if resources[i].jitter_ms > 0]
        # Π (1 − loss) along the path, as exp(Σ log(1 − loss)) as the vectorised kernel rounds it
        self.loss_keep = math.exp(math.fsum(math.log1p(-resources[i].loss) for i in self.res)) if self.res else 1.0
        # ACKs cross the reverse direction of every hop (Link.loss applies to both directions)
        self.ack_keep = ack_keep(sp.resources, index, resources)
        self.limit = rate_limit_bps(sp, self.wire)

    def reset(self, plan: RunPlan, t: float) -> None:
        tr = plan.transport
        self.phase = "handshake"
        self.t_open = t + self.base_rtt  # SYN / MP_JOIN exchange
        self.cwnd = float(tr.initial_cwnd_packets)
        self.ssthresh = math.inf
        self.srtt = None
        self.rttvar = 0.0
        self.rto = tr.initial_rto_s
        self.next_rto_t = math.inf
        self.next_sample_t = 0.0
        self.last_reduction_t = -math.inf
        self.recover_end = -math.inf  # fast recovery: no window growth until then, s
        self.pause_until = -math.inf  # waiting for a tail loss probe: nothing sent until then, s
        self.loss_at = math.inf  # when the pending loss is detected (duplicate ACKs), s
        self.drops_pending = 0
        self.rtt = self.base_rtt
        self.x = 0.0
        self.limited = False
        self.w_max = 0.0
        self.t_epoch = -1.0
        self.k = 0.0
        self.w_est = 0.0
        self.window_losses = 0
        self.saved_cwnd = 0.0
        self.saved_ssthresh = math.inf
        self.resume_t = math.inf
        self.cut_t = math.inf
        self.l_cur = 0.0  # OLIA: packets acknowledged since the last loss
        self.l_prev = 0.0  # OLIA: packets between the two losses before
        self.acks = deque()  # slow start: [ACKs from s, until s, segments delivered, sent, window-limited]
        self.inflight = 0.0  # slow start: segments sent and not yet acknowledged
        self.ack_clocked = False
        self.allow = 0.0
        self.tsq = False  # slow start: the first hop's rate, not the window, held the sender back

    def take_state(self, other: "_Sub") -> None:
        """Carry a single-path connection's TCP state over to a new path (sub)."""
        for name in ("phase", "t_open", "cwnd", "ssthresh", "srtt", "rttvar", "rto", "next_rto_t",
                     "last_reduction_t", "w_max", "t_epoch", "k", "w_est", "saved_cwnd",
                     "saved_ssthresh", "resume_t", "cut_t"):
            setattr(self, name, getattr(other, name))


class _Conn:
    __slots__ = ("plan", "index", "subs", "order", "seg", "demand", "active", "remaining_bits", "done_t", "cbr")

    def __init__(self, fp: FlowPlan, index: int):
        self.plan = fp
        self.index = index
        self.subs: dict[str, _Sub] = {}
        self.order: list[str] = []
        self.seg = -1
        self.demand = math.inf if fp.rate_mbps is None else fp.rate_mbps * 1e6
        self.active: _Sub | None = None  # single-path connections: the sub carrying the connection
        self.remaining_bits = math.inf if fp.size_bytes is None else fp.size_bytes * 8.0
        self.done_t: float | None = None
        #: a udp, voice or video flow: a non-responsive source, not a TCP connection (:mod:`.cbr`)
        self.cbr: Source | None = None


def cubic_k(w_max: float, cwnd_epoch: float) -> float:
    """K of RFC 9438 §4.2 Eq. 2, s: K = ∛((W_max − cwnd_epoch)/C) (0 when the window starts at
    or above W_max), windows in packets."""
    return ((w_max - cwnd_epoch) / CUBIC_C) ** (1.0 / 3.0) if cwnd_epoch < w_max else 0.0


def cubic_window(t_s: float, k_s: float, w_max: float) -> float:
    """W_cubic(t) of RFC 9438 §4.2 Eq. 1, packets: C·(t − K)³ + W_max (``t_s`` since the epoch began)."""
    return CUBIC_C * (t_s - k_s) ** 3 + w_max


def cubic_reduction(cwnd: float, w_max: float) -> tuple[float, float]:
    """CUBIC's reaction to a loss event, packets: (new cwnd = ssthresh, new W_max).

    RFC 9438 §4.6: ssthresh = max(cwnd·β_cubic, 2), β_cubic = 0.7; §4.7 fast convergence:
    W_max = cwnd·(1 + β_cubic)/2 when the window is below the W_max of the previous loss
    (another flow is taking the bandwidth), else W_max = cwnd. Both in Linux's integer
    arithmetic on its integer window (``net/ipv4/tcp_cubic.c``, ``cubictcp_recalc_ssthresh``:
    ``max(snd_cwnd·717/1024, 2)`` and ``last_max_cwnd = snd_cwnd·(1024 + 717)/(2·1024)``, each
    rounded down). The engine's real-valued window is snd_cwnd plus the growth credit
    snd_cwnd_cnt/cwnd (tcp_cong_avoid_ai), which Linux does not count, so both start from
    ⌊cwnd⌋: for Reno that changes nothing (⌊⌊w⌋/2⌋ = ⌊w/2⌋), for CUBIC's 0.7 it is 0.35
    segments less on average than ⌊0.7·cwnd⌋, which matters where loss keeps the window at
    5–15 segments (the kernel's mean reduction at RTT 20 ms, 1 % loss: 0.662 of the window;
    ⌊0.7·cwnd⌋ gave 0.677; scripts/cwnd_trace.py)."""
    snd = math.floor(cwnd)
    if snd < w_max:
        new_w_max = float(snd * (LINUX_BETA_SCALE + LINUX_CUBIC_BETA) // (2 * LINUX_BETA_SCALE))
    else:
        new_w_max = float(snd)
    return max(float(snd * LINUX_CUBIC_BETA // LINUX_BETA_SCALE), 2.0), new_w_max


def _cubic_update(sub: _Sub, t: float, acked: float, rtt: float) -> float:
    """Congestion avoidance of CUBIC (RFC 9438 §4.2–4.5), in packets, as Linux computes it.

    At the start of an epoch (the first step of congestion avoidance after a reduction):
    K = ∛((W_max − cwnd)/C) (:func:`cubic_k`), W_est = cwnd. Per ``acked`` packets:
    the window moves towards target = W_cubic(t + RTT) (§4.4–4.5) by one segment per
    cnt = ⌊snd_cwnd/(target − snd_cwnd)⌋ ≥ 2 acknowledged, snd_cwnd = ⌊cwnd⌋ (bictcp_update's
    integer division; at most 1.5·cwnd per round trip), and stops at the target, so it reaches an
    integer W_max exactly (a growth of (target − cwnd)/cwnd per segment approaches it without
    getting there, and the next loss then found snd_cwnd below W_max and cut W_max by fast
    convergence, epoch after epoch: at RTT 300 ms and 5 % loss the engine was 0.84 of the kernel,
    docs/validation); at or above the target cnt = 100·snd_cwnd. The Reno-friendly estimate
    grows W_est += α_cubic·acked/cwnd with α_cubic = 3(1 − β)/(1 + β) throughout the epoch,
    and cwnd is never below W_est as it was 16 ms earlier (the Reno-friendly region, below).
    ``acked`` counts segments, not ACKs (Linux; delayed ACKs, RFC 5681 §4.2, do not slow the
    growth).

    α_cubic stays 3(1 − β)/(1 + β) as in Linux (``net/ipv4/tcp_cubic.c``, ``bictcp_update``:
    ``tcp_cwnd`` grows by one per ``cwnd·beta_scale/8`` acknowledged segments, beta_scale =
    8(1024 + 717)/(3(1024 − 717)), i.e. α ≈ 0.53, with no switch). RFC 9438 §4.3 recommends
    α_cubic = 1 once W_est reaches cwnd_prior; Linux, the stack the engine is validated against
    (docs/validation), does not do that, and with the switch the engine was 7–20 % above the
    kernel where CUBIC lives in the Reno-friendly region (RTT 100 ms, 1–3 % loss).

    Two details of ``bictcp_update`` that shape small windows at short RTTs (a kernel trace at
    RTT 20 ms, 1 % loss, scripts/cwnd_trace.py: growth 0.475 segments per window acknowledged
    against 0.54 for a W_est followed at once; +1 segment in the epoch's first round trip, then
    none for two):

    * the cubic target is an integer, ``bic_target = bic_origin_point ∓ delta`` with
      ``delta = (cube_rtt_scale·|t − K|³) >> (10 + 3·BICTCP_HZ)`` rounded down, so below
      W_max the target is W_max − ⌊C·(K − t)³⌋: a whole segment above cwnd right after a
      reduction (one more segment in the first round trip) and flat for long after;
    * the growth rate ``ca->cnt`` (and with it the Reno-friendly ``tcp_cwnd``) is recomputed
      only when the window changed or :data:`LINUX_CUBIC_UPDATE_S` (HZ/32) passed since the last
      recomputation (the early ``return`` at the top of ``bictcp_update``; ``ack_cnt`` keeps
      counting, so tcp_cwnd keeps its rate), so the window follows W_est half that period late
      on average: α·16 ms/RTT segments behind it, 0.35 segments at RTT 24 ms, 0.08 at 100 ms.
    """
    if sub.t_epoch < 0:
        sub.t_epoch = t
        sub.k = cubic_k(sub.w_max, sub.cwnd)
        if sub.cwnd >= sub.w_max:
            sub.w_max = sub.cwnd
        sub.w_est = sub.cwnd
    cwnd = sub.cwnd
    d = cubic_window(t + rtt - sub.t_epoch, sub.k, 0.0)  # C·(t − K)³
    target = int(sub.w_max) + (math.floor(d) if d >= 0.0 else -math.floor(-d))
    snd = math.floor(cwnd + 1e-9)  # Linux's snd_cwnd: whole segments
    # bictcp_update: one segment per cnt acknowledged, cnt = snd_cwnd/(target − snd_cwnd) in integer
    # division, at least 2 (growth ≤ 1.5× per RTT); 100·snd_cwnd (next to nothing) at the target
    cnt = max(snd // (target - snd), 2) if target > snd else 100 * max(snd, 1)
    sub.w_est += acked * CUBIC_ALPHA / cwnd
    reno_friendly = sub.w_est - CUBIC_ALPHA * (0.5 * LINUX_CUBIC_UPDATE_S) / rtt
    grown = cwnd + acked / cnt
    if target > snd and grown > target:
        grown = float(target)  # the integer window stops at the target (no overshoot within a step)
    return max(grown, reno_friendly)


def _olia_epsilon(subs: list[_Sub]) -> dict[str, float]:
    """OLIA's ε_r (Khalili et al. 2013, §IV): with M the paths of largest window and B the
    paths of largest l_r/rtt_r² (l_r = the larger of the last two inter-loss distances),
    ε_r = 1/(|P|·|B∖M|) on B∖M, −1/(|P|·|M|) on M when B∖M is not empty, else 0."""
    n = len(subs)
    max_w = max(s.cwnd for s in subs)
    quality = {s.id: max(s.l_cur, s.l_prev) / (s.rtt * s.rtt) for s in subs}
    best_q = max(quality.values())
    in_m = {s.id for s in subs if s.cwnd >= max_w * (1 - 1e-9)}
    b_not_m = {s.id for s in subs if s.id not in in_m and quality[s.id] >= best_q * (1 - 1e-9)}
    eps = {s.id: 0.0 for s in subs}
    if b_not_m:
        for sid in b_not_m:
            eps[sid] = 1.0 / (n * len(b_not_m))
        for sid in in_m:
            eps[sid] = -1.0 / (n * len(in_m))
    return eps


class _Growth:
    """How a connection's open subflows grow and react in a step: LIA's α and Σw, OLIA's ε and rate, CUBIC
    or Reno (single-path only)."""

    def __init__(self, fp, open_subs: list[_Sub], cc: str):
        self.coupled = fp.multipath and fp.coupling == "lia" and len(open_subs) > 1
        self.olia = fp.multipath and fp.coupling == "olia" and len(open_subs) > 1
        if self.coupled:
            self.total_w = sum(s.cwnd for s in open_subs)
            denom = sum(s.cwnd / s.rtt for s in open_subs)
            self.alpha = self.total_w * max(s.cwnd / (s.rtt * s.rtt) for s in open_subs) / (denom * denom)
        else:
            self.total_w = self.alpha = 0.0
        if self.olia:
            self.epsilon = _olia_epsilon(open_subs)
            self.olia_rate = sum(s.cwnd / s.rtt for s in open_subs) ** 2
        self.cubic = cc == "cubic" and not fp.multipath
        self.reno = cc == "reno" and not fp.multipath


class ScalarSimulator(FluidSimulator):
    """The scalar kernel as a simulator object.

    State: per connection a :class:`_Conn` holding its :class:`_Sub` objects; per resource
    its queue (bits), capacity (bit/s) and buffer (bits). One :meth:`step` runs
    :meth:`schedule` (segment changes, timers, rates), :meth:`serve_queues` (fluid
    drop-tail) and :meth:`update_windows` (losses, window growth, RTT estimation).
    """

    def __init__(self, plan: RunPlan):
        super().__init__(plan)
        self.notify = plan.controller.notification_delay_s
        self.rng = random.Random(plan.seed)  # jitter of RTT samples (every loss draw is counter-based)
        self.prev_arrivals = [0.0] * self.n_res  # rate arriving at each resource in the last step, bit/s
        self.any_jitter = any(r.jitter_ms > 0 for r in self.resources)
        self.clock = Clock.for_plan(plan, self.path_rtt_s)
        self.init_network()
        self.paths_dirty = True  # some subflow's path changed: rebuild the network's rows
        self.sub_at: list[_Sub | None] = [None] * self.n_slots
        self.conns = [_Conn(fp, c) for c, fp in enumerate(plan.flows)]
        for conn in self.conns:
            if conn.plan.kind in CBR_KINDS:
                conn.cbr = Source(conn.plan, plan, self.clock.n_bins, self.clock.dt_s)
        self.cc = plan.transport.congestion_control
        self.cwnd_clamp = self.cwnd_clamp_packets
        self.any_finite = any(fp.size_bytes is not None for fp in plan.flows)
        #: queues by class (:mod:`.classes`) when the plan's queueing is not fifo/dcf, else None (one FIFO each)
        self.classes = (ClassedQueues(plan, self.resources, self.n_slots, self.conn_of, self.pkt_bits)
                        if is_classed(plan) else None)

    def fifo_jitter_s(self, sub: _Sub) -> float:
        """Mean extra RTT, s, that ``sub``'s jittery hops add by keeping packet order
        (:func:`~subflow_engines.fluid.common.fifo_jitter_delay_s`): data packets are spaced by
        the hop's arrival rate, ACKs on the reverse hop by its data plus one ACK per
        :data:`DELAYED_ACK_SEGMENTS` segments of the data direction (RFC 5681 §4.2)."""
        arr, pkt_bits = self.prev_arrivals, self.pkt_bits
        extra = 0.0
        for i, rev, jit in sub.jitter_hops:
            fwd_pps = max(arr[i], sub.x) / pkt_bits
            ack_pps = arr[rev] / pkt_bits + fwd_pps / DELAYED_ACK_SEGMENTS
            extra += fifo_jitter_delay_s(jit, 1.0 / fwd_pps if fwd_pps > 0 else math.inf)
            extra += fifo_jitter_delay_s(jit, 1.0 / ack_pps if ack_pps > 0 else math.inf)
        return extra

    def path_rtt_s(self, sp: SubflowPath) -> float:
        """Base round-trip time of a path (propagation both ways), s."""
        resources, index = self.resources, self.index
        return max(1e-4, 2e-3 * sum(resources[index[r]].delay_ms for r in sp.resources))

    def new_sub(self, conn: _Conn, sp: SubflowPath, t: float) -> _Sub:
        """A new subflow of ``conn`` on ``sp``, opening at ``t``."""
        slot = self.slot_of[(conn.index, sp.id)]
        sub = _Sub(sp, self.index, self.resources, self.plan, t, self.clock.n_bins, slot)
        self.sub_at[slot] = sub
        conn.subs[sp.id] = sub
        conn.order.append(sp.id)
        self.paths_dirty = True
        return sub

    def set_delays(self, changed: set[int]) -> None:
        resources = self.resources
        for conn in self.conns:
            for sub in conn.subs.values():
                if not changed.isdisjoint(sub.res):
                    sub.base_rtt = max(1e-4, 2e-3 * sum(resources[i].delay_ms for i in sub.res))

    # ------------------------------------------------------------------ handovers
    @staticmethod
    def stall(sub: _Sub, t: float, cubic: bool = False) -> None:
        """In-flight data is lost with the path; wait for the retransmission timer (``cubic``:
        ssthresh = β_cubic·cwnd, RFC 9438 §4.8, else cwnd/2, RFC 5681 §3.1)."""
        if sub.phase == "open":
            sub.saved_cwnd, sub.saved_ssthresh = sub.cwnd, sub.ssthresh
            sub.ssthresh = max(sub.cwnd // 2.0, 2.0) if not cubic else cubic_reduction(sub.cwnd, 0.0)[0]
            sub.t_epoch, sub.w_max = -1.0, 0.0  # CUBIC after a timeout: K = 0 (RFC 9438 §4.8)
        sub.phase = "stalled"
        sub.x = 0.0
        sub.next_rto_t = t + sub.rto
        sub.loss_at, sub.drops_pending = math.inf, 0  # the timer covers what was in flight

    def cut(self, conn: _Conn, sub: _Sub, t: float) -> None:
        """The single-path connection's path is gone or moved at ``t``."""
        scheme = conn.plan.handover
        if sub.phase in ("stalled", "frozen"):
            return
        sub.cut_t = t
        notify = self.notify
        if scheme == "zwa":
            if sub.base_rtt / 2.0 >= notify:
                sub.saved_cwnd, sub.saved_ssthresh = sub.cwnd, sub.ssthresh
                sub.phase = "frozen"
                sub.x = 0.0
                self.emit(t + notify, "zwa_freeze", conn.plan, sub.id)
                return
            self.emit(t, "zwa_too_late", conn.plan, sub.id, one_way_delay_s=round(sub.base_rtt / 2, 6),
                      notification_delay_s=notify)
        self.stall(sub, t, self.cc == "cubic" and not conn.plan.multipath)

    def path_back(self, conn: _Conn, sub: _Sub, t: float) -> None:
        """A cut single-path connection has a path again at ``t`` (after re-association)."""
        scheme = conn.plan.handover
        if scheme == "zwa" and sub.phase == "frozen":
            # the controller learns the association, its window update travels to the
            # sender and the sender's data back to the station: one round trip
            sub.resume_t = t + self.notify + sub.base_rtt
        elif scheme == "spurious" and sub.phase == "stalled" and sub.saved_cwnd > 0:
            # the controller flushes its buffer to the station as soon as it learns the
            # association; the ACKs of the flushed segments restore the sender's window
            sub.resume_t = t + self.notify

    # ------------------------------------------------------------------ segments
    def apply_segment(self, conn: _Conn, t: float) -> None:
        """Connection ``conn`` enters its segment ``conn.seg`` at ``t``: subflows come and go
        (multipath) or the path changes under the strategy's handover scheme (single path)."""
        fp = conn.plan
        seg = fp.segments[conn.seg]
        wanted = {sp.id: sp for sp in seg.subflows}
        if fp.multipath:
            self._apply_multipath_segment(conn, wanted, t)
            return
        index, resources, plan, emit = self.index, self.resources, self.plan, self.emit
        cur = conn.active
        sp = next(iter(wanted.values()), None)
        if sp is None:
            if cur is not None and cur.phase not in ("stalled", "frozen", "dead"):
                self.cut(conn, cur, t)
                emit(t, "route_lost", fp, cur.id, path=cur.path)
            return
        sub = conn.subs.get(sp.id)
        if cur is None:
            if sub is None:
                sub = self.new_sub(conn, sp, t)
                emit(t, "subflow_up", fp, sp.id, path=sp.nodes)
            conn.active = sub
            return
        if sub is cur and cur.path == sp.nodes:
            cur.set_path(sp, index, resources)
            if cur.phase in ("stalled", "frozen"):
                self.path_back(conn, cur, t)
            return
        old_path = cur.path
        if fp.handover == "seamless":
            if sub is None:
                sub = self.new_sub(conn, sp, t)
            else:
                sub.set_path(sp, index, resources)
                sub.reset(plan, t)
            sub.phase, sub.next_sample_t = "open", t  # the path was confirmed before the switch
            if cur is not sub:
                cur.phase, cur.x = "dead", 0.0
            conn.active = sub
            emit(t, "route_change", fp, sub.id, path=sp.nodes, previous_path=old_path)
            return
        was_cut = cur.phase in ("stalled", "frozen")
        if not was_cut:
            self.cut(conn, cur, t)
        if sub is None:
            sub = self.new_sub(conn, sp, t)
        if sub is not cur:
            sub.take_state(cur)
            cur.phase, cur.x = "dead", 0.0
        sub.set_path(sp, index, resources)
        conn.active = sub
        if old_path != sp.nodes:
            emit(t, "route_change", fp, sub.id, path=sp.nodes, previous_path=old_path)
        if was_cut:
            self.path_back(conn, sub, t)
        elif sub.phase == "frozen":
            self.path_back(conn, sub, t)

    def _apply_multipath_segment(self, conn: _Conn, wanted: dict[str, SubflowPath], t: float) -> None:
        """Multipath: subflows not in the segment go down, new or moved ones come up."""
        fp = conn.plan
        for sid, sub in conn.subs.items():
            if sid not in wanted and sub.phase != "dead":
                sub.phase = "dead"
                sub.x = 0.0
                self.emit(t, "subflow_down", fp, sid, path=sub.path)
        for sid, sp in wanted.items():
            sub = conn.subs.get(sid)
            if sub is None:
                sub = self.new_sub(conn, sp, t)
                self.emit(t, "subflow_up", fp, sid, path=sp.nodes)
            elif sub.phase == "dead" or sub.path != sp.nodes:
                sub.set_path(sp, self.index, self.resources)
                sub.reset(self.plan, t)
                self.emit(t, "subflow_up", fp, sid, path=sp.nodes)
            else:
                sub.set_path(sp, self.index, self.resources)  # same path, maybe a new rate limit

    # ------------------------------------------------------------------ timers
    def fire_timers(self, conn: _Conn, sub: _Sub, step: int, t: float, has_path: bool) -> None:
        """A stalled or frozen subflow at ``t`` (step ``step``): zero-window resume, spurious-timeout
        recovery or retransmission timeout (resumes if the subflow has a path and the retransmission
        gets through, else backs off, RFC 6298 §5.5)."""
        tr, emit, fp = self.transport, self.emit, conn.plan
        if sub.phase == "frozen":
            if t >= sub.resume_t:
                sub.phase = "open"
                sub.cwnd, sub.ssthresh = max(sub.saved_cwnd, 1.0), sub.saved_ssthresh
                sub.next_sample_t = t
                sub.resume_t = math.inf
                emit(t, "zwa_resume", fp, sub.id, idle_s=round(t - sub.cut_t, 6))
            return
        if t >= sub.resume_t:  # spurious-timeout recovery
            sub.phase = "open"
            sub.cwnd, sub.ssthresh = sub.saved_cwnd, sub.saved_ssthresh
            sub.rto = max(tr.min_rto_s, sub.rto / 2.0 ** 8) if sub.srtt is None else retransmission_timeout(
                sub.srtt, sub.rttvar, tr.min_rto_s, tr.max_rto_s, CLOCK_GRANULARITY_S, tr.rto_form == "linux")
            sub.next_sample_t = t
            sub.resume_t = math.inf
            emit(t, "spurious_recovery", fp, sub.id, idle_s=round(t - sub.cut_t, 6),
                 cwnd_packets=round(sub.cwnd, 3))
            return
        if t >= sub.next_rto_t:
            sub.retransmissions += 1
            if has_path and draws.uniform(sub.timeout_key, step) < 1.0 - sub.loss_keep * sub.ack_keep:
                # the retransmission or its ACK (sent at once: it fills a gap, RFC 5681 §4.2) is
                # lost too: back off again (RFC 6298 §5.5)
                emit(t, "rto", fp, sub.id, rto_s=round(sub.rto, 4), resumed=False)
                sub.rto = min(2.0 * sub.rto, tr.max_rto_s)
                sub.next_rto_t = t + sub.rto
                return
            if has_path and fp.handover != "spurious" or (has_path and sub.saved_cwnd <= 0):
                emit(t, "rto", fp, sub.id, rto_s=round(sub.rto, 4), resumed=True,
                     idle_s=round(t - sub.cut_t, 6) if sub.cut_t < math.inf else None)
                sub.phase = "open"
                sub.cwnd = 1.0
                sub.t_epoch, sub.w_max = -1.0, 0.0  # CUBIC after a timeout: K = 0 (RFC 9438 §4.8)
                sub.last_reduction_t = t
                sub.next_sample_t = t
                sub.saved_cwnd = 0.0
                sub.cut_t = math.inf  # the cut is over: later (loss) timeouts report no idle period
            else:
                emit(t, "rto", fp, sub.id, rto_s=round(sub.rto, 4), resumed=False)
                sub.rto = min(2.0 * sub.rto, tr.max_rto_s)
                sub.next_rto_t = t + sub.rto

    # ------------------------------------------------------------------ one step
    def step(self, step: int, t: float, b: int) -> None:
        self.schedule(step, t)
        self.serve_network(b)
        burst = None
        for conn in self.conns:
            fp = conn.plan
            if t < fp.start_s or t >= fp.stop_s or conn.done_t is not None:
                continue
            if conn.cbr is not None:
                if burst is None:
                    burst = self._ack_bursts()
                self._record_cbr(conn, b, burst)
                continue
            self.update_windows(conn, step, t, b)

    def _ack_bursts(self) -> np.ndarray:
        """Per resource, the burst an ACK-clocked sender puts into its queue, goodput-scaled bits:
        :data:`.cbr.ACK_BURST_SEGMENTS` full-sized segments where a TCP-family subflow sends this step, 0 elsewhere
        (a queue fed only by non-responsive sources moves as the fluid does)."""
        burst = np.zeros(len(self.resources))
        for conn in self.conns:
            if conn.cbr is None:
                for sub in conn.subs.values():
                    if sub.x > 0.0 and sub.res:
                        burst[sub.res] = ACK_BURST_SEGMENTS * self.pkt_bits
        return burst

    def _schedule_cbr(self, conn: _Conn, current, t: float) -> None:
        """A non-responsive source sends what its pattern gives for the step from ``t`` (:meth:`.cbr.Source.
        begin_step`) on the first subflow of the current segment that has a path (no handshake, window or timer:
        UDP is not responsive); what it sends while the segment has none is lost."""
        bits = conn.cbr.begin_step(t)
        chosen = None
        for sub in conn.subs.values():
            sub.x = 0.0
        for sp in (current.subflows if current is not None else ()):
            sub = conn.subs.get(sp.id)
            if sub is not None and sub.phase != "dead" and sub.res:
                chosen = sub
                break
        conn.cbr.sub = chosen
        if chosen is not None:
            chosen.phase = "open"
            # the queues carry goodput-scaled bits (common.goodput_fraction)
            chosen.x = bits / self.clock.dt_s * self.wire

    def _record_cbr(self, conn: _Conn, b: int, burst: np.ndarray) -> None:
        """The step's packets of a non-responsive source after the queues: sent, lost (dropped at full queues,
        random link loss, or no path), one-way delay (:func:`.cbr.one_way_delay_s`) and the width of its packet
        granularity behind the ACK bursts ``burst`` (per resource, :meth:`_ack_bursts`; :func:`.cbr.delay_spread_s`),
        jitter, the fate of video
        frames."""
        sub = conn.cbr.sub
        if sub is None:
            conn.cbr.record(b, None, 0.0, None)
            return
        got = float(self.got_bits[sub.slot])  # delivered, after random loss
        random_lost = got / sub.loss_keep - got if sub.loss_keep > 0 else 0.0
        # dropped_slot: Σ of the drop fractions along the path (queues.serve), of the bits sent this step
        drop_frac = min(1.0, float(self.dropped_slot[sub.slot]))
        dropped = drop_frac * sub.x * self.clock.dt_s
        lost_ip_bits = (dropped + random_lost) / self.wire
        if self.classes is None:
            delay = one_way_delay_s(sub.res, self.resources, self.queue_bits, self.cap_bps,
                                    conn.cbr.packet_bits * self.wire)
            spread = delay_spread_s(sub.res, self.queue_bits, self.cap_bps, burst)
        else:  # its class's queue, W0 and transmission (.classes)
            delay = self.classes.one_way_delay_s(sub.slot, sub.res, self.resources, self.cap_bps,
                                                 conn.cbr.packet_bits * self.wire)
            spread = self.classes.delay_spread_s(sub.slot, sub.res, burst)
        conn.cbr.record(b, delay, got / self.wire, lost_ip_bits, 1.0 - (1.0 - drop_frac) * sub.loss_keep, spread)

    def schedule(self, step: int, t: float) -> None:
        """Segment changes due at ``t`` (the network's rows follow them), then timers (step
        ``step``) and every subflow's sending rate ``x`` (bit/s; MPTCP by linger time,
        :func:`~subflow_engines.fluid.common.linger_fill`; SCTP CMT slowest path first)."""
        rbuf_bits, pkt_bits, dt = self.rbuf_bits, self.pkt_bits, self.clock.dt_s
        for conn in self.conns:
            fp = conn.plan
            while conn.seg + 1 < len(fp.segments) and fp.segments[conn.seg + 1].t_start_s <= t + 1e-12:
                conn.seg += 1
                self.apply_segment(conn, t)
                self.paths_dirty = True
        if self.paths_dirty:
            self.rebuild_rows(t)
        qdelays, first_cap = self.qdelay_s.tolist(), self.first_cap_bps
        for conn in self.conns:
            fp = conn.plan
            if t < fp.start_s or t >= fp.stop_s or conn.done_t is not None:
                for sub in conn.subs.values():
                    sub.x = 0.0
                continue
            current = fp.segments[conn.seg] if conn.seg >= 0 else None
            if conn.cbr is not None:
                self._schedule_cbr(conn, current, t)
                continue
            live: list[_Sub] = []
            max_rtt = 0.0
            for sid in conn.order:
                sub = conn.subs[sid]
                if sub.phase == "dead":
                    continue
                if sub.phase == "handshake" and t >= sub.t_open:
                    sub.phase = "open"
                    sub.next_sample_t = t
                if sub.phase in ("stalled", "frozen"):
                    has_path = current is not None and any(sp.id == sub.id for sp in current.subflows)
                    self.fire_timers(conn, sub, step, t, has_path)
                if sub.phase == "open" and t < sub.pause_until:
                    sub.x = 0.0  # window full, waiting for the tail loss probe's SACK
                    continue
                if sub.phase == "open":
                    qdelay = qdelays[sub.slot]  # Σ queue/capacity along the path (queues.serve)
                    if sub.jitter_hops:
                        qdelay += self.fifo_jitter_s(sub)
                    sub.rtt = sub.base_rtt + qdelay
                    if sub.rtt > max_rtt:
                        max_rtt = sub.rtt
                    if sub.cwnd < sub.ssthresh and t >= sub.recover_end:
                        self.ack_clock(sub, t, self.cwnd_clamp)
                    elif sub.ack_clocked:
                        sub.acks.clear()
                        sub.inflight, sub.ack_clocked = 0.0, False
                    live.append(sub)
                else:
                    sub.x = 0.0
                    if sub.ack_clocked:
                        sub.acks.clear()
                        sub.inflight, sub.ack_clocked = 0.0, False
            if not live:
                continue
            multipath = fp.multipath and len(live) > 1
            slow_first = multipath and fills_slowest_first(self.plan, fp)
            if slow_first:
                # SCTP CMT sends on every path whose cwnd has room (RFC 4960 §6.1 B, per
                # destination); when the shared receive window is the limit, the long-RTT paths keep
                # their windows in flight and the throttle falls on the fast path, so CMT fills the
                # slowest path first.
                live.sort(key=lambda s: (-(s.srtt if s.srtt is not None else s.rtt), s.id))
            remaining = conn.demand
            if rbuf_bits < math.inf:
                remaining = min(remaining, rbuf_bits / max_rtt)
            if conn.remaining_bits < math.inf:
                # a finite transfer sends no more than is neither delivered nor in the network (what
                # the queues dropped and the links lost is sent again)
                queued = 0.0
                for s in conn.subs.values():
                    queued += float(self.queued_bits[s.slot])
                remaining = min(remaining, max(0.0, conn.remaining_bits - queued) / dt)
            windows = []
            for sub in live:
                if sub.ack_clocked:
                    # slow start: what the window allows now, at once (ACK clocking), at most at the
                    # first hop's rate (TCP small queues keep the rest in the socket)
                    w = sub.allow * pkt_bits / dt
                    c_first = float(first_cap[sub.slot])
                    sub.tsq = bool(sub.res) and c_first < w
                    if sub.tsq:
                        w = c_first
                else:
                    w = sub.cwnd * pkt_bits / sub.rtt
                windows.append(w if w < sub.limit else sub.limit)
            if multipath and not slow_first:
                # MPTCP: Linux's scheduler, the subflow that would flush its queue soonest first
                linger = [s.rtt / (PACING_GAIN_SS if s.cwnd < s.ssthresh else PACING_GAIN_CA) for s in live]
                xs = np.zeros(len(live))
                linger_fill(np.array(windows), np.array(linger), remaining, xs)
                rates = xs.tolist()
            else:
                rates = []
                for w in windows:
                    x = w if w < remaining else remaining
                    rates.append(x)
                    remaining -= x
            for sub, w, x in zip(live, windows, rates):
                sub.x = x
                sub.limited = x >= 0.98 * w and w < sub.limit

    @staticmethod
    def ack_clock(sub: _Sub, t: float, clamp: float) -> None:
        """Slow start, ACK-clocked: the ACKs due by ``t`` free what they acknowledge and grow the
        window by the segments delivered (RFC 5681 §3.1); ``sub.allow``: segments the window lets
        out now."""
        sub.ack_clocked = True
        q = sub.acks
        while q and q[0][0] <= t:
            e = q[0]
            t1, t2, delivered, sent, limited = e
            f = 1.0 if not t < t2 else (t - t1) / (t2 - t1)
            d_, s_ = delivered * f, sent * f
            if f >= 1.0:
                q.popleft()
            else:
                e[0], e[2], e[3] = t, delivered - d_, sent - s_
            sub.inflight -= s_
            # Linux grows the window in slow start while the window held the sender back, or
            # while it is below twice what is out (tcp_is_cwnd_limited)
            if limited or sub.cwnd < 2.0 * sub.inflight:
                v = sub.cwnd + d_
                cap_ = sub.ssthresh if sub.ssthresh > sub.cwnd else sub.cwnd
                if cap_ > clamp:
                    cap_ = clamp
                sub.cwnd = v if v < cap_ else cap_
            if f < 1.0:
                break
        if not q:
            sub.inflight = 0.0
        a = sub.cwnd - sub.inflight
        sub.allow = a if a > MIN_ALLOW_SEGMENTS else 0.0

    def rebuild_rows(self, t: float) -> None:
        """The network's rows after segment changes at ``t``: every subflow of its connection's
        current segment that is not dead (:meth:`rebuild_network`)."""
        rows = []
        for conn in self.conns:
            if conn.seg < 0:
                continue
            for sp in conn.plan.segments[conn.seg].subflows:
                sub = conn.subs.get(sp.id)
                if sub is not None and sub.phase != "dead" and sub.res:
                    rows.append((sub.slot, sub.res))
        self.rebuild_network(t, rows)
        self.paths_dirty = False

    def refresh_rows(self) -> None:
        """As :meth:`FluidSimulator.refresh_rows`; with queues by class, each incidence's class and each slot's
        round-trip queueing delay from its classes' delays (:mod:`.classes`)."""
        super().refresh_rows()
        cq = getattr(self, "classes", None)
        if cq is not None:
            cq.rows_changed(self.net, self.queue_bits)
            cq.round_trip_delays(self.net, self.qdelay_s)

    def serve_network(self, b: int) -> None:
        """The network in the step: every subflow's bits through the queues of its path
        (:func:`subflow_engines.fluid.queues.serve`, shared with the vectorised kernel); the bits
        delivered (less random loss) count in output sample ``b``."""
        net, led, dt = self.net, self.ledger, self.clock.dt_s
        inject, got = self.inject, self.got_bits
        inject[:] = 0.0
        got[:] = 0.0
        self.dropped_slot[:] = 0.0
        sent = led.sent_bits
        for conn in self.conns:
            for sub in conn.subs.values():
                if sub.x > 0.0:
                    v = sub.x * dt
                    inject[sub.slot] = v
                    sent[sub.slot] += v
        cq = self.classes
        if cq is None:
            serve(inject, net.row_slot, net.row_first, net.order_res, net.order_ptr, net.srv_next,
                  net.srv_slot, net.lag_in, net.ack_ptr, net.ack_slot, self.queue_bits, self.cap_bps,
                  self.cap_dt_bits, self.buf_bits, net.backlog, net.pending, net.arriving, net.burst,
                  self.arrived_bits, self.drop_frac_res, self.res_delay_s, got, self.dropped_slot, self.qdelay_s,
                  self.queued_bits, self.any_finite, led.link_cap_bits)
        else:
            serve_classes(inject, net.row_slot, net.row_first, net.order_res, net.order_ptr, net.srv_next,
                          net.srv_slot, net.lag_in, net.ack_ptr, net.ack_slot, self.queue_bits, self.cap_bps,
                          self.cap_dt_bits, net.backlog, net.pending, net.arriving, net.burst, self.arrived_bits,
                          self.res_delay_s, got, self.dropped_slot, self.qdelay_s, self.queued_bits, self.any_finite,
                          led.link_cap_bits, cq.inc_cls, cq.ack_cls, cq.res_mode, cq.res_set, cq.set_lo, cq.set_hi,
                          cq.porder, cq.weight, cq.cls_buf, cq.delta_s, cq.qc, cq.rdc, cq.a_k, cq.c_k, cq.r_k, cq.d_k,
                          self.pkt_bits, self.clock.dt_s)
        led.slot_cap_bits += self.min_cap_dt_bits
        sub_at = self.sub_at
        for slot in net.row_slot.tolist():
            sub = sub_at[slot]
            g = got[slot] * sub.loss_keep  # less random loss along the path
            got[slot] = g
            sub.bits[b] += g
        if self.any_jitter:
            self.prev_arrivals = (self.arrived_bits / dt).tolist()  # packet spacing on jittery hops

    def sample_state(self, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        bits, cwnd = np.zeros(self.n_slots), np.zeros(self.n_slots)
        is_open = np.zeros(self.n_slots, dtype=bool)
        for slot, sub in enumerate(self.sub_at):
            if sub is not None:
                bits[slot], cwnd[slot], is_open[slot] = sub.bits[b], sub.cwnd, sub.phase == "open"
        return bits, cwnd, is_open

    def update_windows(self, conn: _Conn, step: int, t: float, b: int) -> None:
        """Connection ``conn`` after the queues at ``t``: delivered bits (output sample ``b``),
        loss events and the reaction to them, window growth (slow start, Reno/NewReno, CUBIC,
        LIA, OLIA), RTT estimation, and completion of a finite transfer."""
        fp = conn.plan
        delivered_bits = 0.0
        for sub in conn.subs.values():
            delivered_bits += self.got_bits[sub.slot]
        open_subs = [s for s in conn.subs.values() if s.phase == "open"]
        if open_subs:
            growth = _Growth(fp, open_subs, self.cc)
            for sub in open_subs:
                if sub.x > 0:
                    self._window_step(sub, step, t, growth)
        self.count_delivered(conn, t, delivered_bits)

    def _window_step(self, sub: _Sub, step: int, t: float, growth: "_Growth") -> None:
        """One open subflow that sent in the step from ``t``: loss events, the reaction a round trip later,
        ACK clocking or window growth, an RTT sample."""
        x = sub.x
        dropped = self.dropped_slot[sub.slot]  # Σ of the drop fractions along the path (queues.serve)
        sent_pkts = x * (self.clock.dt_s / self.pkt_bits)  # as the vectorised kernel rounds it
        lost, p_rand = self._loss_events(sub, step, dropped, sent_pkts)
        rtt_now = sub.rtt
        if lost:
            # the sender learns of a drop from duplicate ACKs a round trip later (RFC 5681
            # §3.2) and keeps sending meanwhile, so an overflow lasts about one RTT and
            # usually hits every flow crossing the queue (the synchronisation of a few
            # flows at a drop-tail queue, Appenzeller et al. 2004 §3)
            sub.retransmissions += 1
            sub.drops_pending += 1
            if sub.loss_at == math.inf:
                sub.loss_at = t + rtt_now
        react = t >= sub.loss_at
        if react:
            if self._react_to_loss(sub, step, t, p_rand, growth):
                return  # a retransmission timeout ends the episode
        elif not lost:
            sub.l_cur += sent_pkts
        if sub.ack_clocked and not react:
            self._clock_acks(sub, t, x, sent_pkts, dropped)
        elif not react and sub.limited and t >= sub.recover_end:
            self._grow(sub, t, sent_pkts, growth)
        if t >= sub.next_sample_t:
            self._sample_rtt(sub, t)

    @staticmethod
    def _loss_events(sub: _Sub, step: int, dropped: float, sent_pkts: float) -> tuple[bool, float]:
        """Whether the step's packets met a loss: random loss (Bernoulli per packet) or a queue overflow
        (counter-based draws); and the path's random loss probability."""
        lost = False
        p_rand = 1.0 - sub.loss_keep
        if p_rand > 0 and draws.uniform(sub.loss_key, step) < -math.expm1(-sent_pkts * p_rand):
            lost = True
        if dropped > 0 and draws.uniform(sub.key, step) < -math.expm1(-sent_pkts * min(1.0, dropped)):
            lost = True
        return lost, p_rand

    def _react_to_loss(self, sub: _Sub, step: int, t: float, p_rand: float, growth: "_Growth") -> bool:
        """The reaction to the losses learnt at ``t``: one window reduction per round trip, fast recovery, a
        tail loss probe or a retransmission timeout. Returns True when the subflow stalled on a timeout."""
        rtt_now = sub.rtt
        drops, sub.drops_pending, sub.loss_at = sub.drops_pending, 0, math.inf
        if t - sub.last_reduction_t >= (sub.srtt or rtt_now):
            sub.l_prev, sub.l_cur = sub.l_cur, 0.0
            sub.window_losses = drops
            w_lost = sub.cwnd
            if growth.cubic:
                # RFC 9438 §4.6-4.7: multiplicative decrease by beta, fast convergence
                sub.cwnd, sub.w_max = cubic_reduction(sub.cwnd, sub.w_max)
                sub.ssthresh = sub.cwnd
                sub.t_epoch = -1.0
            else:
                sub.ssthresh = max(sub.cwnd // 2.0, 2.0)  # tcp_reno_ssthresh: max(cwnd >> 1, 2)
                sub.cwnd = sub.ssthresh
            sub.last_reduction_t = t
            # fast recovery (SACK/PRR, RFC 6675/6937) lasts a round trip: the window
            # does not grow until the retransmission is acknowledged
            sub.recover_end = t + (sub.srtt or rtt_now)
            q_seg = 1.0 - sub.loss_keep * sub.ack_keep  # a segment yields no SACK
            u = draws.uniform(sub.timeout_key, step) if p_rand > 0 else 1.0
            if u < rack_tlp_timeout_probability(q_seg, w_lost):
                # no segment after the lost one, nor the tail loss probe, is SACKed: the
                # retransmission timer ends the episode (RFC 8985; common.
                # rack_tlp_timeout_probability), then a loss window of 1 packet
                sub.phase = "stalled"
                sub.x = 0.0
                sub.saved_cwnd = 0.0
                sub.next_rto_t = t + sub.rto
                return True
            if u < rack_tail_probability(q_seg, w_lost):
                # a tail loss: the probe's SACK starts the recovery (RFC 8985 §7)
                sub.pause_until = t + tail_probe_pause_s(sub.srtt or rtt_now, w_lost, sub.rto)
                sub.recover_end = max(sub.recover_end, sub.pause_until + (sub.srtt or rtt_now))
        elif growth.reno:
            sub.window_losses += drops
        if growth.reno and sub.window_losses >= 2:
            # Reno without NewReno's partial ACKs: a second loss in the same window
            # usually ends in a retransmission timeout (Fall & Floyd 1996, §3)
            sub.window_losses = 0
            sub.phase = "stalled"
            sub.x = 0.0
            sub.saved_cwnd = 0.0
            sub.next_rto_t = sub.last_reduction_t + sub.rto
            return True
        return False

    def _clock_acks(self, sub: _Sub, t: float, x: float, sent_pkts: float, dropped: float) -> None:
        """Slow start: the step's segments are acknowledged a round trip later, spaced by the narrowest hop
        (FIFO: behind the backlog queued before them); what the queues dropped and the links lost is not."""
        sub.inflight += sent_pkts
        held = sub.limited and not sub.tsq  # the window, not the first hop, held it back
        c_min = float(self.min_cap_bps[sub.slot])
        kept = sub.loss_keep * (1.0 - dropped if dropped < 1.0 else 0.0)
        t1 = t + sub.rtt  # behind the backlog queued before them
        t2 = t1 + max(x * self.clock.dt_s / c_min, self.clock.dt_s)  # spaced by the narrowest hop
        if len(sub.acks) == ACK_RING_ENTRIES:  # as the vectorised kernel's ring: the newest takes it
            e = sub.acks[-1]
            e[1] = max(e[1], t2)
            e[2] += sent_pkts * kept
            e[3] += sent_pkts
            e[4] = e[4] or held
        else:
            sub.acks.append([t1, t2, sent_pkts * kept, sent_pkts, held])

    def _grow(self, sub: _Sub, t: float, acked: float, growth: "_Growth") -> None:
        """Congestion avoidance by the segments acknowledged (slow start is ACK-clocked: ack_clock)."""
        if growth.coupled:
            sub.cwnd += acked * min(growth.alpha / growth.total_w, 1.0 / sub.cwnd)
        elif growth.olia:
            # OLIA per ACK: (w_r/rtt_r²)/(Σ_p w_p/rtt_p)² + ε_r/w_r
            rtt_now = sub.rtt
            inc = (sub.cwnd / (rtt_now * rtt_now)) / growth.olia_rate + growth.epsilon[sub.id] / sub.cwnd
            sub.cwnd = max(1.0, sub.cwnd + acked * inc)
        elif growth.cubic:
            sub.cwnd = _cubic_update(sub, t, acked, sub.rtt)
        else:
            sub.cwnd += acked * (1.0 / sub.cwnd)  # rounded as the vectorised kernel
        if sub.cwnd > self.cwnd_clamp:
            sub.cwnd = self.cwnd_clamp

    def _sample_rtt(self, sub: _Sub, t: float) -> None:
        """One RTT sample per round trip (RFC 6298 §2): SRTT, RTTVAR and the RTO."""
        tr = self.transport
        r = sub.rtt
        if sub.jitter_s > 0:
            r = max(1e-4, r + self.rng.uniform(-sub.jitter_s, sub.jitter_s))
        if sub.srtt is None:
            sub.srtt, sub.rttvar = r, r / 2.0
        else:
            sub.rttvar = 0.75 * sub.rttvar + 0.25 * abs(sub.srtt - r)
            sub.srtt = 0.875 * sub.srtt + 0.125 * r
        sub.rto = retransmission_timeout(sub.srtt, sub.rttvar, tr.min_rto_s, tr.max_rto_s,
                                         CLOCK_GRANULARITY_S, tr.rto_form == "linux")
        sub.next_sample_t = t + r

    def count_delivered(self, conn: _Conn, t: float, delivered_bits: float) -> None:
        """A finite transfer of ``conn`` received ``delivered_bits`` in the step from ``t``; it
        completes at the end of the step that delivers its last bit."""
        if conn.remaining_bits < math.inf:
            conn.remaining_bits -= delivered_bits
            if conn.remaining_bits <= 0:
                fp = conn.plan
                conn.done_t = t + self.clock.dt_s
                for sub in conn.subs.values():
                    sub.x = 0.0
                self.emit(conn.done_t, "flow_complete", fp, None, completion_s=round(conn.done_t - fp.start_s, 6))

    def sample_cwnd(self, b: int) -> None:
        for conn in self.conns:
            if conn.cbr is not None:
                continue  # a non-responsive source has no window: its cwnd_packets stay 0
            for sub in conn.subs.values():
                sub.cwnd_samples[b] = round(sub.cwnd, 3) if sub.phase in ("open", "handshake") else 0.0

    # ------------------------------------------------------------------ output
    def flow_quality(self, c: int) -> dict | None:
        cbr = self.conns[c].cbr
        return None if cbr is None else cbr.series(self.plan, self.clock.interval_s)

    def flow_records(self, c: int) -> tuple[list[SubflowRecord], float | None]:
        conn = self.conns[c]
        interval = self.clock.interval_s
        # a non-responsive source's bits are goodput-scaled in the queues: reported at its IP rate
        scale = 1.0 / self.wire if conn.cbr is not None else 1.0
        records = [
            SubflowRecord(id=sid, path=sub.path,
                          throughput_mbps=throughput_mbps([v * scale for v in sub.bits], interval),
                          cwnd_packets=sub.cwnd_samples, retransmissions=sub.retransmissions)
            for sid, sub in ((sid, conn.subs[sid]) for sid in conn.order)
        ]
        return records, conn.done_t
