"""SATCOM from orbits: slant range, elevation, visibility and handover of ground terminals.

A satellite with an ``ephemeris`` (:class:`~subflow.scenario.document.TleEphemeris`, propagated
with SGP4 by skyfield, or :class:`~subflow.scenario.document.GeostationaryEphemeris`) and a link to
a ground terminal of a geographic scenario make a *SATCOM link*. At every
``satcom.sample_s`` of the run this module computes, in the Earth-fixed frame (ITRS ≈
WGS84 ECEF):

* the terminal's position: its planned trajectory (:mod:`subflow.space.mobility`, local
  frame) back to WGS84 (:func:`subflow.scenario.geodesy.LocalFrame.inverse`), then geodetic → ECEF
  (pyproj, EPSG:4979 → EPSG:4978);
* the satellite's position: SGP4 (skyfield ``EarthSatellite.at(t).frame_xyz(itrs)``),
  or for a geostationary satellite the fixed point 35,786 km above the equator at its
  longitude;
* the slant range ``ρ = |r_sat − r_term|`` and the one-way propagation delay
  ``ρ / c`` (c = 299,792.458 km/s) of the link (each direction of it);
* the elevation ``ε = asin((r_sat − r_term)·û / ρ)``, ``û`` the terminal's geodetic up
  vector (ellipsoid normal; Montenbruck & Gill 2000, §2.4, topocentric coordinates).

A satellite is *visible* while ``ε ≥ satcom.elevation_mask_deg``; rise and set times
and the elevation crossings of two satellites are interpolated linearly between
samples. A terminal linked to several satellites of one ``constellation`` uses one at
a time, picked by ``satcom.handover_policy`` (``highest_elevation``: the highest
visible satellite, switching as soon as another is higher; ``longest_visibility``:
keep the satellite until it sets, then take the visible one that sets last); a
terminal listed in ``satcom.gateways`` tracks every visible satellite at once. A
SATCOM link is up while its terminal uses its satellite; its delay changes in the
run plan whenever it has moved by ``satcom.delay_resolution_ms``.

A link between two satellites with an ephemeris is an *inter-satellite link* (ISL,
:func:`isl_timeline`): its range is ``|r_b − r_a|`` of the two Earth-fixed positions, its one-way delay
range / c, and it is up while the segment between the satellites clears the Earth by
``satcom.isl_grazing_altitude_km`` (default 80 km of atmosphere; :func:`line_of_sight_clearance_km`,
Vallado's SIGHT algorithm on the WGS84 ellipsoid grown by that altitude) and, with
``satcom.isl_max_range_km``, while the range is within it. Rise and set of an ISL are interpolated
linearly between samples as a terminal's are.

For a terminal at the sub-satellite point of a geostationary satellite,
ρ = 35,786 km → 119.4 ms per leg; at 10° elevation ρ ≈ 40,586 km → 135.4 ms
(law of cosines, e.g. Maral & Bousquet, "Satellite Communications Systems", 5th ed.,
§2.2.4; tests/unit/space/test_satcom.py checks both).

References
----------
.. [1] D. A. Vallado, P. Crawford, R. Hujsak, T. S. Kelso, "Revisiting Spacetrack
   Report #3", AIAA 2006-6753 (SGP4, as implemented by the ``sgp4`` package).
.. [2] O. Montenbruck, E. Gill, "Satellite Orbits", Springer 2000, §2.4.
.. [3] G. Maral, M. Bousquet, "Satellite Communications Systems", 5th ed., Wiley 2009, §2.2.4.
.. [4] D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., Microcosm Press 2013,
   §5.3 (sight between two satellites, algorithm SIGHT; an oblate Earth by scaling the polar component).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timezone
from functools import lru_cache

import numpy as np
from pydantic import BaseModel, Field
from pyproj import Transformer
from scipy.constants import c as _SPEED_OF_LIGHT_M_S

from subflow.scenario.document import GeostationaryEphemeris, SatelliteNode, Scenario, TleEphemeris
from subflow.scenario.geodesy import frame_of
from subflow.space.mobility import position3_at, to_local, trajectory

__all__ = [
    "GEO_ALTITUDE_M",
    "ISL_GRAZING_ALTITUDE_KM",
    "SPEED_OF_LIGHT_KM_S",
    "WGS84_A_KM",
    "WGS84_B_KM",
    "IslLink",
    "IslState",
    "isl_states",
    "isl_timeline",
    "line_of_sight_clearance_km",
    "SatcomLink",
    "SatcomTimeline",
    "SatcomUse",
    "Use",
    "ecef_km",
    "look_angles",
    "satcom_timeline",
    "satellite_ecef_km",
    "satcom_uses",
    "skyfield_times",
    "ground_tracks",
]

#: speed of light in vacuum, km/s (exact, SI; scipy.constants.c = 299,792,458 m/s)
SPEED_OF_LIGHT_KM_S = _SPEED_OF_LIGHT_M_S / 1000.0
#: WGS84 semi-major (equatorial) and semi-minor (polar) axes, km (NIMA TR8350.2: a = 6378.137 km, 1/f = 298.257223563)
WGS84_A_KM = 6378.137
WGS84_B_KM = WGS84_A_KM * (1.0 - 1.0 / 298.257223563)
#: default height above the ellipsoid an inter-satellite line of sight must clear (atmosphere), km
ISL_GRAZING_ALTITUDE_KM = 80.0
#: altitude of the geostationary orbit above the WGS84 equator, metres (radius 42,164.137 km)
GEO_ALTITUDE_M = 35_786_000.0
_EPS = 1e-9


@lru_cache(maxsize=1)
def _to_ecef() -> Transformer:
    return Transformer.from_crs("EPSG:4979", "EPSG:4978", always_xy=True)


@lru_cache(maxsize=1)
def _to_geodetic() -> Transformer:
    return Transformer.from_crs("EPSG:4978", "EPSG:4979", always_xy=True)


@lru_cache(maxsize=1)
def _timescale():
    from skyfield.api import load

    return load.timescale(builtin=True)


def ecef_km(lat_deg, lon_deg, alt_m) -> np.ndarray:
    """WGS84 geodetic (degrees, degrees, metres; scalars or arrays) → ECEF, km, shape ``(3, N)``."""
    x, y, z = _to_ecef().transform(np.atleast_1d(lon_deg), np.atleast_1d(lat_deg), np.atleast_1d(alt_m),
                                   errcheck=True)
    return np.vstack([np.asarray(x), np.asarray(y), np.asarray(z)]) / 1000.0


def skyfield_times(start_utc, t_s: np.ndarray):
    """Run times ``t_s`` (s after the aware datetime ``start_utc``) as one skyfield ``Time`` array
    (builtin timescale: leap seconds and ΔT shipped with skyfield, no download). Reuse it for every
    satellite: skyfield caches the Earth orientation (nutation) on it.

    The nutation angles are IAU 2000B's (77 lunisolar terms, within 1 mas of IAU 2000A over 1995-2050;
    McCarthy & Luzum, Celestial Mechanics and Dynamical Astronomy 85, 2003), set on the ``Time`` as
    skyfield's own almanac searches set them (``skyfield.almanac``), instead of the full IAU 2000A series
    skyfield computes by default: 1 mas moves a satellite at geostationary range by 0.2 m, and the full
    series cost 0.4-0.6 s per 900 samples, most of a timeline request for a LEO scenario.
    """
    from skyfield.nutationlib import iau2000b_radians

    ts = _timescale()
    s = start_utc.astimezone(timezone.utc)
    t = ts.utc(s.year, s.month, s.day, s.hour, s.minute, s.second + s.microsecond * 1e-6 + np.asarray(t_s))
    t._nutation_angles_radians = iau2000b_radians(t)
    return t


def satellite_ecef_km(ephemeris, start_utc, t_s: np.ndarray, times=None) -> np.ndarray:
    """The satellite's Earth-fixed position at run times ``t_s`` (s after ``start_utc``), km, shape ``(3, N)``.

    TLE: SGP4 by skyfield (TEME → ITRS with skyfield's Earth orientation, builtin
    timescale, no network); ``times``: :func:`skyfield_times` of ``t_s`` when already made.
    Geostationary: fixed, 35,786 km above the equator at ``lon_deg``.
    """
    t_s = np.asarray(t_s, dtype=float)
    if isinstance(ephemeris, GeostationaryEphemeris):
        p = ecef_km(0.0, ephemeris.lon_deg, GEO_ALTITUDE_M)
        return np.repeat(p, len(t_s), axis=1)
    if not isinstance(ephemeris, TleEphemeris):
        raise TypeError(f"unknown ephemeris {type(ephemeris).__name__}")
    from skyfield.api import EarthSatellite
    from skyfield.framelib import itrs

    sat = EarthSatellite(ephemeris.line1, ephemeris.line2, ts=_timescale())
    t = times if times is not None else skyfield_times(start_utc, t_s)
    return sat.at(t).frame_xyz(itrs).km


def look_angles(sat_km: np.ndarray, term_km: np.ndarray, lat_deg, lon_deg) -> tuple[np.ndarray, np.ndarray]:
    """Elevation (degrees) and slant range (km) of satellites seen from terminals, element-wise.

    Parameters
    ----------
    sat_km, term_km : ndarray, shape (3, N)
        Earth-fixed positions, km.
    lat_deg, lon_deg : float or ndarray (N,)
        The terminal's geodetic latitude and longitude (its up vector is the ellipsoid normal).
    """
    lat, lon = np.radians(lat_deg), np.radians(lon_deg)
    up = np.vstack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat) * np.ones_like(lon)])
    d = sat_km - term_km
    rho = np.linalg.norm(d, axis=0)
    elev = np.degrees(np.arcsin(np.clip(np.sum(d * up, axis=0) / rho, -1.0, 1.0)))
    return elev, rho


def line_of_sight_clearance_km(r1_km: np.ndarray, r2_km: np.ndarray,
                               grazing_altitude_km: float = ISL_GRAZING_ALTITUDE_KM) -> np.ndarray:
    """How far the segment between two Earth-fixed points passes above the grazing surface, km.

    The grazing surface is the WGS84 ellipsoid grown by ``grazing_altitude_km`` (semi-axes a + h,
    a + h, b + h). The polar (z) components are scaled by (a + h)/(b + h), which turns that surface into
    the sphere of radius a + h, and the point of the segment nearest the Earth's centre is found as in
    Vallado's SIGHT algorithm [1]_: with ``τ = (|r1|² − r1·r2) / (|r1|² + |r2|² − 2 r1·r2)``, the
    nearest point is ``r1 + τ (r2 − r1)`` when 0 < τ < 1 (``d² = (1 − τ)|r1|² + τ r1·r2``), else the
    nearer end. The clearance is ``d − (a + h)``: the line of sight clears the grown ellipsoid exactly
    when it is ≥ 0. In the equatorial plane and over the poles it is a true height (of the segment's
    lowest point above that surface); elsewhere a distance in the scaled frame, within the flattening
    (0.34 %) of one.

    Parameters
    ----------
    r1_km, r2_km : ndarray, shape (3,) or (3, N)
        Earth-fixed (ITRS / WGS84 ECEF) positions of the two ends, km.
    grazing_altitude_km : float, default 80
        Height above the ellipsoid the line of sight must clear (the atmosphere), km.

    Returns
    -------
    ndarray, shape (N,)
        Clearance, km; negative when the Earth (plus ``grazing_altitude_km``) blocks the line of sight,
        NaN where a position is not finite.

    References
    ----------
    .. [1] D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., Microcosm Press
       2013, §5.3 "Sight and light" (algorithm SIGHT; the oblate Earth by scaling the K component).
    """
    radius = WGS84_A_KM + grazing_altitude_km
    scale = np.array([[1.0], [1.0], [radius / (WGS84_B_KM + grazing_altitude_km)]])
    p = np.asarray(r1_km, dtype=float).reshape(3, -1) * scale
    q = np.asarray(r2_km, dtype=float).reshape(3, -1) * scale
    pp, qq, pq = np.sum(p * p, axis=0), np.sum(q * q, axis=0), np.sum(p * q, axis=0)
    span = pp + qq - 2.0 * pq
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(span > 0, (pp - pq) / np.where(span > 0, span, 1.0), 0.0)
    inside = (tau > 0.0) & (tau < 1.0)
    d2 = np.where(inside, (1.0 - tau) * pp + tau * pq, np.minimum(pp, qq))
    return np.sqrt(np.maximum(d2, 0.0)) - radius


@dataclass
class IslLink:
    """One inter-satellite link (``link`` between satellites ``a`` and ``b``, both with an ephemeris).

    ``t_s``, ``range_km``, ``delay_ms`` (range / c), ``clearance_km`` (:func:`line_of_sight_clearance_km`)
    and ``visible`` at every sample; ``up``: the intervals [t0, t1) during which the line of sight clears
    the grazing surface and the range is within ``satcom.isl_max_range_km``.
    """

    link: str
    a: str
    b: str
    t_s: np.ndarray
    range_km: np.ndarray
    delay_ms: np.ndarray
    clearance_km: np.ndarray
    visible: np.ndarray
    up: list[tuple[float, float]] = field(default_factory=list)

    @property
    def event_node(self) -> str:
        """The node the plan's ``link_down`` / ``link_up`` events name: satellite ``a``."""
        return self.a

    def delay_at(self, t: float) -> float:
        """One-way delay at ``t`` seconds, ms (linear between samples)."""
        return float(np.interp(t, self.t_s, self.delay_ms))

    def range_at(self, t: float) -> float:
        """Range at ``t`` seconds, km (linear between samples)."""
        return float(np.interp(t, self.t_s, self.range_km))

    def is_up(self, t: float) -> bool:
        """Whether the link is up at ``t``."""
        return any(t0 <= t < t1 for t0, t1 in self.up)


