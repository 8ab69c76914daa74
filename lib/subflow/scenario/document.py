"""The scenario document: topology, radio, mobility, flows and run settings.

A scenario is a JSON document validated by the pydantic v2 models below. Its
JSON Schema is :func:`scenario_json_schema`. Units are carried in field names:
positions in metres (``x_m``) or WGS84 degrees (``lat_deg``, ``lon_deg``; a
scenario is either all planar or all geographic, engines work in the local
projected frame of :mod:`subflow.scenario.geodesy`), times in seconds (``t_s``), rates in megabits
per second (``bandwidth_mbps``), delays in milliseconds (``delay_ms``) and
``loss`` as a probability in [0, 1).

Validation has two steps, both reported as :class:`subflow.errors.ScenarioInvalid`
with the JSON path of each offending field:

1. structure (types, ranges), by pydantic;
2. references between parts (a link to an unknown node, a flow to a missing
   node, duplicate ids, times outside the run), by :func:`check_references`.

:func:`load_scenario` runs both.

References
----------
.. [1] Q. Zhao et al., "Software Defined Multi-Path TCP Solution for Mobile
   Wireless Tactical Networks", MILCOM 2018, §V-B (node roles of the testbed).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from subflow.errors import ScenarioInvalid
from subflow.scenario.geodesy import local_xy
from subflow.scenario.modcod import MODCODS

Identifier = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,31}$",
        description="Letters, digits, '_' or '-', starting with a letter, at most 32 characters.",
    ),
]
Metres = Annotated[float, Field(allow_inf_nan=False)]
PositiveMbps = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegativeMs = Annotated[float, Field(ge=0, allow_inf_nan=False)]
NonNegativeSeconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
PositiveSeconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]
LossFraction = Annotated[
    float,
    Field(ge=0, lt=1, allow_inf_nan=False, description="Probability in [0, 1)."),
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


Latitude = Annotated[float, Field(ge=-90, le=90, allow_inf_nan=False, description="WGS84 latitude, degrees.")]
Longitude = Annotated[float, Field(ge=-180, le=180, allow_inf_nan=False, description="WGS84 longitude, degrees.")]


class _Point(_Strict):
    """Planar ``x_m``/``y_m`` (metres) or geographic ``lat_deg``/``lon_deg`` (WGS84 degrees), plus ``alt_m``.

    Exactly one pair is given. ``planar_default``: a point with neither pair is
    planar with missing coordinates 0 (as every schema-version-1 position was).
    """

    planar_default: ClassVar[bool] = True

    x_m: Metres | None = Field(default=None, description="East of the planning plane's origin, metres (planar).")
    y_m: Metres | None = Field(default=None, description="North of the planning plane's origin, metres (planar).")
    lat_deg: Latitude | None = Field(default=None, description="WGS84 latitude in [-90, 90], degrees (geographic).")
    lon_deg: Longitude | None = Field(default=None, description="WGS84 longitude in [-180, 180], degrees (geographic).")
    alt_m: Metres = Field(default=0.0, description="Altitude above sea level (the WGS84 ellipsoid), metres.")

    @model_validator(mode="before")
    @classmethod
    def _one_pair(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        geo = data.get("lat_deg") is not None or data.get("lon_deg") is not None
        planar = data.get("x_m") is not None or data.get("y_m") is not None
        if geo and planar:
            raise ValueError("give either x_m/y_m (metres) or lat_deg/lon_deg (degrees), not both")
        if geo:
            for k in ("lat_deg", "lon_deg"):
                if data.get(k) is None:
                    raise ValueError(f"{k} is required with {'lon_deg' if k == 'lat_deg' else 'lat_deg'}")
            return data
        if cls.planar_default:
            return {**data, "x_m": data.get("x_m") or 0.0, "y_m": data.get("y_m") or 0.0}
        for k in ("x_m", "y_m"):
            if data.get(k) is None:
                raise ValueError(f"{k} is required (or give lat_deg and lon_deg)")
        return data

    @property
    def is_geo(self) -> bool:
        """True when the point is geographic (``lat_deg``/``lon_deg``)."""
        return self.lat_deg is not None


class Position(_Point):
    """A point: planar ``{x_m, y_m}`` metres or geographic ``{lat_deg, lon_deg}`` WGS84 degrees, plus ``alt_m``.

    A point with neither pair is planar at (0, 0) (schema version 1 behaviour).
    """


class GeoSettings(_Strict):
    """Origin of the local projected frame of a geographic scenario.

    Engines work in x/y metres of an azimuthal equidistant projection centred on
    this origin (``+proj=aeqd``, :mod:`subflow.scenario.geodesy`); without ``Scenario.geo``
    the origin is the centroid of the node positions.
    """

    origin_lat_deg: Latitude
    origin_lon_deg: Longitude


# --------------------------------------------------------------------------- mobility


class StaticMobility(_Strict):
    """The node stays at its ``position``."""

    model: Literal["static"] = "static"


class Waypoint(_Point):
    """A timed point of a ``waypoints`` track: ``t_s`` and a planar or geographic position."""

    planar_default: ClassVar[bool] = False

    t_s: NonNegativeSeconds


class WaypointsMobility(_Strict):
    """Piecewise-linear motion through timed waypoints.

    Before the first waypoint the station is at the first waypoint; after the
    last it stays at the last. Times must increase strictly.
    """

    model: Literal["waypoints"] = "waypoints"
    points: list[Waypoint] = Field(min_length=1)

    @model_validator(mode="after")
    def _increasing(self) -> "WaypointsMobility":
        for i in range(1, len(self.points)):
            if self.points[i].t_s <= self.points[i - 1].t_s:
                raise ValueError(
                    f"points[{i}].t_s must be greater than points[{i - 1}].t_s"
                )
        return self


class LinearMobility(_Strict):
    """Straight-line motion from ``start`` to ``end`` at ``speed_mps``.

    The station waits at ``start`` until ``start_s``, then moves, and stays at
    ``end`` once it arrives.
    """

    model: Literal["linear"] = "linear"
    start: Position
    end: Position
    speed_mps: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    start_s: NonNegativeSeconds = 0.0


class Bounds(_Strict):
    """An axis-aligned rectangle, in metres."""

    x_min_m: Metres
    y_min_m: Metres
    x_max_m: Metres
    y_max_m: Metres

    @model_validator(mode="after")
    def _ordered(self) -> "Bounds":
        if self.x_max_m <= self.x_min_m:
            raise ValueError("x_max_m must be greater than x_min_m")
        if self.y_max_m <= self.y_min_m:
            raise ValueError("y_max_m must be greater than y_min_m")
        return self


class RandomWalkMobility(_Strict):
    """Seeded random walk inside ``bounds``.

    Every ``step_s`` seconds the station draws a heading uniformly in
    [0, 2π) and a speed uniformly in [``speed_min_mps``, ``speed_max_mps``];
    when it reaches the border it stops there and draws again (the
    Mininet-WiFi / BonnMotion "random walk" with a bounded area). The walk
    starts at the node's ``position``, which must lie inside ``bounds``.
    """

    model: Literal["random_walk"] = "random_walk"
    bounds: Bounds
    speed_min_mps: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 1.0
    speed_max_mps: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 5.0
    step_s: PositiveSeconds = 10.0
    seed: int = 0

    @model_validator(mode="after")
    def _speeds(self) -> "RandomWalkMobility":
        if self.speed_max_mps < self.speed_min_mps:
            raise ValueError("speed_max_mps must be at least speed_min_mps")
        return self


class RandomWaypointMobility(_Strict):
    """Seeded random waypoint inside ``bounds`` (Johnson & Maltz 1996).

    The station draws a destination uniformly in ``bounds`` and a speed
    uniformly in [``speed_min_mps``, ``speed_max_mps``], moves there in a
    straight line, pauses ``pause_s`` seconds, and repeats. It starts at the
    node's ``position`` (inside ``bounds``).
    """

    model: Literal["random_waypoint"] = "random_waypoint"
    bounds: Bounds
    speed_min_mps: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 1.0
    speed_max_mps: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 5.0
    pause_s: NonNegativeSeconds = 0.0
    seed: int = 0

    @model_validator(mode="after")
    def _speeds(self) -> "RandomWaypointMobility":
        if self.speed_max_mps < self.speed_min_mps:
            raise ValueError("speed_max_mps must be at least speed_min_mps")
        return self


class GaussMarkovMobility(_Strict):
    """Seeded Gauss–Markov mobility inside ``bounds`` (Liang & Haas 1999).

    Every ``step_s`` the speed and heading are updated as
    ``s_n = α·s_{n−1} + (1−α)·s̄ + σ_s·√(1−α²)·w`` (likewise the heading, with
    mean heading kept pointing away from a border the station approaches),
    with ``w`` standard normal; α ∈ [0, 1] is the memory (0: random walk,
    1: straight line). The station starts at the node's ``position``.
    """

    model: Literal["gauss_markov"] = "gauss_markov"
    bounds: Bounds
    mean_speed_mps: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 3.0
    speed_std_mps: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 1.0
    heading_std_rad: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.5
    alpha: Annotated[float, Field(ge=0, le=1)] = 0.75
    step_s: PositiveSeconds = 1.0
    seed: int = 0


class LoiterMobility(_Strict):
    """A UAV loiter pattern: a circle or a racetrack flown at constant speed.

    ``circle``: radius ``radius_m`` around ``center``. ``racetrack``: two straight
    legs of ``length_m`` parallel to ``heading_deg`` (clockwise from north), joined
    by half circles of ``radius_m``, centred on ``center``. The node holds at the
    pattern's entry point (for a circle, the point at bearing ``heading_deg`` from
    the centre; for a racetrack, the start of the outbound straight leg) until
    ``start_s``, then flies the pattern at ``speed_mps`` (``clockwise`` seen from
    above). ``alt_m`` is its altitude (``center.alt_m`` is not used). Trajectories
    approximate arcs by chords with a radial error below 0.5 % of ``radius_m``
    (:func:`subflow.space.mobility.trajectory`).
    """

    model: Literal["loiter"] = "loiter"
    center: Position
    radius_m: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    speed_mps: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    alt_m: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0
    pattern: Literal["circle", "racetrack"] = "circle"
    length_m: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0
    heading_deg: Annotated[float, Field(ge=0, lt=360, allow_inf_nan=False)] = 0.0
    clockwise: bool = True
    start_s: NonNegativeSeconds = 0.0


Mobility = Annotated[
    Union[
        StaticMobility,
        WaypointsMobility,
        LinearMobility,
        RandomWalkMobility,
        RandomWaypointMobility,
        GaussMarkovMobility,
        LoiterMobility,
    ],
    Field(discriminator="model"),
]

# --------------------------------------------------------------------------- nodes


#: what a node is drawn as (display only: changes no figure): the platform behind the network role
NodeIcon = Literal["ship", "uav", "vehicle", "soldier", "building", "buoy", "aircraft"]


class _NodeBase(_Strict):
    id: Identifier
    label: str | None = Field(default=None, max_length=80)
    icon: NodeIcon | None = Field(default=None, description="What the node is drawn as in the editor and the "
                                  "results (a ship, a UAV, …); display only.")
    position: Position = Field(default_factory=Position)
    mobility: Mobility = Field(
        default_factory=StaticMobility,
        description="How the node moves (every kind may move; a satellite is refused by the engines until "
        "orbits are modelled).",
    )


_RELAY = Field(
    default=False,
    description="Forwards transit traffic (a relay). Hosts and stations are end points only unless marked: "
    "no route passes through an unmarked host or station (docs/radio.md).",
)


class HostNode(_NodeBase):
    """A fixed end host (e.g. a ship's server)."""

    kind: Literal["host"] = "host"
    relay: bool = _RELAY


class SwitchNode(_NodeBase):
    """A (software-defined) switch, e.g. a ship's SATCOM switch."""

    kind: Literal["switch"] = "switch"


class RouterNode(_NodeBase):
    kind: Literal["router"] = "router"


class TleEphemeris(_Strict):
    """A satellite's orbit as a NORAD two-line element set, propagated with SGP4 (sgp4/skyfield).

    Both lines are 69 characters with a valid modulo-10 checksum in column 69
    (CelesTrak, "NORAD Two-Line Element Set Format"); the element set's epoch must
    lie within ``satcom.max_tle_age_days`` of ``satcom.start_utc``.
    """

    model: Literal["tle"] = "tle"
    line1: Annotated[str, Field(min_length=69, max_length=69, pattern=r"^1 [ -~]{67}$",
                                description="TLE line 1 (69 characters, starts with '1 ').")]
    line2: Annotated[str, Field(min_length=69, max_length=69, pattern=r"^2 [ -~]{67}$",
                                description="TLE line 2 (69 characters, starts with '2 ').")]

    @field_validator("line1", "line2")
    @classmethod
    def _checksum(cls, line: str) -> str:
        want = sum((int(c) if c.isdigit() else c == "-") for c in line[:68]) % 10
        if not line[68].isdigit() or int(line[68]) != want:
            raise ValueError(f"bad TLE checksum (column 69 is {line[68]!r}, the line tallies to {want})")
        return line

    @model_validator(mode="after")
    def _same_satellite(self) -> "TleEphemeris":
        if self.line1[2:7] != self.line2[2:7]:
            raise ValueError("line1 and line2 give different satellite numbers (columns 3-7)")
        return self


class GeostationaryEphemeris(_Strict):
    """A geostationary satellite: fixed above the equator at ``lon_deg``, 35,786 km above the WGS84
    equator (geocentric radius 42,164 km)."""

    model: Literal["geostationary"] = "geostationary"
    lon_deg: Longitude = Field(description="Longitude of the sub-satellite point, WGS84 degrees.")


Ephemeris = Annotated[Union[TleEphemeris, GeostationaryEphemeris], Field(discriminator="model")]


class SatellitePayload(_Strict):
    """What a satellite's payload offers a SATCOM link budget (:mod:`subflow.space.link_budget`).

    ``eirp_dbw`` is the EIRP of one carrier toward a terminal (after output back-off), ``g_t_dbk`` the
    receive figure of merit toward it; ``transponder``: ``bent_pipe`` (transparent: a carrier's
    uplink and downlink noise add up, 1/(C/N) = 1/(C/N)up + 1/(C/N)down) or ``regenerative``
    (demodulated on board: each leg picks its own MODCOD).
    """

    eirp_dbw: Annotated[float, Field(ge=-20, le=80, allow_inf_nan=False)] = Field(
        description="Satellite EIRP per carrier toward the terminals, dBW, in [-20, 80].")
    g_t_dbk: Annotated[float, Field(ge=-40, le=40, allow_inf_nan=False)] = Field(
        description="Satellite receive G/T, dB/K, in [-40, 40].")
    transponder: Literal["bent_pipe", "regenerative"] = Field(
        default="bent_pipe",
        description="bent_pipe: transparent, a link budget naming a gateway_link combines both legs' C/N; "
        "regenerative: each leg (terminal up, terminal down) on its own.")


class SatelliteNode(_NodeBase):
    """A satellite relay.

    ``orbit`` is a label for planning and drawing. With an ``ephemeris`` (and a geographic
    scenario with ``satcom`` settings) the satellite moves on its orbit: each of its links to a
    ground terminal gets its one-way delay from the slant range and is up only while the
    satellite is above the terminal's elevation mask and is the one the terminal uses
    (:mod:`subflow.space.satcom`); the node's ``position`` is then only where it is drawn.
    """

    kind: Literal["satellite"] = "satellite"
    orbit: Literal["geo", "meo", "leo"] = "geo"
    ephemeris: Ephemeris | None = Field(
        default=None,
        description="Where the satellite is over time: a TLE (SGP4) or a geostationary longitude; null: no "
        "orbit, its links carry their own delay_ms.",
    )
    constellation: Identifier | None = Field(
        default=None,
        description="Constellation the satellite belongs to: a ground terminal linked to several satellites "
        "of one constellation uses one at a time (satcom.handover_policy); null: a constellation of its own.",
    )
    payload: SatellitePayload | None = Field(
        default=None,
        description="EIRP, G/T and transponder kind for the link budgets of its SATCOM links (Link.budget); "
        "null: its links keep their bandwidth_mbps.",
    )


#: frequency ranges (MHz) of each 802.11 PHY: 2.4 GHz (g), 5 GHz (a, ac), either (n)
PHY_BANDS_MHZ: dict[str, tuple[tuple[float, float], ...]] = {
    "g": ((2400.0, 2500.0),),
    "a": ((4900.0, 5925.0),),
    "ac": ((4900.0, 5925.0),),
    "n": ((2400.0, 2500.0), (4900.0, 5925.0)),
}
_PHY_WIDTHS_MHZ = {"a": (20,), "g": (20,), "n": (20, 40), "ac": (20, 40, 80, 160)}


def channel_frequency_mhz(channel: int) -> float:
    """Centre frequency of an 802.11 channel number, MHz: 2407 + 5·n for channels 1-13 and 2484 for 14
    (2.4 GHz, IEEE 802.11-2020 §15.4.4.3, §17.3.8.4.2's ERP use of them), 5000 + 5·n for channels 32-177
    (5 GHz, §17.3.8.4.2 and §21.3.14 for the centre channels of 40/80/160 MHz).

    Raises
    ------
    ValueError
        For a number that names no 2.4 or 5 GHz channel.
    """
    if 1 <= channel <= 13:
        return 2407.0 + 5.0 * channel
    if channel == 14:
        return 2484.0
    if 32 <= channel <= 177:
        return 5000.0 + 5.0 * channel
    raise ValueError(f"channel {channel} is not an 802.11 channel of the 2.4 GHz (1-14) or 5 GHz (32-177) band")


class NodeRadio(_Strict):
    """The 802.11 radio of an access point or a station (transmit power, antenna, channel, PHY).

    With a ``radio`` on an access point, the range and the air rate of each station follow from the
    propagation model of ``Scenario.radio.propagation`` (:mod:`subflow.radio.propagation`): received power →
    SNR → the fastest MCS of the access point's PHY the SNR reaches; the range is where the slowest
    MCS fails. A hop between an access point and a station uses the access point's frequency, PHY and
    channel width, the smaller of the two transmit powers, and both antenna gains.
    """

    tx_power_dbm: Annotated[float, Field(ge=-10, le=30, allow_inf_nan=False)] = Field(
        default=20.0, description="Transmit power, dBm, in [-10, 30] (30 dBm = 1 W, the most any 802.11 "
        "regulatory domain allows at the antenna input)."
    )
    antenna_gain_dbi: Annotated[float, Field(ge=-10, le=30, allow_inf_nan=False)] = Field(
        default=0.0, description="Antenna gain, dBi, in [-10, 30]."
    )
    frequency_mhz: Annotated[float, Field(gt=0, allow_inf_nan=False)] = Field(
        default=2412.0, description="Carrier frequency, MHz, within the PHY's band (g: 2400-2500; a, ac: "
        "4900-5925; n: either)."
    )
    phy: Literal["a", "g", "n", "ac"] = Field(
        default="g", description="802.11 PHY whose MCS table applies (a/g OFDM, n HT, ac VHT; one spatial stream)."
    )
    channel_width_mhz: Literal[20, 40, 80, 160] = Field(
        default=20, description="Channel width, MHz: 20 for a/g, 20 or 40 for n, up to 160 for ac."
    )
    antenna_height_m: Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False)] = Field(
        default=1.0, description="Antenna height above the node's altitude (two-ray ground model), metres."
    )
    channel: Annotated[int, Field(ge=1, le=177)] | None = Field(
        default=None, description="802.11 channel number (1-14 at 2.4 GHz, 32-177 at 5 GHz; the centre channel "
        "at 40/80/160 MHz): sets frequency_mhz, which may then be left out (or must agree). Access points whose "
        "channels overlap and that hear each other share their airtime (docs/radio.md)."
    )

    @model_validator(mode="before")
    @classmethod
    def _channel(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("channel") is not None:
            channel = data["channel"]
            if isinstance(channel, float) and channel.is_integer():
                channel = int(channel)
            if isinstance(channel, int) and not isinstance(channel, bool):
                freq = channel_frequency_mhz(channel)
                given = data.get("frequency_mhz")
                if given is None:
                    data = {**data, "frequency_mhz": freq}
                elif isinstance(given, (int, float)) and given > 0 and abs(float(given) - freq) > 1e-6:
                    raise ValueError(f"channel {channel} is {freq:g} MHz but frequency_mhz is {given:g}: "
                                     "give one of them, or both agreeing")
        return data

    @model_validator(mode="after")
    def _band(self) -> "NodeRadio":
        bands = PHY_BANDS_MHZ[self.phy]
        if not any(lo <= self.frequency_mhz <= hi for lo, hi in bands):
            want = " or ".join(f"{lo:g}-{hi:g}" for lo, hi in bands)
            raise ValueError(f"frequency_mhz {self.frequency_mhz:g} is outside 802.11{self.phy}'s band ({want} MHz)")
        if self.channel_width_mhz not in _PHY_WIDTHS_MHZ[self.phy]:
            raise ValueError(f"channel_width_mhz {self.channel_width_mhz} is not a channel width of "
                             f"802.11{self.phy} ({_PHY_WIDTHS_MHZ[self.phy]})")
        return self


class RateStep(_Strict):
    """Air rate up to a distance from the access point."""

    distance_m: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    bandwidth_mbps: PositiveMbps


class AccessPointNode(_NodeBase):
    """A Wi-Fi access point (e.g. carried by a UAV).

    A station within ``range_m`` of the access point can associate with it. How long a
    handover takes follows from its mechanisms (:func:`subflow.radio.association.handover_timing`,
    docs/radio.md): a station notices it lost its access point after ``radio.handover.missed_beacons``
    beacons of ``beacon_interval_ms``, scans, then authenticates and associates; ``association_delay_s``,
    when set, replaces that model by a fixed delay from the moment the station leaves the range
    or comes into it. The wireless hop is a medium shared by every station associated with this
    access point.
    """

    kind: Literal["access_point"] = "access_point"
    range_m: Annotated[float, Field(gt=0, allow_inf_nan=False)]
    network: Identifier = Field(
        default="wlan",
        description="Radio access network (technology) of this access point. A station has one radio "
        "per network: it can be associated with one access point of each network at the same time "
        "(e.g. WLAN and UMTS, msctp-cmt-handover Fig. 1).",
    )
    association_delay_s: NonNegativeSeconds | None = Field(
        default=None,
        description="Override of the handover timing: a fixed delay, s, from the moment a station leaves an "
        "access point's range (or comes into this one's) until its hop through this access point carries "
        "traffic. null: the delay follows from beacon-loss detection, scanning, authentication and "
        "association (radio.handover, beacon_interval_ms; docs/radio.md).",
    )
    beacon_interval_ms: Annotated[float, Field(gt=0, le=10_000, allow_inf_nan=False)] = Field(
        default=102.4,
        description="Beacon interval, ms (802.11's default dot11BeaconPeriod, 100 TU of 1.024 ms): a station "
        "notices the access point is gone after radio.handover.missed_beacons of them.",
    )
    wireless_bandwidth_mbps: PositiveMbps = 54.0
    wireless_delay_ms: NonNegativeMs = 1.0
    wireless_loss: LossFraction = 0.0
    queue_packets: Annotated[int, Field(ge=1, le=100_000)] = 100
    rate_table: list[RateStep] | None = Field(
        default=None,
        description="Optional rate vs distance: the air rate is the bandwidth_mbps of the first "
        "entry whose distance_m is at least the station's distance (entries sorted by distance_m). "
        "Overrides the rate a radio would give.",
    )
    radio: NodeRadio | None = Field(
        default=None,
        description="802.11 radio: with it, the association range is the smaller of range_m and the range "
        "where the slowest MCS fails, and each station's air rate follows from its SNR (docs/radio.md).",
    )
    uplink: Identifier | None = Field(
        default=None,
        description="Wireless backhaul: the id of another access point this one associates with as a "
        "client (a UAV relaying through another UAV or a ship's access point), within that access "
        "point's range.",
    )

    @model_validator(mode="after")
    def _rate_table_sorted(self) -> "AccessPointNode":
        if self.rate_table:
            for i in range(1, len(self.rate_table)):
                if self.rate_table[i].distance_m <= self.rate_table[i - 1].distance_m:
                    raise ValueError(f"rate_table[{i}].distance_m must increase")
        return self


class StationNode(_NodeBase):
    """A mobile user (ground unit, small ship) with Wi-Fi and optional wired links."""

    kind: Literal["station"] = "station"
    relay: bool = _RELAY
    radio: NodeRadio | None = Field(
        default=None,
        description="802.11 radio of the station (transmit power and antenna gain on access point hops; "
        "everything on ad-hoc links).",
    )


Node = Annotated[
    Union[HostNode, StationNode, AccessPointNode, SwitchNode, SatelliteNode, RouterNode],
    Field(discriminator="kind"),
]
NODE_KINDS = ("host", "station", "access_point", "switch", "satellite", "router")

# --------------------------------------------------------------------------- links and flows


SeriesStep = tuple[Annotated[float, Field(ge=0, allow_inf_nan=False)], Annotated[float, Field(allow_inf_nan=False)]]


class SatcomBudget(_Strict):
    """The link budget of a SATCOM link (a link between a ground terminal and a satellite with an
    ``ephemeris`` and a ``payload``), evaluated at every ``satcom.sample_s`` by
    :mod:`subflow.space.link_budget` (docs/satcom.md): free-space loss from the slant range, gaseous,
    cloud, rain attenuation and scintillation (ITU-R P.618/P.676/P.840/P.838/P.837 through ``itur``),
    pointing and polarisation losses, Es/N0 per direction, the DVB-S2(X) MODCOD it closes with
    ``margin_db`` and the link's capacity = symbol rate × spectral efficiency in each direction.
    """

    terminal_eirp_dbw: Annotated[float, Field(ge=-20, le=90, allow_inf_nan=False)] = Field(
        description="Terminal EIRP toward the satellite, dBW, in [-20, 90].")
    terminal_g_t_dbk: Annotated[float, Field(ge=-40, le=50, allow_inf_nan=False)] = Field(
        description="Terminal receive G/T, dB/K, in [-40, 50].")
    uplink_ghz: Annotated[float, Field(ge=1, le=55, allow_inf_nan=False)] = Field(
        description="Uplink (terminal → satellite) frequency, GHz, in [1, 55] (ITU-R P.618's range).")
    downlink_ghz: Annotated[float, Field(ge=1, le=55, allow_inf_nan=False)] = Field(
        description="Downlink (satellite → terminal) frequency, GHz, in [1, 55].")
    symbol_rate_msps: Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False)] = Field(
        description="Symbol rate of the carrier in each direction, Msym/s (noise bandwidth = symbol rate); "
        "capacity = symbol rate × the MODCOD's bit/symbol, Mbit/s.")
    standard: Literal["dvb-s2", "dvb-s2x"] = Field(
        default="dvb-s2", description="MODCOD table: dvb-s2 (EN 302 307-1 Table 13) or dvb-s2x (also EN "
        "302 307-2 Table 20a).")
    modcod: str | None = Field(
        default=None, description="null: adaptive coding and modulation (ACM), the most efficient MODCOD whose "
        "required Es/N0 plus margin_db is met at each step; a MODCOD name (e.g. 'QPSK 3/4'): constant coding "
        "and modulation (CCM), the link is down while it does not close.")
    margin_db: Annotated[float, Field(ge=0, le=20, allow_inf_nan=False)] = Field(
        default=1.0, description="Margin kept above a MODCOD's required Es/N0, dB, in [0, 20].")
    pointing_loss_db: Annotated[float, Field(ge=0, le=20, allow_inf_nan=False)] = Field(
        default=0.3, description="Antenna pointing loss, dB, each direction.")
    polarisation_loss_db: Annotated[float, Field(ge=0, le=20, allow_inf_nan=False)] = Field(
        default=0.1, description="Polarisation mismatch loss, dB, each direction.")
    antenna_diameter_m: Annotated[float, Field(gt=0, le=30, allow_inf_nan=False)] = Field(
        default=1.2, description="Terminal antenna diameter, m (ITU-R P.618 §2.4 scintillation).")
    antenna_efficiency: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] = Field(
        default=0.65, description="Terminal antenna aperture efficiency, in (0, 1] (scintillation).")
    exceedance_pct: Annotated[float, Field(ge=0.001, le=5, allow_inf_nan=False)] = Field(
        default=0.1, description="Percentage of an average year the atmospheric attenuation is exceeded, %, in "
        "[0.001, 5] (ITU-R P.618 §2.2.1.1's range): rain from ITU-R P.837's rain rate at the terminal, gases, "
        "clouds and scintillation at this percentage.")
    rain_rate_mm_h: list[SeriesStep] | None = Field(
        default=None, max_length=10_000,
        description="Scripted rain instead of the P.837 statistic: [[t_s, mm/h], ...] steps (each rate holds "
        "from its t_s to the next), rain rate in [0, 250] mm/h; attenuation by ITU-R P.618 §2.2.1.1 with that "
        "rate over the path (P.838 specific attenuation).")
    rain_attenuation_db: list[SeriesStep] | None = Field(
        default=None, max_length=10_000,
        description="Scripted rain attenuation instead: [[t_s, dB], ...] steps, dB in [0, 60], the attenuation "
        "at downlink_ghz; the uplink's is scaled to uplink_ghz by ITU-R P.618 §2.2.1.3 (long-term frequency "
        "scaling).")
    gateway_link: Identifier | None = Field(
        default=None, description="Bent-pipe satellite: the link from the same satellite to the gateway whose "
        "budget gives the far leg (return: this terminal's uplink with the gateway's downlink; forward: the "
        "gateway's uplink with this terminal's downlink); null: this link's legs alone.")


