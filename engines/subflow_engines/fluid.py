"""Engine ``fluid``: the embedded flow-level simulator.

A time-stepped fluid model. Every (sub)flow has a congestion window
``cwnd`` (packets of ``mss_bytes``) and sends at ``x = cwnd·MSS/RTT`` bit/s,
capped by its application demand, its controller rate limit and the
connection's receive buffer; resources (link directions, access point air)
are fluid drop-tail queues shared by all subflows crossing them.

Equations (``dt`` is the step, ``q`` a queue in bits, ``C`` a capacity in bit/s,
``A`` the sum of arrival rates)::

    C_l     = rate_l · MSS/(MSS + 66)                (goodput share of a frame: IPv4, TCP,
                                                      timestamps, Ethernet; fluid_vec.goodput_fraction)
    RTT_i   = 2·Σ_l d_l + Σ_l q_l / C_l              (propagation + queueing)
    q_l'    = clip(q_l + (A_l − C_l)·dt, 0, B_l)    (B_l = queue_packets·MSS·8)
    slow start        cwnd ·= 2^(acked/cwnd)         (one doubling per RTT, RFC 5681 §3.1)
    congestion avoid. cwnd += acked / cwnd           (Reno/NewReno, RFC 5681 §3.1, RFC 6582)
                      CUBIC window, see _cubic_update (RFC 9438 §4)
    MPTCP (LIA)       cwnd_i += acked·min(α/W, 1/cwnd_i),
                      α = W·max_j(cwnd_j/RTT_j²) / (Σ_j cwnd_j/RTT_j)²   (RFC 6356 §3)
    loss event        detected one RTT after the drop (duplicate ACKs, RFC 5681 §3.2), then
                      ssthresh = max(cwnd/2, 2); cwnd = ssthresh, at most once per RTT
                      (NewReno); a second loss in the same window ends in an RTO for Reno
    fast recovery     one RTT without window growth after the reduction (SACK/PRR recovery,
                      RFC 6675, RFC 6937; NewReno partial ACKs, RFC 6582)
    timeout           a random-loss episode at window w ends in an RTO with probability
                      Q̂(p, w) (Padhye et al. 1998, Eq. 24: too few duplicate ACKs return;
                      1 for w ≤ 3); each retransmission after an RTO is lost with the path's
                      loss p, doubling the RTO again (RFC 6298 §5.5)
    RTO               RFC 6298 §2: SRTT, RTTVAR (α=1/8, β=1/4), RTO = SRTT + max(G, 4·RTTVAR),
                      clamped to [min_rto_s, max_rto_s], doubled per expiry (§5.5)
    after RTO         cwnd = 1 (loss window, RFC 5681 §3.1), slow start again
    receive buffer    Σ_i x_i ≤ rbuf·8 / max_i RTT_i  (data on the fastest subflow waits in
                      the buffer for the slowest: head-of-line blocking; Raiciu et al.,
                      NSDI 2012, §4.2; Iyengar et al. 2007 for SCTP CMT)

Loss events come from random link loss (Bernoulli per packet, counter-based draws) and
from queue overflow: a subflow whose fluid lost ``m`` packets' worth at full
queues in a step (sent packets × drop fraction) sees a loss event with
probability ``1 − exp(−m)`` — drop-tail discards whichever packets arrive at a
full queue, so which flow loses is random. The sender reacts one RTT after
the drop (duplicate ACKs), so an overflow episode lasts about a round trip
and, with few flows, usually hits all of them (synchronised losses), with many
flows only some (Appenzeller, Keslassy, McKeown, "Sizing router buffers",
SIGCOMM 2004, §3). That randomness is what lets greedy subflows split a
saturated link unevenly. Draws are counter-based
(:mod:`subflow_engines.draws`), identical in both kernels.

Single-path connections (TCP, SCTP failover, mSCTP) have one active
subflow. When its path is cut or moves, the strategy's *handover* scheme
applies:

* ``bare``: in-flight data is lost; the connection resumes on its current
  path only when its retransmission timer fires (backing off while cut);
* ``zwa``: the SDN controller, told of the disassociation after
  ``notification_delay_s``, freezes the sender with a zero window (no timer
  backoff, cwnd kept) and reopens it on re-association: the window update
  reaches the sender, and its data the station, one round trip after the
  controller learns of the re-association. If the
  path's one-way delay is below the notification delay, the whole window was
  already lost on the stale route and the scheme falls back to ``bare``
  (Singh & Pandey 2021, §3.5);
* ``spurious``: the controller buffers the station's segments and flushes
  them on re-association; the sender's timer expiries turn out spurious
  (Eifel/F-RTO, RFC 3522/5682) and it restores its pre-timeout cwnd and
  ssthresh (RFC 4015) once the flushed segments' ACKs arrive;
* ``seamless``: make-before-break primary change (mSCTP): the new path
  starts at once with a fresh window, nothing is lost.

Multipath connections (MPTCP, SCTP CMT) schedule their demand with LowRTT
(fill the lowest-RTT subflow's window first); removing a subflow leaves the
others running. Coupling ``lia`` applies RFC 6356; ``uncoupled`` runs one
NewReno per path (CMT's per-destination congestion control).

Deterministic for a given ``seed``. Simplifications: ACKs are not queued,
per-hop departures are shared in proportion to arrivals, and a hop receives a
subflow's rate times the pass fractions of the hops before it in the previous
step (tandem queues: only the first bottleneck of a path queues).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from subflow.fields import PLANNED, Honours
from subflow.plan import FlowPlan, RunPlan, SubflowPath
from subflow.results import EngineOutput, FlowResult, SubflowResult

from subflow_engines import draws, fluid_vec

NAME = "fluid"
CLOCK_GRANULARITY_S = 0.001  # G of RFC 6298
MAX_CWND_PACKETS = 1e5
CUBIC_C = 0.4  # RFC 9438 §5, packets / s^3
CUBIC_BETA = 0.7  # RFC 9438 §4.6
CUBIC_ALPHA = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)  # RFC 9438 §4.3, Reno-friendly region


#: the scenario fields this engine honours (:mod:`subflow.fields`); the rest come resolved in the plan
FIELDS = {
    **PLANNED,
    "Link.bandwidth_mbps": Honours("capacity of each direction (fluid drop-tail queue)"),
    "Link.delay_ms": Honours("propagation delay of each direction, in every RTT"),
    "Link.loss": Honours("random loss of data packets in each direction crossed (seeded)"),
    "Link.jitter_ms": Honours(
        "delay variation: each RTT sample varies uniformly by ±the path's jitter, feeding SRTT, RTTVAR "
        "and the RTO (RFC 6298); packet order is kept, as the linux engine's delay line keeps it "
        "(plans with jitter run on the scalar kernel)"),
    "Link.queue_packets": Honours("drop-tail queue of each direction, packets of MSS"),
    "AccessPointNode.wireless_bandwidth_mbps": Honours("air capacity shared by both directions"),
    "AccessPointNode.wireless_delay_ms": Honours("air propagation delay"),
    "AccessPointNode.wireless_loss": Honours("random loss of packets crossing the air"),
    "AccessPointNode.queue_packets": Honours("drop-tail queue of the air, packets"),
    "AccessPointNode.rate_table": Honours("air capacity changes with the stations' distance (plan)"),
    "RateStep.distance_m": Honours("air capacity changes with the stations' distance (plan)"),
    "RateStep.bandwidth_mbps": Honours("air capacity changes with the stations' distance (plan)"),
    "Flow.rate_mbps": Honours("application demand caps the sending rate"),
    "Flow.size_bytes": Honours("finite transfer; completion_s reported"),
    "TransportSettings.mss_bytes": Honours("packet size of windows, queues and losses"),
    "TransportSettings.initial_cwnd_packets": Honours("initial window (RFC 6928)"),
    "TransportSettings.min_rto_s": Honours("RTO floor (RFC 6298 §2.4)"),
    "TransportSettings.max_rto_s": Honours("RTO ceiling of the backoff (RFC 6298 §5.5)"),
    "TransportSettings.initial_rto_s": Honours("RTO before the first RTT sample (RFC 6298 §2.1)"),
    "TransportSettings.congestion_control": Honours("reno, newreno (RFC 5681/6582), cubic (RFC 9438)"),
    "TransportSettings.rbuf_bytes": Honours("shared receive buffer: head-of-line blocking across subflows"),
    "ControllerSettings.notification_delay_s": Honours("delay before the SDN controller acts (ZWA, spurious)"),
}


class RunCancelled(Exception):
    """The caller asked the run to stop."""


class _Sub:
    __slots__ = (
        "id", "path", "res", "base_rtt", "jitter_s", "loss_keep", "phase", "t_open",
        "cwnd", "ssthresh", "srtt", "rttvar", "rto", "next_rto_t", "next_sample_t",
        "last_reduction_t", "key", "loss_at", "drops_pending", "rtt", "bits", "cwnd_samples", "x", "limited",
        "retransmissions", "w_max", "t_epoch", "k", "w_est", "window_losses", "limit",
        "saved_cwnd", "saved_ssthresh", "resume_t", "cut_t", "l_cur", "l_prev", "wire", "_mss",
        "loss_key", "timeout_key", "recover_end", "arr_last",
    )

    def __init__(self, sp: SubflowPath, index: dict[str, int], resources, plan: RunPlan, t: float, n_bins: int):
        self.id = sp.id
        self.key = draws.subflow_key(plan.seed, sp.id)
        self.loss_key = draws.subflow_key(plan.seed, sp.id + draws.LOSS_STREAM)
        self.timeout_key = draws.subflow_key(plan.seed, sp.id + draws.TIMEOUT_STREAM)
        self._mss = plan.transport.mss_bytes
        self.bits = [0.0] * n_bins
        self.cwnd_samples = [0.0] * n_bins
        self.retransmissions = 0
        self.set_path(sp, index, resources)
        self.reset(plan, t)

    def set_path(self, sp: SubflowPath, index: dict[str, int], resources) -> None:
        self.wire = fluid_vec.goodput_fraction(self._mss)
        self.path = sp.nodes
        self.res = [index[r] for r in sp.resources]
        self.base_rtt = max(1e-4, 2e-3 * sum(resources[i].delay_ms for i in self.res))
        self.jitter_s = 2e-3 * sum(resources[i].jitter_ms for i in self.res)
        keep = 1.0
        for i in self.res:
            keep *= 1.0 - resources[i].loss
        self.loss_keep = keep
        self.limit = math.inf if sp.rate_limit_mbps is None else sp.rate_limit_mbps * 1e6 * self.wire

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
        self.arr_last = 0.0  # rate reaching the path's last hop in this step, bit/s
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

    def take_state(self, other: "_Sub") -> None:
        """Carry a single-path connection's TCP state over to a new path (sub)."""
        for name in ("phase", "t_open", "cwnd", "ssthresh", "srtt", "rttvar", "rto", "next_rto_t",
                     "last_reduction_t", "w_max", "t_epoch", "k", "w_est", "saved_cwnd",
                     "saved_ssthresh", "resume_t", "cut_t"):
            setattr(self, name, getattr(other, name))