@dataclass
class Use:
    """A terminal uses ``satellite`` during [``t0_s``, ``t1_s``)."""

    satellite: str
    t0_s: float
    t1_s: float


@dataclass
class SatcomLink:
    """One SATCOM link (``link`` between ground ``terminal`` and ``satellite``).

    ``t_s``, ``elevation_deg``, ``delay_ms``: the geometry at every sample; ``up``:
    the intervals [t0, t1) during which the link is up (the terminal uses the satellite);
    ``lat_deg``, ``lon_deg``: the terminal's WGS84 position at every sample (link budgets).
    """

    link: str
    terminal: str
    satellite: str
    t_s: np.ndarray
    elevation_deg: np.ndarray
    delay_ms: np.ndarray
    up: list[tuple[float, float]] = field(default_factory=list)
    lat_deg: np.ndarray = field(default_factory=lambda: np.zeros(0))
    lon_deg: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def event_node(self) -> str:
        """The node the plan's ``link_down`` / ``link_up`` events name: the terminal."""
        return self.terminal

    def delay_at(self, t: float) -> float:
        """One-way delay at ``t`` seconds, ms (linear between samples)."""
        return float(np.interp(t, self.t_s, self.delay_ms))

    def is_up(self, t: float) -> bool:
        """Whether the link is up at ``t``."""
        return any(t0 <= t < t1 for t0, t1 in self.up)


