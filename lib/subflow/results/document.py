"""The result document (version 1): one set of pydantic models, and the summary statistics.

The result document is what REST (``ComparisonPublic.result``), the CLI's
``--json`` and the UI share; its TypeScript types are generated from these
models through the backend's OpenAPI document. Shape::

    ResultDocument {version: 1, scenario: Scenario,
                    strategies: {name: StrategyResult},
                    sweep?: SweepResult, repetitions?: {name: AggregateStats}}
    StrategyResult {strategy, engine, flows: [FlowSeries], events: [Event], summary: Summary, linux?}
    FlowSeries     {id, src, dst, t_s, throughput_mbps, subflows: [SubflowSeries], completion_s, ...}
    SubflowSeries  {id, path, t_s, throughput_mbps, cwnd_packets, retransmissions, ...}
    Event          one of the event models below, told apart by ``kind``

``t_s[k]`` is the start of the k-th interval of length ``run.interval_s``;
``throughput_mbps[k]`` is the mean goodput over [t_s[k], t_s[k] + interval_s).

Compatibility: version 1 may gain fields (each new field has a default, so a
document stored before it validates); it never loses or renames one. Unknown
fields and unknown event kinds are refused, naming the field.

Engines build :class:`EngineOutput` (events may be given as plain dicts: they
are validated into the event models there, at the engine boundary).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, Union, get_args

from typing_extensions import NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, with_config

from subflow.scenario.document import Scenario

RESULT_VERSION = 1

#: Throughput below this (Mbit/s) counts as zero in ``zero_s`` (1 kbit/s).
ZERO_THRESHOLD_MBPS = 1e-3


class _Strict(BaseModel):
    """Base of every result model: unknown fields and non-finite numbers (NaN, ±infinity) are
    refused, so no result document carries ``null`` where a number is promised."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# ----------------------------------------------------------------------------- events


class _Event(_Strict):
    t_s: float = Field(ge=0, description="When it happened, seconds from the start of the run.")
    node: str = Field(description="The node it concerns: the station, the flow's source, or `controller`.")


class _RadioEvent(_Event):
    access_point: str = Field(description="The access point the station associates with or leaves.")


class HandoverStart(_RadioEvent):
    """A station's handover starts (plan, from mobility): it left its access point's range, or came into this
    one's while out of every range (docs/radio.md, "Handover timing")."""

    kind: Literal["handover_start"]


class Association(_RadioEvent):
    """The association completes (beacon-loss detection, scan and join after ``handover_start``, or the access
    point's ``association_delay_s`` override); traffic may use it."""

    kind: Literal["association"]


class Disassociation(_RadioEvent):
    """The station leaves the access point's range."""

    kind: Literal["disassociation"]


class AssociationAbandoned(_RadioEvent):
    """The station left the range before its association completed."""

    kind: Literal["association_abandoned"]


class LinkDown(_Event):
    """A scheduled ``link_events`` entry takes a wired link down (``node``: the link's ``src``)."""

    kind: Literal["link_down"]
    link: str = Field(description="Id of the link.")


class LinkUp(_Event):
    """A scheduled ``link_events`` entry brings a wired link back up (``node``: the link's ``src``)."""

    kind: Literal["link_up"]
    link: str = Field(description="Id of the link.")


class AllocationChange(_Event):
    """The SDN controller re-ran Flow Deviation and set new subflow rate limits
    (``mptcp-fdm``; Zhao et al., MILCOM 2018, §IV)."""

    kind: Literal["allocation_change"]
    moved_mbps: float | None = Field(description="Rate moved between paths since the previous allocation, "
                                                 "Mbit/s; null for the first.")
    tempered: float = Field(description="Tempering factor applied to the step towards the new allocation, in [0, 1].")
    mean_delay_s: float = Field(description="Mean packet delay of the allocation (FDM objective), seconds.")
    rates_mbps: dict[str, float] = Field(description="Rate limit per subflow id, Mbit/s.")


class _FlowEvent(_Event):
    flow: str = Field(description="Id of the flow.")


class _SubflowEvent(_FlowEvent):
    subflow: str = Field(description="Id of the subflow (``<flow>/<path name>``).")