class Link(_Strict):
    """A full-duplex wired link; each direction has its own ``bandwidth_mbps``."""

    id: Identifier
    src: Identifier
    dst: Identifier
    bandwidth_mbps: PositiveMbps
    delay_ms: NonNegativeMs = 0.0
    loss: LossFraction = 0.0
    jitter_ms: NonNegativeMs = 0.0
    queue_packets: Annotated[int, Field(ge=1, le=100_000)] = 100
    budget: SatcomBudget | None = Field(
        default=None, description="SATCOM link budget (a link to a satellite with an ephemeris and a payload): "
        "its capacity follows the MODCOD of each time step instead of bandwidth_mbps; null: bandwidth_mbps.")


#: DiffServ classes a flow may be marked with, by name: Expedited Forwarding (RFC 3246), the Assured Forwarding
#: classes AF11–AF43 (RFC 2597), the class selectors CS1–CS7 (RFC 2474 §4.2.2) and best effort (BE, default
#: forwarding, code point 0; RFC 2474 §4.1); RFC 4594's service classes map voice to EF and video to AF4x
DSCP_CODEPOINTS = {
    "BE": 0, "EF": 46,
    "AF11": 10, "AF12": 12, "AF13": 14, "AF21": 18, "AF22": 20, "AF23": 22,
    "AF31": 26, "AF32": 28, "AF33": 30, "AF41": 34, "AF42": 36, "AF43": 38,
    "CS1": 8, "CS2": 16, "CS3": 24, "CS4": 32, "CS5": 40, "CS6": 48, "CS7": 56,
}
DscpClass = Literal["BE", "EF", "AF11", "AF12", "AF13", "AF21", "AF22", "AF23", "AF31", "AF32", "AF33",
                    "AF41", "AF42", "AF43", "CS1", "CS2", "CS3", "CS4", "CS5", "CS6", "CS7"]
