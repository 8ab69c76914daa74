"""Engine ``fluid``: the embedded flow-level simulator.

A time-stepped fluid model. Every (sub)flow has a congestion window
``cwnd`` (packets of ``mss_bytes``) and sends at ``x = cwnd·MSS/RTT`` bit/s (in slow
start ACK-clocked, below),
capped by its application demand, its controller rate limit and the
connection's receive buffer; resources (link directions, access point air)
are fluid drop-tail queues shared by all subflows crossing them.

The air hop: an access point's air (``air:<ap>``) is one resource shared by both directions
(data and ACKs of every station of the cell), run at the plan's capacity and its changes. For an
access point with a ``radio`` (and no ``rate_table``) the planner sets that capacity to the cell's
802.11 DCF capacity — each station's bulk TCP goodput from its MCS's airtime (preamble, SIFS,
DIFS/AIFS, backoff, Ack/BlockAck, A-MPDU for n/ac, the TCP ACKs' accesses; IEEE 802.11-2020
10.3, 10.12) shared by equal transmission opportunities, n/Σ(1/g_i) (Heusse et al., INFOCOM
2003) — stated as a shaper's rate (:func:`subflow.runplan.document.capacity_for_goodput_mbps`), so that the
framing conversion below gives the airtime goodput back (docs/radio.md). Otherwise the air runs
at ``wireless_bandwidth_mbps``, or at the slowest associated station's ``rate_table`` rate. The
engine itself adds no 802.11 overhead and no per-station queues: the subflows crossing the air
share it as they share any resource.

Equations (``dt`` is the step, ``q`` a queue in bits, ``C`` a capacity in bit/s,
``A`` the sum of arrival rates)::

    C_l     = rate_l · MSS/(MSS + 66)                (goodput share of a frame: IPv4, TCP,
                                                      timestamps, Ethernet; subflow.runplan.document.goodput_fraction)
    RTT_i   = 2·Σ_l d_l + Σ_l q_l / C_l + Σ_m q_m / C_m
                                                     (propagation + queueing of the data on the path's
                                                      resources l + queueing of its ACKs on the reverse
                                                      resources m: the opposite direction of each wired
                                                      hop, behind the data sent that way, FIFO; an
                                                      access point's air counts once, on the path;
                                                      subflow_engines.fluid.queues)
    q_l'    = clip(q_l + (A_l − C_l)·dt, 0, B_l)    (B_l = queue_packets·MSS·8; per subflow and
                                                      hop, FIFO: subflow_engines.fluid.queues)
    delayed ACKs      one ACK per 2 segments (RFC 5681 §4.2; common.DELAYED_ACK_SEGMENTS); the
                      sender counts the segments an ACK covers (Linux, RFC 3465), so growth
                      per RTT is as below; out-of-order segments are acknowledged at once
    slow start        ACK-clocked (RFC 5681 §3.1): the segments sent in a step are acknowledged one
                      RTT later (behind the backlog queued before them), spread over their spacing at
                      the path's narrowest hop; each ACK grows cwnd by the segments it covers
                      (delivered: dropped and lost ones never) and frees those it covers, and the
                      sender sends what cwnd − in flight allows at once, at most at the first hop's
                      rate (TCP small queues). So a round sends twice what the last one delivered, in
                      bursts at twice the bottleneck's rate, and a queue below the BDP overflows at
                      a window of about twice its size, as unpaced Linux's does (Lakshman & Madhow,
                      IEEE/ACM ToN 1997, §III; docs/validation, grid item 9); the reaction halves the
                      window the ACKs had grown, which lags the data by one RTT. From the first
                      reduction on the sender is fluid (x = cwnd·MSS/RTT)
    congestion avoid. cwnd += acked / cwnd           (Reno/NewReno, RFC 5681 §3.1, RFC 6582)
                      CUBIC (RFC 9438): W_cubic(t) = C·(t − K)³ + W_max, K = ∛((W_max − cwnd)/C),
                      one segment per cnt = ⌊⌊cwnd⌋/(target − ⌊cwnd⌋)⌋ ≥ 2 acknowledged up to the
                      integer target (bictcp_update), Reno-friendly W_est with α = 3(1−β)/(1+β)
                      throughout (§4.2–4.5; Linux's tcp_cubic.c keeps α, without RFC 9438's switch
                      to 1 at cwnd_prior); loss: cwnd = β·cwnd, β = 0.7,
                      fast convergence (§4.6–4.7); after an RTO K = 0 (§4.8); in Linux's arithmetic
                      (tcp_cubic.c): the integer target W_max − ⌊C·(K − t)³⌋, the window following
                      W_est 16 ms late (bictcp_update recomputes at most every HZ/32 = 32 ms), the
                      reduction on ⌊cwnd⌋; scalar._cubic_update, scalar.cubic_reduction
    MPTCP (LIA)       cwnd_i += acked·min(α/W, 1/cwnd_i),
                      α = W·max_j(cwnd_j/RTT_j²) / (Σ_j cwnd_j/RTT_j)²   (RFC 6356 §3)
    whole segments    a reduction rounds down to whole segments as Linux's integer snd_cwnd does
                      (tcp_reno_ssthresh: max(cwnd >> 1, 2); CUBIC's bictcp_recalc_ssthresh:
                      max(cwnd·717/1024, 2)): half a segment less on average after a loss, which
                      matters where loss keeps the window at 4–10 segments (docs/validation).
                      The window between losses stays real-valued (its fraction is Linux's growth
                      credit snd_cwnd_cnt/cwnd, tcp_cong_avoid_ai; sending ⌊cwnd⌋ would be closer
                      still and is not modelled)
    loss event        detected one RTT after the drop (duplicate ACKs, RFC 5681 §3.2), then
                      ssthresh = max(⌊cwnd/2⌋, 2); cwnd = ssthresh, at most once per RTT
                      (NewReno); a second loss in the same window ends in an RTO for Reno
    fast recovery     one RTT without window growth after the reduction (SACK/PRR recovery,
                      RFC 6675, RFC 6937; NewReno partial ACKs, RFC 6582)
    timeout           a random-loss episode at window w ends in an RTO with probability
                      Q = q·(1 − q^w)/(w·(1 − q)), q = 1 − (1−p_data)(1−p_ack): no segment after
                      the lost one and no tail loss probe gets a SACK back (SACK + RACK + TLP,
                      RFC 8985, as Linux recovers; common.rack_tlp_timeout_probability; Padhye
                      et al.'s Reno Q̂, common.timeout_probability, times out 25–40 % too often
                      against the kernel at 1–5 % loss, docs/validation); each retransmission after an
                      RTO fails if it or its ACK is lost (1 − (1−p_data)(1−p_ack), the ACK
                      crossing the reverse directions), doubling the RTO again (RFC 6298 §5.5)
    RTO               RFC 6298 §2 estimators: SRTT, RTTVAR (α=1/8, β=1/4); Linux's form
                      RTO = SRTT + max(G, 4·RTTVAR, min_rto_s) (tcp_set_rto), or with
                      transport.rto_form "rfc6298" max(min_rto_s, SRTT + max(G, 4·RTTVAR))
                      (§2.3–2.4), at most max_rto_s (common.retransmission_timeout), doubled
                      per expiry (§5.5)
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
saturated link unevenly. Draws (random loss, overflow, timeout decisions) are
counter-based (:mod:`subflow_engines.draws`), identical in both kernels.

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

Multipath connections schedule their demand as their stacks do. MPTCP: Linux's
scheduler sends on the subflow whose queued bytes would leave soonest at its
pacing rate (the smallest linger time, net/mptcp/protocol.c
``mptcp_subflow_get_send``), which in the fluid limit gives each subflow
x_i = w_i·min(1, L·g_i/RTT_i) with one level L for the connection
(common.linger_fill): an idle subflow is used first, the short-RTT subflows
fill their windows, the rest share what is left. SCTP CMT fills its slowest
path first (common.fills_slowest_first). Removing a subflow leaves the others
running. Coupling ``lia`` applies RFC 6356; ``uncoupled`` runs one
NewReno per path (CMT's per-destination congestion control).

Jitter (``Link.jitter_ms``): each hop delays a packet by ± a uniform jitter but keeps packet
order, as a radio link's FIFO and the linux engine's delay line do; so a packet never leaves
before the one ahead of it, and packets closer together than the jitter see more than the
mean delay (common.fifo_jitter_delay_s: E[max_k(U_k − k·spacing)], up to +jitter per hop for
back-to-back packets; data spaced by the hop's rate, ACKs by one per two segments). Each RTT
sample also varies uniformly by ± the path's jitter, feeding SRTT, RTTVAR and the RTO
(RFC 6298). Since order is kept, jitter causes no reordering and no spurious fast
retransmits (netem's jitter without a rate reorders; neither a link's FIFO nor the delay
line does). Plans with jitter run on the scalar kernel.

The network (:mod:`.queues`): each resource is a FIFO drop-tail queue; each subflow keeps its
own backlog at every hop of its path, so a hop sends on, per subflow, its share of the backlog
first and then of the step's arrivals, never more than the subflow put in nor more than the
hop's capacity; resources are served in forwarding order (each after those that feed it), so a
subflow's bits cross its whole path in the step they are sent (where paths feed each other in a
cycle, one hop of the cycle passes its bits on a step later). A full queue drops more of the
arrivals that come in bursts faster than it serves (a sender's window at its access link's
rate) than of those an upstream hop as slow has spread out (:func:`.queues.burst_weight`:
drop-tail's bias against bursts, with a weight read off the kernel's multi-bottleneck mesh).
Bits are conserved per subflow and per hop. Every output sample is checked against the physical invariants of
:mod:`.invariants` (finite, non-negative, within path and link capacities, delivered ≤ sent,
cwnd bounds); a run that breaks one raises :class:`subflow.errors.EngineInvariantViolated`.

Deterministic for a given ``seed``. Simplifications: ACKs wait in the reverse directions'
queues (every RTT above, so cwnd growth, the rate x = cwnd·MSS/RTT, slow start's ACK clock and
the RTO all see it) and are lost at their random loss rates, but take no capacity there: a 66-byte ACK frame per two
segments (RFC 1122 §4.2.3.2, RFC 5681 §4.2 delayed ACKs), about 2 % of the data's rate, is not
subtracted from the reverse direction's data, nor does a burst of ACKs queued behind data
leave it compressed (ACK compression: the sender's ACK clock stays at the data's rate); an access
point's air, shared by both directions, delays the ACKs of the data that crossed it no
further. A hop's per-subflow service is proportional within the backlog and within the arrivals
(fluid FIFO).

Queues by class (:mod:`.classes`): with the plan's ``queueing`` discipline ``strict_priority`` or ``drr``, every
resource keeps one drop-tail queue per class (a flow's class from its DSCP), and each step first shares the
capacity among the classes (strict priority: what higher classes leave; drr: ∝ weight among the backlogged
classes, water-filling), then serves each class's queue with the FIFO equations above at its share; a class's
queueing delay is its queue over its rate plus the residual of the packet in transmission (non-preemptive). With
``wifi`` ``edca`` an 802.11 hop serves the four access categories in strict priority over its airtime, each frame
paying its category's AIFS + mean backoff (IEEE 802.11-2020 Table 9-155). ``fifo`` and ``dcf`` take the code path
above unchanged. Plans with queues by class run on the scalar kernel.

Constant-rate sources (``udp`` cbr and ``voice`` flows, :mod:`.cbr`) send at their rate on the first path of
their segment, with no window or timer, into the same queues; their one-way delay (propagation + queueing +
one packet's transmission per hop), RFC 3550 jitter, loss and, for voice, E-model R and MOS are reported per
interval. Plans with them run on the scalar kernel.

Modules: :mod:`.common` (framing overhead, timeout probability, time grid, set-up, events,
step loop and output shared by both kernels), :mod:`.cbr` (constant-rate sources), :mod:`.classes` (queues by
class, scalar kernel), :mod:`.queues` (the network's
queues, shared by both kernels), :mod:`.invariants` (the checks), :mod:`.scalar` (every feature, Python objects),
:mod:`.vectorised` (arrays, per-step dynamics numba-compiled and run many steps per call; the
default for every plan it supports).
"""

