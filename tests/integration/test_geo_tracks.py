"""Geography on real processes: geographic timeline, track import (new version, nothing stored on error), GPX export,
and a comparison of sptcp vs mptcp on examples/naval-geo.json."""

from __future__ import annotations

import math

import pytest

from subflow.io.tracks import read_gpx
from subflow.scenario.geodesy import geodesic_distance_m

from tests.conftest import EXAMPLES
from tests.integration.conftest import _wait_comparison

pytestmark = pytest.mark.integration

CSV = (EXAMPLES / "tracks" / "ship1-ais.csv").read_bytes()


def _static_ship1(doc: dict) -> dict:
    for n in doc["nodes"]:
        if n["id"] == "ship1":
            n["mobility"] = {"model": "static"}
    return doc


def test_geographic_timeline_returns_lat_lon_corners_for_every_node(pg_stack, example):
    doc = example("naval-geo")
    r = pg_stack.api.post("/timeline", json=doc)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["origin"] == [51.03, 1.52]
    assert set(body["geo_trajectories"]) == {n["id"] for n in doc["nodes"]} == set(body["trajectories"])
    shore = next(n for n in doc["nodes"] if n["id"] == "shore")["position"]
    (t0, lat, lon, alt), *_ = body["geo_trajectories"]["shore"]
    assert (lat, lon) == pytest.approx((shore["lat_deg"], shore["lon_deg"]), abs=1e-9)
    # the loitering UAV stays 3 km (geodesic) from the loiter centre, at 1500 m
    for t, lat, lon, alt in body["geo_trajectories"]["uav"][::7]:
        assert geodesic_distance_m(51.03, 1.52, lat, lon) == pytest.approx(3000.0, rel=0.005)
        assert alt == 1500
    # same corner times in both views
    assert [c[0] for c in body["geo_trajectories"]["uav"]] == [c[0] for c in body["trajectories"]["uav"]]
    assert len(body["associations"]) >= 4


def test_track_import_makes_a_new_version_and_gpx_export_reads_back(pg_stack, example):
    api = pg_stack.api
    r = api.post("/scenarios", json=_static_ship1(example("naval-geo")))
    assert r.status_code == 201, r.text
    sid, version = r.json()["id"], r.json()["version"]
    r = api.post(f"/scenarios/{sid}/nodes/ship1/track", params={"format": "ais-csv"},
                 files={"file": ("ship1.csv", CSV, "text/csv")})
    assert r.status_code == 200, r.text
    assert r.json()["version"] == version + 1 and r.headers["ETag"] == f'"v{version + 1}"'
    ship = next(n for n in r.json()["scenario"]["nodes"] if n["id"] == "ship1")
    assert ship["mobility"]["model"] == "waypoints" and len(ship["mobility"]["points"]) == 61
    versions = api.get(f"/scenarios/{sid}/versions").json()
    assert {v["version"] for v in versions["data"]} >= {version, version + 1}
    r = api.get(f"/scenarios/{sid}/nodes/ship1/track.gpx")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/gpx+xml")
    fixes = read_gpx(r.text)
    first = ship["mobility"]["points"][0]
    assert (fixes[0].lat_deg, fixes[0].lon_deg) == pytest.approx((first["lat_deg"], first["lon_deg"]), abs=1e-9)
    assert api.get(f"/scenarios/{sid}/nodes/nobody/track.gpx").status_code == 404


@pytest.mark.parametrize("fmt, payload, loc", [
    ("ais-csv", CSV.replace(b"51.083823", b"95.0"), ["body", "file", "line", 3, "lat_deg"]),
    ("ais-csv", CSV.replace(b"1.598131", b"200.0"), ["body", "file", "line", 3, "lon_deg"]),
    ("ais-csv", CSV.replace(b"2024-05-01T10:00:30Z", b"2024-05-01T09:00:00Z"), ["body", "file", "line", 3]),
    ("nmea", b"1714557600 !AIVDM,1,1,,A,13P7@hOP1s06`kPM=PL1hP0;P000,0*00\n", ["body", "file", "line", 1]),
    ("gpx", b"<gpx><trk><broken", ["body", "file"]),
])
def test_bad_tracks_are_422_naming_the_line_and_store_nothing(pg_stack, example, fmt, payload, loc):
    api = pg_stack.api
    sid = api.post("/scenarios", json=_static_ship1(example("naval-geo"))).json()["id"]
    before = api.get(f"/scenarios/{sid}").json()
    r = api.post(f"/scenarios/{sid}/nodes/ship1/track", params={"format": fmt},
                 files={"file": ("t", payload, "application/octet-stream")})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == loc
    after = api.get(f"/scenarios/{sid}").json()
    assert after["version"] == before["version"] and after["scenario"] == before["scenario"]


def test_a_50_mb_track_is_413_naming_the_setting_and_stores_nothing(pg_stack, example):
    api = pg_stack.api
    sid = api.post("/scenarios", json=_static_ship1(example("naval-geo"))).json()["id"]
    before = api.get(f"/scenarios/{sid}").json()["version"]
    big = CSV + b"\n" * (50 * 1024 * 1024)
    r = api.post(f"/scenarios/{sid}/nodes/ship1/track", params={"format": "ais-csv"},
                 files={"file": ("big.csv", big, "text/csv")})
    assert r.status_code == 413 and "MAX_TRACK_BYTES" in r.json()["detail"]
    assert api.get(f"/scenarios/{sid}").json()["version"] == before


def test_track_on_a_planar_scenario_names_the_node(pg_stack, example):
    api = pg_stack.api
    sid = api.post("/scenarios", json=example("naval-direct-move")).json()["id"]
    r = api.post(f"/scenarios/{sid}/nodes/sta1/track", params={"format": "ais-csv"},
                 files={"file": ("ship1.csv", CSV, "text/csv")})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["scenario", "nodes", 3, "position"]
    r = api.get(f"/scenarios/{sid}/nodes/sta1/track.gpx")
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["scenario", "nodes", 3, "position"]


def test_sptcp_vs_mptcp_on_naval_geo(pg_stack, example):
    api = pg_stack.api
    sid = api.post("/scenarios", json=example("naval-geo")).json()["id"]
    r = api.post(f"/scenarios/{sid}/comparisons", json={"strategies": ["sptcp", "mptcp"]})
    assert r.status_code == 202, r.text
    body, _ = _wait_comparison(pg_stack, sid, r.json()["id"], timeout_s=240)
    assert body["status"] == "succeeded", body
    res = body["result"]["strategies"]
    # MPTCP keeps SATCOM while the UAV comes and goes: no second without throughput; TCP has outages
    assert res["mptcp"]["summary"]["zero_s"] == 0
    assert res["sptcp"]["summary"]["zero_s"] > 0
    assert res["mptcp"]["summary"]["mean_mbps"] > res["sptcp"]["summary"]["mean_mbps"]
    kinds = {e["kind"] for e in res["mptcp"]["events"]}
    assert {"association", "disassociation"} <= kinds
    assert math.isfinite(res["sptcp"]["summary"]["mean_mbps"])