#: the kinds of traffic a flow may carry; ``tcp`` is the strategy's transport (single-path TCP, MPTCP, SCTP...)
FLOW_KINDS = ("tcp", "udp", "voice", "video")


class UdpSource(_Strict):
    """A non-responsive UDP source of a ``udp`` flow, sending at the flow's ``rate_mbps``.

    ``cbr``: constant bit rate throughout. ``on_off``: bursts at ``rate_mbps`` separated by silences, the
    period lengths drawn from ``periods`` (exponential with the given means, or Pareto with shape
    ``pareto_shape`` and the given means; ns-3's OnOffApplication, ns-2's Application/Traffic/Exponential and
    /Pareto), so the mean rate is ``rate_mbps`` · on_s / (on_s + off_s).
    """

    pattern: Literal["cbr", "on_off"] = Field(default="cbr", description="cbr: constant rate; on_off: bursts "
                                              "at rate_mbps separated by silences.")
    packet_bytes: Annotated[int, Field(ge=28, le=65_507)] = Field(
        default=1200, description="UDP payload of one packet, bytes (28 to 65507).")
    periods: Literal["exponential", "pareto"] = Field(
        default="exponential", description="Distribution of the on and off period lengths (on_off).")
    mean_on_s: Annotated[float, Field(gt=0, le=3600, allow_inf_nan=False)] = Field(
        default=1.0, description="Mean length of an on period, s (on_off).")
    mean_off_s: Annotated[float, Field(gt=0, le=3600, allow_inf_nan=False)] = Field(
        default=1.0, description="Mean length of an off period, s (on_off).")
    pareto_shape: Annotated[float, Field(gt=1, le=10, allow_inf_nan=False)] = Field(
        default=1.5, description="Shape of the Pareto periods, > 1 so that the mean exists (on_off, pareto).")