@dataclass
class SatcomTimeline:
    """Every SATCOM link of a scenario and, per terminal, the satellites it uses over time; and every
    inter-satellite link."""

    links: dict[str, SatcomLink]
    #: terminal id → the satellites it uses, in time order (a gateway's overlap)
    uses: dict[str, list[Use]]
    #: inter-satellite links by link id (:class:`IslLink`)
    isls: dict[str, IslLink] = field(default_factory=dict)

    def timed_links(self) -> dict[str, SatcomLink | IslLink]:
        """Every link whose delay and state come from the orbits: SATCOM links and ISLs, by link id."""
        return {**self.links, **self.isls}

    def down_intervals(self, duration_s: float) -> list[tuple[str, float, float]]:
        """``(link_id, t_down_s, t_up_s)`` for every time a SATCOM link or ISL is not up, within [0, duration_s]."""
        out = []
        for lk in self.timed_links().values():
            t = 0.0
            for t0, t1 in lk.up:
                if t0 > t + _EPS:
                    out.append((lk.link, t, t0))
                t = t1
            if t < duration_s - _EPS:
                out.append((lk.link, t, duration_s))
        return out

    def delay_steps(self, resolution_ms: float) -> dict[str, list[tuple[float, float]]]:
        """Per link, ``(t_s, delay_ms)`` while it is up: at each up start, then whenever the delay has moved
        by at least ``resolution_ms`` since the last step (rounded to 1 µs)."""
        out: dict[str, list[tuple[float, float]]] = {}
        for lk in self.timed_links().values():
            steps: list[tuple[float, float]] = []
            for t0, t1 in lk.up:
                last = lk.delay_at(t0)
                steps.append((t0, round(last, 3)))
                inside = (lk.t_s > t0) & (lk.t_s < t1)
                for t, d in zip(lk.t_s[inside], lk.delay_ms[inside]):
                    if abs(d - last) >= resolution_ms:
                        last = float(d)
                        steps.append((float(t), round(last, 3)))
            out[lk.link] = steps
        return out


