"""Engine ``linux``: the scenario on the kernel's own TCP/MPTCP in network namespaces.

Needs root. See :mod:`.engine` for a run's steps, :mod:`.topology` for the mapping
of a scenario onto namespaces, veths, bridges and shaping, :mod:`.routing` for the
addresses/policy routes/MPTCP endpoints, :mod:`.delayline` for the NFQUEUE delay
line used where netem is missing, :mod:`.iperf3` for the iperf3 JSON parser, :mod:`.udpflow` and
:mod:`.cbrstats` for udp, voice and video flows (timestamped packets, their delay, jitter and loss, video
frames),
:mod:`.schedule` for the packets of on/off and video sources, :mod:`.sockets` for ``ss`` sampling and :mod:`.cleanup` for ownership and teardown.
"""

from __future__ import annotations

from typing import Any

from subflow.runplan.capabilities import (
    Describes, LINK_BUDGET_FIELDS, PLANNED, RADIO_FIELDS, Honours, Refuses, flow_kind_fields, queueing_fields, link_budget_fields,
)

from .capabilities import HostCapabilities, detect
from .cleanup import cleanup_stale, leftovers
from .commands import EngineCannotRun
from .engine import NAME, congestion_control, run, validate

DESCRIPTION = (
    "Real Linux TCP (per-socket congestion control) and MPTCP (in-kernel path manager, "
    "mptcpize) in network namespaces, veth pairs and Linux bridges; HTB shaping; delay/loss by "
    "netem or, where netem is missing, an NFQUEUE delay line and the iptables statistic match; "
    "iperf3 traffic; udp (cbr, on/off), voice (with or without silence suppression) and video flows by a "
    "timestamped UDP sender and receiver on the fluid engine's schedule; DiffServ class queues as HTB "
    "classes; runs in real time (root only)."
)