class VoiceSource(_Strict):
    """The voice codec of a ``voice`` flow: its rate on the wire follows from the codec and the packetisation
    (:func:`subflow.results.voice.wire_rate_kbps`: payload + 40 bytes of IPv4/UDP/RTP per packet)."""

    codec: Literal["g711", "g729a", "opus"] = Field(
        default="g711", description="g711: 64 kbit/s PCM; g729a: 8 kbit/s CS-ACELP; opus: at opus_bitrate_kbps.")
    packet_interval_ms: Annotated[float, Field(ge=10, le=120, allow_inf_nan=False)] = Field(
        default=20.0, description="Audio carried by one RTP packet, ms (10 to 120; RFC 3551 §4.2: 20 by default); "
        "g729a in whole 10 ms frames.")
    silence_suppression: bool = Field(
        default=False, description="Voice activity detection: no packets while the talker is silent (G.729 Annex "
        "B; on the E-model it selects G.113's G.729A + VAD values).")
    plc: bool = Field(default=True, description="Packet loss concealment at the receiver (G.711 Appendix I).")
    opus_bitrate_kbps: Annotated[float, Field(ge=6, le=510, allow_inf_nan=False)] | None = Field(
        default=None, description="Opus payload rate, kbit/s (6 to 510, RFC 7587 §3.1.1); only and required "
        "for codec opus.")

    @model_validator(mode="after")
    def _opus_rate(self) -> "VoiceSource":
        if (self.codec == "opus") != (self.opus_bitrate_kbps is not None):
            raise ValueError("opus_bitrate_kbps is required for codec opus and only for it")
        if self.codec == "g729a" and abs(self.packet_interval_ms / 10 - round(self.packet_interval_ms / 10)) > 1e-9:
            raise ValueError("packet_interval_ms: g729a packs whole 10 ms frames")
        return self


class VideoSource(_Strict):
    """The encoder of a ``video`` flow: mean bit rate, frame rate and group of pictures (one intra-coded frame
    every ``gop_frames`` frames, the others predicted)."""

    bitrate_mbps: PositiveMbps = Field(description="Mean encoded bit rate, Mbit/s.")
    frame_rate_fps: Annotated[float, Field(gt=0, le=240, allow_inf_nan=False)] = Field(
        default=30.0, description="Frames per second.")
    gop_frames: Annotated[int, Field(ge=1, le=1000)] = Field(
        default=30, description="Frames in a group of pictures (its first intra-coded); 1 = intra only.")


class Flow(_Strict):
    """An application flow from ``src`` to ``dst``.

    ``kind`` is the traffic it carries: ``tcp`` (default) is the strategy's transport (TCP, MPTCP or SCTP,
    :mod:`subflow.runplan.strategies`), ``rate_mbps`` its application's demand, ``null`` a bulk transfer that
    sends as fast as its transport allows. ``udp`` is a non-responsive source at ``rate_mbps`` (required;
    pattern in ``udp``), ``voice`` an RTP voice call whose rate follows from ``voice`` (its codec), ``video``
    an encoder at ``video.bitrate_mbps``; those three take no ``rate_mbps`` (voice, video) and no
    ``size_bytes``. ``dscp`` is the DiffServ class the flow's packets carry. The flow is active in
    [``start_s``, ``stop_s``); ``stop_s`` null means until the end of the run.
    """

    id: Identifier
    src: Identifier
    dst: Identifier
    rate_mbps: PositiveMbps | None = None
    size_bytes: Annotated[int, Field(gt=0)] | None = Field(
        default=None, description="A finite transfer (file) of this many bytes; null = runs until stop_s."
    )
    start_s: NonNegativeSeconds = 0.0
    stop_s: PositiveSeconds | None = None
    kind: Literal["tcp", "udp", "voice", "video"] = Field(
        default="tcp", description="tcp: the strategy's transport (bulk or at rate_mbps); udp: a non-responsive "
        "source at rate_mbps (settings in udp); voice: an RTP voice call (settings in voice); video: an encoder "
        "(settings in video).")
    dscp: DscpClass = Field(default="BE", description="DiffServ class of the flow's packets: EF, AF11-AF43, "
                            "CS1-CS7 or BE (best effort).")
    udp: UdpSource | None = Field(default=None, description="Source of a udp flow; null = cbr defaults.")
    voice: VoiceSource | None = Field(default=None, description="Codec of a voice flow; null = G.711 every 20 ms.")
    video: VideoSource | None = Field(default=None, description="Encoder of a video flow (required for it).")

    @model_validator(mode="after")
    def _window(self) -> "Flow":
        if self.stop_s is not None and self.stop_s <= self.start_s:
            raise ValueError("stop_s must be greater than start_s")
        return self


def flow_kind_errors(i: int, flow: Flow) -> list[dict[str, Any]]:
    """The rules tying flow number ``i``'s ``kind`` to its other fields, as ``{"loc", "msg"}`` entries naming
    the field: a kind's settings only with that kind, ``video`` required for a video flow, ``rate_mbps``
    required for udp and refused for voice and video (their rates follow from codec and encoder),
    ``size_bytes`` only for tcp."""
    out: list[dict[str, Any]] = []
    for settings in ("udp", "voice", "video"):
        if getattr(flow, settings) is not None and flow.kind != settings:
            out.append({"loc": ["flows", i, settings], "msg": f"{settings} settings need kind {settings!r}, "
                                                               f"not {flow.kind!r}"})
    if flow.kind == "video" and flow.video is None:
        out.append({"loc": ["flows", i, "video"], "msg": "a video flow needs its encoder (video.bitrate_mbps)"})
    if flow.kind == "udp" and flow.rate_mbps is None:
        out.append({"loc": ["flows", i, "rate_mbps"], "msg": "a udp flow sends at rate_mbps: it is required"})
    if flow.kind in ("voice", "video") and flow.rate_mbps is not None:
        out.append({"loc": ["flows", i, "rate_mbps"],
                    "msg": f"a {flow.kind} flow's rate follows from its {flow.kind} settings: leave rate_mbps null"})
    if flow.kind != "tcp" and flow.size_bytes is not None:
        out.append({"loc": ["flows", i, "size_bytes"], "msg": "a finite transfer (size_bytes) is a tcp flow's"})
    return out