def _crossing(t0: float, t1: float, f0: float, f1: float) -> float:
    """Where the line through (t0, f0), (t1, f1) crosses zero (clamped to [t0, t1])."""
    if f1 == f0:
        return float(t1)
    return float(min(t1, max(t0, t0 + (t1 - t0) * f0 / (f0 - f1))))


def _windows(t: np.ndarray, elev: np.ndarray, mask: float) -> list[tuple[float, float]]:
    """Visibility windows [rise, set) of one elevation series against the mask (linear crossings)."""
    vis = elev >= mask
    out: list[tuple[float, float]] = []
    start = t[0] if vis[0] else None
    for k in range(1, len(t)):
        if vis[k] and not vis[k - 1]:
            start = _crossing(t[k - 1], t[k], elev[k - 1] - mask, elev[k] - mask)
        elif vis[k - 1] and not vis[k]:
            out.append((start, _crossing(t[k - 1], t[k], elev[k - 1] - mask, elev[k] - mask)))
            start = None
    if start is not None:
        out.append((start, float(t[-1])))
    return [(float(a), float(b)) for a, b in out if b > a]


def _select(t: np.ndarray, elev: dict[str, np.ndarray], windows: dict[str, list[tuple[float, float]]],
            mask: float, policy: str) -> list[Use]:
    """The satellite a terminal uses among ``elev``'s (one constellation), by ``policy``."""
    names = sorted(elev)
    if not names:
        return []
    vis = {s: elev[s] >= mask for s in names}

    def set_time(s: str, tk: float) -> float:
        return next((b for a, b in windows[s] if a <= tk + _EPS and tk < b + _EPS), -math.inf)

    sel: list[str | None] = []
    for k in range(len(t)):
        visible = [s for s in names if vis[s][k]]
        cur = sel[-1] if sel else None
        if not visible:
            pick = None
        elif policy == "highest_elevation":
            pick = max(visible, key=lambda s: (elev[s][k], s == cur, s))
        else:
            pick = cur if cur in visible else max(visible, key=lambda s: (set_time(s, t[k]), elev[s][k], s))
        sel.append(pick)
    uses: list[Use] = []
    for k in range(len(t)):
        prev, cur = (sel[k - 1] if k else None), sel[k]
        if k and prev == cur:
            continue
        if prev is None:
            t_switch = float(t[0]) if k == 0 else _crossing(t[k - 1], t[k], elev[cur][k - 1] - mask,
                                                           elev[cur][k] - mask)
            start = t_switch
        else:
            if not vis[prev][k]:  # the satellite set
                t_switch = _crossing(t[k - 1], t[k], elev[prev][k - 1] - mask, elev[prev][k] - mask)
            else:  # another one became higher
                t_switch = _crossing(t[k - 1], t[k], elev[cur][k - 1] - elev[prev][k - 1],
                                     elev[cur][k] - elev[prev][k])
            uses[-1].t1_s = t_switch
            start = t_switch
            if cur is not None and not vis[cur][k - 1]:
                start = max(start, _crossing(t[k - 1], t[k], elev[cur][k - 1] - mask, elev[cur][k] - mask))
        if cur is not None:
            uses.append(Use(cur, float(start), float(t[-1])))
    return [u for u in uses if u.t1_s > u.t0_s]