class _Conn:
    __slots__ = ("plan", "subs", "order", "seg", "demand", "active", "remaining_bits", "done_t")

    def __init__(self, fp: FlowPlan):
        self.plan = fp
        self.subs: dict[str, _Sub] = {}
        self.order: list[str] = []
        self.seg = -1
        self.demand = math.inf if fp.rate_mbps is None else fp.rate_mbps * 1e6
        self.active: _Sub | None = None  # single-path connections: the sub carrying the connection
        self.remaining_bits = math.inf if fp.size_bytes is None else fp.size_bytes * 8.0
        self.done_t: float | None = None


def _cubic_update(sub: _Sub, t: float, acked: float, rtt: float) -> float:
    """Congestion avoidance of CUBIC (RFC 9438 §4.2–4.3), in packets.

    W_cubic(t) = C·(t − K)³ + W_max with K = ∛(W_max·(1 − β)/C); the window moves
    towards W_cubic(t + RTT) by (target − cwnd)/cwnd per ACK, and never below the
    Reno-friendly estimate W_est, which grows by α_cubic/cwnd per ACK.
    """
    if sub.t_epoch < 0:
        sub.t_epoch = t
        if sub.cwnd < sub.w_max:
            sub.k = ((sub.w_max - sub.cwnd) / CUBIC_C) ** (1.0 / 3.0)
        else:
            sub.k = 0.0
            sub.w_max = sub.cwnd
        sub.w_est = sub.cwnd
    target = CUBIC_C * (t + rtt - sub.t_epoch - sub.k) ** 3 + sub.w_max
    cwnd = sub.cwnd
    target = min(max(target, cwnd), 1.5 * cwnd)
    sub.w_est += acked * CUBIC_ALPHA / cwnd
    return max(cwnd + acked * (target - cwnd) / cwnd, sub.w_est)