#: DSCP → IEEE 802.11 access category (RFC 8325 §4.3 and Figure 1, "Mapping Diffserv to IEEE 802.11"):
#: telephony (EF) and network control (CS6) to AC_VO; broadcast and real-time video, interactive video and
#: multimedia streaming (CS5, AF4x, CS4, AF3x, CS3) to AC_VI; low-priority data (CS1) to AC_BK; everything else
#: to AC_BE. RFC 8325 leaves CS7 unmapped (UP 0, best effort): so does this table.
DSCP_ACCESS_CATEGORY = {
    "EF": "voice", "CS6": "voice",
    "CS5": "video", "AF41": "video", "AF42": "video", "AF43": "video", "CS4": "video",
    "AF31": "video", "AF32": "video", "AF33": "video", "CS3": "video",
    "CS1": "background",
    **{d: "best_effort" for d in ("BE", "AF11", "AF12", "AF13", "AF21", "AF22", "AF23", "CS2", "CS7")},
}


class TrafficClass(_Strict):
    """One class of every link's queues: the DiffServ classes it holds and how it is served.

    Under ``strict_priority`` a class is served only while every class of a lower ``priority`` number is empty
    (Linux ``tc prio`` bands, band 0 first). Under ``drr`` (deficit round robin, Shreedhar & Varghese 1996; Linux
    ``tc drr``/``htb`` classes) the classes that have packets share the link in proportion to ``weight`` (each
    round a class may send ``weight`` × one maximum packet), and an empty class's share goes to the others.
    """

    name: Identifier = Field(description="The class's name (e.g. voice, video, best_effort).")
    dscp: list[DscpClass] = Field(min_length=1, max_length=21, description="The DiffServ classes whose packets "
                                  "it queues; each DSCP in at most one class (unlisted DSCPs go to the class that "
                                  "lists BE).")
    priority: Annotated[int, Field(ge=0, le=7)] = Field(
        default=0, description="strict_priority: served while every class with a smaller number is empty (0 first); "
        "unique among the classes.")
    weight: Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False)] = Field(
        default=1.0, description="drr: share of the link while every class has packets, in proportion to the "
        "other classes' weights.")
    queue_packets: Annotated[int, Field(ge=1, le=100_000)] | None = Field(
        default=None, description="This class's buffer on each link, packets; null: the link's queue_packets.")


class QueueingSettings(_Strict):
    """How every link's queue serves the flows' DiffServ classes (``Flow.dscp``).

    ``fifo`` (default): one drop-tail queue per link direction, first in first out whatever the class.
    ``strict_priority`` and ``drr``: one drop-tail queue per class of ``classes`` on every wired link direction and
    802.11 hop (under ``dcf``), served by priority or by weighted deficit round robin. ``wifi`` ``edca``: on 802.11 hops
    each flow's packets contend in the access category of its DSCP (:data:`DSCP_ACCESS_CATEGORY`, RFC 8325) with
    the default EDCA parameters of IEEE 802.11-2020 Table 9-155 (AIFSN, CWmin, CWmax, TXOP limit per category);
    ``dcf``: one category for every flow.
    """

    discipline: Literal["fifo", "strict_priority", "drr"] = Field(
        default="fifo", description="fifo: one queue, first in first out; strict_priority: classes by priority; "
        "drr: classes by weight (deficit round robin).")
    classes: list[TrafficClass] | None = Field(
        default=None, max_length=8, description="The classes of strict_priority and drr; null: four classes by "
        "RFC 8325's access categories (voice EF/CS6, video CS5/AF4x/CS4/AF3x/CS3, best_effort, background CS1).")
    wifi: Literal["dcf", "edca"] = Field(
        default="dcf", description="802.11 hops: dcf = one access category for every flow; edca = each flow in "
        "the access category of its DSCP (RFC 8325) with IEEE 802.11-2020's default EDCA parameters.")

    @model_validator(mode="after")
    def _classes_consistent(self) -> "QueueingSettings":
        if not self.classes:
            return self
        seen: dict[str, str] = {}
        for i, c in enumerate(self.classes):
            for d in c.dscp:
                if d in seen:
                    raise ValueError(f"classes[{i}].dscp: {d} is already in class {seen[d]!r}")
                seen[d] = c.name
        if "BE" not in seen:
            raise ValueError("classes: one class must list BE (it also takes every unlisted DSCP)")
        names = [c.name for c in self.classes]
        if len(set(names)) != len(names):
            raise ValueError("classes: class names must be unique")
        if self.discipline == "strict_priority" and len({c.priority for c in self.classes}) != len(self.classes):
            raise ValueError("classes: under strict_priority each class needs its own priority")
        return self


#: the classes of ``QueueingSettings.classes`` null: RFC 8325's four access categories, served in that order by
#: strict_priority, and by drr with weights 4:3:2:1 (AC_VO to AC_BK)
DEFAULT_TRAFFIC_CLASSES = (
    TrafficClass(name="voice", dscp=["EF", "CS6"], priority=0, weight=4.0),
    TrafficClass(name="video", dscp=["CS5", "AF41", "AF42", "AF43", "CS4", "AF31", "AF32", "AF33", "CS3"],
                 priority=1, weight=3.0),
    TrafficClass(name="best_effort", dscp=["BE", "AF11", "AF12", "AF13", "AF21", "AF22", "AF23", "CS2", "CS7"],
                 priority=2, weight=2.0),
    TrafficClass(name="background", dscp=["CS1"], priority=3, weight=1.0),
)


def traffic_class_of(queueing: QueueingSettings, dscp: str) -> TrafficClass:
    """The class of ``queueing`` (its ``classes``, or :data:`DEFAULT_TRAFFIC_CLASSES`) that holds DSCP class
    ``dscp`` (a name of :data:`DSCP_CODEPOINTS`); an unlisted DSCP falls to the class that lists BE."""
    classes = queueing.classes or DEFAULT_TRAFFIC_CLASSES
    for c in classes:
        if dscp in c.dscp:
            return c
    return next(c for c in classes if "BE" in c.dscp)


class TransportSettings(_Strict):
    """TCP parameters shared by every strategy of a run.

    ``min_rto_s`` is the RTO floor: 0.2 s as in Linux, 1 s per RFC 6298 §2.4. ``rto_form`` is where the
    floor applies: ``"linux"`` floors the variance term (RTO = SRTT + max(G, 4·RTTVAR, min_rto_s), Linux
    ``tcp_set_rto``, so never below SRTT + min_rto_s), ``"rfc6298"`` floors the sum
    (RTO = max(min_rto_s, SRTT + max(G, 4·RTTVAR)), RFC 6298 §2.3–2.4, as ns-3 and most other stacks).
    """

    mss_bytes: Annotated[int, Field(ge=500, le=9000)] = 1448
    initial_cwnd_packets: Annotated[int, Field(ge=1, le=100)] = 10
    min_rto_s: Annotated[float, Field(gt=0, le=10)] = 0.2
    max_rto_s: Annotated[float, Field(gt=0, le=600)] = 60.0
    initial_rto_s: Annotated[float, Field(gt=0, le=60)] = 1.0
    rto_form: Literal["linux", "rfc6298"] = Field(
        default="linux",
        description="How the RTO follows from SRTT and RTTVAR: linux = SRTT + max(G, 4*RTTVAR, min_rto_s) (the "
        "kernel's tcp_set_rto); rfc6298 = max(min_rto_s, SRTT + max(G, 4*RTTVAR)) (RFC 6298 §2.3-2.4, ns-3).",
    )
    congestion_control: Literal["reno", "newreno", "cubic"] = Field(
        default="newreno",
        description="Single-path congestion control (RFC 5681, RFC 6582, RFC 9438).",
    )
    rbuf_bytes: Annotated[int, Field(ge=4096, le=1 << 31)] | None = Field(
        default=None,
        description="Receive buffer shared by a connection's subflows; null = large enough never to block.",
    )


class LinkEvent(_Strict):
    """A scheduled change of a wired link's state (e.g. a SATCOM failure)."""

    t_s: NonNegativeSeconds
    link: Identifier
    state: Literal["down", "up"]


class PropagationSettings(_Strict):
    """The path-loss model of every radio hop, and the noise floor (:mod:`subflow.radio.propagation`).

    ``friis`` (free space), ``log_distance`` (``exponent``, ``reference_distance_m``,
    ``reference_loss_db``; null = Friis at the reference distance, as ns-3 computes its 46.68 dB
    at 1 m, 5.15 GHz) or ``two_ray`` (ground reflection; the antenna heights are the nodes'
    initial altitudes plus ``NodeRadio.antenna_height_m``) — the models of ns-3 and Mininet-WiFi.
    """

    model: Literal["friis", "log_distance", "two_ray"] = "friis"
    exponent: Annotated[float, Field(ge=1.5, le=6, allow_inf_nan=False)] = Field(
        default=3.0, description="Path-loss exponent n of log_distance, in [1.5, 6] (2 free space, 2.7-3.5 "
        "urban, 4-6 obstructed in buildings; Rappaport Table 4.2)."
    )
    reference_distance_m: Annotated[float, Field(gt=0, le=10_000, allow_inf_nan=False)] = Field(
        default=1.0, description="Reference distance d0 of log_distance, metres."
    )
    reference_loss_db: Annotated[float, Field(ge=0, le=200, allow_inf_nan=False)] | None = Field(
        default=None, description="Path loss at d0, dB; null = Friis at d0 (log_distance)."
    )
    system_loss_db: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] = Field(
        default=0.0, description="System loss L added to friis and two_ray, dB."
    )
    noise_floor_dbm: Annotated[float, Field(ge=-130, le=-30, allow_inf_nan=False)] | None = Field(
        default=None, description="Noise floor of a 20 MHz channel, dBm (+3 dB per doubling of the width); "
        "null = the rate selection's own: -93.99 dBm for error_rate and nist (thermal noise plus a 7 dB noise "
        "figure, as ns-3), -90.99 dBm for min_sensitivity (the 10 dB noise figure behind 802.11's sensitivity tables)."
    )