def satcom_timeline(scenario: Scenario) -> SatcomTimeline:
    """The SATCOM links of a validated scenario, their geometry, up intervals and the satellites in use.

    Parameters
    ----------
    scenario : Scenario
        Validated (:func:`subflow.scenario.document.load_scenario`). Without ``satcom`` or without a
        satellite with an ephemeris the timeline is empty.

    Returns
    -------
    SatcomTimeline
        ``links`` keyed by link id (one per link between a ground node and a satellite with
        an ephemeris), ``uses`` keyed by terminal id.

    Notes
    -----
    Cost: one SGP4 evaluation per satellite and sample (vectorised by skyfield) and one
    pyproj call per terminal.
    """
    sc = scenario.satcom
    sats = {n.id: n for n in scenario.nodes
            if isinstance(n, SatelliteNode) and n.ephemeris is not None}
    if sc is None or not sats or not scenario.is_geo:
        return SatcomTimeline({}, {})
    duration = scenario.run.duration_s
    n = int(math.floor(duration / sc.sample_s + _EPS))
    t = np.append(np.arange(n + 1) * sc.sample_s, duration) if n * sc.sample_s < duration - _EPS \
        else np.arange(n + 1) * sc.sample_s
    frame = frame_of(scenario)
    local = to_local(scenario)
    times = skyfield_times(sc.start_utc, t)
    sat_pos = {s: satellite_ecef_km(node.ephemeris, sc.start_utc, t, times) for s, node in sats.items()}
    # terminal → {satellite: link id}
    pairs: dict[str, dict[str, str]] = {}
    for link in scenario.links:
        for a, b in ((link.src, link.dst), (link.dst, link.src)):
            if b in sats and a not in sats:
                pairs.setdefault(a, {})[b] = link.id
    links: dict[str, SatcomLink] = {}
    uses: dict[str, list[Use]] = {}
    for term, by_sat in pairs.items():
        legs = trajectory(local.node(term), duration, scenario.run.seed)
        xyz = np.array([position3_at(legs, float(tk)) for tk in t])
        lat, lon = frame.inverse(xyz[:, 0], xyz[:, 1])
        lat, lon = np.atleast_1d(lat), np.atleast_1d(lon)
        term_km = ecef_km(lat, lon, xyz[:, 2])
        elev: dict[str, np.ndarray] = {}
        for s, lid in by_sat.items():
            e, rho = look_angles(sat_pos[s], term_km, lat, lon)
            # SGP4 gives no position once an orbit has decayed: the satellite is then never visible
            bad = ~(np.isfinite(e) & np.isfinite(rho))
            if bad.any():
                e = np.where(bad, -90.0, e)
                rho = np.where(bad, float(np.nanmin(rho)) if not bad.all() else 0.0, rho)
            elev[s] = e
            links[lid] = SatcomLink(lid, term, s, t, e, rho / SPEED_OF_LIGHT_KM_S * 1000.0,
                                    lat_deg=lat, lon_deg=lon)
        windows = {s: _windows(t, elev[s], sc.elevation_mask_deg) for s in by_sat}
        if term in sc.gateways:
            term_uses = [Use(s, a, b) for s in sorted(by_sat) for a, b in windows[s]]
        else:
            groups: dict[str, list[str]] = {}
            for s in by_sat:
                groups.setdefault(sats[s].constellation or f"\0{s}", []).append(s)
            term_uses = []
            for members in groups.values():
                term_uses += _select(t, {s: elev[s] for s in members}, {s: windows[s] for s in members},
                                     sc.elevation_mask_deg, sc.handover_policy)
        term_uses.sort(key=lambda u: (u.t0_s, u.satellite))
        uses[term] = term_uses
        for u in term_uses:
            links[by_sat[u.satellite]].up.append((u.t0_s, u.t1_s))
    for lk in links.values():
        lk.up.sort()
    return SatcomTimeline(links, uses, _isl_links(scenario, t, sat_pos))