class SubflowUp(_SubflowEvent):
    """A subflow starts on ``path``."""

    kind: Literal["subflow_up"]
    path: list[str] = Field(description="Node ids along the subflow's path.")


class SubflowDown(_SubflowEvent):
    """A subflow's path is gone; the subflow stops."""

    kind: Literal["subflow_down"]
    path: list[str] = Field(description="Node ids along the path that was lost.")


class RouteChange(_SubflowEvent):
    """A single-path connection moves to another path."""

    kind: Literal["route_change"]
    path: list[str] = Field(description="Node ids along the new path.")
    previous_path: list[str] = Field(description="Node ids along the path before the change.")


class RouteLost(_SubflowEvent):
    """A single-path connection has no path any more."""

    kind: Literal["route_lost"]
    path: list[str] = Field(description="Node ids along the path that was lost.")


class Rto(_SubflowEvent):
    """A retransmission timer expired (RFC 6298). The fluid engine gives ``rto_s``, ``resumed``
    (and ``idle_s`` when it resumed); the linux engine observes kernel backoffs
    (``backoff``, ``observed``)."""

    kind: Literal["rto"]
    rto_s: float | None = Field(default=None, description="Timer value that expired, seconds (fluid).")
    resumed: bool | None = Field(default=None, description="Whether sending resumed (a path was there) (fluid).")
    idle_s: float | None = Field(default=None, description="Seconds since the path was cut, when it resumed (fluid).")
    backoff: int | None = Field(default=None, description="Kernel's RTO backoff count (linux).")
    observed: Literal["ss"] | None = Field(default=None, description="Where the kernel engine saw it: `ss` (linux).")


class ZwaFreeze(_SubflowEvent):
    """Zero-window advertisement: the controller froze the sender before the cut reached it."""

    kind: Literal["zwa_freeze"]


class ZwaResume(_SubflowEvent):
    """Zero-window advertisement: the sender resumes with its saved window."""

    kind: Literal["zwa_resume"]
    idle_s: float = Field(description="Seconds from the cut to the resumption.")


class ZwaTooLate(_SubflowEvent):
    """Zero-window advertisement could not freeze the sender in time (one-way delay shorter
    than the controller's notification delay); the connection stalls as without it."""

    kind: Literal["zwa_too_late"]
    one_way_delay_s: float = Field(description="One-way delay of the path, seconds.")
    notification_delay_s: float = Field(description="Controller's notification delay, seconds.")


class SpuriousRecovery(_SubflowEvent):
    """Spurious-timeout recovery restored the window saved at the cut."""

    kind: Literal["spurious_recovery"]
    idle_s: float = Field(description="Seconds from the cut to the recovery.")
    cwnd_packets: float = Field(description="Restored congestion window, packets.")


class FlowComplete(_FlowEvent):
    """A finite transfer (``size_bytes``) delivered its last byte."""

    kind: Literal["flow_complete"]
    completion_s: float = Field(description="Seconds from the flow's start to its last byte.")


#: Radio events of a plan (association timeline), told apart by ``kind``.
RadioEvent = Annotated[
    Union[HandoverStart, Association, Disassociation, AssociationAbandoned], Field(discriminator="kind")
]

#: Every event of a result, told apart by ``kind``: radio and link events from the plan,
#: ``allocation_change`` from the controller, the rest from the engine.
Event = Annotated[
    Union[
        HandoverStart, Association, Disassociation, AssociationAbandoned, LinkDown, LinkUp, AllocationChange,
        SubflowUp, SubflowDown, RouteChange, RouteLost, Rto, ZwaFreeze, ZwaResume, ZwaTooLate,
        SpuriousRecovery, FlowComplete,
    ],
    Field(discriminator="kind"),
]

#: The ``kind`` of every event model, in the order of :data:`Event`.
EVENT_KINDS: tuple[str, ...] = tuple(
    get_args(m.model_fields["kind"].annotation)[0] for m in get_args(get_args(Event)[0])
)

_EVENTS = TypeAdapter(list[Event])
_RADIO_EVENTS = TypeAdapter(list[RadioEvent])