class HandoverSettings(_Strict):
    """How a station notices a lost access point and finds the next (:func:`subflow.radio.association.handover_timing`).

    The defaults are ns-3's (``StaWifiMac``: ``MaxMissedBeacons`` 10, passive scanning on the current
    channel for ``WaitBeaconTimeout`` 120 ms; ``ProbeRequestTimeout`` 50 ms when active), which the
    802.11 reference of docs/validation measures. Linux's mac80211 declares a beacon loss after 7
    (IEEE80211_BEACON_LOSS_COUNT) and then probes the access point before it gives it up.
    """

    missed_beacons: Annotated[int, Field(ge=1, le=1000)] = Field(
        default=10,
        description="Beacons missed in a row before the station declares its access point lost (beacon-loss "
        "detection: missed_beacons × the access point's beacon_interval_ms after the last one heard).",
    )
    scan: Literal["passive", "active"] = Field(
        default="passive",
        description="passive: listen on each channel for channel_dwell_ms; active: send a probe request on each "
        "channel and wait probe_wait_ms for responses (IEEE 802.11-2020 §11.1.4).",
    )
    scan_channels: Annotated[int, Field(ge=1, le=200)] = Field(
        default=1,
        description="Channels one scan visits (1: only the current channel, as ns-3; 11 for all of 2.4 GHz in "
        "most regulatory domains).",
    )
    channel_dwell_ms: Annotated[float, Field(gt=0, le=10_000, allow_inf_nan=False)] = Field(
        default=120.0,
        description="Passive scan: time on each channel, ms (at least a beacon interval to hear every access "
        "point; ns-3's WaitBeaconTimeout).",
    )
    probe_wait_ms: Annotated[float, Field(gt=0, le=10_000, allow_inf_nan=False)] = Field(
        default=50.0,
        description="Active scan: time on each channel after the probe request, ms (MaxChannelTime; ns-3's "
        "ProbeRequestTimeout).",
    )
    scan_results_max_age_s: Annotated[float, Field(ge=0, le=86_400, allow_inf_nan=False)] = Field(
        default=0.0,
        description="A station that lost its access point joins one its last scan heard without scanning again "
        "while that scan is at most this old, s (0: it always scans). wpa_supplicant reuses scan results up to "
        "5 s old for a fast reconnect (SCAN_RES_VALID_FOR_CONNECT); ns-3's StaWifiMac reuses what its last scan "
        "left, however old.",
    )


class RadioSettings(_Strict):
    """How stations pick an access point among those in range, and the radio propagation.

    ``ssf``: strongest signal (nearest) first; ``llf``: least loaded (fewest
    associated stations) first, nearest breaking ties — Mininet-WiFi's
    ``ac_method`` values. ``rate_selection``: how a hop's SNR picks its MCS
    (:class:`subflow.radio.propagation.LinkBudget`, docs/radio.md).
    """

    association_policy: Literal["ssf", "llf"] = "ssf"
    propagation: PropagationSettings = Field(default_factory=PropagationSettings)
    rate_selection: Literal["error_rate", "nist", "min_sensitivity"] = Field(
        default="error_rate",
        description="How a radio hop's SNR picks its MCS: error_rate = the fastest MCS whose decoded bit error "
        "rate stays at or below 1e-6 (1.19 % PER of a 1500-byte frame) under a soft-decision Viterbi bound (what "
        "rate control such as ns-3's Ideal or Minstrel picks); nist = ns-3's NIST OFDM model (hard-decision bound) "
        "at 10 % PER of a 1500-byte frame, about 3 dB more cautious; min_sensitivity = the standard's minimum "
        "receiver sensitivities (IEEE 802.11-2020 Tables 17-18, 19-23, 21-25), the conservative choice. The "
        "association range (where the slowest MCS fails) follows the same method.",
    )
    adhoc_links: bool = Field(
        default=False,
        description="Stations with a radio form ad-hoc (station-to-station) links while within each other's "
        "radio range; their rate follows from the SNR (docs/radio.md).",
    )
    handover: HandoverSettings = Field(
        default_factory=HandoverSettings,
        description="Beacon-loss detection and scanning of a handover (access points without association_delay_s).",
    )


class ControllerSettings(_Strict):
    """The SDN controller of the SDN-assisted strategies.

    ``notification_delay_s``: time for an association or disassociation to
    reach the controller (~70 ms in the Mininet-WiFi testbed of Singh &
    Pandey 2021, §3.5). ``interval_s``: period of the controller loop that
    re-computes and re-installs rate allocations (Zhao et al. 2018, §V-C).
    """

    notification_delay_s: NonNegativeSeconds = 0.07
    interval_s: PositiveSeconds = 1.0


class SatcomBeam(_Strict):
    """A spot beam of a satellite whose carriers its terminals share (docs/satcom.md, "Shared beams").

    The member links' terminals share the beam's forward carrier (satellite → terminal, at
    ``forward_symbol_rate_msps``) and, with ``return_symbol_rate_msps``, one return carrier (terminal →
    satellite) in time: with ``policy`` ``equal_airtime`` each terminal that has traffic in a direction
    gets an equal part of the carrier's time (less if its flows ask for less, the rest going to the others);
    with ``demand_assigned`` each active terminal is guaranteed ``min_share`` of the time (or its whole demand
    if smaller) and the rest goes in proportion to the demand still unmet (docs/satcom.md). A terminal
    carries its time share × the beam's symbol rate × the spectral efficiency of its own MODCOD (its
    link budget's Es/N0 at the beam's symbol rate).
    """

    id: Identifier = Field(description="The beam's id.")
    satellite: Identifier = Field(description="The satellite (with an ephemeris and a payload) that forms the beam.")
    forward_symbol_rate_msps: Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False)] = Field(
        description="Symbol rate of the beam's shared forward carrier, Msym/s, in (0, 1000].")
    return_symbol_rate_msps: Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False)] | None = Field(
        default=None, description="Symbol rate of a shared return carrier, Msym/s; null: each terminal keeps its "
        "own return carrier (its budget's symbol_rate_msps).")
    policy: Literal["equal_airtime", "demand_assigned"] = Field(
        default="equal_airtime", description="How the terminals share a carrier's time: equal_airtime (each "
        "terminal with traffic an equal share; one whose flows ask less leaves the rest to the others) or "
        "demand_assigned (DAMA: each terminal with traffic is guaranteed min_share of the time, or its whole "
        "demand if smaller, and the rest of the time goes in proportion to the demand still unmet; a bulk "
        "flow's demand is the whole carrier).")
    min_share: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] | None = Field(
        default=None, description="demand_assigned only: the carrier time guaranteed to each terminal with "
        "traffic, a fraction in (0, 1/n] with n the number of member links; null: 1/(2n) (half the carrier "
        "guaranteed, half by demand). Refused with equal_airtime.")
    links: list[Identifier] = Field(
        min_length=1, max_length=1000,
        description="The member links: budgeted SATCOM links between a terminal and this satellite.")


class SatcomSettings(_Strict):
    """Satellite links computed from orbits (:mod:`subflow.space.satcom`; docs/satcom.md).

    A link between a ground terminal (any node that is not a satellite) and a satellite
    with an ``ephemeris`` is a SATCOM link: its one-way delay is slant range / c at each
    ``sample_s``, and it is up while the satellite's elevation seen from the terminal is
    at least ``elevation_mask_deg`` and the terminal uses that satellite. A link between two
    satellites with an ephemeris is an inter-satellite link: its one-way delay is range / c, and it is
    up while the line of sight clears the Earth by ``isl_grazing_altitude_km`` (and, with
    ``isl_max_range_km``, while the range is within it).
    """

    start_utc: AwareDatetime = Field(
        description="Absolute time (UTC, ISO 8601 with offset) of t = 0 of the run; orbits are propagated from it."
    )
    elevation_mask_deg: Annotated[float, Field(ge=0, le=90, allow_inf_nan=False)] = Field(
        default=10.0, description="Ground terminals' elevation mask, degrees in [0, 90]: a satellite below it is "
        "not visible.")
    handover_policy: Literal["highest_elevation", "longest_visibility"] = Field(
        default="highest_elevation",
        description="Which visible satellite of a constellation a terminal uses: highest_elevation (switches as "
        "soon as another is higher), longest_visibility (keeps its satellite until it sets, then takes the "
        "visible one that stays visible longest).")
    gateways: list[Identifier] = Field(
        default_factory=list, max_length=1000,
        description="Ground terminals (e.g. a shore teleport) with one tracking antenna per satellite: every "
        "visible satellite's link is up at once, no handover.")
    max_tle_age_days: Annotated[float, Field(gt=0, le=365, allow_inf_nan=False)] = Field(
        default=14.0, description="A TLE epoch further than this from start_utc, days, is refused (SGP4 errors "
        "grow by kilometres per day away from the epoch).")
    sample_s: Annotated[float, Field(gt=0, le=60, allow_inf_nan=False)] = Field(
        default=1.0, description="Time step of the geometry, seconds: elevations and slant ranges are computed "
        "at these times, mask and handover crossings interpolated linearly between them.")
    delay_resolution_ms: Annotated[float, Field(gt=0, le=100, allow_inf_nan=False)] = Field(
        default=0.1, description="A SATCOM link's delay is changed in the run plan whenever it has moved by at "
        "least this much, ms.")
    beams: list[SatcomBeam] = Field(
        default_factory=list, max_length=1000,
        description="Spot beams whose forward (and return) carriers their member links' terminals share in time.")
    isl_grazing_altitude_km: Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False)] = Field(
        default=80.0, description="Inter-satellite links (a link between two satellites with an ephemeris): the "
        "line of sight between them must pass at least this high above the WGS84 ellipsoid (the atmosphere "
        "it must clear), km; below, the link is down.")
    isl_max_range_km: Annotated[float, Field(gt=0, le=200_000, allow_inf_nan=False)] | None = Field(
        default=None, description="Inter-satellite links: the longest range at which they close, km (the "
        "terminals' pointing or power limit); farther apart the link is down. Null: no limit.")

    @field_validator("start_utc")
    @classmethod
    def _era(cls, value: datetime) -> datetime:
        try:
            utc = value.astimezone(timezone.utc)
        except OverflowError:
            raise ValueError("start_utc is out of range") from None
        if not (datetime(1957, 10, 4, tzinfo=timezone.utc) <= utc < datetime(2100, 1, 1, tzinfo=timezone.utc)):
            raise ValueError("start_utc must lie between 1957-10-04 (the first satellite) and 2100-01-01")
        return utc


