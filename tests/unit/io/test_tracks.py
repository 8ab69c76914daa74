"""GPX, AIS CSV and NMEA AIVDM track imports against files written here with known positions."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from pyais.encode import encode_dict

from subflow.errors import ScenarioInvalid
from subflow.io.tracks import (
    MAX_TRACK_WAYPOINTS,
    TrackInvalid,
    TrackTooLarge,
    apply_track,
    check_size,
    read_ais_csv,
    read_gpx,
    read_nmea,
    read_track,
    resample,
    write_gpx,
)
from subflow.scenario.document import load_scenario
from subflow.scenario.geodesy import destination, geodesic_distance_m

GPX = """<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
 <trk><name>ship</name><trkseg>
  <trkpt lat="51.0000" lon="1.5000"><ele>0</ele><time>2024-05-01T10:00:00Z</time></trkpt>
  <trkpt lat="51.0500" lon="1.5500"><ele>0</ele><time>2024-05-01T10:10:00Z</time></trkpt>
  <trkpt lat="51.1000" lon="1.5200"><ele>0</ele><time>{t3}</time></trkpt>
 </trkseg></trk>
</gpx>
"""


def test_gpx_points_are_read_with_their_times():
    fixes = read_gpx(GPX.format(t3="2024-05-01T10:20:00Z"))
    assert [(f.lat_deg, f.lon_deg) for f in fixes] == [(51.0, 1.5), (51.05, 1.55), (51.1, 1.52)]
    assert [f.t for f in fixes] == [datetime(2024, 5, 1, 10, m, tzinfo=timezone.utc) for m in (0, 10, 20)]


def test_gpx_time_going_backwards_names_the_point():
    with pytest.raises(TrackInvalid) as exc:
        read_gpx(GPX.format(t3="2024-05-01T10:05:00Z"))
    assert exc.value.loc == ["file", "point", 3]
    assert "point 3" in str(exc.value) and "backwards" in str(exc.value)


def test_gpx_with_a_latitude_of_95_names_the_field():
    with pytest.raises(TrackInvalid) as exc:
        read_gpx(GPX.format(t3="2024-05-01T10:20:00Z").replace('lat="51.0500"', 'lat="95.0"'))
    # gpxpy itself may refuse it as unreadable, or we do naming point 2 and lat_deg
    assert exc.value.loc in (["file", "point", 2, "lat_deg"], ["file"])


def test_gpx_with_a_dtd_is_refused():
    with pytest.raises(TrackInvalid):
        read_gpx('<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY a "aaaa">]><gpx version="1.1"></gpx>')


CSV = """MMSI,time,lat,lon,SOG,COG
235000001,2024-05-01T10:00:00Z,51.000,1.500,12.0,45
235000002,2024-05-01T10:00:00Z,51.200,1.300,8.0,180
235000001,2024-05-01T10:05:00Z,51.010,1.515,12.0,45
235000001,2024-05-01T10:05:00Z,51.010,1.515,12.0,45
235000001,1714558200,51.020,1.530,12.0,45
"""


def test_ais_csv_picks_one_vessel_and_drops_repeated_fixes():
    fixes = read_ais_csv(CSV, mmsi="235000001")
    assert [(f.lat_deg, f.lon_deg) for f in fixes] == [(51.0, 1.5), (51.01, 1.515), (51.02, 1.53)]
    assert fixes[-1].t == datetime(2024, 5, 1, 10, 10, tzinfo=timezone.utc)  # Unix seconds 1714558200
    assert [(f.lat_deg, f.lon_deg) for f in read_ais_csv(CSV, mmsi="235000002")] == [(51.2, 1.3)]


def test_ais_csv_with_several_vessels_needs_mmsi():
    with pytest.raises(TrackInvalid) as exc:
        read_ais_csv(CSV)
    assert exc.value.loc == ["query", "mmsi"] and "2 vessels" in str(exc.value)


@pytest.mark.parametrize("bad, field", [("95.0,1.500", "lat_deg"), ("51.0,200.0", "lon_deg")])
def test_ais_csv_latitude_95_longitude_200_name_the_line_and_field(bad, field):
    text = CSV.replace("51.010,1.515", bad, 1)
    with pytest.raises(TrackInvalid) as exc:
        read_ais_csv(text, mmsi="235000001")
    assert exc.value.loc == ["file", "line", 4, field]


def test_ais_csv_time_going_backwards_names_the_line():
    text = CSV.replace("1714558200", "1714557000")
    with pytest.raises(TrackInvalid) as exc:
        read_ais_csv(text, mmsi="235000001")
    assert exc.value.loc == ["file", "line", 6]


def test_ais_csv_missing_columns():
    with pytest.raises(TrackInvalid) as exc:
        read_ais_csv("MMSI,time,lat,lon\n1,0,1,1\n")
    assert exc.value.loc == ["file", "line", 1] and "SOG" in str(exc.value).upper()


def _sentence(mmsi: int, lat: float, lon: float, second: int = 0) -> str:
    (s,) = encode_dict({"type": 1, "mmsi": mmsi, "lat": lat, "lon": lon, "speed": 10.0, "course": 90.0,
                        "second": second}, radio_channel="A", talker_id="AI", sentence_type="VDM")
    return s


def _tag(unix: int) -> str:
    body = f"c:{unix}"
    x = 0
    for ch in body.encode():
        x ^= ch
    return f"\\{body}*{x:02X}\\"


def test_nmea_aivdm_with_tag_blocks_and_leading_times():
    lines = [
        _tag(1714557600) + _sentence(235000001, 51.0, 1.5),
        "2024-05-01T10:05:00Z " + _sentence(235000001, 51.01, 1.515),
        "1714558200," + _sentence(235000001, 51.02, 1.53),
    ]
    fixes = read_nmea("\n".join(lines))
    assert [(round(f.lat_deg, 5), round(f.lon_deg, 5)) for f in fixes] == [(51.0, 1.5), (51.01, 1.515), (51.02, 1.53)]
    assert [f.t.minute for f in fixes] == [0, 5, 10]


def test_nmea_bad_checksum_names_the_line():
    good = _sentence(235000001, 51.0, 1.5)
    body, check = good.rsplit("*", 1)
    bad = f"{body}*{(int(check, 16) ^ 0x01):02X}"
    text = "\n".join(["1714557600 " + good, "1714557900 " + bad])
    with pytest.raises(TrackInvalid) as exc:
        read_nmea(text)
    assert exc.value.loc == ["file", "line", 2] and "checksum" in str(exc.value)


def test_nmea_line_without_time_is_refused():
    with pytest.raises(TrackInvalid) as exc:
        read_nmea(_sentence(235000001, 51.0, 1.5))
    assert exc.value.loc == ["file", "line", 1] and "no time" in str(exc.value)


def test_resample_moves_along_the_geodesic_on_the_runs_clock():
    from subflow.io.tracks import Fix

    t0 = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)
    # three fixes 300 s apart on one geodesic at bearing 30°, 10 m/s
    pts_in = [(51.0, 1.5)] + [destination(51.0, 1.5, 30.0, d) for d in (3000.0, 6000.0)]
    fixes = [Fix(t0.replace(minute=5 * k), lat, lon) for k, (lat, lon) in enumerate(pts_in)]
    # run clock of 7 s: the step is the track's 300 s cadence rounded to 43 intervals = 301 s
    pts = resample(fixes, duration_s=900, interval_s=7)
    assert [p["t_s"] for p in pts] == [0.0, 301.0, 600.0]
    assert geodesic_distance_m(51.0, 1.5, pts[1]["lat_deg"], pts[1]["lon_deg"]) == pytest.approx(3010.0, abs=1e-3)
    assert (pts[2]["lat_deg"], pts[2]["lon_deg"]) == pts_in[2]  # the track's end, exactly
    # a run shorter than the track cuts it; a fine clock keeps the track's cadence
    assert resample(fixes, duration_s=200, interval_s=7)[-1]["t_s"] == 200.0
    assert len(resample(fixes, duration_s=900, interval_s=0.01)) == 3
    dense = [Fix(t0.replace(microsecond=0) + (t0 - t0).__class__(seconds=k), 51.0 + k * 1e-5, 1.5) for k in range(20000)]
    assert len(resample(dense, duration_s=86_400, interval_s=1)) <= MAX_TRACK_WAYPOINTS


def _geo_scenario() -> dict:
    return {"name": "t", "nodes": [
        {"id": "ship", "kind": "station", "position": {"lat_deg": 51.0, "lon_deg": 1.5}},
        {"id": "ap", "kind": "access_point", "range_m": 3000, "position": {"lat_deg": 51.01, "lon_deg": 1.52}},
    ], "run": {"duration_s": 900, "interval_s": 1}}


def test_apply_track_makes_waypoints_and_the_scenario_stays_valid():
    fixes = read_track(CSV, "ais-csv", mmsi="235000001")
    doc = apply_track(_geo_scenario(), "ship", fixes)
    sc = load_scenario(doc)
    ship = sc.node("ship")
    assert ship.mobility.model == "waypoints" and ship.mobility.points[0].t_s == 0
    assert (ship.position.lat_deg, ship.position.lon_deg) == (51.0, 1.5)
    assert ship.mobility.points[-1].t_s == 600.0
    assert (ship.mobility.points[-1].lat_deg, ship.mobility.points[-1].lon_deg) == pytest.approx((51.02, 1.53))


def test_apply_track_to_a_planar_scenario_is_refused():
    doc = {"name": "p", "nodes": [{"id": "ship", "kind": "station"}]}
    with pytest.raises(ScenarioInvalid) as exc:
        apply_track(doc, "ship", read_track(CSV, "ais-csv", mmsi="235000001"))
    assert exc.value.errors[0]["loc"] == ["nodes", 0, "position"]


def test_size_limit_names_the_setting():
    check_size(1000, 1000)
    with pytest.raises(TrackTooLarge) as exc:
        check_size(50 * 1024 * 1024, 20 * 1024 * 1024)
    assert "MAX_TRACK_BYTES" in str(exc.value)


def test_gpx_export_reads_back():
    corners = [(0.0, 51.0, 1.5, 0.0), (60.0, 51.01, 1.51, 10.0), (120.5, 51.02, 1.52, 20.0)]
    fixes = read_gpx(write_gpx("uav", corners))
    assert [(f.lat_deg, f.lon_deg, f.alt_m) for f in fixes] == [c[1:] for c in corners]
    assert [(f.t - fixes[0].t).total_seconds() for f in fixes] == [0.0, 60.0, 120.5]


def test_mangled_files_raise_only_track_invalid():
    """Bytes flipped at random in valid files (seeded): every failure is a TrackInvalid (a 422), never a crash."""
    import random

    rng = random.Random(7)
    gpx = write_gpx("x", [(0.0, 51.0, 1.5, 0.0), (60.0, 51.01, 1.51, 10.0), (120.0, 51.02, 1.52, 0.0)]).encode()
    nmea = "\n".join(["1714557600 " + _sentence(235000001, 51.0, 1.5),
                      _tag(1714557660) + _sentence(235000001, 51.01, 1.51)]).encode()
    for fmt, good in (("gpx", gpx), ("ais-csv", CSV.encode()), ("nmea", nmea)):
        for k in range(300):
            data = bytearray(good) if k % 30 else bytearray(rng.randbytes(rng.randint(0, 200)))
            for _ in range(rng.randint(1, 6)):
                if data:
                    data[rng.randrange(len(data))] = rng.randrange(256)
            try:
                read_track(bytes(data), fmt, mmsi="235000001" if fmt != "gpx" else None)
            except TrackInvalid:
                pass
