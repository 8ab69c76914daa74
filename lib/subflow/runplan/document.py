"""The run plan: what an engine executes (pydantic types of the worker → agent contract).

The run plan is the engine interface (scenario + strategy in, timelines +
events out): it lists the capacity *resources* (each direction of a wired
link, ``"<link>:<a>><b>"``, and the shared air of each access point,
``"air:<ap>"``) and, per flow, the time segments during which its subflows
follow fixed paths. Engines never route; they execute a plan.

Plans are produced by :func:`subflow.runplan.resolve.resolve_plan` (scenario +
strategy → plan; the path of each subflow comes from the strategy's path
policy, :mod:`subflow.runplan.path_policies`). This module holds only the types, so
that engines, the worker and the controller can import them without the
planner.

Capacity and goodput
--------------------
A resource's ``capacity_mbps`` (and every ``capacity_changes`` entry and controller rate limit)
is a rate as a shaper counts it: Ethernet frames of MSS + :data:`FRAME_OVERHEAD_BYTES` bytes. A
bulk TCP flow alone on it gets ``capacity · MSS/(MSS + 66)`` of goodput (:func:`goodput_fraction`;
1448/1514 ≈ 0.956, what iperf3 reports over an HTB class, and what the fluid engine applies to
every capacity). This is the one conversion between the two: a planner that knows the goodput a
resource carries (an access point's air from its 802.11 airtime, :mod:`subflow.runplan.resolve`) states
it as :func:`capacity_for_goodput_mbps`, so that the engine's framing gives that goodput back and
no overhead is counted twice.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from subflow.scenario.document import ControllerSettings, Identifier, QueueingSettings, TransportSettings

PLAN_VERSION = 1
#: bytes a full-sized segment carries besides its payload, as a shaper counts them: IPv4 (20)
#: + TCP (20) + timestamp option (12, RFC 7323 §3) + Ethernet header (14); the linux engine's
#: MTU is MSS + 52 and HTB sees 1514-byte frames for a 1448-byte MSS
FRAME_OVERHEAD_BYTES = 66


def goodput_fraction(mss_bytes: float) -> float:
    """Payload share of a full-sized frame: a link (or a controller's rate limit) of rate R
    carries at most R·MSS/(MSS + 66) of TCP goodput, which is what iperf3 reports over an
    HTB class of rate R (1448/1514 ≈ 0.956). ``mss_bytes`` in bytes; returns a fraction in (0, 1)."""
    return mss_bytes / (mss_bytes + FRAME_OVERHEAD_BYTES)


def capacity_for_goodput_mbps(goodput_mbps: float, mss_bytes: float) -> float:
    """The resource capacity (Mbit/s, as a shaper counts it) that carries ``goodput_mbps`` of TCP
    goodput with segments of ``mss_bytes``: goodput / :func:`goodput_fraction`."""
    return goodput_mbps / goodput_fraction(mss_bytes)


class Resource(BaseModel):
    """A capacity shared by every subflow that crosses it (one direction of a wired
    link, or an access point's air, shared by both directions)."""

    id: str
    kind: Literal["link", "air"]
    capacity_mbps: float = Field(gt=0)
    delay_ms: float = Field(ge=0)
    loss: float = Field(ge=0, lt=1)
    jitter_ms: float = Field(default=0.0, ge=0)
    queue_packets: int = Field(ge=1)


class SubflowPath(BaseModel):
    """One subflow's path; ``rate_limit_mbps`` is a controller-installed cap (null: none)."""

    id: str
    nodes: list[str]
    resources: list[str]
    rate_limit_mbps: float | None = None


class Segment(BaseModel):
    """During [t_start_s, t_end_s) the flow's subflows follow these paths
    (an empty list: no path, the flow is cut)."""

    t_start_s: float
    t_end_s: float
    subflows: list[SubflowPath]


class FlowPlan(BaseModel):
    """One flow of the plan: its transport (``multipath``, ``coupling``, ``handover``) and its segments.

    ``id``, ``src`` and ``dst`` are scenario identifiers (:data:`subflow.scenario.document.Identifier`:
    engines may use them in file names).
    """

    id: Identifier
    src: Identifier
    dst: Identifier
    rate_mbps: float | None
    size_bytes: int | None = None
    start_s: float
    stop_s: float
    kind: Literal["tcp", "udp", "voice", "video"] = Field(
        default="tcp", description="The scenario flow's kind: tcp runs the strategy's transport; udp and voice are "
        "constant-rate sources at rate_mbps (a voice flow's codec rate on the wire) in packets of packet_bytes.")
    packet_bytes: int | None = Field(default=None, description="udp and voice: IP packet size, bytes (payload + "
                                     "UDP and IPv4 headers; + RTP for voice); null for tcp.")
    dscp: str = Field(default="BE", description="The scenario flow's DiffServ class (RFC 2474 names: BE, EF, "
                      "AF11–AF43, CS1–CS7); TCP flows carry theirs too, in their data and ACKs.")
    traffic_class: str | None = Field(
        default=None, description="The class of the plan's queueing (RunPlan.queueing) that queues this flow's "
        "packets (subflow.scenario.document.traffic_class_of of dscp); null when the queueing is fifo.")
    multipath: bool
    coupling: Literal["lia", "olia", "uncoupled", "none"] = "none"
    handover: Literal["bare", "zwa", "spurious", "seamless"] = "bare"
    segments: list[Segment]


class CapacityChange(BaseModel):
    """From ``t_s`` on, resource ``resource`` carries ``capacity_mbps``."""

    t_s: float
    resource: str
    capacity_mbps: float = Field(gt=0)


class DelayChange(BaseModel):
    """From ``t_s`` on, resource ``resource`` has the one-way propagation delay ``delay_ms`` (a SATCOM
    link whose slant range changes, :mod:`subflow.space.satcom`)."""

    t_s: float = Field(ge=0)
    resource: str
    delay_ms: float = Field(ge=0)


class RunPlan(BaseModel):
    """What an engine executes. ``events`` holds the radio events of the plan."""

    plan_version: Literal[1] = PLAN_VERSION
    strategy: str
    engine: str = "fluid"
    scenario_name: str
    duration_s: float = Field(gt=0)
    interval_s: float = Field(gt=0)
    seed: int
    transport: TransportSettings
    controller: ControllerSettings = Field(default_factory=ControllerSettings)
    resources: list[Resource]
    capacity_changes: list[CapacityChange] = Field(default_factory=list)
    #: time-varying propagation delays, in time order (an engine that cannot change a delay during a run
    #: refuses a plan with any)
    delay_changes: list[DelayChange] = Field(default_factory=list)
    flows: list[FlowPlan]
    #: how every queue serves the flows' DiffServ classes (the scenario's ``queueing``; default fifo: one queue per resource)
    queueing: QueueingSettings = Field(default_factory=QueueingSettings)
    events: list[dict] = Field(default_factory=list)
    #: the validated scenario document, for engines that build the topology itself (linux, mininet-wifi)
    scenario: dict | None = None

