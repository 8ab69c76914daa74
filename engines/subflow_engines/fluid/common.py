"""What the fluid engine's two kernels share: constants, the framing overhead
(:func:`~subflow.runplan.document.goodput_fraction`, defined with the plan so that the planner and the engine
share one conversion between capacity and goodput), the timeout probability of a loss episode
(:func:`timeout_probability`), the time grid, set-up of the plan's resources, events,
progress and cancellation, and the output document.

:class:`FluidSimulator` is the base of :class:`~subflow_engines.fluid.scalar.ScalarSimulator`
and :class:`~subflow_engines.fluid.vectorised.VectorSimulator`; each kernel keeps its own
state (Python objects or arrays) and implements :meth:`FluidSimulator.step`,
:meth:`FluidSimulator.sample_cwnd` and :meth:`FluidSimulator.flow_records`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from subflow.compiled import njit
from subflow.errors import RunCancelled
from subflow.results.document import EngineOutput, FlowResult, SubflowResult
from subflow.runplan.document import FRAME_OVERHEAD_BYTES, FlowPlan, RunPlan, SubflowPath, goodput_fraction  # noqa: F401
from subflow.runplan.strategies import STRATEGIES

from subflow_engines.fluid.invariants import SampleLedger
from subflow_engines.fluid.queues import Incidence, downstream_backlog, row_state

NAME = "fluid"
CLOCK_GRANULARITY_S = 0.001  # G of RFC 6298
MAX_CWND_PACKETS = 1e5
#: slow start's ACK clock: at most this many steps' ACK intervals in flight per subflow; beyond
#: (a round trip longer than this many steps) the newest interval takes the step's segments too
ACK_RING_ENTRIES = 256
#: slow start: a window that lets out less than this (segments; rounding residue of cwnd − in
#: flight) sends nothing, rather than a sliver whose pass fraction at a queue overflows
MIN_ALLOW_SEGMENTS = 1e-6
#: how many times in a run the simulator reports progress and polls ``should_stop`` (about)
PROGRESS_REPORTS = 50


@njit(cache=True, nogil=True)
def timeout_probability(p, w):
    """Probability that a loss episode in a window of ``w`` packets ends in a retransmission
    timeout rather than fast recovery, for packet loss probability ``p``: Padhye et al.,
    "Modeling TCP throughput", SIGCOMM 1998, Eq. 24,
    Q̂(p, w) = min(1, (1 − (1−p)³)(1 + (1−p)³(1 − (1−p)^(w−3))) / (1 − (1−p)^w)); 1 for w ≤ 3
    (too few packets after the lost one to return three duplicate ACKs).

    Compiled (numba) and called by both kernels, by the vectorised one from its compiled
    ``_step``: numba's cache does not notice edits here, so after changing it delete
    ``engines/subflow_engines/fluid/__pycache__/*.nbi`` (or touch ``vectorised.py``)."""
    if p <= 0.0:
        return 0.0
    if w <= 3.0:
        return 1.0
    s = 1.0 - p
    den = 1.0 - s ** w
    if den <= 0.0:
        return 1.0
    q = (1.0 - s ** 3) * (1.0 + s ** 3 * (1.0 - s ** (w - 3.0))) / den
    return q if q < 1.0 else 1.0


#: segments a receiver acknowledges per ACK: RFC 5681 §4.2 (delayed ACKs: at least every second
#: full-sized segment; out-of-order segments and those filling a gap at once). Linux counts the
#: segments an ACK covers when it grows cwnd (tcp_cong_avoid_ai, RFC 3465's byte counting), so the
#: window still grows by one segment per RTT; what halves is the number of ACKs (their spacing on a
#: jittery reverse path, :func:`fifo_jitter_delay_s`)
DELAYED_ACK_SEGMENTS = 2

#: E[max_k (U_k − k·r)] for U_k uniform in [−1, 1] and packets r apart (in units of the jitter):
#: the mean extra delay, in jitters, of a FIFO line that holds each packet d ± jitter but never
#: releases one before the packet ahead of it; computed from the exact distribution
#: P(max ≤ y) = Π_k min(1, (y + k·r + 1)/2) (checked by simulation in tests/unit/engines/test_fluid_tcp_model.py)
FIFO_JITTER_R = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8, 1.0,
                 1.25, 1.5, 1.75, 2.0)
FIFO_JITTER_G = (1.0, 0.9448, 0.9224, 0.8788, 0.8311, 0.766, 0.6453, 0.5228, 0.4385, 0.374, 0.2792, 0.2122,
                 0.1627, 0.1097, 0.0733, 0.0417, 0.0176, 0.0052, 0.0007, 0.0)


def fifo_jitter_delay_s(jitter_s: float, spacing_s: float) -> float:
    """Mean extra one-way delay, s, of a hop whose delay varies uniformly by ±``jitter_s`` but keeps
    packet order (a radio link's FIFO, or the linux engine's delay line, whose release times never
    decrease), for packets ``spacing_s`` apart: jitter·g(spacing/jitter) with g from
    :data:`FIFO_JITTER_G` (linear interpolation). Widely spaced packets (≥ 2 jitters apart) see the
    mean delay; back-to-back packets queue behind the latest draw and see about d + jitter. 0 when
    ``jitter_s`` ≤ 0."""
    if jitter_s <= 0.0:
        return 0.0
    r = spacing_s / jitter_s
    xs, gs = FIFO_JITTER_R, FIFO_JITTER_G
    if r >= xs[-1]:
        return 0.0
    k = 1
    while xs[k] < r:
        k += 1
    w = (r - xs[k - 1]) / (xs[k] - xs[k - 1])
    return jitter_s * (gs[k - 1] + w * (gs[k] - gs[k - 1]))


@njit(cache=True, nogil=True)
def retransmission_timeout(srtt, rttvar, min_rto, max_rto, granularity, linux_form):
    """Retransmission timeout after an RTT sample, s.

    SRTT and RTTVAR follow RFC 6298 §2.2–2.3 (α = 1/8, β = 1/4). ``linux_form`` True: the form
    Linux computes (``tcp_set_rto``/``tcp_rtt_estimator``), RTO = SRTT + max(G, 4·RTTVAR, RTO_min):
    Linux bounds the variance term, not the sum, by the floor (``rttvar_us = max(mdev_max_us,
    rto_min)``), so the RTO is never below SRTT + 200 ms with the default floor (Padhye et al.
    1998's T0 ≈ RTT + 200 ms for Linux). False: RFC 6298 §2.3–2.4's form,
    RTO = max(RTO_min, SRTT + max(G, 4·RTTVAR)), as ns-3's ``TcpSocketBase`` computes it. Either
    way at most ``max_rto``. All in s.

    Compiled (numba; called from the vectorised kernel's compiled ``_step``)."""
    v = 4.0 * rttvar
    if v < granularity:
        v = granularity
    if linux_form:
        if v < min_rto:
            v = min_rto
        v += srtt
    else:
        v += srtt
        if v < min_rto:
            v = min_rto
    return v if v < max_rto else max_rto


#: Linux's pacing gains over cwnd/SRTT, slow start and congestion avoidance (sysctl
#: ``tcp_pacing_ss_ratio`` 200 %, ``tcp_pacing_ca_ratio`` 120 %; net/ipv4/tcp_input.c ``tcp_update_pacing_rate``)
PACING_GAIN_SS, PACING_GAIN_CA = 2.0, 1.2


@njit(cache=True, nogil=True)
def linger_fill(w, linger, budget, x):
    """Split a multipath connection's sending budget over its subflows as Linux's MPTCP scheduler does.

    Linux (net/mptcp/protocol.c ``mptcp_subflow_get_send``) sends each chunk on the subflow whose
    queued bytes would leave soonest at its pacing rate, the smallest *linger time*
    ``sk_wmem_queued / pacing_rate``. An idle subflow lingers 0 and is picked first, so an
    application-limited connection keeps every subflow in use. In the fluid limit the chosen
    subflows' linger times are equal: a subflow sending ``x_i`` of its window rate ``w_i`` holds
    ``x_i·RTT_i`` bits and paces ``g_i·w_i`` (``g_i``: :data:`PACING_GAIN_SS` or
    :data:`PACING_GAIN_CA`), so it lingers ``(x_i/w_i)·ℓ_i`` with ``ℓ_i = RTT_i/g_i``. Hence

        x_i = w_i·min(1, L/ℓ_i),   Σ_i x_i = budget

    (every subflow at its window when Σ w_i ≤ budget): the level ``L`` is found by walking the
    subflows by increasing ``ℓ_i``, those below it sending their whole window.

    Parameters
    ----------
    w : float64 (n,)
        Window rate of each subflow (bit/s, ≥ 0).
    linger : float64 (n,)
        ``ℓ_i = RTT_i/g_i`` of each subflow (s, > 0).
    budget : float
        What the connection may send (bit/s, ≥ 0; its demand or receive window).
    x : float64 (n,)
        Out: each subflow's sending rate (bit/s); Σ x = min(budget, Σ w), x_i ≤ w_i.

    Compiled (numba); called from both kernels."""
    n = w.shape[0]
    total = 0.0
    slope = 0.0
    for i in range(n):
        total += w[i]
        slope += w[i] / linger[i]
    if total <= budget:
        for i in range(n):
            x[i] = w[i]
        return
    if budget <= 0.0 or slope <= 0.0:
        for i in range(n):
            x[i] = 0.0
        return
    order = np.argsort(linger)
    full = 0.0
    for j in range(n):
        i = order[j]
        if full + linger[i] * slope >= budget:
            break
        full += w[i]
        slope -= w[i] / linger[i]
    level = (budget - full) / slope if slope > 0.0 else 0.0
    for i in range(n):
        x[i] = w[i] if linger[i] <= level else w[i] * level / linger[i]


def reverse_resource_id(rid: str) -> str:
    """The resource that carries the ACKs of data crossing ``rid``: the opposite direction of a
    wired link (``"l:a>b"`` → ``"l:b>a"``, :mod:`subflow.runplan.document`); an access point's air is
    shared by both directions (itself)."""
    link, sep, ends = rid.rpartition(":")
    if not sep or ">" not in ends or rid.startswith("air:"):
        return rid
    a, _, b = ends.partition(">")
    return f"{link}:{b}>{a}"


def reverse_index(resource_ids: Sequence[str], index: dict[str, int]) -> np.ndarray:
    """Per resource, the index of the resource its data's ACKs queue in (:mod:`.queues`): the
    opposite direction of a wired link when the plan has it, else -1; -1 for an access point's
    air (shared by both directions, its queue counts once, on the data path). int64."""
    rev = np.full(len(resource_ids), -1, dtype=np.int64)
    for i, rid in enumerate(resource_ids):
        other = reverse_resource_id(rid)
        if other != rid and other in index:
            rev[i] = index[other]
    return rev


def ack_keep(resource_ids: Sequence[str], index: dict[str, int], resources) -> float:
    """Probability that an ACK of a segment sent along ``resource_ids`` (the data path's
    resources) survives the reverse path: Π (1 − loss) of the reverse resources (a
    ``Link.loss`` applies to each direction; a missing reverse direction counts the forward
    one's loss)."""
    keep = 1.0
    for rid in resource_ids:
        rev = index.get(reverse_resource_id(rid), index[rid])
        keep *= 1.0 - resources[rev].loss
    return keep


@njit(cache=True, nogil=True)
def rack_tlp_timeout_probability(q, w):
    """Probability that a loss episode in a flight of ``w`` packets ends in a retransmission
    timeout for a stack with SACK, RACK and tail loss probes (Linux; RFC 8985), where ``q`` is
    the probability that a segment yields no SACK (it or its ACK is lost).

    RACK marks a segment lost as soon as one segment sent after it is SACKed (RFC 8985 §6.2), so
    no three duplicate ACKs are needed; if none of the segments after the lost one gets through
    (a tail loss), the tail loss probe sent after PTO ≈ 2·SRTT elicits the SACK (§7). So the
    timer ends the episode only when the lost segment is followed by no delivered segment *and*
    the probe fails too: with the lost segment equally likely at each of the ``w`` positions,
    Q = q · (1/w)·Σ_{m=0}^{w−1} q^m = q·(1 − q^w)/(w·(1 − q)). (Padhye et al.'s Q̂,
    :func:`timeout_probability`, models Reno's three duplicate ACKs: 1 for w ≤ 3, ~3/w above;
    kernel measurements at 5 % loss are 40 % above Padhye's throughput, docs/validation.)

    Compiled (numba) and called by both kernels; after editing, delete
    ``engines/subflow_engines/fluid/__pycache__/*.nbi``."""
    if q <= 0.0:
        return 0.0
    if w < 1.0:
        w = 1.0
    if q >= 1.0:
        return 1.0
    return q * (1.0 - q ** w) / (w * (1.0 - q))


@njit(cache=True, nogil=True)
def rack_tail_probability(q, w):
    """Probability that no segment sent after a lost one in a flight of ``w`` packets is SACKed
    (a tail loss), ``q`` as in :func:`rack_tlp_timeout_probability`: (1 − q^w)/(w·(1 − q)) (the
    lost segment equally likely at each position; ≥ the timeout probability, which also needs
    the probe to fail). Such a loss waits for the tail loss probe: the sender, its window full,
    idles until PTO = 2·SRTT (+200 ms with one segment in flight, Linux's
    tcp_schedule_loss_probe; RFC 8985 §7.2) and the probe's SACK starts the recovery.
    Compiled (numba)."""
    if q <= 0.0:
        return 1.0 / max(w, 1.0)
    if q >= 1.0:
        return 1.0
    w = max(w, 1.0)
    return (1.0 - q ** w) / (w * (1.0 - q))


@njit(cache=True, nogil=True)
def tail_probe_pause_s(srtt, w, rto):
    """How long the sender idles after detecting a loss the way a tail loss probe does, s:
    PTO = 2·SRTT, plus 200 ms when at most one segment is in flight (the receiver may delay its
    ACK, RFC 8985 §7.2), plus 2 ms (Linux's TCP_TIMEOUT_MIN), at most the RTO."""
    pto = 2.0 * srtt + (0.2 if w < 2.0 else 0.002)
    return pto if pto < rto else rto


def rate_limit_bps(sp: SubflowPath, wire: float) -> float:
    """A subflow path's controller rate limit as goodput, bit/s (``wire``: :func:`goodput_fraction`);
    infinite when it has none."""
    return math.inf if sp.rate_limit_mbps is None else sp.rate_limit_mbps * 1e6 * wire



def fills_slowest_first(plan: RunPlan, fp: FlowPlan) -> bool:
    """Whether multipath flow ``fp`` fills its slowest path first when its demand or the shared
    receive window limits it: SCTP CMT does (RFC 4960 §6.1 B: every destination whose cwnd has
    room sends, and a full receive window throttles the fast path; msctp-cmt-handover §III).
    MPTCP does not: Linux's scheduler spreads the budget by linger time, coupled or not
    (:func:`linger_fill`; RFC 8684 leaves the scheduler open)."""
    if not fp.multipath or fp.coupling != "uncoupled":
        return False
    strategy = STRATEGIES.get(plan.strategy)
    return strategy is None or strategy.family == "sctp"

@dataclass(frozen=True)
class Clock:
    """The time grid of a run.

    ``n_bins`` output samples of ``interval_s`` each, ``per_bin`` steps of ``dt_s`` per sample,
    ``n_steps`` steps in all. The step is half the smallest round-trip time, within [1 ms,
    10 ms]: slow start is integrated exactly (doubling per RTT) and congestion avoidance is
    linear in time, so the step only bounds how fast queues and loss reactions are resolved.
    """

    interval_s: float
    n_bins: int
    per_bin: int
    dt_s: float
    n_steps: int

    @classmethod
    def for_plan(cls, plan: RunPlan, path_rtt_s: Callable[[SubflowPath], float]) -> "Clock":
        """The grid of ``plan``; ``path_rtt_s`` gives a subflow path's base RTT in seconds
        (0.04 s when the plan has no path)."""
        interval = plan.interval_s
        n_bins = max(1, int(math.ceil(plan.duration_s / interval - 1e-9)))
        min_rtt = min((path_rtt_s(sp) for sp in subflow_paths(plan)), default=0.04)
        per_bin = max(1, int(math.ceil(interval / min(0.01, max(0.001, min_rtt / 2)))))
        dt = interval / per_bin
        return cls(interval_s=interval, n_bins=n_bins, per_bin=per_bin, dt_s=dt,
                   n_steps=int(round(plan.duration_s / dt)))

    def bin_times_s(self) -> list[float]:
        """Start of every output sample, s."""
        return [round(k * self.interval_s, 9) for k in range(self.n_bins)]


def first_step_at(t_s: float, dt_s: float) -> int:
    """The first step number ``k`` with ``t_s ≤ k·dt_s + 1e-12`` (the test by which the step loop
    applies an event at ``t_s`` in step ``k``), ≥ 0."""
    k = max(0, int(math.ceil((t_s - 1e-12) / dt_s)))
    while k > 0 and t_s <= (k - 1) * dt_s + 1e-12:
        k -= 1
    while not t_s <= k * dt_s + 1e-12:
        k += 1
    return k


def subflow_paths(plan: RunPlan) -> Iterator[SubflowPath]:
    """Every subflow path of every segment of every flow of ``plan``, in plan order."""
    for fp in plan.flows:
        for seg in fp.segments:
            yield from seg.subflows


@dataclass
class SubflowRecord:
    """One subflow's timelines as a kernel hands them to the output: goodput in Mbit/s per
    sample (unrounded), cwnd in packets per sample, retransmissions counted."""

    id: str
    path: list[str]
    throughput_mbps: list[float]
    cwnd_packets: list[float]
    retransmissions: int


class FluidSimulator:
    """Base of both kernels: the plan's set-up, subflow slots, the network (:mod:`.queues`), the
    step loop, the per-sample invariant checks (:mod:`.invariants`), events and the output.

    Parameters
    ----------
    plan : RunPlan
        From :func:`subflow.runplan.resolve.resolve_plan`.

    A subclass sets :attr:`clock` (:meth:`Clock.for_plan` with its own base-RTT formula), then
    calls :meth:`init_network`, rebuilds the network's rows when paths change
    (:meth:`rebuild_network`), and implements :meth:`step` (or :meth:`advance`, several steps at
    once), :meth:`sample_cwnd`, :meth:`sample_state` and :meth:`flow_records`.
    """

    clock: Clock

    def __init__(self, plan: RunPlan):
        self.plan = plan
        self.transport = tr = plan.transport
        self.pkt_bits = tr.mss_bytes * 8.0
        self.rbuf_bits = math.inf if tr.rbuf_bytes is None else tr.rbuf_bytes * 8.0
        #: the plan's resources, copied: a delay change (:meth:`apply_delay_changes`) updates ``delay_ms`` here
        self.resources = [r.model_copy() for r in plan.resources]
        self.index = {r.id: i for i, r in enumerate(plan.resources)}
        self.n_res = len(plan.resources)
        #: goodput share of a link's rate (framing overhead): capacities and rate limits are goodput bit/s
        self.wire = wire = goodput_fraction(tr.mss_bytes)
        #: every resource's goodput capacity at the start, bit/s
        self.capacity_bps = [r.capacity_mbps * 1e6 * wire for r in plan.resources]
        #: capacity changes (t_s, resource index, goodput capacity in bit/s), in time order
        self.changes = [(c.t_s, self.index[c.resource], c.capacity_mbps * 1e6 * wire)
                        for c in plan.capacity_changes]
        self.next_change = 0
        #: delay changes (t_s, resource index, one-way delay ms), in time order (SATCOM slant range)
        self.delay_changes = sorted(((d.t_s, self.index[d.resource], d.delay_ms) for d in plan.delay_changes),
                                    key=lambda c: c[0])
        self.next_delay = 0
        self.events: list[dict] = []
        self._set_up_slots()
        self.sample_bin: int | None = None  # the output sample being filled (run)
        #: the per-sample invariant checks (:mod:`subflow_engines.fluid.invariants`)
        self.ledger = SampleLedger(self.n_slots, self.n_res, self.cwnd_clamp_packets)

    @property
    def cwnd_clamp_packets(self) -> float:
        """The largest congestion window, packets: twice the receive window (``rbuf_bytes``/MSS),
        at most :data:`MAX_CWND_PACKETS`.

        Linux grows snd_cwnd in slow start only while it is below twice the packets in flight,
        and in congestion avoidance only while the window limits the sender
        (``tcp_is_cwnd_limited``, net/ipv4/tcp_cong.c; RFC 7661 §4.1); the packets in flight never
        exceed the receive window, so a receive-window-limited connection's cwnd stops at twice it.
        """
        tr = self.transport
        if tr.rbuf_bytes is None:
            return MAX_CWND_PACKETS
        return max(2.0, min(MAX_CWND_PACKETS, 2.0 * tr.rbuf_bytes / tr.mss_bytes))

    def _set_up_slots(self) -> None:
        """One *slot* per (connection, subflow id) of the plan, grouped by connection in plan order:
        both kernels number subflows alike, so the network (:mod:`.queues`) serves them in the same
        order and their figures agree to the last bit."""
        plan = self.plan
        self.slot_of: dict[tuple[int, str], int] = {}
        slot_conn: list[int] = []
        self.slot_id: list[str] = []
        for c, fp in enumerate(plan.flows):
            for seg in fp.segments:
                for sp in seg.subflows:
                    key = (c, sp.id)
                    if key not in self.slot_of:
                        self.slot_of[key] = len(self.slot_id)
                        slot_conn.append(c)
                        self.slot_id.append(sp.id)
        self.n_slots = len(self.slot_id)
        self.conn_of = np.array(slot_conn, dtype=np.int64) if self.n_slots else np.zeros(0, dtype=np.int64)
        #: working arrays of the network step (:func:`subflow_engines.fluid.queues.serve`), per resource
        #: and per slot
        self.arrived_bits = np.zeros(self.n_res)
        self.drop_frac_res = np.zeros(self.n_res)
        self.inject = np.zeros(self.n_slots)
        self.got_bits = np.zeros(self.n_slots)
        self.dropped_slot = np.zeros(self.n_slots)
        #: per slot: queueing delay of its path (s), capacity of its first and narrowest hop (bit/s)
        self.qdelay_s = np.zeros(self.n_slots)
        self.queued_bits = np.zeros(self.n_slots)  # bits each slot holds in the network's queues
        self.first_cap_bps = np.full(self.n_slots, np.inf)
        self.min_cap_bps = np.full(self.n_slots, np.inf)
        self.min_cap_dt_bits = np.zeros(self.n_slots)  # narrowest capacity·dt, 0 without a path
        self.res_delay_s = np.zeros(self.n_res)  # queue/capacity of each resource, s

    def slot_name(self, slot: int) -> tuple[str, str]:
        """(flow id, subflow id) of ``slot``."""
        return self.plan.flows[int(self.conn_of[slot])].id, self.slot_id[slot]

    def begin_sample(self, b: int) -> None:
        """At the start of output sample ``b``: zero the ledger and record the backlog each
        subflow holds in its queues (the tolerance of the capacity checks)."""
        self.sample_bin = b
        self.ledger.start_sample()
        net = self.net
        downstream_backlog(net.row_ptr, net.row_slot, net.inc_res, net.pos, net.backlog, net.pending,
                           self.ledger.slot_tol, self.ledger.link_tol)

    def check_sample(self, b: int) -> None:
        """At the end of output sample ``b``: the invariants (:mod:`.invariants`), from the kernel's
        :meth:`sample_state`.

        Raises
        ------
        EngineInvariantViolated
            When one is broken.
        """
        self.attribute_link_bits()
        bits, cwnd, is_open = self.sample_state(b)
        path_buf = np.zeros(self.n_slots)
        if self.ledger.capacity_changed:
            net = self.net
            per_inc = self.buf_bits[net.inc_res] + self.cap_dt_bits[net.inc_res]
            sums = np.add.reduceat(per_inc, net.row_ptr[:-1]) if per_inc.size else np.zeros(0)
            path_buf[net.row_slot] = sums[: net.row_slot.size]
        self.ledger.check(round(b * self.clock.interval_s, 9), bits, cwnd, is_open, path_buf,
                          self.slot_name, lambda u: self.resources[u].id)

    def attribute_link_bits(self) -> None:
        """Add the bits each subflow delivered in the current sample since the last call to every
        resource of its current path (the ledger's link loads): at the sample's end and before
        the paths change, so each bit counts on the path it crossed."""
        net, led = self.net, self.ledger
        bits = self.sample_state(self.sample_bin)[0]
        delta = bits - led.attributed_bits
        led.attributed_bits[:] = bits
        if net.inc_res.size:
            led.link_bits += np.bincount(net.inc_res, weights=np.repeat(delta[net.row_slot], np.diff(net.row_ptr)),
                                         minlength=self.n_res)

    def sample_state(self, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per slot: bits delivered in sample ``b``, cwnd at its end (packets), and whether the
        slot is open (arrays of length ``n_slots``)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ events
    def emit(self, t: float, kind: str, fp: FlowPlan, subflow_id: str | None = None, **extra) -> None:
        """Record a transport event of flow ``fp`` at ``t`` seconds (rounded to the µs)."""
        ev = {"t_s": round(t, 6), "kind": kind, "node": fp.src, "flow": fp.id}
        if subflow_id is not None:
            ev["subflow"] = subflow_id
        ev.update(extra)
        self.events.append(ev)

    # ------------------------------------------------------------------ the run
    def run(
        self,
        on_progress: Callable[[float], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> EngineOutput:
        """Run every step, then assemble the output (see :func:`subflow_engines.fluid.run`).

        Raises
        ------
        RunCancelled
            When ``should_stop`` returns True (polled about every 2 % of the run).
        """
        clock = self.clock
        dt, n_steps, n_bins, per_bin = clock.dt_s, clock.n_steps, clock.n_bins, clock.per_bin
        progress_every = max(1, n_steps // PROGRESS_REPORTS)
        last_bin = n_bins - 1
        step = 0
        while step < n_steps:
            t = step * dt
            b = min(last_bin, step // per_bin)
            if step % per_bin == 0 and b == step // per_bin:
                self.begin_sample(b)
            if step % progress_every == 0:
                if should_stop is not None and should_stop():
                    raise RunCancelled()
                if on_progress is not None:
                    on_progress(step / n_steps)
            if self.next_change < len(self.changes):
                self.apply_capacity_changes(t)
            if self.next_delay < len(self.delay_changes):
                self.apply_delay_changes(t)
            # steps up to the next sample boundary, progress report or capacity/delay change
            end = min(n_steps, (step // per_bin + 1) * per_bin, (step // progress_every + 1) * progress_every)
            if self.next_change < len(self.changes):
                end = min(end, first_step_at(self.changes[self.next_change][0], dt))
            if self.next_delay < len(self.delay_changes):
                end = min(end, first_step_at(self.delay_changes[self.next_delay][0], dt))
            step += self.advance(step, t, b, max(1, end - step))
            last = step - 1
            boundary = (last + 1) % per_bin == 0
            if boundary:
                self.sample_cwnd(b)
            if (boundary and b < last_bin) or last == n_steps - 1:
                self.check_sample(b)
        output = self.output()
        if on_progress is not None:
            on_progress(1.0)
        return output

    def advance(self, step: int, t: float, b: int, n: int) -> int:
        """Run up to ``n`` steps from step ``step`` (at ``t``; all in output sample ``b``, with no
        capacity or delay change among them); return how many ran (at least 1). The scalar
        kernel runs one (:meth:`step`); the vectorised one runs as many as it can in one compiled
        call, up to its next discrete event."""
        self.step(step, t, b)
        return 1

    def apply_capacity_changes(self, t: float) -> None:
        """Apply the plan's capacity changes due at ``t``."""
        changes = self.changes
        while self.next_change < len(changes) and changes[self.next_change][0] <= t + 1e-12:
            _, i, c_bps = changes[self.next_change]
            self.set_capacity(i, c_bps)
            self.ledger.capacity_changed = True
            self.next_change += 1

    def set_capacity(self, i: int, capacity_bps: float) -> None:
        """Resource ``i`` now serves ``capacity_bps`` (goodput bit/s)."""
        self.cap_bps[i] = capacity_bps
        self.cap_dt_bits[i] = capacity_bps * self.clock.dt_s
        self.refresh_rows()

    # ------------------------------------------------------------------ the network
    def init_network(self) -> None:
        """The resources as queues (:mod:`.queues`), once the kernel has set :attr:`clock`:
        goodput capacity (bit/s and bits per step), buffer and queue (bits), and an empty
        incidence (:meth:`rebuild_network` fills it)."""
        self.cap_bps = np.array(self.capacity_bps, dtype=float)
        self.cap_dt_bits = self.cap_bps * self.clock.dt_s
        self.buf_bits = np.array([r.queue_packets * self.pkt_bits for r in self.resources], dtype=float)
        self.queue_bits = np.zeros(self.n_res)
        self.queue_t = np.zeros(self.n_res)  # when a queue no path uses was last brought up to date, s
        #: the resource carrying the ACKs of data crossing each resource (the opposite direction
        #: of a wired link; -1 for an access point's air or a link without one): :func:`reverse_index`
        self.reverse_res = reverse_index([r.id for r in self.resources], self.index)
        self.net = Incidence([], self.n_res, reverse=self.reverse_res)

    def rebuild_network(self, t: float, rows: Sequence[tuple[int, Sequence[int]]]) -> None:
        """The paths changed at ``t``: ``rows`` are (slot, resource indices in path order) of every
        subflow that has a path now. A subflow keeps its bits in the queues its new path shares
        with the old one; queues that no path uses any more keep draining at their capacity."""
        if self.sample_bin is not None:
            self.attribute_link_bits()
        old_used = self.net.used
        self.queue_t[old_used] = t
        net = Incidence(rows, self.n_res, previous=self.net, reverse=self.reverse_res)
        back = np.setdiff1d(net.used, old_used, assume_unique=True)
        if back.size:
            self.queue_bits[back] = np.maximum(
                0.0, self.queue_bits[back] - self.cap_bps[back] * (t - self.queue_t[back]))
        self.net = net
        self.refresh_rows()

    def refresh_rows(self) -> None:
        """Each slot's queueing delay, first and narrowest hop capacity from the rows
        (:func:`~subflow_engines.fluid.queues.row_state`)."""
        net = self.net
        np.divide(self.queue_bits, self.cap_bps, out=self.res_delay_s)
        row_state(net.row_arrays(), self.res_delay_s, self.qdelay_s, self.first_cap_bps, self.min_cap_bps,
                  self.cap_bps, net.burst)
        self.queued_bits[:] = 0.0
        if net.inc_res.size:
            held = net.backlog[net.pos] + net.pending[net.pos]
            self.queued_bits[net.row_slot] = np.add.reduceat(held, net.row_ptr[:-1])
        finite = np.isfinite(self.min_cap_bps)
        self.min_cap_dt_bits[:] = np.where(finite, np.where(finite, self.min_cap_bps, 0.0) * self.clock.dt_s, 0.0)

    def apply_delay_changes(self, t: float) -> None:
        """Apply the plan's delay changes due at ``t``: the resources' ``delay_ms``, then the base RTT of
        every subflow crossing one (:meth:`set_delays`)."""
        changes, touched = self.delay_changes, set()
        while self.next_delay < len(changes) and changes[self.next_delay][0] <= t + 1e-12:
            _, i, delay_ms = changes[self.next_delay]
            self.resources[i].delay_ms = delay_ms
            touched.add(i)
            self.next_delay += 1
        if touched:
            self.set_delays(touched)

    def set_delays(self, changed: set[int]) -> None:
        """The resources ``changed`` have a new ``delay_ms``: refresh the base RTT of the subflows crossing them."""
        raise NotImplementedError

    def step(self, step: int, t: float, b: int) -> None:
        """Advance every flow by one step from ``t`` (step number ``step``, output sample ``b``)."""
        raise NotImplementedError

    def sample_cwnd(self, b: int) -> None:
        """At the end of output sample ``b``: record every subflow's cwnd."""
        raise NotImplementedError

    # ------------------------------------------------------------------ output
    def flow_records(self, c: int) -> tuple[list[SubflowRecord], float | None]:
        """Flow ``c``'s subflows in order of first appearance, and when it completed (s, or None)."""
        raise NotImplementedError

    def flow_quality(self, c: int) -> dict | None:
        """Flow ``c``'s per-interval ``delay_ms``, ``delay_p95_ms``, ``jitter_ms``, ``loss`` (and ``r_factor``, ``mos``
        for voice, ``frames_sent``, ``frames_lost``, ``frames_late`` for video) when it is a non-responsive source
        (:mod:`.cbr`); None for a TCP connection."""
        return None

    def output(self) -> EngineOutput:
        """The engine output: per flow, goodput (sum of its subflows) and per-subflow timelines at
        ``plan.interval_s``, rounded to 1e-6 Mbit/s; ``completion_s`` for finite transfers; the
        events in time order."""
        n_bins = self.clock.n_bins
        t_s = self.clock.bin_times_s()
        flows: list[FlowResult] = []
        for c, fp in enumerate(self.plan.flows):
            records, done_t = self.flow_records(c)
            subs: list[SubflowResult] = []
            total = [0.0] * n_bins
            for rec in records:
                thr = rec.throughput_mbps
                for k in range(n_bins):
                    total[k] += thr[k]
                subs.append(SubflowResult(id=rec.id, path=rec.path, t_s=t_s,
                                          throughput_mbps=[round(v, 6) for v in thr],
                                          cwnd_packets=rec.cwnd_packets, retransmissions=rec.retransmissions))
            extra = {}
            if fp.size_bytes is not None:
                extra["completion_s"] = None if done_t is None else round(done_t - fp.start_s, 6)
            extra.update(self.flow_quality(c) or {})
            flows.append(FlowResult(id=fp.id, src=fp.src, dst=fp.dst, t_s=t_s,
                                    throughput_mbps=[round(v, 6) for v in total], subflows=subs, **extra))
        self.events.sort(key=lambda e: e["t_s"])
        return EngineOutput(engine=NAME, strategy=self.plan.strategy, flows=flows, events=self.events)


def throughput_mbps(bits: Sequence[float], interval_s: float) -> list[float]:
    """Bits delivered per sample -> Mbit/s per sample."""
    return [v / interval_s / 1e6 for v in bits]