#: the scenario fields this engine honours (:mod:`subflow.runplan.capabilities`); the host may still lack a
#: mechanism (netem, the statistic match): :func:`validate` then refuses naming the field
FIELDS = {
    **PLANNED,
    "Scenario.capture": Honours("tcpdump -s CAPTURE_SNAPLEN_BYTES on one end of each listed link (both directions; "
                                "pcapng, nanosecond timestamps), stopped at MAX_CAPTURE_BYTES worth of packets "
                                "(.capture)"),
    "Link.bandwidth_mbps": Honours("HTB rate of each direction (Ethernet frames counted); the plan's capacity "
                                   "changes at their times (tc class change)"),
    "Link.delay_ms": Honours("netem delay, or the NFQUEUE delay line on the receiving side (each packet held from "
                             "the kernel's receive timestamp: the path's RTT within max(0.5 ms, 3 %)); a SATCOM "
                             "link's changes at the plan's boundaries (tc qdisc change, or a delay-line command)"),
    "Link.loss": Honours("netem loss, or the iptables statistic match on the receiving side; each direction"),
    "Link.jitter_ms": Honours("netem jitter (reorders), or the delay line: uniform ±jitter_ms, order kept"),
    "Link.queue_packets": Honours("pfifo/netem limit under the HTB class"),
    "AccessPointNode.wireless_bandwidth_mbps": Honours("HTB on the AP bridge (downlink) and per station (uplink)"),
    "AccessPointNode.wireless_delay_ms": Honours("as Link.delay_ms, on the air hop"),
    "AccessPointNode.wireless_loss": Honours("as Link.loss, on the air hop"),
    "AccessPointNode.queue_packets": Honours("queue of the air hop"),
    "AccessPointNode.rate_table": Refuses("distance-dependent air rates are not supported by the linux engine yet"),
    "RateStep.distance_m": Refuses("distance-dependent air rates are not supported by the linux engine yet"),
    "RateStep.bandwidth_mbps": Refuses("distance-dependent air rates are not supported by the linux engine yet"),
    "Flow.rate_mbps": Honours("iperf3 -b, and held to the rate at every instant by an HTB class on an IFB device "
                              "at the source, all subflows together (subflow.runplan.ratecap)"),
    "Flow.size_bytes": Honours("iperf3 -n"),
    # every flow kind runs (declared below); EDCA stays refused
    **flow_kind_fields(),
    **queueing_fields(),
    "Flow.kind": Honours("tcp: iperf3; udp, voice and video: the timestamped UDP sender and receiver of "
                         "subflow_engines.linux.udpflow in the flow's namespaces (packets paced at the flow's rate, "
                         "or on the schedule of on/off periods and video frames the engine computes with the fluid "
                         "engine's functions, subflow_engines.sources and subflow_engines.linux.schedule; each "
                         "packet stamped with its sequence number and send time on CLOCK_MONOTONIC, a video packet "
                         "also with its frame's number and packet count), per-interval delay_ms, delay_p95_ms, "
                         "jitter_ms (RFC 3550), loss (sequence numbers never received), voice R and MOS and video "
                         "frames sent, lost and late measured from the packets (subflow_engines.linux.cbrstats)"),
    "Flow.dscp": Honours("IP_TOS of the udp/voice sender's socket (code point << 2); selects the flow's class "
                         "queue under queueing strict_priority or drr (u32 match on the DS field); tcp flows: "
                         "iperf3 -S on the data direction (their ACKs stay BE)"),
    "Flow.udp": Honours("container of the fields below"),
    "UdpSource.packet_bytes": Honours("UDP payload of each datagram (IP packet = + 28 bytes); refused above the "
                                      "interfaces' MTU"),
    "UdpSource.pattern": Honours("cbr: one packet every packet bits / rate; on_off: packets at the rate while on, "
                                 "none while off, packet k when the flow's cumulative on time reaches k x that gap "
                                 "(ns-3 OnOffApplication's residual bits; subflow_engines.linux.schedule)"),
    "UdpSource.periods": Honours("the on and off period lengths by inversion of the same counter-based draws as "
                                 "the fluid engine (seed, flow id; subflow_engines.sources.OnOff): the same periods"),
    "UdpSource.mean_on_s": Honours("mean on period of the drawn periods (subflow_engines.sources)"),
    "UdpSource.mean_off_s": Honours("mean off period of the drawn periods (subflow_engines.sources)"),
    "UdpSource.pareto_shape": Honours("shape of the Pareto periods (subflow_engines.sources.period_length_s)"),
    "Flow.voice": Honours("container of the fields below"),
    "VoiceSource.codec": Honours("payload per packet and rate (subflow.results.voice.wire_rate_kbps: payload + 12 "
                                 "bytes RTP-sized header inside UDP) and the E-model's Ie and Bpl (ITU-T G.113; "
                                 "none for opus: R and MOS null)"),
    "VoiceSource.packet_interval_ms": Honours("the sender's packet interval; packetisation delay in R"),
    "VoiceSource.silence_suppression": Honours(
        "packets only during talkspurts: ITU-T P.59 exponential talkspurts (1.004 s) and pauses (1.587 s) drawn as "
        "the fluid engine draws them (subflow_engines.sources), packets at the packet interval of the cumulative "
        "talk time; the E-model's G.729A + VAD values, R and MOS null where G.113 tabulates none (G.711 with "
        "silence suppression), as the fluid engine"),
    "VoiceSource.plc": Honours("Bpl of G.711 with or without PLC (ITU-T G.113 Table I.3)"),
    "VoiceSource.playout_delay_ms": Honours("the fixed playout buffer in R's mouth-to-ear delay; packets arriving "
                                            "more than it above their interval's mean delay count as lost "
                                            "(subflow_engines.linux.cbrstats, as the fluid engine)"),
    "VoiceSource.opus_bitrate_kbps": Honours("payload per packet of an opus flow"),
    "Flow.video": Honours("container of the fields below"),
    "VideoSource.bitrate_mbps": Honours("IP bits of the frames: P = R·G / (f·(5 + G − 1)), I = 5·P "
                                        "(subflow_engines.sources.video_frame_bits), each frame a burst of "
                                        "ceil(bits / 12000) IP packets of up to 1500 bytes sent back to back"),
    "VideoSource.frame_rate_fps": Honours("frame n sent at start_s + n / frame_rate_fps on the run clock"),
    "VideoSource.gop_frames": Honours("an I frame every gop_frames frames, P frames between"),
    "VideoSource.playout_delay_ms": Honours("a frame whose packets all arrived, the last later than the frame's "
                                            "send time + this, counts in frames_late (of the interval it was "
                                            "sent in); one with a packet missing in frames_lost"),
    "Scenario.queueing": Honours("container of the fields below"),
    "QueueingSettings.discipline": Honours(
        "fifo: one pfifo under each direction's HTB class; strict_priority and drr: one HTB child class "
        "per traffic class on every shaped direction (wired links, access point downlinks and station uplinks), "
        "each with a pfifo of its queue_packets, packets sent to it by a u32 filter on the DS field "
        "(subflow_engines.linux.network.class_queues: strict priority by HTB prio, DRR by rates and quanta in "
        "proportion to the weights); the host's kernel has no prio or drr qdisc"),
    "QueueingSettings.classes": Honours("the HTB child classes and their DS-field filters"),
    "TrafficClass.name": Describes("names the class in the run's linux.queueing record"),
    "TrafficClass.dscp": Honours("u32 filters matching the DS field (code point << 2, mask 0xfc)"),
    "TrafficClass.priority": Honours("HTB prio of the class under strict_priority"),
    "TrafficClass.weight": Honours("drr: HTB rate = capacity x weight / sum of weights, quantum in proportion"),
    "TrafficClass.queue_packets": Honours("pfifo limit of the class's queue"),
    "QueueingSettings.wifi": Refuses("the linux engine has no 802.11 MAC: its Wi-Fi hops are HTB-shaped links "
                                     "(their class queues follow queueing.discipline), EDCA's contention by access "
                                     "category is not modelled"),
    "TransportSettings.mss_bytes": Honours("interface MTU = MSS + 52"),
    "TransportSettings.initial_cwnd_packets": Honours("route initcwnd"),
    "TransportSettings.min_rto_s": Honours("route rto_min"),
    "TransportSettings.rto_form": Refuses("the kernel computes its RTO in Linux's form (tcp_set_rto)"),
    "TransportSettings.max_rto_s": Honours("Linux fixes TCP_RTO_MAX at 120 s; a note in the run's output says so"),
    "TransportSettings.initial_rto_s": Honours("Linux fixes TCP_TIMEOUT_INIT at 1 s; a note in the run's output says so"),
    "TransportSettings.congestion_control": Honours(
        "iperf3 -C: reno/newreno -> reno, cubic -> cubic; the namespaces default to reno, not the host's default "
        "(e.g. BBR, whose pacing a socket keeps after the switch)"),
    "TransportSettings.rbuf_bytes": Honours("iperf3 -w (SO_SNDBUF/SO_RCVBUF)"),
    "ControllerSettings.notification_delay_s": Honours(
        "only the SDN handovers (zwa, spurious) use it, and this engine refuses their strategies"),
    **{f: Refuses("radio-derived (distance-dependent) air rates are not supported by the linux engine yet")
       for f in RADIO_FIELDS},
    "AccessPointNode.uplink": Refuses("wireless backhaul between access points is not built by the linux engine yet"),
    **link_budget_fields(Honours, "SATCOM link budget (subflow.space.link_budget) as the plan's capacity_changes: "
                                  "at each change the HTB classes of the resource's direction are changed in place "
                                  "(tc class change, rate = ceil = the new capacity, Ethernet frames counted); an "
                                  "outage (no MODCOD closes) is the plan's link_down/link_up: the link's veths go "
                                  "down and up"),
    **{f: Honours("shared beam (subflow.runplan.beams: equal airtime or demand assigned): each member link's time "
                  "share of the beam's carriers, from the flows' planned start/stop and rates and each member's MODCOD "
                  "over time, is the plan's capacity_changes of its resources, applied like a budget's (tc class "
                  "change at their times); the shares cannot follow run-time demand (a flow ending before its "
                  "stop_s, or sending below its rate, keeps its time): a note in the run's output says so")
       for f in LINK_BUDGET_FIELDS if f.startswith(("SatcomSettings.beams", "SatcomBeam."))},
    "RadioSettings.adhoc_links": Refuses("ad-hoc station links are not built by the linux engine yet"),
}


