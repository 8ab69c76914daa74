"""Which scenario fields an engine honours: declarations and the check that refuses the rest.

Every engine declares, for every field of the scenario JSON Schema,
:class:`Honours` (with how it applies the field), :class:`Describes` (a name or
label that changes no figure) or :class:`Refuses` (with why not). :func:`check_fields` walks a scenario and raises
:class:`~subflow.errors.EngineCannotRun` naming the first refused field whose
value differs from its default (e.g. ``links[3].jitter_ms``), so no field is
ever silently ignored. :func:`schema_fields` lists every field of the schema;
the tests require each engine's declaration to cover exactly that list, so a
new scenario field without a declaration fails them.

Fields are named ``"<schema definition>.<property>"``: the definition is the
pydantic model's name as it appears under ``$defs`` of
``Scenario.model_json_schema()`` (``"Scenario"`` for the root), e.g.
``"Link.jitter_ms"``, ``"AccessPointNode.rate_table"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from subflow.errors import FieldNotHonoured
from subflow.scenario.document import Scenario, load_scenario


@dataclass(frozen=True)
class Honours:
    """The engine applies the field; ``how`` says how (shown in ``GET /capabilities``)."""

    how: str


@dataclass(frozen=True)
class Refuses:
    """The engine cannot apply the field; a run with a non-default value is refused, ``reason`` says why."""

    reason: str


@dataclass(frozen=True)
class Describes:
    """The field names or describes something and changes no figure of a run (``what`` says what)."""

    what: str


Declaration = Mapping[str, "Honours | Refuses | Describes"]


def schema_fields() -> set[str]:
    """Every field of the scenario JSON Schema as ``"<definition>.<property>"``.

    Returns
    -------
    set of str
        From ``Scenario.model_json_schema()``: the root's properties (``"Scenario.*"``)
        and those of every entry of ``$defs``.
    """
    schema = Scenario.model_json_schema()
    out = {f"Scenario.{p}" for p in schema.get("properties", {})}
    for name, d in schema.get("$defs", {}).items():
        out.update(f"{name}.{p}" for p in d.get("properties", {}))
    return out


def undeclared(declaration: Declaration) -> tuple[set[str], set[str]]:
    """Fields of the schema that ``declaration`` misses, and declared names the schema lacks."""
    fields = schema_fields()
    return fields - set(declaration), set(declaration) - fields


def _walk(value: Any, loc: list[Any], engine: str, declaration: Declaration) -> None:
    if isinstance(value, BaseModel):
        cls = type(value).__name__
        for name, info in type(value).model_fields.items():
            v = getattr(value, name)
            here = loc + [name]
            decl = declaration.get(f"{cls}.{name}")
            if decl is None:
                raise FieldNotHonoured(f"{_path(here)}: engine {engine} does not declare the field {cls}.{name}",
                                       engine, here)
            if isinstance(decl, Refuses):
                default = info.get_default(call_default_factory=True)
                if v != default:
                    raise FieldNotHonoured(
                        f"{_path(here)}={_show(v)}: engine {engine} does not honour it ({decl.reason})", engine, here)
            _walk(v, here, engine, declaration)
    elif isinstance(value, (list, tuple)):
        for k, item in enumerate(value):
            _walk(item, loc + [k], engine, declaration)


def _path(loc: list[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _show(v: Any) -> str:
    if isinstance(v, BaseModel):
        return type(v).__name__
    if isinstance(v, float):
        return f"{v:g}"
    return repr(v) if isinstance(v, str) else str(v)


def check_fields(scenario: Scenario | dict, declaration: Declaration, engine: str) -> None:
    """Refuse a scenario that sets a field ``engine`` does not honour.

    Parameters
    ----------
    scenario : Scenario or dict
        The scenario document (validated here if a dict).
    declaration : mapping
        ``"<definition>.<property>"`` → :class:`Honours` / :class:`Describes` / :class:`Refuses`, covering
        :func:`schema_fields`.
    engine : str
        Engine name for the message.

    Raises
    ------
    FieldNotHonoured
        (an :class:`~subflow.errors.EngineCannotRun`) naming the field by its path in the
        document (``links[3].jitter_ms=20``, ``loc`` ``["links", 3, "jitter_ms"]``) and the
        reason, for the first refused field set to a non-default value, or a field the
        declaration does not cover.
    """
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    _walk(sc, [], engine, declaration)


def from_description(description: Mapping[str, Mapping[str, str]]) -> dict[str, Honours | Refuses | Describes]:
    """The declaration back from :func:`describe`'s JSON (e.g. an agent's ``GET /capabilities``)."""
    out: dict[str, Honours | Refuses | Describes] = {}
    for key, cls in (("honours", Honours), ("describes", Describes), ("refuses", Refuses)):
        for name, text in (description.get(key) or {}).items():
            out[name] = cls(text)
    return out


def describe(declaration: Declaration) -> dict[str, dict[str, str]]:
    """The declaration as JSON for ``GET /capabilities``:
    ``{"honours": {field: how}, "refuses": {field: reason}, "describes": {field: what}}``."""
    return {
        "honours": {k: v.how for k, v in sorted(declaration.items()) if isinstance(v, Honours)},
        "describes": {k: v.what for k, v in sorted(declaration.items()) if isinstance(v, Describes)},
        "refuses": {k: v.reason for k, v in sorted(declaration.items()) if isinstance(v, Refuses)},
    }


def _same(kind: type, text: str, *names: str) -> dict[str, Any]:
    return {n: kind(text) for n in names}


_NODE = ("id", "label", "position", "kind")
_HANDOVER = ("association timeline: beacon-loss detection, scanning and joining set when a path through "
             "an access point opens after a handover (subflow.radio.association.handover_timing)")
_MOBILITY = "planned trajectory (subflow.space.mobility), resolved into the plan's association timeline"
_GEO = "projected to the local frame (subflow.scenario.geodesy, pyproj aeqd); positions and ranges are computed there"
_ALT = "altitude: ranges to access points are slant ranges (3-D distance) in the association timeline"
_WIRED_MOTION = ("motion of a wired node: in the timeline and the exports; its wired links have no "
                 "distance-dependent parameter, so it changes no figure of a run")
_SATELLITE_MOTION = ("a satellite moves on its orbit (SatelliteNode.ephemeris), not by a mobility model; without an "
                     "ephemeris its links carry their own delay_ms")
_SATCOM = ("SATCOM link from the orbit (subflow.space.satcom): up while the satellite is above the terminal's elevation "
           "mask and in use (handover policy), one-way delay = slant range / c as the plan's delay_changes")
_ISL = ("inter-satellite link from the two orbits (subflow.space.satcom.isl_timeline): down while the Earth plus "
        "this grazing altitude blocks the line of sight or the range exceeds the maximum (plan: link up/down), "
        "one-way delay = range / c as the plan's delay_changes")
#: the fields only inter-satellite links read, for the engines that refuse them
ISL_FIELDS = ("SatcomSettings.isl_grazing_altitude_km", "SatcomSettings.isl_max_range_km")

_RADIO = ("radio from propagation (subflow.radio.propagation): association range where the slowest MCS fails, "
          "air capacity changes from each station's SNR and the cell's 802.11 airtime (plan)")
_NODE_RADIO = ("tx_power_dbm", "antenna_gain_dbi", "frequency_mhz", "phy", "channel_width_mhz", "antenna_height_m",
               "channel")
_PROPAGATION = ("model", "exponent", "reference_distance_m", "reference_loss_db", "system_loss_db", "noise_floor_dbm")

#: fields that :func:`subflow.runplan.resolve.resolve_plan` turns into the run plan (paths, association
#: timeline, segments, capacity changes), so every engine that runs the plan honours them
PLANNED: dict[str, Honours | Refuses | Describes] = {
    "Scenario.schema_version": Describes("document version"),
    "Scenario.name": Describes("scenario name"),
    "Scenario.description": Describes("free text"),
    **_same(Honours, "container of the fields below", "Scenario.nodes", "Scenario.links", "Scenario.flows",
            "Scenario.link_events", "Scenario.radio", "Scenario.controller", "Scenario.run", "Scenario.transport"),
    **{f"{cls}.{f}": Honours("topology and positions of the plan") for cls in
       ("HostNode", "RouterNode", "SwitchNode", "SatelliteNode", "AccessPointNode", "StationNode") for f in _NODE},
    "HostNode.label": Describes("display label"), "RouterNode.label": Describes("display label"),
    "SwitchNode.label": Describes("display label"), "SatelliteNode.label": Describes("display label"),
    "AccessPointNode.label": Describes("display label"), "StationNode.label": Describes("display label"),
    **{f"{cls}.icon": Describes("display icon") for cls in
       ("HostNode", "RouterNode", "SwitchNode", "SatelliteNode", "AccessPointNode", "StationNode")},
    "SatelliteNode.orbit": Describes("orbit class; the satellite's links carry its delay_ms"),
    "Position.x_m": Honours("distance to access points (association)"),
    "Position.y_m": Honours("distance to access points (association)"),
    "Position.lat_deg": Honours(_GEO), "Position.lon_deg": Honours(_GEO),
    "Position.alt_m": Honours(_ALT),
    "Scenario.geo": Honours("origin of the local projected frame (subflow.scenario.geodesy)"),
    "GeoSettings.origin_lat_deg": Honours(_GEO), "GeoSettings.origin_lon_deg": Honours(_GEO),
    "StationNode.mobility": Honours(_MOBILITY),
    "AccessPointNode.mobility": Honours(_MOBILITY + "; a moving access point's range moves with it"),
    **_same(Describes, _WIRED_MOTION, "HostNode.mobility", "SwitchNode.mobility", "RouterNode.mobility"),
    "SatelliteNode.mobility": Refuses(_SATELLITE_MOTION),
    "SatelliteNode.ephemeris": Honours(_SATCOM),
    "SatelliteNode.constellation": Honours("handover among the satellites of a constellation (subflow.space.satcom)"),
    **_same(Honours, _SATCOM, "TleEphemeris.model", "TleEphemeris.line1", "TleEphemeris.line2",
            "GeostationaryEphemeris.model", "GeostationaryEphemeris.lon_deg"),
    "Scenario.satcom": Honours("container of the fields below"),
    "SatcomSettings.start_utc": Honours("absolute time of t = 0: orbits are propagated from it"),
    "SatcomSettings.elevation_mask_deg": Honours("SATCOM link visibility (plan: link up/down)"),
    "SatcomSettings.handover_policy": Honours("which satellite a terminal uses (plan: link up/down)"),
    "SatcomSettings.gateways": Honours("terminals using every visible satellite at once (plan)"),
    "SatcomSettings.max_tle_age_days": Describes("validation bound on TLE epochs; changes no figure"),
    "SatcomSettings.sample_s": Honours("time step of the SATCOM geometry (plan delay changes and crossings)"),
    "SatcomSettings.delay_resolution_ms": Honours("delay step that makes a plan delay change"),
    **_same(Honours, _ISL, "SatcomSettings.isl_grazing_altitude_km", "SatcomSettings.isl_max_range_km"),
    "StaticMobility.model": Honours(_MOBILITY),
    "WaypointsMobility.model": Honours(_MOBILITY), "WaypointsMobility.points": Honours(_MOBILITY),
    "Waypoint.t_s": Honours(_MOBILITY), "Waypoint.x_m": Honours(_MOBILITY), "Waypoint.y_m": Honours(_MOBILITY),
    "Waypoint.lat_deg": Honours(_GEO), "Waypoint.lon_deg": Honours(_GEO), "Waypoint.alt_m": Honours(_ALT),
    **_same(Honours, _MOBILITY, "LoiterMobility.model", "LoiterMobility.center", "LoiterMobility.radius_m",
            "LoiterMobility.speed_mps", "LoiterMobility.pattern", "LoiterMobility.length_m",
            "LoiterMobility.heading_deg", "LoiterMobility.clockwise", "LoiterMobility.start_s"),
    "LoiterMobility.alt_m": Honours(_ALT),
    **_same(Honours, _MOBILITY, "LinearMobility.model", "LinearMobility.start", "LinearMobility.end",
            "LinearMobility.speed_mps", "LinearMobility.start_s"),
    **_same(Honours, _MOBILITY, "Bounds.x_min_m", "Bounds.y_min_m", "Bounds.x_max_m", "Bounds.y_max_m"),
    **_same(Honours, _MOBILITY, "RandomWalkMobility.model", "RandomWalkMobility.bounds",
            "RandomWalkMobility.speed_min_mps", "RandomWalkMobility.speed_max_mps", "RandomWalkMobility.step_s",
            "RandomWalkMobility.seed"),
    **_same(Honours, _MOBILITY, "RandomWaypointMobility.model", "RandomWaypointMobility.bounds",
            "RandomWaypointMobility.speed_min_mps", "RandomWaypointMobility.speed_max_mps",
            "RandomWaypointMobility.pause_s", "RandomWaypointMobility.seed"),
    **_same(Honours, _MOBILITY, "GaussMarkovMobility.model", "GaussMarkovMobility.bounds",
            "GaussMarkovMobility.mean_speed_mps", "GaussMarkovMobility.speed_std_mps",
            "GaussMarkovMobility.heading_std_rad", "GaussMarkovMobility.alpha", "GaussMarkovMobility.step_s",
            "GaussMarkovMobility.seed"),
    "AccessPointNode.range_m": Honours("association: a station in range may associate"),
    "AccessPointNode.network": Honours("association: one interface per radio network"),
    "AccessPointNode.association_delay_s": Honours("association timeline: overrides the handover timing (a path "
                                                   "through the AP opens this late)"),
    "AccessPointNode.beacon_interval_ms": Honours(_HANDOVER),
    "RadioSettings.handover": Honours("container of the fields below"),
    **_same(Honours, _HANDOVER, "HandoverSettings.missed_beacons", "HandoverSettings.scan",
            "HandoverSettings.scan_channels", "HandoverSettings.channel_dwell_ms", "HandoverSettings.probe_wait_ms",
            "HandoverSettings.scan_results_max_age_s"),
    "RadioSettings.association_policy": Honours("association timeline (ssf / llf)"),
    "Link.id": Honours("resource ids"), "Link.src": Honours("topology"), "Link.dst": Honours("topology"),
    "LinkEvent.t_s": Honours("plan segments: paths change at t_s"),
    "LinkEvent.link": Honours("plan segments"), "LinkEvent.state": Honours("plan segments"),
    "Flow.id": Honours("flow ids"), "Flow.src": Honours("paths"), "Flow.dst": Honours("paths"),
    "Flow.start_s": Honours("flow start"), "Flow.stop_s": Honours("flow stop"),
    "RunSettings.duration_s": Honours("run length"), "RunSettings.interval_s": Honours("sampling interval"),
    "RunSettings.seed": Honours("seed of the plan's random mobility and the engine's draws"),
    "ControllerSettings.interval_s": Honours("period of the FDM controller's re-allocations (plan rate limits)"),
    **_same(Honours, "forwarding roles: routes pass through the node only when it is a relay (plan paths)",
            "HostNode.relay", "StationNode.relay"),
    **_same(Honours, _RADIO, "AccessPointNode.radio", "StationNode.radio", "RadioSettings.propagation",
            "RadioSettings.rate_selection", *(f"NodeRadio.{f}" for f in _NODE_RADIO), *(f"PropagationSettings.{f}" for f in _PROPAGATION)),
    "AccessPointNode.uplink": Honours("wireless backhaul: the access point associates with its uplink like a "
                                      "station (association timeline, air hops of the plan)"),
    "RadioSettings.adhoc_links": Honours("station-to-station links within radio range (plan resources "
                                         "adhoc:<a>~<b>, their windows and rates)"),
}

#: the SATCOM link budget's fields (:mod:`subflow.space.link_budget`): the plan turns them into capacity changes of
#: the link's two resources (a new one when a direction's MODCOD changes) and link down/up while no MODCOD closes;
#: with them the shared beams' fields (:mod:`subflow.runplan.beams`: time shares of a beam's carriers)
LINK_BUDGET_FIELDS = ("Link.budget", *(f"SatcomBudget.{f}" for f in (
    "terminal_eirp_dbw", "terminal_g_t_dbk", "uplink_ghz", "downlink_ghz", "symbol_rate_msps", "standard", "modcod",
    "margin_db", "pointing_loss_db", "polarisation_loss_db", "antenna_diameter_m", "antenna_efficiency",
    "exceedance_pct", "rain_rate_mm_h", "rain_attenuation_db", "gateway_link")),
    "SatcomSettings.beams", *(f"SatcomBeam.{f}" for f in (
        "id", "satellite", "forward_symbol_rate_msps", "return_symbol_rate_msps", "policy", "min_share", "links")))
#: the satellite payload's fields, read only by a link budget
PAYLOAD_FIELDS = ("SatelliteNode.payload", "SatellitePayload.eirp_dbw", "SatellitePayload.g_t_dbk",
                  "SatellitePayload.transponder")
_BUDGET = ("SATCOM link budget (subflow.space.link_budget): Es/N0 per direction and time step, DVB-S2/S2X MODCOD "
           "(ACM or CCM), capacity = symbol rate x spectral efficiency as the plan's capacity_changes (a new value "
           "when the MODCOD changes), link down while none closes; the members of a shared beam get their time "
           "share of its carriers (subflow.runplan.beams)")


def link_budget_fields(kind: type, text: str) -> dict[str, Honours | Refuses | Describes]:
    """The declaration of every link budget field (:data:`LINK_BUDGET_FIELDS`) as ``kind(text)``, and of the
    payload's fields (:data:`PAYLOAD_FIELDS`): honoured with the budget, or described (they change no figure
    without a budget, which the engine then refuses)."""
    payload = Honours(_BUDGET) if kind is Honours else Describes(
        "read only by Link.budget, which this engine refuses; changes no figure on its own")
    return {**{f: kind(text) for f in LINK_BUDGET_FIELDS}, **{f: payload for f in PAYLOAD_FIELDS}}


#: the link budget fields as every engine that applies the plan's capacity changes honours them
LINK_BUDGET_HONOURED = link_budget_fields(Honours, _BUDGET)

#: the radio fields (:mod:`subflow.radio.propagation`), for the engines that refuse them
RADIO_FIELDS = ("AccessPointNode.radio", "StationNode.radio", "RadioSettings.propagation", "RadioSettings.rate_selection",
                *(f"NodeRadio.{f}" for f in _NODE_RADIO), *(f"PropagationSettings.{f}" for f in _PROPAGATION))

#: the fields of flows that are not bulk or rated TCP (:class:`subflow.scenario.document.Flow` ``kind`` and its
#: sources) and the DiffServ class, for the engines that run only the strategy's transport
FLOW_KIND_FIELDS = ("Flow.kind", "Flow.udp", "Flow.voice", "Flow.video",
                    *(f"UdpSource.{f}" for f in ("pattern", "packet_bytes", "periods", "mean_on_s", "mean_off_s",
                                                 "pareto_shape")),
                    *(f"VoiceSource.{f}" for f in ("codec", "packet_interval_ms", "silence_suppression", "plc",
                                                   "opus_bitrate_kbps", "playout_delay_ms")),
                    *(f"VideoSource.{f}" for f in ("bitrate_mbps", "frame_rate_fps", "gop_frames",
                                                   "playout_delay_ms")))
_TCP_ONLY = ("this engine runs the strategy's transport (TCP, MPTCP, SCTP) only: udp, voice and video sources are "
             "not modelled")
_NO_PRIORITY = ("no priority classes: every queue serves its packets first-in first-out whatever their DiffServ "
                "class")


def flow_kind_fields(reason: str = _TCP_ONLY, dscp_reason: str = _NO_PRIORITY) -> dict[str, Refuses]:
    """Every field of :data:`FLOW_KIND_FIELDS` refused with ``reason``, and ``Flow.dscp`` with ``dscp_reason``: a
    scenario with a flow that is not tcp, or marked with a class other than BE, is refused naming the field."""
    return {**{f: Refuses(reason) for f in FLOW_KIND_FIELDS}, "Flow.dscp": Refuses(dscp_reason)}


#: the fields of the queues by DiffServ class (:class:`subflow.scenario.document.QueueingSettings`)
QUEUEING_FIELDS = ("Scenario.queueing", *(f"QueueingSettings.{f}" for f in ("discipline", "classes", "wifi")),
                   *(f"TrafficClass.{f}" for f in ("name", "dscp", "priority", "weight", "queue_packets")))


def queueing_fields(reason: str = _NO_PRIORITY) -> dict[str, Refuses]:
    """Every field of :data:`QUEUEING_FIELDS` refused with ``reason``: a scenario whose ``queueing`` is not the
    default fifo is refused naming the field (``queueing.discipline``)."""
    return {f: Refuses(reason) for f in QUEUEING_FIELDS}