def parse_events(events: list[dict[str, Any]] | list[Any]) -> list[Any]:
    """Validate plain event dicts into :data:`Event` models (models pass through).

    Raises
    ------
    pydantic.ValidationError
        Naming the index, the kind and the field of an unknown kind, a missing or
        unexpected field, or a value of the wrong type.
    """
    return _EVENTS.validate_python(events)


def parse_radio_events(events: list[dict[str, Any]] | list[Any]) -> list[Any]:
    """As :func:`parse_events`, for the radio events of an association timeline only."""
    return _RADIO_EVENTS.validate_python(events)


def event_order(event: Any) -> tuple[float, str]:
    """Sort key of events: time, then kind."""
    return (event.t_s, event.kind)


# ----------------------------------------------------------------------------- series


class SubflowSeries(_Strict):
    """One subflow's timelines (same ``t_s`` as its flow)."""

    id: str
    path: list[str] = Field(description="Node ids along the path (the last one the subflow used).")
    t_s: list[float] = Field(description="Start of each interval, seconds.")
    throughput_mbps: list[float] = Field(description="Mean goodput per interval, Mbit/s.")
    cwnd_packets: list[float] = Field(default_factory=list, description="Congestion window at the end of "
                                      "each interval, packets (0 while the subflow is not sending).")
    retransmissions: int | None = Field(default=None, description="Segments the engine counted as retransmitted "
                                        "(losses and timer expiries); null if the engine does not count them.")
    observed_s: list[float] | None = Field(default=None, description="linux engine: [first, last] time the "
                                           "subflow's socket was seen, seconds.")


class FlowSeries(_Strict):
    """One flow's total throughput timeline and its subflows."""

    id: str
    src: str
    dst: str
    t_s: list[float] = Field(description="Start of each interval, seconds.")
    throughput_mbps: list[float] = Field(description="Mean goodput per interval over all subflows, Mbit/s.")
    subflows: list[SubflowSeries]
    completion_s: float | None = Field(default=None, description="Finite transfers: seconds from the flow's "
                                       "start to its last byte; null if not finished or not a finite transfer.")
    observed_subflows_max: int | None = Field(default=None, description="linux engine: most subflow sockets "
                                              "seen at once.")
    iperf3: dict[str, Any] | None = Field(default=None, description="linux and mininet-wifi engines: iperf3's "
                                          "own summary per role (`client`, `server`), passed through.")
    delay_ms: list[float | None] | None = Field(default=None, description="udp, voice and video flows (fluid "
                                                "engine): mean one-way delay per interval, ms; null where nothing "
                                                "arrived.")
    delay_p95_ms: list[float | None] | None = Field(default=None, description="udp, voice and video flows: 95th "
                                                    "percentile of the one-way delay of the packets delivered in "
                                                    "each interval, ms; null where nothing arrived.")
    frames_sent: list[int] | None = Field(default=None, description="video flows: frames the encoder sent in each "
                                          "interval.")
    frames_late: list[int] | None = Field(default=None, description="video flows: frames of the interval that "
                                          "arrived whole but after their playout deadline.")
    frames_lost: list[int] | None = Field(default=None, description="video flows: frames of the interval with at "
                                          "least one packet lost.")
    jitter_ms: list[float | None] | None = Field(default=None, description="udp, voice and video flows: RFC "
                                                 "3550 interarrival jitter at the end of each interval, ms.")
    loss: list[float | None] | None = Field(default=None, description="udp, voice and video flows: fraction of "
                                            "the bits sent in each interval that were lost (queue overflow, link "
                                            "loss, no path); null where nothing was sent.")
    sent_mbps: list[float] | None = Field(default=None, description="udp, voice and video flows: IP bits the "
                                          "source sent in each interval / the interval, Mbit/s (0 where it sent "
                                          "nothing: an on/off source off, silence); the weights of the run's loss "
                                          "(subflow.results.quality.pooled_loss). Absent in documents stored "
                                          "before it.")
    r_factor: list[float | None] | None = Field(default=None, description="voice flows: ITU-T G.107 E-model rating "
                                                "R per interval (mouth-to-ear delay with packetisation, playout "
                                                "buffer and look-ahead; late packets count as lost); null for a "
                                                "codec without G.113 values.")
    mos: list[float | None] | None = Field(default=None, description="voice flows: MOS from R per interval "
                                           "(G.107 Annex B).")