def supports(caps: HostCapabilities | None = None) -> dict[str, Any]:
    """The ``supports`` entry of ``GET /capabilities`` for this host."""
    caps = caps or detect()
    params = ["bandwidth_mbps", "queue_packets"]
    if caps.delay_mechanism:
        params += ["delay_ms", "jitter_ms"]
    if caps.loss_mechanism:
        params.append("loss")
    return {
        "link_parameters": params,
        "delay": caps.delay_mechanism,
        "loss": caps.loss_mechanism,
        "jitter": (
            "netem jitter" if caps.delay_mechanism == "netem"
            else "delay line: uniform ±jitter_ms, order preserved" if caps.delay_mechanism else None
        ),
        "shaping": "HTB per direction (air: downlink shared on the AP bridge, uplink per station)",
        "transport": {
            "tcp_congestion_control": "per socket (iperf3 -C) from transport.congestion_control: reno/newreno -> "
            "reno, cubic -> cubic (SUBFLOW_LINUX_CC overrides); the namespaces default to reno, not the host's "
            "default (a socket started under BBR stays paced)",
            "mptcp_coupling": "uncoupled per-subflow congestion control (no LIA/OLIA upstream); reported in the run's notes",
            "rate_limits": "per-subflow HTB classes with u32 filters on the first hop (FDM), changed in place",
            "available_congestion_control": caps.congestion_control,
            "mptcp": caps.mptcp_enabled and caps.mptcp_endpoints and caps.mptcpize,
            "fixed_by_linux": ["max_rto_s (120 s)", "initial_rto_s (1 s)"],
            "applied": ["mss_bytes (interface MTU)", "initial_cwnd_packets (route initcwnd)", "min_rto_s (route rto_min)"],
        },
        "mobility": "every model of the scenario schema (the domain library's association timeline drives link up/down)",
        "link_events": "wired links set down/up at their scheduled times (and SATCOM links: visibility, link "
                       "budget outages)",
        "capacity_changes": "tc class change of the resource's HTB classes at each change (SATCOM link budgets, "
                            "shared beams' planned time shares)",
        "delay_changes": ("netem change or a delay-line command at each change (SATCOM and inter-satellite ranges)"
                          if caps.delay_mechanism else None),
        "handover": ["bare"],
        "unsupported": ["nodes[].rate_table", "handover zwa/spurious/seamless", "SCTP strategies"],
        "traffic": f"iperf3 {caps.iperf3_version}".strip() + "; udp (cbr, on/off), voice (silence suppression) "
                   "and video: timestamped UDP sender and receiver on the fluid engine's periods and frames "
                   "(one-way delay, RFC 3550 jitter, loss, video frames sent/lost/late per interval)",
        "queueing": "fifo; strict_priority and drr as HTB classes with u32 DS-field filters (no 802.11 EDCA)",
        "flow_rate": ("rate_mbps: iperf3 -b, and the flow's packets held to its rate at every instant by an HTB "
                      "class on an IFB device at its source (all subflows together)" if caps.rate_cap else None),
        "real_time": True,
        "host": caps.as_dict(),
    }


def supported_strategies() -> tuple[str, ...]:
    """Strategies this engine runs: TCP/MPTCP families with ``bare`` handovers."""
    from subflow.runplan.strategies import STRATEGIES

    out = []
    for name, st in STRATEGIES.items():
        family = getattr(st, "family", "mptcp" if st.multipath else "tcp")
        if family in ("tcp", "mptcp") and getattr(st, "handover", "bare") == "bare":
            out.append(name)
    return tuple(sorted(out))


def startup() -> HostCapabilities:
    """Agent start-up: detect what the host offers and remove stale leftovers of dead runs."""
    caps = detect()
    if caps.root and caps.ip:
        try:
            cleanup_stale()
        except Exception as exc:  # never block the agent's start-up
            caps.problems.append(f"stale cleanup failed: {exc}")
    return caps


__all__ = [
    "NAME", "DESCRIPTION", "FIELDS", "run", "supported_strategies", "validate", "detect", "supports", "startup", "cleanup_stale",
    "leftovers", "EngineCannotRun", "HostCapabilities", "congestion_control",
]