def _isl_links(scenario: Scenario, t: np.ndarray, sat_pos: dict[str, np.ndarray]) -> dict[str, IslLink]:
    """The inter-satellite links among ``sat_pos``'s satellites (Earth-fixed km at the samples ``t``)."""
    sc = scenario.satcom
    out: dict[str, IslLink] = {}
    for link in scenario.links:
        if link.src not in sat_pos or link.dst not in sat_pos:
            continue
        ra, rb = sat_pos[link.src], sat_pos[link.dst]
        rng = np.linalg.norm(rb - ra, axis=0)
        clear = line_of_sight_clearance_km(ra, rb, sc.isl_grazing_altitude_km)
        margin = clear if sc.isl_max_range_km is None else np.minimum(clear, sc.isl_max_range_km - rng)
        # SGP4 gives no position once an orbit has decayed: the link is then down
        bad = ~(np.isfinite(margin) & np.isfinite(rng))
        margin = np.where(bad, -1e9, margin)
        rng = np.where(bad, float(np.nanmin(rng)) if not bad.all() else 0.0, rng)
        lk = IslLink(link.id, link.src, link.dst, t, rng, rng / SPEED_OF_LIGHT_KM_S * 1000.0,
                     np.where(bad, np.nan, clear), margin >= 0.0)
        lk.up = _windows(t, margin, 0.0)
        out[link.id] = lk
    return out