#: Former names of the series models (engines import these).
SubflowResult = SubflowSeries
FlowResult = FlowSeries


@with_config(ConfigDict(extra="forbid"))
class RateLimitChange(TypedDict):
    """linux engine: a rate limit set on a node pair's interface at ``t_s`` (seconds)."""

    t_s: float
    src: str
    dst: str
    #: Mbit/s; null: the limit was removed
    rate_mbps: float | None


class RateCap(TypedDict):
    """linux engine: a rated flow held to its rate at every instant at its source (an HTB class of
    ``cap_kbit`` kbit/s, frames counted, on an IFB device; :mod:`subflow.runplan.ratecap`)."""

    flow: str
    #: the flow's iperf3 (destination) port the filters match
    port: int
    cap_kbit: int


@with_config(ConfigDict(extra="forbid"))
class DelayChangeApplied(TypedDict):
    """linux engine: a propagation delay changed on a resource at ``t_s`` (seconds; the plan's delay
    changes, e.g. a SATCOM slant range)."""

    t_s: float
    #: when the run applied it, seconds on the run clock (absent in documents stored before it was recorded)
    applied_s: NotRequired[float]
    resource: str
    #: one-way delay from then on, ms
    delay_ms: float


@with_config(ConfigDict(extra="forbid"))
class CapacityChangeApplied(TypedDict):
    """linux engine: a resource's capacity changed at ``t_s`` (seconds, the plan's time; the plan's capacity
    changes, e.g. a SATCOM link budget's MODCOD step), applied to its HTB classes in place."""

    t_s: float
    #: when the run applied it (tc returned), seconds on the run clock
    applied_s: float
    resource: str
    #: the plan's capacity from then on, Mbit/s (Ethernet frames counted)
    capacity_mbps: float
    #: the HTB rate (= ceil) set, kbit/s
    rate_kbit: int
    #: the classes changed, ``"<device> <classid>"`` (empty: an access point's air no station uses)
    classes: list[str]


@with_config(ConfigDict(extra="forbid"))
class DelayLineStats(TypedDict):
    """linux engine: one NFQUEUE delay line queue's counters at the end of a run
    (:mod:`subflow_engines.linux.delayline`). Percentiles are over its last 10,000 packets, in µs,
    keyed ``p1``, ``p50``, ``p90``, ``p99`` and ``max``."""

    #: network namespace of the receiving node
    ns: str
    #: netfilter queue number
    queue: int
    packets: int
    #: packets read without the kernel's receive timestamp (held from their read)
    untimed: int
    #: how early the line wakes for a due packet, µs
    lead_us: float
    max_backlog: int
    #: whether the line ran with real-time scheduling (SCHED_FIFO)
    realtime: bool
    #: how old packets were when the line read them, µs
    read_lag_us: dict[str, float]
    #: how late their verdicts completed after their due time, µs (negative: early)
    verdict_late_us: dict[str, float]


@with_config(ConfigDict(extra="forbid"))
class LinuxRunInfo(TypedDict):
    """How the linux engine ran (kernel, mechanisms, processes). A plain dict once validated
    (the engine adds ``cleanup_problems`` after the run)."""

    #: prefix of the run's network namespaces
    prefix: str
    kernel: str
    congestion_control: str
    delay_mechanism: str | None
    loss_mechanism: str | None
    iperf3_version: str
    #: seconds spent building namespaces and links
    setup_s: float
    notes: list[str]
    #: process ids of the traffic generators
    processes: list[int]
    throughput_source: str
    rate_limits: list[RateLimitChange]
    rate_caps: NotRequired[list[RateCap]]
    #: every delay change applied (absent in documents stored before SATCOM orbits)
    delay_changes: NotRequired[list[DelayChangeApplied]]
    #: every capacity change applied (absent in documents stored before the engine applied them)
    capacity_changes: NotRequired[list[CapacityChangeApplied]]
    #: what the teardown could not remove (only when something was left)
    cleanup_problems: NotRequired[list[str]]
    #: each NFQUEUE delay line queue's counters (absent in documents stored before them)
    delay_lines: NotRequired[list[DelayLineStats]]
    #: per udp, voice or video flow: ``packets_sent``, ``packets_received``, ``packet_bytes`` (video: its largest),
    #: video also ``frames`` and ``frame_fields_mismatched`` (received packets whose frame fields differ from the
    #: schedule's) (absent in documents stored before the engine ran them)
    udp_flows: NotRequired[dict[str, dict[str, int]]]
    #: the class queues installed: ``discipline`` and, per shaped direction, its HTB classes (absent likewise)
    queueing: NotRequired[dict[str, Any]]


