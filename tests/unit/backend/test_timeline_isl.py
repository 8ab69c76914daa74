"""``POST /api/timeline``'s ``isl`` answer: the inter-satellite links' intervals, as ``subflow satcom --isl``."""

from __future__ import annotations

import json

import pytest

from subflow.scenario.document import load_scenario
from subflow.service.limits import Limits
from subflow.space.satcom import isl_timeline
from subflow_backend.api.routes.timeline import TimelinePublic, timeline_of

from tests.conftest import EXAMPLES


def test_the_timeline_lists_the_isl_with_range_delay_and_visibility():
    doc = json.loads((EXAMPLES / "naval-leo-isl.json").read_text())
    answer = TimelinePublic.model_validate(timeline_of(doc, Limits()).model_dump(mode="json"))
    isl = isl_timeline(load_scenario(doc))["isl-ab"]
    (row,) = answer.isl
    assert (row.link, row.satellite_a, row.satellite_b, row.visible) == ("isl-ab", "leo-a", "leo-b", True)
    assert (row.t_start_s, row.t_end_s) == (0.0, 900.0)
    assert row.range_km[0] == (0.0, pytest.approx(isl.range_km[0], abs=1e-3))
    assert row.delay_ms[-1] == (900.0, pytest.approx(isl.delay_ms[-1], abs=1e-3))
    assert {u.terminal for u in answer.satcom} == {"ship", "shore"}
    # the windows cut where the ship's and shore's satellites rise and set
    assert any(abs(t0 - 201.53) < 0.01 for t0, _ in answer.windows)


def test_a_scenario_without_isl_answers_an_empty_list():
    doc = json.loads((EXAMPLES / "naval-leo.json").read_text())
    assert timeline_of(doc, Limits()).isl == []


def test_the_access_report_only_when_asked():
    doc = json.loads((EXAMPLES / "naval-leo.json").read_text())
    assert timeline_of(doc, Limits()).access == []
    passes = timeline_of(doc, Limits(), access=True).access
    assert {p.terminal for p in passes} == {"ship1", "ship2", "teleport"}  # the gateway too
    assert all(p.steps is None for p in passes)  # naval-leo has no link budgets


def test_the_ground_tracks_are_the_sub_satellite_points():
    """GEO: the point on the equator at its longitude; TLE: skyfield's own geodetic sub-point (WGS84), an
    independent path from the pyproj conversion the answer uses."""
    from skyfield.api import EarthSatellite, load, wgs84

    doc = json.loads((EXAMPLES / "naval-leo.json").read_text())
    tracks = timeline_of(doc, Limits()).ground_tracks
    assert set(tracks) == {"geosat", "leo-p1s2", "leo-p1s3", "leo-p6s2"}
    geo = tracks["geosat"]
    assert geo[0][0] == 0.0 and geo[-1][0] == 900.0 and len(geo) <= 361
    assert all(abs(lat) < 1e-6 and abs(lon - 5.0) < 1e-6 for _, lat, lon in geo)
    leo = next(n for n in doc["nodes"] if n["id"] == "leo-p6s2")["ephemeris"]
    sat = EarthSatellite(leo["line1"], leo["line2"], ts=load.timescale(builtin=True))
    ts = load.timescale(builtin=True)
    for t_s, lat, lon in tracks["leo-p6s2"][::60]:
        here = wgs84.subpoint_of(sat.at(ts.utc(2026, 6, 1, 12, 0, t_s)))
        assert (lat, lon) == (pytest.approx(here.latitude.degrees, abs=1e-3),
                              pytest.approx(here.longitude.degrees, abs=1e-3))
    # an inclination of 53°: the geocentric latitude never exceeds 53°, the geodetic one by at most ~0.2° there
    # (tan φ = tan ψ / (1 − e²), e² = 0.00669438), and it moves (~4 km/s on the ground)
    assert all(abs(lat) <= 53.2 for _, lat, _ in tracks["leo-p6s2"])
    assert tracks["leo-p6s2"][0][1:] != tracks["leo-p6s2"][-1][1:]


def test_a_scenario_without_orbits_has_no_ground_tracks():
    doc = json.loads((EXAMPLES / "naval-leo.json").read_text())
    doc.pop("satcom")
    for n in doc["nodes"]:
        n.pop("ephemeris", None)
    assert timeline_of(doc, Limits()).ground_tracks == {}
