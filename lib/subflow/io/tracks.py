"""Ship and aircraft tracks: GPX, AIS CSV and NMEA AIVDM in, ``waypoints`` mobility out; GPX out.

A track is a list of timed fixes (WGS84 degrees, metres, absolute UTC time).
Readers (each raising :class:`TrackInvalid` naming the line or point):

* :func:`read_gpx` — GPX 1.0/1.1 tracks (``trk/trkseg/trkpt``, else routes ``rte/rtept``), parsed by gpxpy;
  every point needs a ``time``;
* :func:`read_ais_csv` — a CSV with a header naming ``MMSI, time, lat, lon, SOG, COG`` (any order, any case;
  ``time`` ISO 8601 or Unix seconds; SOG knots, COG degrees);
* :func:`read_nmea` — NMEA 0183 AIVDM/AIVDO sentences decoded by pyais (position reports, message types
  1, 2, 3, 18, 19, 27); each line carries its time either as a tag block ``\\c:<unix seconds>*hh\\`` or as a
  leading field (ISO 8601 or Unix seconds, then a space or comma). A bad checksum is an error naming the line.

Fixes of several vessels (AIS) are told apart by MMSI: give ``mmsi`` when a file holds more than one.
Time must increase along a track (a repeated time with the same position is dropped; a time going backwards
is an error naming the line or point).

:func:`resample` puts the fixes onto the run's clock: times relative to the first fix, sampled every
``run.interval_s`` (coarser if that would give more than :data:`MAX_TRACK_WAYPOINTS`) up to
``run.duration_s``, positions interpolated along the WGS84 geodesic between fixes (pyproj.Geod), giving a
``waypoints`` mobility (:func:`track_mobility`). :func:`write_gpx` writes a trajectory (``[t_s, lat_deg,
lon_deg, alt_m]`` corners) as GPX 1.1.

References
----------
.. [1] GPX 1.1 schema, https://www.topografix.com/GPX/1/1/
.. [2] ITU-R M.1371-5, "Technical characteristics for an automatic identification system using TDMA in the
   VHF maritime mobile frequency band", 2014 (message types 1–3, 18, 19, 27).
.. [3] NMEA 0183 v4.10, §5.3 (sentence checksum) and §7 (tag blocks).
"""

from __future__ import annotations

import copy
import csv
import io
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import gpxpy
import gpxpy.gpx
import numpy as np
from pyais.messages import NMEAMessage

from subflow.errors import ScenarioInvalid, TrackInvalid, TrackTooLarge
from subflow.scenario.document import load_scenario
from subflow.scenario.geodesy import WGS84

__all__ = ["FORMATS", "Fix", "TrackInvalid", "TrackTooLarge", "apply_track", "check_size", "read_ais_csv",
           "read_gpx", "read_nmea", "read_track", "resample", "track_mobility", "write_gpx"]

#: most waypoints a resampled track may have (the sampling step is widened to stay below)
MAX_TRACK_WAYPOINTS = 5000
#: the formats :func:`read_track` reads
FORMATS = ("gpx", "ais-csv", "nmea")


@dataclass(frozen=True)
class Fix:
    """One timed position: ``t`` (aware UTC datetime), WGS84 degrees, altitude metres; ``where`` names its source
    (``"line 12"``, ``"point 3"``) for error messages."""

    t: datetime
    lat_deg: float
    lon_deg: float
    alt_m: float = 0.0
    where: str = ""


def _check_position(lat: float | None, lon: float | None, where: str, loc: list[Any]) -> None:
    if lat is None or lon is None or not (math.isfinite(lat) and math.isfinite(lon)):
        raise TrackInvalid(f"{where}: latitude and longitude are required", loc)
    if not -90.0 <= lat <= 90.0:
        raise TrackInvalid(f"{where}: lat_deg={lat:g} is outside [-90, 90]", loc + ["lat_deg"])
    if not -180.0 <= lon <= 180.0:
        raise TrackInvalid(f"{where}: lon_deg={lon:g} is outside [-180, 180]", loc + ["lon_deg"])