def isl_timeline(scenario: Scenario) -> dict[str, IslLink]:
    """The inter-satellite links of a validated scenario: range, delay, line-of-sight clearance and up
    intervals at every ``satcom.sample_s`` (see :class:`IslLink`).

    Parameters
    ----------
    scenario : Scenario
        Validated; a link between two satellites with an ephemeris is an ISL.

    Returns
    -------
    dict
        Link id → :class:`IslLink` (empty without ``satcom`` or ISLs).

    Notes
    -----
    Positions as :func:`satellite_ecef_km` (SGP4 by skyfield, ITRS). Range ``ρ = |r_b − r_a|`` (km),
    one-way delay ``ρ / c`` (ms, c = ``scipy.constants.c``); the link is up while
    :func:`line_of_sight_clearance_km` with ``satcom.isl_grazing_altitude_km`` is ≥ 0 and, with
    ``satcom.isl_max_range_km``, ``ρ`` is within it; rise and set interpolated linearly between samples.
    Same as ``satcom_timeline(scenario).isls``.

    References
    ----------
    .. [1] D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., Microcosm Press
       2013, §5.3 (algorithm SIGHT).
    """
    return satcom_timeline(scenario).isls


def ground_tracks(scenario: Scenario, max_points: int = 361) -> dict[str, list[tuple[float, float, float]]]:
    """The sub-satellite points of every satellite on an orbit over the run, for drawing ground tracks.

    Parameters
    ----------
    scenario : Scenario
        Validated. Empty answer unless it is geographic, has ``satcom`` settings and a satellite with an
        ephemeris (as :func:`satcom_timeline`).
    max_points : int
        Most points per satellite (≥ 2): samples every ``max(satcom.sample_s, duration / (max_points - 1))``
        seconds, and the run's end.

    Returns
    -------
    dict
        Satellite id → ``[(t_s, lat_deg, lon_deg), ...]`` in time order: the WGS84 geodetic latitude and
        longitude (degrees) of the point of the ellipsoid below the satellite (pyproj, EPSG:4978 →
        EPSG:4979, of :func:`satellite_ecef_km`'s Earth-fixed position). A decayed orbit's samples (SGP4 gives
        no position) are left out.
    """
    sc = scenario.satcom
    sats = {n.id: n for n in scenario.nodes if isinstance(n, SatelliteNode) and n.ephemeris is not None}
    if sc is None or not sats or not scenario.is_geo:
        return {}
    duration = scenario.run.duration_s
    step = max(sc.sample_s, duration / max(1, max_points - 1))
    n = int(math.floor(duration / step + _EPS))
    t = np.arange(n + 1) * step
    if t[-1] < duration - _EPS:
        t = np.append(t, duration)
    times = skyfield_times(sc.start_utc, t)
    out: dict[str, list[tuple[float, float, float]]] = {}
    for sid, node in sats.items():
        x, y, z = satellite_ecef_km(node.ephemeris, sc.start_utc, t, times) * 1000.0
        lon, lat, _ = _to_geodetic().transform(x, y, z)
        ok = np.isfinite(lat) & np.isfinite(lon)
        out[sid] = [(float(tk), round(float(la), 6), round(float(lo), 6))
                    for tk, la, lo, good in zip(t, np.atleast_1d(lat), np.atleast_1d(lon), ok) if good]
    return out


class SatcomUse(BaseModel):
    """A ground ``terminal`` uses ``satellite`` over SATCOM link ``link`` during [``t_start_s``, ``t_end_s``)
    (above the elevation mask and chosen by the handover policy); ``POST /api/timeline`` ``satcom`` and
    ``subflow satcom``."""

    terminal: str
    satellite: str
    link: str
    t_start_s: float = Field(description="Start of the use, seconds from the start of the run.")
    t_end_s: float = Field(description="End of the use (handover, set, or the end of the run), seconds.")
    delay_ms: list[tuple[float, float]] = Field(
        description="``[t_s, delay_ms]``: the link's one-way delay (slant range / c plus the link's own "
        "delay_ms, milliseconds) at the start of the use, whenever it moved by satcom.delay_resolution_ms, and "
        "at the end; as the run plan's delay changes.")