class PacketCapture(_Strict):
    """The packets a run recorded on one link (scenario ``capture``; linux engine: ``tcpdump`` on one end of
    the link, both directions). The engine hands the file over in ``data_b64``; the service stores it apart
    from the result document (whose copy then has ``data_b64`` null) and serves it for download."""

    link: str = Field(description="Scenario link id.")
    node: str = Field(description="The link end whose interface was recorded.")
    format: Literal["pcap"] = Field(default="pcap", description="libpcap file, nanosecond timestamps.")
    snaplen_bytes: int = Field(ge=1, description="Bytes kept of each packet.")
    size_bytes: int = Field(ge=0, description="Size of the file, bytes.")
    packets: int = Field(ge=0, description="Packets recorded.")
    truncated: bool = Field(description="True when the size cap stopped the recording before the run's end.")
    data_b64: str | None = Field(default=None, description="The file, base64; null once stored apart.")


class EngineOutput(_Strict):
    """What an engine returns for one run: timelines and events, no summary.

    ``events`` may be given as plain dicts; they are validated into :data:`Event` models.
    """

    engine: str
    strategy: str
    flows: list[FlowSeries]
    events: list[Event]
    linux: LinuxRunInfo | None = Field(default=None, description="linux engine only: how it ran.")
    captures: list[PacketCapture] = Field(default_factory=list, description="Packet captures of the links the "
                                          "scenario's capture lists (linux engine), one per link.")


# ----------------------------------------------------------------------------- summaries


class FlowSummary(_Strict):
    """Statistics of one flow's throughput over its active window (Mbit/s, seconds)."""

    id: str
    mean_mbps: float
    std_mbps: float = Field(description="Population standard deviation, Mbit/s.")
    min_mbps: float
    max_mbps: float
    zero_s: float = Field(description="Time below 1 kbit/s, seconds.")
    longest_zero_s: float = Field(description="Longest run of zero_s, seconds.")
    retransmissions: int = Field(default=0, description="Segments retransmitted (losses and timer expiries), "
                                 "all subflows.")
    completion_s: float | None = Field(default=None, description="Finite transfers: seconds from start to "
                                       "the last byte; null: not finished in the run or not a finite transfer.")


class Summary(_Strict):
    """Across-flow summary; ``mean_mbps``/``std_mbps``/``min_mbps`` are over the
    per-flow means, ``zero_s`` is the total over flows."""

    flows: list[FlowSummary]
    mean_mbps: float
    std_mbps: float
    min_mbps: float
    zero_s: float
    jain_index: float = Field(description="Jain's fairness index of the per-flow means, in [1/n, 1].")
    retransmissions: int = 0


class PlannedSubflow(_Strict):
    """The rate a plan set for one subflow, sample by sample (same ``t_s`` as the subflow's series)."""

    flow: str = Field(description="Id of the flow.")
    subflow: str = Field(description="Id of the subflow.")
    planned_mbps: list[float | None] = Field(
        description="Rate limit the plan had in force at the start of each interval, Mbit/s; null where the "
                    "plan set none (before the controller's first allocation naming the subflow).")


class LinkPlanUsage(_Strict):
    """Planned and measured load of one wired link over a time window (the busier direction)."""

    link: str = Field(description="Id of the scenario link.")
    src: str
    dst: str
    bandwidth_mbps: float = Field(description="The link's capacity, Mbit/s.")
    planned_mbps: float = Field(description="Mean over the window of the planned rates crossing the link, Mbit/s.")
    measured_mbps: float = Field(description="Mean over the window of the measured subflow throughput crossing "
                                             "the link, Mbit/s.")
    planned_utilization: float = Field(description="planned_mbps / bandwidth_mbps.")
    measured_utilization: float = Field(description="measured_mbps / bandwidth_mbps.")