def _parse_time(text: str, where: str, loc: list[Any]) -> datetime:
    text = text.strip()
    try:
        if re.fullmatch(r"-?\d+(\.\d+)?", text):
            return datetime.fromtimestamp(float(text), tz=timezone.utc)
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return t.astimezone(timezone.utc) if t.tzinfo else t.replace(tzinfo=timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise TrackInvalid(f"{where}: time {text[:40]!r} is neither ISO 8601 nor Unix seconds", loc) from None


def _ordered(fixes: list[Fix], loc_of: Any) -> list[Fix]:
    """Drop repeated fixes (same time, same place); refuse a time going backwards naming the fix."""
    out: list[Fix] = []
    for f in fixes:
        if out and f.t <= out[-1].t:
            if f.t == out[-1].t and (f.lat_deg, f.lon_deg) == (out[-1].lat_deg, out[-1].lon_deg):
                continue
            raise TrackInvalid(
                f"{f.where}: time {f.t.isoformat()} does not come after {out[-1].t.isoformat()} "
                f"({out[-1].where}): the track's time goes backwards", loc_of(f))
        out.append(f)
    if not out:
        raise TrackInvalid("the file holds no usable position", ["file"])
    return out


def read_gpx(data: bytes | str) -> list[Fix]:
    """Fixes of a GPX file: every track point of every track and segment (else every route point), in order.

    Raises
    ------
    TrackInvalid
        Unreadable XML/GPX (``["file"]``), a point without time or out-of-range coordinates
        (``["file", "point", k]``, k from 1), time going backwards.
    """
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise TrackInvalid("GPX with a DTD or entities is refused", ["file"])
    try:
        gpx = gpxpy.parse(text)
    except (gpxpy.gpx.GPXException, ValueError) as exc:
        raise TrackInvalid(f"not a readable GPX file: {str(exc)[:200]}", ["file"]) from None
    points = [p for trk in gpx.tracks for seg in trk.segments for p in seg.points]
    if not points:
        points = [p for rte in gpx.routes for p in rte.points]
    fixes: list[Fix] = []
    for k, p in enumerate(points, start=1):
        where = f"point {k}"
        _check_position(p.latitude, p.longitude, where, ["file", "point", k])
        if p.time is None:
            raise TrackInvalid(f"{where}: no <time>; a track needs a time at every point", ["file", "point", k])
        try:
            t = p.time.astimezone(timezone.utc) if p.time.tzinfo else p.time.replace(tzinfo=timezone.utc)
        except (ValueError, OverflowError):
            raise TrackInvalid(f"{where}: unusable <time> (offset out of range)", ["file", "point", k]) from None
        fixes.append(Fix(t, float(p.latitude), float(p.longitude), float(p.elevation or 0.0), where))
    return _ordered(fixes, lambda f: ["file", "point", int(f.where.split()[-1])])


def _pick_vessel(by_mmsi: dict[str, list[Fix]], mmsi: str | None) -> list[Fix]:
    if mmsi is not None:
        if mmsi not in by_mmsi:
            raise TrackInvalid(f"mmsi {mmsi!r} is not in the file (it has {', '.join(sorted(by_mmsi)[:10])})",
                               ["query", "mmsi"])
        return by_mmsi[mmsi]
    if len(by_mmsi) > 1:
        raise TrackInvalid(f"the file holds {len(by_mmsi)} vessels ({', '.join(sorted(by_mmsi)[:10])}): "
                           "give mmsi", ["query", "mmsi"])
    if not by_mmsi:
        raise TrackInvalid("the file holds no usable position", ["file"])
    return next(iter(by_mmsi.values()))


def _line_loc(f: Fix) -> list[Any]:
    return ["file", "line", int(f.where.split()[-1])]


def read_ais_csv(data: bytes | str, mmsi: str | None = None) -> list[Fix]:
    """Fixes of one vessel from an AIS CSV (header with MMSI, time, lat, lon, SOG, COG).

    Raises
    ------
    TrackInvalid
        Missing columns (``["file", "line", 1]``), a bad number, time or coordinate on a line
        (``["file", "line", n]``, n counted from 1 with the header), several vessels without ``mmsi``
        (``["query", "mmsi"]``), time going backwards.
    """
    text = data.decode("utf-8-sig", errors="replace") if isinstance(data, bytes) else data
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise TrackInvalid(f"not a readable CSV file: {exc}", ["file"]) from None
    if not rows:
        raise TrackInvalid("empty file", ["file"])
    header = [h.strip().lower() for h in rows[0]]
    reader = iter(rows[1:])
    need = ("mmsi", "time", "lat", "lon", "sog", "cog")
    missing = [c for c in need if c not in header]
    if missing:
        raise TrackInvalid(f"line 1: the header lacks column(s) {', '.join(missing)} (need MMSI,time,lat,lon,SOG,COG)",
                           ["file", "line", 1])
    col = {c: header.index(c) for c in need}
    by_mmsi: dict[str, list[Fix]] = {}
    for n, row in enumerate(reader, start=2):
        if not row or all(not c.strip() for c in row):
            continue
        where = f"line {n}"
        loc = ["file", "line", n]
        if len(row) < len(header):
            raise TrackInvalid(f"{where}: {len(row)} columns, the header has {len(header)}", loc)
        try:
            lat, lon = float(row[col["lat"]]), float(row[col["lon"]])
            sog, cog = float(row[col["sog"]] or 0), float(row[col["cog"]] or 0)
        except ValueError:
            raise TrackInvalid(f"{where}: lat, lon, SOG and COG must be numbers", loc) from None
        _check_position(lat, lon, where, loc)
        if not (math.isfinite(sog) and sog >= 0) or not (math.isfinite(cog) and 0 <= cog <= 360):
            raise TrackInvalid(f"{where}: SOG must be ≥ 0 knots and COG in [0, 360] degrees", loc)
        t = _parse_time(row[col["time"]], where, loc)
        by_mmsi.setdefault(row[col["mmsi"]].strip(), []).append(Fix(t, lat, lon, 0.0, where))
    return _ordered(_pick_vessel(by_mmsi, mmsi), _line_loc)


_TAG_BLOCK = re.compile(r"^\\(?P<body>[^*\\]*)\*(?P<sum>[0-9A-Fa-f]{2})\\(?P<rest>.*)$")
_POSITION_TYPES = {1, 2, 3, 18, 19, 27}


def _xor(text: str) -> int:
    out = 0
    for ch in text.encode("ascii", errors="replace"):
        out ^= ch
    return out


def read_nmea(data: bytes | str, mmsi: str | None = None) -> list[Fix]:
    """Fixes of one vessel from NMEA AIVDM/AIVDO sentences (pyais), one sentence per line.

    Raises
    ------
    TrackInvalid
        A bad sentence or tag-block checksum, an undecodable sentence, a line without time
        (``["file", "line", n]``, n from 1), several vessels without ``mmsi``, time going backwards.
    """
    text = data.decode("ascii", errors="replace") if isinstance(data, bytes) else data
    by_mmsi: dict[str, list[Fix]] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where, loc = f"line {n}", ["file", "line", n]
        when: datetime | None = None
        m = _TAG_BLOCK.match(line)
        if m:
            if _xor(m["body"]) != int(m["sum"], 16):
                raise TrackInvalid(f"{where}: bad tag block checksum", loc)
            stamp = re.search(r"(?:^|,)c:(\d+)", m["body"])
            if stamp:
                when = _parse_time(stamp.group(1), where, loc)
            line = m["rest"]
        start = min((i for i in (line.find("!"), line.find("$")) if i >= 0), default=-1)
        if start < 0:
            raise TrackInvalid(f"{where}: no NMEA sentence (starting with '!' or '$')", loc)
        if start > 0:
            when = _parse_time(line[:start].rstrip(" ,;\t"), where, loc)
            line = line[start:]
        try:
            msg = NMEAMessage(line.encode("ascii", errors="replace"))
        except Exception as exc:  # pyais raises several exception types for malformed sentences
            raise TrackInvalid(f"{where}: not an NMEA AIVDM sentence ({str(exc)[:120]})", loc) from None
        if not msg.is_valid:
            raise TrackInvalid(f"{where}: bad checksum (the sentence says *{line.rsplit('*', 1)[-1][:2]}, "
                               f"its content gives {_xor(line[1:line.rfind('*')]):02X})", loc)
        if msg.frag_cnt != 1:
            continue  # multi-sentence messages (static and voyage data) carry no position
        try:
            decoded = msg.decode()
        except Exception as exc:  # pyais: undecodable payload
            raise TrackInvalid(f"{where}: cannot decode the AIS payload ({str(exc)[:120]})", loc) from None
        if decoded.msg_type not in _POSITION_TYPES:
            continue
        lat, lon = decoded.lat, decoded.lon
        if lat is None or lon is None or lat == 91.0 or lon == 181.0:
            continue  # ITU-R M.1371: 91°/181° = position not available
        _check_position(lat, lon, where, loc)
        if when is None:
            raise TrackInvalid(f"{where}: no time: prefix the sentence with an ISO 8601 time or Unix seconds, "
                               "or give a tag block \\c:<unix seconds>*hh\\", loc)
        by_mmsi.setdefault(str(decoded.mmsi), []).append(Fix(when, float(lat), float(lon), 0.0, where))
    return _ordered(_pick_vessel(by_mmsi, mmsi), _line_loc)


def read_track(data: bytes | str, fmt: str, mmsi: str | None = None) -> list[Fix]:
    """Fixes of a track file in ``fmt`` (one of :data:`FORMATS`); see the readers for errors."""
    if fmt == "gpx":
        if mmsi is not None:
            raise TrackInvalid("mmsi applies to AIS files only", ["query", "mmsi"])
        return read_gpx(data)
    if fmt == "ais-csv":
        return read_ais_csv(data, mmsi)
    if fmt == "nmea":
        return read_nmea(data, mmsi)
    raise TrackInvalid(f"format {fmt!r} is not one of {', '.join(FORMATS)}", ["query", "format"])


def check_size(n_bytes: int, max_bytes: int) -> None:
    """Refuse a track file over ``max_bytes`` (the ``MAX_TRACK_BYTES`` setting).

    Raises
    ------
    TrackTooLarge
    """
    if n_bytes > max_bytes:
        raise TrackTooLarge(max_bytes)


def resample(fixes: list[Fix], duration_s: float, interval_s: float) -> list[dict[str, float]]:
    """Waypoints ``{t_s, lat_deg, lon_deg, alt_m}`` on the run's clock from absolute fixes.

    ``t_s`` is relative to the first fix. The samples are a regular grid on the run's clock: the step
    is the track's own cadence (median time between fixes) rounded to a multiple of ``interval_s``
    (at least one interval, widened further if more than :data:`MAX_TRACK_WAYPOINTS` would result),
    from 0 to min(track length, ``duration_s``), plus that end point. Between two fixes the position
    moves along the WGS84 geodesic in proportion to time (pyproj.Geod forward problem), the altitude
    linearly; after the track's end the node stays at its last fix.
    """
    t0 = fixes[0].t
    ts = np.array([(f.t - t0).total_seconds() for f in fixes])
    end = min(float(ts[-1]), duration_s)
    if len(fixes) == 1 or end <= 0:
        f = fixes[0]
        return [{"t_s": 0.0, "lat_deg": f.lat_deg, "lon_deg": f.lon_deg, "alt_m": f.alt_m}]
    cadence = float(np.median(np.diff(ts)))
    k = max(1, round(cadence / interval_s), math.ceil(end / interval_s / (MAX_TRACK_WAYPOINTS - 2)))
    step = interval_s * k
    times = list(np.arange(0.0, end, step))
    if not times or end - times[-1] > 1e-9:
        times.append(end)
    lat = np.array([f.lat_deg for f in fixes])
    lon = np.array([f.lon_deg for f in fixes])
    alt = np.array([f.alt_m for f in fixes])
    az, _, dist = WGS84.inv(lon[:-1], lat[:-1], lon[1:], lat[1:])
    az, dist = np.atleast_1d(az), np.atleast_1d(dist)
    out: list[dict[str, float]] = []
    for t in times:
        i = min(int(np.searchsorted(ts, t, side="right")) - 1, len(fixes) - 2)
        u = (t - ts[i]) / (ts[i + 1] - ts[i])
        if u <= 0.0 or u >= 1.0:  # on a fix: its own coordinates, exactly
            j = i if u <= 0.0 else i + 1
            la, lo, u = lat[j], lon[j], float(j - i)
        else:
            lo, la, _ = WGS84.fwd(lon[i], lat[i], az[i], u * dist[i])
        out.append({"t_s": round(float(t), 6), "lat_deg": float(la), "lon_deg": float(lo),
                    "alt_m": float(alt[i] + u * (alt[i + 1] - alt[i]))})
    return out


def track_mobility(fixes: list[Fix], duration_s: float, interval_s: float) -> dict[str, Any]:
    """The ``waypoints`` mobility (a dict of the scenario schema) of a track resampled by :func:`resample`."""
    return {"model": "waypoints", "points": resample(fixes, duration_s, interval_s)}


def apply_track(document: dict[str, Any], node_id: str, fixes: list[Fix]) -> dict[str, Any]:
    """A copy of a scenario ``document`` whose node ``node_id`` follows the track (its position = the first point).

    Only that node's ``position`` and ``mobility`` change; the rest of the document is kept as written.

    Raises
    ------
    ScenarioInvalid
        The node does not exist (``["nodes"]``), or the scenario is planar (a track needs a geographic
        scenario: ``["nodes", i, "position"]``).
    """
    sc = load_scenario(document)
    idx = next((i for i, n in enumerate(sc.nodes) if n.id == node_id), None)
    if idx is None:
        raise ScenarioInvalid([{"loc": ["nodes"], "msg": f"no node {node_id!r}"}])
    if not sc.is_geo:
        raise ScenarioInvalid([{"loc": ["nodes", idx, "position"],
                                "msg": "the scenario is planar (x_m/y_m): a GPS/AIS track needs a geographic "
                                       "scenario (nodes placed by lat_deg/lon_deg)"}])
    mobility = track_mobility(fixes, sc.run.duration_s, sc.run.interval_s)
    doc = copy.deepcopy(document) if isinstance(document, dict) else sc.model_dump(mode="json", exclude_none=True)
    first = mobility["points"][0]
    doc["nodes"][idx]["position"] = {"lat_deg": first["lat_deg"], "lon_deg": first["lon_deg"], "alt_m": first["alt_m"]}
    doc["nodes"][idx]["mobility"] = mobility
    load_scenario(doc)  # the result must be a valid scenario
    return doc


def write_gpx(name: str, corners: list[tuple[float, float, float, float]], start: datetime | None = None) -> str:
    """GPX 1.1 text of one track: ``corners`` ``(t_s, lat_deg, lon_deg, alt_m)``; times are ``start`` + t_s
    (default 1970-01-01T00:00:00Z, so times read back as seconds from the run start)."""
    start = start or datetime(1970, 1, 1, tzinfo=timezone.utc)
    gpx = gpxpy.gpx.GPX()
    gpx.creator = "Subflow"
    trk = gpxpy.gpx.GPXTrack(name=name)
    seg = gpxpy.gpx.GPXTrackSegment()
    for t, lat, lon, alt in corners:
        seg.points.append(gpxpy.gpx.GPXTrackPoint(
            latitude=lat, longitude=lon, elevation=alt,
            time=datetime.fromtimestamp(start.timestamp() + t, tz=timezone.utc)))
    trk.segments.append(seg)
    gpx.tracks.append(trk)
    return gpx.to_xml(version="1.1")