class RunSettings(_Strict):
    duration_s: Annotated[float, Field(gt=0, le=86_400, allow_inf_nan=False)] = 100.0
    interval_s: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 1.0
    #: seeds the engines' random draws (numpy generators, 64-bit counter keys): 0 to 2^63 − 1
    seed: int = Field(default=1, ge=0, le=2**63 - 1)

    @model_validator(mode="after")
    def _interval(self) -> "RunSettings":
        if self.interval_s > self.duration_s:
            raise ValueError("interval_s must not exceed duration_s")
        if self.duration_s / self.interval_s > 200_000:
            raise ValueError("duration_s / interval_s must not exceed 200000 samples")
        return self


class Scenario(_Strict):
    """A complete planning scenario (schema version 2).

    Version 1 documents (planar positions, only stations move) are a subset of
    version 2: they load as they are and mean the same, so no stored document is
    rewritten (a stored snapshot keeps its ``schema_version``); new documents are 2.
    """

    schema_version: Literal[1, 2] = Field(
        default=2, description="2 (a version 1 document is a valid version 2 document and loads unchanged)."
    )
    name: Annotated[str, Field(min_length=1, max_length=120)]
    description: str = Field(default="", max_length=4000)
    nodes: list[Node] = Field(min_length=1, max_length=10_000)
    links: list[Link] = Field(default_factory=list, max_length=50_000)
    flows: list[Flow] = Field(default_factory=list, max_length=10_000)
    link_events: list[LinkEvent] = Field(default_factory=list, max_length=10_000)
    radio: RadioSettings = Field(default_factory=RadioSettings)
    controller: ControllerSettings = Field(default_factory=ControllerSettings)
    run: RunSettings = Field(default_factory=RunSettings)
    transport: TransportSettings = Field(default_factory=TransportSettings)
    geo: GeoSettings | None = Field(
        default=None,
        description="Origin of the local projected frame of a geographic scenario; null: the centroid of the "
        "node positions.",
    )
    satcom: SatcomSettings | None = Field(
        default=None,
        description="Satellite links from orbits (start time, elevation mask, handover policy); required when "
        "a satellite has an ephemeris.",
    )
    queueing: QueueingSettings = Field(
        default_factory=QueueingSettings,
        description="How every link's queue serves the flows' DiffServ classes: fifo (default), strict_priority or "
        "drr, and EDCA access categories on 802.11 hops (docs/traffic.md).",
    )
    capture: list[Identifier] = Field(
        default_factory=list, max_length=64,
        description="Ids of links whose packets the run records as pcapng (one file per link and strategy, at one "
        "end of the link; the linux engine only, other engines refuse it). Snap length and size cap are the "
        "agent's settings CAPTURE_SNAPLEN_BYTES and MAX_CAPTURE_BYTES.",
    )

    @property
    def is_geo(self) -> bool:
        """True when the nodes are placed by latitude/longitude."""
        return bool(self.nodes) and self.nodes[0].position.is_geo

    def node(self, node_id: str) -> Any:
        """Return the node with ``node_id``; raises KeyError if absent."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)


def check_references(scenario: Scenario) -> None:
    """Check the rules that tie parts of a scenario together.

    Raises
    ------
    ScenarioInvalid
        With one entry per problem, ``loc`` being the JSON path, e.g.
        ``["links", 0, "dst"]`` for a link to an unknown node.
    """
    errors: list[dict[str, Any]] = []
    node_ids: dict[str, int] = {}
    for i, n in enumerate(scenario.nodes):
        if n.id in node_ids:
            errors.append({"loc": ["nodes", i, "id"], "msg": f"duplicate node id {n.id!r}"})
        node_ids.setdefault(n.id, i)
    mixed = _mixed_point(scenario)
    if mixed:
        errors.append(mixed)
    elif scenario.geo is not None and not scenario.is_geo:
        errors.append({"loc": ["geo"], "msg": "geo (the origin of the local frame) applies to geographic scenarios "
                                              "only; this one places its nodes by x_m/y_m"})
    elif any(isinstance(n.mobility, (RandomWalkMobility, RandomWaypointMobility, GaussMarkovMobility))
             for n in scenario.nodes):
        for i, n in enumerate(scenario.nodes):
            if isinstance(n.mobility, (RandomWalkMobility, RandomWaypointMobility, GaussMarkovMobility)):
                b = n.mobility.bounds
                x, y = local_xy(scenario, n.position)
                if not (b.x_min_m <= x <= b.x_max_m and b.y_min_m <= y <= b.y_max_m):
                    errors.append(
                        {"loc": ["nodes", i, "position"], "msg": "the node must start inside mobility.bounds"}
                    )
    errors += _uplink_errors(scenario)
    link_ids: set[str] = set()
    pairs: dict[frozenset[str], int] = {}
    for i, link in enumerate(scenario.links):
        if link.id in link_ids:
            errors.append({"loc": ["links", i, "id"], "msg": f"duplicate link id {link.id!r}"})
        link_ids.add(link.id)
        for end in ("src", "dst"):
            ref = getattr(link, end)
            if ref not in node_ids:
                errors.append({"loc": ["links", i, end], "msg": f"unknown node {ref!r}"})
        if link.src == link.dst:
            errors.append({"loc": ["links", i, "dst"], "msg": "a link must join two different nodes"})
        pair = frozenset((link.src, link.dst))
        if pair in pairs and link.src != link.dst:
            errors.append(
                {"loc": ["links", i], "msg": f"nodes already joined by link index {pairs[pair]}"}
            )
        pairs.setdefault(pair, i)
    flow_ids: set[str] = set()
    duration = scenario.run.duration_s
    for i, f in enumerate(scenario.flows):
        if f.id in flow_ids:
            errors.append({"loc": ["flows", i, "id"], "msg": f"duplicate flow id {f.id!r}"})
        flow_ids.add(f.id)
        for end in ("src", "dst"):
            ref = getattr(f, end)
            if ref not in node_ids:
                errors.append({"loc": ["flows", i, end], "msg": f"unknown node {ref!r}"})
        if f.src == f.dst:
            errors.append({"loc": ["flows", i, "dst"], "msg": "dst must differ from src"})
        if f.start_s >= duration:
            errors.append({"loc": ["flows", i, "start_s"], "msg": "start_s must be before run.duration_s"})
        if f.stop_s is not None and f.stop_s > duration:
            errors.append({"loc": ["flows", i, "stop_s"], "msg": "stop_s must not exceed run.duration_s"})
        errors += flow_kind_errors(i, f)
    for i, ev in enumerate(scenario.link_events):
        if ev.link not in link_ids:
            errors.append({"loc": ["link_events", i, "link"], "msg": f"unknown link {ev.link!r}"})
        if ev.t_s > duration:
            errors.append({"loc": ["link_events", i, "t_s"], "msg": "t_s must not exceed run.duration_s"})
    errors += _satcom_errors(scenario, node_ids)
    errors += _capture_errors(scenario, link_ids)
    if errors:
        raise ScenarioInvalid(errors)


def _capture_errors(scenario: Scenario, link_ids: set[str]) -> list[dict[str, Any]]:
    """``capture`` names links of the scenario, each once."""
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, lid in enumerate(scenario.capture):
        if lid not in link_ids:
            errors.append({"loc": ["capture", i], "msg": f"unknown link {lid!r}"})
        elif lid in seen:
            errors.append({"loc": ["capture", i], "msg": f"link {lid!r} is listed twice"})
        seen.add(lid)
    return errors


def _satcom_errors(scenario: Scenario, node_ids: dict[str, int]) -> list[dict[str, Any]]:
    """Rules of satellites with an ephemeris: a geographic scenario with ``satcom``, TLE epochs near
    ``satcom.start_utc``, gateways that are ground nodes (a link between two orbiting satellites is an
    inter-satellite link, :func:`subflow.space.satcom.isl_timeline`)."""
    errors: list[dict[str, Any]] = []
    orbiting = {n.id for n in scenario.nodes if isinstance(n, SatelliteNode) and n.ephemeris is not None}
    sc = scenario.satcom
    if orbiting and sc is None:
        i = node_ids[sorted(orbiting, key=node_ids.__getitem__)[0]]
        errors.append({"loc": ["satcom"], "msg": f"nodes[{i}] has an ephemeris: satcom (start_utc, elevation "
                                                 "mask, handover policy) is required"})
    if orbiting and not scenario.is_geo:
        i = node_ids[sorted(orbiting, key=node_ids.__getitem__)[0]]
        errors.append({"loc": ["nodes", i, "ephemeris"],
                       "msg": "orbits need a geographic scenario (lat_deg/lon_deg positions)"})
    if sc is not None:
        from sgp4.api import Satrec  # the TLE's epoch as sgp4 parses it

        start_jd = sc.start_utc.timestamp() / 86400.0 + 2440587.5
        for i, n in enumerate(scenario.nodes):
            if isinstance(n, SatelliteNode) and isinstance(n.ephemeris, TleEphemeris):
                sat = Satrec.twoline2rv(n.ephemeris.line1, n.ephemeris.line2)
                age = abs(sat.jdsatepoch + sat.jdsatepochF - start_jd)
                msg = None
                if sat.error != 0 or not math.isfinite(age):
                    msg = f"the TLE cannot be parsed (sgp4 error {sat.error})"
                elif age > sc.max_tle_age_days:
                    msg = (f"the TLE epoch is {age:.1f} days from satcom.start_utc (at most "
                           f"satcom.max_tle_age_days = {sc.max_tle_age_days:g})")
                else:
                    err, r, _ = sat.sgp4(math.floor(start_jd), start_jd - math.floor(start_jd))
                    if err != 0 or not all(math.isfinite(x) for x in r):
                        msg = f"SGP4 cannot propagate this orbit to satcom.start_utc (sgp4 error {err})"
                if msg:
                    errors.append({"loc": ["nodes", i, "ephemeris", "line1"], "msg": msg})
        for k, g in enumerate(sc.gateways):
            if g not in node_ids:
                errors.append({"loc": ["satcom", "gateways", k], "msg": f"unknown node {g!r}"})
            elif isinstance(scenario.nodes[node_ids[g]], SatelliteNode):
                errors.append({"loc": ["satcom", "gateways", k], "msg": "a gateway is a ground terminal, not a "
                                                                        "satellite"})
    errors += _budget_errors(scenario, orbiting)
    errors += _beam_errors(scenario, orbiting)
    return errors


#: bounds of the scripted rain series: rain rates (mm/h) and attenuations (dB) the models are used for
RAIN_RATE_MAX_MM_H = 250.0
RAIN_ATTENUATION_MAX_DB = 60.0


def _series_errors(loc: list[Any], series: list[tuple[float, float]], top: float, unit: str,
                   duration: float) -> list[dict[str, Any]]:
    """A scripted ``[[t_s, value], ...]`` series: times increasing within the run, values in [0, top]."""
    errors: list[dict[str, Any]] = []
    for k, (t, v) in enumerate(series):
        if t > duration:
            errors.append({"loc": [*loc, k, 0], "msg": f"t_s = {t:g} s is after run.duration_s"})
        if k and t <= series[k - 1][0]:
            errors.append({"loc": [*loc, k, 0], "msg": "times must increase"})
        if not 0 <= v <= top:
            errors.append({"loc": [*loc, k, 1], "msg": f"{v:g} {unit} is outside [0, {top:g}] {unit}"})
    return errors


def _budget_errors(scenario: Scenario, orbiting: set[str]) -> list[dict[str, Any]]:
    """Rules of SATCOM link budgets: on a link between a ground terminal and a satellite with an ephemeris and
    a payload; a MODCOD of the chosen standard; one rain series at most, within the models' range; a gateway
    link that is another budgeted link of the same bent-pipe satellite."""
    errors: list[dict[str, Any]] = []
    nodes = {n.id: n for n in scenario.nodes}
    links = {link.id: link for link in scenario.links}
    duration = scenario.run.duration_s
    for i, link in enumerate(scenario.links):
        b = link.budget
        if b is None:
            continue
        loc = ["links", i, "budget"]
        sat = next((e for e in (link.src, link.dst) if e in orbiting), None)
        if sat is None or (link.src in orbiting and link.dst in orbiting):
            errors.append({"loc": loc, "msg": "a link budget needs a link between a ground terminal and a "
                                              "satellite with an ephemeris"})
            continue
        if nodes[sat].payload is None:
            errors.append({"loc": loc, "msg": f"satellite {sat!r} has no payload (eirp_dbw, g_t_dbk)"})
        if b.modcod is not None and b.modcod not in {m.name for m in MODCODS[b.standard]}:
            errors.append({"loc": [*loc, "modcod"], "msg": f"unknown {b.standard} MODCOD {b.modcod!r}"})
        if b.rain_rate_mm_h is not None and b.rain_attenuation_db is not None:
            errors.append({"loc": [*loc, "rain_attenuation_db"], "msg": "give rain_rate_mm_h or "
                                                                        "rain_attenuation_db, not both"})
        if b.rain_rate_mm_h is not None:
            errors += _series_errors([*loc, "rain_rate_mm_h"], b.rain_rate_mm_h, RAIN_RATE_MAX_MM_H, "mm/h", duration)
        if b.rain_attenuation_db is not None:
            errors += _series_errors([*loc, "rain_attenuation_db"], b.rain_attenuation_db, RAIN_ATTENUATION_MAX_DB,
                                     "dB", duration)
        g = links.get(b.gateway_link) if b.gateway_link is not None else None
        if b.gateway_link is None:
            continue
        if g is None or g.id == link.id:
            errors.append({"loc": [*loc, "gateway_link"], "msg": f"{b.gateway_link!r} is not another link"})
        elif sat not in (g.src, g.dst) or g.budget is None:
            errors.append({"loc": [*loc, "gateway_link"], "msg": f"link {g.id!r} must join satellite {sat!r} "
                                                                 "and carry its own budget"})
        elif nodes[sat].payload is not None and nodes[sat].payload.transponder != "bent_pipe":
            errors.append({"loc": [*loc, "gateway_link"], "msg": f"satellite {sat!r} is regenerative: each leg "
                                                                 "closes on its own, no gateway_link"})
    return errors


def _beam_errors(scenario: Scenario, orbiting: set[str]) -> list[dict[str, Any]]:
    """Rules of shared beams: unique ids, a satellite with an ephemeris and a payload, member links that exist,
    carry a budget, join that satellite, and belong to one beam at most."""
    errors: list[dict[str, Any]] = []
    if scenario.satcom is None:
        return errors
    nodes = {n.id: n for n in scenario.nodes}
    links = {link.id: link for link in scenario.links}
    seen_beams: set[str] = set()
    member_of: dict[str, str] = {}
    for i, beam in enumerate(scenario.satcom.beams):
        loc = ["satcom", "beams", i]
        if beam.id in seen_beams:
            errors.append({"loc": [*loc, "id"], "msg": f"beam id {beam.id!r} is used twice"})
        seen_beams.add(beam.id)
        sat = nodes.get(beam.satellite)
        if beam.satellite not in orbiting or sat.payload is None:
            errors.append({"loc": [*loc, "satellite"], "msg": f"{beam.satellite!r} is not a satellite with an "
                                                              "ephemeris and a payload"})
            continue
        errors += _min_share_errors(beam, loc)
        for k, lid in enumerate(beam.links):
            link = links.get(lid)
            if link is None:
                errors.append({"loc": [*loc, "links", k], "msg": f"unknown link {lid!r}"})
            elif link.budget is None or beam.satellite not in (link.src, link.dst):
                errors.append({"loc": [*loc, "links", k], "msg": f"link {lid!r} must join satellite "
                                                                 f"{beam.satellite!r} and carry a budget"})
            elif lid in member_of:
                errors.append({"loc": [*loc, "links", k], "msg": f"link {lid!r} is already in beam "
                                                                 f"{member_of[lid]!r}"})
            else:
                member_of[lid] = beam.id
    return errors


def _min_share_errors(beam: SatcomBeam, loc: list) -> list[dict[str, Any]]:
    """A beam's ``min_share`` is for ``demand_assigned`` only and at most 1/n (n member links: every terminal
    can be guaranteed it at once)."""
    if beam.min_share is None:
        return []
    if beam.policy != "demand_assigned":
        return [{"loc": [*loc, "min_share"], "msg": "min_share applies to policy demand_assigned only"}]
    if beam.min_share * len(beam.links) > 1.0 + 1e-12:
        return [{"loc": [*loc, "min_share"], "msg": f"min_share {beam.min_share} is above 1/{len(beam.links)} "
                                                    f"(the beam has {len(beam.links)} member links)"}]
    return []


def _uplink_errors(scenario: Scenario) -> list[dict[str, Any]]:
    """An access point's ``uplink`` must name another access point, and uplinks must not form a cycle."""
    errors: list[dict[str, Any]] = []
    aps = {n.id: (i, n) for i, n in enumerate(scenario.nodes) if isinstance(n, AccessPointNode)}
    for ap_id, (i, ap) in aps.items():
        if ap.uplink is None:
            continue
        if ap.uplink == ap_id:
            errors.append({"loc": ["nodes", i, "uplink"], "msg": "an access point cannot be its own uplink"})
        elif ap.uplink not in aps:
            errors.append({"loc": ["nodes", i, "uplink"], "msg": f"{ap.uplink!r} is not an access point"})
        else:
            seen, cur = {ap_id}, ap.uplink
            while cur is not None and cur in aps:
                if cur in seen:
                    errors.append({"loc": ["nodes", i, "uplink"], "msg": "uplinks form a cycle"})
                    break
                seen.add(cur)
                cur = aps[cur][1].uplink
    return errors