from __future__ import annotations

from collections.abc import Callable

from subflow.errors import RunCancelled
from subflow.results.document import EngineOutput
from subflow.runplan.capabilities import LINK_BUDGET_HONOURED, PLANNED, Honours, Refuses, flow_kind_fields
from subflow.runplan.document import RunPlan

from subflow_engines.fluid import vectorised
from subflow_engines.fluid.common import (
    CLOCK_GRANULARITY_S,
    FRAME_OVERHEAD_BYTES,
    MAX_CWND_PACKETS,
    NAME,
    FluidSimulator,
    goodput_fraction,
    timeout_probability,
)
from subflow_engines.fluid.scalar import ScalarSimulator
from subflow_engines.fluid.vectorised import VectorSimulator

__all__ = [
    "CLOCK_GRANULARITY_S", "FIELDS", "FRAME_OVERHEAD_BYTES", "MAX_CWND_PACKETS", "NAME", "VECTOR_MIN_SUBFLOWS",
    "FluidSimulator", "RunCancelled", "ScalarSimulator", "VectorSimulator", "goodput_fraction", "run",
    "simulator", "timeout_probability",
]

#: the scenario fields this engine honours (:mod:`subflow.runplan.capabilities`); the rest come resolved in the plan
FIELDS = {
    **PLANNED,
    **LINK_BUDGET_HONOURED,
    "Scenario.capture": Refuses("a fluid model has no packets to record: packet capture needs the linux engine"),
    "Link.bandwidth_mbps": Honours("capacity of each direction (fluid drop-tail queue); a link with a budget "
                                   "follows its MODCOD instead (the plan's capacity changes)"),
    "Link.delay_ms": Honours("propagation delay of each direction, in every RTT; a SATCOM link's changes with the "
                             "slant range (the plan's delay_changes: base RTTs updated at their times)"),
    "Link.loss": Honours("random loss of data packets in each direction crossed (seeded)"),
    "Link.jitter_ms": Honours(
        "delay variation, uniform ±jitter_ms per hop with packet order kept (a FIFO, as the linux "
        "engine's delay line keeps it): packets closer together than the jitter queue behind the "
        "latest draw, raising the mean RTT; RTT samples vary, feeding SRTT, RTTVAR and the RTO "
        "(RFC 6298); no reordering (plans with jitter run on the scalar kernel)"),
    "Link.queue_packets": Honours("drop-tail queue of each direction, packets of MSS (with queues by class, each "
                                  "class's unless it sets its own); the ACKs of flows sending the other way wait "
                                  "behind its data (in their RTT)"),
    "AccessPointNode.wireless_bandwidth_mbps": Honours("air capacity shared by both directions"),
    "AccessPointNode.wireless_delay_ms": Honours("air propagation delay"),
    "AccessPointNode.wireless_loss": Honours("random loss of packets crossing the air"),
    "AccessPointNode.queue_packets": Honours("drop-tail queue of the air, packets"),
    "AccessPointNode.rate_table": Honours("air capacity changes with the stations' distance (plan)"),
    "RateStep.distance_m": Honours("air capacity changes with the stations' distance (plan)"),
    "RateStep.bandwidth_mbps": Honours("air capacity changes with the stations' distance (plan)"),
    "Flow.rate_mbps": Honours("application demand caps the sending rate"),
    "Flow.size_bytes": Honours("finite transfer; completion_s reported"),
    # udp on/off sources, silence suppression (on/off voice) and video stay refused
    **flow_kind_fields(),
    "Flow.dscp": Honours("the flow's class in queues by class (data and a TCP flow's ACKs): its queueing "
                         "class (traffic_class_of) on links, its access category (RFC 8325) on 802.11 hops under "
                         "edca; under fifo/dcf every class shares the one FIFO"),
    "Scenario.queueing": Honours("container of the fields below (subflow_engines.fluid.classes; plans with "
                                 "queues by class run on the scalar kernel)"),
    "QueueingSettings.discipline": Honours(
        "fifo: one drop-tail queue per resource; strict_priority: one per class, a class served with "
        "what higher classes leave; drr: backlogged classes share the capacity in proportion to weight "
        "(water-filling, the fluid limit of deficit round robin); each class's delay is its queue over its "
        "rate plus the residual of the packet in service (non-preemptive); on every link direction and on "
        "802.11 hops under dcf"),
    "QueueingSettings.classes": Honours("the classes of strict_priority and drr (default: RFC 8325's four)"),
    "QueueingSettings.wifi": Honours(
        "edca: on 802.11 hops the four access categories in strict priority over the airtime, each frame's "
        "access from its category's AIFS + mean backoff (IEEE 802.11-2020 Table 9-155 defaults); no TXOP "
        "bursts, internal collisions or priority between stations' queues; dcf: one queue (or the discipline's)"),
    "TrafficClass.name": Honours("names the class"),
    "TrafficClass.dscp": Honours("the DiffServ classes it queues"),
    "TrafficClass.priority": Honours("strict_priority: serving order, 0 first"),
    "TrafficClass.weight": Honours("drr: share of the capacity while backlogged"),
    "TrafficClass.queue_packets": Honours("the class's own drop-tail buffer, packets of MSS"),
    "Flow.kind": Honours("tcp: the strategy's transport; udp and voice: a constant-rate, non-responsive source "
                         "sharing the queues, with per-interval delay_ms, jitter_ms, loss (voice: E-model R and "
                         "MOS; subflow_engines.fluid.cbr); a video flow is refused by its video settings"),
    "Flow.udp": Honours("container of the fields below"),
    "UdpSource.packet_bytes": Honours("packet size: one packet's transmission per hop in the delay, packet count "
                                      "of the jitter"),
    "Flow.voice": Honours("container of the fields below"),
    "VoiceSource.codec": Honours("rate on the wire (subflow.results.voice.wire_rate_kbps) and the E-model's Ie and "
                                 "Bpl (ITU-T G.113; none for opus: R and MOS null)"),
    "VoiceSource.packet_interval_ms": Honours("packet size and rate on the wire, packetisation delay in R"),
    "VoiceSource.plc": Honours("Bpl of G.711 with or without PLC (ITU-T G.113 Table I.3)"),
    "VoiceSource.opus_bitrate_kbps": Honours("rate on the wire of an opus flow"),
    "TransportSettings.mss_bytes": Honours("packet size of windows, queues and losses"),
    "TransportSettings.initial_cwnd_packets": Honours("initial window (RFC 6928)"),
    "TransportSettings.min_rto_s": Honours("RTO floor (RFC 6298 §2.4)"),
    "TransportSettings.max_rto_s": Honours("RTO ceiling of the backoff (RFC 6298 §5.5)"),
    "TransportSettings.initial_rto_s": Honours("RTO before the first RTT sample (RFC 6298 §2.1)"),
    "TransportSettings.rto_form": Honours("where min_rto_s floors the RTO: Linux's variance term or RFC 6298's sum"),
    "TransportSettings.congestion_control": Honours("reno, newreno (RFC 5681/6582), cubic (RFC 9438)"),
    "TransportSettings.rbuf_bytes": Honours("shared receive buffer: head-of-line blocking across subflows"),
    "ControllerSettings.notification_delay_s": Honours("delay before the SDN controller acts (ZWA, spurious)"),
}