class PlanComparison(_Strict):
    """A strategy's plan next to what was measured (strategies whose plan sets rates: ``mptcp-fdm``)."""

    strategy: str
    t0_s: float = Field(description="Start of the window of the link table, seconds.")
    t1_s: float = Field(description="End of the window of the link table, seconds (exclusive).")
    subflows: list[PlannedSubflow]
    links: list[LinkPlanUsage]


class StrategyResult(EngineOutput):
    """One strategy's engine output, its plan's radio and link events, and its summary."""

    summary: Summary
    planned: PlanComparison | None = Field(
        default=None, description="Planned vs measured over the whole run, for a strategy whose plan sets "
                                  "subflow rates (``mptcp-fdm``); null otherwise.")


class AggregateStats(_Strict):
    """One strategy over the repetitions of one point (sweeps and repetitions)."""

    mean_mbps: float = Field(description="Mean over repetitions of the across-flow mean throughput, Mbit/s.")
    ci95_mbps: float = Field(description="Half-width of its 95 % confidence interval (Student's t), Mbit/s.")
    jain_index: float = Field(description="Mean over repetitions of Jain's index.")
    zero_s: float = Field(description="Mean over repetitions of the total zero-throughput time, seconds.")
    runs: int = Field(ge=1, description="Repetitions aggregated.")
    mos_mean: float | None = Field(default=None, description="Voice flows: mean over repetitions of the mean "
                                   "interval MOS (all voice flows, their active windows); null without one.")
    mos_min: float | None = Field(default=None, description="Voice flows: lowest interval MOS of any voice flow "
                                  "in any repetition (an interval that sent and received nothing: 1).")
    delay_ms: float | None = Field(default=None, description="udp, voice and video flows: mean over repetitions "
                                   "of the mean interval one-way delay, ms; null without one.")
    delay_max_ms: float | None = Field(default=None, description="udp, voice and video flows: largest interval "
                                       "one-way delay in any repetition, ms.")
    jitter_ms: float | None = Field(default=None, description="udp, voice and video flows: mean over repetitions "
                                    "of the mean interval RFC 3550 jitter, ms.")
    loss: float | None = Field(default=None, description="udp, voice and video flows: the fraction lost of "
                               "all the bits they sent in the judged intervals of every repetition "
                               "(subflow.results.quality.pooled_loss).")


class SweepPoint(_Strict):
    """Each strategy's :class:`AggregateStats` over the repetitions at one value of the swept parameter."""

    value: float | int | str | bool | None = Field(description="Value of the swept parameter at this point.")
    value_y: float | int | str | bool | None = Field(
        default=None, description="Value of the second swept parameter (2-D sweeps), else null.")
    strategies: dict[str, AggregateStats]


class SweepResult(_Strict):
    """The ``sweep`` part of a result document: one :class:`SweepPoint` per swept value, or per
    cell of the grid ``values`` × ``values_y`` of a 2-D sweep (row-major: ``values`` outer)."""

    parameter: str = Field(description="Dotted path of the swept scenario field, e.g. `nodes.uav.range_m`.")
    values: list[float | int | str | bool | None]
    points: list[SweepPoint]
    parameter_y: str | None = Field(default=None, description="Second swept field of a 2-D sweep, else null.")
    values_y: list[float | int | str | bool | None] | None = Field(
        default=None, description="Values of `parameter_y` (2-D sweeps), else null.")


class ResultDocument(_Strict):
    """The versioned result document of a comparison (see the module docstring).

    ``strategies`` holds the runs of the scenario itself (of the first sweep point and
    repetition when there are several); ``sweep`` / ``repetitions`` aggregate all units.
    """

    version: Literal[1] = RESULT_VERSION
    scenario: Scenario = Field(description="The scenario as run (seed applied).")
    strategies: dict[str, StrategyResult]
    sweep: SweepResult | None = Field(default=None, description="Present when the comparison swept a parameter.")
    repetitions: dict[str, AggregateStats] | None = Field(
        default=None, description="Present when the comparison repeated without a sweep: per strategy."
    )