#: plans with at least this many subflows run on the vectorised kernel when it supports them
#: (its per-step dynamics are compiled, so it is the faster one at every size)
VECTOR_MIN_SUBFLOWS = 1


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


def run(
    plan: RunPlan,
    on_progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    kernel: str = "auto",
) -> EngineOutput:
    """Simulate ``plan`` and return per-flow and per-subflow timelines and events.

    Parameters
    ----------
    plan : RunPlan
        From :func:`subflow.resolve.resolve_plan`.
    on_progress : callable, optional
        Called with the simulated fraction in [0, 1] about every 2 % of the run.
    should_stop : callable, optional
        Polled with the progress; returning True raises :class:`RunCancelled`.
    kernel : {"auto", "scalar", "vector"}
        ``auto``: the vectorised, compiled kernel (:mod:`.fluid_vec`) for plans
        with at least :data:`VECTOR_MIN_SUBFLOWS` subflows that it supports,
        else this scalar loop (every feature: CUBIC, Reno, OLIA, ZWA,
        spurious-timeout and seamless handovers). ``vector`` raises ValueError
        if the plan uses a feature the vectorised kernel lacks.

    Returns
    -------
    EngineOutput
        Timelines at ``plan.interval_s`` (goodput in Mbit/s, cwnd in packets)
        and the transport events: ``subflow_up``, ``subflow_down``,
        ``route_change``, ``route_lost``, ``rto``, ``zwa_freeze``,
        ``zwa_resume``, ``spurious_recovery``, ``flow_complete``.
    """
    if kernel not in ("auto", "scalar", "vector"):
        raise ValueError(f"kernel must be auto, scalar or vector, not {kernel!r}")
    n_subflows = len({(fp.id, sp.id) for fp in plan.flows for seg in fp.segments for sp in seg.subflows})
    if kernel == "vector" or (
        kernel == "auto" and n_subflows >= VECTOR_MIN_SUBFLOWS and fluid_vec.supports(plan)
    ):
        return fluid_vec.run(plan, on_progress, should_stop, stop_error=RunCancelled)
    tr = plan.transport
    pkt_bits = tr.mss_bytes * 8.0
    rbuf_bits = math.inf if tr.rbuf_bytes is None else tr.rbuf_bytes * 8.0
    notify = plan.controller.notification_delay_s
    rng = random.Random(plan.seed)
    resources = plan.resources
    index = {r.id: i for i, r in enumerate(resources)}
    wire = fluid_vec.goodput_fraction(tr.mss_bytes)  # capacities and rate limits in goodput bit/s
    cap = [r.capacity_mbps * 1e6 * wire for r in resources]
    buf = [r.queue_packets * pkt_bits for r in resources]
    n_res = len(resources)
    queue = [0.0] * n_res

    interval = plan.interval_s
    n_bins = max(1, int(math.ceil(plan.duration_s / interval - 1e-9)))
    min_rtt = min(
        (
            max(1e-4, 2e-3 * sum(resources[index[r]].delay_ms for r in sp.resources))
            for fp in plan.flows
            for seg in fp.segments
            for sp in seg.subflows
        ),
        default=0.04,
    )
    # step: half the smallest round-trip time, within [1 ms, 10 ms]; slow start is integrated
    # exactly (doubling per RTT), congestion avoidance is linear in time, so the step only
    # bounds how fast queues and loss reactions are resolved
    per_bin = max(1, int(math.ceil(interval / min(0.01, max(0.001, min_rtt / 2)))))
    dt = interval / per_bin
    n_steps = int(round(plan.duration_s / dt))

    conns = [_Conn(fp) for fp in plan.flows]
    cc = tr.congestion_control
    events: list[dict] = []

    def emit(t: float, kind: str, conn: _Conn, sub_id: str | None = None, **extra) -> None:
        ev = {"t_s": round(t, 6), "kind": kind, "node": conn.plan.src, "flow": conn.plan.id}
        if sub_id is not None:
            ev["subflow"] = sub_id
        ev.update(extra)
        events.append(ev)

    def stall(sub: _Sub, t: float) -> None:
        """In-flight data is lost with the path; wait for the retransmission timer."""
        if sub.phase == "open":
            sub.saved_cwnd, sub.saved_ssthresh = sub.cwnd, sub.ssthresh
            sub.ssthresh = max(sub.cwnd / 2.0, 2.0)
        sub.phase = "stalled"
        sub.x = 0.0
        sub.next_rto_t = t + sub.rto
        sub.loss_at, sub.drops_pending = math.inf, 0  # the timer covers what was in flight

    def cut(conn: _Conn, sub: _Sub, t: float) -> None:
        """The single-path connection's path is gone or moved at ``t``."""
        scheme = conn.plan.handover
        if sub.phase in ("stalled", "frozen"):
            return
        sub.cut_t = t
        if scheme == "zwa":
            if sub.base_rtt / 2.0 >= notify:
                sub.saved_cwnd, sub.saved_ssthresh = sub.cwnd, sub.ssthresh
                sub.phase = "frozen"
                sub.x = 0.0
                emit(t + notify, "zwa_freeze", conn, sub.id)
                return
            emit(t, "zwa_too_late", conn, sub.id, one_way_delay_s=round(sub.base_rtt / 2, 6),
                 notification_delay_s=notify)
        stall(sub, t)

    def path_back(conn: _Conn, sub: _Sub, t: float) -> None:
        """A cut single-path connection has a path again at ``t`` (after re-association)."""
        scheme = conn.plan.handover
        if scheme == "zwa" and sub.phase == "frozen":
            # the controller learns the association, its window update travels to the
            # sender and the sender's data back to the station: one round trip
            sub.resume_t = t + notify + sub.base_rtt
        elif scheme == "spurious" and sub.phase == "stalled" and sub.saved_cwnd > 0:
            # the controller flushes its buffer to the station as soon as it learns the
            # association; the ACKs of the flushed segments restore the sender's window
            sub.resume_t = t + notify

    def apply_segment(conn: _Conn, t: float) -> None:
        fp = conn.plan
        seg = fp.segments[conn.seg]
        wanted = {sp.id: sp for sp in seg.subflows}
        if fp.multipath:
            for sid, sub in conn.subs.items():
                if sid not in wanted and sub.phase != "dead":
                    sub.phase = "dead"
                    sub.x = 0.0
                    emit(t, "subflow_down", conn, sid, path=sub.path)
            for sid, sp in wanted.items():
                sub = conn.subs.get(sid)
                if sub is None:
                    sub = _Sub(sp, index, resources, plan, t, n_bins)
                    conn.subs[sid] = sub
                    conn.order.append(sid)
                    emit(t, "subflow_up", conn, sid, path=sp.nodes)
                elif sub.phase == "dead" or sub.path != sp.nodes:
                    sub.set_path(sp, index, resources)
                    sub.reset(plan, t)
                    emit(t, "subflow_up", conn, sid, path=sp.nodes)
                else:
                    sub.set_path(sp, index, resources)  # same path, maybe a new rate limit
            return
        # single-path connection
        cur = conn.active
        sp = next(iter(wanted.values()), None)
        if sp is None:
            if cur is not None and cur.phase not in ("stalled", "frozen", "dead"):
                cut(conn, cur, t)
                emit(t, "route_lost", conn, cur.id, path=cur.path)
            return
        sub = conn.subs.get(sp.id)
        if cur is None:
            if sub is None:
                sub = _Sub(sp, index, resources, plan, t, n_bins)
                conn.subs[sp.id] = sub
                conn.order.append(sp.id)
                emit(t, "subflow_up", conn, sp.id, path=sp.nodes)
            conn.active = sub
            return
        if sub is cur and cur.path == sp.nodes:
            cur.set_path(sp, index, resources)
            if cur.phase in ("stalled", "frozen"):
                path_back(conn, cur, t)
            return
        old_path = cur.path
        if fp.handover == "seamless":
            if sub is None:
                sub = _Sub(sp, index, resources, plan, t, n_bins)
                conn.subs[sp.id] = sub
                conn.order.append(sp.id)
            else:
                sub.set_path(sp, index, resources)
                sub.reset(plan, t)
            sub.phase, sub.next_sample_t = "open", t  # the path was confirmed before the switch
            if cur is not sub:
                cur.phase, cur.x = "dead", 0.0
            conn.active = sub
            emit(t, "route_change", conn, sub.id, path=sp.nodes, previous_path=old_path)
            return
        was_cut = cur.phase in ("stalled", "frozen")
        if not was_cut:
            cut(conn, cur, t)
        if sub is None:
            sub = _Sub(sp, index, resources, plan, t, n_bins)
            conn.subs[sp.id] = sub
            conn.order.append(sp.id)
        if sub is not cur:
            sub.take_state(cur)
            cur.phase, cur.x = "dead", 0.0
        sub.set_path(sp, index, resources)
        conn.active = sub
        if old_path != sp.nodes:
            emit(t, "route_change", conn, sub.id, path=sp.nodes, previous_path=old_path)
        if was_cut:
            path_back(conn, sub, t)
        elif sub.phase == "frozen":
            path_back(conn, sub, t)

    def fire_timers(conn: _Conn, sub: _Sub, t: float, step: int, has_path: bool) -> None:
        if sub.phase == "frozen":
            if t >= sub.resume_t:
                sub.phase = "open"
                sub.cwnd, sub.ssthresh = max(sub.saved_cwnd, 1.0), sub.saved_ssthresh
                sub.next_sample_t = t
                sub.resume_t = math.inf
                emit(t, "zwa_resume", conn, sub.id, idle_s=round(t - sub.cut_t, 6))
            return
        if t >= sub.resume_t:  # spurious-timeout recovery
            sub.phase = "open"
            sub.cwnd, sub.ssthresh = sub.saved_cwnd, sub.saved_ssthresh
            sub.rto = max(tr.min_rto_s, sub.rto / 2.0 ** 8) if sub.srtt is None else min(
                tr.max_rto_s, max(tr.min_rto_s, sub.srtt + max(CLOCK_GRANULARITY_S, 4.0 * sub.rttvar)))
            sub.next_sample_t = t
            sub.resume_t = math.inf
            emit(t, "spurious_recovery", conn, sub.id, idle_s=round(t - sub.cut_t, 6),
                 cwnd_packets=round(sub.cwnd, 3))
            return
        if t >= sub.next_rto_t:
            sub.retransmissions += 1
            if has_path and draws.uniform(sub.timeout_key, step) < 1.0 - sub.loss_keep:
                # the retransmission is lost on the path too: back off again (RFC 6298 §5.5)
                emit(t, "rto", conn, sub.id, rto_s=round(sub.rto, 4), resumed=False)
                sub.rto = min(2.0 * sub.rto, tr.max_rto_s)
                sub.next_rto_t = t + sub.rto
                return
            if has_path and conn.plan.handover != "spurious" or (has_path and sub.saved_cwnd <= 0):
                emit(t, "rto", conn, sub.id, rto_s=round(sub.rto, 4), resumed=True,
                     idle_s=round(t - sub.cut_t, 6) if sub.cut_t < math.inf else None)
                sub.phase = "open"
                sub.cwnd = 1.0
                sub.last_reduction_t = t
                sub.next_sample_t = t
                sub.saved_cwnd = 0.0
                sub.cut_t = math.inf  # the cut is over: later (loss) timeouts report no idle period
            else:
                emit(t, "rto", conn, sub.id, rto_s=round(sub.rto, 4), resumed=False)
                sub.rto = min(2.0 * sub.rto, tr.max_rto_s)
                sub.next_rto_t = t + sub.rto

    changes = [(c.t_s, index[c.resource], c.capacity_mbps * 1e6 * wire) for c in plan.capacity_changes]
    next_change = 0
    arrivals = [0.0] * n_res
    pass_frac = [1.0] * n_res
    drop_frac = [0.0] * n_res
    progress_every = max(1, n_steps // 50)
    for step in range(n_steps):
        t = step * dt
        b = min(n_bins - 1, step // per_bin)
        if step % progress_every == 0:
            if should_stop is not None and should_stop():
                raise RunCancelled()
            if on_progress is not None:
                on_progress(step / n_steps)
        while next_change < len(changes) and changes[next_change][0] <= t + 1e-12:
            _, i, c_bps = changes[next_change]
            cap[i] = c_bps
            next_change += 1
        for i in range(n_res):
            arrivals[i] = 0.0
        for conn in conns:
            fp = conn.plan
            while conn.seg + 1 < len(fp.segments) and fp.segments[conn.seg + 1].t_start_s <= t + 1e-12:
                conn.seg += 1
                apply_segment(conn, t)
            if t < fp.start_s or t >= fp.stop_s or conn.done_t is not None:
                for sub in conn.subs.values():
                    sub.x = 0.0
                continue
            current = fp.segments[conn.seg] if conn.seg >= 0 else None
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
                    fire_timers(conn, sub, t, step, has_path)
                if sub.phase == "open":
                    qdelay = 0.0
                    for i in sub.res:
                        qdelay += queue[i] / cap[i]
                    sub.rtt = sub.base_rtt + qdelay
                    if sub.rtt > max_rtt:
                        max_rtt = sub.rtt
                    live.append(sub)
                else:
                    sub.x = 0.0
            if not live:
                continue
            if fp.multipath and len(live) > 1:
                # MPTCP: LowRTT fills the lowest-RTT subflow first. SCTP CMT sends on every path
                # whose cwnd has room (RFC 4960 §6.1 B, per destination); when the shared receive
                # window is the limit, the long-RTT paths keep their windows in flight and the
                # throttle falls on the fast path, so CMT fills the slowest path first.
                slow_first = fp.coupling == "uncoupled"
                live.sort(key=lambda s: ((-1 if slow_first else 1) * (s.srtt if s.srtt is not None else s.rtt), s.id))
            remaining = conn.demand
            if rbuf_bits < math.inf:
                remaining = min(remaining, rbuf_bits / max_rtt)
            if conn.remaining_bits < math.inf:
                remaining = min(remaining, conn.remaining_bits / dt)
            for sub in live:
                w = sub.cwnd * pkt_bits / sub.rtt
                if sub.limit < w:
                    w = sub.limit
                x = w if w < remaining else remaining
                sub.x = x
                sub.limited = x >= 0.98 * w and w < sub.limit
                remaining -= x
                # tandem queues: a hop receives what the hops before it let through (their
                # pass fractions of the previous step), so only the first bottleneck queues
                sub.arr_last = x
                for i in sub.res:
                    arrivals[i] += x
                    sub.arr_last = x
                    x *= pass_frac[i]
        # queues (fluid drop-tail)
        for i in range(n_res):
            a = arrivals[i] * dt
            q = queue[i] + a - cap[i] * dt
            if q < 0.0:
                departed = queue[i] + a
                q = 0.0
            else:
                departed = cap[i] * dt
            drop_frac[i] = 0.0
            if q > buf[i]:
                drop_frac[i] = (q - buf[i]) / a if a > 0 else 0.0
                q = buf[i]
            queue[i] = q
            pass_frac[i] = departed / a if a > 0 else 1.0
        # subflow updates
        for conn in conns:
            fp = conn.plan
            if t < fp.start_s or t >= fp.stop_s or conn.done_t is not None:
                continue
            open_subs = [s for s in conn.subs.values() if s.phase == "open"]
            if not open_subs:
                continue
            coupled = fp.multipath and fp.coupling == "lia" and len(open_subs) > 1
            olia = fp.multipath and fp.coupling == "olia" and len(open_subs) > 1
            if coupled:
                total_w = sum(s.cwnd for s in open_subs)
                denom = sum(s.cwnd / s.rtt for s in open_subs)
                alpha = total_w * max(s.cwnd / (s.rtt * s.rtt) for s in open_subs) / (denom * denom)
            else:
                total_w = alpha = 0.0
            if olia:
                epsilon = _olia_epsilon(open_subs)
                olia_rate = sum(s.cwnd / s.rtt for s in open_subs) ** 2
            cubic = cc == "cubic" and not fp.multipath
            reno = cc == "reno" and not fp.multipath
            delivered_bits = 0.0
            for sub in open_subs:
                x = sub.x
                if x <= 0:
                    continue
                # what the last hop lets through of what reached it (tandem queues)
                through = sub.loss_keep
                if sub.res:
                    through *= sub.arr_last / x * pass_frac[sub.res[-1]]
                dropped = 0.0
                for i in sub.res:
                    dropped += drop_frac[i]
                got = x * dt * through
                sub.bits[b] += got
                delivered_bits += got
                sent_pkts = x * dt / pkt_bits
                # loss events: random loss (Bernoulli per packet, counter-based draws) and queue overflow
                lost = False
                p_rand = 1.0 - sub.loss_keep
                if p_rand > 0 and draws.uniform(sub.loss_key, step) < -math.expm1(-sent_pkts * p_rand):
                    lost = True
                if dropped > 0 and draws.uniform(sub.key, step) < -math.expm1(-sent_pkts * min(1.0, dropped)):
                    lost = True
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
                    drops, sub.drops_pending, sub.loss_at = sub.drops_pending, 0, math.inf
                    if t - sub.last_reduction_t >= (sub.srtt or rtt_now):
                        sub.l_prev, sub.l_cur = sub.l_cur, 0.0
                        sub.window_losses = drops
                        w_lost = sub.cwnd
                        if cubic:
                            # RFC 9438 §4.6-4.7: multiplicative decrease by beta, fast convergence
                            w = sub.cwnd
                            sub.w_max = w * (1.0 + CUBIC_BETA) / 2.0 if w < sub.w_max else w
                            sub.cwnd = max(w * CUBIC_BETA, 2.0)
                            sub.ssthresh = sub.cwnd
                            sub.t_epoch = -1.0
                        else:
                            sub.ssthresh = max(sub.cwnd / 2.0, 2.0)
                            sub.cwnd = sub.ssthresh
                        sub.last_reduction_t = t
                        # fast recovery (SACK/PRR, RFC 6675/6937) lasts a round trip: the window
                        # does not grow until the retransmission is acknowledged
                        sub.recover_end = t + (sub.srtt or rtt_now)
                        if p_rand > 0 and draws.uniform(sub.timeout_key, step) < fluid_vec.timeout_probability(
                                p_rand, w_lost):
                            # too few duplicate ACKs come back: the retransmission timer ends the
                            # episode (Padhye et al. 1998, Eq. 24), then a loss window of 1 packet
                            sub.phase = "stalled"
                            sub.x = 0.0
                            sub.saved_cwnd = 0.0
                            sub.next_rto_t = t + sub.rto
                            continue
                    elif reno:
                        sub.window_losses += drops
                    if reno and sub.window_losses >= 2:
                        # Reno without NewReno's partial ACKs: a second loss in the same window
                        # usually ends in a retransmission timeout (Fall & Floyd 1996, §3)
                        sub.window_losses = 0
                        sub.phase = "stalled"
                        sub.x = 0.0
                        sub.saved_cwnd = 0.0
                        sub.next_rto_t = sub.last_reduction_t + sub.rto
                        continue
                elif not lost:
                    sub.l_cur += sent_pkts
                if not react and sub.limited and t >= sub.recover_end:
                    acked = sent_pkts
                    if sub.cwnd < sub.ssthresh:
                        # one doubling per round trip (acked/cwnd = dt/RTT), RFC 5681 §3.1
                        sub.cwnd = min(sub.cwnd * 2.0 ** (acked / sub.cwnd), max(sub.ssthresh, sub.cwnd))
                    elif coupled:
                        sub.cwnd += acked * min(alpha / total_w, 1.0 / sub.cwnd)
                    elif olia:
                        # OLIA per ACK: (w_r/rtt_r²)/(Σ_p w_p/rtt_p)² + ε_r/w_r
                        inc = (sub.cwnd / (rtt_now * rtt_now)) / olia_rate + epsilon[sub.id] / sub.cwnd
                        sub.cwnd = max(1.0, sub.cwnd + acked * inc)
                    elif cubic:
                        sub.cwnd = _cubic_update(sub, t, acked, rtt_now)
                    else:
                        sub.cwnd += acked / sub.cwnd
                    if sub.cwnd > MAX_CWND_PACKETS:
                        sub.cwnd = MAX_CWND_PACKETS
                if t >= sub.next_sample_t:  # one RTT sample per round trip (RFC 6298 §2)
                    r = rtt_now
                    if sub.jitter_s > 0:
                        r = max(1e-4, r + rng.uniform(-sub.jitter_s, sub.jitter_s))
                    if sub.srtt is None:
                        sub.srtt, sub.rttvar = r, r / 2.0
                    else:
                        sub.rttvar = 0.75 * sub.rttvar + 0.25 * abs(sub.srtt - r)
                        sub.srtt = 0.875 * sub.srtt + 0.125 * r
                    rto = sub.srtt + max(CLOCK_GRANULARITY_S, 4.0 * sub.rttvar)
                    sub.rto = min(tr.max_rto_s, max(tr.min_rto_s, rto))
                    sub.next_sample_t = t + r
            if conn.remaining_bits < math.inf:
                conn.remaining_bits -= delivered_bits
                if conn.remaining_bits <= 0:
                    conn.done_t = t + dt
                    for sub in conn.subs.values():
                        sub.x = 0.0
                    emit(conn.done_t, "flow_complete", conn, None,
                         completion_s=round(conn.done_t - fp.start_s, 6))
        if (step + 1) % per_bin == 0:
            for conn in conns:
                for sub in conn.subs.values():
                    sub.cwnd_samples[b] = round(sub.cwnd, 3) if sub.phase in ("open", "handshake") else 0.0

    t_s = [round(k * interval, 9) for k in range(n_bins)]
    flows: list[FlowResult] = []
    for conn in conns:
        subs: list[SubflowResult] = []
        total = [0.0] * n_bins
        for sid in conn.order:
            sub = conn.subs[sid]
            thr = [sub.bits[k] / interval / 1e6 for k in range(n_bins)]
            for k in range(n_bins):
                total[k] += thr[k]
            subs.append(
                SubflowResult(
                    id=sid,
                    path=sub.path,
                    t_s=t_s,
                    throughput_mbps=[round(v, 6) for v in thr],
                    cwnd_packets=sub.cwnd_samples,
                    retransmissions=sub.retransmissions,
                )
            )
        extra = {}
        if conn.plan.size_bytes is not None:
            extra["completion_s"] = None if conn.done_t is None else round(conn.done_t - conn.plan.start_s, 6)
        flows.append(
            FlowResult(
                id=conn.plan.id,
                src=conn.plan.src,
                dst=conn.plan.dst,
                t_s=t_s,
                throughput_mbps=[round(v, 6) for v in total],
                subflows=subs,
                **extra,
            )
        )
    if on_progress is not None:
        on_progress(1.0)
    events.sort(key=lambda e: e["t_s"])
    return EngineOutput(engine=NAME, strategy=plan.strategy, flows=flows, events=events)