def end_points(scenario: Scenario) -> frozenset[str]:
    """Nodes that carry no transit traffic: hosts and stations not marked ``relay``.

    Switches, routers, access points and satellites forward; a host or a station only
    when marked as a relay (docs/radio.md). Routes of every metric and strategy obey it
    (:meth:`subflow.planning.network.Network.restrict_transit`).
    """
    return frozenset(n.id for n in scenario.nodes
                     if isinstance(n, (HostNode, StationNode)) and not n.relay)


def points_of(node: Any) -> list[tuple[list[Any], _Point]]:
    """Every point of a node with its path relative to the node: ``position`` and its mobility's points."""
    out: list[tuple[list[Any], _Point]] = [(["position"], node.position)]
    m = node.mobility
    if isinstance(m, WaypointsMobility):
        out += [(["mobility", "points", k], p) for k, p in enumerate(m.points)]
    elif isinstance(m, LinearMobility):
        out += [(["mobility", "start"], m.start), (["mobility", "end"], m.end)]
    elif isinstance(m, LoiterMobility):
        out.append((["mobility", "center"], m.center))
    return out


def _mixed_point(scenario: Scenario) -> dict[str, Any] | None:
    """The first point whose kind (planar / geographic) differs from ``nodes[0].position``'s, as an error."""
    geo = scenario.is_geo
    for i, n in enumerate(scenario.nodes):
        for where, p in points_of(n):
            if p.is_geo != geo:
                want = "lat_deg/lon_deg" if geo else "x_m/y_m"
                return {"loc": ["nodes", i, *where],
                        "msg": f"a scenario is all planar or all geographic: nodes[0].position uses "
                               f"{want}, so must this point"}
    return None


def load_scenario(data: Any) -> Scenario:
    """Validate a scenario from parsed JSON (a dict) or a :class:`Scenario`.

    Returns
    -------
    Scenario

    Raises
    ------
    ScenarioInvalid
        Listing every structural or reference problem with its JSON path.
    """
    if isinstance(data, Scenario):
        scenario = data
    else:
        try:
            scenario = Scenario.model_validate(data)
        except ValidationError as exc:
            raise ScenarioInvalid(
                [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors()]
            ) from None
    check_references(scenario)
    return scenario


def scenario_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario document."""
    return Scenario.model_json_schema()