def jain_index(values: list[float]) -> float:
    """Jain's fairness index J = (Σx)² / (n·Σx²).

    Parameters
    ----------
    values : list of float
        Non-negative allocations (e.g. per-flow mean throughput, Mbit/s).

    Returns
    -------
    float
        In [1/n, 1]. Convention: an empty list or all zeros gives 1.0 (every
        flow got the same, nothing); this is stated, not derived.

    References
    ----------
    .. [1] R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure of Fairness and
       Discrimination for Resource Allocation in Shared Computer Systems",
       DEC-TR-301, 1984 (tcpbp-thesis Eq. 2.1).

    Examples
    --------
    >>> jain_index([1.0, 1.0])
    1.0
    >>> jain_index([1.0, 0.0])
    0.5
    """
    if any(v < 0 for v in values):
        raise ValueError("jain_index: values must be non-negative")
    s2 = sum(v * v for v in values)
    if not values or s2 == 0:
        return 1.0
    s = sum(values)
    return (s * s) / (len(values) * s2)


def _retransmissions(flow: FlowSeries) -> int:
    return sum(sf.retransmissions or 0 for sf in flow.subflows)


def summarize_flow(
    flow: FlowSeries, interval_s: float, start_s: float = 0.0, stop_s: float | None = None
) -> FlowSummary:
    """Statistics of one flow's throughput over its active window.

    Only intervals that lie inside [``start_s``, ``stop_s``) count. ``std_mbps``
    is the population standard deviation. ``zero_s`` is the time spent below
    :data:`ZERO_THRESHOLD_MBPS`; ``longest_zero_s`` the longest run of it.
    """
    vals = [
        v
        for t, v in zip(flow.t_s, flow.throughput_mbps)
        if t >= start_s - 1e-9 and (stop_s is None or t + interval_s <= stop_s + 1e-9)
    ]
    if not vals:
        return FlowSummary(
            id=flow.id, mean_mbps=0, std_mbps=0, min_mbps=0, max_mbps=0, zero_s=0, longest_zero_s=0,
            retransmissions=_retransmissions(flow), completion_s=flow.completion_s,
        )
    mean = sum(vals) / len(vals)
    std = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
    zero = run = longest = 0
    for v in vals:
        if v < ZERO_THRESHOLD_MBPS:
            zero += 1
            run += 1
            longest = max(longest, run)
        else:
            run = 0
    return FlowSummary(
        id=flow.id,
        retransmissions=_retransmissions(flow),
        completion_s=flow.completion_s,
        mean_mbps=mean,
        std_mbps=std,
        min_mbps=min(vals),
        max_mbps=max(vals),
        zero_s=zero * interval_s,
        longest_zero_s=longest * interval_s,
    )


def summarize(
    output: EngineOutput, interval_s: float, windows: dict[str, tuple[float, float]] | None = None
) -> StrategyResult:
    """Attach a :class:`Summary` to an engine's output.

    Parameters
    ----------
    output : EngineOutput
        Timelines and events of one strategy.
    interval_s : float
        Length of a timeline interval in seconds.
    windows : dict, optional
        ``flow id -> (start_s, stop_s)`` active windows; flows not listed count
        over their whole timeline.
    """
    windows = windows or {}
    per_flow = [
        summarize_flow(f, interval_s, *windows.get(f.id, (0.0, None))) for f in output.flows
    ]
    means = [s.mean_mbps for s in per_flow]
    n = len(means)
    mean = sum(means) / n if n else 0.0
    std = math.sqrt(sum((m - mean) ** 2 for m in means) / n) if n else 0.0
    summary = Summary(
        flows=per_flow,
        mean_mbps=mean,
        std_mbps=std,
        min_mbps=min(means) if means else 0.0,
        zero_s=sum(s.zero_s for s in per_flow),
        jain_index=jain_index(means),
        retransmissions=sum(s.retransmissions for s in per_flow),
    )
    # the output's own (already validated) models travel on: no dump and re-parse
    return StrategyResult(**dict(output), summary=summary)


def comparison_document(scenario: Scenario | dict[str, Any], results: dict[str, StrategyResult]) -> ResultDocument:
    """The versioned comparison result document (see module docstring) of ``results``
    (strategy name -> result, in the order run) on ``scenario``."""
    return ResultDocument(version=RESULT_VERSION, scenario=scenario, strategies=results)