#: plans with at least this many subflows run on the vectorised kernel when it supports them
#: (its per-step dynamics are compiled, so it is the faster one at every size)
VECTOR_MIN_SUBFLOWS = 1


def simulator(plan: RunPlan, kernel: str = "auto") -> FluidSimulator:
    """The simulator of ``plan`` on ``kernel`` (see :func:`run`), ready to :meth:`~FluidSimulator.run`.

    Raises
    ------
    ValueError
        If ``kernel`` is unknown, or is ``vector`` and the plan uses a feature the vectorised
        kernel lacks (:func:`subflow_engines.fluid.vectorised.supports`).
    """
    if kernel not in ("auto", "scalar", "vector"):
        raise ValueError(f"kernel must be auto, scalar or vector, not {kernel!r}")
    n_subflows = len({(fp.id, sp.id) for fp in plan.flows for seg in fp.segments for sp in seg.subflows})
    if kernel == "vector" or (
        kernel == "auto" and n_subflows >= VECTOR_MIN_SUBFLOWS and vectorised.supports(plan)
    ):
        return VectorSimulator(plan)
    return ScalarSimulator(plan)


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
        From :func:`subflow.runplan.resolve.resolve_plan`.
    on_progress : callable, optional
        Called with the simulated fraction in [0, 1] about every 2 % of the run.
    should_stop : callable, optional
        Polled with the progress; returning True raises :class:`subflow.errors.RunCancelled`.
    kernel : {"auto", "scalar", "vector"}
        ``auto``: the vectorised, compiled kernel (:mod:`.vectorised`) for plans
        with at least :data:`VECTOR_MIN_SUBFLOWS` subflows that it supports,
        else the scalar kernel (:mod:`.scalar`; every feature: CUBIC, Reno, OLIA, ZWA,
        spurious-timeout and seamless handovers). ``vector`` raises ValueError
        if the plan uses a feature the vectorised kernel lacks.

    Returns
    -------
    EngineOutput
        Timelines at ``plan.interval_s`` (goodput in Mbit/s, cwnd in packets)
        and the transport events: ``subflow_up``, ``subflow_down``,
        ``route_change``, ``route_lost``, ``rto``, ``zwa_freeze``,
        ``zwa_resume``, ``spurious_recovery``, ``flow_complete``.

    Raises
    ------
    RunCancelled
        When ``should_stop`` returned True.
    ValueError
        See :func:`simulator`.
    """
    return simulator(plan, kernel).run(on_progress, should_stop)