def satcom_uses(scenario: Scenario, timeline: SatcomTimeline | None = None) -> list[SatcomUse]:
    """Every use of a satellite by a ground terminal of a validated scenario, in time order (empty without
    satellites on orbits), with the link's delay over the use (see :class:`SatcomUse`). ``timeline``: the
    scenario's :func:`satcom_timeline` when the caller has it already (computed here otherwise)."""
    tl = satcom_timeline(scenario) if timeline is None else timeline
    if not tl.links:
        return []
    own = {link.id: link.delay_ms for link in scenario.links}
    steps = tl.delay_steps(scenario.satcom.delay_resolution_ms)
    by_pair = {(lk.terminal, lk.satellite): lk for lk in tl.links.values()}
    out = []
    for term, uses in tl.uses.items():
        for u in uses:
            lk = by_pair[(term, u.satellite)]
            extra = own[lk.link]
            pts = [(t, round(d + extra, 3)) for t, d in steps[lk.link] if u.t0_s - 1e-9 <= t < u.t1_s]
            pts.append((u.t1_s, round(lk.delay_at(u.t1_s) + extra, 3)))
            out.append(SatcomUse(terminal=term, satellite=u.satellite, link=lk.link, t_start_s=u.t0_s,
                                 t_end_s=u.t1_s, delay_ms=pts))
    out.sort(key=lambda x: (x.t_start_s, x.terminal))
    return out


class IslState(BaseModel):
    """An inter-satellite link ``link`` between ``satellite_a`` and ``satellite_b`` is ``visible`` (up) or
    blocked (by the Earth and its grazing altitude, or beyond the maximum range) during [``t_start_s``,
    ``t_end_s``); ``POST /api/timeline`` ``isl`` and ``subflow satcom``."""

    link: str
    satellite_a: str
    satellite_b: str
    t_start_s: float = Field(description="Start of the interval, seconds from the start of the run.")
    t_end_s: float = Field(description="End of the interval (rise, set, or the end of the run), seconds.")
    visible: bool = Field(description="True: the link is up (line of sight clear, range within "
                          "satcom.isl_max_range_km); false: it is down.")
    range_km: list[tuple[float, float]] = Field(
        description="``[t_s, range_km]``: the distance between the two satellites, km, at the start, at each "
        "delay step and at the end of the interval.")
    delay_ms: list[tuple[float, float]] = Field(
        description="``[t_s, delay_ms]``: the link's one-way delay (range / c plus the link's own delay_ms, "
        "milliseconds) at the same times; while visible, as the run plan's delay changes.")


def _intervals(up: list[tuple[float, float]], duration_s: float) -> list[tuple[float, float, bool]]:
    """``up`` intervals and the gaps between them as ``(t0, t1, up)`` covering [0, duration_s]."""
    out: list[tuple[float, float, bool]] = []
    t = 0.0
    for t0, t1 in up:
        if t0 > t + _EPS:
            out.append((t, t0, False))
        out.append((t0, t1, True))
        t = t1
    if t < duration_s - _EPS:
        out.append((t, duration_s, False))
    return out


def isl_states(scenario: Scenario, timeline: SatcomTimeline | None = None) -> list[IslState]:
    """Every inter-satellite link's visible and blocked intervals over the run, with range and delay.

    Parameters
    ----------
    scenario : Scenario
        Validated.
    timeline : SatcomTimeline, optional
        The scenario's :func:`satcom_timeline` when the caller has it already (computed here otherwise).

    Returns
    -------
    list of IslState
        Sorted by start time (s), then link id; each ISL's intervals cover [0, ``run.duration_s``], with
        its range (km) and one-way delay (ms: range / c plus the link's own ``delay_ms``) at the start, at
        each of the plan's delay steps (``satcom.delay_resolution_ms``) and at the end. Empty without ISLs.

    References
    ----------
    .. [1] D. A. Vallado, "Fundamentals of Astrodynamics and Applications", 4th ed., Microcosm Press
       2013, §5.3 (algorithm SIGHT: the visibility of :func:`line_of_sight_clearance_km`).
    """
    tl = satcom_timeline(scenario) if timeline is None else timeline
    if not tl.isls:
        return []
    own = {link.id: link.delay_ms for link in scenario.links}
    steps = tl.delay_steps(scenario.satcom.delay_resolution_ms)
    out = []
    for lk in tl.isls.values():
        extra = own[lk.link]
        for t0, t1, up in _intervals(lk.up, scenario.run.duration_s):
            times = [t0, *(t for t, _ in steps[lk.link] if t0 + 1e-9 < t < t1 - 1e-9 and up), t1]
            out.append(IslState(link=lk.link, satellite_a=lk.a, satellite_b=lk.b, t_start_s=t0, t_end_s=t1,
                                visible=up, range_km=[(t, round(lk.range_at(t), 3)) for t in times],
                                delay_ms=[(t, round(lk.delay_at(t) + extra, 3)) for t in times]))
    out.sort(key=lambda x: (x.t_start_s, x.link))
    return out
